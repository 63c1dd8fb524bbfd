/* More of llama's MoE kin: dbrx, arctic, grok, dots1, bailingmoe,
 * bailingmoe2, smallthinker, deepseek2-ocr, granite_swa,
 * grovemoe, hy_v3, cohere2moe, laguna, mimo2, step35, afmoe, and the
 * dense muse-glimmer. Each
 * writes what its load_arch_tensors creates (src/models/NAME.cpp). */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* grovemoe: experts per group (each group one chunk expert, ff_exp / 2
 * wide) and the chunk experts' scale */
#define GROVE_PER_GROUP 2

void moe2_defaults(struct synth_spec *s, const struct synth_family *f)
{
	s->n_expert = 8;
	s->n_expert_used = 2;
	if (f->variant & (V2_SHARED | V2_THINKER | V2_MIMO)) /* experts ff_exp wide */
		s->n_ff_exp = 256;
	if (f->variant & V2_SHARED) { /* beside a shared one */
		s->n_shared = 1;
		s->w_norm = 1;
	}
	if (f->variant & V2_THINKER)
		s->gating = 1;
	if (f->variant & V2_KV_H)
		s->n_head_kv = s->n_head;
	if (f->variant & V2_GATED) { /* a dense lead, sigmoid over a selection bias, scaled */
		s->n_lead_dense = 1;
		s->gating = 2;
		s->probs_b = 1;
		s->w_scale10 = 25;
	}
	if (f->variant & V2_SH1)
		s->probs_b = 0;
	if (f->variant & V2_GROK) /* grok-2's dense FFN beside the experts */
		s->n_shared = 1;
	if (f->variant & V2_SWA) { /* the engine's defaults: 128 cells, 3 of 4 layers */
		s->n_swa = 128;
		s->swa_pattern = 4;
	}
	if (f->variant & V2_MIMO) { /* a dense lead (no key: the layers without a router), a bias */
		s->n_lead_dense = 1;
		s->probs_b = 1;
	}
	if (f->variant & V2_MUSE) { /* dense; the engine's default period, 3 of 4 layers windowed */
		s->n_expert = s->n_expert_used = 0;
		s->n_swa = 512;
		s->swa_pattern = 4;
	}
	if (f->variant & V2_STEP) { /* a shared expert, sigmoid weights normalised */
		s->n_shared = 1;
		s->gating = 2;
		s->w_norm = 1;
	}
	if (f->variant & (V2_GRANITE | V2_COHERE | V2_MIMO)) { /* a window of 512 on 3 layers of 4 */
		s->n_swa = 512;
		s->swa_pattern = 4;
	}
	if (f->variant & V2_COHERE) /* no selection bias tensor */
		s->probs_b = 0;
}

int moe2_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if ((f->variant & (V2_GRANITE | V2_COHERE | V2_MIMO | V2_MUSE)) && (!s->n_swa || s->swa_pattern < 2))
		return errorf(err, "%s needs swa > 0 and swa_pattern >= 2 (both required)", s->arch);
	if ((f->variant & V2_MUSE) && (s->n_expert || s->gate_up))
		return errorf(err, "%s is dense (experts=0, gate_up=0)", s->arch);
	if (f->variant & V2_MUSE)
		return 0;
	if ((f->variant & V2_GRANITE) && !s->n_expert)
		return s->gate_up ? errorf(err, "%s without experts has no expert stack (gate_up=0)", s->arch) : 0;
	if (!s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert)
		return errorf(err, "%s needs experts >= experts_used > 0", s->arch);
	if ((f->variant & (V2_SHARED | V2_THINKER | V2_MIMO)) && !s->n_ff_exp)
		return errorf(err, "%s needs ff_exp > 0", s->arch);
	if ((f->variant & V2_SHARED) && !s->n_shared)
		return errorf(err, "%s needs shared > 0", s->arch);
	if ((f->variant & V2_KV_H) && s->n_head_kv != s->n_head)
		return errorf(err, "%s creates K and V heads wide: kv_heads == heads", s->arch);
	if ((f->variant & (V2_GATED | V2_THINKER)) && (s->gating < 1 || s->gating > 4))
		return errorf(err, "%s needs gating 1 to 4", s->arch);
	if ((f->variant & V2_GATED) && s->n_lead_dense > s->n_layer)
		return errorf(err, "lead_dense (%u) exceeds layers (%u)", s->n_lead_dense, s->n_layer);
	if (s->gate_up && !(f->variant & V2_GATE_UP))
		return errorf(err, "%s loads separate gate and up expert stacks only (gate_up=0)", s->arch);
	if ((f->variant & V2_SWA) && (!s->n_swa || s->n_shared != 1))
		return errorf(err,
			      "%s needs swa > 0 (required) and shared=1 (its shared expert is ff_exp wide "
			      "whatever the count)",
			      s->arch);
	if ((f->variant & V2_GROVE) && (s->n_expert % GROVE_PER_GROUP || s->n_ff_exp % 2))
		return errorf(err,
			      "%s groups its experts by %d (experts a multiple of it) and halves ff_exp for "
			      "the chunk experts (ff_exp even)",
			      s->arch, GROVE_PER_GROUP);
	if ((f->variant & V2_SH1) && (s->n_shared != 1 || s->probs_b))
		return errorf(err,
			      "%s needs shared=1 (its shared expert is ff_exp wide whatever the count) and probs_b=0 "
			      "(its bias, blk.N.exp_probs_b, is not written)",
			      s->arch);
	if ((f->variant & V2_MIMO) && s->n_lead_dense > s->n_layer)
		return errorf(err, "lead_dense (%u) exceeds layers (%u)", s->n_lead_dense, s->n_layer);
	if ((f->variant & V2_MIMO) && !(f->variant & V2_STEP) && s->n_shared)
		return errorf(err, "%s creates no shared expert (shared=0)", s->arch);
	if ((f->variant & V2_STEP) && (s->gating < 1 || s->gating > 4))
		return errorf(err, "%s needs gating 1 to 4", s->arch);
	if ((f->variant & V2_AFMOE) && !s->probs_b)
		return errorf(err, "%s requires the selection bias (probs_b=1)", s->arch);
	if ((f->variant & V2_COHERE) && s->probs_b)
		return errorf(err, "%s creates no selection bias (probs_b=0)", s->arch);
	if ((f->variant & V2_GROK) && s->n_shared > 1)
		return errorf(err, "grok's dense FFN is one (shared 0 or 1)");
	return 0;
}

