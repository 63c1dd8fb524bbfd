/* loader: the engine's tensor-shape refusals the header decides (see
 * loader.h). */
#include "loader.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

static int arch_is(const struct model *m, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(m->arch, *list) == 0)
			return 1;
	return 0;
}

/* "[a, b]"; a 0 (a dimension the header does not decide) prints as "*" */
static void shape_str(const uint64_t *ne, unsigned n, char *buf, size_t len)
{
	size_t at = 0;
	at += (size_t)snprintf(buf + at, len - at, "[");
	for (unsigned i = 0; i < n && at < len; i++)
		at += ne[i] ? (size_t)snprintf(buf + at, len - at, "%s%" PRIu64, i ? ", " : "", ne[i])
			    : (size_t)snprintf(buf + at, len - at, "%s*", i ? ", " : "");
	if (at < len)
		snprintf(buf + at, len - at, "]");
}

/* The engine's check_tensor_dims: each of the expected dimensions, and 1
 * past them. A 0 in want is a dimension the header does not decide. */
static int dims(const struct gguf_tensor *t, const uint64_t *want, unsigned n, const char *from, char **err)
{
	int bad = 0;
	for (unsigned i = 0; i < GGUF_MAX_DIMS; i++)
		if (i < n ? want[i] && t->ne[i] != want[i] : t->ne[i] != 1)
			bad = 1;
	if (!bad)
		return 0;
	char got[96], exp[96];
	shape_str(t->ne, t->n_dims, got, sizeof(got));
	shape_str(want, n, exp, sizeof(exp));
	return errorf(err,
		      "tensor '%s' has shape %s, the engine's loader expects %s (%s): it refuses the file "
		      "(\"wrong shape\")",
		      t->name, got, exp, from);
}

int loader_check(const struct gguf *g, const struct model *m, char **err)
{
	if (!g || !m || !m->arch)
		return 0;
	static const char *const not_text[] = {"wavtokenizer-dec", NULL};
	static const char *const own_embd_vocab[] = {"eagle3", NULL};
	static const char *const own_out_vocab[] = {"eagle3", "dflash", "qwen3vl", NULL};
	if (arch_is(m, not_text))
		return 0;
	/* the engine's n_vocab is vocab.n_tokens(): the token list's length */
	uint64_t n_vocab = 0;
	const struct gguf_kv *tok = gguf_find(g, "tokenizer.ggml.tokens");
	if (tok && tok->type == GGUF_ARRAY)
		n_vocab = tok->arr_n;
	uint64_t n_embd = m->n_embd;
	char from[256];
	const struct gguf_tensor *t = gguf_tensor_find(g, "token_embd.weight");
	if (t) {
		uint64_t want[2] = {n_embd, arch_is(m, own_embd_vocab) ? 0 : n_vocab};
		snprintf(from, sizeof(from),
			 "n_embd %" PRIu64 " from %s.embedding_length, n_vocab %" PRIu64 " from the %" PRIu64
			 " tokens of tokenizer.ggml.tokens",
			 n_embd, m->arch, n_vocab, n_vocab);
		if (dims(t, want, 2, from, err))
			return -1;
	}
	t = gguf_tensor_find(g, "output.weight");
	if (t && !arch_is(m, own_out_vocab)) {
		uint64_t want[2] = {n_embd, n_vocab};
		snprintf(from, sizeof(from),
			 "n_embd %" PRIu64 " from %s.embedding_length, n_vocab %" PRIu64 " from tokenizer.ggml.tokens",
			 n_embd, m->arch, n_vocab);
		if (dims(t, want, 2, from, err))
			return -1;
	}
	snprintf(from, sizeof(from), "n_embd %" PRIu64 " from %s.embedding_length", n_embd, m->arch);
	t = gguf_tensor_find(g, "output_norm.weight");
	if (t && dims(t, &n_embd, 1, from, err))
		return -1;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		t = &g->tensors[i];
		unsigned long long layer;
		int n = 0;
		if (sscanf(t->name, "blk.%llu.%n", &layer, &n) != 1 || n == 0)
			continue;
		if (layer >= m->n_layer_all)
			return errorf(err,
				      "tensor '%s' is in block %llu, but %s.block_count is %u: the engine's loader "
				      "never creates it and refuses the file (\"wrong number of tensors\")",
				      t->name, layer, m->arch, m->n_layer_all);
		/* every architecture creates these {n_embd} (norms) or {*, n_embd}
		 * (the projections back into the residual stream) */
		static const char *const norms[] = {"attn_norm.weight", "ffn_norm.weight", "post_attention_norm.weight",
						    "post_ffw_norm.weight", NULL};
		static const char *const to_embd[] = {"attn_output.weight", "ffn_down.weight", NULL};
		for (const char *const *q = norms; *q; q++)
			if (strcmp(t->name + n, *q) == 0 && dims(t, &n_embd, 1, from, err))
				return -1;
		uint64_t rows[2] = {0, n_embd};
		for (const char *const *q = to_embd; *q; q++)
			if (strcmp(t->name + n, *q) == 0 && dims(t, rows, 2, from, err))
				return -1;
	}
	return 0;
}
