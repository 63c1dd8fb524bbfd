# Calibration (law M08) against the real engine: a boot recorded at one
# ubatch (zealot ledger --record) makes the plan of that shape equal its
# ledger, and predicts the modelled terms of another ubatch, measured by a
# real boot, at least as well as the model alone (the sum of absolute
# errors over every compute and draft compute buffer and the projector's
# compute); strictly better where the model is off (the vision encoder's
# compute, an estimate).
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
# zealot asks a runtime its version as the unit's user or nobody, never as
# root (src/judge/runtime.c): where that user cannot run the engine (a
# cache under root's 0700 home), calibration matches a boot on the
# runtime's path instead, as it says
match_on=version
if [ "$(id -u)" = 0 ] && ! setpriv --reuid=65534 --regid=65534 --clear-groups test -x "$SERVER" 2>/dev/null; then
	match_on=path
fi
cd "$TMP" || exit 1

# abs_err PLAN.json LEDGER.json: the sum over every modelled term (compute
# and draft compute per buffer, the projector's compute) of |plan - ledger|
abs_err() {
	jq -n --slurpfile p "$1" --slurpfile l "$2" '
		def err(pb; lb): [ (pb + lb | map(.device) | unique)[] as $d
			| ((pb[] | select(.device == $d) | .mib) // 0) - ((lb[] | select(.device == $d) | .mib) // 0)
			| fabs ] | add // 0;
		err($p[0].compute; $l[0].target.compute) + err($p[0].draft_compute; ($l[0].draft.compute // []))
		+ (($p[0].projector.compute_mib // 0) - ([($l[0].projector.compute // [])[].mib] | add // 0) | fabs)'
}

# case NAME ARCH "synth sets" "keys" UBATCH_RECORDED UBATCH_OTHER
case_() {
	local name=$1 arch=$2 sets=$3 keys=$4 ua=$5 ub=$6 s args=()
	for s in $sets; do args+=(--set "$s"); done
	must "$ZEALOT" synth "$arch" "${args[@]}" -o "$name-a.gguf" || return 1
	case $keys in *MMPROJ_FILE=mm.gguf*) "$ZEALOT" synth clip --set projection_dim=256 -o mm.gguf 2>/dev/null ;; esac
	cp "$name-a.gguf" "$name-b.gguf" # the same payload (identity: its size)
	boot_for_ledger "$name-a" "$keys UBATCH_SIZE=$ua"
	boot_for_ledger "$name-b" "$keys UBATCH_SIZE=$ub"
	"$ZEALOT" ledger "$name-a.log" --json >"$name-a.ledger.json" 2>/dev/null
	"$ZEALOT" ledger "$name-b.log" --json >"$name-b.ledger.json" 2>/dev/null
	check "$name: the engine's log names its build" test "$(jq -r '.build // empty' "$name-a.ledger.json")" != ""

	run "$ZEALOT" ledger "$name-a.log" --record "$name-a.env"
	check "$name: ubatch $ua recorded" rc_is 0
	run "$ZEALOT" plan "$name-a.env" --json
	check "$name: the recorded shape's plan is calibrated, matched on the runtime's $match_on" \
		json_is '[.calibration.matched_on, .calibration.device]' "[\"$match_on\",\"cpu\"]"
	check "$name: ... and its compute equals the ledger's to the hundredth" \
		test "$(jq -c '[.compute[],.draft_compute[]|[.device,.mib]]' "$TMP/out")" = \
		"$(jq -c '[.target.compute[],(.draft.compute//[])[]|[.device,.mib]]' "$name-a.ledger.json")"

	if jq -en 'input | (.projector)' "$name-a.ledger.json" >/dev/null; then
		check "$name: ... and its projector compute too" test "$(jq '.projector.compute_mib' "$TMP/out")" = \
			"$(jq '[.projector.compute[].mib]|add' "$name-a.ledger.json")"
	fi

	"$ZEALOT" plan "$name-b.env" --json --no-calibration >"$name-b.model.json" 2>/dev/null
	"$ZEALOT" plan "$name-b.env" --json >"$name-b.cal.json" 2>/dev/null
	check "$name: ubatch $ub is calibrated from the ubatch-$ua boot" \
		test "$(jq -r '.calibration.terms[0].how' "$name-b.cal.json")" = scaled
	local eu ec
	eu=$(abs_err "$name-b.model.json" "$name-b.ledger.json")
	ec=$(abs_err "$name-b.cal.json" "$name-b.ledger.json")
	echo "# $name: ubatch $ub compute vs its real boot: model alone off by $eu MiB, calibrated from ubatch $ua off by $ec MiB"
	check "$name: calibrated error ($ec MiB) <= the model's alone ($eu MiB)" \
		awk -v c="${ec:-999}" -v u="${eu:--1}" 'BEGIN { exit !(c <= u + 0.005) }'
	if [ "${7:-}" = exact ]; then
		# the tower's compute was the estimate the model was least sure
		# of (0.67 MiB off here); it is mirrored now (graph_clip.c), so
		# the model alone must match the boot with nothing to calibrate
		check "$name: the model alone matches the boot, projector included ($eu MiB off)" \
			awk -v u="${eu:-999}" 'BEGIN { exit !(u <= 0.005) }'
	fi
}

case_ llama llama "" "CTX_SIZE=6000 PARALLEL=2" 128 512
# a vision tower (synth clip, a LLaVA-style MLP the engine runs): its
# encoder compute is replayed from the engine's clip graph
case_ llama-vision llama "" "CTX_SIZE=4096 PARALLEL=2 MMPROJ_FILE=mm.gguf" 128 512 exact
case_ qwen35-mtp qwen35 "" "CTX_SIZE=8192 PARALLEL=2 CACHE_TYPE_V=q8_0 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2" 256 1024
case_ gemma3 gemma3 "" "CTX_SIZE=8192 PARALLEL=1" 1024 256
case_ qwen35-geom qwen35 "layers=12 interval=3 heads=8 kv_heads=4 ssm_state=64 ssm_groups=4 ssm_dt_rank=8" "CTX_SIZE=6144 PARALLEL=2" 512 128
# geometries of the seeded sweep (tests/live/plan-sweep.sh, seed 2026) where
# the sweep reported a compute error above 0 % (s21 0.15 %, s4 0.06 %):
# at the hundredth the engine prints, the model is exact on them, and the
# calibration must stay so
case_ sweep-s21 llama "layers=8 embd=1024 ff=512 heads=4 kv_heads=4 head_dim=256 rope_dims=256 vocab=32000 type=q4_K" \
	"CTX_SIZE=44995 PARALLEL=5 CACHE_TYPE_K=q8_0 BATCH_SIZE=1024" 64 512
case_ sweep-s4 qwen35 "layers=8 embd=1024 ff=768 heads=16 kv_heads=4 head_dim=64 rope_dims=64 vocab=4096 type=q4_0 interval=2 ssm_state=128 ssm_groups=4 ssm_dt_rank=4 nextn=0" \
	"CTX_SIZE=7533 PARALLEL=3 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0" 64 512
