#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

static const char *const kind_names[LAYER_NKINDS] = {"attention", "swa", "recurrent", "nextn"};

const char *layer_kind_name(enum layer_kind k)
{
	return (unsigned)k < LAYER_NKINDS ? kind_names[k] : "?";
}

static const struct gguf_kv *akey(const struct gguf *g, const struct model *m, const char *suffix)
{
	return gguf_findf(g, "%s.%s", m->arch, suffix);
}

/* Read a u32 architecture key into *out; absent leaves *out alone. A key
 * of the wrong type or out of range is an error, not a silent default. */
static int get_u32(const struct gguf *g, const struct model *m, const char *suffix, uint32_t *out, char **err)
{
	const struct gguf_kv *kv = akey(g, m, suffix);
	uint64_t v;
	if (!kv)
		return 0;
	if (kv->type == GGUF_ARRAY)
		return 0; /* per-layer form: the caller reads it separately */
	if (gguf_kv_u64(kv, &v) || v > UINT32_MAX)
		return errorf(err, "key '%s': expected an unsigned 32-bit integer, found %s", kv->key,
			      gguf_vtype_name(kv->type));
	*out = (uint32_t)v;
	return 0;
}

static int require_u32(const struct gguf *g, const struct model *m, const char *suffix, uint32_t *out, char **err)
{
	if (!akey(g, m, suffix))
		return errorf(err, "missing required key '%s.%s'", m->arch, suffix);
	return get_u32(g, m, suffix, out, err);
}

/* A per-layer value over the first n layers: a scalar applies to each,
 * an array gives one value per layer and must have exactly n entries (the
 * engine's get_key_or_arr refuses any other length). */
static int get_n_layers(const struct gguf *g, const struct model *m, const char *suffix, uint32_t n, uint32_t *out,
			int *found, char **err)
{
	const struct gguf_kv *kv = akey(g, m, suffix);
	*found = kv != NULL;
	if (!kv)
		return 0;
	if (kv->type != GGUF_ARRAY) {
		uint64_t v;
		if (gguf_kv_u64(kv, &v) || v > UINT32_MAX)
			return errorf(err, "key '%s': expected an unsigned integer, found %s", kv->key,
				      gguf_vtype_name(kv->type));
		for (uint32_t il = 0; il < n; il++)
			out[il] = (uint32_t)v;
		return 0;
	}
	if (kv->arr_n != n)
		return errorf(err, "key '%s': array has %llu entries, %s is %u", kv->key, (unsigned long long)kv->arr_n,
			      n == m->n_layer_all ? "block_count" : "the trunk's layer count", n);
	for (uint32_t il = 0; il < n; il++) {
		uint64_t v;
		if (gguf_arr_u64(kv, il, &v) || v > UINT32_MAX)
			return errorf(err, "key '%s': entry %u is not an unsigned integer", kv->key, il);
		out[il] = (uint32_t)v;
	}
	return 0;
}

/* every layer's value: block_count entries (graniteswitch's router layer,
 * which the engine adds after reading them, has none) */
static int get_per_layer(const struct gguf *g, const struct model *m, const char *suffix, uint32_t *out, int *found,
			 char **err)
{
	uint32_t router = strcmp(m->arch, "graniteswitch") == 0;
	return get_n_layers(g, m, suffix, m->n_layer_all - router, out, found, err);
}

/* glm-dsa's indexer per trunk layer (glm-dsa.cpp load_arch_hparams): a
 * trained context under 1048576 (GLM 5, 5.1) makes every layer's full,
 * else GLM-5.2's pattern (layers 0 and 1, then every 4th from 2);
 * attention.indexer.types, when present, says it (0: the layer reuses
 * the previous full layer's top-k, llama_hparams::is_indexer_full). */
static int indexer_types(const struct gguf *g, struct model *m, char **err)
{
	int dots3 = strcmp(m->arch, "dots3note") == 0; /* the key required; its full layers index */
	if (strcmp(m->arch, "glm-dsa") != 0 && !dots3)
		return 0;
	uint32_t n = m->n_layer_all - m->n_nextn;
	uint32_t *full = xcalloc(m->n_layer_all, sizeof(*full));
	for (uint32_t il = 0; il < n; il++)
		full[il] = dots3 ? m->kind[il] != LAYER_SWA : m->n_ctx_train < 1048576 || il < 2 || (il - 2) % 4 == 0;
	int found;
	int rc = get_n_layers(g, m, "attention.indexer.types", n, full, &found, err);
	m->indexer_shared = xcalloc(m->n_layer_all, 1);
	for (uint32_t il = 0; il < n; il++)
		m->indexer_shared[il] = full[il] == 0;
	free(full);
	/* glm-dsa.cpp: a shared layer reuses the top-k of a full one before it
	 * (GGML_ASSERT(prev_top_k != nullptr): the engine aborts building its
	 * first graph), so layer 0 must be full */
	if (!rc && !dots3 && n && m->indexer_shared[0])
		return errorf(err,
			      "%s.attention.indexer.types[0] = 0: a shared indexer layer must follow a full one (the "
			      "engine aborts at its first graph)",
			      m->arch);
	/* dots3note.cpp runs the indexer in every full-attention layer but
	 * creates its tensors only where the type is full: a null weight at
	 * the first graph */
	for (uint32_t il = 0; !rc && dots3 && il < n; il++)
		if (m->indexer_shared[il] && m->kind[il] != LAYER_SWA)
			return errorf(err,
				      "%s.attention.indexer.types[%u] = 0: layer %u attends fully "
				      "(sliding_window_pattern), and the engine runs its lightning indexer there with "
				      "no indexer tensors (they exist where the type is 1)",
				      m->arch, il, il);
	return rc;
}

