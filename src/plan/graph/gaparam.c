#include "gaparam.h"

#include <stdlib.h>
#include <string.h>

#include "../../base/util.h"

/* A value a + b*n. */
struct av {
	int64_t a, b;
};

#define MAX_FREE 256 /* galloc.c's bound */
#define N_MAX	 ((int64_t)1 << 40)

/* the free blocks of one ggml_dyn_tallocr, affine */
struct dbuf {
	struct av boff[MAX_FREE], bsize[MAX_FREE];
	int nb;
	struct av max_size;
};

struct actx {
	int64_t n0, lo, hi;
	int64_t align;		     /* the current buffer's */
	struct av *bytes, *ne, *off; /* per tensor; ne holds 4 per tensor */
	struct dbuf *d;		     /* the current buffer */
	struct dbuf one;
};

/* the per-tensor arrays of n tensors, and their release */
static void actx_arrays(struct actx *c, int n)
{
	c->bytes = xcalloc((size_t)n, sizeof(*c->bytes));
	c->off = xcalloc((size_t)n, sizeof(*c->off));
	c->ne = xcalloc((size_t)n * 4, sizeof(*c->ne));
}

static void actx_arrays_free(struct actx *c)
{
	free(c->bytes);
	free(c->off);
	free(c->ne);
}

static int64_t at(struct av v, int64_t n)
{
	return v.a + v.b * n;
}

static struct av add(struct av x, struct av y)
{
	return (struct av){x.a + y.a, x.b + y.b};
}

static struct av sub(struct av x, struct av y)
{
	return (struct av){x.a - y.a, x.b - y.b};
}

/* floor and ceiling of p / q for q > 0 */
static int64_t fdiv(int64_t p, int64_t q)
{
	return p >= 0 ? p / q : -((-p + q - 1) / q);
}

static int64_t cdiv(int64_t p, int64_t q)
{
	return p >= 0 ? (p + q - 1) / q : -((-p) / q);
}

/* The sign of x - y at n0; narrows [lo, hi] to the n on which it holds. */
static int cmp(struct actx *c, struct av x, struct av y)
{
	struct av d = sub(x, y);
	int64_t v = at(d, c->n0);
	int s = (v > 0) - (v < 0);
	if (d.b == 0)
		return s;
	if (s == 0) {
		c->lo = c->hi = c->n0;
		return 0;
	}
	if ((s > 0) == (d.b > 0)) { /* holds above the root */
		int64_t r = d.b > 0 ? fdiv(-d.a, d.b) : fdiv(d.a, -d.b);
		if (r + 1 > c->lo)
			c->lo = r + 1;
	} else { /* holds below the root */
		int64_t r = d.b > 0 ? cdiv(-d.a, d.b) : cdiv(d.a, -d.b);
		if (r - 1 < c->hi)
			c->hi = r - 1;
	}
	return s;
}

static struct av aligned(const struct actx *c, struct av x)
{
	int64_t al = c->align;
	int64_t a = x.a >= 0 ? (x.a + al - 1) / al * al : -((-x.a) / al * al);
	return (struct av){a, x.b};
}

static void blk_remove(struct actx *c, int i)
{
	for (int j = i; j < c->d->nb - 1; j++) {
		c->d->boff[j] = c->d->boff[j + 1];
		c->d->bsize[j] = c->d->bsize[j + 1];
	}
	c->d->nb--;
}

static struct av dyn_alloc(struct actx *c, struct av size)
{
	size = aligned(c, size);
	int best = -1;
	struct av best_size = {0, 0};
	for (int i = 0; i < c->d->nb - 1; i++) {
		if (cmp(c, c->d->bsize[i], size) >= 0 && (best < 0 || cmp(c, c->d->bsize[i], best_size) <= 0)) {
			best = i;
			best_size = c->d->bsize[i];
		}
	}
	if (best < 0)
		best = c->d->nb - 1;
	struct av addr = c->d->boff[best];
	c->d->boff[best] = add(c->d->boff[best], size);
	c->d->bsize[best] = sub(c->d->bsize[best], size);
	if (cmp(c, c->d->bsize[best], (struct av){0, 0}) == 0)
		blk_remove(c, best);
	struct av end = add(addr, size);
	if (cmp(c, end, c->d->max_size) > 0)
		c->d->max_size = end;
	return addr;
}

