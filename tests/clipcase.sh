# tests/clipcase.sh: a projector (mmproj) tower of `synth clip`, booted
# beside a small llama text model on the CPU engine (which loads it and
# warms it up), its weights and compute held to the boot's ledger: the
# arch-clip*.sh suites' one case. Sourced after lib.sh, engine.sh and
# plancase.sh, in $TMP.

# clip_listed WHAT '["type",...]': archs lists those types as mirrored
clip_listed() {
	run "$ZEALOT" archs --json
	check "archs: clip lists $1 as mirrored" \
		json_is "[.archs[]|select(.arch==\"clip\")|.projectors.types|contains($2)]" '[true]'
}

CLIP_WORST=0 # the worst compute error of the cases so far, in %

# clip_case NAME "synth sets" "endpoint keys": the tower beside a text
# model as wide as a projection_dim=2048 tower's output (else 256 wide),
# booted; its weights equal the engine's "model size", its compute within
# 0.5 % of reserve_compute_meta's line, and the plan exact (the projector
# named nowhere as estimated).
clip_case() {
	local name=$1 sets=$2 keys=$3 s args=() err embd=256
	for s in $sets; do args+=(--set "$s"); done
	case " $sets " in *" projection_dim=2048 "*) embd=2048 ;; esac
	[ -f "text$embd.gguf" ] ||
		must "$ZEALOT" synth llama --set embd=$embd --set layers=2 --set vocab=1024 -o "text$embd.gguf" || return 1
	if ! "$ZEALOT" synth clip "${args[@]}" -o "$name-mm.gguf" 2>"$name.synth"; then
		check "$name: synth clip $sets writes it" false
		sed 's/^/#   /' "$name.synth"
		return 1
	fi
	cp "text$embd.gguf" "$name.gguf"
	boot_for_ledger "$name" "CTX_SIZE=512 MMPROJ_FILE=$name-mm.gguf $keys"
	check_answered "$name" "$name.log"
	run "$ZEALOT" ledger "$name.log" --endpoint "$name.env" --json
	cp "$TMP/out" "$name.cmp"
	check "$name: the projector's weights equal the engine's model size" \
		json_is '[.comparison[]|select(.term=="projector" and .part=="weights")|.diff|fabs <= 0.01]' '[true]'
	err=$(jq '[.comparison[]|select(.term=="projector" and .part=="compute")|.error_pct|fabs]|max // 999' "$name.cmp")
	check "$name: the projector's compute within 0.5% of reserve_compute_meta's (${err}%)" \
		awk -v e="$err" 'BEGIN { exit !(e <= 0.5) }'
	jq -r '.comparison[]|select(.term=="projector")|"#   projector \(.part): plan \(.plan) ledger \(.ledger) (\(.error_pct)%)"' "$name.cmp"
	awk -v e="$err" -v w="$CLIP_WORST" 'BEGIN { exit !(e > w) }' && CLIP_WORST=$err
	check "$name: the plan is exact (the projector mirrored)" plan_mirrors "$name.env"
}
