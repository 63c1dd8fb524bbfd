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

struct actx {
	int64_t n0, lo, hi;
	int64_t align;
	struct av *bytes, *ne, *off; /* per tensor; ne holds 4 per tensor */
	/* the free blocks of ggml_dyn_tallocr, affine */
	struct av boff[MAX_FREE], bsize[MAX_FREE];
	int nb;
	struct av max_size;
};

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
	for (int j = i; j < c->nb - 1; j++) {
		c->boff[j] = c->boff[j + 1];
		c->bsize[j] = c->bsize[j + 1];
	}
	c->nb--;
}

static struct av dyn_alloc(struct actx *c, struct av size)
{
	size = aligned(c, size);
	int best = -1;
	struct av best_size = {0, 0};
	for (int i = 0; i < c->nb - 1; i++) {
		if (cmp(c, c->bsize[i], size) >= 0 && (best < 0 || cmp(c, c->bsize[i], best_size) <= 0)) {
			best = i;
			best_size = c->bsize[i];
		}
	}
	if (best < 0)
		best = c->nb - 1;
	struct av addr = c->boff[best];
	c->boff[best] = add(c->boff[best], size);
	c->bsize[best] = sub(c->bsize[best], size);
	if (cmp(c, c->bsize[best], (struct av){0, 0}) == 0)
		blk_remove(c, best);
	struct av end = add(addr, size);
	if (cmp(c, end, c->max_size) > 0)
		c->max_size = end;
	return addr;
}

static void dyn_free(struct actx *c, struct av off, struct av size)
{
	size = aligned(c, size);
	for (int i = 0; i < c->nb; i++) {
		if (cmp(c, add(c->boff[i], c->bsize[i]), off) == 0) {
			c->bsize[i] = add(c->bsize[i], size);
			if (i < c->nb - 1 && cmp(c, add(c->boff[i], c->bsize[i]), c->boff[i + 1]) == 0) {
				c->bsize[i] = add(c->bsize[i], c->bsize[i + 1]);
				blk_remove(c, i + 1);
			}
			return;
		}
		if (cmp(c, add(off, size), c->boff[i]) == 0) {
			c->boff[i] = off;
			c->bsize[i] = add(c->bsize[i], size);
			if (i > 0 && cmp(c, add(c->boff[i - 1], c->bsize[i - 1]), c->boff[i]) == 0) {
				c->bsize[i - 1] = add(c->bsize[i - 1], c->bsize[i]);
				blk_remove(c, i);
			}
			return;
		}
	}
	if (c->nb == MAX_FREE)
		return;
	int pos = 0;
	while (pos < c->nb && cmp(c, c->boff[pos], off) < 0)
		pos++;
	for (int j = c->nb; j > pos; j--) {
		c->boff[j] = c->boff[j - 1];
		c->bsize[j] = c->bsize[j - 1];
	}
	c->boff[pos] = off;
	c->bsize[pos] = size;
	c->nb++;
}

static int same_layout(struct actx *c, const struct ga_graph *g, int i, int p)
{
	if (g->t[i].type != g->t[p].type)
		return 0;
	for (int k = 0; k < 4; k++)
		if (cmp(c, c->ne[i * 4 + k], c->ne[p * 4 + k]) != 0)
			return 0;
	return 1;
}

static void allocate(struct actx *c, struct ga_graph *g, int i)
{
	struct ga_tensor *t = &g->t[i];
	if (t->allocated || t->external || t->is_view)
		return;
	t->allocated = 1;
	if (t->inplace) {
		for (int s = 0; s < t->n_src; s++) {
			struct ga_tensor *p = &g->t[t->src[s]];
			if (!p->allocated || p->is_view || p->external || p->output)
				continue;
			if (!same_layout(c, g, i, t->src[s]))
				continue;
			if (p->n_children == 1 && p->n_views == 0) {
				c->off[i] = c->off[t->src[s]];
				p->allocated = 0;
				return;
			}
		}
	}
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

/* The two builds must be one graph; each size a + b*n with b*step a whole
 * number of alignment units, so galloc's rounding stays affine. */
static int affine_sizes(struct actx *c, const struct ga_graph *g0, const struct ga_graph *g1, int64_t step)
{
	if (g0->n != g1->n || g0->n_nodes != g1->n_nodes || g0->n_leafs != g1->n_leafs ||
	    memcmp(g0->nodes, g1->nodes, (size_t)g0->n_nodes * sizeof(int)) ||
	    memcmp(g0->leafs, g1->leafs, (size_t)g0->n_leafs * sizeof(int)))
		return -1;
	for (int i = 0; i < g0->n; i++) {
		const struct ga_tensor *x = &g0->t[i], *y = &g1->t[i];
		if (x->type != y->type || x->input != y->input || x->output != y->output ||
		    x->external != y->external || x->inplace != y->inplace || x->is_view != y->is_view ||
		    x->view_src != y->view_src || x->n_src != y->n_src ||
		    memcmp(x->src, y->src, (size_t)x->n_src * sizeof(int)))
			return -1;
		int64_t v0[5] = {(int64_t)x->bytes, x->ne[0], x->ne[1], x->ne[2], x->ne[3]};
		int64_t v1[5] = {(int64_t)y->bytes, y->ne[0], y->ne[1], y->ne[2], y->ne[3]};
		for (int k = 0; k < 5; k++) {
			int64_t d = v1[k] - v0[k];
			if (v0[k] < 0 || v1[k] < 0 || (d && d % step))
				return -1;
			struct av v = {v0[k], 0};
			if (d)
				v = (struct av){v0[k] - d / step * c->n0, d / step};
			if (k == 0) {
				if ((v.b * step) % c->align)
					return -1;
				c->bytes[i] = v;
			} else {
				c->ne[i * 4 + k - 1] = v;
			}
		}
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
	c->bytes = xcalloc((size_t)g0->n, sizeof(*c->bytes));
	c->off = xcalloc((size_t)g0->n, sizeof(*c->off));
	c->ne = xcalloc((size_t)g0->n * 4, sizeof(*c->ne));
	int rc = affine_sizes(c, g0, g1, (int64_t)step);
	if (rc == 0) {
		struct ga_graph *g = g0;
		c->nb = 1;
		c->boff[0] = (struct av){0, 0};
		c->bsize[0] = (struct av){INT64_MAX / 4, 0};
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
			for (int s = 0; s < t->n_src; s++) {
				struct ga_tensor *p = &g->t[t->src[s]];
				p->n_children--;
				if (p->n_children || p->n_views)
					continue;
				if (p->is_view) {
					struct ga_tensor *v = &g->t[p->view_src];
					v->n_views--;
					if (v->n_views == 0 && v->n_children == 0 && v->allocated)
						release(c, g, p->view_src);
				} else if (p->allocated) {
					release(c, g, t->src[s]);
				}
			}
		}
		int64_t st = (int64_t)step;
		int64_t lo = cdiv(c->lo, st) * st, hi = fdiv(c->hi, st) * st;
		if (lo > c->n0 || hi < c->n0 || at(c->max_size, c->n0) < 0) {
			rc = -1;
		} else {
			out->lo = (uint64_t)lo;
			out->hi = (uint64_t)hi;
			out->a = c->max_size.a;
			out->b = c->max_size.b;
		}
	}
	free(c->bytes);
	free(c->off);
	free(c->ne);
	free(c);
	return rc;
}