static void dyn_free(struct actx *c, struct av off, struct av size)
{
	size = aligned(c, size);
	for (int i = 0; i < c->d->nb; i++) {
		if (cmp(c, add(c->d->boff[i], c->d->bsize[i]), off) == 0) {
			c->d->bsize[i] = add(c->d->bsize[i], size);
			if (i < c->d->nb - 1 && cmp(c, add(c->d->boff[i], c->d->bsize[i]), c->d->boff[i + 1]) == 0) {
				c->d->bsize[i] = add(c->d->bsize[i], c->d->bsize[i + 1]);
				blk_remove(c, i + 1);
			}
			return;
		}
		if (cmp(c, add(off, size), c->d->boff[i]) == 0) {
			c->d->boff[i] = off;
			c->d->bsize[i] = add(c->d->bsize[i], size);
			if (i > 0 && cmp(c, add(c->d->boff[i - 1], c->d->bsize[i - 1]), c->d->boff[i]) == 0) {
				c->d->bsize[i - 1] = add(c->d->bsize[i - 1], c->d->bsize[i]);
				blk_remove(c, i);
			}
			return;
		}
	}
	if (c->d->nb == MAX_FREE)
		return;
	int pos = 0;
	while (pos < c->d->nb && cmp(c, c->d->boff[pos], off) < 0)
		pos++;
	for (int j = c->d->nb; j > pos; j--) {
		c->d->boff[j] = c->d->boff[j - 1];
		c->d->bsize[j] = c->d->bsize[j - 1];
	}
	c->d->boff[pos] = off;
	c->d->bsize[pos] = size;
	c->d->nb++;
}

static int same_layout(void *ctx, const struct ga_graph *g, int i, int p)
{
	struct actx *c = ctx;
	if (g->t[i].type != g->t[p].type)
		return 0;
	for (int k = 0; k < 4; k++)
		if (cmp(c, c->ne[i * 4 + k], c->ne[p * 4 + k]) != 0)
			return 0;
	return 1;
}

static void allocate(struct actx *c, struct ga_graph *g, int i)
{
	int p = ga_claim(g, i, same_layout, c);
	if (p >= 0)
		c->off[i] = c->off[p];
	else if (p == -1)
		c->off[i] = dyn_alloc(c, c->bytes[i]);
}

static void release(struct actx *c, struct ga_graph *g, int i)
{
	struct ga_tensor *t = &g->t[i];
	if (t->output)
		return;
	dyn_free(c, c->off[i], c->bytes[i]);
	t->allocated = 0;
}

static void actx_release(void *ctx, struct ga_graph *g, int i)
{
	release(ctx, g, i);
}

/* The two builds' tensors, nodes and leafs are the same lists */
static int same_lists(const struct ga_graph *g0, const struct ga_graph *g1)
{
	return g0->n == g1->n && g0->n_nodes == g1->n_nodes && g0->n_leafs == g1->n_leafs &&
	       !memcmp(g0->nodes, g1->nodes, (size_t)g0->n_nodes * sizeof(int)) &&
	       !memcmp(g0->leafs, g1->leafs, (size_t)g0->n_leafs * sizeof(int));
}

/* A tensor of the two builds is the same but for its sizes */
static int same_tensor(const struct ga_tensor *x, const struct ga_tensor *y)
{
	return x->type == y->type && x->input == y->input && x->output == y->output && x->external == y->external &&
	       x->inplace == y->inplace && x->is_view == y->is_view && x->view_src == y->view_src &&
	       x->n_src == y->n_src && !memcmp(x->src, y->src, (size_t)x->n_src * sizeof(int));
}

/* Tensor i's bytes and ne as a + b*n (the builds step cells apart) into
 * c; -1 when one is not affine */
static int affine_tensor(struct actx *c, const struct ga_tensor *x, const struct ga_tensor *y, int i, int64_t step)
{
	int64_t v0[5] = {(int64_t)x->bytes, x->ne[0], x->ne[1], x->ne[2], x->ne[3]};
	int64_t v1[5] = {(int64_t)y->bytes, y->ne[0], y->ne[1], y->ne[2], y->ne[3]};
	for (int k = 0; k < 5; k++) {
		int64_t d = v1[k] - v0[k];
		if (v0[k] < 0 || v1[k] < 0 || (d && d % step))
			return -1;
		struct av v = {v0[k], 0};
		if (d)
			v = (struct av){v0[k] - d / step * c->n0, d / step};
		if (k == 0)
			c->bytes[i] = v;
		else
			c->ne[i * 4 + k - 1] = v;
	}
	return 0;
}

/* The two builds must be one graph; each size a + b*n with b*step a whole
 * number of alignment units, so galloc's rounding stays affine. */
static int affine_sizes(struct actx *c, const struct ga_graph *g0, const struct ga_graph *g1, int64_t step)
{
	if (!same_lists(g0, g1))
		return -1;
	for (int i = 0; i < g0->n; i++) {
		const struct ga_tensor *x = &g0->t[i], *y = &g1->t[i];
		if (!same_tensor(x, y) || affine_tensor(c, x, y, i, step) || (c->bytes[i].b * step) % c->align)
			return -1;
	}
	return 0;
}

