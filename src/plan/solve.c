#include "solve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/util.h"

#define STEP	   SOLVE_STEP
#define WINDOW_MAX ((uint64_t)1 << 26) /* the search's ceiling when no law caps the window */
#define SLOTS_MAX  256		       /* the engine's LLAMA_MAX_SEQ */
#define MAX_COMBOS 4096

void solve_init(struct solve_ctx *sc, const struct endpoint *ep, const struct shape_ctx *base)
{
	memset(sc, 0, sizeof(*sc));
	sc->ep = ep;
	sc->base = base;
	sc->m = base->census->model;
	sc->memo = memo_new();
	sc->addressable_mib = base->extras.addressable_mib;
	/* the host's free memory moves; a search reads it once */
	if (!sc->addressable_mib && base->dev->backend == DEVICE_CPU)
		sc->addressable_mib = device_host_available_mib();
}

void solve_release(struct solve_ctx *sc)
{
	memo_free(sc->memo);
	memset(sc, 0, sizeof(*sc));
}

int solve_plan(struct solve_ctx *sc, const struct plan_shape *s, const struct plan_extras *x, struct plan *p,
	       char **err)
{
	struct plan_extras xx = *x;
	xx.memo = sc->memo;
	if (!xx.addressable_mib)
		xx.addressable_mib = sc->addressable_mib;
	memo_interval_reset(sc->memo);
	sc->plans++;
	return plan_make(sc->m, sc->base->model->g, s, sc->base->dev, &xx, p, err);
}

int solve_candidate(struct solve_ctx *sc, const struct cand *c, struct plan_shape *s, struct plan_extras *x,
		    struct cand_limits *l, const char **law, char *why, size_t n, struct plan *p, char **err)
{
	if (cand_apply(sc->ep, sc->base, c, s, x, err) || cand_limits(sc->ep, sc->m, c, l, err))
		return -1;
	*law = cand_law(sc->m, s, l, why, n);
	if (*law || !p)
		return 0;
	return solve_plan(sc, s, x, p, err);
}

/* --- the window search ------------------------------------------------ */

static void at_window(struct plan_shape *s, const struct cand_limits *l, uint64_t w)
{
	s->ctx_size = cand_pool(w, s->parallel, s->kv_unified);
	s->n_batch = (uint32_t)(l->batch_asked > s->ctx_size ? s->ctx_size : l->batch_asked);
	s->n_ubatch = (uint32_t)(l->ubatch_asked > s->n_batch ? s->n_batch : l->ubatch_asked);
}

static int64_t margin(const struct plan *p)
{
	return p->free_bytes - (int64_t)p->slack;
}

static uint64_t up(uint64_t x)
{
	return (x + STEP - 1) / STEP * STEP;
}

/* The smallest window above which the shape is regular: the pool holds a
 * whole batch and ubatch (no clamp moves the graphs) and the window layers
 * span their fixed size (no tie to the window). Above it every term but
 * compute is affine in the window, and compute is affine on each piece. */
static uint64_t regular_from(const struct solve_ctx *sc, const struct plan_shape *s, const struct cand_limits *l)
{
	uint64_t per = s->kv_unified ? 1 : (s->parallel ? s->parallel : 1);
	uint64_t need = l->batch_asked > l->ubatch_asked ? l->batch_asked : l->ubatch_asked;
	uint64_t reg = up((need + per - 1) / per);
	const struct model *m = sc->m;
	if (m->n_kind[LAYER_SWA] && m->n_swa && !s->swa_full) {
		uint64_t ub = l->ubatch_asked < l->batch_asked ? l->ubatch_asked : l->batch_asked;
		uint64_t want = (uint64_t)m->n_swa * (s->kv_unified ? s->parallel : 1) + ub;
		if (up(want) + STEP > reg)
			reg = up(want) + STEP;
	}
	return reg;
}

/* Every window from top down to floor, one plan each: the proof of last
 * resort when a piece was not the line it should be. */
static int scan(struct solve_ctx *sc, struct plan_shape *s, const struct plan_extras *x, const struct cand_limits *l,
		uint64_t top, uint64_t floor, uint64_t *found, struct plan *p, char **err)
{
	*found = 0;
	for (uint64_t w = top; w >= floor; w -= STEP) {
		at_window(s, l, w);
		if (solve_plan(sc, s, x, p, err))
			return -1;
		if (p->fits) {
			*found = w;
			return 0;
		}
		if (w < STEP + floor)
			break;
	}
	return 0;
}

/* The window found, and the plan one step up (the refusal that proves it
 * the largest): 1 when that step is past the top (capped), -1 on error. */
