#include "rungs.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/util.h"
#include "solve.h"

/* What a rung gives up, least first (the order of the seeds' tables). */
enum {
	R_NOTHING = 0, /* an upgrade: costs memory only */
	R_PREFILL = 10,
	R_DRAFT_CACHE = 20,
	R_DECODE = 40,
	R_VISION = 50,
	R_PRECISION = 60,
	R_WINDOW = 70,
	R_CONVERSATIONS = 80,
	R_CONTRACT = 85,
	R_ADAPTER = 90,
	R_HEADROOM = 95,
};

static const char *rank_word(int rank)
{
	switch (rank) {
	case R_PREFILL: return "prefill";
	case R_DRAFT_CACHE: return "draft-cache";
	case R_DECODE: return "decode";
	case R_VISION: return "vision";
	case R_PRECISION: return "precision";
	case R_WINDOW: return "window";
	case R_CONVERSATIONS: return "conversations";
	case R_CONTRACT: return "concurrency-contract";
	case R_ADAPTER: return "adapter";
	case R_HEADROOM: return "headroom";
	default: return "nothing";
	}
}

/* The cache types a rung steps through, most exact first; f32 and bf16
 * are never offered (f32 doubles f16 for nothing the cache can use). */
static const char *const ladder[] = {"f16", "q8_0", "q5_1", "q5_0", "q4_1", "iq4_nl", "q4_0"};

struct gen {
	struct solve_ctx sc;
	const struct endpoint *ep;
	const struct shape_ctx *base;
	const struct rungs_opts *o;
	struct rungs *r;
	size_t cap;
	struct term base_terms[TERM_N];
	uint64_t window; /* the endpoint's per-slot window */
};

static void shape_facts(const struct plan_shape *s, const struct plan_extras *x, const struct plan *p,
			struct rungs_shape *f)
{
	memset(f, 0, sizeof(*f));
	f->slots = p->n_seq;
	f->window = p->n_ctx_seq;
	snprintf(f->k, sizeof(f->k), "%s", s->type_k->name);
	snprintf(f->v, sizeof(f->v), "%s", s->type_v->name);
	snprintf(f->draft_k, sizeof(f->draft_k), "%s", s->draft_k->name);
	snprintf(f->draft_v, sizeof(f->draft_v), "%s", s->draft_v->name);
	f->drafter = p->has_draft;
	f->depth = p->has_draft ? s->spec_n_max : 0;
	f->ubatch = s->n_ubatch;
	f->projector = x->projector != NULL;
	f->adapter = x->lora != NULL;
	f->slack_mib = x->slack_mib;
}