int ga_affine(struct ga_graph *g0, struct ga_graph *g1, uint64_t n0, uint64_t step, uint64_t alignment,
	      struct ga_piece *out)
{
	if (!step || !alignment || n0 % step || n0 > (uint64_t)N_MAX || g0->n <= 0)
		return -1;
	struct actx *c = xcalloc(1, sizeof(*c));
	c->n0 = (int64_t)n0;
	c->lo = (int64_t)step;
	c->hi = N_MAX;
	c->align = (int64_t)alignment;
	c->d = &c->one;
	actx_arrays(c, g0->n);
	int rc = affine_sizes(c, g0, g1, (int64_t)step);
	if (rc == 0) {
		struct ga_graph *g = g0;
		c->d->nb = 1;
		c->d->boff[0] = (struct av){0, 0};
		c->d->bsize[0] = (struct av){INT64_MAX / 4, 0};
		for (int i = 0; i < g->n; i++)
			g->t[i].n_children = g->t[i].n_views = g->t[i].allocated = 0;
		for (int k = 0; k < g->n_leafs; k++)
			allocate(c, g, g->leafs[k]);
		for (int k = 0; k < g->n_nodes; k++) {
			struct ga_tensor *t = &g->t[g->nodes[k]];
			if (t->is_view && t->view_src >= 0)
				g->t[t->view_src].n_views++;
			for (int s = 0; s < t->n_src; s++)
				g->t[t->src[s]].n_children++;
		}
		for (int k = 0; k < g->n_nodes; k++) {
			int i = g->nodes[k];
			struct ga_tensor *t = &g->t[i];
			for (int s = 0; s < t->n_src; s++)
				allocate(c, g, t->src[s]);
			allocate(c, g, i);
			ga_free_parents(g, i, actx_release, c);
		}
		int64_t st = (int64_t)step;
		int64_t lo = cdiv(c->lo, st) * st, hi = fdiv(c->hi, st) * st;
		if (lo > c->n0 || hi < c->n0 || at(c->d->max_size, c->n0) < 0) {
			rc = -1;
		} else {
			out->lo = (uint64_t)lo;
			out->hi = (uint64_t)hi;
			out->a = c->d->max_size.a;
			out->b = c->d->max_size.b;
		}
	}
	actx_arrays_free(c);
	free(c);
	return rc;
}

/* --- several buffers: the scheduler's graph (sched.c) --------------------
 *
 * The same replay over a graph the scheduler has split and copied
 * (ga_schedule_graph), one allocator per backend and each tensor's bytes
 * its buffer type's get_alloc_size: galloc.c's ga_run_nx step for step, on
 * affine values, the single-buffer functions above on each buffer in
 * turn. */

struct nctx {
	struct actx c; /* n0, lo, hi; c.bytes, c.ne, c.off per tensor */
	struct ga_graph *g0, *g1;
	int64_t step;
	ga_size_fn *size;
	const void *ctx;
	const uint64_t *align;
	struct av *asize; /* what each tensor takes in its buffer (its release frees that) */
	struct dbuf *d;
	int bad; /* a size not affine on the lattice */
};

/* the single-buffer functions above on buffer b */
static void use(struct nctx *x, int b)
{
	x->c.d = &x->d[b];
	x->c.align = (int64_t)x->align[b];
}

/* The bytes tensor i takes in buffer b (galloc.c's alloc_size: the buffer
 * type's get_alloc_size, else its bytes), affine from the two builds. A
 * size that moves by other than whole alignment units per step, or whose
 * buffer type pads a size that does (its padding could move with n), is
 * not affine: the replay gives up. */
static struct av whole_units(struct nctx *x, struct av v, int b)
{
	if ((v.b * x->step) % (int64_t)x->align[b])
		x->bad = 1;
	return v;
}

static struct av alloc_av(struct nctx *x, int i, int b)
{
	if (!x->size)
		return whole_units(x, x->c.bytes[i], b);
	const struct ga_tensor *t0 = &x->g0->t[i], *t1 = &x->g1->t[i];
	uint64_t a0 = x->size(x->g0, i, b, x->ctx), a1 = x->size(x->g1, i, b, x->ctx);
	if (!a0 && !a1)
		return whole_units(x, x->c.bytes[i], b);
	int64_t al = (int64_t)x->align[b];
	int64_t s0 = (int64_t)(a0 ? a0 : t0->bytes), s1 = (int64_t)(a1 ? a1 : t1->bytes);
	int64_t d = s1 - s0, db = (int64_t)t1->bytes - (int64_t)t0->bytes;
	if (d < 0 || d % al || db % al || d % x->step) {
		x->bad = 1;
		return x->c.bytes[i];
	}
	return (struct av){s0 - d / x->step * x->c.n0, d / x->step};
}