static int next_step(struct solve_ctx *sc, struct plan_shape *s, const struct plan_extras *x,
		     const struct cand_limits *l, uint64_t top, uint64_t found, struct solve_window *w, char **err)
{
	w->window = found;
	if (found + STEP > top) {
		w->capped = 1;
		return 1;
	}
	at_window(s, l, found + STEP);
	return solve_plan(sc, s, x, &w->next, err) ? -1 : 0;
}

int solve_window(struct solve_ctx *sc, const struct plan_shape *s0, const struct plan_extras *x,
		 const struct cand_limits *l, uint64_t floor, struct solve_window *w, char **err)
{
	memset(w, 0, sizeof(*w));
	struct plan_shape s = *s0;
	uint64_t cap = l->window_cap < WINDOW_MAX ? l->window_cap : WINDOW_MAX;
	uint64_t top = cap / STEP * STEP;
	floor = up(floor < STEP ? STEP : floor);
	if (top < floor)
		return 0;
	uint64_t reg = regular_from(sc, &s, l);
	struct plan *p = &w->fit, q;
	uint64_t W = top, found = 0;
	int jumped = 0;
	while (W >= floor) {
		at_window(&s, l, W);
		if (solve_plan(sc, &s, x, p, err))
			return -1;
		if (p->fits) {
			found = W;
			break;
		}
		uint64_t lo, hi;
		memo_interval(sc->memo, &lo, &hi);
		if (lo < reg)
			lo = reg;
		if (lo < floor)
			lo = floor;
		if (W < lo + STEP) { /* nothing below W in this piece: the next window */
			if (W < floor + STEP)
				break;
			W -= STEP;
			continue;
		}
		/* the piece's line, from W and one step down */
		uint64_t Wb = W - STEP;
		at_window(&s, l, Wb);
		if (solve_plan(sc, &s, x, &q, err))
			return -1;
		if (q.fits) {
			found = Wb;
			*p = q;
			break;
		}
		int64_t d = margin(&q) - margin(p); /* margin gained per step down */
		uint64_t k = d > 0 ? (uint64_t)((-margin(p) + d - 1) / d) : UINT64_MAX;
		if (d <= 0 || k > (W - lo) / STEP) { /* no window of this piece fits */
			jumped = 1;
			if (lo < floor + STEP)
				break;
			W = lo - STEP;
			continue;
		}
		uint64_t Wc = W - k * STEP;
		at_window(&s, l, Wc);
		if (solve_plan(sc, &s, x, p, err))
			return -1;
		jumped = 1;
		if (p->fits) {
			found = Wc;
			break;
		}
		/* the line did not hold: prove by scanning */
		sc->fallbacks++;
		if (scan(sc, &s, x, l, Wb - STEP, floor, &found, p, err))
			return -1;
		jumped = 0;
		break;
	}
	if (!found)
		return 0;
	int rc = next_step(sc, &s, x, l, top, found, w, err);
	if (rc == 0 && w->next.fits && jumped) {
		/* a skipped window fits after all: the pieces misled; scan */
		sc->fallbacks++;
		if (scan(sc, &s, x, l, top, floor, &found, p, err))
			return -1;
		rc = next_step(sc, &s, x, l, top, found, w, err);
	}
	return rc < 0 ? -1 : 0;
}

/* --- the space ------------------------------------------------------- */

int solve_axis_parse(const char *arg, struct solve_axis *a, char **err)
{
	memset(a, 0, sizeof(*a));
	char name[CAND_NAME_MAX];
	const char *v;
	const struct key_def *k = cand_arg_key(arg, name, &v);
	if (!name[0])
		return errorf(err, "'%s': expected KEY=a,b,...", arg);
	if (!k || k->id == K_CTX_SIZE)
		return errorf(err, "'%s': %s is not a key solve can vary (the window is searched, not listed)", arg,
			      name);
	a->key = k->id;
	while (*v) {
		size_t n = strcspn(v, ",");
		if (n == 0 || n >= sizeof(a->val[0]))
			return errorf(err, "'%s': an empty or overlong value", arg);
		if (a->n == SOLVE_MAX_VALS)
			return errorf(err, "'%s': at most %d values", arg, SOLVE_MAX_VALS);
		memcpy(a->val[a->n], v, n);
		a->val[a->n][n] = '\0';
		/* the key's one parse and range (keys.h): a value the engine
		 * would refuse is a usage error, not a candidate */
		char *why = NULL;
		if (key_check_value(k, a->val[a->n], &why)) {
			errorf(err, "'%s': %s", arg, why);
			free(why);
			return -1;
		}
		a->n++;
		v += n + (v[n] == ',');
	}
	if (!a->n)
		return errorf(err, "'%s': no values", arg);
	return 0;
}