static void words_add(struct sb *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void words_add(struct sb *b, const char *fmt, ...)
{
	if (b->len)
		sb_adds(b, "; ");
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(b, fmt, ap);
	va_end(ap);
}

static void type_words(struct sb *b, const char *which, const char *from, const char *to)
{
	int up = cand_type_rank(to) > cand_type_rank(from);
	words_add(b, "%s cache %s (was %s): %s", which, to, from,
		  up			    ? "more exact"
		  : strcmp(which, "K") == 0 ? "quantization error moves into the keys"
					    : "quantization error in the values");
}

/* The cost to the user, from the difference between the two shapes. */
static void describe(const struct gen *g, struct rung *r)
{
	const struct rungs_shape *a = &g->r->base_shape, *z = &r->shape;
	struct sb b = {0};
	char c1[32], c2[32];
	if (z->slots != a->slots)
		words_add(&b, "%u conversation%s at once (was %u): request %u waits for a slot (law A07)", z->slots,
			  z->slots == 1 ? "" : "s", a->slots, z->slots + 1);
	if (z->window != a->window)
		words_add(&b, "per-slot window %s tokens (was %s): clients' contextWindow must follow (law M03)",
			  fmt_commas(z->window, c1, sizeof(c1)), fmt_commas(a->window, c2, sizeof(c2)));
	if (strcmp(z->k, a->k))
		type_words(&b, "K", a->k, z->k);
	if (strcmp(z->v, a->v))
		type_words(&b, "V", a->v, z->v);
	if (z->drafter && !a->drafter)
		words_add(&b, "the MTP drafter armed at depth %u", z->depth);
	else if (!z->drafter && a->drafter)
		words_add(&b, "the MTP drafter off");
	else if (z->drafter && z->depth != a->depth)
		words_add(&b, "draft depth %u (was %u)", z->depth, a->depth);
	if (z->drafter && a->drafter && strcmp(z->draft_k, a->draft_k))
		words_add(&b, "draft cache K %s (was %s): acceptance may drop (unmeasured)", z->draft_k, a->draft_k);
	if (z->drafter && a->drafter && strcmp(z->draft_v, a->draft_v))
		words_add(&b, "draft cache V %s (was %s): acceptance may drop (unmeasured)", z->draft_v, a->draft_v);
	if (z->ubatch != a->ubatch)
		words_add(&b,
			  "prefill in steps of %u tokens (was %u): %s prompt processing; decode does not move with it "
			  "(law S08)",
			  z->ubatch, a->ubatch, z->ubatch < a->ubatch ? "slower" : "faster");
	if (a->projector && !z->projector)
		words_add(&b, "text only: images are refused (no projector)");
	if (a->adapter && !z->adapter)
		words_add(&b, "the adapter's behaviour is gone (law S12)");
	if (z->slack_mib != a->slack_mib)
		words_add(&b,
			  "keeps %llu MiB free (was %llu): less room for a vision request or fragmentation (law M09)",
			  (unsigned long long)z->slack_mib, (unsigned long long)a->slack_mib);
	const char *unified = cand_get(&r->keys, K_KV_UNIFIED);
	if (unified)
		words_add(&b, strcmp(unified, "1") == 0 ? "one pool shared by every slot: a slot may take it all, none "
							  "is guaranteed its window"
							: "a pool per slot: each slot keeps its own window");
	if (cand_get(&r->keys, K_REPACK))
		words_add(&b, "weights stay mapped, without the CPU's repacked kernels: slower matrix multiplies "
			      "(unmeasured)");
	const char *moe = cand_get(&r->keys, K_N_CPU_MOE);
	if (moe) {
		double host = 0;
		for (unsigned i = 0; i < r->rate.n_dev; i++)
			if (strcmp(r->rate.dev[i].name, "host") == 0)
				host = r->rate.dev[i].bytes_per_token;
		words_add(&b,
			  "the experts of the first %s blocks on the host (was %u): decode reads %.0f MiB per token "
			  "there at %.0f GB/s",
			  moe, g->base->shape.place.n_cpu_moe, host / 1048576.0, r->rate.host_bw_gbs);
	}
	const char *fa = cand_get(&r->keys, K_FLASH_ATTN);
	if (fa)
		words_add(&b, "flash attention %s", fa);
	double pct = (r->decode_ratio - 1) * 100;
	if (pct > 0.05 || pct < -0.05)
		words_add(&b, "predicted decode %+.1f %%", pct); /* at the fill the report states once */
	else
		words_add(&b, "predicted decode unchanged");
	snprintf(r->words, sizeof(r->words), "%s", b.s ? b.s : "");
	sb_release(&b);
}

/* Price one change; a change that breaks a law, or that is already the
 * endpoint's shape, is not offered. */
static int offer(struct gen *g, const struct cand *c, int rank, char **err)
{
	struct plan_shape s;
	struct plan_extras x;
	struct cand_limits l;
	const char *law;
	char why[256], line[256];
	cand_line(c, line, sizeof(line));
	for (size_t i = 0; i < g->r->n; i++)
		if (strcmp(g->r->v[i].line, line) == 0)
			return 0;
	struct plan *p = xmalloc(sizeof(*p));
	int rc = solve_candidate(&g->sc, c, &s, &x, &l, &law, why, sizeof(why), p, err);
	if (rc || law) {
		free(p);
		return rc;
	}
	if (g->r->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 32;
		g->r->v = xreallocarray(g->r->v, g->cap, sizeof(*g->r->v));
	}
	struct rung *r = &g->r->v[g->r->n];
	memset(r, 0, sizeof(*r));
	r->keys = *c;
	snprintf(r->line, sizeof(r->line), "%s", line);
	r->plan = *p;
	free(p);
	shape_facts(&s, &x, &r->plan, &r->shape);
	struct term t[TERM_N];
	terms_of(&r->plan, t);
	for (int i = 0; i < TERM_N; i++)
		r->delta[i] = (int64_t)t[i].gated - (int64_t)g->base_terms[i].gated;
	r->delta_total = (int64_t)r->plan.device_total - (int64_t)g->r->base.device_total;
	if (r->delta_total == 0 && r->plan.fits == g->r->base.fits && r->plan.slack == g->r->base.slack &&
	    memcmp(&r->shape, &g->r->base_shape, sizeof(r->shape)) == 0)
		return 0; /* no change at all */
	r->rank = r->delta_total > 0 && rank != R_HEADROOM ? R_NOTHING : rank;
	r->gives_up = rank_word(r->rank);
	if (rate_of(g->sc.m, g->base->model->g, &s, &x, &r->plan, &g->o->rate, &r->rate, err))
		return -1;
	r->decode_ratio = rate_ratio(&g->r->base_rate, &r->rate);
	describe(g, r);
	g->r->n++;
	return 0;
}

static int offer1(struct gen *g, enum key_id key, const char *val, int rank, char **err)
{
	struct cand c = {0};
	cand_set(&c, key, val);
	return offer(g, &c, rank, err);
}

static int offer_slots(struct gen *g, uint32_t slots, uint64_t window, int rank, char **err)
{
	const struct plan_shape *s = &g->base->shape;
	struct cand c = {0};
	cand_setu(&c, K_CTX_SIZE, cand_pool(window, slots, s->kv_unified));
	if (slots != s->parallel)
		cand_setu(&c, K_PARALLEL, slots);
	return offer(g, &c, rank, err);
}

static int ladder_at(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(ladder); i++)
		if (strcmp(ladder[i], name) == 0)
			return (int)i;
	if (strcmp(name, "bf16") == 0)
		return 0; /* as wide as f16 */
	return -1;	  /* f32: above the ladder */
}

