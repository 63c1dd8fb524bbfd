# Hostile GGUF headers (issue 28, item 1): whatever number a header holds,
# inspect, plan, check and serve --dry-run end with a status, never a
# signal or a sanitizer report; a value the engine cannot load is refused
# by name (KEY = VALUE, law C03: exit 3, check 1, serve 78), and inspect
# never passes a file that plan refuses.
#
# A property, not a list: every architecture synth writes, every numeric
# key of its header (tests/ggufmut.py: scalars, and a per-layer array's
# first and last entries), rewritten in place to hostile values (0, 1, 2,
# 2^31-1, 2^31, 2^32-1, 2^63-1, -1 ..., NaN and infinities for floats).
# One run takes a sample: each key name and each architecture at least
# once with a hot value (0, 1, 2^31-1, 2^32-1), then the pairs of the
# seed's slice (one in 32: 32 seeds in a row cover every pair) and
# random draws up to HOSTILE_BUDGET. The seed is printed; HOSTILE_SEED=N
# runs the same sample again, HOSTILE_ALL=1 every pair with every value
# (some 18,500 mutations: a campaign, not a test run). HOSTILE_ARCHS="a b"
# keeps the sample to those architectures (a campaign on new ones), and
# HOSTILE_CRASHES=FILE keeps the whole list of faults there.
. "$(dirname "$0")/../lib.sh"
cd "$TMP" || exit 1
MUT=$ROOT/tests/ggufmut.py
seed=${HOSTILE_SEED:-$((($(date +%s) ^ $$) % 100000))}
budget=${HOSTILE_BUDGET:-90}
echo "# seed $seed: HOSTILE_SEED=$seed tests/run cli/hostile-headers.sh runs this sample again"

printf '#!/bin/sh\nexit 0\n' >stub.sh
chmod +x stub.sh
archs=$("$ZEALOT" synth nosuch -o x.gguf 2>&1 | sed -n 's/.*(synth knows \(.*\))$/\1/p' | tr -d ,)
n_arch=0
for a in $archs; do
	"$ZEALOT" synth "$a" -o "$a.gguf" 2>/dev/null && n_arch=$((n_arch + 1))
done
check "synth wrote every architecture it knows ($n_arch)" test "$n_arch" -gt 60 -a "$n_arch" -eq "$(echo $archs | wc -w)"

endpoint() { # GGUF: an endpoint on it, for plan, check and serve
	printf 'RUNTIME=%s/stub.sh\nMODEL_FILE=%s/%s\nDEVICE=cpu\nCTX_SIZE=4096\nADDRESSABLE_MIB=16384\n' \
		"$TMP" "$TMP" "$1" >m.env
}
poke() { # FILE OFFSET HEX: write the bytes in place
	printf "$(echo "$3" | sed 's/../\\x&/g')" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}
signalled() { # STATUS STDERR: a signal, or a sanitizer's report
	[ "$1" -ge 128 ] || [ "$1" -eq 86 ] || grep -qE 'Sanitizer|runtime error:' "$2"
}

# --- the cases the issue names: each refused by its key, by every command
named=(deepseek32:attention.q_lora_rank gemma4:attention.key_length gemma4:attention.head_count
	lfm2:embedding_length lfm2:shortconv.l_cache lfm2moe:shortconv.l_cache rwkv6:embedding_length
	rwkv7:embedding_length arwkv7:embedding_length rwkv6qwen2:embedding_length mamba:ssm.state_size
	jamba:ssm.state_size qwen3next:ssm.group_count plamo2:ssm.time_step_rank)
for f in mamba2 granitehybrid falcon-h1 nemotron_h nemotron_h_moe; do
	for k in ssm.state_size ssm.group_count ssm.time_step_rank; do named+=("$f:$k"); done