/* A count qwen4exp's graph builds nodes by (a pooling view and add per
 * cell of a QSA block, a score sum per indexer head, a mixer per
 * hyper-connection stream, a conv tap per kernel cell): past 65,536 zealot
 * refuses it by the key, before any graph (the replay also holds every
 * graph to the engine's node budget, llama_context::graph_max_nodes:
 * compute.c). */
#define Q4_MAX_LOOP 65536u
static int q4_loop_bound(const struct model *m, const char *key, uint32_t v, char **err)
{
	if (v <= Q4_MAX_LOOP)
		return 0;
	return errorf(err, "%s.%s = %u: the graph builds nodes by it and zealot replays at most %u", m->arch, key, v,
		      Q4_MAX_LOOP);
}

/* attention.compress_ratios, per layer, for the two architectures whose
 * loaders read it (NULL for the others): deepseek4's compression
 * (deepseek4.cpp load_arch_hparams: at least block_count entries; 0
 * uncompressed, 4 CSA, 128 HCA) and qwen4exp's QSA block ratio
 * (qwen4exp.cpp: a value or block_count entries; 0 dense attention). */
static int compress_ratios(const struct gguf *g, struct model *m, char **err)
{
	int ds4 = strcmp(m->arch, "deepseek4") == 0;
	if (!ds4 && strcmp(m->arch, "qwen4exp") != 0)
		return 0;
	m->compress_ratio = xcalloc(m->n_layer_all, sizeof(*m->compress_ratio));
	if (!ds4) {
		int found;
		if (get_n_layers(g, m, "attention.compress_ratios", m->n_layer_all, m->compress_ratio, &found, err))
			return -1;
		for (uint32_t l = 0; l < m->n_layer_all; l++)
			if (q4_loop_bound(m, "attention.compress_ratios", m->compress_ratio[l], err))
				return -1;
		return 0;
	}
	const struct gguf_kv *kv = akey(g, m, "attention.compress_ratios");
	if (!kv || kv->type != GGUF_ARRAY || kv->arr_n < m->n_layer_all)
		return errorf(err, "key '%s.attention.compress_ratios' must be an array of block_count (%u) entries",
			      m->arch, m->n_layer_all);
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		uint64_t v;
		if (gguf_arr_u64(kv, il, &v) || (v != 0 && v != 4 && v != 128))
			return errorf(err, "key '%s.attention.compress_ratios': entry %u is not 0, 4 or 128", m->arch,
				      il);
		m->compress_ratio[il] = (uint32_t)v;
	}
	return 0;
}

/* wavtokenizer-dec's block counts (src/models/wavtokenizer-dec.cpp
 * load_arch_tensors): posnet layers 0 to 5 each of a fixed kind (any
 * other aborts the loader: "unknown posnet layer"), and every convnext
 * block's tensors required, so a count past the payload's blocks is a
 * missing tensor to the engine. The graph walks both counts. */
static int wavtok_blocks(const struct gguf *g, struct model *m, char **err)
{
	if (strcmp(m->arch, "wavtokenizer-dec") != 0)
		return 0;
	uint32_t np = 0, nc = 0;
	if (get_u32(g, m, "posnet.block_count", &np, err) || get_u32(g, m, "convnext.block_count", &nc, err))
		return -1;
	if (np > 6)
		return errorf(err,
			      "%s.posnet.block_count = %u: the engine's loader knows posnet layers 0 to 5 and "
			      "aborts on another",
			      m->arch, np);
	char name[64];
	for (uint32_t il = 0; il < nc; il++) {
		snprintf(name, sizeof(name), "convnext.%u.dw.weight", il);
		if (!gguf_tensor_find(g, name))
			return errorf(err,
				      "%s.convnext.block_count = %u: the payload has no tensor '%s' (the engine's "
				      "loader refuses a missing tensor)",
				      m->arch, nc, name);
	}
	return 0;
}

/* qwen4exp's hyper-connections and n-gram PLE
 * (src/models/qwen4exp.cpp load_arch_hparams; src/llama-hparams.cpp
 * ple_conv_state: the conv history, dilated by the n-gram size, of every
 * hyper-connection stream). */