static void axis_add(struct solve_axis *a, const char *v)
{
	for (unsigned i = 0; i < a->n; i++)
		if (strcmp(a->val[i], v) == 0)
			return;
	if (a->n < SOLVE_MAX_VALS)
		snprintf(a->val[a->n++], sizeof(a->val[0]), "%s", v);
}

static void axis_addu(struct solve_axis *a, uint64_t v)
{
	char b[32];
	snprintf(b, sizeof(b), "%llu", (unsigned long long)v);
	axis_add(a, b);
}

/* How good a value is on its axis (higher better); *ordered 0 for the
 * axes where only equality means no worse. */
static long order(enum key_id key, const char *val, int *ordered)
{
	*ordered = 1;
	if (key == K_CACHE_TYPE_K || key == K_CACHE_TYPE_V || key == K_SPEC_DRAFT_TYPE_K || key == K_SPEC_DRAFT_TYPE_V)
		return cand_type_rank(val);
	if (key == K_SPEC_TYPE)
		return strstr(val, "draft-mtp") != NULL;
	if (key == K_N_CPU_MOE) { /* fewer experts on the host: faster decode */
		uint64_t v = 0;
		parse_u64(val, &v);
		return -(long)v;
	}
	if (key == K_PARALLEL || key == K_UBATCH_SIZE || key == K_SPEC_DRAFT_N_MAX || key == K_BATCH_SIZE) {
		uint64_t v = 0;
		parse_u64(val, &v);
		return (long)v;
	}
	*ordered = 0;
	return 0;
}

/* The value in force for key: the candidate's, else the endpoint's. */
static const char *value_of(const struct solve_ctx *sc, const struct cand *c, enum key_id key)
{
	const char *v = cand_get(c, key);
	if (!v)
		v = endpoint_value(sc->ep, key);
	return v ? v : "";
}

struct combo {
	struct cand c;
	struct solve_shape sh;
	int ok; /* legal and a window fits at or above the floor */
};

/* A shape found: every key, ready to paste, its plan and its rate. */
static int describe(struct solve_ctx *sc, const struct cand *c, const struct plan_shape *s, const struct plan_extras *x,
		    const struct solve_window *w, const struct solve_opts *o, const struct rate *base_rate,
		    struct solve_shape *sh, char **err)
{
	memset(sh, 0, sizeof(*sh));
	struct plan_shape at = *s;
	at.ctx_size = cand_pool(w->window, s->parallel, s->kv_unified);
	struct cand k;
	cand_shape_keys(sc->ep, c, &at, &k);
	for (unsigned i = 0; i < o->fix.n; i++) /* the pinned extras (SLACK_MIB, MMPROJ_FILE=...) */
		if (!cand_get(&k, o->fix.key[i]) &&
		    (s->spec_mtp || strncmp(key_name(o->fix.key[i]), "SPEC_DRAFT_", 11)))
			cand_set(&k, o->fix.key[i], o->fix.val[i]);
	sh->keys = k;
	sh->slots = s->parallel;
	sh->window = w->window;
	snprintf(sh->k, sizeof(sh->k), "%s", s->type_k->name);
	snprintf(sh->v, sizeof(sh->v), "%s", s->type_v->name);
	sh->drafter = w->fit.has_draft;
	sh->depth = s->spec_mtp ? s->spec_n_max : 0;
	uint64_t ub = s->n_ubatch;
	parse_u64(value_of(sc, c, K_UBATCH_SIZE), &ub);
	sh->ubatch = (uint32_t)ub;
	sh->capped = w->capped;
	sh->plan = w->fit;
	sh->next = w->next;
	if (rate_of(sc->m, sc->base->model->g, &at, x, &w->fit, &o->rate, &sh->rate, err))
		return -1;
	sh->decode_ratio = rate_ratio(base_rate, &sh->rate);
	return 0;
}

