#include "galloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/util.h"

void ga_init(struct ga_graph *g)
{
	memset(g, 0, sizeof(*g));
}

void ga_clear(struct ga_graph *g)
{
	g->n = g->n_nodes = g->n_leafs = 0;
	g->over = g->wrapped = 0;
}

void ga_release(struct ga_graph *g)
{
	free(g->t);
	free(g->nodes);
	free(g->leafs);
	memset(g, 0, sizeof(*g));
}

static int add_tensor(struct ga_graph *g)
{
	if (g->over) { /* past the budget: the last tensor, again and again */
		memset(&g->t[g->n - 1], 0, sizeof(*g->t));
		g->t[g->n - 1].view_src = -1;
		g->t[g->n - 1].force = -1;
		return g->n - 1;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4096;
		g->t = xreallocarray(g->t, (size_t)g->cap, sizeof(*g->t));
	}
	struct ga_tensor *t = &g->t[g->n];
	memset(t, 0, sizeof(*t));
	t->view_src = -1;
	t->force = -1;
	return g->n++;
}

static void push(int **v, int *n, int *cap, int x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		*v = xreallocarray(*v, (size_t)*cap, sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

/* Node i into the graph's order, within the budget: the node past it
 * sets over (ggml_visit_parents' assert) and nothing grows after. */
static void push_node(struct ga_graph *g, int i)
{
	if (g->over)
		return;
	if (g->max_nodes > 0 && g->n_nodes >= g->max_nodes) {
		g->over = 1;
		return;
	}
	push(&g->nodes, &g->n_nodes, &g->cap_nodes, i);
}

int ga_external(struct ga_graph *g)
{
	int i = add_tensor(g);
	g->t[i].external = 1;
	return i;
}

int ga_held(struct ga_graph *g, int home, int weight, uint64_t bytes)
{
	int i = ga_external(g);
	g->t[i].home = home;
	g->t[i].weight = (uint8_t)weight;
	g->t[i].bytes = bytes;
	return i;
}

int ga_input(struct ga_graph *g, uint64_t bytes)
{
	int i = add_tensor(g);
	g->t[i].input = 1;
	g->t[i].bytes = bytes;
	g->t[i].type = 9; /* never the same layout as an activation */
	if (!g->over)
		push(&g->leafs, &g->n_leafs, &g->cap_leafs, i);
	return i;
}

static void set_srcs(struct ga_tensor *t, const int *srcs)
{
	for (t->n_src = 0; srcs && srcs[t->n_src] != -2 && t->n_src < GA_MAX_SRC; t->n_src++)
		t->src[t->n_src] = srcs[t->n_src];
}

uint64_t ga_bytes(unsigned type_size, const int64_t *ne, int *wrapped)
{
	uint64_t b = type_size;
	for (int k = 0; k < 4; k++)
		if (ne[k] < 0 || __builtin_mul_overflow(b, (uint64_t)ne[k], &b)) {
			*wrapped = 1;
			return 0;
		}
	return b;
}

int ga_op(struct ga_graph *g, int inplace, uint8_t type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
	  const int *srcs)
{
	static const uint8_t size_of[] = {4, 2, 4, 8};
	int i = add_tensor(g);
	struct ga_tensor *t = &g->t[i];
	t->inplace = (uint8_t)inplace;
	t->type = type;
	t->ne[0] = ne0;
	t->ne[1] = ne1;
	t->ne[2] = ne2;
	t->ne[3] = ne3;
	t->bytes = ga_bytes(size_of[type < 4 ? type : 0], t->ne, &g->wrapped);
	set_srcs(t, srcs);
	push_node(g, i);
	return i;
}

static int root_of(const struct ga_graph *g, int i)
{
	while (g->t[i].is_view && g->t[i].view_src >= 0 && g->t[i].view_src != i) /* != i: the scratch */
		i = g->t[i].view_src;
	return i;
}

int ga_view_n(struct ga_graph *g, int src, uint64_t bytes)
{
	int i = add_tensor(g);
	struct ga_tensor *t = &g->t[i];
	t->is_view = 1;
	t->view_op = 1;
	t->type = 8; /* a copy of a view never matches a layout */
	t->bytes = bytes;
	/* ggml views point at the tensor that owns the data */
	t->view_src = root_of(g, src);
	t->src[0] = src;
	t->n_src = 1;
	push_node(g, i);
	return i;
}

int ga_view(struct ga_graph *g, int src)
{
	return ga_view_n(g, src, g->t[src].bytes);
}

int ga_sink(struct ga_graph *g, const int *srcs)
{
	return ga_sink_to(g, ga_external(g), srcs);
}

int ga_sink_to(struct ga_graph *g, int dst, const int *srcs)
{
	int i = add_tensor(g);
	struct ga_tensor *t = &g->t[i];
	t->is_view = 1;
	t->view_src = dst;
	set_srcs(t, srcs);
	push_node(g, i);
	return i;
}

/* --- the dynamic allocator (ggml_dyn_tallocr, one chunk) ---------------- */

#define MAX_FREE 256

struct dyn {
	uint64_t off[MAX_FREE], size[MAX_FREE];
	int n;
	uint64_t max_size, align;
};

static uint64_t align_up(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

static void dyn_remove(struct dyn *d, int i)
{
	for (int j = i; j < d->n - 1; j++) {
		d->off[j] = d->off[j + 1];
		d->size[j] = d->size[j + 1];
	}
	d->n--;
}

static uint64_t dyn_alloc(struct dyn *d, uint64_t size)
{
	size = align_up(size, d->align);
	int best = -1;
	uint64_t best_size = UINT64_MAX;
	/* the best-fitting block other than the last (unbounded) one */
	for (int i = 0; i < d->n - 1; i++) {
		if (d->size[i] >= size && d->size[i] <= best_size) {
			best = i;
			best_size = d->size[i];
		}
	}
	if (best < 0)
		best = d->n - 1; /* the last block grows the buffer */
	uint64_t addr = d->off[best];
	d->off[best] += size;
	d->size[best] -= size;
	if (d->size[best] == 0)
		dyn_remove(d, best);
	if (addr + size > d->max_size)
		d->max_size = addr + size;
	return addr;
}

static void dyn_free(struct dyn *d, uint64_t off, uint64_t size)
{
	size = align_up(size, d->align);
	for (int i = 0; i < d->n; i++) {
		if (d->off[i] + d->size[i] == off) {
			d->size[i] += size;
			if (i < d->n - 1 && d->off[i] + d->size[i] == d->off[i + 1]) {
				d->size[i] += d->size[i + 1];
				dyn_remove(d, i + 1);
			}
			return;
		}
		if (off + size == d->off[i]) {
			d->off[i] = off;
			d->size[i] += size;
			if (i > 0 && d->off[i - 1] + d->size[i - 1] == d->off[i]) {
				d->size[i - 1] += d->size[i];
				dyn_remove(d, i);
			}
			return;
		}
	}
	if (d->n == MAX_FREE)
		return; /* the engine asserts here; a graph this fragmented is not ours */
	int pos = 0;
	while (pos < d->n && d->off[pos] < off)
		pos++;
	for (int j = d->n; j > pos; j--) {
		d->off[j] = d->off[j - 1];
		d->size[j] = d->size[j - 1];
	}
	d->off[pos] = off;
	d->size[pos] = size;
	d->n++;
}

static int same_layout(void *ctx, const struct ga_graph *g, int i, int p)
{
	(void)ctx;
	const struct ga_tensor *a = &g->t[i], *b = &g->t[p];
	return a->type == b->type && memcmp(a->ne, b->ne, sizeof(a->ne)) == 0;
}

/* One replay's state, passed down rather than kept in statics (two replays
 * may run at once: a parallel solve). trace: ZEALOT_GA_TRACE=1 prints every
 * allocation, in-place reuse and free to stderr, in the shape of an
 * instrumented ggml-alloc's, for diffing. */
struct ga_run {
	struct dyn *d; /* one per buffer */
	int trace;
	ga_size_fn *size_fn;
	const void *size_ctx;
};

/* The bytes t takes in its buffer (ggml_backend_buft_get_alloc_size). */
static uint64_t alloc_size(const struct ga_tensor *t)
{
	return t->alloc_bytes ? t->alloc_bytes : t->bytes;
}

static void allocate(struct ga_graph *g, const struct ga_run *r, int i)
{
	struct ga_tensor *t = &g->t[i];
	int ps = ga_claim(g, i, same_layout, NULL);
	if (ps == -2)
		return;
	if (ps >= 0) {
		t->offset = g->t[ps].offset;
		t->buf = g->t[ps].buf;
		if (r->trace)
			fprintf(stderr, "GA inplace #%d <- #%d off=%llu\n", i, ps, (unsigned long long)t->offset);
		return;
	}
	struct dyn *d = &r->d[t->buf];
	t->alloc_bytes = r->size_fn ? r->size_fn(g, i, t->buf, r->size_ctx) : 0;
	t->offset = dyn_alloc(d, alloc_size(t));
	if (r->trace)
		fprintf(stderr, "GA alloc #%d [%lld,%lld,%lld,%lld] size=%llu off=%llu max=%llu\n", i,
			(long long)t->ne[0], (long long)t->ne[1], (long long)t->ne[2], (long long)t->ne[3],
			(unsigned long long)align_up(alloc_size(t), d->align), (unsigned long long)t->offset,
			(unsigned long long)d->max_size);
}

static void release(struct ga_graph *g, const struct ga_run *r, int i)
{
	struct ga_tensor *t = &g->t[i];
	if (t->output)
		return;
	struct dyn *d = &r->d[t->buf];
	if (r->trace)
		fprintf(stderr, "GA free #%d off=%llu size=%llu\n", i, (unsigned long long)t->offset,
			(unsigned long long)align_up(alloc_size(t), d->align));
	dyn_free(d, t->offset, alloc_size(t));
	t->allocated = 0;
}

void ga_free_parents(struct ga_graph *g, int i, ga_release_fn *free_fn, void *ctx)
{
	struct ga_tensor *t = &g->t[i];
	for (int s = 0; s < t->n_src; s++) {
		struct ga_tensor *p = &g->t[t->src[s]];
		p->n_children--;
		if (p->n_children || p->n_views)
			continue;
		if (p->is_view) {
			struct ga_tensor *v = &g->t[p->view_src];
			v->n_views--;
			if (v->n_views == 0 && v->n_children == 0 && v->allocated)
				free_fn(ctx, g, p->view_src);
		} else if (p->allocated) {
			free_fn(ctx, g, t->src[s]);
		}
	}
}

static void dyn_release(void *ctx, struct ga_graph *g, int i)
{
	release(g, ctx, i);
}

static void dyn_place(void *ctx, struct ga_graph *g, int i)
{
	allocate(g, ctx, i);
}

void ga_walk(struct ga_graph *g, const struct ga_walk *w)
{
	for (int k = 0; k < g->n_leafs; k++)
		w->place(w->ctx, g, g->leafs[k]);
	for (int k = 0; k < g->n_nodes; k++) {
		struct ga_tensor *t = &g->t[g->nodes[k]];
		/* the scheduler's dependency views (op NONE) count no view */
		if (t->is_view && t->view_src >= 0 && !t->dep)
			g->t[t->view_src].n_views++;
		if (t->input)
			w->place(w->ctx, g, g->nodes[k]);
		for (int s = 0; s < t->n_src; s++) {
			g->t[t->src[s]].n_children++;
			if (g->t[t->src[s]].input)
				w->place(w->ctx, g, t->src[s]);
		}
	}
	for (int k = 0; k < g->n_nodes; k++) {
		int i = g->nodes[k];
		struct ga_tensor *t = &g->t[i];
		for (int s = 0; s < t->n_src; s++) {
			/* parents not yet placed take this node's buffer */
			struct ga_tensor *p = &g->t[t->src[s]];
			if (!p->allocated && !p->external && !p->is_view) {
				p->buf = t->buf;
				if (w->adopt)
					w->adopt(w->ctx, t->src[s], t->buf);
			}
			w->place(w->ctx, g, t->src[s]);
		}
		w->place(w->ctx, g, i);
		ga_free_parents(g, i, w->release, w->ctx);
	}
}

void ga_run_n(struct ga_graph *g, int n_buf, const uint64_t *alignment, uint64_t *sizes)
{
	ga_run_nx(g, n_buf, alignment, NULL, NULL, sizes);
}

void ga_run_nx(struct ga_graph *g, int n_buf, const uint64_t *alignment, ga_size_fn *size, const void *ctx,
	       uint64_t *sizes)
{
	struct dyn *d = xcalloc((size_t)n_buf, sizeof(*d));
	struct ga_run r = {d, getenv("ZEALOT_GA_TRACE") != NULL, size, ctx};
	for (int b = 0; b < n_buf; b++) {
		d[b].n = 1;
		d[b].size[0] = UINT64_MAX / 2;
		d[b].align = alignment[b];
	}
	for (int i = 0; i < g->n; i++) {
		g->t[i].n_children = g->t[i].n_views = g->t[i].allocated = 0;
		g->t[i].offset = 0;
	}
	ga_walk(g, &(struct ga_walk){dyn_place, NULL, dyn_release, &r});
	for (int b = 0; b < n_buf; b++)
		sizes[b] = d[b].max_size;
	free(d);
}

uint64_t ga_run(struct ga_graph *g, uint64_t alignment)
{
	for (int i = 0; i < g->n; i++)
		g->t[i].buf = 0;
	uint64_t size;
	ga_run_n(g, 1, &alignment, &size);
	return size;
}
