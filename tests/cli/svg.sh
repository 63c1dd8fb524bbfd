# The budget picture: plan --svg and rungs --svg are standalone SVG that
# parse as XML and name every term with its MiB, and a real browser
# (headless Chromium from Debian) draws each term where it must be.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1

mkdir payloads
must "$ZEALOT" synth --preset bonsai-9b --set type=142 -o payloads/bonsai-9b-pq2.gguf || exit 1
must "$ZEALOT" synth clip --preset bonsai-9b-mmproj --set projection_dim=4096 -o payloads/bonsai-9b-mmproj-q8.gguf || exit 1
must "$ZEALOT" synth lora --base payloads/bonsai-9b-pq2.gguf -o payloads/bonsai-9b-lora.gguf || exit 1
sed "s|=\.\./payloads/|=payloads/|" "$ROOT/examples/history/frank-zealot.env" >fz.env
must "$ZEALOT" synth gemma3 --set swa=1024 --set layers=6 -o g3.gguf || exit 1
printf 'MODEL_FILE=g3.gguf\nCTX_SIZE=65536\nPARALLEL=2\nDEVICE=cpu\nADDRESSABLE_MIB=1200\n' >g3.env

svgcheck() { python3 "$ROOT/tests/svgcheck.py" "$@" >check.out 2>&1; }

run "$ZEALOT" plan fz.env --svg plan.svg
check "plan --svg: exit 0 (the verdict's status)" rc_is 0
check "plan --svg: the table still printed" out_has "verdict: fits"
"$ZEALOT" rungs --json fz.env | jq .base.plan >base.json
check "the picture's plan is plan's (total MiB)" \
	test "$(jq .total_mib base.json)" = "$("$ZEALOT" plan --json fz.env | jq .total_mib)"
check "plan.svg parses as XML (xml.etree) and names every term with its MiB" svgcheck xml plan.svg base.json
[ -s check.out ] && sed 's/^/#   /' check.out
if command -v xmllint >/dev/null; then
	check "plan.svg parses as XML (xmllint)" xmllint --noout plan.svg
fi
check "plan.svg: the kv label reads 'kv 14,406.00 MiB'" grep -q '>kv 14,406.00 MiB<' plan.svg

# a refused shape on cpu: the verdict in red, the picture still whole
run "$ZEALOT" plan g3.env --svg g3.svg --set CTX_SIZE=1048576
check "plan --svg of a refused shape: exit 1, the picture written" test "$rc" -eq 1 -a -s g3.svg
"$ZEALOT" rungs --json g3.env --set CTX_SIZE=1048576 | jq .base.plan >g3.json
check "refused picture: every term named, verdict refused" svgcheck xml g3.svg g3.json
[ -s check.out ] && sed 's/^/#   /' check.out

run "$ZEALOT" rungs fz.env --svg rungs.svg --json
check "rungs --svg: exit 0" rc_is 0
n=$(jq '.rungs | length' "$TMP/out")
check "rungs.svg: the base and $n rungs, each segment titled with its term and MiB" svgcheck bars rungs.svg $((n + 1))
[ -s check.out ] && sed 's/^/#   /' check.out

commas() { python3 -c 'import sys; print(f"{float(sys.argv[1]):,.2f}")' "$1"; }
# the footer names every term the plan bills off the card, the host's
# compute buffers among them, with the host's total as plan states it
"$ZEALOT" plan --json fz.env >fz.json
host_compute=$(jq -r '[.compute[]|select(.card|not)|.mib]|add' fz.json)
check "plan.svg's footer: host compute $host_compute MiB and the host total $(jq .host_mib fz.json) MiB" \
	test -n "$(grep '<text data-footer=' plan.svg | grep -F "compute $(commas "$host_compute") MiB")" \
	-a -n "$(grep '<text data-footer=' plan.svg | grep -F "host total $(commas "$(jq .host_mib fz.json)") MiB")"
check "plan.svg's footer: a term billed nothing is named (kv_swa)" \
	test -n "$(grep '<text data-footer=' plan.svg | grep -F 'billed nothing: kv_swa')"