/* The default space around the endpoint's shape. */
static void default_axes(struct solve_ctx *sc, const struct solve_opts *o, struct solve_axis *ax, unsigned *n)
{
	const struct shape_ctx *b = sc->base;
	*n = 0;
	struct solve_axis *a = &ax[(*n)++];
	a->key = K_PARALLEL;
	a->n = 0;
	if (o->slots) {
		axis_addu(a, o->slots);
	} else {
		uint32_t top = b->shape.parallel + 1 > 4 ? b->shape.parallel + 1 : 4;
		for (uint32_t i = 1; i <= top && a->n < SOLVE_MAX_VALS; i++)
			axis_addu(a, i);
	}
	static const enum key_id kv[] = {K_CACHE_TYPE_K, K_CACHE_TYPE_V};
	static const char *const ladder[] = {"f16", "q8_0", "q4_0"};
	for (size_t i = 0; i < 2; i++) {
		a = &ax[(*n)++];
		a->key = kv[i];
		a->n = 0;
		for (size_t j = 0; j < ARRAY_SIZE(ladder); j++)
			axis_add(a, ladder[j]);
		axis_add(a, endpoint_value(sc->ep, kv[i]));
	}
	a = &ax[(*n)++];
	a->key = K_SPEC_TYPE;
	a->n = 0;
	const char *spec = endpoint_value(sc->ep, K_SPEC_TYPE);
	axis_add(a, spec ? spec : "none");
	if (sc->m->n_nextn && sc->m->mtp_tensors)
		axis_add(a, b->shape.spec_mtp ? "none" : "draft-mtp");
	if (sc->m->n_expert && o->cards) { /* experts to the host: none, the quarters, all */
		uint32_t nb = sc->m->n_layer_all - sc->m->n_nextn;
		a = &ax[(*n)++];
		a->key = K_N_CPU_MOE;
		a->n = 0;
		axis_addu(a, b->shape.place.n_cpu_moe);
		axis_addu(a, 0);
		axis_addu(a, nb / 4);
		axis_addu(a, nb / 2);
		axis_addu(a, nb * 3 / 4);
		axis_addu(a, nb);
	}
	a = &ax[(*n)++];
	a->key = K_UBATCH_SIZE;
	a->n = 0;
	axis_addu(a, 512);
	axis_addu(a, 1024);
	axis_addu(a, 2048);
	uint64_t ub = 512;
	endpoint_uint(sc->ep, K_UBATCH_SIZE, &ub, NULL);
	axis_addu(a, ub);
}

static int find_axis(const struct solve_axis *ax, unsigned n, enum key_id key)
{
	for (unsigned i = 0; i < n; i++)
		if (ax[i].key == key)
			return (int)i;
	return -1;
}

/* a no worse than b on every axis and the window, better on one */
static int dominates(const struct combo *a, const struct combo *b, const struct solve_axis *ax, unsigned n)
{
	int better = 0;
	if (a->sh.window < b->sh.window)
		return 0;
	better |= a->sh.window > b->sh.window;
	for (unsigned i = 0; i < n; i++) {
		int ordered;
		const char *va = cand_get(&a->c, ax[i].key), *vb = cand_get(&b->c, ax[i].key);
		if (!va || !vb)
			continue;
		long oa = order(ax[i].key, va, &ordered), ob = order(ax[i].key, vb, &ordered);
		if (!ordered) {
			if (strcmp(va, vb) != 0)
				return 0;
			continue;
		}
		if (oa < ob)
			return 0;
		better |= oa > ob;
	}
	return better;
}

static int precision(const struct solve_shape *s)
{
	return cand_type_rank(s->k) + cand_type_rank(s->v);
}

/* The objective, then window, precision (K before V), the drafter,
 * ubatch and slots, so the answer is one shape. >0 when a is better. */
static int better(const struct solve_shape *a, const struct solve_shape *b, enum solve_objective obj)
{
	long d[8];
	int n = 0;
	if (obj == SOLVE_SLOTS)
		d[n++] = (long)a->slots - (long)b->slots;
	if (obj == SOLVE_RATE && a->rate.ms_per_token > 0 && b->rate.ms_per_token > 0) {
		double q = b->rate.ms_per_token / a->rate.ms_per_token; /* > 1: a is faster */
		d[n++] = q > 1 + 1e-9 ? 1 : q < 1 - 1e-9 ? -1 : 0;
	}
	if (obj == SOLVE_PRECISION) {
		d[n++] = precision(a) - precision(b);
		d[n++] = cand_type_rank(a->k) - cand_type_rank(b->k);
	}
	d[n++] = a->window > b->window ? 1 : a->window < b->window ? -1 : 0;
	d[n++] = precision(a) - precision(b);
	d[n++] = cand_type_rank(a->k) - cand_type_rank(b->k);
	d[n++] = a->drafter - b->drafter;
	d[n++] = (long)a->ubatch - (long)b->ubatch;
	d[n++] = (long)a->slots - (long)b->slots;
	for (int i = 0; i < n; i++)
		if (d[i])
			return d[i] > 0;
	return 0;
}

