/* The MoE kin of llama's block: olmoe, ernie4_5-moe, deepseek (v1),
 * hunyuan-moe, minimax-m2, phimoe, llama4. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

void moe_kin_defaults(struct synth_spec *s, const struct synth_family *f)
{
	s->n_expert = 8;
	s->n_expert_used = 2;
	if (f->variant & V_FF_EXP) /* the routed experts' (hunyuan-moe: the shared expert's) width */
		s->n_ff_exp = 256;
	if (f->variant & V_OLMOE)
		s->n_head_kv = s->n_head; /* k's norm is n_embd wide */
	if (f->variant & V_LEAD)
		s->n_lead_dense = 1;
	if (f->variant & V_BIAS)
		s->probs_b = 1;
	if (f->variant & V_DEEPSEEK)
		s->n_shared = 2;
	if (f->variant & V_MINIMAX) /* experts ff wide, sigmoid-gated with a selection bias */
		s->gating = 2;
	if (f->variant & V_LLAMA4) {
		/* experts every 2nd layer beside a shared one, ff_exp wide; the
		 * window key written (the engine chunks by 8192 unless it is 0) */
		s->n_expert_used = 1;
		s->interval = 2;
		s->n_swa = 8192;
		s->swa_pattern = 4;
	}
}

static int experts_bad(const struct synth_spec *s)
{
	return !s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert;
}

int moe_kin_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (f->variant & V_MINIMAX && (experts_bad(s) || s->gating < 1 || s->gating > 4))
		return errorf(err, "minimax-m2 needs experts >= experts_used > 0 and gating 1 to 4");
	if (f->variant & V_LLAMA4 && (experts_bad(s) || !s->n_ff_exp || !s->interval || s->rope_dims != s->head_dim))
		return errorf(err,
			      "llama4 needs experts >= experts_used > 0, ff_exp > 0, interval (the MoE layer step) > 0 "
			      "and rope_dims == head_dim");
	if (f->variant & V_OLMOE && (s->n_head_kv != s->n_head || s->n_head * s->head_dim != s->n_embd))
		return errorf(err,
			      "olmoe's q and k norms are embd wide: heads == kv_heads and heads x head_dim == embd");
	if (f->variant & V_DEEPSEEK && (!s->n_shared || !s->n_ff_exp || experts_bad(s)))
		return errorf(err, "deepseek needs shared > 0, ff_exp > 0 and experts >= experts_used > 0");
	if (f->variant & V_EXP_REQ && ((f->variant & V_FF_EXP && !s->n_ff_exp) || experts_bad(s)))
		return errorf(err, "%s needs experts >= experts_used > 0 (and ff_exp > 0)", s->arch);
	return 0;
}

void moe_kin_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & V_DEEPSEEK) {
		akey_u32(w, s, "leading_dense_block_count", s->n_lead_dense);
		akey_u32(w, s, "expert_shared_count", s->n_shared);
	}
	if (f->variant & V_ERNIE) {
		akey_u32(w, s, "interleave_moe_layer_step", 1);
		akey_u32(w, s, "leading_dense_block_count", s->n_lead_dense);
		if (s->n_shared)
			akey_u32(w, s, "expert_shared_feed_forward_length", s->n_shared * s->n_ff_exp);
	}
	if (f->variant & V_OLMOE || f->variant & V_PHIMOE)
		keys_experts(w, s, 0);
	if (f->variant & V_LLAMA4) { /* all required but the window keys */
		keys_experts(w, s, s->n_ff_exp);
		akey_u32(w, s, "interleave_moe_layer_step", s->interval);
		keys_window(w, s, s->swa_pattern != 0);
	}
	if (f->variant & V_MINIMAX) { /* the expert width is required, the stacks are ff wide */
		keys_experts(w, s, s->n_ff);
		akey_u32(w, s, "expert_gating_func", s->gating);
	}
	if (f->variant & V_HUNYUAN) {
		/* the routed stacks are ff wide, as the key (required) says;
		 * the shared expert ff_exp */
		akey_u32(w, s, "expert_shared_feed_forward_length", s->n_ff_exp);
		akey_u32(w, s, "expert_feed_forward_length", s->n_ff);
		akey_u32(w, s, "expert_count", s->n_expert);
		akey_u32(w, s, "expert_used_count", s->n_expert_used);
	}
	if (f->variant & (V_ERNIE | V_DEEPSEEK))
		keys_experts(w, s, s->n_ff_exp);
}

