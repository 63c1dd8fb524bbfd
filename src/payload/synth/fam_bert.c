/* BERT (src/models/bert.cpp of the pinned engine) and the encoders whose
 * graph is bert's: non-causal, served for embeddings. Token and token-type
 * embeddings (bert: and position embeddings), a layer norm over their sum
 * (token_embd_norm, weight and bias), then post-norm blocks: q, k, v and
 * the output projection, a layer norm after the attention
 * (attn_output_norm) and after the FFN (layer_output_norm), each with a
 * bias. No output matrix and no final norm: the engine pools the last
 * hidden states (pooling_type). The variants, by their load_arch_tensors:
 * bert has biases everywhere, a GELU FFN and position_embd; jina-bert-v3
 * (V_ROPE) is bert roped, without position_embd; nomic-bert (V_ROPE |
 * V_SILU) has no biases and a SiLU-gated FFN (ffn_gate); jina-bert-v2
 * (V_ALIBI) has no positions at all (ALiBi) and a GELU-gated FFN with
 * biases on up and down; nomic-bert-moe (V_ROPE | V_BMOE) is bert
 * roped over one attn_qkv and its bias, as converted, whose layer il
 * with il % moe_every_n_layers == 1 holds routed experts (a router, up
 * and down stacks feed_forward_length wide, no gate) in place of the
 * FFN. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

void bert_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->n_head_kv = s->n_head; /* multi-head attention */
	s->n_ctx = 512;		  /* bert: position_embd has a row per trained position */
}

int bert_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (!(f->variant & (V_ROPE | V_ALIBI)) && s->n_ctx > 65536)
		return errorf(err, "%s's position_embd holds a row per position: ctx %llu is more than 65536", s->arch,
			      (unsigned long long)s->n_ctx);
	if ((f->variant & V_MODERN) && s->n_head_kv != s->n_head)
		return errorf(err, "%s's attn_qkv is {embd, 3 x embd}: kv_heads must equal heads", s->arch);
	return 0;
}

void bert_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	akey_f32(w, s, "attention.layer_norm_epsilon", 1e-12f);
	akey_bool(w, s, "attention.causal", 0);
	akey_u32(w, s, "pooling_type", 1); /* mean */
	/* the loader refuses a BERT without token types */
	gw_u32(w, "tokenizer.ggml.token_type_count", 2);
}

/* nomic-bert-moe: layer il holds experts (moe_every_n_layers = interval) */
static int bert_moe_layer(const struct synth_spec *s, const struct synth_family *f, uint32_t il)
{
	return (f->variant & V_BMOE) && s->interval && il % s->interval == 1;
}

void bert_moe_defaults(struct synth_spec *s, const struct synth_family *f)
{
	bert_defaults(s, f);
	moe_defaults(s, 4, 2, 0);
	s->interval = 2; /* nomic-embed-text-v2-moe's step: layers 1, 3, ... */
}

int bert_moe_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (!s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert)
		return errorf(err, "%s needs experts >= experts_used > 0", s->arch);
	if (s->interval < 2 || s->n_layer < 2)
		return errorf(err,
			      "%s's experts sit in layer il with il %% interval == 1: interval (%u) and layers (%u) "
			      "must be at least 2",
			      s->arch, s->interval, s->n_layer);
	return bert_validate(s, f, err);
}

void bert_moe_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	bert_keys(w, s, f);
	keys_experts(w, s, 0); /* the stacks are feed_forward_length wide */
	akey_u32(w, s, "moe_every_n_layers", s->interval);
}

void bert_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint64_t E = s->n_embd;
	int biased = !(f->variant & V_SILU);
	vec(t, "token_embd_norm.bias", E);
	if (!(f->variant & (V_ROPE | V_ALIBI)))
		mat(t, "position_embd.weight", E, s->n_ctx);
	f32_tensor(t, "token_types.weight", 2, E, 2, 1); /* added to f32 activations: f32 */
	for (uint32_t il = 0; il < s->n_layer; il++) {
		if (f->variant & V_BMOE) { /* one attn_qkv and its bias, as converted */
			BM("attn_qkv.weight", E, 3 * E);
			BV("attn_qkv.bias", 3 * E);
			BM("attn_output.weight", E, E);
		} else {
			qkv(t, s, il, 1);
		}
		if (biased) {
			if (!(f->variant & V_BMOE))
				qkv_bias(t, s, il);
			BV("attn_output.bias", E);
		}
		BV("attn_output_norm.weight", E);
		BV("attn_output_norm.bias", E);
		if (bert_moe_layer(s, f, il)) {
			router(t, s, il);
			expert_stack(t, il, "ffn_up_exps.weight", E, s->n_ff, s->n_expert);
			expert_stack(t, il, "ffn_down_exps.weight", s->n_ff, E, s->n_expert);
			BV("layer_output_norm.weight", E);
			BV("layer_output_norm.bias", E);
			continue;
		}
		if (f->variant & (V_SILU | V_ALIBI))
			BM("ffn_gate.weight", E, s->n_ff);
		BM("ffn_up.weight", E, s->n_ff);
		if (biased)
			BV("ffn_up.bias", s->n_ff);
		BM("ffn_down.weight", s->n_ff, E);
		if (biased)
			BV("ffn_down.bias", E);
		BV("layer_output_norm.weight", E);
		BV("layer_output_norm.bias", E);
	}
}

