/* Qwen3.5 (src/models/qwen35.cpp): Gated DeltaNet layers with a gated
 * full-attention layer every `interval`, and an optional MTP block;
 * qwen35moe (src/models/qwen35moe.cpp) with routed experts and a gated
 * shared expert in place of the FFN; qwen3next, qwen35moe's kin with
 * beta and alpha fused, plain NeoX rope and no MTP head. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

void qwen35_defaults(struct synth_spec *s, const struct synth_family *f)
{
	s->n_layer = 8;
	s->n_nextn = !(f->variant & V_NEXT); /* qwen3next: no MTP head */
	s->mtp_tensors = s->n_nextn;
	s->head_dim = 128;
	s->rope_dims = 64;
	s->interval = 4;
	s->ssm_conv = 4;
	s->ssm_state = 32;
	s->ssm_groups = 2;
	s->ssm_dt_rank = 4;
	if (!(f->variant & V_Q35_MOE))
		return;
	/* qwen35's hybrid; the FFN is routed experts + a gated shared one */
	moe_defaults(s, 8, 2, 128);
	s->n_shared = 1;
	s->w_norm = 1;
}

int qwen35_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (!s->interval || !s->ssm_conv || !s->ssm_state || !s->ssm_groups || !s->ssm_dt_rank)
		return errorf(err, "%s needs interval, ssm_conv, ssm_state, ssm_groups, ssm_dt_rank > 0",
			      f->variant & V_NEXT ? "qwen3next" : "qwen35");
	if (s->ssm_dt_rank % s->ssm_groups)
		return errorf(err, "ssm_dt_rank (%u) must be a multiple of ssm_groups (%u)", s->ssm_dt_rank,
			      s->ssm_groups);
	if (!(f->variant & V_NEXT) && s->rope_dims < 64)
		return errorf(err, "qwen35's rope sections [11,11,10,0] need rope_dims >= 64");
	if ((f->variant & V_NEXT) && s->n_nextn)
		return errorf(err, "qwen3next's MTP head is not synthesised (nextn=0)");
	return f->variant & V_Q35_MOE ? moe_validate(s, 0, err) : 0;
}

void qwen35_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (!(f->variant & V_NEXT)) /* qwen3next: no rope sections, plain NeoX rope */
		keys_rope_sections(w, s);
	akey_u32(w, s, "full_attention_interval", s->interval);
	keys_ssm(w, s, s->ssm_state * s->ssm_dt_rank, 1);
	if (!(f->variant & V_NEXT) && s->n_nextn)
		akey_u32(w, s, "nextn_predict_layers", s->n_nextn);
	if (f->variant & V_Q35_MOE)
		keys_moe_experts(w, s);
}

/* The FFN: qwen35's own, or qwen35moe's routed experts (softmax,
 * normalised) and a shared expert of feed_forward_length gated per token
 * by sigmoid(ffn_gate_inp_shexp). */
static void ffn_qwen35(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il)
{
	char nm[64];
	if (!(f->variant & V_Q35_MOE)) {
		ffn(t, s, il);
		return;
	}
	router(t, s, il);
	expert_stacks(t, s, il);
	BV("ffn_gate_inp_shexp.weight", s->n_embd);
	shexp(t, s, il, s->n_ff);
}

/* A Gated DeltaNet layer's mixer. */
static void delta_net(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il)
{
	char nm[64];
	uint64_t key_dim = (uint64_t)s->ssm_state * s->ssm_groups;
	uint64_t value_dim = (uint64_t)s->ssm_state * s->ssm_dt_rank;
	BM("attn_qkv.weight", s->n_embd, key_dim * 2 + value_dim);
	BM("attn_gate.weight", s->n_embd, value_dim);
	blkname(nm, sizeof(nm), il, "ssm_conv1d.weight");
	f32_tensor(t, nm, 2, s->ssm_conv, key_dim * 2 + value_dim, 1);
	BV("ssm_dt.bias", s->ssm_dt_rank);
	BV("ssm_a", s->ssm_dt_rank);
	if (f->variant & V_NEXT) { /* beta and alpha in one matrix */
		BM("ssm_ba.weight", s->n_embd, 2ull * s->ssm_dt_rank);
	} else {
		BM("ssm_beta.weight", s->n_embd, s->ssm_dt_rank);
		BM("ssm_alpha.weight", s->n_embd, s->ssm_dt_rank);
	}
	BV("ssm_norm.weight", s->ssm_state);
	BM("ssm_out.weight", value_dim, s->n_embd);
}

void qwen35_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			qkv(t, s, il, 2); /* gated query: q and gate in one matrix */
			BV("attn_q_norm.weight", s->head_dim);
			BV("attn_k_norm.weight", s->head_dim);
		} else {
			delta_net(t, s, f, il);
		}
		ffn_qwen35(t, s, f, il);
	}
	if (!s->mtp_tensors)
		return;
	for (uint32_t il = s->n_layer; il < s->n_layer + s->n_nextn; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		qkv(t, s, il, 2);
		BV("attn_q_norm.weight", s->head_dim);
		BV("attn_k_norm.weight", s->head_dim);
		ffn_qwen35(t, s, f, il);
		nextn_head(t, s, il);
	}
}

/* qwen4exp's (fam_qwen4.c): the same Gated DeltaNet mixer and FFN */
void qwen35_delta_net(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il)
{
	delta_net(t, s, f, il);
}

void qwen35_ffn(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il)
{
	ffn_qwen35(t, s, f, il);
}
