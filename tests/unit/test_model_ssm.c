/* The engine's memory layout per state-carrying family (model.c's
 * recr_rules and recurrent_dims, mirroring src/models/<arch>.cpp
 * load_arch_hparams, src/llama-hparams.cpp n_embd_r/n_embd_s and
 * src/llama-model.cpp create_memory's layer filters). Figures are worked
 * by hand from the engine's formulas. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "payload/gguf.h"
#include "payload/gguf_write.h"
#include "payload/model.h"
#include "tap.h"

static struct model *build(struct gguf_writer *w, char **err)
{
	uint64_t len;
	char *h = gw_header(w, &len);
	struct gguf *g = gguf_parse((const uint8_t *)h, (size_t)len, len + w->data_size, err);
	struct model *m = g ? model_from_gguf(g, err) : NULL;
	gguf_free(g);
	free(h);
	gw_release(w);
	return m;
}

static void base(struct gguf_writer *w, const char *arch, uint32_t blocks, uint32_t embd, uint32_t heads)
{
	char k[96];
	gw_init(w);
	gw_str(w, "general.architecture", arch);
	snprintf(k, sizeof(k), "%s.block_count", arch);
	gw_u32(w, k, blocks);
	snprintf(k, sizeof(k), "%s.context_length", arch);
	gw_u32(w, k, 8192);
	snprintf(k, sizeof(k), "%s.embedding_length", arch);
	gw_u32(w, k, embd);
	snprintf(k, sizeof(k), "%s.attention.head_count", arch);
	gw_u32(w, k, heads);
}

/* conv 4, inner 4096, state 128, groups 8, dt rank 64 */
static void ssm(struct gguf_writer *w, const char *arch)
{
	char k[96];
	static const char *names[] = {"conv_kernel", "inner_size", "state_size", "group_count", "time_step_rank"};
	static const uint32_t vals[] = {4, 4096, 128, 8, 64};
	for (int i = 0; i < 5; i++) {
		snprintf(k, sizeof(k), "%s.ssm.%s", arch, names[i]);
		gw_u32(w, k, vals[i]);
	}
}

static void u32_array(struct gguf_writer *w, const char *key, const int32_t *v, int n)
{
	gw_arr_begin(w, key, GGUF_U32, (uint64_t)n);
	for (int i = 0; i < n; i++)
		gw_arr_i32(w, v[i]);
}

/* "1010": which layers hold the flag */
static int layers(const uint8_t *flags, uint32_t n, const char *want)
{
	if (strlen(want) != n)
		return 0;
	for (uint32_t il = 0; il < n; il++)
		if ((flags[il] != 0) != (want[il] == '1'))
			return 0;
	return 1;
}

