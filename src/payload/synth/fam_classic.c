/* The classic dense decoders: starcoder2, phi2, stablelm, olmo, qwen,
 * gpt2, gptneox, falcon, mpt, bloom, starcoder, refact, codeshell, jais,
 * jais2, nemotron, plamo, chameleon, bitnet, chatglm, plamo3, talkie,
 * nanbeige, deci, openelm, cogvlm, pangu-embedded. Layer norms with
 * biases (or RMS norms, or none), q, k and v fused or apart, a GELU FFN of
 * up and down or llama's gated one, positions by RoPE (partial for phi2,
 * stablelm, gptneox), learned embeddings (gpt2, starcoder) or ALiBi
 * (mpt, bloom, refact). Each row's variant (synth_int.h VC_*) is what its
 * load_arch_tensors in src/models/NAME.cpp creates. */
#include <stdio.h>
#include <string.h>

#include "../synth.h"
#include "synth_int.h"

void classic_defaults(struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & VC_PARTIAL) /* a quarter of the head rotated, as Pythia, StableLM and Phi-2 ship */
		s->rope_dims = s->head_dim / 4;
	if (f->variant & VC_POS) /* position_embd is {embd, context_length}: a short trained context */
		s->n_ctx = 8192;
	if (f->variant & VC_MHA) /* qkv is {embd, 3 x embd} (qwen), k's bias embd wide (jais2) */
		s->n_head_kv = s->n_head;
	if (f->variant & VC_QK_NORM2) /* chameleon's graph sets logits 4 .. 8195 */
		s->n_vocab = 8448;
}

int classic_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if ((f->variant & VC_MHA) && s->n_head_kv != s->n_head)
		return errorf(err, "%s's K is embd wide (its attn_qkv or k bias): kv_heads must equal heads", s->arch);
	if ((f->variant & VC_QK_NORM2) && s->n_vocab < 8196)
		return errorf(err, "%s's graph sets the logits of tokens 4 to 8195: vocab must be 8196 or more",
			      s->arch);
	if ((f->variant & VC_HALF_FF) && s->n_ff % 2)
		return errorf(err, "%s's FFN matrices are ff/2 wide: ff must be even", s->arch);
	return 0;
}

void classic_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (!(f->variant & VC_RMS)) /* required by the layer-norm families */
		akey_f32(w, s, "attention.layer_norm_epsilon", 1e-5f);
	if (f->variant & VC_PAR_RES) /* gptneox: required; Pythia's parallel residual */
		akey_bool(w, s, "use_parallel_residual", 1);
	if (f->variant & VC_ALIBI) /* mpt: ALiBi when set (bloom and refact hard-wire 8) */
		akey_f32(w, s, "attention.max_alibi_bias", 8.0f);
	if (f->variant & VC_TALKIE) /* required */
		akey_f32(w, s, "logit_scale", 0.5f);
}

/* a norm's weight, and its bias with layer norms that have them */
static void norm(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il, const char *nw,
		 const char *nb)
{
	char nm[64];
	BV(nw, s->n_embd);
	if (f->variant & VC_NORM_B)
		BV(nb, s->n_embd);
}

static void attention(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il)
{
	char nm[64];
	uint64_t q = (uint64_t)s->head_dim * s->n_head, kv = (uint64_t)s->head_dim * s->n_head_kv;
	if (f->variant & VC_FUSED) {
		BM("attn_qkv.weight", s->n_embd, q + 2 * kv);
		if (f->variant & VC_QKV_B)
			BV("attn_qkv.bias", q + 2 * kv);
	} else {
		BM("attn_q.weight", s->n_embd, q);
		BM("attn_k.weight", s->n_embd, kv);
		BM("attn_v.weight", s->n_embd, kv);
		if (f->variant & VC_QKV_B)
			qkv_bias(t, s, il);
	}
	if (f->variant & VC_QK_NORM2) { /* chameleon: per-head layer norms {head_dim, heads} */
		f32_tensor(t, (blkname(nm, sizeof(nm), il, "attn_q_norm.weight"), nm), 2, s->head_dim, s->n_head, 1);
		f32_tensor(t, (blkname(nm, sizeof(nm), il, "attn_k_norm.weight"), nm), 2, s->head_dim, s->n_head_kv, 1);
	}
	if (f->variant & VC_QK_NORM1) { /* plamo3: RMS norms per head {head_dim} */
		BV("attn_q_norm.weight", s->head_dim);
		BV("attn_k_norm.weight", s->head_dim);
	}
	if (f->variant & VC_TALKIE) { /* q's norm {1, heads}; the skip's scale */
		f32_tensor(t, (blkname(nm, sizeof(nm), il, "attn_q_norm.weight"), nm), 2, 1, s->n_head, 1);
		f32_tensor(t, (blkname(nm, sizeof(nm), il, "layer_output_scale.weight"), nm), 1, 1, 1, 1);
	}
	if (f->variant & VC_SUBNORM) /* bitnet: normed before attn_output */
		BV("attn_sub_norm.weight", q);
	BM("attn_output.weight", q, s->n_embd);
	if (f->variant & VC_WO_B)
		BV("attn_output.bias", s->n_embd);
}

