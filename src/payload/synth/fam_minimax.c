/* MiniMax-01 (src/models/minimax-01.cpp): lightning (linear) attention
 * layers, their state a head x head matrix per head, and softmax
 * attention every `interval`-th layer (full_attention_interval); in every
 * layer softmax-routed experts ff wide, and the residuals scaled by
 * residual_scale. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

static void mm01_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	/* three lightning layers, then softmax attention (the last) */
	s->interval = 4;
	moe_defaults(s, 4, 2, 0);
}

static int mm01_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (!s->interval || !s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert)
		return errorf(err, "minimax-01 needs interval > 0 and experts >= experts_used > 0");
	return 0;
}

static void mm01_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	/* the engine's default interval is 8: the key is always written */
	akey_u32(w, s, "full_attention_interval", s->interval);
	akey_f32(w, s, "residual_scale", 1.0f); /* required */
	keys_experts(w, s, 0);			/* the experts are feed_forward_length wide */
}

/* A lightning layer's mixer: q, k and v in one projection, the output's
 * norm and its gate, the output projection. */
static void lightning(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t q = (uint64_t)s->head_dim * s->n_head;
	BM("attn_qkv.weight", s->n_embd, 3 * q);
	BV("attn_norm_2.weight", q);
	BM("attn_gate.weight", s->n_embd, q);
	BM("attn_output.weight", q, s->n_embd);
}

/* Every interval-th layer softmax attention (llama's q, k and v), the
 * others lightning; softmax-routed experts ff wide in each. */
static void mm01_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval)
			lightning(t, s, il);
		else
			qkv(t, s, il, 1);
		BV("ffn_norm.weight", s->n_embd);
		router(t, s, il);
		expert_ffn(t, s, il, s->n_ff);
	}
}

/* MiniMax-M3 (src/models/minimax-m3.cpp): minimax-m2's attention (q and k
 * normed per head, partial RoPE) over the MSA cache; dense SwiGLU-OAI
 * leading layers, then sigmoid-gated experts with a selection bias beside
 * a shared expert, and MiniMax sparse attention's indexer (one key head
 * per KV head, blocks of MM3_IDX_BLOCK positions). */
#define MM3_IDX_DIM   64
#define MM3_IDX_BLOCK 64

static void mm3_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	moe_defaults(s, 8, 2, 128);
	s->n_lead_dense = 1;
	s->n_shared = 1;
	s->gating = 2;
	s->w_norm = 1;
	s->probs_b = 1;	   /* required */
	s->rope_dims = 32; /* partial rotary */
}

static int mm3_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (s->idx_heads && s->idx_heads != s->n_head_kv)
		return errorf(err, "minimax-m3's indexer has one head per KV head (idx_heads = kv_heads)");
	if (s->rope_dims > MM3_IDX_DIM || !s->probs_b || s->gate_up)
		return errorf(err,
			      "minimax-m3 needs rope_dims <= %d (it ropes the indexer's keys), probs_b=1, gate_up=0",
			      MM3_IDX_DIM);
	return moe_validate(s, MV_GATING, err);
}

static void mm3_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	keys_moe_experts(w, s);
	keys_moe_routing(w, s);
	akey_u32(w, s, "attention.indexer.head_count", s->n_head_kv);
	akey_u32(w, s, "attention.indexer.key_length", MM3_IDX_DIM);
	akey_u32(w, s, "attention.indexer.top_k", s->idx_top_k ? s->idx_top_k : 4);
	akey_u32(w, s, "attention.indexer.block_size", MM3_IDX_BLOCK);
	akey_u32(w, s, "attention.indexer.local_blocks", 1);
}

static void mm3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		attn_block(t, s, il, ATTN_QK_NORM);
		if (il < s->n_lead_dense) {
			ffn(t, s, il);
			continue;
		}
		moe_block(t, s, il);
		BM("indexer.q_proj.weight", s->n_embd, (uint64_t)s->n_head_kv * MM3_IDX_DIM);
		BM("indexer.k_proj.weight", s->n_embd, MM3_IDX_DIM);
		BV("indexer.q_norm.weight", MM3_IDX_DIM);
		BV("indexer.k_norm.weight", MM3_IDX_DIM);
	}
}

/* The row's hooks: minimax-01's, or minimax-m3's (V_MM3). */
void minimax_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(f->variant & V_MM3 ? mm3_defaults : mm01_defaults)(s, f);
}

int minimax_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	return (f->variant & V_MM3 ? mm3_validate : mm01_validate)(s, f, err);
}

void minimax_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(f->variant & V_MM3 ? mm3_keys : mm01_keys)(w, s, f);
}

void minimax_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(f->variant & V_MM3 ? mm3_tensors : mm01_tensors)(t, s, f);
}
