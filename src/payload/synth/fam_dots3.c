/* dots3note (src/models/dots3note.cpp): deepseek32's absorbed MLA over a
 * q latent, but a sliding window on all but the last of each swa_pattern
 * layers, whose latent (kv_lora_swa) and key head (head_dim_swa) are
 * their own (and, set, their heads and value head); the lightning indexer on the full layers only
 * (attention.indexer.types); the shared rope key normed (attn_k_norm);
 * the attention's output gated per head by a sigmoid (attn_gate) before
 * attn_output; dense lead layers, then sigmoid experts with a selection
 * bias beside the shared ones. An MTP block (nextn=1) has the window's
 * attention and a dense FFN; the engine skips it (TENSOR_SKIP: it has no
 * graph for it). */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* the lightning indexer's key length, as fam_mla.c writes deepseek32's */
#define DOTS3_IDX_DIM 64

static int dots3_full(const struct synth_spec *s, uint32_t il)
{
	return il < s->n_layer && il % s->swa_pattern == s->swa_pattern - 1;
}

static uint32_t lora_swa(const struct synth_spec *s)
{
	return s->kv_lora_swa ? s->kv_lora_swa : s->kv_lora;
}

static uint32_t dv_swa(const struct synth_spec *s)
{
	return s->head_dim_v_swa ? s->head_dim_v_swa : s->head_dim_v;
}

void dots3_defaults(struct synth_spec *s, const struct synth_family *f)
{
	ds2_defaults(s, f);
	s->n_swa = 128;
	s->swa_pattern = 2; /* 0 and 2 slide, 1 and 3 full */
	s->kv_lora_swa = 32;
	s->head_dim_swa = 40; /* key_length_mla_swa: 24 without rope + 16 with */
}

int dots3_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (!s->n_swa || s->swa_pattern < 2)
		return errorf(err, "dots3note needs swa > 0 and swa_pattern >= 2 (a window and full layers)");
	if (s->head_dim_swa <= s->rope_dims || !s->probs_b)
		return errorf(err, "dots3note needs head_dim_swa > rope_dims (the window's key head) and probs_b=1");
	return moe_validate(s, MV_GATING | MV_DS2 | MV_DS32, err);
}

void dots3_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	char k[96];
	(void)f;
	keys_moe_experts(w, s);
	keys_moe_routing(w, s);
	akey_u32(w, s, "attention.q_lora_rank", s->q_lora);
	akey_u32(w, s, "attention.kv_lora_rank", s->kv_lora);
	akey_u32(w, s, "attention.key_length_mla", s->head_dim);
	akey_u32(w, s, "attention.value_length_mla", s->head_dim_v);
	/* the window's MLA: its cache row is kv_lora_swa + rope */
	akey_u32(w, s, "attention.kv_lora_rank_swa", lora_swa(s));
	akey_u32(w, s, "attention.key_length_mla_swa", s->head_dim_swa);
	akey_u32(w, s, "attention.value_length_mla_swa", dv_swa(s));
	akey_u32(w, s, "attention.key_length_swa", lora_swa(s) + s->rope_dims);
	akey_u32(w, s, "attention.value_length_swa", lora_swa(s));
	window_per_layer(w, s);
	akey_f32(w, s, "rope.freq_base_swa", 10000.0f);
	akey_u32(w, s, "attention.indexer.head_count", s->idx_heads ? s->idx_heads : s->n_head);
	akey_u32(w, s, "attention.indexer.key_length", DOTS3_IDX_DIM);
	akey_u32(w, s, "attention.indexer.top_k", s->idx_top_k ? s->idx_top_k : 256);
	akey(k, sizeof(k), s, "attention.indexer.types");
	gw_arr_begin(w, k, GGUF_I32, s->n_layer);
	for (uint32_t il = 0; il < s->n_layer; il++)
		gw_arr_i32(w, dots3_full(s, il));
}

/* A layer's attention: the MLA projections at its own latent and key
 * head, the rope key's norm, the head-wise gate, the indexer where full */
static void dots3_attention(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	int full = dots3_full(s, il);
	uint32_t lora = full ? s->kv_lora : lora_swa(s), dk = full ? s->head_dim : s->head_dim_swa;
	uint32_t dv = full ? s->head_dim_v : dv_swa(s), h = full || !s->n_head_swa ? s->n_head : s->n_head_swa;
	uint64_t nope = dk - s->rope_dims;
	BV("attn_q_a_norm.weight", s->q_lora);
	BV("attn_kv_a_norm.weight", lora);
	BV("attn_k_norm.weight", s->rope_dims);
	BM("attn_q_a.weight", s->n_embd, s->q_lora);
	BM("attn_q_b.weight", s->q_lora, (uint64_t)h * dk);
	BM("attn_kv_a_mqa.weight", s->n_embd, lora + s->rope_dims);
	expert_stack(t, il, "attn_k_b.weight", nope, lora, h);
	expert_stack(t, il, "attn_v_b.weight", lora, dv, h);
	BM("attn_output.weight", (uint64_t)h * dv, s->n_embd);
	BM("attn_gate.weight", s->n_embd, h);
	if (!full)
		return;
	uint32_t ih = s->idx_heads ? s->idx_heads : s->n_head;
	BV("indexer.k_norm.weight", DOTS3_IDX_DIM);
	BV("indexer.k_norm.bias", DOTS3_IDX_DIM);
	BM("indexer.proj.weight", s->n_embd, ih);
	BM("indexer.attn_k.weight", s->n_embd, DOTS3_IDX_DIM);
	BM("indexer.attn_q_b.weight", s->q_lora, (uint64_t)ih * DOTS3_IDX_DIM);
}

void dots3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	(void)f;
	uint32_t n = s->n_layer + (s->mtp_tensors ? s->n_nextn : 0);
	for (uint32_t il = 0; il < n; il++) {
		BV("attn_norm.weight", s->n_embd);
		dots3_attention(t, s, il);
		BV("ffn_norm.weight", s->n_embd);
		if (il < s->n_lead_dense || il >= s->n_layer)
			ffn(t, s, il);
		else
			moe_block(t, s, il);
		if (il >= s->n_layer)
			nextn_head(t, s, il);
	}
}
