# make install / uninstall, like a Debian tool: the binary, a man page per
# command (and zealot.1, zealot-endpoint.5, zealot-laws.7), bash and zsh
# completion under DESTDIR/PREFIX; man renders the pages; zealot help opens
# them on a terminal; emit unit uses the installed path and warns about a
# checkout's; uninstall leaves no file.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
D="$TMP/dest dir" # a DESTDIR with a space
# what install installs is built first; install itself writes nothing into
# the checkout (as root, a file it wrote there would be root's)
make -s -C "$ROOT" zealot man >/dev/null 2>&1
touch "$TMP/marker"
run make -s -C "$ROOT" install DESTDIR="$D" PREFIX=/usr
check "make install DESTDIR PREFIX=/usr: exit 0" rc_is 0
check "make install wrote nothing into the checkout (zealot, build/man)" \
	test -z "$(find "$ROOT/zealot" "$ROOT/build/man" "$ROOT/build/gen" -newer "$TMP/marker" | head -3)"
U=$D/usr
check "bin/zealot, executable" test -x "$U/bin/zealot"
run "$U/bin/zealot" --version
check "the installed zealot runs: --version" test "$rc" -eq 0 -a -n "$(grep -E '^zealot [0-9]' "$TMP/out")"
"$U/bin/zealot" help --pages >pages
check "help --pages: at least 25 pages" test "$(wc -l <pages)" -ge 25
missing=
for p in $(cat pages); do
	s=${p##*.}
	[ -s "$U/share/man/man$s/$p" ] || missing="$missing $p"
done
check "every page of help --pages under share/man/manN ($missing)" test -z "$missing"
check "at least 20 zealot-*.1 pages" test "$(find "$U/share/man/man1" -name 'zealot-*.1' | wc -l)" -ge 20
check "bash completion: share/bash-completion/completions/zealot" test -s "$U/share/bash-completion/completions/zealot"
check "zsh completion: share/zsh/vendor-completions/_zealot" test -s "$U/share/zsh/vendor-completions/_zealot"

run man -l "$U/share/man/man1/zealot-plan.1"
check "man -l renders zealot-plan(1): NAME, its options" test "$rc" -eq 0 -a -n "$(grep -E 'zealot-plan +- price' "$TMP/out")" \
	-a -n "$(grep -F -- '--cpu-features' "$TMP/out")"
run man -M "$U/share/man" zealot-laws
check "man -M finds zealot-laws(7) by name, with M03" test "$rc" -eq 0 -a -n "$(grep -E '^ +M03: ' "$TMP/out")"
run man -M "$U/share/man" 5 zealot-endpoint
check "man 5 zealot-endpoint: the key table" test "$rc" -eq 0 -a -n "$(grep -F 'CTX_SIZE' "$TMP/out")"

# zealot help CMD on a terminal opens the man page (script(1) gives a tty)
if command -v script >/dev/null; then
	MANPATH="$U/share/man" MANPAGER=cat PAGER=cat MANWIDTH=90 \
		script -qec "\"$U/bin/zealot\" help plan" /dev/null >tty.out 2>&1
	check "help plan on a terminal: man's page (NAME section, man's header)" \
		test -n "$(grep -F 'ZEALOT-PLAN(1)' tty.out)" -a -n "$(grep -E 'zealot-plan +- price' tty.out)"
fi

# bash completion, asking the installed binary
comp() { # WORDS... -> the completions of the last word
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _zealot; printf "%s\n" "${COMPREPLY[@]}"' \
		_ "$U/share/bash-completion/completions/zealot" "$U/bin/zealot" "${@:2}"
}
check "complete 'zealot pl': plan" test "$(comp zealot pl)" = plan
check "complete 'zealot plan --dev': --device" test "$(comp zealot plan --dev)" = --device
check "complete 'zealot fleet st': status" test "$(comp zealot fleet st)" = status
check "complete 'zealot fleet plan --' lists fleet plan's options" test -n "$(comp zealot fleet plan -- | grep -x -- --json)"
check "complete 'zealot explain m0': the M laws" test "$(comp zealot explain M0 | wc -l)" -ge 9

# emit unit: the installed path, no warning; a checkout's binary: warned
must "$ZEALOT" synth llama -o l.gguf || exit 1
printf 'MODEL_FILE=l.gguf\nCTX_SIZE=4096\nDEVICE=cpu\nADDRESSABLE_MIB=16384\n' >e.env
run "$U/bin/zealot" emit unit e.env
check "emit unit from the install: ExecStart runs the installed zealot" test "$rc" -eq 0 \
	-a -n "$(grep -F "ExecStart=\"$U/bin/zealot\" serve" "$TMP/out")"
check "emit unit from the install: no checkout warning" test ! -s "$TMP/err"
run "$ZEALOT" emit unit e.env
check "emit unit from a checkout: still the unit (exit 0)" rc_is 0
check "emit unit from a checkout: warns that the unit would run a checkout" \
	err_has "zealot: emit: warning: ExecStart would run $ZEALOT, a binary in a source checkout"
run "$ZEALOT" emit unit e.env --zealot /usr/bin/zealot
check "emit unit --zealot PATH: that path, no warning" test "$rc" -eq 0 -a ! -s "$TMP/err" -a -n "$(grep -F 'ExecStart=/usr/bin/zealot serve' "$TMP/out")"

run make -s -C "$ROOT" uninstall DESTDIR="$D" PREFIX=/usr
check "make uninstall: exit 0" rc_is 0
check "make uninstall: no file left under DESTDIR ($(find "$D" -type f | head -3))" test -z "$(find "$D" -type f)"
check "make uninstall: no directory install made left under DESTDIR ($(find "$D" -mindepth 1 | head -3))" \
	test -z "$(find "$D" -mindepth 1)"

# PREFIX=/usr/local: zsh completion where Debian's zsh looks for a local
# install (its fpath holds /usr/local/share/zsh/site-functions, not
# .../vendor-completions, which is the package's under /usr)
L="$TMP/local"
run make -s -C "$ROOT" install DESTDIR="$L" PREFIX=/usr/local
check "make install PREFIX=/usr/local: exit 0" rc_is 0
check "zsh completion: /usr/local/share/zsh/site-functions/_zealot" test -s "$L/usr/local/share/zsh/site-functions/_zealot"
check "no /usr/local/share/zsh/vendor-completions" test ! -e "$L/usr/local/share/zsh/vendor-completions"
# a PREFIX whose bin and share/man exist before (as on Debian): uninstall
# removes what it made and keeps those
run make -s -C "$ROOT" uninstall DESTDIR="$L" PREFIX=/usr/local
check "make uninstall PREFIX=/usr/local: nothing left ($(find "$L" -mindepth 1 | head -3))" test -z "$(find "$L" -mindepth 1)"

# sudo make install in a checkout root does not own: it installs what is
# built and builds nothing (CHECKOUT_UID stands for another owner)
if [ "$(id -u)" = 0 ]; then
	touch "$TMP/marker"
	run make -s -C "$ROOT" install DESTDIR="$TMP/as-root" PREFIX=/usr CHECKOUT_UID=65534
	check "as root in another's checkout: make install exit 0, the binary installed" \
		test "$rc" -eq 0 -a -x "$TMP/as-root/usr/bin/zealot"
	new=$(find "$ROOT" -mindepth 1 -maxdepth 1 -newer "$TMP/marker"; find "$ROOT/build/man" "$ROOT/build/gen" -newer "$TMP/marker")
	check "as root in another's checkout: nothing written into it ($new)" test -z "$new"
fi
check "no sanitizer report" no_sanitizer