static int offer_types(struct gen *g, enum key_id key, const char *now, int rank, char **err)
{
	int i = ladder_at(now);
	const char *up = i > 0 ? ladder[i - 1] : NULL;
	const char *down = i + 1 < (int)ARRAY_SIZE(ladder) ? ladder[i + 1] : NULL;
	const char *cheapest = ladder[ARRAY_SIZE(ladder) - 1];
	if (up && strcmp(up, now) && offer1(g, key, up, rank, err))
		return -1;
	if (down && offer1(g, key, down, rank, err))
		return -1;
	if (strcmp(now, cheapest) && (!down || strcmp(down, cheapest)) && offer1(g, key, cheapest, rank, err))
		return -1;
	return 0;
}

/* Whether shape c fits with the experts of the first k blocks on the
 * host; -1 on error. */
static int fits_with(struct gen *g, const struct cand *c0, uint32_t k, char **err)
{
	struct cand c = *c0;
	struct plan_shape s;
	struct plan_extras x;
	struct cand_limits l;
	const char *law;
	char why[256];
	if (cand_setu(&c, K_N_CPU_MOE, k))
		return errorf(err, "too many keys in one shape");
	struct plan *p = xmalloc(sizeof(*p));
	int rc = solve_candidate(&g->sc, &c, &s, &x, &l, &law, why, sizeof(why), p, err);
	int fits = rc ? -1 : !law && p->fits;
	free(p);
	return fits;
}

/* The fewest expert blocks on the host (at least from, at most n) with
 * which shape c fits, bisected (the card's total falls as experts leave
 * it); 0 when even n does not fit, -1 on error. */