/* OLMoE (src/models/olmoe.cpp): llama's tensors, q and k norms n_embd
 * wide, softmax experts ff wide in every layer. ERNIE 4.5 MoE
 * (src/models/ernie4-5-moe.cpp): dense leading layers, then routed
 * experts ff_exp wide with a selection bias and the optional shared
 * expert (shared x ff_exp wide). */
void olmoe_ernie_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	int olmoe = (f->variant & V_OLMOE) != 0;
	uint64_t fe = olmoe ? s->n_ff : s->n_ff_exp;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		if (olmoe) {
			BV("attn_q_norm.weight", s->n_embd);
			BV("attn_k_norm.weight", s->n_embd);
		}
		BV("ffn_norm.weight", s->n_embd);
		if (!olmoe && il < s->n_lead_dense) {
			ffn(t, s, il);
			continue;
		}
		router(t, s, il);
		if (!olmoe && s->probs_b)
			BV("exp_probs_b.bias", s->n_expert);
		expert_ffn(t, s, il, fe);
		if (!olmoe && s->n_shared) {
			shexp(t, s, il, (uint64_t)s->n_shared * s->n_ff_exp);
		}
	}
}

/* Hunyuan-MoE (src/models/hunyuan-moe.cpp): per-head q and k norms,
 * routed experts ff wide and a shared expert ff_exp wide in every layer. */
void hunyuan_moe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		moe_layer(t, s, il, ATTN_QK_NORM, s->n_ff);
		BM("ffn_gate_shexp.weight", s->n_embd, s->n_ff_exp);
		BM("ffn_up_shexp.weight", s->n_embd, s->n_ff_exp);
		BM("ffn_down_shexp.weight", s->n_ff_exp, s->n_embd);
	}
}

/* MiniMax-M2 (src/models/minimax-m2.cpp): q and k normed over their
 * whole width; in every layer routed experts ff wide with a selection
 * bias. */
void minimax_m2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		qkv(t, s, il, 1);
		BV("attn_norm.weight", s->n_embd);
		BV("attn_q_norm.weight", (uint64_t)s->head_dim * s->n_head);
		BV("attn_k_norm.weight", (uint64_t)s->head_dim * s->n_head_kv);
		BV("ffn_norm.weight", s->n_embd);
		router(t, s, il);
		expert_ffn(t, s, il, s->n_ff);
		BV("exp_probs_b.bias", s->n_expert);
	}
}

/* Llama 4 (src/models/llama4.cpp): llama's attention; on every
 * interval-th layer routed experts beside a shared expert, both ff_exp
 * wide; a dense FFN ff wide elsewhere. */
void llama4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		attn_block(t, s, il, 0);
		if ((il + 1) % s->interval != 0) {
			ffn(t, s, il);
			continue;
		}
		router(t, s, il);
		expert_ffn(t, s, il, s->n_ff_exp);
		shexp(t, s, il, s->n_ff_exp);
	}
}

/* PhiMoE (src/models/phimoe.cpp): biased norms and output projection,
 * softmax experts ff wide; the output's norm and matrix biased. */
void phimoe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	vec(t, "output_norm.bias", s->n_embd);
	vec(t, "output.bias", s->n_vocab);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("attn_norm.bias", s->n_embd);
		qkv(t, s, il, 1);
		BV("attn_output.bias", s->n_embd);
		BV("ffn_norm.weight", s->n_embd);
		BV("ffn_norm.bias", s->n_embd);
		router(t, s, il);
		expert_ffn(t, s, il, s->n_ff);
	}
}