done
for c in "${named[@]}"; do
	a=${c%%:*} key=$a.${c#*:}
	cp --sparse=always "$a.gguf" n.gguf
	python3 "$MUT" set n.gguf "$key" 0
	endpoint n.gguf
	bad=
	"$ZEALOT" inspect n.gguf >/dev/null 2>e1
	r1=$?
	"$ZEALOT" plan m.env >/dev/null 2>e2
	r2=$?
	"$ZEALOT" check m.env >o3 2>e3
	r3=$?
	"$ZEALOT" serve --dry-run m.env >/dev/null 2>e4
	r4=$?
	[ "$r1" -eq 3 ] && grep -qF "$key = 0: " e1 || bad+=" inspect:$r1"
	[ "$r2" -eq 3 ] && grep -qF "zealot: plan: $TMP/n.gguf: $key = 0: " e2 || bad+=" plan:$r2"
	[ "$r3" -eq 1 ] && grep -qE "^error +C03 " o3 && grep -qF "$key = 0" o3 || bad+=" check:$r3"
	[ "$r4" -eq 78 ] && grep -qF "$key = 0: " e4 || bad+=" serve:$r4"
	check "$key = 0: refused by name (inspect 3, plan 3, check C03, serve 78)" test -z "$bad"
	[ -z "$bad" ] || { echo "#  wrong:$bad"; sed -n '1,3s/^/#   /p' e2; }
done
# a block count past the payload's blocks: the graph walks it, so it is
# refused first (2^31-1 convnext blocks took 11 GB before the rule)
cp --sparse=always wavtokenizer-dec.gguf n.gguf
key=wavtokenizer-dec.convnext.block_count
python3 "$MUT" set n.gguf "$key" 2147483647
endpoint n.gguf
"$ZEALOT" plan m.env >/dev/null 2>e2
r2=$?
"$ZEALOT" check m.env >o3 2>e3
r3=$?
check "$key = 2^31-1: plan refuses it by name (3), check names C03" \
	sh -c "[ $r2 -eq 3 ] && grep -qF '$key = 2147483647: ' e2 && [ $r3 -eq 1 ] && grep -qE '^error +C03 ' o3"
rm -f n.gguf

# --- the faults campaigns found (HOSTILE_ALL=1 HOSTILE_ARCHS=...), one row
# each: ARCH KEY VALUE WORD. plan refuses the value with a status (3, or 2
# for a graph the engine's node budget cannot hold) and an error naming WORD
# (WORD "priced": a value the engine takes, plan prices it, exit 0), never a
# signal or a sanitizer's report. The budget's row held no budget before
# graph_max_nodes was mirrored: plan priced it (exit 1).
rows=(
	"deepseek4 attention.head_count 1 head_count = 1"
	"deepseek4 attention.key_length 7 attn_output_a"
	"deepseek4 attention.output_group_count 0 output_group_count"
	"qwen4exp attention.indexer.head_count 65536 graph_max_nodes"
	"dots3note attention.sliding_window 0 priced"
	"dots3note attention.sliding_window_pattern[0] 0 indexer.types[0] = 0"
)
for r in "${rows[@]}"; do
	read -r a k v want <<<"$r"
	cp --sparse=always "$a.gguf" n.gguf
	python3 "$MUT" set n.gguf "$a.$k" "$v"
	endpoint n.gguf
	"$ZEALOT" plan m.env >/dev/null 2>e2
	r2=$?
	if [ "$want" = priced ]; then
		check "$a.$k = $v: plan prices it ($r2), no signal" \
			sh -c "[ $r2 -eq 0 ] && ! grep -qE 'Sanitizer|runtime error:' e2"
	else
		check "$a.$k = $v: plan refuses it ($r2) naming $want, no signal" \
			sh -c "[ $r2 -eq 3 -o $r2 -eq 2 ] && grep -qF '$want' e2 && ! grep -qE 'Sanitizer|runtime error:' e2"
	fi
	[ "$r2" -le 3 ] || sed -n '1,3s/^/#   /p' e2
done
rm -f n.gguf

# --- the sample: no signal, ever; inspect never passes what plan refuses
pool=(./*.gguf)
if [ -n "${HOSTILE_ARCHS:-}" ]; then
	pool=()
	for a in $HOSTILE_ARCHS; do pool+=("./$a.gguf"); done
	n_arch=${#pool[@]}
fi
if [ "${HOSTILE_ALL:-0}" = 1 ]; then
	python3 "$MUT" sample "$seed" 0 --all "${pool[@]}" >sample
else
	python3 "$MUT" sample "$seed" "$budget" "${pool[@]}" >sample
fi
t0=$EPOCHREALTIME
n=0 crashed=0 leaked=0
: >crashes
while read -r f key val off new old; do
	f=${f#./}
	n=$((n + 1))
	poke "$f" "$off" "$new"
	endpoint "$f"
	"$ZEALOT" inspect "$f" >/dev/null 2>e1
	r1=$?
	"$ZEALOT" plan m.env >/dev/null 2>e2
	r2=$?
	"$ZEALOT" check m.env >/dev/null 2>e3
	r3=$?
	"$ZEALOT" serve --dry-run m.env >/dev/null 2>e4
	r4=$?
	for i in 1 2 3 4; do
		eval "r=\$r$i"
		if signalled "$r" "e$i"; then
			crashed=$((crashed + 1))
			echo "${f%.gguf} $key=$val: $(sed -n "${i}p" <<<$'inspect\nplan\ncheck\nserve') status $r: $(grep -m1 -E 'runtime error|ERROR: AddressSanitizer|SUMMARY' "e$i")" >>crashes
		fi
	done
	# plan refused the payload (3) where inspect passed it: inspect must
	# hold the file to the same rules
	if [ "$r1" -eq 0 ] && [ "$r2" -eq 3 ] && grep -qF "$TMP/$f: " e2; then
		leaked=$((leaked + 1))
		echo "${f%.gguf} $key=$val: inspect 0, plan $(head -1 e2)" >>crashes
	fi
	poke "$f" "$off" "$old"
done <sample
secs=$(echo "$EPOCHREALTIME - $t0" | bc)
keys=$(awk '{ k = $2; sub(/^[^.]*\./, "", k); print k }' sample | sort -u | wc -l)
files=$(awk '{ print $1 }' sample | sort -u | wc -l)
echo "# $n mutations of $files architectures and $keys key names in ${secs%.*} s"
check "the sample covers every architecture ($files of $n_arch)" test "$files" -eq "$n_arch"
check "seed $seed: $n mutations x inspect, plan, check, serve --dry-run: no signal, no sanitizer report" \
	test "$crashed" -eq 0
check "seed $seed: inspect never passes a file plan refuses" test "$leaked" -eq 0
sed -n '1,20s/^/#   /p' crashes
[ -z "${HOSTILE_CRASHES:-}" ] || cp crashes "$HOSTILE_CRASHES" # a campaign's whole list
