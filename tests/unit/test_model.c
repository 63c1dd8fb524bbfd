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

static void base(struct gguf_writer *w, const char *arch, uint32_t blocks)
{
	char k[96];
	gw_init(w);
	gw_str(w, "general.architecture", arch);
	snprintf(k, sizeof(k), "%s.block_count", arch);
	gw_u32(w, k, blocks);
	snprintf(k, sizeof(k), "%s.context_length", arch);
	gw_u32(w, k, 262144);
	snprintf(k, sizeof(k), "%s.embedding_length", arch);
	gw_u32(w, k, 4096);
	snprintf(k, sizeof(k), "%s.attention.head_count", arch);
	gw_u32(w, k, 16);
}

static void ssm(struct gguf_writer *w, const char *arch)
{
	char k[96];
	static const char *names[] = {"conv_kernel", "inner_size", "state_size", "group_count", "time_step_rank"};
	static const uint32_t vals[] = {4, 4096, 128, 16, 32};
	for (int i = 0; i < 5; i++) {
		snprintf(k, sizeof(k), "%s.ssm.%s", arch, names[i]);
		gw_u32(w, k, vals[i]);
	}
}

static int kinds(const struct model *m, const char *want)
{
	static const char letters[] = "ASRN";
	if (strlen(want) != m->n_layer_all)
		return 0;
	for (uint32_t il = 0; il < m->n_layer_all; il++)
		if (letters[m->kind[il]] != want[il])
			return 0;
	return 1;
}