static int hc_ple_keys(const struct gguf *g, struct model *m, char **err)
{
	m->ple_layer = -1;
	if (strcmp(m->arch, "qwen4exp") != 0)
		return 0;
	uint32_t per = 0;
	if (get_u32(g, m, "hyper_connection.count", &m->hc_mult, err) ||
	    get_u32(g, m, "hyper_connection.low_rank", &m->hc_low_rank, err) ||
	    get_u32(g, m, "ple.ngram_size", &m->ple_ngram, err) || get_u32(g, m, "ple.heads_per_ngram", &per, err) ||
	    get_u32(g, m, "ple.conv_kernel", &m->ple_conv_kernel, err) ||
	    get_u32(g, m, "embedding_length_per_layer_input", &m->ple_head_dim, err))
		return -1;
	if (q4_loop_bound(m, "hyper_connection.count", m->hc_mult, err) ||
	    q4_loop_bound(m, "ple.conv_kernel", m->ple_conv_kernel, err) ||
	    q4_loop_bound(m, "attention.indexer.head_count", m->indexer_n_head, err))
		return -1;
	/* load_arch_hparams' own refusals */
	if (m->hc_mult <= 1)
		return errorf(err, "%s.hyper_connection.count = %u: the engine needs more than one stream", m->arch,
			      m->hc_mult);
	if (!m->hc_low_rank || !m->indexer_n_head || !m->indexer_head_size || !m->indexer_top_k)
		return errorf(err,
			      "%s: hyper_connection.low_rank, attention.indexer.head_count, key_length and top_k "
			      "must each be greater than zero (the engine refuses a zero)",
			      m->arch);
	const struct gguf_kv *kv = akey(g, m, "ple.layers");
	uint64_t il;
	if (!kv || kv->type != GGUF_ARRAY || kv->arr_n == 0)
		return 0; /* no PLE */
	if (kv->arr_n != 1 || gguf_arr_u64(kv, 0, &il) || il >= m->n_layer_all)
		return errorf(err, "%s.ple.layers: the engine takes one PLE layer within block_count (%u)", m->arch,
			      m->n_layer_all);
	if (!m->ple_conv_kernel || !m->ple_head_dim)
		return errorf(err,
			      "%s.ple.conv_kernel = %u, embedding_length_per_layer_input = %u: the engine needs "
			      "both greater than zero",
			      m->arch, m->ple_conv_kernel, m->ple_head_dim);
	if (m->ple_ngram < 2 || m->ple_ngram > 8)
		return errorf(err, "%s.ple.ngram_size = %u: the engine takes 2 to 8 (LLAMA_MAX_PLE_NGRAM)", m->arch,
			      m->ple_ngram);
	if (!per || (uint64_t)(m->ple_ngram - 1) * per > 64)
		return errorf(err,
			      "%s.ple.heads_per_ngram = %u: the engine takes 1 to 64 heads in all "
			      "(LLAMA_MAX_PLE_HEADS)",
			      m->arch, per);
	m->ple_layer = (int32_t)il;
	m->ple_n_heads = (m->ple_ngram - 1) * per;
	if (m->ple_n_heads && m->ple_conv_kernel)
		m->ple_conv_state = (uint64_t)(m->ple_conv_kernel - 1) * m->ple_ngram * m->hc_mult * m->n_embd;
	return 0;
}

static char *get_str(const struct gguf *g, const char *key)
{
	const struct gguf_kv *kv = gguf_find(g, key);
	if (!kv || kv->type != GGUF_STRING)
		return NULL;
	return xstrndup(kv->v.s.p, (size_t)kv->v.s.n);
}

/* Engine defaults for the sliding-window period when the pattern key is
 * absent (src/models/<arch>.cpp: `uint32_t swa_period = N`). This is a
 * table of facts about the engine, used only when metadata is silent. */
static const struct {
	const char *arch;
	uint32_t period;
} swa_defaults[] = {
    {"gemma2", 2},	    {"gemma3", 6},  {"gemma3n", 5}, {"cohere2", 4},    {"llama4", 4},
    {"gemma-embedding", 6}, {"exaone4", 4}, {"olmo2", 4},   {"openai-moe", 2}, {"gpt-oss", 2},
};

static void set_swa_period(struct model *m, uint8_t *swa, uint32_t period)
{
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++)
		swa[il] = period == 0 || (il % period < period - 1);
}