/* granite_swa's and cohere2moe's window: its size and a per-layer
 * pattern (the last of each swa_pattern layers full), both required */
void window_per_layer(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	akey_u32(w, s, "attention.sliding_window", s->n_swa);
	akey(k, sizeof(k), s, "attention.sliding_window_pattern");
	gw_arr_begin(w, k, GGUF_BOOL, s->n_layer);
	for (uint32_t il = 0; il < s->n_layer; il++)
		gw_arr_bool(w, il % s->swa_pattern < s->swa_pattern - 1);
}

void moe2_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & (V2_GRANITE | V2_COHERE | V2_MIMO))
		window_per_layer(w, s);
	if (f->variant & V2_GRANITE) { /* Granite's scales */
		akey_f32(w, s, "logit_scale", 8.0f);
		akey_f32(w, s, "residual_scale", 0.22f);
	}
	if (f->variant & V2_COHERE) /* required */
		akey_f32(w, s, "logit_scale", 0.0625f);
	if (f->variant & V2_MUSE) { /* all required but the pattern */
		keys_window(w, s, 1);
		akey_f32(w, s, "logit_scale", 0.5f);
	}
	if (f->variant & V2_GROVE) { /* all required */
		akey_u32(w, s, "expert_chunk_feed_forward_length", s->n_ff_exp / 2);
		akey_f32(w, s, "expert_group_scale", 0.05f);
		akey_u32(w, s, "experts_per_group", GROVE_PER_GROUP);
	}
	if (!s->n_expert)
		return;
	akey_u32(w, s, "expert_count", s->n_expert);
	akey_u32(w, s, "expert_used_count", s->n_expert_used);
	if (f->variant & V2_DBRX) { /* both required */
		akey_f32(w, s, "attention.layer_norm_epsilon", 1e-5f);
		akey_f32(w, s, "attention.clamp_kqv", 8.0f);
	}
	if ((f->variant & (V2_GROK | V2_SHARED | V2_THINKER | V2_MIMO)) && s->n_ff_exp)
		akey_u32(w, s, "expert_feed_forward_length", s->n_ff_exp);
	if (f->variant & V2_SHARED) {
		akey_u32(w, s, "expert_shared_count", s->n_shared);
		akey_bool(w, s, "expert_weights_norm", s->w_norm != 0);
	}
	if ((f->variant & (V2_SHARED | V2_THINKER)) && s->w_scale10)
		akey_f32(w, s, "expert_weights_scale", (float)s->w_scale10 / 10.0f);
	if (f->variant & V2_GATED)
		akey_u32(w, s, "leading_dense_block_count", s->n_lead_dense);
	if (f->variant & V2_STEP) { /* the shared expert's width: no default */
		if (s->n_shared)
			akey_u32(w, s, "expert_shared_feed_forward_length", s->n_ff_exp * s->n_shared);
		akey_u32(w, s, "expert_gating_func", s->gating);
		akey_bool(w, s, "expert_weights_norm", s->w_norm != 0);
	}
	if (f->variant & (V2_GATED | V2_THINKER))
		akey_u32(w, s, "expert_gating_func", s->gating);
	if (f->variant & V2_SWA)
		keys_window(w, s, 1);
}

