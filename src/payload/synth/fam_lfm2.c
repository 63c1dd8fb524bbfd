/* LFM2 (src/models/lfm2.cpp) and LFM2-MoE (src/models/lfm2moe.cpp):
 * gated short-convolution layers with an attention layer every
 * `interval`; lfm2moe's FFNs past a dense lead are experts (LFM2-8B-A1B's
 * rules: sigmoid, biased). */
#include <stdio.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

void lfm2_defaults(struct synth_spec *s, const struct synth_family *f)
{
	s->interval = 4;
	s->ssm_conv = 3; /* shortconv.l_cache */
	if (!(f->variant & V_EXPERTS))
		return;
	moe_defaults(s, 8, 2, 256);
	s->n_lead_dense = 1;
	s->gating = 2;
	s->probs_b = 1;
}

int lfm2_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (!s->interval || s->ssm_conv < 2)
		return errorf(err, "lfm2 needs interval > 0 and ssm_conv (the short conv's l_cache) >= 2");
	if ((f->variant & V_EXPERTS) &&
	    (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert ||
	     s->n_lead_dense > s->n_layer || s->gating < 1 || s->gating > 4))
		return errorf(err, "lfm2moe needs experts >= experts_used > 0, ff_exp > 0, lead_dense <= layers and "
				   "gating 1..4");
	return 0;
}

void lfm2_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	akey_u32(w, s, "shortconv.l_cache", s->ssm_conv);
	if (!(f->variant & V_EXPERTS))
		return;
	/* src/models/lfm2moe.cpp load_arch_hparams */
	static const char *const ek[] = {"expert_count", "expert_used_count", "expert_feed_forward_length",
					 "leading_dense_block_count", "expert_gating_func"};
	const uint32_t ev[] = {s->n_expert, s->n_expert_used, s->n_ff_exp, s->n_lead_dense, s->gating};
	for (size_t i = 0; i < ARRAY_SIZE(ek); i++)
		akey_u32(w, s, ek[i], ev[i]);
}

/* LFM2 (src/models/lfm2.cpp): gated short-convolution layers and q/k
 * normed attention every `interval` (head_count_kv 0 marks the others);
 * the conv kernel stays f32; the final norm is named token_embd_norm. */
void lfm2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			qkv(t, s, il, 1);
			BV("attn_q_norm.weight", s->head_dim);
			BV("attn_k_norm.weight", s->head_dim);
		} else {
			blkname(nm, sizeof(nm), il, "shortconv.conv.weight");
			f32_tensor(t, nm, 2, s->ssm_conv, s->n_embd, 1);
			BM("shortconv.in_proj.weight", s->n_embd, 3ull * s->n_embd);
			BM("shortconv.out_proj.weight", s->n_embd, s->n_embd);
		}
		BV("ffn_norm.weight", s->n_embd);
		if (!(f->variant & V_EXPERTS) || il < s->n_lead_dense) {
			ffn(t, s, il);
			continue;
		}
		/* LFM2-MoE (src/models/lfm2moe.cpp): past the dense lead, a
		 * router (f32), the selection bias (required) and the stacks */
		router(t, s, il);
		BV("exp_probs_b.bias", s->n_expert);
		expert_ffn(t, s, il, s->n_ff_exp);
	}
}