static int derive_swa(const struct gguf *g, struct model *m, uint8_t *swa, char **err)
{
	if (get_u32(g, m, "attention.sliding_window", &m->n_swa, err))
		return -1;
	/* src/models/phi3.cpp reads the window and disables it (swa_type
	 * NONE, n_swa 0): every layer attends over the whole cache */
	if (strcmp(m->arch, "phi3") == 0 && m->n_swa) {
		m->n_swa = 0;
		m->swa_source = "attention.sliding_window (disabled by the engine for phi3)";
	}
	/* The engine's window rules per architecture (load_arch_hparams of
	 * src/models/gemma2.cpp and exaone4.cpp): gemma2 slides over 4096
	 * cells when the key is absent; exaone4 slides only at 64 layers
	 * (4096 cells unless the key says), never otherwise. */
	uint32_t n_trunk = m->n_layer_all - m->n_nextn;
	if (strcmp(m->arch, "gemma2") == 0 && m->n_swa == 0) {
		m->n_swa = 4096;
		m->swa_source = "the engine's default window (gemma2: 4096)";
	}
	if (strcmp(m->arch, "exaone4") == 0) {
		if (n_trunk != 64) {
			m->n_swa = 0;
			return 0;
		}
		if (m->n_swa == 0)
			m->n_swa = 4096;
	}
	/* src/models/llama4.cpp: a chunked window of 8192 cells whatever
	 * the key says, unless the key is present and 0 (no window) */
	if (strcmp(m->arch, "llama4") == 0) {
		if (akey(g, m, "attention.sliding_window") && m->n_swa == 0)
			return 0;
		m->n_swa = 8192;
		m->swa_source = "the engine's chunk (llama4: 8192)";
	}
	/* dots3note.cpp reads the pattern into is_swa_impl whatever the
	 * window: its layers keep their kinds at sliding_window = 0 */
	if (m->n_swa == 0 && strcmp(m->arch, "dots3note") != 0)
		return 0;
	const struct gguf_kv *kv = akey(g, m, "attention.sliding_window_pattern");
	if (kv && kv->type == GGUF_ARRAY) {
		uint32_t n_layer = m->n_layer_all - m->n_nextn;
		if (kv->arr_n != n_layer && kv->arr_n != m->n_layer_all)
			return errorf(err, "key '%s': array has %llu entries, the model has %u layers", kv->key,
				      (unsigned long long)kv->arr_n, n_layer);
		for (uint32_t il = 0; il < kv->arr_n; il++) {
			uint64_t v;
			if (gguf_arr_u64(kv, il, &v))
				return errorf(err, "key '%s': entry %u is not a bool", kv->key, il);
			swa[il] = v != 0;
		}
		m->swa_source = "attention.sliding_window_pattern (per layer)";
		return 0;
	}
	if (kv) {
		uint64_t period;
		if (gguf_kv_u64(kv, &period) || period > UINT32_MAX)
			return errorf(err, "key '%s': expected an unsigned integer", kv->key);
		set_swa_period(m, swa, (uint32_t)period);
		m->swa_source = "attention.sliding_window_pattern";
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(swa_defaults); i++) {
		if (strcmp(swa_defaults[i].arch, m->arch) == 0) {
			set_swa_period(m, swa, swa_defaults[i].period);
			m->swa_source = "engine default period";
			return 0;
		}
	}
	/* A window with no pattern: every layer slides (set_swa_pattern(0)). */
	set_swa_period(m, swa, 0);
	m->swa_source = "attention.sliding_window (all layers)";
	return 0;
}

static int has_recurrent_keys(const struct gguf *g, const struct model *m)
{
	return akey(g, m, "ssm.conv_kernel") || akey(g, m, "ssm.state_size") || akey(g, m, "wkv.head_size") ||
	       akey(g, m, "shortconv.l_cache");
}

/* The engine's rule for which layers are recurrent (is_recr_impl in
 * src/models/<arch>.cpp load_arch_hparams, default llm_arch_is_recurrent)
 * and which memory create_memory gives the architecture (src/llama-model.cpp:
 * llama_memory_recurrent alone, or llama_memory_hybrid with per-arch layer
 * filters). A table of engine facts keyed by general.architecture. */
enum recr_rule {
	R_ALL,		/* llm_arch_is_recurrent: every layer, no KV cache */
	R_HEAD_KV0,	/* recurrent iff head_count_kv[il] == 0; KV on the others */
	R_HEAD_KV0_FF0, /* nemotron-h: recurrent iff head_count_kv and ffn both 0;
			  KV iff attention heads and no ffn; ffn-only layers hold neither */
	R_BOTH,		/* falcon-h1: every layer holds KV and state */
	R_INTERVAL,	/* attention.recurrent_layers, else full_attention_interval (4) */
	R_OWN,		/* a memory of its own (deepseek4: priced by plan.c plan_dsv4) */
};

static const struct {
	const char *arch;
	enum recr_rule rule;
	const char *unmirrored; /* what of its memory zealot does not mirror */
} recr_rules[] = {
    {"mamba", R_ALL, NULL},
    {"mamba2", R_ALL, NULL},
    {"rwkv6", R_ALL, NULL},
    {"rwkv6qwen2", R_ALL, NULL},
    {"rwkv7", R_ALL, NULL},
    {"arwkv7", R_ALL, NULL},
    {"granitehybrid", R_HEAD_KV0, NULL},
    {"jamba", R_HEAD_KV0, NULL},
    {"lfm2", R_HEAD_KV0, NULL},
    {"lfm2moe", R_HEAD_KV0, NULL},
    {"plamo2", R_HEAD_KV0, NULL},
    {"kimi-linear", R_HEAD_KV0, NULL},
    {"kimi-k3", R_HEAD_KV0, NULL},
    {"bailingmoe3", R_HEAD_KV0, NULL},
    {"nemotron_h", R_HEAD_KV0_FF0, NULL},
    {"nemotron_h_moe", R_HEAD_KV0_FF0, NULL},
    {"falcon-h1", R_BOTH, NULL},
    {"qwen3next", R_INTERVAL, NULL},
    {"qwen35", R_INTERVAL, NULL},
    {"qwen35moe", R_INTERVAL, NULL},
    {"minimax-01", R_INTERVAL, NULL},
    {"qwen4exp", R_INTERVAL, NULL}, /* llama_memory_hybrid_idx: plan.c prices its indexer cache */
    {"deepseek4", R_OWN, NULL},
};

