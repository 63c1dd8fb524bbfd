#include "cand.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

/* Most exact first. f32 and bf16 are the engine's too; the solver's
 * default ladders leave them out (see solve.c). */
const char *const cand_types[] = {"f32", "f16", "bf16", "q8_0", "q5_1", "q5_0", "q4_1", "iq4_nl", "q4_0"};
const unsigned cand_n_types = ARRAY_SIZE(cand_types);

int cand_type_rank(const char *name)
{
	for (unsigned i = 0; i < cand_n_types; i++)
		if (strcmp(name, cand_types[i]) == 0)
			return (int)(cand_n_types - i);
	return 0;
}

int cand_set(struct cand *c, enum key_id key, const char *value)
{
	if ((size_t)key >= keys_count() || strlen(value) >= sizeof(c->val[0]))
		return -1;
	unsigned i = 0;
	while (i < c->n && c->key[i] != key)
		i++;
	if (i == c->n) {
		if (c->n == CAND_MAX_KEYS)
			return -1;
		c->n++;
	}
	c->key[i] = key;
	snprintf(c->val[i], sizeof(c->val[i]), "%s", value);
	return 0;
}

int cand_setu(struct cand *c, enum key_id key, uint64_t value)
{
	char v[32];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)value);
	return cand_set(c, key, v);
}

const char *cand_get(const struct cand *c, enum key_id key)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->key[i] == key)
			return c->val[i];
	return NULL;
}

const struct key_def *cand_arg_key(const char *arg, char name[CAND_NAME_MAX], const char **val)
{
	const char *eq = strchr(arg, '=');
	name[0] = '\0';
	if (!eq || eq == arg || (size_t)(eq - arg) >= CAND_NAME_MAX)
		return NULL;
	snprintf(name, CAND_NAME_MAX, "%.*s", (int)(eq - arg), arg);
	*val = eq + 1;
	const struct key_def *k = key_by_name(name);
	return k && cand_key_ok(k->id) ? k : NULL;
}

int cand_parse_line(struct cand *c, const char *kv, char **err)
{
	char name[CAND_NAME_MAX];
	const char *val;
	const struct key_def *k = cand_arg_key(kv, name, &val);
	if (!name[0])
		return errorf(err, "'%s': expected KEY=VALUE", kv);
	if (!k)
		return errorf(err, "'%s': %s is not a key a candidate shape may set", kv, name);
	if (cand_set(c, k->id, val))
		return errorf(err, "'%s': too many or too long", kv);
	return 0;
}

void cand_line(const struct cand *c, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < c->n && o < n; i++) {
		int w = snprintf(buf + o, n - o, "%s%s=%s", i ? " " : "", key_name(c->key[i]), c->val[i]);
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

int cand_key_ok(enum key_id key)
{
	const struct key_def *k = keys_at((size_t)key);
	return k && k->target != KEY_T_NONE;
}

/* A value as asked: the candidate's, else the endpoint's in force. */
static int asked(const struct endpoint *ep, const struct cand *c, enum key_id key, uint64_t *out, char **err)
{
	const char *v = c ? cand_get(c, key) : NULL;
	if (v)
		return key_parse_uint(keys_at(key), v, out, err);
	return endpoint_uint(ep, key, out, err);
}

int cand_apply(const struct endpoint *ep, const struct shape_ctx *base, const struct cand *c, struct plan_shape *s,
	       struct plan_extras *x, char **err)
{
	*s = base->shape;
	*x = base->extras;
	uint64_t ubatch, batch;
	if (asked(ep, c, K_UBATCH_SIZE, &ubatch, err) || asked(ep, c, K_BATCH_SIZE, &batch, err))
		return -1;
	for (unsigned i = 0; c && i < c->n; i++)
		if (shape_set(s, x, c->key[i], c->val[i], err))
			return -1;
	/* the engine's clamps, as shape_load applies them */
	shape_clamp(s, batch, ubatch);
	return 0;
}

int cand_limits(const struct endpoint *ep, const struct model *m, const struct cand *c, struct cand_limits *l,
		char **err)
{
	memset(l, 0, sizeof(*l));
	if (asked(ep, c, K_UBATCH_SIZE, &l->ubatch_asked, err) || asked(ep, c, K_BATCH_SIZE, &l->batch_asked, err))
		return -1;
	const char *fa = c ? cand_get(c, K_FLASH_ATTN) : NULL;
	if (!fa)
		fa = endpoint_value(ep, K_FLASH_ATTN);
	l->fa_on = fa && strcmp(fa, "on") == 0;
	l->window_cap = shape_window_cap(ep, m);
	return 0;
}

const char *cand_law(const struct model *m, const struct plan_shape *s, const struct cand_limits *l, char *why,
		     size_t n)
{
	struct shape_breach b;
	if (!shape_laws(m, s, l, SHAPE_LAWS_ALL, &b, 1))
		return NULL;
	snprintf(why, n, "%s", b.reason);
	return b.law;
}

uint64_t cand_window(const struct plan_shape *s)
{
	uint64_t n_ctx = (s->ctx_size + 255) / 256 * 256;
	if (s->kv_unified)
		return n_ctx;
	uint32_t n_seq = s->parallel ? s->parallel : 1;
	return (n_ctx / n_seq + 255) / 256 * 256;
}

uint64_t cand_pool(uint64_t w, uint32_t slots, int unified)
{
	return unified ? w : w * slots;
}

void cand_shape_keys(const struct endpoint *ep, const struct cand *c, const struct plan_shape *s, struct cand *out)
{
	static const enum key_id keys[] = {K_PARALLEL,	 K_KV_UNIFIED, K_CACHE_TYPE_K, K_CACHE_TYPE_V,
					   K_FLASH_ATTN, K_BATCH_SIZE, K_UBATCH_SIZE,  K_SPEC_TYPE};
	static const enum key_id draft[] = {K_SPEC_DRAFT_N_MAX, K_SPEC_DRAFT_TYPE_K, K_SPEC_DRAFT_TYPE_V};
	memset(out, 0, sizeof(*out));
	cand_setu(out, K_CTX_SIZE, s->ctx_size);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = c ? cand_get(c, keys[i]) : NULL;
		if (!v)
			v = endpoint_value(ep, keys[i]);
		cand_set(out, keys[i], v ? v : "");
	}
	/* the experts on the host, when a candidate or the endpoint places any */
	const char *moe = c ? cand_get(c, K_N_CPU_MOE) : NULL;
	if (!moe)
		moe = endpoint_value(ep, K_N_CPU_MOE);
	if (moe && *moe && strcmp(moe, "0") != 0)
		cand_set(out, K_N_CPU_MOE, moe);
	for (size_t i = 0; s->spec_mtp && i < ARRAY_SIZE(draft); i++) {
		const char *v = c ? cand_get(c, draft[i]) : NULL;
		if (!v)
			v = endpoint_value(ep, draft[i]);
		cand_set(out, draft[i], v ? v : "");
	}
}