/* The frontier ordered by the objective (better's order), the best first,
 * equal shapes in the order found: what --top N cuts. An insertion sort
 * through one spare shape (a frontier is tens of shapes). */
static void rank_frontier(struct solve_result *r, enum solve_objective obj)
{
	if (r->n_frontier < 2)
		return;
	struct solve_shape *t = xmalloc(sizeof(*t));
	for (size_t i = 1; i < r->n_frontier; i++) {
		size_t j = i;
		memcpy(t, &r->frontier[i], sizeof(*t));
		for (; j > 0 && better(t, &r->frontier[j - 1], obj); j--)
			memcpy(&r->frontier[j], &r->frontier[j - 1], sizeof(*t));
		memcpy(&r->frontier[j], t, sizeof(*t));
	}
	free(t);
}

/* Build a combination's lines: --fix, then the axes' values; a ubatch
 * above the batch raises the batch with it (law S08). */
static int combo_lines(struct solve_ctx *sc, const struct solve_opts *o, const struct solve_axis *ax, unsigned n,
		       const unsigned *idx, struct cand *c)
{
	memset(c, 0, sizeof(*c));
	for (unsigned i = 0; i < o->fix.n; i++)
		if (cand_set(c, o->fix.key[i], o->fix.val[i]))
			return -1;
	for (unsigned i = 0; i < n; i++)
		if (cand_set(c, ax[i].key, ax[i].val[idx[i]]))
			return -1;
	uint64_t ub = 0, b = 0;
	if (parse_u64(value_of(sc, c, K_UBATCH_SIZE), &ub) == 0 && parse_u64(value_of(sc, c, K_BATCH_SIZE), &b) == 0 &&
	    ub > b && find_axis(ax, n, K_BATCH_SIZE) < 0 && !cand_get(&o->fix, K_BATCH_SIZE))
		cand_setu(c, K_BATCH_SIZE, ub);
	return 0;
}

/* One combination: its law, then its largest window at or above floor. */
static int run_combo(struct solve_ctx *sc, const struct solve_opts *o, const struct rate *base_rate, uint64_t floor,
		     struct combo *cb, char **err)
{
	struct plan_shape s;
	struct plan_extras x;
	struct cand_limits l;
	const char *law;
	char why[256];
	cb->ok = 0;
	if (cand_apply(sc->ep, sc->base, &cb->c, &s, &x, err) || cand_limits(sc->ep, sc->m, &cb->c, &l, err))
		return -1;
	/* judge the shape at one step per slot: the window is the search's */
	s.ctx_size = cand_pool(STEP, s.parallel, s.kv_unified);
	law = cand_law(sc->m, &s, &l, why, sizeof(why));
	if (law)
		return 0;
	struct solve_window *w = xmalloc(sizeof(*w));
	int rc = solve_window(sc, &s, &x, &l, floor, w, err);
	if (rc == 0 && w->window) {
		rc = describe(sc, &cb->c, &s, &x, w, o, base_rate, &cb->sh, err);
		cb->ok = rc == 0;
	}
	free(w);
	return rc;
}

/* May this combination be the best: each axis no worse than the
 * endpoint's value, unless --vary opened it or the objective moves it. */
static int gives_up_nothing(struct solve_ctx *sc, const struct solve_opts *o, const struct cand *c,
			    const struct solve_axis *ax, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		enum key_id key = ax[i].key;
		int opened = 0;
		for (unsigned j = 0; j < o->n_vary; j++)
			opened |= o->vary[j].key == key;
		if (opened || cand_get(&o->fix, key))
			continue;
		if (key == K_PARALLEL && (o->objective == SOLVE_SLOTS || o->slots))
			continue;
		if ((key == K_CACHE_TYPE_K || key == K_CACHE_TYPE_V) && o->objective == SOLVE_PRECISION)
			continue;
		if (key == K_N_CPU_MOE && o->objective == SOLVE_RATE)
			continue;
		int ordered;
		const char *v = cand_get(c, key), *b = endpoint_value(sc->ep, key);
		if (!v || !b)
			continue;
		long ov = order(key, v, &ordered), ob = order(key, b, &ordered);
		if (ordered ? ov < ob : strcmp(v, b) != 0)
			return 0;
	}
	return 1;
}

static void product_init(unsigned *idx, unsigned n)
{
	memset(idx, 0, n * sizeof(*idx));
}

static int product_next(unsigned *idx, const struct solve_axis *ax, unsigned n)
{
	for (unsigned i = n; i-- > 0;) {
		if (++idx[i] < ax[i].n)
			return 1;
		idx[i] = 0;
	}
	return 0;
}