static int recurrent_interval(const struct gguf *g, struct model *m, uint8_t *recr, char **err)
{
	const struct gguf_kv *kv = akey(g, m, "attention.recurrent_layers");
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	if (kv && kv->type == GGUF_ARRAY) {
		if (kv->arr_n != m->n_layer_all)
			return errorf(err, "key '%s': array has %llu entries, block_count is %u", kv->key,
				      (unsigned long long)kv->arr_n, m->n_layer_all);
		for (uint32_t il = 0; il < m->n_layer_all; il++) {
			uint64_t v;
			if (gguf_arr_u64(kv, il, &v))
				return errorf(err, "key '%s': entry %u is not a bool", kv->key, il);
			recr[il] = v != 0;
		}
		m->recurrent_source = "attention.recurrent_layers";
		return 0;
	}
	/* the engine's default interval is 4 when the key is absent (8 in
	 * src/models/minimax-01.cpp) */
	int mm01 = strcmp(m->arch, "minimax-01") == 0;
	uint32_t interval = mm01 ? 8 : 4;
	if (get_u32(g, m, "full_attention_interval", &interval, err))
		return -1;
	if (interval == 0)
		return errorf(err, "key '%s.full_attention_interval' is 0", m->arch);
	for (uint32_t il = 0; il < n_layer; il++)
		recr[il] = (il + 1) % interval != 0;
	m->recurrent_source = akey(g, m, "full_attention_interval") ? "full_attention_interval"
			      : mm01				    ? "engine default interval 8"
								    : "engine default interval 4";
	return 0;
}

static int derive_recurrent(const struct gguf *g, struct model *m, uint8_t *recr, const uint32_t *ff,
			    int head_kv_is_array, char **err)
{
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int rule = -1;
	for (size_t i = 0; i < ARRAY_SIZE(recr_rules); i++)
		if (strcmp(recr_rules[i].arch, m->arch) == 0) {
			rule = (int)recr_rules[i].rule;
			m->state_unmirrored = recr_rules[i].unmirrored;
		}
	/* Which layers hold KV when the memory is hybrid: the default filter
	 * is !is_recr(il); nextn layers are filtered by plan.c. */
	switch (rule) {
	case R_ALL:
		for (uint32_t il = 0; il < m->n_layer_all; il++)
			recr[il] = 1;
		m->pure_recurrent = 1;
		m->recurrent_source = "recurrent architecture (llm_arch_is_recurrent)";
		return 0;
	case R_HEAD_KV0:
		for (uint32_t il = 0; il < n_layer; il++)
			recr[il] = m->n_head_kv[il] == 0;
		m->recurrent_source = "attention.head_count_kv == 0";
		return 0;
	case R_HEAD_KV0_FF0:
		for (uint32_t il = 0; il < m->n_layer_all; il++) {
			recr[il] = il < n_layer && m->n_head_kv[il] == 0 && ff[il] == 0;
			m->has_kv[il] = !recr[il] && ff[il] == 0;
		}
		m->recurrent_source = "attention.head_count_kv == 0 and feed_forward_length == 0";
		return 0;
	case R_BOTH:
		for (uint32_t il = 0; il < m->n_layer_all; il++)
			recr[il] = m->has_kv[il] = 1;
		m->recurrent_source = "every layer (attention and SSM side by side)";
		return 0;
	case R_INTERVAL: return recurrent_interval(g, m, recr, err);
	case R_OWN: return 0;
	default: break;
	}
	/* An architecture not in the table: the shape of its metadata, and a
	 * note that its layout is not the engine's rule. */
	if (!has_recurrent_keys(g, m) && !akey(g, m, "attention.recurrent_layers") &&
	    !akey(g, m, "full_attention_interval"))
		return 0;
	m->state_unmirrored = "the recurrent layer layout (guessed from metadata)";
	if (akey(g, m, "attention.recurrent_layers") || akey(g, m, "full_attention_interval") ||
	    (!head_kv_is_array && m->n_head_kv[0] > 0 && m->n_head[0] > 0))
		return recurrent_interval(g, m, recr, err);
	for (uint32_t il = 0; il < n_layer; il++)
		recr[il] = m->n_head_kv[il] == 0;
	m->recurrent_source =
	    head_kv_is_array ? "attention.head_count_kv == 0" : "recurrent model (no attention heads)";
	return 0;
}

static void count_mtp(const struct gguf *g, struct model *m)
{
	uint8_t *seen = xcalloc(m->n_layer_all + 1, 1);
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const char *name = g->tensors[i].name;
		if (strncmp(name, "blk.", 4) != 0)
			continue;
		char *end;
		unsigned long blk = strtoul(name + 4, &end, 10);
		if (end == name + 4 || strncmp(end, ".nextn.", 7) != 0)
			continue;
		m->mtp_tensors++;
		if (blk < m->n_layer_all && !seen[blk]) {
			seen[blk] = 1;
			m->mtp_blocks++;
		}
	}
	free(seen);
}

static uint64_t vocab_size(const struct gguf *g, const struct model *m)
{
	uint64_t n;
	if (gguf_kv_u64(akey(g, m, "vocab_size"), &n) == 0)
		return n;
	const struct gguf_kv *tok = gguf_find(g, "tokenizer.ggml.tokens");
	if (tok && tok->type == GGUF_ARRAY)
		return tok->arr_n;
	return 0;
}

