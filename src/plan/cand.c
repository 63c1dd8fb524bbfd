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

int cand_set(struct cand *c, const char *key, const char *value)
{
	if (strlen(key) >= sizeof(c->key[0]) || strlen(value) >= sizeof(c->val[0]))
		return -1;
	unsigned i = 0;
	while (i < c->n && strcmp(c->key[i], key) != 0)
		i++;
	if (i == c->n) {
		if (c->n == CAND_MAX_KEYS)
			return -1;
		c->n++;
	}
	snprintf(c->key[i], sizeof(c->key[i]), "%s", key);
	snprintf(c->val[i], sizeof(c->val[i]), "%s", value);
	return 0;
}

int cand_setu(struct cand *c, const char *key, uint64_t value)
{
	char v[32];
	snprintf(v, sizeof(v), "%llu", (unsigned long long)value);
	return cand_set(c, key, v);
}

const char *cand_get(const struct cand *c, const char *key)
{
	for (unsigned i = 0; i < c->n; i++)
		if (strcmp(c->key[i], key) == 0)
			return c->val[i];
	return NULL;
}

void cand_line(const struct cand *c, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < c->n && o < n; i++) {
		int w = snprintf(buf + o, n - o, "%s%s=%s", i ? " " : "", c->key[i], c->val[i]);
		if (w < 0)
			break;
		o += (size_t)w;
	}
}

static const char *const shape_keys[] = {
    "CTX_SIZE",		 "PARALLEL",	      "KV_UNIFIED", "CACHE_TYPE_K", "CACHE_TYPE_V", "FLASH_ATTN",
    "BATCH_SIZE",	 "UBATCH_SIZE",	      "NGL",	    "REPACK",	    "SPEC_TYPE",    "SPEC_DRAFT_N_MAX",
    "SPEC_DRAFT_TYPE_K", "SPEC_DRAFT_TYPE_V", "SLACK_MIB",  "MMPROJ_FILE",  "LORA_FILE",    "N_CPU_MOE",
};

int cand_key_ok(const char *key)
{
	for (size_t i = 0; i < ARRAY_SIZE(shape_keys); i++)
		if (strcmp(key, shape_keys[i]) == 0)
			return 1;
	return 0;
}

static int num(const char *key, const char *v, uint64_t max, uint64_t *out, char **err)
{
	if (parse_u64(v, out) || *out > max)
		return errorf(err, "%s=%s: not a whole number in range", key, v);
	return 0;
}

static int boolean(const char *key, const char *v, int *out, char **err)
{
	static const char *const yes[] = {"1", "on", "true", "yes"}, *const no[] = {"0", "off", "false", "no"};
	for (size_t i = 0; i < ARRAY_SIZE(yes); i++) {
		if (strcmp(v, yes[i]) == 0)
			return *out = 1, 0;
		if (strcmp(v, no[i]) == 0)
			return *out = 0, 0;
	}
	return errorf(err, "%s=%s: not a boolean", key, v);
}

static int asked(const struct endpoint *ep, const struct cand *c, const char *key, uint64_t *out, char **err)
{
	const char *v = c ? cand_get(c, key) : NULL;
	if (v)
		return num(key, v, UINT32_MAX, out, err);
	return endpoint_uint(ep, key, out, err);
}

