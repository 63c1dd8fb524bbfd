# The endpoint file means one thing (law C10): for every file of the hostile
# corpus (tests/data/envfile: the reproductions of issue 18 and generated
# files, tests/data/envfile/gen.py) that `zealot check --json` reads, the
# environment a real systemd 252 sets from it through EnvironmentFile=
# (PID 1 of a systemd-nspawn container, tests/systemd.sh) holds exactly the
# keys and values zealot reports; every file zealot refuses names its law
# and line; the reproductions are refused.
. "$(dirname "$0")/../lib.sh"
RS_NAME=zl-envfile-$$
RS_BIND=$TMP
. "$(dirname "$0")/../systemd.sh"
cd "$TMP" || exit 1

mkdir corpus
cp "$ROOT"/tests/data/envfile/*.env corpus/
# issue 28 item 15: the kernel's MAX_ARG_STRLEN (131072 bytes, NUL
# included) on one KEY=VALUE, at the limit and one byte past it, and the
# noncharacters systemd's UTF-8 check refuses (generated: 128 KiB each)
python3 - <<'PY'
for name, n in (("long-at-limit", 131072 - len("ALIAS=") - 1), ("long-past-limit", 131072 - len("ALIAS="))):
    open("corpus/%s.env" % name, "w").write("RUNTIME=/bin/true\nALIAS=" + "a" * n + "\nCTX_SIZE=4096\n")
for name, ch in (("nonchar-fffe", "\ufffe"), ("nonchar-ffff", "\uffff"), ("nonchar-fdd0", "\ufdd0"),
                 ("nonchar-fdef", "\ufdef"), ("nonchar-1fffe", "\U0001fffe"), ("nonchar-10ffff", "\U0010ffff")):
    open("corpus/%s.env" % name, "wb").write(("ALIAS=a%sb\nCTX_SIZE=4096\n" % ch).encode("utf-8", "surrogatepass"))
for name, ch in (("char-fdcf", "\ufdcf"), ("char-fdf0", "\ufdf0"), ("char-fffd", "\ufffd"), ("char-1fffd", "\U0001fffd")):
    open("corpus/%s.env" % name, "wb").write(("ALIAS=a%sb\nCTX_SIZE=4096\n" % ch).encode("utf-8"))
PY
: >empty.env

if ! rs_start; then
	echo "not ok - a real systemd boots in a container (tests/systemd.sh)"
	exit 1
fi
echo "ok - a real systemd boots in a container in $RS_BOOT_MS ms"

# what systemd sets from FILE, NUL-separated, in OUT; the status of the run
sd_env() { # FILE OUT
	rs_exec systemd-run --wait --pipe --quiet --service-type=exec -p EnvironmentFile="$1" /usr/bin/env -0 \
		</dev/null >"$2" 2>"$2.err"
}
sd_env "$TMP/empty.env" base.env0
check "baseline: systemd-run runs env under an empty EnvironmentFile=" test -s base.env0
grep -qz '^INVOCATION_ID=' base.env0 || echo "# warning: no INVOCATION_ID in the baseline"

accepted=0 refused=0 same=0 unlined=""
for f in corpus/*.env; do
	name=$(basename "$f" .env)
	"$ZEALOT" check --json "$f" >"$f.json" 2>"$f.check.err"
	if jq -e 'has("keys")' "$f.json" >/dev/null 2>&1; then
		accepted=$((accepted + 1))
		if sd_env "$TMP/$f" "$f.env0"; then
			if python3 "$ROOT/tests/envfile-compare.py" "$f.json" "$f.env0" base.env0 >"$f.diff"; then
				same=$((same + 1))
			else
				echo "not ok - $name: systemd's environment differs from zealot's keys"
				sed 's/^/#   /' "$f.diff"
				od -c "$f" | sed 's/^/#   file: /'
			fi
		else
			echo "not ok - $name: zealot reads the file, systemd does not start the unit"
			sed 's/^/#   /' "$f.env0.err"
		fi
	else
		refused=$((refused + 1))
		# the refusal names a law and the line: "FILE:LINE: ..."
		law=$(jq -r '.findings[0].law' "$f.json" 2>/dev/null)
		reason=$(jq -r '.findings[0].reason' "$f.json" 2>/dev/null)
		case "$law:$reason" in
		C0[129]:*"$f:"[0-9]*|C10:*"$f:"[0-9]*) ;;
		*) unlined="$unlined $name($law: $reason)" ;;
		esac
	fi
done
echo "# corpus: $accepted read by zealot ($same the same under systemd), $refused refused"
check "every file zealot reads means to systemd what it means to zealot ($same of $accepted)" \
	test "$accepted" -gt 0 -a "$same" -eq "$accepted"
check "every refusal names its law and line (C01, C02, C09 or C10, FILE:LINE)" test -z "$unlined"
[ -n "$unlined" ] && echo "#  $unlined"
check "the corpus holds files of both kinds (at least 30 read, 30 refused)" test "$accepted" -ge 30 -a "$refused" -ge 30

# the reproductions: refused with C10 and their line
c10() { # NAME LINE TEXT
	check "$1: refused, C10, line $2 ($3)" \
		test "$(jq -r '.findings[0].law' "corpus/$1.env.json")" = C10 -a \
		-n "$(jq -r '.findings[0].reason' "corpus/$1.env.json" | grep -F "$1.env:$2: " | grep -F "$3")"
}
c10 repro-bare-cr 1 "ALIAS: a CR not followed by LF"
c10 repro-user-newline 1 "USER: the value holds control byte 0x0a"
c10 repro-gpu-newline 1 "GPU: the value holds control byte 0x0a"
c10 nul 1 "a NUL byte"
c10 comment-backslash 1 "systemd 252 reads the next line as comment too"
c10 unquoted-backslash 1 "OVERRIDE_TENSOR: a backslash outside quotes"
c10 export 1 "'export ALIAS' is not a variable name"
c10 bad-utf8-value 1 "not valid UTF-8"
c10 no-equals 1 "a line without '='"
c10 long-past-limit 2 "ALIAS: KEY=VALUE is over 128 KiB"
for n in fffe ffff fdd0 fdef 1fffe 10ffff; do c10 "nonchar-$n" 1 "not valid UTF-8"; done
check "a value at the limit (KEY=VALUE and its NUL: 131072 bytes) is read" jq -e 'has("keys")' corpus/long-at-limit.env.json
for n in fdcf fdf0 fffd 1fffd; do
	check "U+${n^^}, next to the noncharacters, is read" jq -e 'has("keys")' "corpus/char-$n.env.json"
done
# and what systemd really does with them, so the refusals are not guesses
sd_env "$TMP/corpus/repro-bare-cr.env" cr.env0
check "control: systemd sets LD_PRELOAD from repro-bare-cr (a bare CR is a line break)" \
	grep -qz '^LD_PRELOAD=/tmp/evil.so$' cr.env0
sd_env "$TMP/corpus/comment-backslash.env" cb.env0
check "control: systemd 252 sets no ALIAS after a comment ending in a backslash" test -z "$(grep -z '^ALIAS=' cb.env0 | tr -d '\0')"
sd_env "$TMP/corpus/nul.env" nul.env0
check "control: systemd reads nothing after a NUL (no USER)" test -z "$(grep -z '^USER=' nul.env0 | tr -d '\0')"
sd_env "$TMP/corpus/export.env" export.env0
check "control: systemd drops 'export ALIAS'" test -z "$(grep -z 'ALIAS' export.env0 | tr -d '\0')"
run sd_env "$TMP/corpus/bad-utf8-value.env" utf.env0
check "control: systemd does not start a unit whose EnvironmentFile= holds bad UTF-8" test "$rc" -ne 0
run sd_env "$TMP/corpus/long-past-limit.env" long.env0
check "control: systemd cannot exec a unit whose KEY=VALUE is one byte past 128 KiB" test "$rc" -ne 0
for n in fffe fdd0 1fffe; do
	run sd_env "$TMP/corpus/nonchar-$n.env" nc.env0
	check "control: systemd does not start a unit whose EnvironmentFile= holds U+${n^^}" test "$rc" -ne 0
done
sd_env "$TMP/corpus/unquoted-backslash.env" bs.env0
check "control: systemd drops the unquoted backslashes (blk.0.ffn=CPU)" grep -qz '^OVERRIDE_TENSOR=blk.0.ffn=CPU$' bs.env0

# Unit lines that cannot grow: every corpus file zealot reads, emitted as a
# unit, passes systemd-analyze verify, and the real systemd loads from it
# exactly what zealot means: the user, one ExecStart (zealot serve FILE),
# no other Exec*, the endpoint file as the one EnvironmentFile=, and in
# Environment= only CUDA_VISIBLE_DEVICES=GPU (when set) and the state dir.
mkdir units
# a file name with a specifier, a blank and glob bytes (EnvironmentFile= globs its path)
odd="corpus/odd%n name[1]*.env"
cp corpus/alias-percent.env "$odd"
"$ZEALOT" check --json "$odd" >"$odd.json" 2>/dev/null
i=0 emitted=0 verified=0 loaded=0 refused_emit=0 vbad=""
for f in corpus/*.env; do
	jq -e 'has("keys")' "$f.json" >/dev/null 2>&1 || continue
	name=$(basename "$f" .env)
	if ! "$ZEALOT" emit unit "$f" >"units/$name.service" 2>"units/$name.err"; then
		refused_emit=$((refused_emit + 1))
		# only a USER that cannot be a User= line is refused, and check refuses it too
		grep -q "USER is not a user name" "units/$name.err" ||
			echo "not ok - $name: emit unit refused: $(cat "units/$name.err")"
		jq -e '[.findings[] | select(.key == "USER" and .law == "C02")] | length > 0' "$f.json" >/dev/null ||
			echo "not ok - $name: emit unit refuses USER, check does not"
		continue
	fi
	emitted=$((emitted + 1))
	i=$((i + 1))
	cp "units/$name.service" "units/zlef$i.service"
	if systemd-analyze verify "units/zlef$i.service" >"units/$name.verify" 2>&1 &&
		! grep -v -e 'Special user nobody configured' "units/$name.verify" | grep -q .; then
		verified=$((verified + 1))
	else
		vbad="$vbad $name"
		sed "s/^/#   $name: /" "units/$name.verify"
	fi
	echo "$name" >"units/zlef$i.name"
	rs_exec cp "$TMP/units/zlef$i.service" "/run/systemd/system/zlef$i.service"
done
check "emit unit: systemd-analyze verify passes every unit ($verified of $emitted)" test "$emitted" -gt 20 -a "$verified" -eq "$emitted"
rs_exec systemctl daemon-reload
props() { # UNIT: User, Environment, EnvironmentFiles, ExecStart and the other Exec* as JSON data, one a line
	rs_exec busctl --json=short get-property org.freedesktop.systemd1 \
		"/org/freedesktop/systemd1/unit/${1}_2eservice" org.freedesktop.systemd1.Service \
		User Environment EnvironmentFiles ExecStart ExecCondition ExecStartPre ExecStartPost ExecReload \
		ExecStop ExecStopPost | jq -c .data
}
bad=""
for n in $(seq 1 "$i"); do
	name=$(cat "units/zlef$n.name")
	props "zlef$n" >"units/zlef$n.props"
	p() { sed -n "${1}p" "units/zlef$n.props"; }
	want_user=$(jq -r '.keys.USER // ""' "corpus/$name.env.json")
	got_user=$(p 1 | jq -r .)
	want_env=$(jq -c '[(.keys.GPU // "" | select(. != "") | "CUDA_VISIBLE_DEVICES=" + .), "ZEALOT_STATE_DIR=/var/lib/zealot"]' "corpus/$name.env.json")
	got_env=$(p 2)
	got_files=$(p 3)
	# (a glob pattern: * ? [ and \ escaped, so it matches the one file)
	want_files=$(jq -nc --arg f "$(printf '%s' "$TMP/corpus/$name.env" | sed 's/[*?[\\]/\\&/g')" '[[$f, true]]')
	got_start=$(p 4 | jq -c '[.[] | .[1]]')
	want_start=$(jq -nc --arg z "$ZEALOT" --arg f "$TMP/corpus/$name.env" '[[$z, "serve", $f]]')
	others=$(sed -n '5,$p' "units/zlef$n.props" | grep -vFx '[]')
	if [ "$got_user" = "$want_user" ] && [ "$got_env" = "$want_env" ] && [ "$got_files" = "$want_files" ] &&
		[ "$got_start" = "$want_start" ] && [ -z "$others" ] && [ "$(wc -l <"units/zlef$n.props")" -eq 10 ]; then
		loaded=$((loaded + 1))
	else
		bad="$bad $name"
		echo "#   $name: User $got_user (want $want_user); Environment $got_env (want $want_env)"
		echo "#   $name: EnvironmentFiles $got_files; ExecStart $got_start (want $want_start); other Exec* $others"
	fi
done
check "emit unit: systemd loads exactly what zealot means from every unit ($loaded of $i)" test "$i" -gt 20 -a "$loaded" -eq "$i"
check "emit unit: a USER that is no user name is refused by emit and by check ($refused_emit)" test "$refused_emit" -ge 1
run "$ZEALOT" emit unit corpus/gpu-words.env
check "emit unit: GPU='0 LD_PRELOAD=...' stays one quoted word of Environment=" \
	grep -qFx 'Environment="CUDA_VISIBLE_DEVICES=0 LD_PRELOAD=/tmp/evil.so"' "$TMP/out"
run "$ZEALOT" emit unit "$odd"
check "emit unit: a % in the name is doubled in Description=" out_has "Description=llama-server endpoint odd%%n name[1]* (zealot)"
check "emit unit: EnvironmentFile= takes the path raw, % doubled, glob bytes escaped" \
	out_has "EnvironmentFile=-$TMP/corpus/odd%%n name\\[1]\\*.env"
run "$ZEALOT" emit unit corpus/repro-percent.env
check "emit unit: USER=nobody%n is refused (exit 2, names USER)" test "$rc" -eq 2 -a -n "$(grep -F USER "$TMP/err")"
run "$ZEALOT" emit unit corpus/alias-percent.env --user 'root
ExecStartPre=/bin/true'
check "emit unit: --user with a line break is refused (exit 2)" rc_is 2
pattern=$(printf '%s' "$TMP/$odd" | sed 's/[*?[\\]/\\&/g')
sd_env "$pattern" odd.env0
check "emit unit: systemd loads the file through the escaped EnvironmentFile= pattern" grep -qz '^USER=daemon$' odd.env0
run sd_env "$TMP/$odd" odd-raw.env0
check "control: the same path unescaped is a glob that misses the file" test "$rc" -ne 0

# serve under the emitted unit: an endpoint file that is gone, or one the
# gates refuse, ends the unit with 78 and no restart (C03), never a loop
# (the plain build runs there: a sanitizer's leak check would need ptrace,
# which the unit's system call filter denies)
UNIT_ZEALOT=$ROOT/zealot
mkdir serve
printf 'RUNTIME=/bin/true\nMODEL_FILE=%s/serve/m.gguf\nCTX_SIZE=4096\n' "$TMP" >serve/gone.env
cp serve/gone.env serve/cr.env
idle() { # UNIT: neither starting nor running
	case "$(rs_exec systemctl show -P ActiveState "$1")" in activating | active | deactivating | reloading) return 1 ;; esac
}
settled() { wait_for 60 idle "$1"; } # UNIT: until it is idle (bounded)
for e in gone cr; do
	"$ZEALOT" emit unit "serve/$e.env" --zealot "$UNIT_ZEALOT" >"serve/zls$e.service"
	rs_exec cp "$TMP/serve/zls$e.service" /run/systemd/system/
done
rm serve/gone.env
# (emit refuses it, so it changes after the unit is written, as a hand edit would)
printf 'ALIAS=x\rLD_PRELOAD=/tmp/evil.so\n' >>serve/cr.env
rs_exec systemctl daemon-reload
for e in gone cr; do
	rs_exec systemctl start "zls$e.service" 2>/dev/null
	settled "zls$e.service"
	st=$(rs_exec systemctl show -p ExecMainStatus -p Result -p NRestarts -p ActiveState -p SubState "zls$e.service" | sort | tr '\n' ' ')
	check "serve under the unit, endpoint $e: exit 78, failed, no restart ($st)" \
		test "$st" = "ActiveState=failed ExecMainStatus=78 NRestarts=0 Result=exit-code SubState=failed "
done
# journald reads the unit's stderr apart from systemd's own messages: the
# refusal line may land after the unit is failed, so read until it does
cr_logged() {
	rs_exec journalctl -u zlscr.service --no-pager -o cat >serve/cr.journal 2>/dev/null
	grep -qF "cr.env:4: ALIAS: a CR not followed by LF" serve/cr.journal
}
wait_for 10 cr_logged
check "serve under the unit: the refusal names C10 and the line in the journal" grep -qF "cr.env:4: ALIAS: a CR not followed by LF" serve/cr.journal

# issue 28 item 13: systemd expands $NAME and ${NAME} in ExecStart= from
# the unit's environment, the endpoint file's included: a '$' in the
# endpoint's path (or zealot's) is written '$$'. The unit runs a stand-in
# zealot (in a directory named bin$HOME) that logs its argv; the real
# systemd must hand it the paths byte for byte
mkdir -p 'serve/bin$HOME'
printf '#!/bin/sh\necho "zlargv:$*"\n' >'serve/bin$HOME/rec'
chmod 755 serve 'serve/bin$HOME' 'serve/bin$HOME/rec'
printf 'RUNTIME=/bin/true\nMODEL_FILE=m.gguf\nCTX_SIZE=4096\nALIAS=evil\n' >'serve/prod-${ALIAS}.env'
cp 'serve/prod-${ALIAS}.env' serve/prod-evil.env
run "$ZEALOT" emit unit 'serve/prod-${ALIAS}.env' --zealot "$TMP/serve/bin\$HOME/rec"
cp "$TMP/out" serve/zldollar.service
check "emit unit: a \$ in the endpoint's path is written \$\$ in ExecStart= (the executable's path as it is)" \
	grep -qF 'ExecStart='"$TMP"'/serve/bin$HOME/rec serve '"$TMP"'/serve/prod-$${ALIAS}.env' serve/zldollar.service
run systemd-analyze verify serve/zldollar.service
check "emit unit: systemd-analyze verify passes it" test "$rc" -eq 0 -a -z "$(grep -v 'Special user nobody' "$TMP/err")"
rs_exec cp "$TMP/serve/zldollar.service" /run/systemd/system/
rs_exec systemctl daemon-reload
rs_exec systemctl start zldollar.service 2>/dev/null
settled zldollar.service
dollar_logged() {
	rs_exec journalctl -u zldollar.service --no-pager -o cat >serve/dollar.journal 2>/dev/null
	grep -q '^zlargv:' serve/dollar.journal
}
wait_for 10 dollar_logged
check "real systemd: ExecStart ran the stand-in at its path with bin\$HOME" grep -q '^zlargv:' serve/dollar.journal
check "real systemd: serve got the endpoint's path byte for byte (prod-\${ALIAS}.env, not prod-evil.env)" \
	grep -qFx 'zlargv:serve '"$TMP"'/serve/prod-${ALIAS}.env' serve/dollar.journal