/* NeoBERT (src/models/neo-bert.cpp): pre-norm RMS blocks over one fused
 * attn_qkv and a SwiGLU whose ffn_up holds the gate too (2 x ff rows),
 * no biases, the final norm enc.output_norm (SF_ENC_NORM), no output.
 * ModernBERT (V_MODERN, src/models/modern-bert.cpp): the same tensors
 * (layer norms, a GEGLU), token_embd_norm and output_norm, no attn_norm
 * in layer 0. */
void neo_bert_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint64_t E = s->n_embd, kv = (uint64_t)s->head_dim * s->n_head_kv;
	int modern = f->variant & V_MODERN;
	if (modern)
		vec(t, "output_norm.weight", E);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		if (!modern || il > 0) /* modern-bert: layer 0's attn_norm is the identity */
			BV("attn_norm.weight", E);
		BM("attn_qkv.weight", E, E + 2 * kv);
		BM("attn_output.weight", E, E);
		BV("ffn_norm.weight", E);
		BM("ffn_up.weight", E, 2 * s->n_ff);
		BM("ffn_down.weight", s->n_ff, E);
	}
}

/* T5's encoder alone (src/models/t5encoder.cpp, the graph t5.cpp's
 * graph<true>): pre-norm RMS blocks named enc.blk.N.*: q, k and v
 * heads x head_dim wide, attn_o, a relative position bias
 * attn_rel_b {heads, relative_buckets_count} in layer 0 only (the
 * others read layer 0's, as T5 ships it; f32), a GELU-gated FFN
 * (flan-T5 and T5 v1.1: ffn_gate), the final norm enc.output_norm
 * (SF_ENC_NORM), the output tied. No pooling_type key: the endpoint
 * says POOLING. */
#define T5_BUCKETS 32

void t5encoder_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->n_head_kv = s->n_head; /* wq is {embd, kv_heads x head_dim}: multi-head */
}

int t5encoder_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (s->n_head_kv != s->n_head)
		return errorf(err, "%s's attn_q is kv_heads x head_dim wide: kv_heads must equal heads", s->arch);
	return 0;
}

void t5encoder_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	akey_u32(w, s, "attention.relative_buckets_count", T5_BUCKETS);
}

/* STACK.blk.IL's FFN half: its norm, the GELU-gated FFN */
static void t5_ffn_tensors(struct tw *t, const struct synth_spec *s, const char *stack, uint32_t il)
{
	static const char *const names[] = {"ffn_norm", "ffn_gate", "ffn_up", "ffn_down"};
	char nm[64];
	for (int i = 0; i < 4; i++) {
		snprintf(nm, sizeof(nm), "%s.blk.%u.%s.weight", stack, il, names[i]);
		if (i == 0)
			vec(t, nm, s->n_embd);
		else if (i < 3)
			mat(t, nm, s->n_embd, s->n_ff);
		else
			mat(t, nm, s->n_ff, s->n_embd);
	}
}

void t5encoder_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	uint64_t E = s->n_embd, kv = (uint64_t)s->head_dim * s->n_head_kv;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		snprintf(nm, sizeof(nm), "enc.blk.%u.attn_norm.weight", il);
		vec(t, nm, E);
		if (il == 0)
			f32_tensor(t, "enc.blk.0.attn_rel_b.weight", 2, s->n_head, T5_BUCKETS, 1);
		static const char *const qkv_names[] = {"attn_q", "attn_k", "attn_v"};
		for (int i = 0; i < 3; i++) {
			snprintf(nm, sizeof(nm), "enc.blk.%u.%s.weight", il, qkv_names[i]);
			mat(t, nm, E, kv);
		}
		snprintf(nm, sizeof(nm), "enc.blk.%u.attn_o.weight", il);
		mat(t, nm, kv, E);
		t5_ffn_tensors(t, s, "enc", il);
	}
}

/* T5 itself (src/models/t5.cpp): t5encoder's tensors, then the decoder's
 * dec.blk.N.*: an RMS-normed self-attention (q, k, v, attn_o, a relative
 * position bias attn_rel_b in layer 0 only, f32), an RMS-normed
 * cross-attention (cross_attn_q/k/v/o over the encoder's output), the
 * GELU-gated FFN, and the decoder's final norm dec.output_norm; as many
 * decoder layers as encoder layers (no decoder_block_count key). */
void t5_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	t5encoder_tensors(t, s, f);
	char nm[64];
	uint64_t E = s->n_embd, kv = (uint64_t)s->head_dim * s->n_head_kv;
	static const char *const sq[] = {"attn_q", "attn_k", "attn_v", "cross_attn_q", "cross_attn_k", "cross_attn_v"};
	for (uint32_t il = 0; il < s->n_layer; il++) {
		snprintf(nm, sizeof(nm), "dec.blk.%u.attn_norm.weight", il);
		vec(t, nm, E);
		if (il == 0)
			f32_tensor(t, "dec.blk.0.attn_rel_b.weight", 2, s->n_head, T5_BUCKETS, 1);
		for (int i = 0; i < 6; i++) {
			if (i == 3) {
				snprintf(nm, sizeof(nm), "dec.blk.%u.attn_o.weight", il);
				mat(t, nm, kv, E);
				snprintf(nm, sizeof(nm), "dec.blk.%u.cross_attn_norm.weight", il);
				vec(t, nm, E);
			}
			snprintf(nm, sizeof(nm), "dec.blk.%u.%s.weight", il, sq[i]);
			mat(t, nm, E, kv);
		}
		snprintf(nm, sizeof(nm), "dec.blk.%u.cross_attn_o.weight", il);
		mat(t, nm, kv, E);
		t5_ffn_tensors(t, s, "dec", il);
	}
	vec(t, "dec.output_norm.weight", E);
}
