#include "sched.h"

#include <stdlib.h>
#include <string.h>

#include "../../base/util.h"

/* ggml-backend.cpp: GGML_SCHED_MAX_SPLIT_INPUTS */
#define SPLIT_INPUTS 30

struct split {
	int backend, start, end; /* [start, end) in the original node order */
	int *inputs;
	int n_inputs, cap;
};

struct st {
	struct ga_graph *g;
	const struct ga_sched *sc;
	int cpu, n0;
	int *bid;    /* per original tensor: its backend, -1 unassigned */
	int *copies; /* [n0][n_backends][n_copies]: the copy of a tensor on a backend, -1 none */
	int *graph_inputs;
	int n_graph_inputs, cap_graph_inputs;
	/* the MoE weighted sums' MULs by the ADD that ends each (moe_dst):
	 * per original tensor, the first node position whose MUL ends there,
	 * then the next position of the same sum, ascending; NULL when the
	 * graph has none */
	int *moe_head, *moe_next;
};

#define COPY(s, t, b, c) ((s)->copies[((size_t)(t) * (s)->sc->n_backends + (b)) * (s)->sc->n_copies + (c)])

static int is_view(const struct ga_tensor *t)
{
	return t->is_view && t->view_src >= 0;
}

/* The backend whose buffer holds t, or -1: a held tensor (or a view of
 * one) by its home, else by its assignment (ggml_backend_sched_buffer_supported). */
static int owner(const struct st *s, int i)
{
	const struct ga_tensor *t = &s->g->t[i];
	if (t->external)
		return t->home;
	if (is_view(t) && s->g->t[t->view_src].external)
		return s->g->t[t->view_src].home;
	int b = i < s->n0 ? s->bid[i] : -1;
	if (b < 0 && is_view(t) && t->view_src < s->n0)
		b = s->bid[t->view_src];
	return b;
}

/* Whether backend b can read t where it is: only its own buffers (a CPU
 * reads host buffers, which are all the CPU's here). */
static int supported(const struct st *s, int i, int b)
{
	int o = owner(s, i);
	return o >= 0 && o == b;
}

/* ggml_backend_supports_op(backend b, node i) */
static int runs(const struct st *s, int i, int b)
{
	return !s->sc->supports_op || s->sc->supports_op(s->g, i, b, s->sc->ctx);
}

/* The batch a device's offload_op reads (ggml-cuda get_op_batch_size). */
static int64_t batch(const struct ga_tensor *t)
{
	switch (t->op) {
	case GA_OP_GET_ROWS: return 0;
	case GA_OP_MUL_MAT: return t->ne[1];
	case GA_OP_MUL_MAT_ID:
	case GA_OP_ROPE: return t->ne[2];
	default: return t->ne[1] * t->ne[2] * t->ne[3];
	}
}

/* ggml_backend_sched_backend_id_from_cur for a node. */
static int from_cur(const struct st *s, int i)
{
	const struct ga_tensor *t = &s->g->t[i];
	if (is_view(t) && s->g->t[t->view_src].external)
		return s->g->t[t->view_src].home;
	if (t->op == GA_OP_ROPE || t->op == GA_OP_FA)
		return -1;
	for (int k = 0; k < t->n_src; k++) {
		const struct ga_tensor *w = &s->g->t[t->src[k]];
		if (!w->external || !w->weight)
			continue;
		/* ggml_backend_sched_backend_from_buffer: only a backend
		 * that reads the buffer and runs the op */
		int home = runs(s, i, w->home) ? w->home : -1;
		if (home == s->cpu) /* op_offload: a device may take an op on a host weight */
			for (int b = 0; b < s->cpu; b++)
				if (s->sc->offload[b] && batch(t) >= 32 && runs(s, i, b))
					return b;
		return home;
	}
	return -1;
}

static void expand(struct st *s, int down, int skip_cpu)
{
	struct ga_graph *g = s->g;
	int cur = -1;
	for (int k = 0; k < g->n_nodes; k++) {
		int i = g->nodes[down ? k : g->n_nodes - 1 - k];
		if (g->t[i].view_op)
			continue;
		if (s->bid[i] != -1)
			cur = skip_cpu && s->bid[i] == s->cpu ? -1 : s->bid[i];
		else if (cur != -1 && runs(s, i, cur))
			s->bid[i] = cur;
	}
}

static int dup_of(struct st *s, int i)
{
	struct ga_graph *g = s->g;
	int c = ga_input(g, g->t[i].bytes); /* a new leaf-less tensor; unlisted below */
	g->n_leafs--;
	struct ga_tensor *t = &g->t[c], *o = &g->t[i];
	t->input = 0;
	t->type = o->type;
	t->qtype = o->qtype;
	memcpy(t->ne, o->ne, sizeof(t->ne));
	t->bytes = o->bytes;
	return c;
}