static int64_t fewest_experts(struct gen *g, const struct cand *c, uint32_t from, uint32_t n, char **err)
{
	int f = fits_with(g, c, n, err);
	if (f <= 0)
		return f;
	uint32_t lo = from, hi = n; /* hi fits; lo is not known to */
	if ((f = fits_with(g, c, lo, err)) != 0)
		return f < 0 ? -1 : (int64_t)lo;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if ((f = fits_with(g, c, mid, err)) < 0)
			return -1;
		if (f)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

/* Experts to the host (N_CPU_MOE): on a payload with experts and a card,
 * the quarters of the blocks, all of them and none; the fewest that make
 * the endpoint fit when it does not; and one conversation more at the
 * same window with the fewest that make room for it. */
static int offer_experts(struct gen *g, char **err)
{
	const struct plan_shape *s = &g->base->shape;
	const struct model *m = g->sc.m;
	if (!m->n_expert || !g->r->base.n_cards)
		return 0;
	uint32_t n = m->n_layer_all - m->n_nextn, cur = s->place.n_cpu_moe;
	uint32_t vals[] = {0, n / 4, n / 2, n * 3 / 4, n};
	for (size_t i = 0; i < ARRAY_SIZE(vals); i++) {
		if (vals[i] == cur || (i && vals[i] == vals[i - 1]))
			continue;
		struct cand c = {0};
		cand_setu(&c, K_N_CPU_MOE, vals[i]);
		if (offer(g, &c, R_DECODE, err))
			return -1;
	}
	struct cand none = {0};
	if (!g->r->base.fits && cur < n) {
		int64_t k = fewest_experts(g, &none, cur + 1, n, err);
		if (k < 0)
			return -1;
		if (k > 0) {
			struct cand c = {0};
			cand_setu(&c, K_N_CPU_MOE, (uint64_t)k);
			if (offer(g, &c, R_DECODE, err))
				return -1;
		}
	}
	uint32_t slots = s->parallel ? s->parallel : 1;
	if (slots < 256 && cur < n) {
		struct cand more = {0};
		cand_setu(&more, K_CTX_SIZE, cand_pool(g->window, slots + 1, s->kv_unified));
		cand_setu(&more, K_PARALLEL, slots + 1);
		int64_t k = fewest_experts(g, &more, cur, n, err);
		if (k < 0)
			return -1;
		if (k > (int64_t)cur) {
			cand_setu(&more, K_N_CPU_MOE, (uint64_t)k);
			if (offer(g, &more, R_DECODE, err))
				return -1;
		}
	}
	return 0;
}

static int generate(struct gen *g, char **err)
{
	const struct shape_ctx *b = g->base;
	const struct plan_shape *s = &b->shape;
	const struct model *m = g->sc.m;
	uint32_t n = s->parallel ? s->parallel : 1;
	uint64_t W = g->window;
	char v[32];

	/* the drafter */
	if (s->spec_mtp && g->r->base.has_draft) {
		if (offer1(g, K_SPEC_TYPE, "none", R_DECODE, err))
			return -1;
		if (s->spec_n_max > 1) {
			snprintf(v, sizeof(v), "%u", s->spec_n_max - 1);
			if (offer1(g, K_SPEC_DRAFT_N_MAX, v, R_DECODE, err))
				return -1;
		}
		snprintf(v, sizeof(v), "%u", s->spec_n_max + 1);
		if (s->spec_n_max < 8 && offer1(g, K_SPEC_DRAFT_N_MAX, v, R_DECODE, err))
			return -1;
		/* a gemma4-assistant keeps no cache: its draft types move nothing */
		if (!s->spec_assist && cand_type_rank(s->draft_k->name) > cand_type_rank("q8_0") &&
		    offer1(g, K_SPEC_DRAFT_TYPE_K, "q8_0", R_DRAFT_CACHE, err))
			return -1;
		if (!s->spec_assist && cand_type_rank(s->draft_v->name) > cand_type_rank("q8_0") &&
		    offer1(g, K_SPEC_DRAFT_TYPE_V, "q8_0", R_DRAFT_CACHE, err))
			return -1;
	} else if (!s->spec_mtp && m->n_nextn && m->mtp_tensors) {
		if (offer1(g, K_SPEC_TYPE, "draft-mtp", R_DECODE, err))
			return -1;
	}
	/* conversations at the same window */
	if (n > 1 && offer_slots(g, n - 1, W, R_CONVERSATIONS, err))
		return -1;
	if (n < 256 && offer_slots(g, n + 1, W, R_CONVERSATIONS, err))
		return -1;
	/* the same slots at a smaller window, and at the largest that fits */
	uint64_t w34 = W * 3 / 4 / SOLVE_STEP * SOLVE_STEP, w12 = W / 2 / SOLVE_STEP * SOLVE_STEP;
	if (w34 >= SOLVE_STEP && w34 < W && offer_slots(g, n, w34, R_WINDOW, err))
		return -1;
	if (w12 >= SOLVE_STEP && w12 < w34 && offer_slots(g, n, w12, R_WINDOW, err))
		return -1;
	{
		struct plan_shape ss;
		struct plan_extras x;
		struct cand_limits l;
		if (cand_apply(g->ep, b, NULL, &ss, &x, err) || cand_limits(g->ep, m, NULL, &l, err))
			return -1;
		struct solve_window *w = xmalloc(sizeof(*w));
		int rc = solve_window(&g->sc, &ss, &x, &l, SOLVE_STEP, w, err);
		if (rc == 0 && w->window && w->window != W)
			rc = offer_slots(g, n, w->window, R_WINDOW, err);
		free(w);
		if (rc)
			return -1;
	}
	if (offer_experts(g, err))
		return -1;
	/* K and V */
	if (offer_types(g, K_CACHE_TYPE_K, s->type_k->name, R_PRECISION, err) ||
	    offer_types(g, K_CACHE_TYPE_V, s->type_v->name, R_PRECISION, err))
		return -1;
	/* ubatch */
	uint64_t ub = 512, batch = 2048;
	endpoint_uint(g->ep, K_UBATCH_SIZE, &ub, NULL);
	endpoint_uint(g->ep, K_BATCH_SIZE, &batch, NULL);
	if (ub >= 64) {
		struct cand c = {0};
		cand_setu(&c, K_UBATCH_SIZE, ub / 2);
		if (offer(g, &c, R_PREFILL, err))
			return -1;
	}
	if (ub * 2 <= 8192) {
		struct cand c = {0};
		cand_setu(&c, K_UBATCH_SIZE, ub * 2);
		if (ub * 2 > batch)
			cand_setu(&c, K_BATCH_SIZE, ub * 2);
		if (offer(g, &c, R_PREFILL, err))
			return -1;
	}
	/* the CPU backend's repacked weights (cpu only: a CUDA build does not repack) */
	int repacked = 0;
	for (unsigned i = 0; i < g->r->base.n_model; i++)
		repacked |= strcmp(g->r->base.model[i].buft, "CPU_REPACK") == 0;
	if (repacked && offer1(g, K_REPACK, "0", R_DECODE, err))
		return -1;
	/* flash attention, the pool, the projector, the adapter, the slack band */
	if (!s->flash_attn && offer1(g, K_FLASH_ATTN, "on", R_PREFILL, err))
		return -1;
	if (n > 1 && offer1(g, K_KV_UNIFIED, s->kv_unified ? "0" : "1", R_CONTRACT, err))
		return -1;
	if (b->extras.projector && offer1(g, K_MMPROJ_FILE, "", R_VISION, err))
		return -1;
	if (b->extras.lora && offer1(g, K_LORA_FILE, "", R_ADAPTER, err))
		return -1;
	if (b->extras.slack_mib > 512) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)b->extras.slack_mib / 2);
		if (offer1(g, K_SLACK_MIB, v, R_HEADROOM, err))
			return -1;
	}
	return 0;
}