static void allocate_n(struct nctx *x, int i)
{
	struct ga_graph *g = x->g0;
	struct ga_tensor *t = &g->t[i];
	int p = ga_claim(g, i, same_layout, &x->c);
	if (p == -2)
		return;
	if (p >= 0) {
		x->c.off[i] = x->c.off[p];
		t->buf = x->g1->t[i].buf = g->t[p].buf;
		return;
	}
	int b = t->buf;
	x->asize[i] = alloc_av(x, i, b);
	use(x, b);
	x->c.off[i] = dyn_alloc(&x->c, x->asize[i]);
}

static void release_n(struct nctx *x, int i)
{
	struct ga_tensor *t = &x->g0->t[i];
	if (t->output)
		return;
	use(x, t->buf);
	dyn_free(&x->c, x->c.off[i], whole_units(x, x->asize[i], t->buf));
	t->allocated = 0;
}

static void nctx_release(void *ctx, struct ga_graph *g, int i)
{
	(void)g;
	release_n(ctx, i);
}

static void place_n(void *ctx, struct ga_graph *g, int i)
{
	(void)g;
	allocate_n(ctx, i);
}

/* a parent that takes its node's buffer takes it in both builds */
static void adopt_n(void *ctx, int parent, int buf)
{
	struct nctx *x = ctx;
	x->g1->t[parent].buf = buf;
}

/* The two scheduled builds must be one graph, tensor for tensor, buffer
 * for buffer; each size a + b*n (its alignment is checked where it is
 * allocated, in the buffer it lands in). */
static int affine_sizes_n(struct actx *c, const struct ga_graph *g0, const struct ga_graph *g1, int64_t step)
{
	if (!same_lists(g0, g1))
		return -1;
	for (int i = 0; i < g0->n; i++) {
		const struct ga_tensor *x = &g0->t[i], *y = &g1->t[i];
		if (!same_tensor(x, y) || x->dep != y->dep || x->buf != y->buf || x->qtype != y->qtype ||
		    (x->qtype && x->ne[0] != y->ne[0]) || affine_tensor(c, x, y, i, step))
			return -1;
	}
	return 0;
}

int ga_affine_n(struct ga_graph *g0, struct ga_graph *g1, int n_buf, const uint64_t *alignment, ga_size_fn *size,
		const void *ctx, uint64_t n0, uint64_t step, uint64_t lo, uint64_t hi, struct ga_piece *out)
{
	if (!step || n0 % step || n0 > (uint64_t)N_MAX || g0->n <= 0 || n_buf < 1 || lo > n0 || hi < n0)
		return -1;
	for (int b = 0; b < n_buf; b++)
		if (!alignment[b])
			return -1;
	struct nctx *x = xcalloc(1, sizeof(*x));
	struct actx *c = &x->c;
	c->n0 = (int64_t)n0;
	c->lo = lo > step ? (int64_t)lo : (int64_t)step;
	c->hi = hi < (uint64_t)N_MAX ? (int64_t)hi : N_MAX;
	x->g0 = g0;
	x->g1 = g1;
	x->step = (int64_t)step;
	x->size = size;
	x->ctx = ctx;
	x->align = alignment;
	actx_arrays(c, g0->n);
	x->asize = xcalloc((size_t)g0->n, sizeof(*x->asize));
	x->d = xcalloc((size_t)n_buf, sizeof(*x->d));
	int rc = affine_sizes_n(c, g0, g1, (int64_t)step);
	if (rc == 0) {
		struct ga_graph *g = g0;
		for (int b = 0; b < n_buf; b++) {
			x->d[b].nb = 1;
			x->d[b].bsize[0] = (struct av){INT64_MAX / 4, 0};
		}
		for (int i = 0; i < g->n; i++) {
			g->t[i].n_children = g->t[i].n_views = g->t[i].allocated = 0;
			x->asize[i] = c->bytes[i]; /* galloc frees an in-place tensor by its own bytes */
		}
		ga_walk(g, &(struct ga_walk){place_n, adopt_n, nctx_release, x});
		int64_t st = (int64_t)step;
		int64_t plo = cdiv(c->lo, st) * st, phi = fdiv(c->hi, st) * st;
		if (x->bad || plo > c->n0 || phi < c->n0)
			rc = -1;
		for (int b = 0; b < n_buf && rc == 0; b++) {
			if (at(x->d[b].max_size, c->n0) < 0) {
				rc = -1;
				break;
			}
			out[b].lo = (uint64_t)plo;
			out[b].hi = (uint64_t)phi;
			out[b].a = x->d[b].max_size.a;
			out[b].b = x->d[b].max_size.b;
		}
	}
	actx_arrays_free(c);
	free(x->asize);
	free(x->d);
	free(x);
	return rc;
}