static void push(int **v, int *n, int *cap, int x)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = xreallocarray(*v, (size_t)*cap, sizeof(**v));
	}
	(*v)[(*n)++] = x;
}

/* ggml_backend_cuda_graph_optimize's add_alloc_dep: when node i ends a
 * MoE weighted sum whose MUL runs in the same split on a backend that
 * fuses it, a dependency node keeping the MUL's experts and router weights
 * alive until i (the graph copy puts it right after i); -1 otherwise. */
static int fused_dep(struct st *s, const struct split *c, int i)
{
	struct ga_graph *g = s->g;
	if (!s->sc->fuse_moe[c->backend] || i >= s->n0 || !s->moe_head)
		return -1;
	/* the first MUL of the split (in node order) that ends at i */
	for (int k = s->moe_head[i]; k >= 0; k = s->moe_next[k]) {
		int m = g->nodes[k];
		if (k < c->start || k >= c->end || s->bid[m] != c->backend || g->t[m].n_src < 2)
			continue;
		int dep = ga_input(g, 0);
		g->n_leafs--;
		struct ga_tensor *d = &g->t[dep], *mul = &g->t[m];
		d->input = 0;
		d->is_view = 1;
		d->dep = 1;
		int x = mul->src[0];
		d->view_src = g->t[x].is_view && g->t[x].view_src >= 0 ? g->t[x].view_src : x;
		d->src[0] = x;
		d->src[1] = mul->src[1];
		d->n_src = 2;
		d->buf = c->backend;
		return dep;
	}
	return -1;
}

/* fused_dep's index: which node positions hold a MUL that ends at each
 * tensor, ascending (fused_dep asked every node of a split for every node
 * of it, quadratic in the split: most of a CUDA plan's time). */
static void moe_index(struct st *s)
{
	struct ga_graph *g = s->g;
	s->moe_head = s->moe_next = NULL;
	for (int k = g->n_nodes - 1; k >= 0; k--) {
		int d = g->t[g->nodes[k]].moe_dst - 1;
		if (d < 0 || d >= s->n0)
			continue;
		if (!s->moe_head) {
			s->moe_head = xmalloc((size_t)s->n0 * sizeof(*s->moe_head));
			memset(s->moe_head, -1, (size_t)s->n0 * sizeof(*s->moe_head));
			s->moe_next = xmalloc((size_t)g->n_nodes * sizeof(*s->moe_next));
		}
		s->moe_next[k] = s->moe_head[d];
		s->moe_head[d] = k;
	}
}

/* Passes 1 to 4: every node to a backend. */
static void assign(struct st *s)
{
	struct ga_graph *g = s->g;
	int nb = s->sc->n_backends;
	/* the graph's own assignments, held tensors, inputs (pass 1 on leafs) */
	for (int i = 0; i < s->n0; i++) {
		const struct ga_tensor *t = &g->t[i];
		s->bid[i] = t->force >= 0 ? t->force : t->external ? t->home : t->input ? s->cpu : -1;
	}
	/* pass 1 */
	for (int k = 0; k < g->n_nodes; k++) {
		int i = g->nodes[k];
		if (s->bid[i] == -1)
			s->bid[i] = from_cur(s, i);
	}
	/* pass 2: devices down and up, then anything down and up */
	expand(s, 1, 1);
	expand(s, 0, 1);
	expand(s, 1, 0);
	expand(s, 0, 0);
	/* pass 3: the backend that can read the most sources */
	for (int k = 0; k < g->n_nodes; k++) {
		int i = g->nodes[k];
		struct ga_tensor *t = &g->t[i];
		if (t->view_op || s->bid[i] != -1)
			continue;
		int best = -1;
		for (int b = 0; b < nb; b++) {
			if (!runs(s, i, b))
				continue;
			int n = 0;
			for (int j = 0; j < t->n_src; j++) {
				int x = t->src[j];
				const struct ga_tensor *p = &g->t[x];
				int known = s->bid[x] != -1 || (is_view(p) && s->bid[p->view_src] != -1);
				n += known && supported(s, x, b);
			}
			if (n > best) {
				best = n;
				s->bid[i] = b;
			}
		}
	}
	/* pass 4: views with their source, sources with their consumer */
	for (int k = 0; k < g->n_nodes; k++) {
		int i = g->nodes[k];
		struct ga_tensor *t = &g->t[i];
		if (is_view(t) && s->bid[i] == -1)
			s->bid[i] = s->bid[t->view_src];
		for (int j = 0; j < t->n_src; j++) {
			int x = t->src[j];
			if (s->bid[x] == -1)
				s->bid[x] = is_view(&g->t[x]) ? s->bid[g->t[x].view_src] : s->bid[i];
		}
		for (int b = 0; b < nb && s->bid[i] == -1; b++)
			if (runs(s, i, b))
				s->bid[i] = b;
		if (s->bid[i] == -1)
			s->bid[i] = s->cpu;
	}
}

