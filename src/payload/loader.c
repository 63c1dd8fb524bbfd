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

static const struct loader_attn_rule *attn_rule(const struct model *m)
{
	for (size_t i = 0; i < loader_attn_rules_count; i++)
		if (strcmp(loader_attn_rules[i].arch, m->arch) == 0)
			return &loader_attn_rules[i];
	return NULL;
}

static int is_attn_proj(const char *suffix)
{
	static const char *const p[] = {"attn_q.weight",   "attn_k.weight",	 "attn_v.weight",
					"attn_qkv.weight", "attn_output.weight", NULL};
	for (const char *const *q = p; *q; q++)
		if (strcmp(suffix, *q) == 0)
			return 1;
	return 0;
}

const char *loader_unmirrored(const struct gguf *g, const struct model *m, char *buf, size_t len)
{
	if (!g || !m || !m->arch)
		return NULL;
	const struct loader_attn_rule *r = attn_rule(m);
	if (r && r->file && m->n_head && m->n_head[0])
		return NULL;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		int n = 0;
		unsigned long long layer;
		if (sscanf(g->tensors[i].name, "blk.%llu.%n", &layer, &n) != 1 || n == 0 ||
		    !is_attn_proj(g->tensors[i].name + n))
			continue;
		snprintf(buf, len,
			 "the attention projections' shapes of %s are not checked against the engine's loader: %s",
			 m->arch,
			 !r	   ? "the engine's source has no loader for it"
			 : r->file ? "its head_count is 0 in layer 0"
				   : r->unmirrored);
		return buf;
	}
	return NULL;
}

/* The value of e for layer il; *how names it (the keys it came from). */
static uint64_t expr_eval(const struct model *m, enum loader_expr e, uint32_t il, char *how, size_t len)
{
	/* LLAMA_LOAD_LOCALS: n_head(), n_embd_head_k() ... of layer 0 */
	uint32_t l = (e == LX_KGQA_IL || e == LX_VGQA_IL) ? il : 0;
	int swa = m->kind[l] == LAYER_SWA;
	uint64_t h = m->n_head[l], hkv = m->n_head_kv[l];
	uint64_t hk = swa ? m->head_k_swa : m->head_k, hv = swa ? m->head_v_swa : m->head_v;
	const char *a = m->arch, *sk = swa ? "key_length_swa" : "key_length",
		   *sv = swa ? "value_length_swa" : "value_length";
	switch (e) {
	case LX_EMBD: snprintf(how, len, "n_embd from %s.embedding_length", a); return m->n_embd;
	case LX_HK_H:
	case LX_HK_H2:
		snprintf(how, len, "%s%" PRIu64 " x %" PRIu64 " from %s.attention.%s x head_count (layer 0)",
			 e == LX_HK_H2 ? "2 x " : "", hk, h, a, sk);
		return hk * h * (e == LX_HK_H2 ? 2 : 1);
	case LX_HV_H:
		snprintf(how, len, "%" PRIu64 " x %" PRIu64 " from %s.attention.%s x head_count (layer 0)", hv, h, a,
			 sv);
		return hv * h;
	case LX_KGQA:
	case LX_KGQA_IL:
		snprintf(how, len, "%" PRIu64 " x %" PRIu64 " from %s.attention.%s x head_count_kv (layer %u)", hk, hkv,
			 a, sk, l);
		return hk * hkv;
	case LX_VGQA:
	case LX_VGQA_IL:
		snprintf(how, len, "%" PRIu64 " x %" PRIu64 " from %s.attention.%s x head_count_kv (layer %u)", hv, hkv,
			 a, sv, l);
		return hv * hkv;
	case LX_ROT_H:
		snprintf(how, len, "%u x %" PRIu64 " from %s.rope.dimension_count x head_count (layer 0)", m->rope_dims,
			 h, a);
		return (uint64_t)m->rope_dims * h;
	case LX_ROT_HKV:
		snprintf(how, len, "%u x %" PRIu64 " from %s.rope.dimension_count x head_count_kv (layer 0)",
			 m->rope_dims, hkv, a);
		return (uint64_t)m->rope_dims * hkv;
	case LX_NONE: break;
	}
	snprintf(how, len, "?");
	return 0;
}

/* blk.N.attn_{q,k,v,qkv,output}: the shapes the architecture's
 * load_arch_tensors creates them with (create_tensor_qkv and attn_output). */
static int attn_check(const struct gguf_tensor *t, const char *suffix, uint32_t il, const struct model *m,
		      const struct loader_attn_rule *r, char **err)
{
	static const char *const names[] = {"q", "k", "v"};
	char hq[200], hk[200], hv[200], from[700];
	uint64_t q = expr_eval(m, r->q, il, hq, sizeof(hq));
	uint64_t k = expr_eval(m, r->k, il, hk, sizeof(hk));
	uint64_t v = expr_eval(m, r->v, il, hv, sizeof(hv));
	const uint64_t w[3] = {q, k, v};
	const char *const how[3] = {hq, hk, hv};
	for (unsigned i = 0; i < 3; i++) {
		char wn[24], bn[24];
		snprintf(wn, sizeof(wn), "attn_%s.weight", names[i]);
		snprintf(bn, sizeof(bn), "attn_%s.bias", names[i]);
		snprintf(from, sizeof(from), "%s: %s, as %s's loader (%s) creates it",
			 names[i][0] == 'q'   ? "Q"
			 : names[i][0] == 'k' ? "K"
					      : "V",
			 how[i], m->arch, r->file);
		if (strcmp(suffix, wn) == 0) {
			uint64_t want[2] = {m->n_embd, w[i]};
			return dims(t, want, 2, from, err);
		}
		if (strcmp(suffix, bn) == 0)
			return dims(t, &w[i], 1, from, err);
	}
	if (strcmp(suffix, "attn_qkv.weight") == 0 || strcmp(suffix, "attn_qkv.bias") == 0) {
		uint64_t want[2] = {m->n_embd, q + k + v};
		snprintf(from, sizeof(from), "Q+K+V: %s; %s; %s, as %s's loader (%s) creates it", hq, hk, hv, m->arch,
			 r->file);
		return suffix[9] == 'w' ? dims(t, want, 2, from, err) : dims(t, &want[1], 1, from, err);
	}
	if (strcmp(suffix, "attn_output.weight") == 0) {
		char ho[200];
		uint64_t want[2] = {expr_eval(m, r->o, il, ho, sizeof(ho)), m->n_embd};
		snprintf(from, sizeof(from), "%s, as %s's loader (%s) creates it", ho, m->arch, r->file);
		return dims(t, want, 2, from, err);
	}
	return 0;
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
	const struct loader_attn_rule *attn = attn_rule(m);
	if (attn && (!attn->file || !m->n_head || !m->n_head[0]))
		attn = NULL;
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
		if (attn && attn_check(t, t->name + n, (uint32_t)layer, m, attn, err))
			return -1;
	}
	return 0;
}