/* DBRX (src/models/dbrx.cpp): layer norms, one fused qkv projection,
 * the FFN norm named attn_output_norm, softmax experts ff wide. */
static void dbrx_layer(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t q = (uint64_t)s->head_dim * s->n_head, kv = (uint64_t)s->head_dim * s->n_head_kv;
	BV("attn_norm.weight", s->n_embd);
	BM("attn_qkv.weight", s->n_embd, q + 2 * kv);
	BM("attn_output.weight", q, s->n_embd);
	BV("attn_output_norm.weight", s->n_embd);
	router(t, s, il);
	expert_ffn(t, s, il, s->n_ff);
}

/* Snowflake Arctic (src/models/arctic.cpp): llama's attention, a dense
 * FFN embd wide, and softmax experts ff wide beside it over the layer's
 * input normed by ffn_norm_exps. */
static void arctic_layer(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	attn_block(t, s, il, 0);
	BM("ffn_gate.weight", s->n_embd, s->n_embd);
	BM("ffn_down.weight", s->n_embd, s->n_embd);
	BM("ffn_up.weight", s->n_embd, s->n_embd);
	router(t, s, il);
	BV("ffn_norm_exps.weight", s->n_embd);
	expert_ffn(t, s, il, s->n_ff);
}

/* Grok (src/models/grok.cpp): llama's attention with its output normed
 * (attn_output_norm), GELU experts ff_exp (or ff) wide, grok-2's dense
 * FFN beside them (shared=1), the FFN's output normed
 * (layer_output_norm). */
static void grok_layer(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	attn_block(t, s, il, 0);
	BV("attn_output_norm.weight", s->n_embd);
	if (s->n_shared)
		ffn(t, s, il);
	router(t, s, il);
	expert_ffn(t, s, il, s->n_ff_exp ? s->n_ff_exp : s->n_ff);
	BV("layer_output_norm.weight", s->n_embd);
}

/* dots.llm1 (src/models/dots1.cpp): q and k normed per head, dense
 * leading layers, then routed experts (an optional selection bias)
 * beside the shared ones. Bailing MoE (src/models/bailingmoe.cpp):
 * llama's attention, routed and shared experts in every layer. Bailing
 * MoE 2 (src/models/bailingmoe2.cpp): dots1's with one fused qkv.
 * SmallThinker (src/models/smallthinker.cpp): llama's attention,
 * experts ff_exp wide in every layer. DeepSeek-OCR's decoder
 * (src/models/deepseek2ocr.cpp): plain attention, K and V heads wide,
 * dots1's experts (gate and up fused with gate_up=1). EXAONE MoE
 * (src/models/exaone-moe.cpp): dots1's layer under a sliding window.
 * GroveMoE (src/models/grovemoe.cpp): dots1's attention, experts ff_exp
 * wide, then chunk experts (one per group) over their output. HY v3
 * (src/models/hy-v3.cpp): dots1's layer, dense where a layer has no
 * router, gate and up fused with gate_up=1. Laguna
 * (src/models/laguna.cpp): dots1's layer with an attention gate one
 * per head. AFMoE (src/models/afmoe.cpp): exaone-moe's layer with an
 * attention gate one per element and post norms. */
static void shared_layer(struct tw *t, const struct synth_spec *s, uint32_t il, unsigned v)
{
	char nm[64];
	if (v & V2_FUSED) {
		uint64_t q = (uint64_t)s->head_dim * s->n_head, kv = (uint64_t)s->head_dim * s->n_head_kv;
		BV("attn_norm.weight", s->n_embd);
		BM("attn_qkv.weight", s->n_embd, q + 2 * kv);
		BM("attn_output.weight", q, s->n_embd);
		BV("attn_q_norm.weight", s->head_dim);
		BV("attn_k_norm.weight", s->head_dim);
		BV("ffn_norm.weight", s->n_embd);
	} else {
		attn_block(t, s, il, v & V2_QK_NORM ? ATTN_QK_NORM : 0);
	}
	if (v & V2_AGATE)
		BM("attn_gate.weight", s->n_embd, s->n_head);
	if (v & V2_AFMOE) {
		BV("post_attention_norm.weight", s->n_embd);
		BM("attn_gate.weight", s->n_embd, (uint64_t)s->head_dim * s->n_head);
		BV("post_ffw_norm.weight", s->n_embd);
	}
	if ((v & V2_GATED) && il < s->n_lead_dense) {
		ffn(t, s, il);
		return;
	}
	router(t, s, il);
	if ((v & V2_GATED) && s->probs_b)
		BV("exp_probs_b.bias", s->n_expert);
	if (v & V2_GATE_UP)
		expert_stacks(t, s, il);
	else
		expert_ffn(t, s, il, s->n_ff_exp);
	if (v & V2_SHARED)
		shexp(t, s, il, (uint64_t)s->n_ff_exp * s->n_shared);
	if (v & V2_GROVE) {
		uint64_t n = s->n_expert / GROVE_PER_GROUP, fc = s->n_ff_exp / 2;
		expert_stack(t, il, "ffn_gate_chexps.weight", s->n_embd, fc, n);
		expert_stack(t, il, "ffn_down_chexps.weight", fc, s->n_embd, n);
		expert_stack(t, il, "ffn_up_chexps.weight", s->n_embd, fc, n);
	}
}

