/* qwen4exp (src/models/qwen4exp.cpp): qwen35moe's Gated DeltaNet hybrid
 * (a sigmoid output gate) with hyper-connections in place of the layer
 * norms (hc parallel residual streams, two low-rank mixers a layer and
 * one before the LM head, which carries the final norm), an n-gram hash
 * PLE on one recurrent layer, and QSA: the full-attention layers attend to
 * the top-k blocks of compress cells an indexer scores. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

#define Q4_NGRAM  3 /* ple.ngram_size */
#define Q4_PER	  2 /* ple.heads_per_ngram: (ngram - 1) x 2 = 4 heads */
#define Q4_HEADS  ((Q4_NGRAM - 1) * Q4_PER)
#define Q4_KERNEL 4   /* ple.conv_kernel */
#define Q4_HEAD_V 128 /* each PLE head's rows (ple.head_vocab_sizes) */

void qwen4_defaults(struct synth_spec *s, const struct synth_family *f)
{
	qwen35_defaults(s, f);
	s->n_nextn = s->mtp_tensors = 0; /* no MTP head */
	s->head_dim = 64;
	s->rope_dims = 64;
	s->hc = 2;
	s->hc_rank = 16;
	s->ple = s->n_embd / Q4_HEADS;
	s->compress = 4;
	s->idx_dim = 64;
	s->idx_heads = 2;
	s->idx_top_k = 64;
}

int qwen4_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (qwen35_validate(s, f, err))
		return -1;
	if (s->n_nextn)
		return errorf(err, "qwen4exp has no MTP head (nextn=0)");
	if (s->hc < 2 || !s->hc_rank)
		return errorf(err, "qwen4exp needs hc > 1 (hyper-connection streams) and hc_rank > 0");
	if (!s->idx_dim || !s->idx_heads || !s->idx_top_k || s->idx_dim < s->rope_dims)
		return errorf(err, "qwen4exp's indexer needs idx_heads, idx_top_k > 0 and idx_dim >= rope_dims (%u)",
			      s->rope_dims);
	if (s->ple && s->ple * Q4_HEADS != s->n_embd)
		return errorf(err, "qwen4exp's PLE gathers %d heads of ple into embd: ple must be embd / %d (%u)",
			      Q4_HEADS, Q4_HEADS, s->n_embd / Q4_HEADS);
	if (s->ple && s->interval < 2)
		return errorf(err, "qwen4exp's PLE sits on layer 0, which must be recurrent (interval >= 2)");
	return 0;
}

static void arr_u64(struct gguf_writer *w, const struct synth_spec *s, const char *suffix, uint64_t n, uint64_t first,
		    uint64_t step)
{
	char k[96];
	akey(k, sizeof(k), s, suffix);
	gw_arr_begin(w, k, GGUF_U64, n);
	for (uint64_t i = 0; i < n; i++)
		gw_arr_u64(w, first + i * step);
}

/* The n-gram hash PLE on layer 0 (load_arch_hparams' ple.* group). */
static void keys_ple(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	akey(k, sizeof(k), s, "ple.layers");
	gw_arr_begin(w, k, GGUF_U32, 1);
	gw_arr_i32(w, 0);
	akey_u32(w, s, "ple.ngram_size", Q4_NGRAM);
	akey_u32(w, s, "ple.heads_per_ngram", Q4_PER);
	akey_u32(w, s, "ple.conv_kernel", Q4_KERNEL);
	akey_u32(w, s, "ple.eos_token_id", TOK_EOT);
	akey_u32(w, s, "embedding_length_per_layer_input", s->ple);
	arr_u64(w, s, "ple.layer_multipliers", Q4_NGRAM, 1000003, 7919);
	arr_u64(w, s, "ple.head_offsets", Q4_HEADS, 0, Q4_HEAD_V);
	arr_u64(w, s, "ple.head_vocab_sizes", Q4_HEADS, Q4_HEAD_V, 0);
}

void qwen4_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	qwen35_keys(w, s, f);
	akey_u32(w, s, "hyper_connection.count", s->hc);
	akey_u32(w, s, "hyper_connection.low_rank", s->hc_rank);
	akey_u32(w, s, "attention.indexer.head_count", s->idx_heads);
	akey_u32(w, s, "attention.indexer.key_length", s->idx_dim);
	akey_u32(w, s, "attention.indexer.top_k", s->idx_top_k);
	if (s->compress)
		akey_u32(w, s, "attention.compress_ratios", s->compress);
	if (s->ple)
		keys_ple(w, s);
}

/* A hyper-connection mixer: its grouped norm, the low-rank gate and (but
 * the head's) the scatter weights. */
static void hc_mixer(struct tw *t, const struct synth_spec *s, uint32_t il, const char *which, int inject)
{
	char nm[64], sfx[48];
	uint64_t hc_dim = (uint64_t)s->hc * s->n_embd;
	snprintf(sfx, sizeof(sfx), "hc_%s_norm.weight", which);
	BV(sfx, hc_dim);
	snprintf(sfx, sizeof(sfx), "hc_%s_down.weight", which);
	BM(sfx, hc_dim, s->hc_rank);
	snprintf(sfx, sizeof(sfx), "hc_%s_up.weight", which);
	BM(sfx, s->hc_rank, hc_dim);
	if (inject) {
		snprintf(sfx, sizeof(sfx), "hc_%s_inject.weight", which);
		BM(sfx, hc_dim, s->hc);
	}
}

/* A full-attention layer: the gated query, q/k norms, the QSA indexer. */
static void attention(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	qkv(t, s, il, 2);
	BV("attn_q_norm.weight", s->head_dim);
	BV("attn_k_norm.weight", s->head_dim);
	BM("indexer.q_proj.weight", s->n_embd, (uint64_t)s->idx_heads * s->idx_dim);
	BM("indexer.k_proj.weight", s->n_embd, s->idx_dim);
	BV("indexer.q_norm.weight", s->idx_dim);
	BV("indexer.k_norm.weight", s->idx_dim);
}

static void ple_block(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t hc_dim = (uint64_t)s->hc * s->n_embd;
	BM("ple_key.weight", s->n_embd, hc_dim);
	BM("ple_value.weight", s->n_embd, s->n_embd);
	BV("ple_norm_key.weight", hc_dim);
	BV("ple_norm_query.weight", hc_dim);
	BV("ple_norm_conv.weight", hc_dim);
	blkname(nm, sizeof(nm), il, "ple_conv1d.weight");
	f32_tensor(t, nm, 2, Q4_KERNEL, hc_dim, 1);
}

void qwen4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	uint64_t hc_dim = (uint64_t)s->hc * s->n_embd;
	vec(t, "output_hc_norm.weight", hc_dim);
	mat(t, "output_hc_down.weight", hc_dim, s->hc_rank);
	mat(t, "output_hc_up.weight", s->hc_rank, hc_dim);
	if (s->ple)
		mat(t, "per_layer_token_embd.weight", s->ple, (uint64_t)Q4_HEADS * Q4_HEAD_V);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		hc_mixer(t, s, il, "attn", 1);
		hc_mixer(t, s, il, "ffn", 1);
		if ((il + 1) % s->interval == 0)
			attention(t, s, il);
		else
			qwen35_delta_net(t, s, f, il);
		if (s->ple && il == 0)
			ple_block(t, s, il);
		qwen35_ffn(t, s, f, il);
	}
}