static int order(const void *pa, const void *pb)
{
	const struct rung *a = pa, *b = pb;
	if (a->plan.fits != b->plan.fits)
		return b->plan.fits - a->plan.fits;
	int fa = a->delta_total <= 0, fb = b->delta_total <= 0;
	if (fa != fb)
		return fb - fa;
	if (a->rank != b->rank)
		return a->rank - b->rank;
	/* the smallest step first: it gives up (or costs) the least */
	int64_t ma = a->delta_total < 0 ? -a->delta_total : a->delta_total;
	int64_t mb = b->delta_total < 0 ? -b->delta_total : b->delta_total;
	if (ma != mb)
		return ma < mb ? -1 : 1;
	return strcmp(a->line, b->line);
}

int rungs_make(const struct endpoint *ep, const struct shape_ctx *base, const struct rungs_opts *o, struct rungs *r,
	       char **err)
{
	memset(r, 0, sizeof(*r));
	double t0 = mono_ms();
	struct gen *g = xcalloc(1, sizeof(*g));
	g->ep = ep;
	g->base = base;
	g->r = r;
	solve_init(&g->sc, ep, base);
	int rc = -1;
	struct plan_shape s;
	struct plan_extras x;
	struct rungs_opts oo = *o;
	g->o = &oo;
	if (cand_apply(ep, base, NULL, &s, &x, err) || solve_plan(&g->sc, &s, &x, &r->base, err))
		goto done;
	if (!oo.rate.host_bw_gbs && rate_host_bw(ep, &oo.rate.host_bw_gbs, err))
		goto done;
	g->window = r->base.n_ctx_seq;
	if (!oo.rate.fill)
		oo.rate.fill = g->window / 2;
	shape_facts(&s, &x, &r->base, &r->base_shape);
	terms_of(&r->base, g->base_terms);
	if (rate_of(g->sc.m, base->model->g, &s, &x, &r->base, &oo.rate, &r->base_rate, err))
		goto done;
	if (generate(g, err))
		goto done;
	qsort(r->v, r->n, sizeof(*r->v), order);
	rc = 0;
done:
	r->plans = g->sc.plans;
	r->ms = mono_ms() - t0;
	solve_release(&g->sc);
	free(g);
	return rc;
}

void rungs_release(struct rungs *r)
{
	free(r->v);
	r->v = NULL;
	r->n = 0;
}