void test_model(void)
{
	struct gguf_writer w;
	char *err = NULL;
	struct model *m;

	/* The seeds' 9B: 33 blocks, interval 4, one MTP block. */
	base(&w, "qwen35", 33);
	gw_u32(&w, "qwen35.attention.head_count_kv", 4);
	gw_u32(&w, "qwen35.attention.key_length", 256);
	gw_u32(&w, "qwen35.attention.value_length", 256);
	gw_u32(&w, "qwen35.full_attention_interval", 4);
	gw_u32(&w, "qwen35.nextn_predict_layers", 1);
	ssm(&w, "qwen35");
	uint64_t ne[1] = {4096};
	gw_tensor(&w, "blk.32.nextn.enorm.weight", 1, ne, 0, 4096 * 4);
	gw_tensor(&w, "blk.32.nextn.hnorm.weight", 1, ne, 0, 4096 * 4);
	w.data_size = 0; /* header-only buffer: data bounded by file size below */
	{
		uint64_t len;
		char *h = gw_header(&w, &len);
		struct gguf *g = gguf_parse((const uint8_t *)h, (size_t)len, len + 65536, &err);
		m = g ? model_from_gguf(g, &err) : NULL;
		gguf_free(g);
		free(h);
		gw_release(&w);
	}
	ok(m != NULL, "9B geometry derives (%s)", err ? err : "ok");
	if (m) {
		ok(m->n_kind[LAYER_ATTENTION] == 8 && m->n_kind[LAYER_RECURRENT] == 24 && m->n_kind[LAYER_NEXTN] == 1,
		   "9B: 8 attention + 24 recurrent + 1 nextn");
		ok(kinds(m, "RRRARRRARRRARRRARRRARRRARRRARRRAN"), "9B: every 4th trunk layer attends");
		ok(model_n_embd_k_gqa(m, 3) == 1024 && model_n_embd_v_gqa(m, 3) == 1024, "9B: 4 KV heads x 256 = 1024");
		ok(m->n_embd_r == 24576 && m->n_embd_s == 524288, "9B: n_embd_r 24576, n_embd_s 524288 (law M04)");
		/* (24576 + 524288) * 4 B * 24 layers = 50.25 MiB per cell */
		ok((m->n_embd_r + m->n_embd_s) * 4 * 24 == (uint64_t)(50.25 * 1024 * 1024),
		   "9B: 50.25 MiB state per cell");
		ok(m->mtp_tensors == 2 && m->mtp_blocks == 1 && m->n_nextn == 1, "9B: MTP declared and present");
		model_free(m);
	}

	/* Interval absent on a model with recurrent keys: engine default 4. */
	base(&w, "qwen3next", 8);
	gw_u32(&w, "qwen3next.attention.head_count_kv", 2);
	ssm(&w, "qwen3next");
	m = build(&w, &err);
	ok(m && kinds(m, "RRRARRRA") && strstr(m->recurrent_source, "default"),
	   "default interval 4 when the key is absent");
	model_free(m);

	/* Explicit recurrent_layers wins over the interval. */
	base(&w, "qwen35", 4);
	gw_u32(&w, "qwen35.attention.head_count_kv", 2);
	gw_u32(&w, "qwen35.full_attention_interval", 4);
	gw_arr_begin(&w, "qwen35.attention.recurrent_layers", GGUF_BOOL, 4);
	gw_arr_bool(&w, 0);
	gw_arr_bool(&w, 1);
	gw_arr_bool(&w, 0);
	gw_arr_bool(&w, 1);
	ssm(&w, "qwen35");
	m = build(&w, &err);
	ok(m && kinds(m, "ARAR"), "recurrent_layers array decides");
	model_free(m);

	/* Jamba-style: head_count_kv array, 0 where the layer is recurrent. */
	base(&w, "jamba", 4);
	gw_arr_begin(&w, "jamba.attention.head_count_kv", GGUF_U32, 4);
	gw_arr_i32(&w, 0);
	gw_arr_i32(&w, 0);
	gw_arr_i32(&w, 8);
	gw_arr_i32(&w, 0);
	ssm(&w, "jamba");
	m = build(&w, &err);
	ok(m && kinds(m, "RRAR"), "zero KV heads mark recurrent layers");
	model_free(m);

	/* Pure Mamba: no attention heads at all. */
	gw_init(&w);
	gw_str(&w, "general.architecture", "mamba2");
	gw_u32(&w, "mamba2.block_count", 3);
	gw_u32(&w, "mamba2.context_length", 1048576);
	gw_u32(&w, "mamba2.embedding_length", 2048);
	gw_u32(&w, "mamba2.attention.head_count", 0);
	ssm(&w, "mamba2");
	m = build(&w, &err);
	ok(m && kinds(m, "RRR"), "no heads + ssm keys: all recurrent");
	model_free(m);

	/* A plain dense model has no recurrent or swa layers. */
	base(&w, "llama", 3);
	gw_u32(&w, "llama.attention.head_count_kv", 8);
	m = build(&w, &err);
	ok(m && kinds(m, "AAA") && model_n_embd_k_gqa(m, 0) == 8 * 256, "dense GQA: head size from embd/heads");
	model_free(m);

	/* Sliding window: pattern 6 from the key, and the engine default. */
	base(&w, "gemma3", 7);
	gw_u32(&w, "gemma3.attention.sliding_window", 1024);
	gw_u32(&w, "gemma3.attention.sliding_window_pattern", 3);
	m = build(&w, &err);
	ok(m && kinds(m, "SSASSAS") && m->n_swa == 1024, "swa pattern 3 from metadata");
	model_free(m);
	base(&w, "gemma3", 7);
	gw_u32(&w, "gemma3.attention.sliding_window", 1024);
	m = build(&w, &err);
	ok(m && kinds(m, "SSSSSAS") && strstr(m->swa_source, "default"), "gemma3 default period 6 is said");
	model_free(m);
	base(&w, "gemma4", 4);
	gw_u32(&w, "gemma4.attention.sliding_window", 512);
	gw_arr_begin(&w, "gemma4.attention.sliding_window_pattern", GGUF_BOOL, 4);
	gw_arr_bool(&w, 1);
	gw_arr_bool(&w, 0);
	gw_arr_bool(&w, 1);
	gw_arr_bool(&w, 0);
	gw_u32(&w, "gemma4.attention.key_length", 512);
	gw_u32(&w, "gemma4.attention.key_length_swa", 256);
	gw_u32(&w, "gemma4.attention.value_length", 512);
	gw_u32(&w, "gemma4.attention.value_length_swa", 256);
	gw_u32(&w, "gemma4.attention.head_count_kv", 2);
	m = build(&w, &err);
	ok(m && kinds(m, "SASA"), "per-layer swa pattern array");
	ok(m && model_n_embd_k_gqa(m, 0) == 512 && model_n_embd_k_gqa(m, 1) == 1024,
	   "swa layers use the swa head size");
	model_free(m);

	/* Errors name the key. */
	base(&w, "llama", 3);
	gw_arr_begin(&w, "llama.attention.head_count_kv", GGUF_U32, 2);
	gw_arr_i32(&w, 8);
	gw_arr_i32(&w, 8);
	free(err);
	err = NULL;
	m = build(&w, &err);
	ok(!m && err && strstr(err, "llama.attention.head_count_kv") && strstr(err, "2 entries"),
	   "short per-layer array refused: %s", tap_s(err));
	gw_init(&w);
	gw_str(&w, "general.architecture", "llama");
	m = build(&w, &err);
	{
		int c_ = !m && err && strstr(err, "llama.block_count");
		ok(c_, "missing block_count named: %s", tap_s(err));
	}
	gw_init(&w);
	gw_u32(&w, "x", 1);
	m = build(&w, &err);
	{
		int c_ = !m && err && strstr(err, "general.architecture");
		ok(c_, "missing architecture named: %s", tap_s(err));
	}
	base(&w, "qwen35", 4);
	gw_u32(&w, "qwen35.nextn_predict_layers", 9);
	m = build(&w, &err);
	{
		int c_ = !m && err && strstr(err, "nextn_predict_layers");
		ok(c_, "nextn beyond block_count refused: %s", tap_s(err));
	}
	base(&w, "llama", 3);
	gw_str(&w, "llama.attention.head_count_kv", "eight");
	m = build(&w, &err);
	{
		int c_ = !m && err && strstr(err, "head_count_kv");
		ok(c_, "string where a count belongs refused: %s", tap_s(err));
	}
	/* gemma3n: the engine caches the first 20 layers, whatever
	 * attention.shared_kv_layers says (a key only gemma4 reads) */
	for (uint32_t blocks = 12; blocks <= 30; blocks += 18) {
		base(&w, "gemma3n", blocks);
		gw_u32(&w, "gemma3n.attention.sliding_window", 512);
		gw_u32(&w, "gemma3n.attention.shared_kv_layers", 4);
		m = build(&w, &err);
		uint32_t want = blocks > 20 ? blocks - 20 : 0;
		ok(m && m->n_kv_shared == want, "gemma3n with %u blocks: %u share an earlier cache (got %u)", blocks,
		   want, m ? m->n_kv_shared : 0);
		model_free(m);
	}
	free(err);
}