# docs/'s pictures are what make pictures draws today (the SVG source:
# PNG pixels differ by machine)
[ -e "$ROOT/examples/payloads/bonsai-9b-pq2.gguf" ] || make -C "$ROOT" -s examples >/dev/null 2>&1
"$ROOT/scripts/pictures.sh" "$ZEALOT" "$TMP/pics" --svg 2>pics.err
for pic in budget-plan budget-rungs; do
	check "docs/$pic.svg is fresh (make pictures)" cmp -s "$TMP/pics/$pic.svg" "$ROOT/docs/$pic.svg"
	check "docs/$pic.png exists" test -s "$ROOT/docs/$pic.png"
done

run "$ZEALOT" plan fz.env --svg /nonexistent-dir/x.svg
check "plan --svg into a missing directory: exit 3, names the file" test "$rc" -eq 3 -a -n "$(grep nonexistent "$TMP/err")"

# In a real browser: Chromium renders each picture to PNG; the centre of
# every segment taller than 6 px has its term's colour, and the
# addressable line is drawn.
chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
	echo "not ok - chromium is not installed (scripts/install-deps.sh installs it)"
	exit 0
fi
render() { # SVG PNG: the picture at its own size, one pixel per unit
	local w h
	w=$(sed -n 's/.*<svg [^>]*width="\([0-9]*\)".*/\1/p' "$1" | head -1)
	h=$(sed -n 's/.*<svg [^>]*height="\([0-9]*\)".*/\1/p' "$1" | head -1)
	HOME=$TMP timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--force-device-scale-factor=1 --user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")" --window-size="$w,$h" \
		--screenshot="$2" "file://$TMP/$1" >/dev/null 2>&1
}
# In the browser's layout (getBBox through each transform, DejaVu Sans as
# the machine's sans-serif): no two labels overlap and none leaves the
# picture, on the card, on a refused cpu shape, and on rungs charts whose
# neighbouring bars are refused
"$ZEALOT" rungs g3.env --set CTX_SIZE=1048576 --svg g3-rungs.svg >/dev/null
"$ZEALOT" rungs fz.env --set CTX_SIZE=786432 --svg fz-rungs-refused.svg >/dev/null
labels() { # SVG: tests/svglabels.js's findings, in Chromium
	{
		echo '<!DOCTYPE html><html><body style="margin:0">'
		sed 1d "$1"
		echo '<script>'
		cat "$ROOT/tests/svglabels.js"
		echo '</script></body></html>'
	} >"$1.html"
	HOME=$TMP timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --user-data-dir="$(mktemp -d "$TMP/chrome.XXXXXX")" \
		--virtual-time-budget=2000 --dump-dom "file://$TMP/$1.html" 2>/dev/null |
		sed -n '/^<\/script><pre id="result">texts /,/^end$/p' | sed 's/^<\/script><pre id="result">//' >"$1.labels"
}
for pic in plan g3 rungs g3-rungs fz-rungs-refused; do
	labels $pic.svg
	n=$(sed -n 's/^texts \([0-9]*\)$/\1/p' $pic.svg.labels)
	check "$pic.svg: Chromium laid out its ${n:-no} labels, none overlapping another or outside the picture" \
		test "${n:-0}" -gt 5 -a -z "$(grep -E '^(overlap|outside):' $pic.svg.labels)"
	grep -E '^(overlap|outside):' $pic.svg.labels | sed 's/^/#   /'
done
grep -c 'data-verdict="refused"' fz-rungs-refused.svg >refused.n
check "the refused rungs chart has neighbouring refused bars ($(cat refused.n))" test "$(cat refused.n)" -gt 2

for pic in plan g3 rungs; do
	render $pic.svg $pic.png
	check "$pic.svg renders in Chromium" test -s $pic.png
	check "$pic.png: every segment's pixels have its term's colour, the addressable line drawn" \
		svgcheck pixels $pic.svg $pic.png
	sed 's/^/#   /' check.out
done
