#include "gguf_diff.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "ggml_type.h"

/* general.* (but the architecture and alignment) and split.*: who made the
 * file, not what the engine loads. */
static int provenance(const char *key)
{
	if (strncmp(key, "split.", 6) == 0)
		return 1;
	return strncmp(key, "general.", 8) == 0 && strcmp(key, "general.architecture") != 0 &&
	       strcmp(key, "general.alignment") != 0;
}

/* Element i of two numeric arrays of the same type agree. */
static int elem_same(const struct gguf_kv *a, const struct gguf_kv *b, uint64_t i)
{
	double x, y;
	if (gguf_arr_f64(a, i, &x) == 0 && gguf_arr_f64(b, i, &y) == 0)
		return x == y;
	uint64_t u, w;
	if (gguf_arr_u64(a, i, &u) == 0 && gguf_arr_u64(b, i, &w) == 0)
		return u == w;
	return 1;
}

static int arrays_same(const struct gguf_kv *a, const struct gguf_kv *b)
{
	if (a->arr_type != b->arr_type || a->arr_n != b->arr_n)
		return 0;
	if (a->arr_type == GGUF_STRING) {
		uint64_t ia = 0, ib = 0;
		const uint8_t *pa = NULL, *pb = NULL;
		struct gguf_str sa, sb;
		while (gguf_arr_next_str(a, &ia, &pa, &sa) == 0 && gguf_arr_next_str(b, &ib, &pb, &sb) == 0)
			if (sa.n != sb.n || memcmp(sa.p, sb.p, sa.n) != 0)
				return 0;
		return 1;
	}
	if (a->arr_type == GGUF_ARRAY)
		return 1; /* nested arrays: compared by count */
	for (uint64_t i = 0; i < a->arr_n; i++)
		if (!elem_same(a, b, i))
			return 0;
	return 1;
}

static int kv_same(const struct gguf_kv *a, const struct gguf_kv *b)
{
	if (a->type != b->type)
		return 0;
	switch (a->type) {
	case GGUF_STRING: return a->v.s.n == b->v.s.n && memcmp(a->v.s.p, b->v.s.p, a->v.s.n) == 0;
	case GGUF_ARRAY: return arrays_same(a, b);
	case GGUF_F32:
	case GGUF_F64: return a->v.f == b->v.f;
	default: return a->v.u == b->v.u;
	}
}

char *gguf_kv_text(const struct gguf_kv *kv)
{
	char n[32];
	switch (kv->type) {
	case GGUF_STRING: {
		size_t len = kv->v.s.n > 60 ? 57 : (size_t)kv->v.s.n;
		struct sb s = {0};
		for (size_t i = 0; i < len; i++) {
			char c = kv->v.s.p[i];
			sb_addc(&s, c == '\n' || c == '\r' || c == '\t' ? ' ' : c);
		}
		if (len < kv->v.s.n)
			sb_addf(&s, "... (%s bytes)", fmt_commas(kv->v.s.n, n, sizeof(n)));
		return sb_detach(&s);
	}
	case GGUF_ARRAY: return xstrf("[%s %s]", fmt_commas(kv->arr_n, n, sizeof(n)), gguf_vtype_name(kv->arr_type));
	case GGUF_F32:
	case GGUF_F64: return xstrf("%g", kv->v.f);
	case GGUF_BOOL: return xstrdup(kv->v.u ? "true" : "false");
	case GGUF_I8:
	case GGUF_I16:
	case GGUF_I32:
	case GGUF_I64: return xstrf("%lld", (long long)kv->v.i);
	default: return xstrf("%llu", (unsigned long long)kv->v.u);
	}
}