/* Node i's sources into split c on backend cur: a graph input gets its
 * copies (pipeline parallelism), a source another backend holds and cur
 * cannot read gets a copy on cur, an input of the split. */
static void copy_sources(struct st *s, struct split *c, int i, int cur)
{
	struct ga_graph *g = s->g;
	int nc = s->sc->n_copies;
	/* g->t moves as copies are added: index it afresh */
	for (int j = 0; j < g->t[i].n_src; j++) {
		int x = g->t[i].src[j];
		if (x >= s->n0)
			continue;
		int xb = s->bid[x];
		if (g->t[x].input && nc > 1 && COPY(s, x, xb, 0) == -1) {
			for (int cc = 0; cc < nc; cc++) {
				int y = cc == 0 ? x : dup_of(s, x);
				g->t[y].input = g->t[y].output = 1;
				g->t[y].buf = xb;
				COPY(s, x, xb, cc) = y;
			}
			push(&s->graph_inputs, &s->n_graph_inputs, &s->cap_graph_inputs, x);
		}
		if (xb != cur && !supported(s, x, cur)) {
			if (COPY(s, x, cur, 0) == -1) {
				for (int cc = 0; cc < nc; cc++) {
					int y = dup_of(s, x);
					if (nc > 1)
						g->t[y].input = g->t[y].output = 1;
					g->t[y].buf = cur;
					COPY(s, x, cur, cc) = y;
				}
				if (c->n_inputs == c->cap) {
					c->cap = c->cap ? c->cap * 2 : SPLIT_INPUTS;
					c->inputs = xreallocarray(c->inputs, (size_t)c->cap, sizeof(*c->inputs));
				}
				c->inputs[c->n_inputs++] = x;
			}
			g->t[i].src[j] = COPY(s, x, cur, 0);
		}
	}
}

/* Pass 5: splits and the copies of their inputs; *n_out splits. */
static struct split *split_graph(struct st *s, int *n_out)
{
	struct ga_graph *g = s->g;
	struct split *sp = NULL;
	int n_sp = 0, cap_sp = 0;
	int k0 = 0;
	while (k0 < g->n_nodes && g->t[g->nodes[k0]].view_op)
		k0++;
	sp = xcalloc(1, sizeof(*sp));
	cap_sp = 1;
	n_sp = 1;
	sp[0].backend = k0 < g->n_nodes ? s->bid[g->nodes[k0]] : s->cpu;
	sp[0].start = 0;
	int cur = sp[0].backend;
	for (int k = k0; k < g->n_nodes; k++) {
		int i = g->nodes[k];
		if (g->t[i].view_op)
			continue;
		int b = s->bid[i];
		struct split *c = &sp[n_sp - 1];
		int need = 0;
		if (b == cur && c->n_inputs > 0) {
			for (int j = 0; j < g->t[i].n_src && !need; j++) {
				int x = g->t[i].src[j];
				const struct ga_tensor *p = &g->t[x];
				/* a weight elsewhere: a new split frees the earlier copies */
				if (p->external && p->weight && s->bid[x] != cur && !supported(s, x, cur))
					need = 1;
				else if (c->n_inputs >= c->cap && s->bid[x] != cur && COPY(s, x, cur, 0) == -1 &&
					 !supported(s, x, cur))
					need = 1;
			}
		}
		if (b != cur || need) {
			c->end = k;
			if (n_sp == cap_sp) {
				cap_sp *= 2;
				sp = xreallocarray(sp, (size_t)cap_sp, sizeof(*sp));
			}
			c = &sp[n_sp++];
			memset(c, 0, sizeof(*c));
			c->backend = b;
			c->start = k;
			cur = b;
		}
		copy_sources(s, c, i, cur);
	}
	sp[n_sp - 1].end = g->n_nodes;
	*n_out = n_sp;
	return sp;
}

/* The graph copy: per split, each input's keep-alive view and its copy,
 * then the split's nodes; the leafs, the copies of the graph's and the
 * splits' inputs first (pipeline parallelism). */