static void recurrent_dims(struct model *m)
{
	/* src/llama-hparams.cpp n_embd_r() / n_embd_s(). */
	if (m->wkv_head_size) {
		m->n_embd_r = (uint64_t)m->token_shift_count * m->n_embd;
		m->n_embd_s = (uint64_t)m->n_embd * m->wkv_head_size;
		return;
	}
	if (m->shortconv_l_cache) {
		m->n_embd_r = (uint64_t)m->n_embd * (m->shortconv_l_cache - 1);
		m->n_embd_s = (uint64_t)m->ssm_d_state * m->ssm_d_inner;
		return;
	}
	if (m->kda_head_dim) {
		/* Kimi delta attention: conv state of q, k and v; a head x head
		 * state per head (d_conv 0 counts as 4) */
		uint64_t d_inner = (uint64_t)m->n_head[0] * m->kda_head_dim;
		m->n_embd_r = 3ull * (m->ssm_d_conv ? m->ssm_d_conv - 1 : 3) * d_inner;
		m->n_embd_s = (uint64_t)m->kda_head_dim * m->kda_head_dim * m->n_head[0];
		return;
	}
	m->n_embd_s = (uint64_t)m->ssm_d_state * m->ssm_d_inner;
	if (strcmp(m->arch, "minimax-01") == 0) /* n_embd_head_la = the full-attention head size */
		m->n_embd_s = (uint64_t)m->head_k * m->head_k * m->n_head[0];
	m->n_embd_r = (uint64_t)(m->ssm_d_conv ? m->ssm_d_conv - 1 : 0) *
		      ((uint64_t)m->ssm_d_inner + 2ull * m->ssm_n_group * m->ssm_d_state);
}

/* The MoE keys of the deepseek2 / glm4moe / qwen35moe families (their
 * load_arch_hparams). */
static int moe_keys(const struct gguf *g, struct model *m, char **err)
{
	int b;
	if (get_u32(g, m, "attention.q_lora_rank", &m->q_lora_rank, err) ||
	    get_u32(g, m, "leading_dense_block_count", &m->n_lead_dense, err) ||
	    get_u32(g, m, "expert_shared_count", &m->n_expert_shared, err) ||
	    get_u32(g, m, "expert_gating_func", &m->expert_gating, err) ||
	    get_u32(g, m, "expert_group_count", &m->n_expert_groups, err) ||
	    get_u32(g, m, "expert_group_used_count", &m->n_group_used, err) ||
	    get_u32(g, m, "attention.indexer.key_length", &m->indexer_head_size, err) ||
	    get_u32(g, m, "attention.indexer.head_count", &m->indexer_n_head, err) ||
	    get_u32(g, m, "attention.indexer.top_k", &m->indexer_top_k, err))
		return -1;
	if (gguf_kv_bool(akey(g, m, "expert_weights_norm"), &b) == 0)
		m->expert_w_norm = b != 0;
	if (gguf_kv_f64(akey(g, m, "expert_weights_scale"), &m->expert_w_scale))
		m->expert_w_scale = 0;
	if (gguf_kv_f64(akey(g, m, "attention.temperature_scale"), &m->attn_temp_scale))
		m->attn_temp_scale = 0;
	return 0;
}

/* block_count, nextn_predict_layers, context_length, embedding_length. */
static int block_keys(const struct gguf *g, struct model *m, char **err)
{
	if (require_u32(g, m, "block_count", &m->n_layer_all, err))
		return -1;
	/* LLAMA_MAX_LAYERS in the engine. */
	if (m->n_layer_all == 0 || m->n_layer_all > 512) {
		errorf(err, "key '%s.block_count' is %u (the engine accepts 1..512)", m->arch, m->n_layer_all);
		return -1;
	}
	if (get_u32(g, m, "nextn_predict_layers", &m->n_nextn, err))
		return -1;
	if (m->n_nextn > m->n_layer_all) {
		errorf(err, "key '%s.nextn_predict_layers' (%u) exceeds block_count (%u)", m->arch, m->n_nextn,
		       m->n_layer_all);
		return -1;
	}
	/* graniteswitch (src/models/granite-switch.cpp load_arch_hparams): a
	 * router layer after the trunk, the one nextn layer the engine counts,
	 * one head without tensors whose K and V the KV cache holds */
	if (strcmp(m->arch, "graniteswitch") == 0) {
		m->n_layer_all++;
		m->n_nextn = m->n_router = 1;
	}
	uint64_t ctx;
	const struct gguf_kv *ckv = akey(g, m, "context_length");
	if (!ckv || gguf_kv_u64(ckv, &ctx)) {
		errorf(err, "missing or invalid key '%s.context_length'", m->arch);
		return -1;
	}
	m->n_ctx_train = ctx;
	uint32_t loops = 1; /* nanbeige's num_loops: its blocks run again, with their own KV */
	if (strcmp(m->arch, "nanbeige") == 0 && get_u32(g, m, "num_loops", &loops, err))
		return -1;
	if (loops > 1)
		m->state_unmirrored = "num_loops > 1 (the looped blocks' KV and graph)";
	return require_u32(g, m, "embedding_length", &m->n_embd, err);
}

/* The per-layer feed-forward widths (into ff) and head counts, the head
 * sizes (full, SWA, MLA); *head_kv_is_array: head_count_kv is per layer. */
