/* DeepSeek-V4 (src/models/deepseek4.cpp): one K-only head per layer
 * (attn_kv, normed, partly rotated) over q's latent, attention sinks, a
 * grouped low-rank output projection (attn_output_a per group, then
 * attn_output_b), four hyper-connection streams mixed before and after
 * each half (hc_attn_*, hc_ffn_*, output_hc_*), compressed KV layers (a
 * compressor per layer of ratio 4, CSA, with a lightning indexer and its
 * own compressor, or 128, HCA), sqrt-softplus experts (hash-routed by
 * token in the leading layers) beside a shared one. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

#define DS4_HC	     4	 /* hyper-connection streams: the graph asserts 4 */
#define DS4_IDX_DIM  64	 /* the indexer's key length (its cache's row) */
#define DS4_IDX_TOPK 512 /* cells the indexer keeps a token */

/* A layer's compression ratio: raw_layers uncompressed, then CSA (4) and
 * HCA (128) in turn. */
uint32_t ds4_ratio(const struct synth_spec *s, uint32_t il)
{
	if (il < s->raw_layers)
		return 0;
	return (il - s->raw_layers) % 2 ? 128 : 4;
}

void ds4_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->head_dim = 128;
	s->rope_dims = 64;
	s->n_head_kv = 1;
	s->q_lora = 64;
	s->o_groups = 2;
	s->o_lora = 32;
	s->n_swa = 128;
	s->raw_layers = 1;
	s->hash_layers = 1;
	s->n_expert = 8;
	s->n_expert_used = 2;
	s->n_shared = 1;
	s->n_ff_exp = 128;
	s->gating = 4;
	s->w_norm = 1;
	s->w_scale10 = 15;
}

int ds4_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (s->n_head_kv != 1 || !s->q_lora || s->gating != 4 || !s->w_scale10)
		return errorf(err, "deepseek4 has one K head (kv_heads=1), a q latent (q_lora > 0), sqrt-softplus "
				   "gating (gating=4) and an expert weight scale (w_scale > 0)");
	if (!s->o_groups || !s->o_lora || s->n_head % s->o_groups)
		return errorf(err, "deepseek4's output groups (o_groups=%u) must divide heads (%u), o_lora > 0",
			      s->o_groups, s->n_head);
	if (!s->n_swa || s->rope_dims > DS4_IDX_DIM || s->rope_dims >= s->head_dim)
		return errorf(err, "deepseek4 needs a window (swa > 0) and rope_dims below head_dim and at most %d",
			      DS4_IDX_DIM);
	if (s->hash_layers > s->n_layer || s->raw_layers > s->n_layer)
		return errorf(err, "hash_layers and raw_layers must not exceed layers (%u)", s->n_layer);
	return moe_validate(s, MV_GATING, err);
}

void ds4_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	keys_moe_experts(w, s);
	akey_u32(w, s, "expert_gating_func", s->gating);
	akey_bool(w, s, "expert_weights_norm", s->w_norm != 0);
	akey_f32(w, s, "expert_weights_scale", (float)s->w_scale10 / 10.0f);
	akey_f32(w, s, "swiglu_clamp_exp", 10.0f);
	akey_u32(w, s, "attention.q_lora_rank", s->q_lora);
	akey_u32(w, s, "attention.sliding_window", s->n_swa);
	akey_u32(w, s, "attention.indexer.head_count", s->idx_heads ? s->idx_heads : s->n_head);
	akey_u32(w, s, "attention.indexer.key_length", DS4_IDX_DIM);
	akey_u32(w, s, "attention.indexer.top_k", s->idx_top_k ? s->idx_top_k : DS4_IDX_TOPK);
	akey_u32(w, s, "attention.output_group_count", s->o_groups);
	akey_u32(w, s, "attention.output_lora_rank", s->o_lora);
	akey_f32(w, s, "attention.compress_rope_freq_base", 160000.0f);
	akey_u32(w, s, "hyper_connection.count", DS4_HC);
	akey_u32(w, s, "hyper_connection.sinkhorn_iterations", 20);
	akey_f32(w, s, "hyper_connection.epsilon", 1e-6f);
	akey_u32(w, s, "hash_layer_count", s->hash_layers);
	char k[96];
	akey(k, sizeof(k), s, "attention.compress_ratios");
	gw_arr_begin(w, k, GGUF_I32, s->n_layer);
	for (uint32_t il = 0; il < s->n_layer; il++)
		gw_arr_i32(w, (int32_t)ds4_ratio(s, il));
}