static void copy_graph(struct st *s, const struct split *sp, int n_sp)
{
	struct ga_graph *g = s->g;
	int nc = s->sc->n_copies;
	int *nodes = NULL, n_nodes = 0, cap_nodes = 0;
	for (int q = 0; q < n_sp; q++) {
		const struct split *c = &sp[q];
		for (int j = 0; j < c->n_inputs; j++) {
			int x = c->inputs[j];
			int dep = ga_input(g, 0);
			g->n_leafs--;
			struct ga_tensor *d = &g->t[dep];
			d->input = 0;
			d->is_view = 1;
			d->dep = 1;
			d->view_src = g->t[x].view_src >= 0 && g->t[x].is_view ? g->t[x].view_src : x;
			d->src[0] = x;
			d->n_src = 1;
			d->buf = s->bid[x];
			push(&nodes, &n_nodes, &cap_nodes, dep);
			push(&nodes, &n_nodes, &cap_nodes, COPY(s, x, c->backend, 0));
		}
		for (int k = c->start; k < c->end; k++) {
			push(&nodes, &n_nodes, &cap_nodes, g->nodes[k]);
			int dep = fused_dep(s, c, g->nodes[k]);
			if (dep >= 0)
				push(&nodes, &n_nodes, &cap_nodes, dep);
		}
	}
	int *leafs = NULL, n_leafs = 0, cap_leafs = 0;
	if (nc > 1) {
		for (int j = 0; j < s->n_graph_inputs; j++) {
			int x = s->graph_inputs[j];
			for (int cc = 0; cc < nc; cc++)
				push(&leafs, &n_leafs, &cap_leafs, COPY(s, x, s->bid[x], cc));
		}
		for (int q = 0; q < n_sp; q++)
			for (int j = 0; j < sp[q].n_inputs; j++)
				for (int cc = 0; cc < nc; cc++)
					push(&leafs, &n_leafs, &cap_leafs, COPY(s, sp[q].inputs[j], sp[q].backend, cc));
	}
	for (int j = 0; j < g->n_leafs; j++)
		push(&leafs, &n_leafs, &cap_leafs, g->leafs[j]);
	for (int i = 0; i < s->n0; i++)
		g->t[i].buf = s->bid[i] < 0 ? 0 : s->bid[i];

	free(g->nodes);
	g->nodes = nodes;
	g->n_nodes = n_nodes;
	g->cap_nodes = cap_nodes;
	free(g->leafs);
	g->leafs = leafs;
	g->n_leafs = n_leafs;
	g->cap_leafs = cap_leafs;
}

void ga_schedule(struct ga_graph *g, const struct ga_sched *sc, uint64_t *sizes)
{
	ga_schedule_graph(g, sc);
	ga_run_nx(g, sc->n_backends, sc->align, sc->alloc_size, sc->ctx, sizes);
}

int ga_sched_interval(const struct ga_graph *g0, const struct ga_graph *g1, const struct ga_sched *sc, int64_t n0,
		      int64_t step, int64_t *lo, int64_t *hi)
{
	if (g0->n != g1->n || g0->n_nodes != g1->n_nodes ||
	    memcmp(g0->nodes, g1->nodes, (size_t)g0->n_nodes * sizeof(int)))
		return -1;
	for (int k = 0; k < g0->n_nodes; k++) {
		int i = g0->nodes[k];
		const struct ga_tensor *a = &g0->t[i], *b = &g1->t[i];
		if (a->op != b->op || a->n_src != b->n_src || memcmp(a->src, b->src, (size_t)a->n_src * sizeof(int)))
			return -1;
		/* pass 1's offload rule reads the batch of an op on a weight:
		 * affine in n, so equal at two n is equal at every n */
		int weighted = 0;
		for (int j = 0; j < a->n_src; j++)
			weighted |= g0->t[a->src[j]].external && g0->t[a->src[j]].weight;
		if (weighted && batch(a) != batch(b))
			return -1;
		/* a backend's own rules read its flash-attention nodes */
		if (a->op == GA_OP_FA && (sc->supports_op || sc->alloc_size) &&
		    (!sc->fa_interval || sc->fa_interval(&a->fa, &b->fa, n0, step, lo, hi)))
			return -1;
	}
	return 0;
}

void ga_schedule_graph(struct ga_graph *g, const struct ga_sched *sc)
{
	struct st s = {g, sc, sc->n_backends - 1, g->n, NULL, NULL, NULL, 0, 0, NULL, NULL};
	int nb = sc->n_backends, nc = sc->n_copies;
	s.bid = xmalloc((size_t)s.n0 * sizeof(*s.bid));
	s.copies = xmalloc((size_t)s.n0 * (size_t)nb * (size_t)nc * sizeof(*s.copies));
	memset(s.copies, -1, (size_t)s.n0 * (size_t)nb * (size_t)nc * sizeof(*s.copies));

	assign(&s);
	moe_index(&s);
	int n_sp;
	struct split *sp = split_graph(&s, &n_sp);
	for (int q = 0; sc->optimize && q < n_sp; q++)
		sc->optimize(g, g->nodes + sp[q].start, sp[q].end - sp[q].start, sp[q].backend, sc->ctx);
	copy_graph(&s, sp, n_sp);

	for (int q = 0; q < n_sp; q++)
		free(sp[q].inputs);
	free(sp);
	free(s.bid);
	free(s.copies);
	free(s.graph_inputs);
	free(s.moe_head);
	free(s.moe_next);
}