static int head_keys(const struct gguf *g, struct model *m, uint32_t *ff, int *head_kv_is_array, char **err)
{
	m->n_head = xcalloc(m->n_layer_all, sizeof(*m->n_head));
	m->n_head_kv = xcalloc(m->n_layer_all, sizeof(*m->n_head_kv));
	m->kind = xcalloc(m->n_layer_all, sizeof(*m->kind));
	int found, kv_found;
	if (get_per_layer(g, m, "feed_forward_length", ff, &found, err))
		return -1;
	m->n_ff = ff[0];
	if (get_per_layer(g, m, "attention.head_count", m->n_head, &found, err))
		return -1;
	memcpy(m->n_head_kv, m->n_head, m->n_layer_all * sizeof(*m->n_head_kv));
	if (get_per_layer(g, m, "attention.head_count_kv", m->n_head_kv, &kv_found, err))
		return -1;
	const struct gguf_kv *hkv = akey(g, m, "attention.head_count_kv");
	*head_kv_is_array = hkv && hkv->type == GGUF_ARRAY;
	if (strcmp(m->arch, "graniteswitch") == 0) { /* the router layer: one head, no FFN */
		m->n_head[m->n_layer_all - 1] = m->n_head_kv[m->n_layer_all - 1] = 1;
		ff[m->n_layer_all - 1] = 0;
	}

	if (m->n_head[0] > 0) {
		m->head_k = m->head_v = m->n_embd / m->n_head[0];
		if (get_u32(g, m, "attention.key_length", &m->head_k, err) ||
		    get_u32(g, m, "attention.value_length", &m->head_v, err))
			return -1;
	}
	m->head_k_swa = m->head_k;
	m->head_v_swa = m->head_v;
	if (get_u32(g, m, "attention.key_length_swa", &m->head_k_swa, err) ||
	    get_u32(g, m, "attention.value_length_swa", &m->head_v_swa, err) ||
	    get_u32(g, m, "attention.kv_lora_rank", &m->kv_lora_rank, err) ||
	    get_u32(g, m, "attention.key_length_mla", &m->head_k_mla, err) ||
	    get_u32(g, m, "attention.value_length_mla", &m->head_v_mla, err) ||
	    get_u32(g, m, "attention.kv_lora_rank_swa", &m->kv_lora_rank_swa, err) ||
	    get_u32(g, m, "attention.key_length_mla_swa", &m->head_k_mla_swa, err) ||
	    get_u32(g, m, "attention.value_length_mla_swa", &m->head_v_mla_swa, err))
		return -1;
	return 0;
}

/* The recurrent state's keys (ssm, wkv, shortconv, kda) and its sizes. */
static int state_keys(const struct gguf *g, struct model *m, char **err)
{
	if (get_u32(g, m, "ssm.conv_kernel", &m->ssm_d_conv, err) ||
	    get_u32(g, m, "ssm.inner_size", &m->ssm_d_inner, err) ||
	    get_u32(g, m, "ssm.state_size", &m->ssm_d_state, err) ||
	    get_u32(g, m, "ssm.group_count", &m->ssm_n_group, err) ||
	    get_u32(g, m, "ssm.time_step_rank", &m->ssm_dt_rank, err) ||
	    get_u32(g, m, "wkv.head_size", &m->wkv_head_size, err) ||
	    get_u32(g, m, "shortconv.l_cache", &m->shortconv_l_cache, err) ||
	    get_u32(g, m, "kda.head_dim", &m->kda_head_dim, err))
		return -1;
	m->token_shift_count = 2;
	if (get_u32(g, m, "token_shift_count", &m->token_shift_count, err))
		return -1;
	recurrent_dims(m);
	return 0;
}

/* Each layer's kind (attention, SWA, recurrent, nextn) and whether it
 * holds KV cells and recurrent state. */
static int layer_kinds(const struct gguf *g, struct model *m, const uint32_t *ff, int head_kv_is_array, char **err)
{
	uint8_t *swa = xcalloc(m->n_layer_all, 1);
	uint8_t *recr = xcalloc(m->n_layer_all, 1);
	int rc = -1;
	m->has_kv = xcalloc(m->n_layer_all, 1);
	m->has_rs = xcalloc(m->n_layer_all, 1);
	for (uint32_t il = 0; il < m->n_layer_all; il++)
		m->has_kv[il] = 2; /* unset: the default filter below */
	if (derive_swa(g, m, swa, err) || derive_recurrent(g, m, recr, ff, head_kv_is_array, err))
		goto out;
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		m->has_rs[il] = recr[il];
		m->n_rs_layers += recr[il];
		if (m->has_kv[il] == 2)
			m->has_kv[il] = !m->pure_recurrent && !recr[il];
		enum layer_kind k = LAYER_ATTENTION;
		if (il >= m->n_layer_all - m->n_nextn)
			k = LAYER_NEXTN;
		else if (recr[il])
			k = LAYER_RECURRENT;
		else if (swa[il])
			k = LAYER_SWA;
		m->kind[il] = k;
		m->n_kind[k]++;
	}
	rc = 0;
out:
	free(swa);
	free(recr);
	return rc;
}