void test_model_ssm(void)
{
	struct gguf_writer w;
	struct model *m;
	char *err = NULL;
	/* mamba2: n_embd_r = (4 - 1) * (4096 + 2*8*128) = 18432, n_embd_s = 128 * 4096 */
	const uint64_t r_m2 = 18432, s_m2 = 524288;

	/* Falcon-H1: attention and SSM side by side in every layer (both
	 * filters of create_memory are always true). */
	base(&w, "falcon-h1", 3, 2048, 8);
	gw_u32(&w, "falcon-h1.attention.head_count_kv", 2);
	ssm(&w, "falcon-h1");
	m = build(&w, &err);
	ok(m && layers(m->has_rs, 3, "111") && layers(m->has_kv, 3, "111") && m->n_rs_layers == 3 &&
	       m->n_embd_r == r_m2 && m->n_embd_s == s_m2 && !m->state_unmirrored,
	   "falcon-h1: every layer holds KV and state (r %llu, s %llu)", m ? (unsigned long long)m->n_embd_r : 0,
	   m ? (unsigned long long)m->n_embd_s : 0);
	model_free(m);

	/* Nemotron-H: SSM layers have no KV heads and no FFN; attention layers
	 * have heads and no FFN; FFN-only layers hold neither. */
	base(&w, "nemotron_h", 4, 2048, 16);
	{
		static const int32_t kv[] = {0, 0, 8, 0}, ff[] = {0, 8192, 0, 8192};
		u32_array(&w, "nemotron_h.attention.head_count_kv", kv, 4);
		u32_array(&w, "nemotron_h.feed_forward_length", ff, 4);
	}
	ssm(&w, "nemotron_h");
	m = build(&w, &err);
	ok(m && layers(m->has_rs, 4, "1000") && layers(m->has_kv, 4, "0010") && m->n_rs_layers == 1,
	   "nemotron_h: state on the SSM layer, KV on the attention layer, nothing on FFN-only layers");
	model_free(m);

	/* Granite 4.0 hybrid: head_count_kv 0 marks the mamba2 layers. */
	base(&w, "granitehybrid", 4, 2048, 16);
	{
		static const int32_t kv[] = {0, 0, 0, 4};
		u32_array(&w, "granitehybrid.attention.head_count_kv", kv, 4);
	}
	ssm(&w, "granitehybrid");
	m = build(&w, &err);
	ok(m && layers(m->has_rs, 4, "1110") && layers(m->has_kv, 4, "0001") && m->n_embd_r == r_m2 &&
	       m->n_embd_s == s_m2 && !m->pure_recurrent,
	   "granitehybrid: mamba2 state on KV-less layers");
	model_free(m);

	/* RWKV7: a recurrent architecture; its heads never make a KV cache.
	 * n_embd_r = token_shift_count (default 2) * embd, n_embd_s = embd * head size. */
	base(&w, "rwkv7", 2, 2048, 32);
	gw_u32(&w, "rwkv7.wkv.head_size", 64);
	m = build(&w, &err);
	ok(m && m->pure_recurrent && layers(m->has_rs, 2, "11") && layers(m->has_kv, 2, "00") &&
	       m->n_embd_r == 2 * 2048 && m->n_embd_s == 2048 * 64,
	   "rwkv7: all state, no KV, r = 2 x embd, s = embd x head size");
	model_free(m);
	base(&w, "rwkv6", 2, 2048, 0);
	gw_u32(&w, "rwkv6.wkv.head_size", 64);
	gw_u32(&w, "rwkv6.token_shift_count", 3);
	m = build(&w, &err);
	ok(m && m->pure_recurrent && m->n_embd_r == 3 * 2048, "rwkv6: token_shift_count scales R");
	model_free(m);

	/* Mamba (v1): no groups: n_embd_r = 3 * inner. */
	base(&w, "mamba", 2, 1024, 0);
	gw_u32(&w, "mamba.ssm.conv_kernel", 4);
	gw_u32(&w, "mamba.ssm.inner_size", 2048);
	gw_u32(&w, "mamba.ssm.state_size", 16);
	gw_u32(&w, "mamba.ssm.time_step_rank", 64);
	m = build(&w, &err);
	ok(m && m->pure_recurrent && m->n_embd_r == 3 * 2048 && m->n_embd_s == 16 * 2048,
	   "mamba: r = (conv - 1) x inner, s = state x inner");
	model_free(m);

	/* LFM2: short conv state only (n_embd_s is 0), attention where KV heads. */
	base(&w, "lfm2", 4, 1024, 16);
	{
		static const int32_t kv[] = {0, 0, 8, 0};
		u32_array(&w, "lfm2.attention.head_count_kv", kv, 4);
	}
	gw_u32(&w, "lfm2.shortconv.l_cache", 3);
	m = build(&w, &err);
	ok(m && layers(m->has_rs, 4, "1101") && layers(m->has_kv, 4, "0010") && m->n_embd_r == 2 * 1024 &&
	       m->n_embd_s == 0,
	   "lfm2: r = embd x (l_cache - 1), no S");
	model_free(m);

	/* Kimi delta attention: r = 3 * (conv - 1) * heads * head_dim,
	 * s = head_dim^2 * heads. */
	base(&w, "kimi-linear", 2, 2048, 32);
	{
		static const int32_t kv[] = {0, 32};
		u32_array(&w, "kimi-linear.attention.head_count_kv", kv, 2);
	}
	gw_u32(&w, "kimi-linear.ssm.conv_kernel", 4);
	gw_u32(&w, "kimi-linear.kda.head_dim", 128);
	m = build(&w, &err);
	ok(m && layers(m->has_rs, 2, "10") && m->n_embd_r == 3ull * 3 * 32 * 128 && m->n_embd_s == 128ull * 128 * 32,
	   "kimi-linear: KDA state sizes");
	model_free(m);

	/* MiniMax-01: the linear-attention state is head x head per head;
	 * without full_attention_interval every 8th layer is softmax
	 * (src/models/minimax-01.cpp). */
	base(&w, "minimax-01", 8, 2048, 16);
	gw_u32(&w, "minimax-01.attention.head_count_kv", 16);
	gw_u32(&w, "minimax-01.attention.key_length", 128);
	m = build(&w, &err);
	ok(m && layers(m->has_rs, 8, "11111110") && m->n_embd_s == 128ull * 128 * 16, "minimax-01: s = head^2 x heads");
	model_free(m);

	/* qwen4exp's llama_memory_hybrid_idx is priced (plan.c): the interval
	 * layout, and the PLE layer's conv row of (kernel - 1) x n-gram x
	 * streams x embd floats. */
	base(&w, "qwen4exp", 4, 2048, 16);
	gw_u32(&w, "qwen4exp.attention.head_count_kv", 2);
	ssm(&w, "qwen4exp");
	gw_u32(&w, "qwen4exp.hyper_connection.count", 2);
	gw_u32(&w, "qwen4exp.hyper_connection.low_rank", 16);
	gw_u32(&w, "qwen4exp.attention.indexer.head_count", 2);
	gw_u32(&w, "qwen4exp.attention.indexer.key_length", 64);
	gw_u32(&w, "qwen4exp.attention.indexer.top_k", 64);
	gw_u32(&w, "qwen4exp.embedding_length_per_layer_input", 64);
	gw_arr_begin(&w, "qwen4exp.ple.layers", GGUF_U32, 1);
	gw_arr_i32(&w, 0);
	gw_u32(&w, "qwen4exp.ple.ngram_size", 3);
	gw_u32(&w, "qwen4exp.ple.heads_per_ngram", 2);
	gw_u32(&w, "qwen4exp.ple.conv_kernel", 4);
	m = build(&w, &err);
	ok(m && !m->state_unmirrored && layers(m->has_rs, 4, "1110") && m->ple_layer == 0 &&
	       m->ple_conv_state == 3ull * 3 * 2 * 2048 && m->ple_n_heads == 4,
	   "qwen4exp: priced, its PLE conv row sized");
	model_free(m);
	/* Memories zealot does not mirror are named, never guessed silently. */
	base(&w, "someday-ssm", 2, 2048, 0);
	ssm(&w, "someday-ssm");
	m = build(&w, &err);
	ok(m && m->state_unmirrored && m->n_rs_layers == 2, "an unknown recurrent architecture is priced and named");
	model_free(m);
	base(&w, "llama", 2, 2048, 16);
	m = build(&w, &err);
	ok(m && !m->state_unmirrored && m->n_rs_layers == 0 && layers(m->has_kv, 2, "11"), "llama: KV only");
	model_free(m);

	/* Phi-3: the engine reads the window and turns it off. */
	base(&w, "phi3", 3, 2048, 16);
	gw_u32(&w, "phi3.attention.sliding_window", 2047);
	m = build(&w, &err);
	ok(m && m->n_swa == 0 && m->n_kind[LAYER_SWA] == 0, "phi3: no sliding-window layers");
	model_free(m);
	free(err);
}
