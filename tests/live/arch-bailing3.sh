# bailingmoe3 against the real engine (src/models/bailingmoe3.cpp of the
# pinned engine): Kimi delta attention layers (one gate and one output
# gate projection, the gate sigmoid-bounded) and gated MLA layers (RoPE on
# the rope parts, q through a latent or one attn_q, a per-head sigmoid
# gate) over a K-only cache, a dense lead, then biased experts beside a
# shared one; its MTP block (an MLA layer with experts) as a drafter. Each synthetic payload boots through `zealot argv`
# (boot_for_ledger) and answers; every exact term of the plan (model, KV,
# recurrent state, output) equals the boot ledger and every compute buffer
# is within 0.5 % of it, flash attention on and off.
. "$(dirname "$0")/../lib.sh"
. "$(dirname "$0")/../engine.sh"
. "$(dirname "$0")/../plancase.sh" # mirrored_case
cd "$TMP" || exit 1
PLAN_TOL_PCT=0.5

run "$ZEALOT" archs
check "archs: bailingmoe3 is mirrored" grep -qE "^ *bailingmoe3 +mirrored " "$TMP/out"

# layers 3 and 7 MLA (one attn_q), the others delta attention; layer 0 dense
mirrored_case bl3-fa bailingmoe3 "layers=8 vocab=1024" "CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=on UBATCH_SIZE=512"
# q through its latent, two dense lead layers, three experts of eight used;
# an MTP block without a drafter: cached by the main context (the hybrid
# memory's default filter keeps it), its tensors skipped
BL3Q="layers=4 vocab=1024 q_lora=32 lead_dense=2 experts_used=3"
mirrored_case bl3-nofa bailingmoe3 "$BL3Q nextn=1" "CTX_SIZE=2048 PARALLEL=1 FLASH_ATTN=off UBATCH_SIZE=256"
# a q8_0 cache (MLA: K and V of one type; K rows of 64 + 32) over 3 slots
mirrored_case bl3-q8 bailingmoe3 "$BL3Q head_dim=64 rope_dims=32" \
	"CTX_SIZE=6000 PARALLEL=3 FLASH_ATTN=on UBATCH_SIZE=256 CACHE_TYPE_K=q8_0 CACHE_TYPE_V=q8_0"
# a dense MLA layer (3) before a delta layer (4, one softmax-gated expert,
# weights unnormalised): the delta layer's gather comes before layer 3's tail
mirrored_case bl3-dense bailingmoe3 "layers=5 vocab=1024 lead_dense=4 experts_used=1 gating=1 w_norm=0" \
	"CTX_SIZE=4096 PARALLEL=2 FLASH_ATTN=off UBATCH_SIZE=128"
# the MTP drafter: its own K-only cache and graph (graph_mtp), the state's
# rollback planes, the delta layers writing 3 conv windows and snapshots
mirrored_case bl3-mtp bailingmoe3 "$BL3Q nextn=1" \
	"CTX_SIZE=4096 PARALLEL=2 SPEC_TYPE=draft-mtp SPEC_DRAFT_N_MAX=2 UBATCH_SIZE=512"

for a in "${!PLAN_WORST_BY[@]}"; do echo "# worst compute error: $a ${PLAN_WORST_BY[$a]}%"; done
