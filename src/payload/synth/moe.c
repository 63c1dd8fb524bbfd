/* The MoE families with shared experts (deepseek2's kin, glm4moe,
 * qwen35moe, qwen3next, kimi-linear): their common rules and keys. */
#include <stdio.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* deepseek32's lightning indexer's key length (fam_mla.c) */
#define DS32_IDX_DIM 64

/* (kimi-linear's nextn=0 is the nextn rule's, synth.c) */
static int moe_validate_kin(const struct synth_spec *s, unsigned what, char **err)
{
	if ((what & MV_KIMI) && (!s->interval || !s->ssm_conv || !s->ssm_state || !s->kv_lora || !s->head_dim_v ||
				 s->rope_dims >= s->head_dim || s->q_lora || s->mha || !s->probs_b))
		return errorf(err, "kimi-linear needs interval, ssm_conv, ssm_state (the KDA head size), kv_lora, "
				   "head_dim_v > 0, rope_dims < head_dim, probs_b=1, and q_lora=0, mha=0, nextn=0");
	if ((what & MV_DS32) && (s->mha || !s->q_lora || s->rope_dims > DS32_IDX_DIM))
		return errorf(err,
			      "%s requires MLA over a q latent (mha=0, q_lora > 0) and rope_dims <= %d "
			      "(the indexer's key length)",
			      s->arch, DS32_IDX_DIM);
	if (what & MV_DS2) {
		if (!s->kv_lora || !s->head_dim_v || s->rope_dims >= s->head_dim)
			return errorf(err, "deepseek2 needs kv_lora, head_dim_v > 0 and rope_dims < head_dim");
		if (s->n_nextn && (s->n_nextn > 1 || !s->q_lora || s->mha))
			return errorf(
			    err, "deepseek2's MTP head is one MLA block over a q latent (nextn=1, q_lora > 0, mha=0)");
	}
	return 0;
}

int moe_validate(const struct synth_spec *s, unsigned what, char **err)
{
	if (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert || !s->n_shared)
		return errorf(err, "%s needs experts >= experts_used > 0, ff_exp > 0 and shared > 0", s->arch);
	if (s->n_lead_dense > s->n_layer)
		return errorf(err, "lead_dense (%u) exceeds layers (%u)", s->n_lead_dense, s->n_layer);
	if ((what & MV_GATING) && (s->gating < 1 || s->gating > 4))
		return errorf(err, "gating must be 1 (softmax), 2 (sigmoid), 3 (softmax over the chosen) or 4 "
				   "(sqrt softplus)");
	if (s->n_groups && (s->n_expert % s->n_groups || !s->n_groups_used || s->n_groups_used > s->n_groups ||
			    s->n_expert / s->n_groups < 2))
		return errorf(err, "groups must divide experts into groups of 2 or more, groups_used in 1..groups");
	if (s->gate_up && (what & MV_NO_GATE_UP))
		return errorf(err, "glm4moe loads separate gate and up expert stacks only (gate_up=0)");
	return moe_validate_kin(s, what, err);
}

void keys_moe_experts(struct gguf_writer *w, const struct synth_spec *s)
{
	akey_u32(w, s, "expert_count", s->n_expert);
	akey_u32(w, s, "expert_used_count", s->n_expert_used);
	akey_u32(w, s, "expert_feed_forward_length", s->n_ff_exp);
	akey_u32(w, s, "expert_shared_count", s->n_shared);
}

void keys_moe_routing(struct gguf_writer *w, const struct synth_spec *s)
{
	akey_u32(w, s, "leading_dense_block_count", s->n_lead_dense);
	akey_u32(w, s, "expert_gating_func", s->gating);
	akey_bool(w, s, "expert_weights_norm", s->w_norm != 0);
	if (s->n_nextn)
		akey_u32(w, s, "nextn_predict_layers", s->n_nextn);
	if (s->w_scale10)
		akey_f32(w, s, "expert_weights_scale", (float)s->w_scale10 / 10.0f);
	if (s->n_groups) {
		akey_u32(w, s, "expert_group_count", s->n_groups);
		akey_u32(w, s, "expert_group_used_count", s->n_groups_used);
	}
}