/* The shared-KV layers and the expert counts. */
static int share_keys(const struct gguf *g, struct model *m, char **err)
{
	if (get_u32(g, m, "attention.shared_kv_layers", &m->n_kv_shared, err))
		return -1;
	/* gemma3n's builder fixes n_layer_kv_from_start = 20 and reads no
	 * shared_kv_layers key (only gemma4's do) */
	if (strcmp(m->arch, "gemma3n") == 0)
		m->n_kv_shared = m->n_layer_all > 20 ? m->n_layer_all - 20 : 0;
	if (m->n_kv_shared > m->n_layer_all) {
		errorf(err, "key '%s.attention.shared_kv_layers' (%u) exceeds block_count (%u)", m->arch,
		       m->n_kv_shared, m->n_layer_all);
		return -1;
	}
	if (get_u32(g, m, "expert_count", &m->n_expert, err) ||
	    get_u32(g, m, "expert_used_count", &m->n_expert_used, err) ||
	    get_u32(g, m, "expert_feed_forward_length", &m->n_ff_exp, err))
		return -1;
	return 0;
}

/* RoPE: base, scaling, dimensions, sections. */
static int rope_keys(const struct gguf *g, struct model *m, char **err)
{
	const struct gguf_kv *kv;
	m->rope_freq_base = 10000.0;
	gguf_kv_f64(akey(g, m, "rope.freq_base"), &m->rope_freq_base);
	if (gguf_kv_f64(akey(g, m, "rope.scaling.factor"), &m->rope_scale))
		m->rope_scale = 0;
	kv = akey(g, m, "rope.scaling.type");
	if (kv && kv->type == GGUF_STRING)
		m->rope_scaling = xstrndup(kv->v.s.p, (size_t)kv->v.s.n);
	m->rope_orig_ctx = m->n_ctx_train;
	gguf_kv_u64(akey(g, m, "rope.scaling.original_context_length"), &m->rope_orig_ctx);
	m->rope_dims = m->head_k;
	if (get_u32(g, m, "rope.dimension_count", &m->rope_dims, err))
		return -1;
	kv = akey(g, m, "rope.dimension_sections");
	if (kv && kv->type == GGUF_ARRAY) {
		m->has_rope_sections = 1;
		for (uint64_t i = 0; i < 4 && i < kv->arr_n; i++) {
			uint64_t v;
			if (gguf_arr_u64(kv, i, &v) == 0 && v <= UINT32_MAX)
				m->rope_sections[i] = (uint32_t)v;
		}
	}
	return 0;
}

struct model *model_from_gguf(const struct gguf *g, char **err)
{
	struct model *m = xcalloc(1, sizeof(*m));
	uint32_t *ff = NULL;
	m->arch = get_str(g, "general.architecture");
	if (!m->arch) {
		errorf(err, "missing required key 'general.architecture'");
		goto fail;
	}
	m->name = get_str(g, "general.name");
	m->general_type = get_str(g, "general.type");
	uint64_t ft;
	m->file_type = gguf_kv_u64(gguf_find(g, "general.file_type"), &ft) == 0 ? (int64_t)ft : -1;
	m->n_vocab = vocab_size(g, m);

	/* Adapters and projectors carry no block geometry of their own. */
	if (!akey(g, m, "block_count")) {
		if (strcmp(m->arch, "clip") == 0 || (m->general_type && strcmp(m->general_type, "adapter") == 0))
			return m;
		errorf(err, "missing required key '%s.block_count'", m->arch);
		goto fail;
	}
	if (block_keys(g, m, err))
		goto fail;
	ff = xcalloc(m->n_layer_all, sizeof(*ff));
	int head_kv_is_array = 0;
	if (head_keys(g, m, ff, &head_kv_is_array, err) || state_keys(g, m, err) ||
	    layer_kinds(g, m, ff, head_kv_is_array, err) || share_keys(g, m, err) || rope_keys(g, m, err) ||
	    moe_keys(g, m, err) || indexer_types(g, m, err) || compress_ratios(g, m, err) || hc_ple_keys(g, m, err) ||
	    wavtok_blocks(g, m, err))
		goto fail;
	m->n_ff_layer = ff;
	ff = NULL;
	if (model_check(g, m, err))
		goto fail;
	count_mtp(g, m);
	return m;
fail:
	free(ff);
	model_free(m);
	return NULL;
}

void model_free(struct model *m)
{
	if (!m)
		return;
	/* every field the model owns, then the model */
	void *owned[] = {
	    m->arch,   m->name,	  m->general_type,   m->n_head,	      m->n_head_kv,	 m->kind, m->n_ff_layer,
	    m->has_kv, m->has_rs, m->indexer_shared, m->rope_scaling, m->compress_ratio, m};
	for (size_t i = 0; i < ARRAY_SIZE(owned); i++)
		free(owned[i]);
}

uint32_t model_n_embd_k_gqa(const struct model *m, uint32_t il)
{
	uint32_t head = m->kind[il] == LAYER_SWA ? m->head_k_swa : m->head_k;
	return head * m->n_head_kv[il];
}

uint32_t model_n_embd_v_gqa(const struct model *m, uint32_t il)
{
	uint32_t head = m->kind[il] == LAYER_SWA ? m->head_v_swa : m->head_v;
	return head * m->n_head_kv[il];
}
