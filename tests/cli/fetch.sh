# zealot fetch and remote headers against a real nginx on loopback: pinned
# downloads that land atomically, --verify-only without the network, a
# corrupted upstream byte kept as FILE.rejected, --pin, tokens, remote
# inspect/plan of a 250k-vocabulary header, split payloads, kill -9 resume.
. "$(dirname "$0")/../lib.sh"
. "$ROOT/tests/nginx.sh"
export ZEALOT_STATE_DIR=$TMP/state
trap 'nginx_stop; rm -rf "$TMP"' EXIT
if ! command -v nginx >/dev/null; then
	echo "not ok - nginx is not installed (scripts/install-deps.sh)"
	exit 0
fi

www=$TMP/www
mkdir -p "$www" "$TMP/ep"
must "$ZEALOT" synth qwen35 -o "$www/small.gguf" || exit 1
must "$ZEALOT" synth qwen35 --set name=v2 -o "$www/v2.gguf" || exit 1
size=$(stat -c %s "$www/small.gguf")
sha=$(sha256sum "$www/small.gguf" | cut -d' ' -f1)
size2=$(stat -c %s "$www/v2.gguf")
sha2=$(sha256sum "$www/v2.gguf" | cut -d' ' -f1)
nginx_start "$www" || { echo "not ok - nginx starts"; cat "$TMP/nginx/logs/error.log"; exit 0; }
U=http://127.0.0.1:$NGINX_PORT
# got FILE WANT [FILE WANT...]: the last run exited 0 and each FILE is its
# WANT byte for byte (one command for check: a `check ... && cmp` ran cmp
# outside check, where it failed nothing)
got() {
	test "$rc" -eq 0 || return 1
	while [ $# -ge 2 ]; do
		cmp -s "$1" "$2" || return 1
		shift 2
	done
}
printf '#!/bin/sh\nexit 0\n' >"$TMP/stub.sh" # a stand-in runtime for serve --dry-run
chmod +x "$TMP/stub.sh"

# --- pinned: verifies and lands atomically
cat >"$TMP/ep/p.env" <<EOF
# the payload, pinned
MODEL_FILE=small.gguf
MODEL_URL=$U/small.gguf
MODEL_BYTES=$size
MODEL_SHA256=$sha
CTX_SIZE=4096
EOF
run "$ZEALOT" fetch --json "$TMP/ep/p.env"
check "pinned: exit 0" rc_is 0
check "pinned: a result event says downloaded" \
	test "$(jq -r 'select(.event=="result")|.status' "$TMP/out")" = downloaded
check "pinned: the file is the upstream bytes" cmp -s "$TMP/ep/small.gguf" "$www/small.gguf"
check "pinned: no .part or state left" test ! -e "$TMP/ep/small.gguf.part" -a ! -e "$TMP/ep/small.gguf.part.state"
check "pinned: events are one JSON object per line" jq -e . "$TMP/out" >/dev/null
check "pinned: a start and a done event" \
	test "$(jq -r '.event' "$TMP/out" | grep -cE '^(start|done)$')" -eq 2
check "pinned: one request, the file's bytes" test "$(nginx_requests /small.gguf)" -eq 1 -a "$(nginx_bytes /small.gguf)" -eq "$size"
check "pinned: no sanitizer report" no_sanitizer
ino=$(stat -c '%i %Y' "$TMP/ep/small.gguf")

# --- progress: quiet without a terminal, a line with bytes, rate and ETA on one
sed 's/^MODEL_FILE=.*/MODEL_FILE=quiet.gguf/' "$TMP/ep/p.env" >"$TMP/ep/quiet.env"
run "$ZEALOT" fetch "$TMP/ep/quiet.env"
check "no terminal: a download says nothing on stderr" test "$rc" -eq 0 -a ! -s "$TMP/err"
sed 's/^MODEL_FILE=.*/MODEL_FILE=tty.gguf/' "$TMP/ep/p.env" >"$TMP/ep/tty.env"
if command -v script >/dev/null; then
	script -qfec "$(printf "%q " "$ZEALOT" fetch "$TMP/ep/tty.env")" "$TMP/tty.log" >/dev/null 2>&1
	check "a terminal: a progress line with bytes, percent and rate" grep -qE 'MODEL +[0-9.]+ / [0-9.]+ GiB +100% +[0-9.]+ MiB/s' "$TMP/tty.log"
fi

# --- a good file is never touched, and --verify-only reads no network
n0=$(wc -l <"$NGINX_LOG")
run "$ZEALOT" fetch "$TMP/ep/p.env"
check "rerun: exit 0, verified" test "$rc" -eq 0 -a -n "$(grep -F 'verified' "$TMP/out")"
check "rerun: the file is untouched (inode, mtime)" test "$(stat -c '%i %Y' "$TMP/ep/small.gguf")" = "$ino"
run "$ZEALOT" fetch -f "$TMP/ep/p.env"
check "-f on a file that verifies: untouched" test "$rc" -eq 0 -a "$(stat -c '%i %Y' "$TMP/ep/small.gguf")" = "$ino"
run "$ZEALOT" fetch --verify-only --json "$TMP/ep/p.env"
check "--verify-only on a good file: exit 0" rc_is 0
check "--verify-only: the hash comes from serve's stamp" json_is 'select(.event=="result")|.stamp' true
_nginx_settle
check "rerun, -f and --verify-only read no network" test "$(wc -l <"$NGINX_LOG")" -eq "$n0"
echo "RUNTIME=$TMP/stub.sh" >>"$TMP/ep/p.env"
run "$ZEALOT" serve --dry-run "$TMP/ep/p.env"
check "serve's pins gate reuses the stamp fetch wrote" err_has "(stamp: file unchanged since it was hashed)"

sed 's/^MODEL_FILE=.*/MODEL_FILE=absent.gguf/' "$TMP/ep/p.env" >"$TMP/ep/absent.env"
run "$ZEALOT" fetch --verify-only "$TMP/ep/absent.env"
check "--verify-only on a missing file: exit 1, says missing" test "$rc" -eq 1 -a -n "$(grep -F 'is missing' "$TMP/err")"
check "--verify-only on a missing file: nothing downloaded" test ! -e "$TMP/ep/absent.gguf"

# --- a corrupted byte upstream: exit 1, the earlier good file intact, FILE.rejected
cp "$www/v2.gguf" "$www/v2-bad.gguf"
printf '\x01' | dd of="$www/v2-bad.gguf" bs=1 seek=$((size2 / 2)) conv=notrunc 2>/dev/null
bad=$(sha256sum "$www/v2-bad.gguf" | cut -d' ' -f1)
mkdir -p "$TMP/c"
cp "$www/small.gguf" "$TMP/c/m.gguf"
cat >"$TMP/c/c.env" <<EOF
MODEL_FILE=m.gguf
MODEL_URL=$U/v2-bad.gguf
MODEL_BYTES=$size2
MODEL_SHA256=$sha2
CTX_SIZE=4096
EOF
run "$ZEALOT" fetch "$TMP/c/c.env"
check "new pins, old file, no -f: exit 1 and -f suggested" test "$rc" -eq 1 -a -n "$(grep -F -- '-f fetches a replacement' "$TMP/err")"
run "$ZEALOT" fetch -f "$TMP/c/c.env"
check "corrupted upstream: exit 1" rc_is 1
check "corrupted upstream: the earlier file is intact" cmp -s "$TMP/c/m.gguf" "$www/small.gguf"
check "corrupted upstream: FILE.rejected holds the bytes" cmp -s "$TMP/c/m.gguf.rejected" "$www/v2-bad.gguf"
check "corrupted upstream: both hashes named" test -n "$(grep -F "$bad" "$TMP/err")" -a -n "$(grep -F "$sha2" "$TMP/err")"
check "corrupted upstream: no .part left" test ! -e "$TMP/c/m.gguf.part"
sed -i "s#v2-bad.gguf#v2.gguf#" "$TMP/c/c.env"
run "$ZEALOT" fetch -f "$TMP/c/c.env"
check "-f with a good upstream: replaced once verified" got "$TMP/c/m.gguf" "$www/v2.gguf"

# --- a server offering another size stops before downloading
sed "s/^MODEL_BYTES=.*/MODEL_BYTES=$((size - 1))/" "$TMP/ep/p.env" | sed 's/^MODEL_FILE=.*/MODEL_FILE=sz.gguf/' >"$TMP/ep/sz.env"
run "$ZEALOT" fetch "$TMP/ep/sz.env"
check "size pin differs from the server's: exit 1, says so" test "$rc" -eq 1 -a -n "$(grep -F 'the server offers' "$TMP/err")"

# --- unpinned: downloads, prints the pins; --pin writes them in place
cat >"$TMP/ep/u.env" <<EOF
# keep this comment
MODEL_FILE=u.gguf
; and this one
MODEL_URL=$U/small.gguf
CTX_SIZE=4096
EOF
cp "$TMP/ep/u.env" "$TMP/ep/u.orig"
run "$ZEALOT" fetch "$TMP/ep/u.env"
check "unpinned: exit 0 and the pin lines printed" test "$rc" -eq 0 -a -n "$(grep -Fx "MODEL_SHA256=$sha" "$TMP/out")"
check "unpinned: the endpoint file is unchanged without --pin" cmp -s "$TMP/ep/u.env" "$TMP/ep/u.orig"
run "$ZEALOT" fetch --pin "$TMP/ep/u.env"
check "--pin: exit 0" rc_is 0
check "--pin: pins written after MODEL_URL, everything else kept in order" \
	diff <(grep -v -e '^MODEL_BYTES=' -e '^MODEL_SHA256=' "$TMP/ep/u.env") "$TMP/ep/u.orig"
check "--pin: the lines follow MODEL_URL" \
	test "$(grep -n -e '^MODEL_URL' -e '^MODEL_BYTES' -e '^MODEL_SHA256' "$TMP/ep/u.env" | cut -d: -f1 | tr '\n' ' ')" = "4 5 6 "
run "$ZEALOT" check --json "$TMP/ep/u.env"
check "--pin: the endpoint still parses, pins valid" test -z "$(jq -r '.findings[]|select(.law=="C02")|.key' "$TMP/out")"
run "$ZEALOT" fetch --verify-only "$TMP/ep/u.env"
check "--pin then --verify-only: exit 0" rc_is 0

# --- every kind: MODEL, MMPROJ and LORA, each after its own URL line
must "$ZEALOT" synth clip -o "$www/proj.gguf" || exit 1
must "$ZEALOT" synth lora --base "$www/small.gguf" -o "$www/lora.gguf" || exit 1
mkdir -p "$TMP/all"
cat >"$TMP/all/a.env" <<EOF
MODEL_FILE=m.gguf
MODEL_URL=$U/small.gguf
MMPROJ_FILE=p.gguf
MMPROJ_URL=$U/proj.gguf
LORA_FILE=l.gguf
LORA_URL=$U/lora.gguf
CTX_SIZE=4096
EOF
run "$ZEALOT" fetch --pin --json "$TMP/all/a.env"
check "three kinds: exit 0, three results downloaded" \
	test "$rc" -eq 0 -a "$(jq -r 'select(.event=="result")|.status' "$TMP/out" | grep -c downloaded)" = 3
check "three kinds: the projector and the adapter landed" got "$TMP/all/p.gguf" "$www/proj.gguf" "$TMP/all/l.gguf" "$www/lora.gguf"
check "three kinds: each kind's pins follow its URL line" \
	test "$(grep -oE '^[A-Z]+_(URL|BYTES|SHA256)' "$TMP/all/a.env" | tr '\n' ' ')" = \
	"MODEL_URL MODEL_BYTES MODEL_SHA256 MMPROJ_URL MMPROJ_BYTES MMPROJ_SHA256 LORA_URL LORA_BYTES LORA_SHA256 "
check "three kinds: six pin events" test "$(jq -r 'select(.event=="pin")|.key' "$TMP/out" | wc -l)" = 6

# --- secrets: a gated URL, the token from TOKEN_FILE or the environment
echo "zealot-test-token" >"$TMP/token"
chmod 600 "$TMP/token"
cat >"$TMP/ep/g.env" <<EOF
MODEL_FILE=g.gguf
MODEL_URL=$U/gated/small.gguf
MODEL_SHA256=$sha
CTX_SIZE=4096
EOF
run env -u HF_TOKEN -u HF_TOKEN_FILE "$ZEALOT" fetch "$TMP/ep/g.env"
check "gated without a token: exit 3, 'gated or needs a token'" test "$rc" -eq 3 -a -n "$(grep -F 'gated or needs a token' "$TMP/err")"
check "gated without a token: no .part left behind" test ! -e "$TMP/ep/g.gguf.part"
echo "TOKEN_FILE=$TMP/token" >>"$TMP/ep/g.env"
run "$ZEALOT" fetch "$TMP/ep/g.env"
check "gated with TOKEN_FILE: exit 0" rc_is 0
check "the token appears in no output" test -z "$(cat "$TMP/out" "$TMP/err" | grep -F zealot-test-token)"
rm -f "$TMP/ep/g.gguf"
sed -i '/^TOKEN_FILE=/d' "$TMP/ep/g.env"
run env HF_TOKEN_FILE="$TMP/token" "$ZEALOT" fetch "$TMP/ep/g.env"
check "gated with HF_TOKEN_FILE: exit 0" rc_is 0
rm -f "$TMP/ep/g.gguf"
run env -u HF_TOKEN_FILE HF_TOKEN=zealot-test-token "$ZEALOT" fetch --json "$TMP/ep/g.env"
check "gated with HF_TOKEN: exit 0, token in no output" test "$rc" -eq 0 -a -z "$(grep -F zealot-test-token "$TMP/out" "$TMP/err")"
run "$ZEALOT" fetch --help
check "fetch --help: names the token sources" out_has "HF_TOKEN_FILE"

# --- 404 names the URL
sed 's#small.gguf$#nothere.gguf#; s/^MODEL_FILE=.*/MODEL_FILE=n.gguf/' "$TMP/ep/p.env" >"$TMP/ep/404.env"
run "$ZEALOT" fetch "$TMP/ep/404.env"
check "404: exit 3 naming the URL" test "$rc" -eq 3 -a -n "$(grep -F "$U/nothere.gguf" "$TMP/err")" -a -n "$(grep -F 'HTTP 404' "$TMP/err")"

# --- remote headers: the seeds' 9B geometry with a 250,000-token vocabulary
must "$ZEALOT" synth --preset bonsai-9b --set vocab=250000 -o "$www/big.gguf" || exit 1
run "$ZEALOT" inspect --json "$U/big.gguf"
check "inspect URL: exit 0" rc_is 0
cp "$TMP/out" "$TMP/remote.json"
"$ZEALOT" inspect --json "$www/big.gguf" >"$TMP/local.json"
check "inspect URL equals inspect of the local file" \
	test "$(jq -S 'del(.file,.remote)' "$TMP/remote.json")" = "$(jq -S 'del(.file,.remote)' "$TMP/local.json")"
hb=$(jq .header_bytes "$TMP/local.json")
req=$(nginx_requests /big.gguf)
got=$(nginx_bytes /big.gguf)
echo "# remote header: $req requests, $got bytes for a $hb-byte header (file $(jq .file_bytes "$TMP/local.json"))"
check "inspect URL: at most 4 requests (server's log)" test "$req" -le 4
check "inspect URL: at most header + 1 MiB sent (server's log)" test "$got" -le $((hb + 1048576))
check "inspect URL: --json remote matches the server's log" json_is '.remote' "{\"requests\":$req,\"bytes\":$got}"
run "$ZEALOT" inspect "$U/big.gguf"
check "inspect URL human: a remote line" out_has "requests,"

mkdir -p "$TMP/r"
cat >"$TMP/r/r.env" <<EOF
MODEL_FILE=big.gguf
MODEL_URL=$U/big.gguf
CTX_SIZE=602112
PARALLEL=3
CACHE_TYPE_V=q8_0
SPEC_TYPE=draft-mtp
SPEC_DRAFT_N_MAX=2
ADDRESSABLE_MIB=65536
EOF
sed "s#^MODEL_FILE=.*#MODEL_FILE=$www/big.gguf#" "$TMP/r/r.env" >"$TMP/r/l.env"
run "$ZEALOT" plan --json "$TMP/r/r.env"
check "plan with MODEL_FILE absent and MODEL_URL set: priced from the remote header" test "$rc" -le 1 -a -n "$(jq -r .verdict "$TMP/out")"
check "plan: remote requests and bytes in --json" test "$(jq '.remote.requests >= 1 and .remote.bytes <= '$((hb + 1048576)) "$TMP/out")" = true
cp "$TMP/out" "$TMP/rplan.json"
"$ZEALOT" plan --json "$TMP/r/l.env" >"$TMP/lplan.json"
check "plan from the URL = plan from the local file (every term)" \
	test "$(jq -S 'del(.endpoint,.model_file,.remote,.addressable_mib,.free_mib)' "$TMP/rplan.json")" = \
	"$(jq -S 'del(.endpoint,.model_file,.remote,.addressable_mib,.free_mib)' "$TMP/lplan.json")"
run "$ZEALOT" check --json --set RUNTIME=/bin/true "$TMP/r/r.env"
check "check from the URL: C03 says fetch, the payload laws still run" \
	test -n "$(jq -r '.findings[]|select(.law=="C03")|.fix' "$TMP/out" | grep -F 'zealot fetch')" -a -n "$(jq -r '.remote.requests' "$TMP/out")"
check "check from the URL: the payload was read (A08 from the template)" \
	test -n "$(jq -r '.findings[]|select(.law=="A08")|.law' "$TMP/out")"
check "plan/check from a URL: no sanitizer report" no_sanitizer

# --- *_URL_FILE: every reader of *_URL reads it the same way (plan, check, fetch)
echo "$U/big.gguf" >"$TMP/r/url.txt"
sed "s#^MODEL_URL=.*#MODEL_URL_FILE=url.txt#" "$TMP/r/r.env" >"$TMP/r/uf.env"
run "$ZEALOT" plan --json "$TMP/r/uf.env"
check "plan with MODEL_URL_FILE: priced from the remote header it names, as from MODEL_URL" \
	test "$rc" -le 1 -a "$(jq -S 'del(.endpoint,.remote)' "$TMP/out")" = "$(jq -S 'del(.endpoint,.remote)' "$TMP/rplan.json")"
check "plan with MODEL_URL_FILE: the URL is in no output" test -z "$(grep -F "$U/big.gguf" "$TMP/out" "$TMP/err")"
run "$ZEALOT" check --json --set RUNTIME=/bin/true "$TMP/r/uf.env"
check "check with MODEL_URL_FILE: C03 says fetch, and the payload was read" \
	test -n "$(jq -r '.findings[]|select(.law=="C03")|.fix' "$TMP/out" | grep -F 'zealot fetch')" -a \
	-n "$(jq -r '.findings[]|select(.law=="A08")|.law' "$TMP/out")"
printf 'MODEL_URL=%s\n' "$U/big.gguf" >>"$TMP/r/uf.env"
run "$ZEALOT" plan "$TMP/r/uf.env"
check "plan with MODEL_URL and MODEL_URL_FILE both: refused, names both" \
	test "$rc" -ne 0 -a -n "$(grep -F 'MODEL_URL and MODEL_URL_FILE are both set' "$TMP/err")"
# MMPROJ_URL_FILE and LORA_URL_FILE: fetched like MODEL_URL_FILE
mkdir -p "$TMP/xf"
cp "$www/small.gguf" "$TMP/xf/m.gguf"
echo "$U/v2.gguf" >"$TMP/xf/mm.url"
echo "$U/small.gguf" >"$TMP/xf/lora.url"
printf 'MODEL_FILE=m.gguf\nMMPROJ_FILE=mm.gguf\nMMPROJ_URL_FILE=mm.url\nLORA_FILE=lora.gguf\nLORA_URL_FILE=lora.url\nCTX_SIZE=4096\n' >"$TMP/xf/e.env"
run "$ZEALOT" fetch --pin "$TMP/xf/e.env"
check "MMPROJ_URL_FILE and LORA_URL_FILE: both fetched from the URL each file names" \
	got "$TMP/xf/mm.gguf" "$www/v2.gguf" "$TMP/xf/lora.gguf" "$www/small.gguf"
check "--pin puts MMPROJ's pins after its MMPROJ_URL_FILE line" \
	test "$(grep -A1 '^MMPROJ_URL_FILE=' "$TMP/xf/e.env" | tail -1)" = "MMPROJ_BYTES=$size2"
check "*_URL_FILE: no sanitizer report" no_sanitizer

# --- split payloads: 3 shards inspect, plan and fetch (pins comma-separated)
must "$ZEALOT" synth qwen35 --set split=3 -o "$www/sp.gguf" || exit 1
for k in 1 2 3; do s=$www/sp-0000$k-of-00003.gguf; sb[k]=$(stat -c %s "$s"); ss[k]=$(sha256sum "$s" | cut -d' ' -f1); done
run "$ZEALOT" inspect --json "$www/sp-00001-of-00003.gguf"
check "split: inspect sees 3 shards" json_is '[(.shards|length), ((.shards|map(.tensors)|add) == .tensor_count)]' '[3,true]'
run "$ZEALOT" inspect --json "$U/sp-00001-of-00003.gguf"
check "split: inspect URL sees 3 shards" json_is '.shards|length' 3
check "split: inspect URL = local" test "$(jq -S 'del(.file,.remote,.shards)' "$TMP/out")" = \
	"$("$ZEALOT" inspect --json "$www/sp-00001-of-00003.gguf" | jq -S 'del(.file,.remote,.shards)')"
mkdir -p "$TMP/s"
cat >"$TMP/s/s.env" <<EOF
MODEL_FILE=sp-00001-of-00003.gguf
MODEL_URL=$U/sp-00001-of-00003.gguf
CTX_SIZE=4096
EOF
run "$ZEALOT" plan --json "$TMP/s/s.env"
check "split: plan from the URL before the fetch" test "$rc" -eq 0 -a "$(jq .remote.requests "$TMP/out")" -ge 3
run "$ZEALOT" fetch --pin "$TMP/s/s.env"
check "split: fetch gets every shard" got "$TMP/s/sp-00002-of-00003.gguf" "$www/sp-00002-of-00003.gguf" \
	"$TMP/s/sp-00003-of-00003.gguf" "$www/sp-00003-of-00003.gguf"
check "split: --pin writes comma-separated pins in shard order" \
	grep -qx "MODEL_SHA256=${ss[1]},${ss[2]},${ss[3]}" "$TMP/s/s.env"
check "split: byte pins too" grep -qx "MODEL_BYTES=${sb[1]},${sb[2]},${sb[3]}" "$TMP/s/s.env"
run "$ZEALOT" fetch --verify-only "$TMP/s/s.env"
check "split: --verify-only: exit 0" rc_is 0
run "$ZEALOT" plan --json "$TMP/s/s.env"
check "split: plan from the local shards, no remote read" test "$rc" -eq 0 -a "$(jq .remote "$TMP/out")" = null
run "$ZEALOT" argv "$TMP/s/s.env"
check "split: the engine is given the first shard" grep -qx -- "$TMP/s/sp-00001-of-00003.gguf" "$TMP/out"
cp "$www/small.gguf" "$TMP/s/sp-00002-of-00003.gguf"
run "$ZEALOT" inspect "$TMP/s/sp-00001-of-00003.gguf"
check "split: a foreign shard: inspect exit 3 naming it" test "$rc" -eq 3 -a -n "$(grep -F 'sp-00002-of-00003.gguf' "$TMP/err")"
run "$ZEALOT" fetch --verify-only "$TMP/s/s.env"
check "split: a foreign shard fails its pin" rc_is 1
grep -v -e '^MODEL_SHA256=' -e '^MODEL_BYTES=' "$TMP/s/s.env" >"$TMP/s/nopin.env"
echo "RUNTIME=$TMP/stub.sh" >>"$TMP/s/nopin.env"
echo "RUNTIME=$TMP/stub.sh" >>"$TMP/s/s.env"
run "$ZEALOT" serve --dry-run "$TMP/s/nopin.env"
check "split: a foreign shard: serve refuses with C03" test "$rc" -eq 78 -a -n "$(grep -F 'C03' "$TMP/err")"
rm "$TMP/s/sp-00002-of-00003.gguf"
run "$ZEALOT" serve --dry-run "$TMP/s/s.env"
check "split: a missing shard: serve refuses with C03 naming it" \
	test "$rc" -eq 78 -a -n "$(grep -F 'C03' "$TMP/err" | grep -F 'shard 2 of 3')"
run "$ZEALOT" inspect "$TMP/s/sp-00001-of-00003.gguf"
check "split: a missing shard: inspect exit 3" rc_is 3
run "$ZEALOT" fetch "$TMP/s/s.env"
check "split: fetch brings the missing shard back, pinned" got "$TMP/s/sp-00002-of-00003.gguf" "$www/sp-00002-of-00003.gguf"
check "fetch: no sanitizer report" no_sanitizer

# --- killed (SIGKILL) after its 20th chunk of 4 MiB is on disk and in the
# state (fault point fetch:chunk, so the cut lands at the same byte count
# every time), then a rerun transfers at most 55 % again
must "$ZEALOT" synth qwen35 --set vocab=60000 --set embd=512 -o "$www/kill.gguf" || exit 1
ks=$(stat -c %s "$www/kill.gguf")
ksha=$(sha256sum "$www/kill.gguf" | cut -d' ' -f1)
mkdir -p "$TMP/k"
cat >"$TMP/k/k.env" <<EOF
MODEL_FILE=kill.gguf
MODEL_URL=$U/kill.gguf
MODEL_BYTES=$ks
MODEL_SHA256=$ksha
CTX_SIZE=4096
EOF
ZEALOT_FAULT=fetch:chunk:kill@20 ZEALOT_FAULT_LOG=$TMP/k/fault.log "$ZEALOT" fetch --json "$TMP/k/k.env" >"$TMP/k/events" 2>"$TMP/k/err"
krc=$?
first=$(nginx_bytes /kill.gguf)
saved=$(awk '$1 == "seg" { s += $4 } END { print s + 0 }' "$TMP/k/kill.gguf.part.state")
echo "# killed at $(cat "$TMP/k/fault.log"): $saved of $ks bytes in the state, server sent $first"
check "kill -9: killed at fetch:chunk, pass 20 (status $krc)" \
	test "$krc" -eq 137 -a "$(cut -d' ' -f1-3 "$TMP/k/fault.log")" = "fetch:chunk kill 20"
check "kill -9: the .part and its state are there, at least 20 chunks of 4 MiB in it" \
	test -s "$TMP/k/kill.gguf.part" -a "$saved" -ge $((20 * 4 * 1048576))
check "kill -9: no file in place" test ! -e "$TMP/k/kill.gguf"
run "$ZEALOT" fetch --json "$TMP/k/k.env"
again=$(($(nginx_bytes /kill.gguf) - first))
echo "# rerun: the server sent $again bytes ($((again * 100 / ks)) % of the file)"
check "kill -9 rerun: exit 0, the file verifies" got "$TMP/k/kill.gguf" "$www/kill.gguf"
check "kill -9 rerun: resumed (start event says so)" test "$(jq -r 'select(.event=="start")|.why' "$TMP/out")" = resumed
check "kill -9 rerun: at most the bytes the state did not hold again (server's log)" test "$again" -le $((ks - saved))
check "kill -9 rerun: at most 55 % of the file again (server's log)" test $((again * 100)) -le $((ks * 55))
check "kill -9 rerun: no sanitizer report" no_sanitizer

# --- the bytes the hash takes as they come go to the disk with O_DIRECT:
# a download leaves (almost) none of them in the page cache, where a
# download through it left all (fincore counts the resident bytes)
# (where the file system takes O_DIRECT at all, and is not memory)
mkdir -p "$TMP/dio"
if command -v fincore >/dev/null && [ "$(stat -f -c %T "$TMP")" != tmpfs ] &&
	dd if=/dev/zero of="$TMP/dio/probe" bs=4096 count=1 oflag=direct 2>/dev/null; then
	sed 's/^MODEL_FILE=.*/MODEL_FILE=dio.gguf/' "$TMP/k/k.env" >"$TMP/dio/k.env"
	run "$ZEALOT" fetch --connections 1 "$TMP/dio/k.env"
	res=$(fincore --bytes --noheadings --output RES "$TMP/dio/dio.gguf")
	echo "# fetched with one connection: $res of $ks bytes in the page cache"
	check "O_DIRECT: exit 0, the file verifies" got "$TMP/dio/dio.gguf" "$www/kill.gguf"
	check "O_DIRECT: at most 10 % of the file left in the page cache" test -n "$res" -a $((res * 10)) -le "$ks"
	# four connections: the later ranges go to the disk with O_DIRECT too,
	# and the hash reads them back with O_DIRECT (they once went through
	# the page cache, three quarters of the file, to be read back from it)
	# (from nginx's rate-limited /slow/: at loopback speed the first
	# connection has the whole file before the others start)
	rm -f "$TMP/dio/dio.gguf"
	sed "s|^MODEL_URL=$U/|MODEL_URL=$U/slow/|" "$TMP/dio/k.env" >"$TMP/dio/k4.env"
	run "$ZEALOT" fetch --json --connections 4 "$TMP/dio/k4.env"
	res=$(fincore --bytes --noheadings --output RES "$TMP/dio/dio.gguf")
	echo "# fetched with four connections: $res of $ks bytes in the page cache"
	check "O_DIRECT, 4 connections: exit 0, the file verifies (pinned sha256)" got "$TMP/dio/dio.gguf" "$www/kill.gguf"
	check "O_DIRECT, 4 connections: split" test -n "$(jq -r 'select(.event=="connections")|.why' "$TMP/out")"
	check "O_DIRECT, 4 connections: at most 10 % of the file left in the page cache" test -n "$res" -a $((res * 10)) -le "$ks"
	# a resume at a byte off a 4 KiB boundary: the first slot ends at the
	# next boundary, so only the bytes up to it (and the file's last
	# partial block) go through the page cache; a first slot that ran to
	# the next 2 MiB left those 2 MiB there. Killed after its 5th chunk,
	# the state then claims 5,000 bytes less (what is on disk past a
	# claim is fetched again), so the rerun asks from such a byte.
	rm -f "$TMP/dio/dio.gguf"
	ZEALOT_FAULT=fetch:chunk:kill@5 "$ZEALOT" fetch --connections 1 "$TMP/dio/k.env" >/dev/null 2>&1
	dst=$TMP/dio/dio.gguf.part.state
	awk '$1 == "seg" { $4 -= 5000; if ($5 > $4) $5 = $4 } { print }' "$dst" >"$TMP/dio/state.new"
	cat "$TMP/dio/state.new" >"$dst"
	from=$(awk '$1 == "seg" { print $2 + $4 }' "$dst")
	run "$ZEALOT" fetch --json --connections 1 "$TMP/dio/k.env"
	res=$(fincore --bytes --noheadings --output RES "$TMP/dio/dio.gguf")
	echo "# resumed at byte $from: $res of $ks bytes in the page cache"
	check "O_DIRECT, resumed off a 4 KiB boundary: exit 0, the file verifies" got "$TMP/dio/dio.gguf" "$www/kill.gguf"
	check "O_DIRECT, resumed off a 4 KiB boundary (byte $from): resumed there" \
		test "$(jq -r 'select(.event=="start")|.why' "$TMP/out")" = resumed -a $((from % 4096)) -ne 0
	check "O_DIRECT, resumed off a 4 KiB boundary: under 64 KiB left in the page cache" \
		test -n "$res" -a "$res" -lt 65536
else
	echo "ok - O_DIRECT # SKIP no fincore, or $TMP is memory or takes no O_DIRECT"
fi

# --- a power cut, as the state sees it: killed after its 30th chunk, then
# the state's boot id is not this boot's. The page cache may have lost
# what no fdatasync made durable, so the rerun asks each segment's bytes
# from its durable count on (start + durable), not from what was written
# (start + done); each claim is within what was written
mkdir -p "$TMP/pc"
sed 's/^MODEL_FILE=.*/MODEL_FILE=pc.gguf/' "$TMP/k/k.env" >"$TMP/pc/k.env"
ZEALOT_FAULT=fetch:chunk:kill@30 "$ZEALOT" fetch "$TMP/pc/k.env" >/dev/null 2>&1
pst=$TMP/pc/pc.gguf.part.state
echo "# killed: $(awk '$1 == "seg" { printf "[%s +%s, %s durable] ", $2, $4, $5 }' "$pst")"
check "power cut: the state is version 3 and names this boot" \
	test "$(head -1 "$pst")" = "zealot-fetch 3" -a "$(sed -n 's/^boot //p' "$pst")" = "$(cat /proc/sys/kernel/random/boot_id)"
check "power cut: each segment claims as durable no more than it wrote" \
	test -n "$(awk '$1 == "seg" { n++; if ($5 > $4) bad = 1 } END { if (n && !bad) print "ok" }' "$pst")"
want=$(awk '$1 == "seg" && $2 + $5 < ($3 ? $3 : 1e18) { print $2 + $5 }' "$pst" | sort -n | tr '\n' ' ')
sed -i 's/^boot .*/boot 00000000-0000-0000-0000-000000000000/' "$pst"
_nginx_settle
lines=$(wc -l <"$NGINX_LOG")
run "$ZEALOT" fetch --json "$TMP/pc/k.env"
got=$(tail -n +"$((lines + 1))" "$NGINX_LOG" | awk '$1 == "/kill.gguf" { r = $4; gsub(/"/, "", r); if (r == "-") r = "bytes=0-"; sub(/^bytes=/, "", r); sub(/-.*/, "", r); print r }' | sort -n | tr '\n' ' ')
echo "# rerun after the cut asked from: $got (durable: $want)"
check "power cut rerun: exit 0, the file verifies" got "$TMP/pc/pc.gguf" "$www/kill.gguf"
check "power cut rerun: each segment asked from its durable bytes on" test -n "$want" -a "$got" = "$want"

# --- no secret at rest: a MODEL_URL with user:password@, killed after its
# 2nd chunk. The state keeps the URL redacted and the full URL's SHA-256,
# mode 0600; the rerun resumes from it. A version 1 state (the URL in full,
# as zealot wrote it before) is still resumed, and rewritten without it.
mkdir -p "$TMP/sec"
mark=zsecret$RANDOM$RANDOM
cat >"$TMP/sec/s.env" <<EOF
MODEL_FILE=kill.gguf
MODEL_URL=http://zuser:$mark@127.0.0.1:$NGINX_PORT/kill.gguf
MODEL_BYTES=$ks
MODEL_SHA256=$ksha
CTX_SIZE=4096
EOF
ZEALOT_FAULT=fetch:chunk:kill@2 "$ZEALOT" fetch "$TMP/sec/s.env" >/dev/null 2>&1
st=$TMP/sec/kill.gguf.part.state
usha=$(printf '%s' "http://zuser:$mark@127.0.0.1:$NGINX_PORT/kill.gguf" | sha256sum | cut -d' ' -f1)
check "secret URL, killed: a state is there, version 3, mode 0600" \
	test "$(head -1 "$st" 2>/dev/null)" = "zealot-fetch 3" -a "$(stat -c %a "$st" 2>/dev/null)" = 600
check "secret URL, killed: the password is in no file of the directory but the endpoint file" \
	test -z "$(grep -rlF "$mark" "$TMP/sec" | grep -v 's.env$')"
check "secret URL, killed: the state shows the URL redacted and the full URL's SHA-256" \
	test "$(grep '^url ' "$st")" = "url http://<redacted>@127.0.0.1:$NGINX_PORT/kill.gguf" \
	-a "$(grep '^url_sha256 ' "$st")" = "url_sha256 $usha"
run "$ZEALOT" fetch --json "$TMP/sec/s.env"
check "secret URL rerun: exit 0, the file verifies" got "$TMP/sec/kill.gguf" "$www/kill.gguf"
check "secret URL rerun: resumed from that state" test "$(jq -r 'select(.event=="start")|.why' "$TMP/out")" = resumed
# another URL (another password) does not resume that state
rm -f "$TMP/sec/kill.gguf"
ZEALOT_FAULT=fetch:chunk:kill@2 "$ZEALOT" fetch "$TMP/sec/s.env" >/dev/null 2>&1
sed "s/$mark/other$mark/" "$TMP/sec/s.env" >"$TMP/sec/o.env"
ZEALOT_FAULT=fetch:chunk:kill@1 "$ZEALOT" fetch --json "$TMP/sec/o.env" >"$TMP/sec/o.events" 2>/dev/null
check "another URL's password: the state is not resumed" \
	test -n "$(jq -r 'select(.event=="start")' "$TMP/sec/o.events")" \
	-a "$(jq -r 'select(.event=="start")|.why' "$TMP/sec/o.events")" != resumed
# a version 1 state: the URL in full
rm -f "$TMP/sec/kill.gguf.part" "$st"
ZEALOT_FAULT=fetch:chunk:kill@2 "$ZEALOT" fetch "$TMP/sec/s.env" >/dev/null 2>&1
sed -i -e '1s/.*/zealot-fetch 1/' -e "s|^url .*|url http://zuser:$mark@127.0.0.1:$NGINX_PORT/kill.gguf|" -e '/^url_sha256 /d' \
	-e '/^boot /d' -e 's/^\(seg [0-9]* [0-9]* [0-9]*\) [0-9]*$/\1/' "$st"
ZEALOT_FAULT=fetch:chunk:kill@1 "$ZEALOT" fetch --json "$TMP/sec/s.env" >"$TMP/sec/v1.events" 2>/dev/null
check "a version 1 state: resumed, and rewritten as version 3 without the password" \
	test "$(jq -r 'select(.event=="start")|.why' "$TMP/sec/v1.events")" = resumed \
	-a "$(head -1 "$st")" = "zealot-fetch 3" -a -z "$(grep -F "$mark" "$st")"

# --- killed between the last byte and the rename (fetch:before-rename): the
# whole .part is there, nothing in place; the rerun transfers nothing, only
# hashes it and puts it in place
rm -f "$TMP/k/kill.gguf" "$TMP/k/fault.log"
ZEALOT_FAULT=fetch:before-rename:kill ZEALOT_FAULT_LOG=$TMP/k/fault.log "$ZEALOT" fetch "$TMP/k/k.env" >/dev/null 2>&1
krc=$?
first=$(nginx_bytes /kill.gguf)
check "killed before the rename: status 137, the whole .part, no file in place" \
	test "$krc" -eq 137 -a "$(cut -d' ' -f1-2 "$TMP/k/fault.log")" = "fetch:before-rename kill" \
	-a "$(stat -c %s "$TMP/k/kill.gguf.part" 2>/dev/null)" = "$ks" -a ! -e "$TMP/k/kill.gguf"
run "$ZEALOT" fetch --json "$TMP/k/k.env"
check "killed before the rename: the rerun puts the verified file in place" got "$TMP/k/kill.gguf" "$www/kill.gguf"
check "killed before the rename: no byte fetched again, no .part left" \
	test "$(nginx_bytes /kill.gguf)" = "$first" -a ! -e "$TMP/k/kill.gguf.part"

# --- fetch --era N: a purged era's payloads, from the text the store
# recorded, held to the hashes its deploy recorded
store_fixture "$TMP/fixture"
mkdir -p "$TMP/era"
# era 1 served v2.gguf, unpinned in its text; its deploy recorded the hash
cat >"$TMP/era/e.env" <<EOF
MODEL_FILE=served.gguf
MODEL_URL=$U/v2.gguf
CTX_SIZE=4096
EOF
echo '{}' >"$TMP/era/plan.json"
pins() { printf '{"MODEL_FILE":{"path":"%s","bytes":%s,"sha256":"%s"}}' "$TMP/era/served.gguf" "$1" "$2"; }
e1=$(FIXTURE_PINS=$(pins "$size2" "$sha2") "$TMP/fixture" era "$ZEALOT_STATE_DIR" era-ep "$TMP/era/e.env" "$TMP/era/plan.json" 1792224000 first)
# era 2's text names the same file at another URL (small.gguf): its record says v2's hash
sed -i "s|^MODEL_URL=.*|MODEL_URL=$U/small.gguf|" "$TMP/era/e.env"
e2=$(FIXTURE_PINS=$(pins "$size2" "$sha2") "$TMP/fixture" era "$ZEALOT_STATE_DIR" era-ep "$TMP/era/e.env" "$TMP/era/plan.json" 1792300000 second)
rm "$TMP/era/e.env" # the endpoint file and the payload are gone: purged
run "$ZEALOT" fetch --era "$e1" --json era-ep
check "--era: the purged era's payload is fetched from its recorded text" \
	test "$(jq -r 'select(.event=="result")|.status' "$TMP/out")" = downloaded
check "--era: exit 0, the file verifies" got "$TMP/era/served.gguf" "$www/v2.gguf"
check "--era: held to the hash the era's deploy recorded" \
	test "$(jq -r 'select(.event=="result")|.pinned_sha256' "$TMP/out")" = "$sha2"
run "$ZEALOT" fetch --era "$e1" --verify-only era-ep
check "--era --verify-only: the file verifies against the record" test "$rc" -eq 0 -a -n "$(grep -F verified "$TMP/out")"
rm "$TMP/era/served.gguf"
run "$ZEALOT" fetch --era "$e2" era-ep
check "--era: a file that is not the recorded one is refused (its size), nothing lands" \
	test "$rc" -eq 1 -a ! -e "$TMP/era/served.gguf" -a -n "$(grep -F "MODEL_BYTES pins $size2" "$TMP/err")"
run "$ZEALOT" fetch --era 99 era-ep
check "--era of an era not recorded: exit 2, names it" test "$rc" -eq 2 -a -n "$(grep -F "no era 99 of 'era-ep'" "$TMP/err")"
run "$ZEALOT" fetch --era "$e1" --pin era-ep
check "--era with --pin: exit 2 (the era's text is no file to pin)" test "$rc" -eq 2 -a -n "$(grep -F -- '--pin' "$TMP/err")"
check "--era: no sanitizer report" no_sanitizer