static char *tensor_text(const struct gguf_tensor *t)
{
	struct sb s = {0};
	const struct ggml_type_info *ti = ggml_type_get(t->type);
	if (ti)
		sb_adds(&s, ti->name);
	else
		sb_addf(&s, "type %u", t->type);
	sb_adds(&s, " [");
	for (uint32_t d = 0; d < t->n_dims; d++)
		sb_addf(&s, "%s%llu", d ? ", " : "", (unsigned long long)t->ne[d]);
	sb_adds(&s, "]");
	return sb_detach(&s);
}

static void add(struct gguf_diff *d, enum gguf_diff_kind kind, const char *name, char *a, char *b)
{
	d->v = xreallocarray(d->v, d->n + 1, sizeof(*d->v));
	int prov = kind == GGUF_DIFF_KEY && provenance(name);
	d->v[d->n++] =
	    (struct gguf_diff_row){kind, xstrdup(name), a ? a : xstrdup("(absent)"), b ? b : xstrdup("(absent)"), prov};
	if (kind == GGUF_DIFF_TENSOR)
		d->tensors_differ++;
	else if (!prov)
		d->keys_differ++;
}

static int tensor_same(const struct gguf_tensor *x, const struct gguf_tensor *y)
{
	if (x->type != y->type || x->n_dims != y->n_dims)
		return 0;
	for (uint32_t k = 0; k < x->n_dims; k++)
		if (x->ne[k] != y->ne[k])
			return 0;
	return 1;
}

/* What one kind of item (a key, a tensor) is to the comparison: how many a
 * header holds, the i-th's name, one found by name, two compared, one in
 * words. */
struct items {
	enum gguf_diff_kind kind;
	uint64_t (*count)(const struct gguf *g);
	const void *(*at)(const struct gguf *g, uint64_t i, const char **name);
	const void *(*find)(const struct gguf *g, const char *name);
	int (*same)(const void *x, const void *y);
	char *(*text)(const void *x);
};

static uint64_t n_keys(const struct gguf *g)
{
	return g->n_kv;
}
static uint64_t n_tensors(const struct gguf *g)
{
	return g->n_tensors;
}
static const void *key_at(const struct gguf *g, uint64_t i, const char **name)
{
	*name = g->kv[i].key;
	return &g->kv[i];
}
static const void *tensor_at(const struct gguf *g, uint64_t i, const char **name)
{
	*name = g->tensors[i].name;
	return &g->tensors[i];
}
static const void *key_find(const struct gguf *g, const char *name)
{
	return gguf_find(g, name);
}
static const void *tensor_find(const struct gguf *g, const char *name)
{
	return gguf_tensor_find(g, name);
}
static int key_same(const void *x, const void *y)
{
	return kv_same(x, y);
}
static int tensor_same_v(const void *x, const void *y)
{
	return tensor_same(x, y);
}
static char *key_text(const void *x)
{
	return gguf_kv_text(x);
}
static char *tensor_text_v(const void *x)
{
	return tensor_text(x);
}

static const struct items keys = {GGUF_DIFF_KEY, n_keys, key_at, key_find, key_same, key_text};
static const struct items tensors = {GGUF_DIFF_TENSOR, n_tensors, tensor_at, tensor_find, tensor_same_v, tensor_text_v};

/* Every item of a against b (only in a, or different), then those only in
 * b; *same counts the equal ones. */
static void diff_items(const struct items *it, const struct gguf *a, const struct gguf *b, struct gguf_diff *d,
		       size_t *same)
{
	const char *name;
	for (uint64_t i = 0; i < it->count(a); i++) {
		const void *x = it->at(a, i, &name), *y = it->find(b, name);
		if (y && it->same(x, y))
			(*same)++;
		else
			add(d, it->kind, name, it->text(x), y ? it->text(y) : NULL);
	}
	for (uint64_t i = 0; i < it->count(b); i++) {
		const void *y = it->at(b, i, &name);
		if (!it->find(a, name))
			add(d, it->kind, name, NULL, it->text(y));
	}
}