static void feed_forward(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il)
{
	char nm[64];
	if (f->variant & VC_SWIGLU1) { /* up 2 x ff wide, split by SwiGLU */
		BM("ffn_up.weight", s->n_embd, 2ull * s->n_ff);
		BM("ffn_down.weight", s->n_ff, s->n_embd);
		return;
	}
	if (!(f->variant & VC_GELU)) {
		uint64_t ff = f->variant & VC_HALF_FF ? s->n_ff / 2 : s->n_ff;
		BM("ffn_gate.weight", s->n_embd, ff);
		BM("ffn_down.weight", ff, s->n_embd);
		BM("ffn_up.weight", s->n_embd, ff);
		if (f->variant & VC_FFN_B) { /* jais */
			BV("ffn_gate.bias", ff);
			BV("ffn_down.bias", s->n_embd);
			BV("ffn_up.bias", ff);
		}
		if (f->variant & VC_SUBNORM) /* bitnet: normed before ffn_down */
			BV("ffn_sub_norm.weight", ff);
		return;
	}
	BM("ffn_up.weight", s->n_embd, s->n_ff);
	BM("ffn_down.weight", s->n_ff, s->n_embd);
	if (f->variant & VC_FFN_B) {
		BV("ffn_up.bias", s->n_ff);
		BV("ffn_down.bias", s->n_embd);
	}
}

/* deci: layer 1 (of two or more) is DeciLM's "linear attention", no KV
 * heads and attn_output alone */
int deci_layer(const struct synth_spec *s, uint32_t il)
{
	return il == 1 && s->n_layer > 1 ? 'L' : 'A';
}

void classic_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	if (f->variant & VC_POS)
		mat(t, "position_embd.weight", s->n_embd, s->n_ctx);
	if (f->variant & VC_TOK_NORM) { /* bloom: the embeddings layer-normed */
		vec(t, "token_embd_norm.weight", s->n_embd);
		vec(t, "token_embd_norm.bias", s->n_embd);
	}
	if (f->variant & VC_OUT_B)
		vec(t, "output.bias", s->n_vocab);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		if (!(f->variant & VC_NO_NORM))
			norm(t, s, f, il, "attn_norm.weight", "attn_norm.bias");
		if (f->layer && f->layer(s, il) == 'L') /* deci: attn_output alone */
			BM("attn_output.weight", s->n_embd, s->n_embd);
		else
			attention(t, s, f, il);
		if (!(f->variant & (VC_NO_NORM | VC_NO_FFN_NORM)))
			norm(t, s, f, il, "ffn_norm.weight", "ffn_norm.bias");
		feed_forward(t, s, f, il);
		if (f->variant & VC_VISEXP) { /* cogvlm: the image tokens' experts, text's shapes */
			BM("vis_attn_qkv.weight", s->n_embd, 3ull * s->head_dim * s->n_head);
			BM("vis_attn_output.weight", (uint64_t)s->head_dim * s->n_head, s->n_embd);
			BM("vis_gate.weight", s->n_embd, s->n_ff);
			BM("vis_down.weight", s->n_ff, s->n_embd);
			BM("vis_up.weight", s->n_embd, s->n_ff);
		}
		if (f->variant & VC_POST) { /* tn(..._POST_NORM, il): named without ".weight" */
			BV("post_attention_norm", s->n_embd);
			BV("post_ffw_norm", s->n_embd);
		}
	}
}