/* Whether the combination fits with KEY=v (PARALLEL, N_CPU_MOE) at window w. */
static int fits_with(struct solve_ctx *sc, const struct cand *c0, enum key_id key, uint32_t v, uint64_t w, int *fits,
		     struct plan *p, char **err)
{
	struct cand c = *c0;
	struct plan_shape s;
	struct plan_extras x;
	struct cand_limits l;
	char why[256];
	*fits = 0;
	if (cand_setu(&c, key, v) || cand_apply(sc->ep, sc->base, &c, &s, &x, err) ||
	    cand_limits(sc->ep, sc->m, &c, &l, err))
		return -1;
	at_window(&s, &l, w);
	if (cand_law(sc->m, &s, &l, why, sizeof(why)))
		return 0;
	if (solve_plan(sc, &s, &x, p, err))
		return -1;
	*fits = p->fits;
	return 0;
}

/* Bisect key's value between *lo and *hi until they are next to each
 * other: a value that fits becomes the end on the fitting side (fit_low:
 * *lo fits, as fewer slots do; else *hi, as more experts on the host do). */
static int bisect(struct solve_ctx *sc, struct combo *cb, enum key_id key, uint64_t floor, int fit_low, uint32_t *lo,
		  uint32_t *hi, struct plan *p, char **err)
{
	int fits = 0, rc = 0;
	while (rc == 0 && *hi - *lo > 1) {
		uint32_t mid = *lo + (*hi - *lo) / 2;
		if ((rc = fits_with(sc, &cb->c, key, mid, floor, &fits, p, err)) == 0)
			*((fits != 0) == fit_low ? lo : hi) = mid;
	}
	return rc;
}

/* The most slots with a window of at least floor, for the combination's
 * other values (doubling, then bisecting); then its largest window. */
static int most_slots(struct solve_ctx *sc, const struct solve_opts *o, const struct rate *base_rate, uint64_t floor,
		      struct combo *cb, char **err)
{
	struct plan *p = xmalloc(sizeof(*p));
	uint32_t lo = 0, hi = 1;
	int fits = 0, rc = 0;
	floor = up(floor < STEP ? STEP : floor);
	while (hi <= SLOTS_MAX && (rc = fits_with(sc, &cb->c, K_PARALLEL, hi, floor, &fits, p, err)) == 0 && fits) {
		lo = hi;
		hi *= 2;
	}
	if (hi > SLOTS_MAX + 1)
		hi = SLOTS_MAX + 1;
	if (rc == 0 && lo)
		rc = bisect(sc, cb, K_PARALLEL, floor, 1, &lo, &hi, p, err);
	free(p);
	cb->ok = 0;
	if (rc)
		return -1;
	if (!lo)
		return 0;
	cand_setu(&cb->c, K_PARALLEL, lo);
	return run_combo(sc, o, base_rate, floor, cb, err);
}

/* The fastest decode for the combination's other values: the fewest
 * expert blocks on the host with which a window of at least floor fits
 * (bisected: the card's total falls as experts leave it; nothing else
 * read per token moves with N_CPU_MOE), then its largest window. */
static int fewest_moe(struct solve_ctx *sc, const struct solve_opts *o, const struct rate *base_rate, uint64_t floor,
		      struct combo *cb, char **err)
{
	struct plan *p = xmalloc(sizeof(*p));
	uint32_t n = sc->m->n_layer_all - sc->m->n_nextn, lo = 0, hi = n;
	int fits = 0, rc;
	floor = up(floor < STEP ? STEP : floor);
	cb->ok = 0;
	if ((rc = fits_with(sc, &cb->c, K_N_CPU_MOE, n, floor, &fits, p, err)) == 0 && fits &&
	    (rc = fits_with(sc, &cb->c, K_N_CPU_MOE, 0, floor, &fits, p, err)) == 0) {
		if (fits)
			hi = 0;
		rc = bisect(sc, cb, K_N_CPU_MOE, floor, 0, &lo, &hi, p, err);
	} else if (rc == 0) {
		free(p);
		return 0; /* not even every expert on the host makes room */
	}
	free(p);
	if (rc)
		return -1;
	cand_setu(&cb->c, K_N_CPU_MOE, hi);
	return run_combo(sc, o, base_rate, floor, cb, err);
}

/* The space: the default axes, then --vary's, --fix's narrowing; *total
 * combinations. */