/* A hyper-connection mixer: fn [hc x embd, mix], base [mix], scale [n]. */
static void hc_mixer(struct tw *t, const char *fn, const char *base, const char *scale, uint64_t hc_dim, uint64_t mix,
		     uint64_t n_scale)
{
	f32_tensor(t, fn, 2, hc_dim, mix, 1);
	f32_tensor(t, base, 1, mix, 1, 1);
	f32_tensor(t, scale, 1, n_scale, 1, 1);
}

/* A compressor (attn_compressor_* or indexer_compressor_*): kv and gate
 * coff x dim wide, the position embedding [coff x dim, ratio], the norm. */
static void compressor(struct tw *t, uint32_t il, const char *pre, uint64_t embd, uint64_t dim, uint64_t coff,
		       uint64_t ratio)
{
	char nm[64], sfx[48];
	snprintf(sfx, sizeof(sfx), "%s_kv.weight", pre);
	BM(sfx, embd, coff * dim);
	snprintf(sfx, sizeof(sfx), "%s_gate.weight", pre);
	BM(sfx, embd, coff * dim);
	snprintf(sfx, sizeof(sfx), "%s_ape.weight", pre);
	blkname(nm, sizeof(nm), il, sfx);
	f32_tensor(t, nm, 2, coff * dim, ratio, 1);
	snprintf(sfx, sizeof(sfx), "%s_norm.weight", pre);
	BV(sfx, dim);
}

static void ds4_attention(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t qk = (uint64_t)s->n_head * s->head_dim;
	BV("attn_norm.weight", s->n_embd);
	BV("attn_sinks.weight", s->n_head);
	BM("attn_q_a.weight", s->n_embd, s->q_lora);
	BV("attn_q_a_norm.weight", s->q_lora);
	BM("attn_q_b.weight", s->q_lora, qk);
	BM("attn_kv.weight", s->n_embd, s->head_dim);
	BV("attn_kv_a_norm.weight", s->head_dim);
	BM("attn_output_a.weight", qk / s->o_groups, (uint64_t)s->o_lora * s->o_groups);
	BM("attn_output_b.weight", (uint64_t)s->o_lora * s->o_groups, s->n_embd);
	uint32_t ratio = ds4_ratio(s, il);
	if (!ratio)
		return;
	compressor(t, il, "attn_compressor", s->n_embd, s->head_dim, ratio == 4 ? 2 : 1, ratio);
	if (ratio != 4)
		return;
	uint32_t ih = s->idx_heads ? s->idx_heads : s->n_head;
	BM("indexer.proj.weight", s->n_embd, ih);
	BM("indexer.attn_q_b.weight", s->q_lora, (uint64_t)ih * DS4_IDX_DIM);
	compressor(t, il, "indexer_compressor", s->n_embd, DS4_IDX_DIM, 2, ratio);
}

void ds4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	uint64_t hc_dim = (uint64_t)DS4_HC * s->n_embd, mix = (2 + DS4_HC) * DS4_HC;
	hc_mixer(t, "output_hc_fn.weight", "output_hc_base.weight", "output_hc_scale.weight", hc_dim, DS4_HC, 1);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		ds4_attention(t, s, il);
		char fn[64], base[64], scale[64];
		static const char *const half[] = {"hc_attn", "hc_ffn"};
		for (int h = 0; h < 2; h++) {
			char sfx[32];
			snprintf(sfx, sizeof(sfx), "%s_fn.weight", half[h]);
			blkname(fn, sizeof(fn), il, sfx);
			snprintf(sfx, sizeof(sfx), "%s_base.weight", half[h]);
			blkname(base, sizeof(base), il, sfx);
			snprintf(sfx, sizeof(sfx), "%s_scale.weight", half[h]);
			blkname(scale, sizeof(scale), il, sfx);
			hc_mixer(t, fn, base, scale, hc_dim, mix, 3);
		}
		router(t, s, il);
		if (il < s->hash_layers) { /* the expert ids of each token, i32 */
			uint64_t ne[2] = {s->n_expert_used, s->n_vocab};
			blkname(nm, sizeof(nm), il, "ffn_gate_tid2eid.weight");
			gw_tensor(t->w, nm, 2, ne, 26, ne[0] * ne[1] * 4);
		} else {
			BV("exp_probs_b.bias", s->n_expert);
		}
		BV("ffn_norm.weight", s->n_embd);
		expert_ffn(t, s, il, s->n_ff_exp);
		shexp(t, s, il, (uint64_t)s->n_ff_exp * s->n_shared);
	}
}
