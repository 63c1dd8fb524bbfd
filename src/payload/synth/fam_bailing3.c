/* Bailing MoE 3 (src/models/bailingmoe3.cpp): Kimi delta attention layers
 * whose gate and output gate are one projection each (ssm_f_a, ssm_g_a,
 * inner wide), and gated MLA layers with RoPE on q's and k's rope parts,
 * q through a latent or one attn_q, and a per-head sigmoid gate
 * (attn_gate); dense lead layers, then biased experts and a shared one. */
#include <stdio.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* kda.gate_lower_bound as synth writes it: the engine asserts it < 0 */
#define BL3_GATE_LOWER_BOUND (-5.0f)

/* kimi-linear's geometry (a delta attention head of ssm_state, MLA every
 * `interval` layers, one dense lead layer, 8 biased experts) */
void bailing3_defaults(struct synth_spec *s, const struct synth_family *f)
{
	kimi_defaults(s, f);
	s->mtp_tensors = 1; /* for nextn=1 */
}

/* kimi-linear's layers (MLA every `interval`), the MTP block an MLA one */
int bailing3_layer(const struct synth_spec *s, uint32_t il)
{
	return il >= s->n_layer ? 'A' : ssm_layer(s, il);
}

int bailing3_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (moe_validate(s, MV_GATING, err))
		return -1;
	if (!s->interval || !s->ssm_conv || !s->ssm_state || !s->kv_lora || !s->head_dim_v || !s->rope_dims ||
	    s->rope_dims % 2 || s->rope_dims >= s->head_dim || s->mha || !s->probs_b || s->n_nextn > 1)
		return errorf(err,
			      "bailingmoe3 needs interval, ssm_conv, ssm_state (the KDA head size), kv_lora, "
			      "head_dim_v > 0, an even rope_dims in 1..head_dim-1, probs_b=1, mha=0 and nextn 0 or 1");
	return 0;
}

/* kimi-linear's keys (the experts, the routing, kda.head_dim, the conv
 * kernel, the latent ranks and MLA head sizes) and the gate's lower bound
 * (load_arch_hparams requires it; kda.safe_gate defaults to true) */
void bailing3_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	mla_keys(w, s, f);
	akey_f32(w, s, "kda.gate_lower_bound", BL3_GATE_LOWER_BOUND);
}

/* a delta attention layer: the three depthwise convs [conv, 1, inner, 1],
 * q, k, v, the gate (ssm_f_a), beta, A, the dt bias, the output gate
 * (ssm_g_a), the per-head output norm, the output projection */
static void bl3_kda(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	static const char *const conv[] = {"ssm_conv1d_q.weight", "ssm_conv1d_k.weight", "ssm_conv1d_v.weight"};
	char nm[64];
	uint64_t inner = (uint64_t)s->n_head * s->ssm_state;
	for (int c = 0; c < 3; c++) {
		blkname(nm, sizeof(nm), il, conv[c]);
		f32_tensor(t, nm, 3, s->ssm_conv, 1, inner);
	}
	static const char *const proj[] = {"attn_q.weight", "attn_k.weight", "attn_v.weight", "ssm_f_a.weight"};
	for (int p = 0; p < 4; p++)
		BM(proj[p], s->n_embd, inner);
	BM("ssm_beta.weight", s->n_embd, s->n_head);
	blkname(nm, sizeof(nm), il, "ssm_a");
	f32_tensor(t, nm, 2, 1, s->n_head, 1);
	BV("ssm_dt.bias", inner);
	BM("ssm_g_a.weight", s->n_embd, inner);
	BV("ssm_norm.weight", s->ssm_state);
	BM("attn_output.weight", inner, s->n_embd);
}

/* a gated MLA layer: q through its latent (q_lora) or one attn_q, the
 * compressed KV with its rope part, K and V decompression per head, the
 * per-head gate, the output projection */
static void bl3_mla(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t qk = (uint64_t)s->n_head * s->head_dim;
	if (s->q_lora) {
		BM("attn_q_a.weight", s->n_embd, s->q_lora);
		BV("attn_q_a_norm.weight", s->q_lora);
		BM("attn_q_b.weight", s->q_lora, qk);
	} else {
		BM("attn_q.weight", s->n_embd, qk);
	}
	BM("attn_kv_a_mqa.weight", s->n_embd, s->kv_lora + s->rope_dims);
	BV("attn_kv_a_norm.weight", s->kv_lora);
	expert_stack(t, il, "attn_k_b.weight", s->head_dim - s->rope_dims, s->kv_lora, s->n_head);
	expert_stack(t, il, "attn_v_b.weight", s->kv_lora, s->head_dim_v, s->n_head);
	BM("attn_gate.weight", s->n_embd, s->n_head);
	BM("attn_output.weight", (uint64_t)s->n_head * s->head_dim_v, s->n_embd);
}

void bailing3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint32_t n = s->n_layer + (s->mtp_tensors ? s->n_nextn : 0);
	for (uint32_t il = 0; il < n; il++) {
		BV("attn_norm.weight", s->n_embd);
		if (f->layer(s, il) == 'A')
			bl3_mla(t, s, il);
		else
			bl3_kda(t, s, il);
		BV("ffn_norm.weight", s->n_embd);
		if (il < s->n_lead_dense)
			ffn(t, s, il);
		else
			moe_block(t, s, il);
		if (il >= s->n_layer) { /* the MTP block: an MLA layer with experts, the eh_proj head */
			BM("nextn.eh_proj.weight", 2ull * s->n_embd, s->n_embd);
			BV("nextn.enorm.weight", s->n_embd);
			BV("nextn.hnorm.weight", s->n_embd);
			BV("layer_output_norm.weight", s->n_embd); /* its final norm (LLM_TENSOR_LAYER_OUT_NORM) */
		}
	}
}