/* Granite SWA (src/models/granite-swa.cpp): llama's attention with a
 * sink per head, a dense FFN or softmax experts ff wide (gate and up
 * fused with gate_up=1) */
static void granite_swa_layer(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	attn_block(t, s, il, 0);
	BV("attn_sinks.weight", s->n_head);
	if (!s->n_expert) {
		ffn(t, s, il);
		return;
	}
	router(t, s, il);
	if (s->gate_up)
		expert_stack(t, il, "ffn_gate_up_exps.weight", s->n_embd, 2ull * s->n_ff, s->n_expert);
	else
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff, s->n_expert);
	expert_stack(t, il, "ffn_down_exps.weight", s->n_ff, s->n_embd, s->n_expert);
	if (!s->gate_up)
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff, s->n_expert);
}

/* Cohere 2 MoE (src/models/cohere2moe.cpp): a parallel block without an
 * FFN norm, dense leading layers, then routed experts (gate and up fused
 * with gate_up=1) beside the shared ones ff_exp x shared wide */
static void cohere2moe_layer(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	BV("attn_norm.weight", s->n_embd);
	qkv(t, s, il, 1);
	if (il < s->n_lead_dense) {
		ffn(t, s, il);
		return;
	}
	router(t, s, il);
	expert_stacks(t, s, il);
	if (s->n_shared)
		shexp(t, s, il, (uint64_t)s->n_ff_exp * s->n_shared);
}

/* MiMo-V2 (src/models/mimo2.cpp): llama's attention with a sink per
 * head, a dense FFN in the leading layers (no router), then sigmoid
 * experts ff_exp wide over an optional selection bias, no shared one.
 * Step 3.5 (src/models/step35.cpp): its layer with q/k norms and an
 * attention gate per head for the sinks, a shared expert beside the
 * routed ones. */
static void mimo2_layer(struct tw *t, const struct synth_spec *s, uint32_t il, unsigned v)
{
	char nm[64];
	attn_block(t, s, il, v & V2_QK_NORM ? ATTN_QK_NORM : 0);
	if (v & V2_AGATE)
		BM("attn_gate.weight", s->n_embd, s->n_head);
	else
		BV("attn_sinks.weight", s->n_head);
	if (il < s->n_lead_dense) {
		ffn(t, s, il);
		return;
	}
	router(t, s, il);
	if (s->probs_b)
		BV("exp_probs_b.bias", s->n_expert);
	expert_ffn(t, s, il, s->n_ff_exp);
	if (s->n_shared)
		shexp(t, s, il, (uint64_t)s->n_ff_exp * s->n_shared);
}

/* Muse Glimmer (src/models/muse-glimmer.cpp): dense; q/k norms, an
 * attention gate per element, post norms after the attention and the
 * FFN */
static void muse_layer(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	attn_block(t, s, il, ATTN_QK_NORM);
	BV("post_attention_norm.weight", s->n_embd);
	BM("attn_gate.weight", s->n_embd, (uint64_t)s->head_dim * s->n_head);
	ffn(t, s, il);
	BV("post_ffw_norm.weight", s->n_embd);
}

void moe2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	for (uint32_t il = 0; il < s->n_layer; il++) {
		if (f->variant & V2_COHERE)
			cohere2moe_layer(t, s, il);
		else if (f->variant & V2_MUSE)
			muse_layer(t, s, il);
		else if (f->variant & V2_MIMO)
			mimo2_layer(t, s, il, f->variant);
		else if (f->variant & V2_DBRX)
			dbrx_layer(t, s, il);
		else if (f->variant & V2_ARCTIC)
			arctic_layer(t, s, il);
		else if (f->variant & V2_GROK)
			grok_layer(t, s, il);
		else if (f->variant & V2_GRANITE)
			granite_swa_layer(t, s, il);
		else
			shared_layer(t, s, il, f->variant);
	}
}
