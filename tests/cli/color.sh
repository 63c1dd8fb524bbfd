# Colour: verdicts are painted on a terminal only (script(1) gives the
# command a pty), never into a pipe, never with NO_COLOR set or TERM=dumb;
# --color=always|never before or after the command overrides both. Painting moves
# no column: the tty's text less its escapes is the pipe's.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

must "$ZEALOT" synth llama -o l.gguf || exit 1
printf 'MODEL_FILE=l.gguf\nCTX_SIZE=4096\nDEVICE=cpu\nADDRESSABLE_MIB=16384\nCPU_FEATURES=avx2\n' >ok.env
printf 'MODEL_FILE=l.gguf\nCTX_SIZE=4096\nDEVICE=cpu\nADDRESSABLE_MIB=8\nCPU_FEATURES=avx2\n' >big.env
printf 'MODEL_FILE=l.gguf\nCTX_SIZE=4096\nDEVICE=cpu\nPARALLEL=4\nBATCH_SIZE=2\nCPU_FEATURES=avx2\n' >law.env
export ZEALOT_STATE_DIR=$TMP/state
esc=$(printf '\033[')

# tty CMD...: CMD's output through a pty, as a terminal shows it (the
# pty's \r\n back to \n); TERM as the caller set it
tty() {
	local q="" a
	for a in "$@"; do q="$q '${a//\'/\'\\\'\'}'"; done
	script -qec "$q" /dev/null </dev/null | tr -d '\r'
}
painted() { grep -qF "$esc" "$1"; }
plain() { ! grep -qF "$esc" "$1"; }
strip() { sed 's/\x1b\[[0-9;]*m//g' "$1"; }

export TERM=xterm
unset NO_COLOR
tty "$ZEALOT" plan ok.env --no-calibration >fits.tty
"$ZEALOT" plan ok.env --no-calibration >fits.pipe
check "plan on a tty: the verdict 'fits' painted green" grep -qF "verdict: ${esc}32mfits${esc}0m" fits.tty
check "plan into a pipe: no escape" plain fits.pipe
check "plan: the tty's text less its escapes is the pipe's" test "$(strip fits.tty)" = "$(cat fits.pipe)"

tty "$ZEALOT" plan big.env --no-calibration >big.tty
"$ZEALOT" plan big.env --no-calibration >big.pipe
check "a refused plan on a tty: 'refused' painted red" grep -qF "verdict: ${esc}1;31mrefused${esc}0m" big.tty
check "a refused plan: the tty's text less its escapes is the pipe's" test "$(strip big.tty)" = "$(cat big.pipe)"

NO_COLOR=1 tty "$ZEALOT" plan big.env --no-calibration >nocolor.tty
check "NO_COLOR=1 on a tty: no escape" plain nocolor.tty
check "NO_COLOR: the same report" test "$(cat nocolor.tty)" = "$(cat big.pipe)"
TERM=dumb tty "$ZEALOT" plan big.env --no-calibration >dumb.tty
check "TERM=dumb on a tty: no escape" plain dumb.tty
tty "$ZEALOT" --color=never plan big.env --no-calibration >never.tty
check "--color=never on a tty: no escape" plain never.tty
"$ZEALOT" --color=always plan big.env --no-calibration >always.pipe
check "--color=always into a pipe: painted" painted always.pipe
NO_COLOR=1 "$ZEALOT" --color=always plan big.env --no-calibration >always-nc.pipe
check "--color=always over NO_COLOR: painted" painted always-nc.pipe
"$ZEALOT" --color plan big.env --no-calibration >bare.pipe
check "--color alone is always" painted bare.pipe
tty "$ZEALOT" --color=auto plan big.env --no-calibration >auto.tty
check "--color=auto on a tty: painted" painted auto.tty
run "$ZEALOT" --color=sometimes plan ok.env
check "--color=sometimes: exit 2 naming the words" test "$rc" -eq 2 -a -n "$(grep -F 'auto, always or never' "$TMP/err")"
# after the command as before it (the command's parser takes zealot's own option)
"$ZEALOT" plan big.env --color=always --no-calibration >after.pipe
check "plan ... --color=always (after the command) into a pipe: painted" painted after.pipe
tty "$ZEALOT" plan big.env --no-calibration --color=never >after-never.tty
check "plan ... --color=never (after the command) on a tty: no escape" plain after-never.tty
run "$ZEALOT" plan ok.env --color=sometimes
check "plan ... --color=sometimes: exit 2 naming the command and the words" \
	test "$rc" -eq 2 -a -n "$(grep -F 'plan: --color=sometimes: auto, always or never' "$TMP/err")"
run "$ZEALOT" plan ok.env --device --color
check "--color as another option's value is that value, not zealot's" \
	test "$rc" -eq 2 -a -n "$(grep -F -- "--device: '--color' is not a known profile" "$TMP/err")"
tty "$ZEALOT" plan ok.env --json --no-calibration >json.tty
check "--json on a tty: no escape" plain json.tty

# check: errors red, warnings yellow, the columns kept
tty "$ZEALOT" check law.env >check.tty
"$ZEALOT" check law.env >check.pipe
check "check on a tty: 'error' painted" grep -qF "${esc}1;31merror  ${esc}0m" check.tty
check "check: the tty's text less its escapes is the pipe's" test "$(strip check.tty)" = "$(cat check.pipe)"
check "check into a pipe: no escape" plain check.pipe

# rungs: each rung's verdict in its column
tty "$ZEALOT" rungs big.env >rungs.tty
"$ZEALOT" rungs big.env >rungs.pipe
check "rungs on a tty: each rung's verdict painted in its column" grep -qF "${esc}1;31mrefused ${esc}0m prefill" rungs.tty
check "rungs: the tty's text less its escapes is the pipe's (but the search's ms)" \
	test "$(strip rungs.tty | grep -v 'candidate plans')" = "$(grep -v 'candidate plans' rungs.pipe)"

# between a command and its subcommand too (fleet --color=never plan DIR)
run "$ZEALOT" fleet --color=never plan --help
check "fleet --color=never plan --help: fleet plan's usage, exit 0" \
	test "$rc" -eq 0 -a -n "$(grep -F 'usage: zealot fleet plan DIR' "$TMP/out")"
run "$ZEALOT" fleet --color=sometimes plan x
check "fleet --color=sometimes plan: exit 2 naming the command and the words" \
	test "$rc" -eq 2 -a -n "$(grep -F 'fleet: --color=sometimes: auto, always or never' "$TMP/err")"
