/* Gemma 4 (src/models/gemma4.cpp): a per-layer window pattern (every
 * swa_pattern-th layer full), full layers with their own head size and KV
 * heads, K equal to V on the full layers (no attn_v: the engine stores K's
 * projection as V too, law M11), the last shared_kv layers without K or V
 * of their own (they read the cache of the last full and window layers
 * before them), and with experts > 0 a MoE beside the dense FFN. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* Gemma4-26B-A4B's shape in small: 5 window layers to 1 full, the full
 * layers with wider heads, fewer KV heads and K equal to V; the experts
 * gpt-oss's (8 of 256 wide, 2 used) */
void gemma4_defaults(struct synth_spec *s, const struct synth_family *f)
{
	oss_defaults(s, f);
	s->n_layer = 6;
	s->n_swa = 512;
	s->swa_pattern = 3;
	s->head_dim = 128;
	s->n_head_kv = 1;
	s->head_dim_swa = 64;
	s->kv_heads_swa = 2;
	s->kv_eq = 1;
}

static int swa_layer_g4(const struct synth_spec *s, uint32_t il)
{
	return il % s->swa_pattern < s->swa_pattern - 1;
}

int gemma4_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (!s->n_swa || s->swa_pattern < 2)
		return errorf(err, "gemma4 needs a sliding window (swa > 0) and swa_pattern >= 2");
	if (!s->head_dim_swa || !s->kv_heads_swa || s->n_head % s->kv_heads_swa)
		return errorf(err, "gemma4: heads (%u) must be a multiple of kv_heads_swa (%u)", s->n_head,
			      s->kv_heads_swa);
	if (s->rope_dims != s->head_dim)
		return errorf(err, "gemma4 requires rope_dims == head_dim");
	if (s->n_expert && (!s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert))
		return errorf(err, "gemma4 with experts needs experts >= experts_used > 0 and ff_exp > 0");
	if (s->shared_kv) {
		/* the engine's reuse map: a shared layer reads layer
		 * n_kv - 1 (full) or n_kv - 2 (window) */
		uint32_t n_kv = s->n_layer > s->shared_kv ? s->n_layer - s->shared_kv : 0;
		if (n_kv < 2 || swa_layer_g4(s, n_kv - 1) || !swa_layer_g4(s, n_kv - 2))
			return errorf(
			    err,
			    "gemma4: shared_kv=%u leaves layer %u as the last with a cache; it must be a full "
			    "layer after a window layer",
			    s->shared_kv, n_kv ? n_kv - 1 : 0);
	}
	return 0;
}

void gemma4_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char k[96];
	akey(k, sizeof(k), s, "attention.head_count_kv");
	gw_arr_begin(w, k, GGUF_I32, s->n_layer);
	for (uint32_t il = 0; il < s->n_layer; il++)
		gw_arr_i32(w, (int32_t)(swa_layer_g4(s, il) ? s->kv_heads_swa : s->n_head_kv));
	akey_u32(w, s, "attention.sliding_window", s->n_swa);
	akey(k, sizeof(k), s, "attention.sliding_window_pattern");
	gw_arr_begin(w, k, GGUF_BOOL, s->n_layer);
	for (uint32_t il = 0; il < s->n_layer; il++)
		gw_arr_bool(w, swa_layer_g4(s, il));
	akey_u32(w, s, "attention.key_length_swa", s->head_dim_swa);
	akey_u32(w, s, "attention.value_length_swa", s->head_dim_swa);
	akey_u32(w, s, "rope.dimension_count_swa", s->head_dim_swa);
	akey_u32(w, s, "embedding_length_per_layer_input", s->per_layer);
	if (s->shared_kv) {
		akey_u32(w, s, "attention.shared_kv_layers", s->shared_kv);
	}
	if (s->n_expert) {
		akey_u32(w, s, "expert_count", s->n_expert);
		akey_u32(w, s, "expert_used_count", s->n_expert_used);
		akey_u32(w, s, "expert_feed_forward_length", s->n_ff_exp);
	}
}

void gemma4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	uint32_t n_kv = s->n_layer - s->shared_kv;
	int freqs = 0;
	if (s->per_layer) {
		mat(t, "per_layer_token_embd.weight", (uint64_t)s->per_layer * s->n_layer, s->n_vocab);
		mat(t, "per_layer_model_proj.weight", s->n_embd, (uint64_t)s->per_layer * s->n_layer);
		vec(t, "per_layer_proj_norm.weight", s->per_layer);
	}
	for (uint32_t il = 0; il < s->n_layer; il++) {
		int swa = swa_layer_g4(s, il);
		uint64_t hd = swa ? s->head_dim_swa : s->head_dim;
		uint64_t kv = hd * (swa ? s->kv_heads_swa : s->n_head_kv);
		BV("attn_norm.weight", s->n_embd);
		BM("attn_q.weight", s->n_embd, hd * s->n_head);
		BV("attn_q_norm.weight", hd);
		if (il < n_kv) {
			BM("attn_k.weight", s->n_embd, kv);
			BV("attn_k_norm.weight", hd);
			if (swa || !s->kv_eq)
				BM("attn_v.weight", s->n_embd, kv);
		}
		BM("attn_output.weight", hd * s->n_head, s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		if (!swa && !freqs) { /* one proportional-rope table, shared */
			vec(t, "rope_freqs.weight", hd / 2);
			freqs = 1;
		}
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
		BV("post_ffw_norm.weight", s->n_embd);
		if (s->per_layer) {
			BM("inp_gate.weight", s->n_embd, s->per_layer);
			BM("proj.weight", s->per_layer, s->n_embd);
			BV("post_norm.weight", s->n_embd);
		}
		if (!s->n_expert)
			continue;
		router(t, s, il);
		BV("ffn_gate_inp.scale", s->n_embd);
		BV("pre_ffw_norm_2.weight", s->n_embd);
		BV("post_ffw_norm_1.weight", s->n_embd);
		BV("post_ffw_norm_2.weight", s->n_embd);
		expert_ffn(t, s, il, s->n_ff_exp);
	}
}