static int space(struct solve_ctx *sc, const struct solve_opts *o, struct solve_axis *ax, unsigned *n_out,
		 size_t *total, char **err)
{
	unsigned n_ax;
	default_axes(sc, o, ax, &n_ax);
	for (unsigned i = 0; i < o->n_vary; i++) {
		int j = find_axis(ax, n_ax, o->vary[i].key);
		if (j < 0) {
			if (n_ax == SOLVE_MAX_AXES) {
				errorf(err, "--vary: at most %d axes", SOLVE_MAX_AXES);
				return -1;
			}
			j = (int)n_ax++;
		}
		ax[j] = o->vary[i];
	}
	for (unsigned i = 0; i < o->fix.n; i++) {
		int j = find_axis(ax, n_ax, o->fix.key[i]);
		if (j >= 0) {
			ax[j].n = 1;
			snprintf(ax[j].val[0], sizeof(ax[j].val[0]), "%s", o->fix.val[i]);
		}
	}
	*n_out = n_ax;
	*total = 1;
	for (unsigned i = 0; i < n_ax; i++)
		*total *= ax[i].n;
	if (*total > MAX_COMBOS) {
		errorf(err, "the space has %zu combinations; at most %d (narrow a --vary or --fix a key)", *total,
		       MAX_COMBOS);
		return -1;
	}
	return 0;
}

/* The frontier: every combination's largest window, those no other
 * dominates. */
static int frontier(struct solve_ctx *sc, const struct solve_opts *o, struct solve_result *r,
		    const struct solve_axis *ax, unsigned n_ax, size_t total, char **err)
{
	uint64_t front_floor = o->min_window ? o->min_window : STEP;
	struct combo *cbs = xcalloc(total, sizeof(*cbs));
	size_t n_cb = 0;
	int rc = -1;
	unsigned idx[SOLVE_MAX_AXES];
	product_init(idx, n_ax);
	do {
		struct combo *cb = &cbs[n_cb++];
		if (combo_lines(sc, o, ax, n_ax, idx, &cb->c)) {
			errorf(err, "too many keys in one shape");
			goto done;
		}
		if (run_combo(sc, o, &r->base_rate, front_floor, cb, err))
			goto done;
	} while (product_next(idx, ax, n_ax));
	r->combos = n_cb;
	r->frontier = xcalloc(n_cb ? n_cb : 1, sizeof(*r->frontier));
	for (size_t i = 0; i < n_cb; i++) {
		if (!cbs[i].ok)
			continue;
		int dom = 0;
		for (size_t j = 0; j < n_cb && !dom; j++)
			dom = j != i && cbs[j].ok && dominates(&cbs[j], &cbs[i], ax, n_ax);
		/* of equal shapes keep the first */
		for (size_t j = 0; j < r->n_frontier && !dom; j++)
			dom = memcmp(&r->frontier[j].keys, &cbs[i].sh.keys, sizeof(cbs[i].sh.keys)) == 0;
		if (!dom)
			r->frontier[r->n_frontier++] = cbs[i].sh;
	}
	rc = 0;
done:
	free(cbs);
	return rc;
}

/* The best's axes: the precision objective opens every cache type (f32
 * and bf16 only when asked); PARALLEL stays the endpoint's unless opened
 * or searched. */
static void best_axes(const struct shape_ctx *base, const struct solve_opts *o, struct solve_axis *bax, unsigned n_ax)
{
	if (o->objective == SOLVE_PRECISION) {
		/* every type the engine has, f32 and bf16 only when asked */
		for (int k = 1; k <= 2; k++) {
			int j = find_axis(bax, n_ax, k == 1 ? K_CACHE_TYPE_K : K_CACHE_TYPE_V);
			int opened = 0;
			for (unsigned i = 0; i < o->n_vary; i++)
				opened |= o->vary[i].key == bax[j].key;
			if (j < 0 || opened || cand_get(&o->fix, bax[j].key))
				continue;
			for (unsigned t = 0; t < cand_n_types; t++)
				if (strcmp(cand_types[t], "f32") && strcmp(cand_types[t], "bf16"))
					axis_add(&bax[j], cand_types[t]);
		}
	}
	int jp = find_axis(bax, n_ax, K_PARALLEL);
	if (jp >= 0 && !o->slots && !cand_get(&o->fix, K_PARALLEL)) {
		int opened = 0;
		for (unsigned i = 0; i < o->n_vary; i++)
			opened |= o->vary[i].key == K_PARALLEL;
		if (!opened) { /* the window and precision objectives keep the slots; slots searches them */
			bax[jp].n = 0;
			axis_addu(&bax[jp], base->shape.parallel);
		}
	}
}