int cand_apply(const struct endpoint *ep, const struct shape_ctx *base, const struct cand *c, struct plan_shape *s,
	       struct plan_extras *x, char **err)
{
	*s = base->shape;
	*x = base->extras;
	uint64_t ubatch, batch, v;
	if (asked(ep, c, "UBATCH_SIZE", &ubatch, err) || asked(ep, c, "BATCH_SIZE", &batch, err))
		return -1;
	for (unsigned i = 0; c && i < c->n; i++) {
		const char *k = c->key[i], *val = c->val[i];
		const struct ggml_type_info *t = NULL;
		if (strncmp(k, "CACHE_TYPE_", 11) == 0 || strncmp(k, "SPEC_DRAFT_TYPE_", 16) == 0) {
			t = shape_cache_type(val);
			if (!t)
				return errorf(err, "%s=%s: not a KV cache type the engine accepts (%s; law S04)", k,
					      val, shape_cache_types());
		}
		if (strcmp(k, "CTX_SIZE") == 0) {
			if (num(k, val, UINT32_MAX, &s->ctx_size, err))
				return -1;
		} else if (strcmp(k, "PARALLEL") == 0) {
			if (num(k, val, UINT32_MAX, &v, err))
				return -1;
			s->parallel = (uint32_t)v;
		} else if (strcmp(k, "KV_UNIFIED") == 0) {
			if (boolean(k, val, &s->kv_unified, err))
				return -1;
		} else if (strcmp(k, "REPACK") == 0) {
			if (boolean(k, val, &s->repack, err))
				return -1;
		} else if (strcmp(k, "CACHE_TYPE_K") == 0) {
			s->type_k = t;
		} else if (strcmp(k, "CACHE_TYPE_V") == 0) {
			s->type_v = t;
		} else if (strcmp(k, "SPEC_DRAFT_TYPE_K") == 0) {
			s->draft_k = t;
		} else if (strcmp(k, "SPEC_DRAFT_TYPE_V") == 0) {
			s->draft_v = t;
		} else if (strcmp(k, "FLASH_ATTN") == 0) {
			if (strcmp(val, "on") && strcmp(val, "off") && strcmp(val, "auto"))
				return errorf(err, "%s=%s: not one of on|off|auto", k, val);
			s->flash_attn = strcmp(val, "off") != 0;
		} else if (strcmp(k, "NGL") == 0) {
			if (num(k, val, UINT32_MAX, &v, err))
				return -1;
			s->ngl = (uint32_t)v;
		} else if (strcmp(k, "N_CPU_MOE") == 0) {
			if (num(k, val, 4096, &v, err))
				return -1;
			s->place.n_cpu_moe = (uint32_t)v;
		} else if (strcmp(k, "SPEC_TYPE") == 0) {
			s->spec_mtp = strstr(val, "draft-mtp") != NULL;
		} else if (strcmp(k, "SPEC_DRAFT_N_MAX") == 0) {
			if (num(k, val, UINT32_MAX, &v, err))
				return -1;
			s->spec_n_max = (uint32_t)v;
		} else if (strcmp(k, "SLACK_MIB") == 0) {
			if (num(k, val, UINT32_MAX, &x->slack_mib, err))
				return -1;
		} else if (strcmp(k, "ADDRESSABLE_MIB") == 0) { /* another card's figure; empty: the profile's */
			x->addressable_mib = 0;
			if (*val && num(k, val, UINT32_MAX, &x->addressable_mib, err))
				return -1;
		} else if (strcmp(k, "MMPROJ_FILE") == 0 || strcmp(k, "LORA_FILE") == 0) {
			if (*val)
				return errorf(err, "%s: only the opt-out (empty) is a candidate, not another file", k);
			if (k[0] == 'M')
				x->projector = NULL;
			else
				x->lora = NULL;
		} else if (strcmp(k, "UBATCH_SIZE") && strcmp(k, "BATCH_SIZE")) {
			return errorf(err, "%s: not a key a candidate shape may change", k);
		}
	}
	/* the engine's clamps, as shape_load applies them */
	s->n_batch = (uint32_t)(batch > s->ctx_size ? s->ctx_size : batch);
	s->n_ubatch = (uint32_t)(ubatch > s->n_batch ? s->n_batch : ubatch);
	return 0;
}

int cand_limits(const struct endpoint *ep, const struct model *m, const struct cand *c, struct cand_limits *l,
		char **err)
{
	memset(l, 0, sizeof(*l));
	if (asked(ep, c, "UBATCH_SIZE", &l->ubatch_asked, err) || asked(ep, c, "BATCH_SIZE", &l->batch_asked, err))
		return -1;
	const char *fa = c ? cand_get(c, "FLASH_ATTN") : NULL;
	if (!fa)
		fa = endpoint_value(ep, "FLASH_ATTN");
	l->fa_on = fa && strcmp(fa, "on") == 0;
	const char *extra = endpoint_value(ep, "EXTRA_ARGS");
	int rope = m->rope_scaling || (extra && (strstr(extra, "--rope-scaling") || strstr(extra, "--yarn-orig-ctx")));
	l->window_cap = rope ? UINT64_MAX : m->n_ctx_train;
	return 0;
}

/* laws.c cache_head: a quantized block must divide the head size */
static int block_ok(const struct ggml_type_info *t, uint32_t head)
{
	return !t || t->blck <= 1 || head == 0 || head % t->blck == 0;
}

static const char *cache_law(const struct model *m, const char *key, const struct ggml_type_info *t, int v, char *why,
			     size_t n)
{
	uint32_t full = v ? m->head_v : m->head_k, swa = v ? m->head_v_swa : m->head_k_swa;
	uint32_t bad = !block_ok(t, full) ? full : m->n_kind[LAYER_SWA] && swa != full && !block_ok(t, swa) ? swa : 0;
	if (!bad)
		return NULL;
	snprintf(why, n, "%s %s has blocks of %u, which do not divide the payload's head size %u", key, t->name,
		 t->blck, bad);
	return "S04";
}