void gguf_diff(const struct gguf *a, const struct gguf *b, struct gguf_diff *d)
{
	memset(d, 0, sizeof(*d));
	diff_items(&keys, a, b, d, &d->keys_same);
	diff_items(&tensors, a, b, d, &d->tensors_same);
	d->drop_in = d->keys_differ == 0 && d->tensors_differ == 0;
}

static void row_free(struct gguf_diff_row *r)
{
	free(r->name);
	free(r->a);
	free(r->b);
}

void gguf_diff_release(struct gguf_diff *d)
{
	struct gguf_diff_row *end = d->v + d->n;
	for (struct gguf_diff_row *r = d->v; r < end; r++)
		row_free(r);
	free(d->v);
	memset(d, 0, sizeof(*d));
}

/* An unsigned key of g, or def when absent. */
static uint64_t u64_or(const struct gguf *g, const char *key, uint64_t def)
{
	uint64_t v;
	return gguf_kv_u64(gguf_find(g, key), &v) == 0 ? v : def;
}

static int bool_or(const struct gguf *g, const char *key, int def)
{
	int v;
	return gguf_kv_bool(gguf_find(g, key), &v) == 0 ? v : def;
}

/* The engine's common_speculative_are_compatible (common/speculative.cpp):
 * the tokenizer model, add_bos/bos and add_eos/eos, at most 128 tokens
 * apart in size, and every token's text from id 5 to the shorter's end. */
int gguf_vocab_incompatible(const struct gguf *tgt, const struct gguf *dft, char *why, size_t n)
{
	const struct gguf_kv *mt = gguf_find(tgt, "tokenizer.ggml.model"), *md = gguf_find(dft, "tokenizer.ggml.model");
	if (mt && md && mt->type == GGUF_STRING && md->type == GGUF_STRING &&
	    (mt->v.s.n != md->v.s.n || memcmp(mt->v.s.p, md->v.s.p, mt->v.s.n) != 0)) {
		snprintf(why, n, "the tokenizer models differ (%.*s, the drafter's %.*s)", (int)mt->v.s.n, mt->v.s.p,
			 (int)md->v.s.n, md->v.s.p);
		return 1;
	}
	static const char *const ids[][2] = {{"tokenizer.ggml.add_bos_token", "tokenizer.ggml.bos_token_id"},
					     {"tokenizer.ggml.add_eos_token", "tokenizer.ggml.eos_token_id"}};
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++) {
		int at = bool_or(tgt, ids[i][0], 0), ad = bool_or(dft, ids[i][0], 0);
		uint64_t it = u64_or(tgt, ids[i][1], UINT64_MAX), id = u64_or(dft, ids[i][1], UINT64_MAX);
		if (at != ad || (at && it != id)) {
			snprintf(why, n, "%s or %s differ", ids[i][0], ids[i][1]);
			return 1;
		}
	}
	const struct gguf_kv *tt = gguf_find(tgt, "tokenizer.ggml.tokens"),
			     *td = gguf_find(dft, "tokenizer.ggml.tokens");
	uint64_t nt = tt ? tt->arr_n : 0, nd = td ? td->arr_n : 0;
	if ((nt > nd ? nt - nd : nd - nt) > 128) {
		snprintf(why, n, "the vocabularies are %llu and %llu tokens, more than 128 apart",
			 (unsigned long long)nt, (unsigned long long)nd);
		return 1;
	}
	uint64_t ia = 0, ib = 0;
	const uint8_t *pa = NULL, *pb = NULL;
	struct gguf_str sa, sb;
	while (gguf_arr_next_str(tt, &ia, &pa, &sa) == 0 && gguf_arr_next_str(td, &ib, &pb, &sb) == 0)
		if (ia > 5 && (sa.n != sb.n || memcmp(sa.p, sb.p, sa.n) != 0)) {
			snprintf(why, n, "token %llu's text differs", (unsigned long long)(ia - 1));
			return 1;
		}
	return 0;
}