/* The best: every combination that gives up nothing, by the objective. */
static int best(struct solve_ctx *sc, const struct solve_opts *o, struct solve_result *r, const struct solve_axis *bax,
		unsigned n_ax, char **err)
{
	uint64_t best_floor = o->min_window ? o->min_window : o->objective == SOLVE_WINDOW ? STEP : r->base_window;
	unsigned idx[SOLVE_MAX_AXES];
	int moe_opened = cand_get(&o->fix, K_N_CPU_MOE) != NULL;
	for (unsigned i = 0; i < o->n_vary; i++)
		moe_opened |= o->vary[i].key == K_N_CPU_MOE;
	product_init(idx, n_ax);
	do {
		struct combo cb;
		if (combo_lines(sc, o, bax, n_ax, idx, &cb.c)) {
			errorf(err, "too many keys in one shape");
			return -1;
		}
		if (!gives_up_nothing(sc, o, &cb.c, bax, n_ax))
			continue;
		int j = find_axis(bax, n_ax, K_PARALLEL);
		if (o->objective == SOLVE_SLOTS && !o->slots && !cand_get(&o->fix, K_PARALLEL) && j >= 0 && idx[j] != 0)
			continue; /* most_slots searches the count itself */
		int jm = find_axis(bax, n_ax, K_N_CPU_MOE);
		if (o->objective == SOLVE_RATE && jm >= 0 && !moe_opened && idx[jm] != 0)
			continue; /* fewest_moe searches the count itself */
		if (o->objective == SOLVE_RATE && jm >= 0 && !moe_opened) {
			if (fewest_moe(sc, o, &r->base_rate, best_floor, &cb, err))
				return -1;
		} else if (o->objective == SOLVE_SLOTS && !o->slots && !cand_get(&o->fix, K_PARALLEL)) {
			if (most_slots(sc, o, &r->base_rate, best_floor, &cb, err))
				return -1;
		} else if (run_combo(sc, o, &r->base_rate, best_floor, &cb, err)) {
			return -1;
		}
		if (cb.ok && (!r->has_best || better(&cb.sh, &r->best, o->objective))) {
			r->best = cb.sh;
			r->has_best = 1;
		}
	} while (product_next(idx, bax, n_ax));
	return 0;
}

int solve_run(const struct endpoint *ep, const struct shape_ctx *base, const struct solve_opts *o,
	      struct solve_result *r, char **err)
{
	memset(r, 0, sizeof(*r));
	struct solve_ctx sc;
	solve_init(&sc, ep, base);
	double t0 = mono_ms();
	int rc = -1;

	/* the endpoint's own shape: the rates are against it */
	struct plan_shape s;
	struct plan_extras x;
	if (cand_apply(ep, base, NULL, &s, &x, err) || solve_plan(&sc, &s, &x, &r->base_plan, err))
		goto done;
	r->base_window = r->base_plan.n_ctx_seq;
	struct rate_opts ro = o->rate;
	if (!ro.fill)
		ro.fill = r->base_window / 2;
	struct solve_opts oo = *o;
	oo.rate = ro;
	o = &oo;
	if (!ro.host_bw_gbs && rate_host_bw(ep, &ro.host_bw_gbs, err))
		goto done;
	oo.rate = ro;
	oo.cards = r->base_plan.n_cards;
	if (rate_of(sc.m, base->model->g, &s, &x, &r->base_plan, &ro, &r->base_rate, err))
		goto done;

	/* the space */
	struct solve_axis *ax = r->axes;
	unsigned n_ax;
	size_t total;
	if (space(&sc, o, ax, &n_ax, &total, err))
		goto done;
	r->n_axes = n_ax;

	/* the frontier: every combination's largest window, best first */
	if (frontier(&sc, o, r, ax, n_ax, total, err))
		goto done;
	rank_frontier(r, o->objective);
	r->frontier_ms = mono_ms() - t0;

	/* the best */
	struct solve_axis bax[SOLVE_MAX_AXES];
	memcpy(bax, ax, sizeof(bax));
	best_axes(base, o, bax, n_ax);
	if (best(&sc, o, r, bax, n_ax, err))
		goto done;
	rc = 0;
done:
	r->plans = sc.plans;
	r->fallbacks = sc.fallbacks;
	r->memo = *memo_stats(sc.memo);
	r->ms = mono_ms() - t0;
	solve_release(&sc);
	return rc;
}

void solve_result_release(struct solve_result *r)
{
	free(r->frontier);
	r->frontier = NULL;
	r->n_frontier = 0;
}