const char *cand_law(const struct model *m, const struct plan_shape *s, const struct cand_limits *l, char *why,
		     size_t n)
{
	const char *law;
	if (s->parallel == 0) {
		snprintf(why, n, "PARALLEL is 0");
		return "M03";
	}
	if (s->ctx_size % s->parallel) {
		snprintf(why, n, "CTX_SIZE %llu is not divisible by PARALLEL %u", (unsigned long long)s->ctx_size,
			 s->parallel);
		return "M03";
	}
	if (l->batch_asked < s->parallel) {
		snprintf(why, n, "BATCH_SIZE %llu is below PARALLEL %u", (unsigned long long)l->batch_asked,
			 s->parallel);
		return "S08";
	}
	if (l->ubatch_asked > l->batch_asked) {
		snprintf(why, n, "UBATCH_SIZE %llu exceeds BATCH_SIZE %llu", (unsigned long long)l->ubatch_asked,
			 (unsigned long long)l->batch_asked);
		return "S08";
	}
	if (s->type_v && s->type_v->blck > 1 && !l->fa_on) {
		snprintf(why, n, "a quantized V cache (%s) exists only on the flash-attention path", s->type_v->name);
		return "S03";
	}
	if ((law = cache_law(m, "CACHE_TYPE_K", s->type_k, 0, why, n)))
		return law;
	if (s->flash_attn && (law = cache_law(m, "CACHE_TYPE_V", s->type_v, 1, why, n)))
		return law;
	/* laws.c cache_heads: MLA reads V from K, the engine refuses K != V types */
	int mla = m->head_k_mla && m->head_v_mla;
	if (mla && s->type_k && s->type_v && s->type_k != s->type_v) {
		snprintf(why, n, "the payload's attention is MLA: CACHE_TYPE_K %s and CACHE_TYPE_V %s differ",
			 s->type_k->name, s->type_v->name);
		return "S04";
	}
	if (mla && s->spec_mtp && s->draft_k && s->draft_v && s->draft_k != s->draft_v) {
		snprintf(why, n, "the payload's attention is MLA: SPEC_DRAFT_TYPE_K %s and SPEC_DRAFT_TYPE_V %s differ",
			 s->draft_k->name, s->draft_v->name);
		return "S04";
	}
	if (s->spec_mtp) {
		if (m->n_nextn == 0 || m->mtp_tensors == 0) {
			snprintf(why, n, "the payload carries no MTP head to draft with");
			return "S06";
		}
		if ((law = cache_law(m, "SPEC_DRAFT_TYPE_K", s->draft_k, 0, why, n)))
			return law;
		if (s->flash_attn && (law = cache_law(m, "SPEC_DRAFT_TYPE_V", s->draft_v, 1, why, n)))
			return law;
	}
	uint64_t slot = !s->kv_unified ? s->ctx_size / s->parallel : s->ctx_size;
	if (slot > l->window_cap) {
		snprintf(why, n, "the per-slot window %llu exceeds the trained context %llu", (unsigned long long)slot,
			 (unsigned long long)l->window_cap);
		return "S02";
	}
	return NULL;
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
	static const char *const keys[] = {"PARALLEL",	 "KV_UNIFIED", "CACHE_TYPE_K", "CACHE_TYPE_V",
					   "FLASH_ATTN", "BATCH_SIZE", "UBATCH_SIZE",  "SPEC_TYPE"};
	static const char *const draft[] = {"SPEC_DRAFT_N_MAX", "SPEC_DRAFT_TYPE_K", "SPEC_DRAFT_TYPE_V"};
	memset(out, 0, sizeof(*out));
	cand_setu(out, "CTX_SIZE", s->ctx_size);
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = c ? cand_get(c, keys[i]) : NULL;
		if (!v)
			v = endpoint_value(ep, keys[i]);
		cand_set(out, keys[i], v ? v : "");
	}
	/* the experts on the host, when a candidate or the endpoint places any */
	const char *moe = c ? cand_get(c, "N_CPU_MOE") : NULL;
	if (!moe)
		moe = endpoint_value(ep, "N_CPU_MOE");
	if (moe && *moe && strcmp(moe, "0") != 0)
		cand_set(out, "N_CPU_MOE", moe);
	for (size_t i = 0; s->spec_mtp && i < ARRAY_SIZE(draft); i++) {
		const char *v = c ? cand_get(c, draft[i]) : NULL;
		if (!v)
			v = endpoint_value(ep, draft[i]);
		cand_set(out, draft[i], v ? v : "");
	}
}
