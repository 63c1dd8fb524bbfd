/* galloc: a replay of ggml's graph allocator (ggml/src/ggml-alloc.c of the
 * pinned engine) over a graph described by its tensor sizes and edges.
 *
 * The engine sizes each compute buffer by allocating its worst-case graph
 * once: inputs first, then every node in order, reusing a parent's memory
 * in place when the op allows it and the parent has no other consumer,
 * freeing a tensor when its last consumer has run, and placing each new
 * tensor in the best-fitting free block or at the end. The buffer is the
 * high-water mark. Replaying the same rules over the same graph gives the
 * same number, which no closed formula does (the allocator's fragmentation
 * is piecewise in the model's widths).
 */
#ifndef ZEALOT_GALLOC_H
#define ZEALOT_GALLOC_H

#include <stdint.h>

#define GA_MAX_SRC 10

/* The ops the scheduler tells apart (ggml-backend.cpp): ROPE and
 * FLASH_ATTN_EXT never follow their weights; a device's offload_op reads
 * the batch from MUL_MAT (ne1), MUL_MAT_ID (ne2), GET_ROWS (none). */
enum ga_op_kind { GA_OP_OTHER = 0, GA_OP_ROPE, GA_OP_FA, GA_OP_MUL_MAT, GA_OP_MUL_MAT_ID, GA_OP_GET_ROWS };

/* The further ggml ops a backend's graph_optimize tells apart (ggml-vulkan
 * keeps RMS_NORM + MUL, MUL_MAT + ADD, ADD + ADD ... together, and the
 * MoE routing's chains in order); 0: any other, or read from op, is_view
 * and view_op (vulkan.c). */
enum ga_gop {
	GA_G_OTHER = 0,
	GA_G_RMS_NORM,
	GA_G_MUL,
	GA_G_ADD,
	GA_G_ADD_ID,
	GA_G_SSM_CONV,
	GA_G_UNARY,
	GA_G_SOFT_MAX,
	GA_G_ARGSORT,
	GA_G_SUM_ROWS,
	GA_G_CLAMP,
	GA_G_DIV,
	GA_G_SQRT,
};

/* What a backend's flash-attention kernels read of a FLASH_ATTN_EXT node
 * (its K and V views and Q), for its supports_op and get_alloc_size
 * (cuda.c). ggml type ids; dk 0 means the builder did not describe it. */
struct ga_fa {
	uint32_t k_type, v_type;
	int64_t dk, dv;	  /* K and V head sizes */
	int64_t n_kv;	  /* K->ne[1]: cells per stream */
	int64_t hkv, h;	  /* K->ne[2], Q->ne[2] */
	int64_t q_tok;	  /* Q->ne[1]: tokens per stream */
	int64_t n_stream; /* ne[3] of Q, K and V */
	uint8_t mask;	  /* a mask is given */
	uint8_t v_is_k;	  /* V is a view of K (MLA) */
};

struct ga_tensor {
	uint64_t bytes; /* views: the bytes they span (what a copy of them allocates) */
	int64_t ne[4];
	uint8_t type;	  /* 0 f32, 1 f16, 2 i32, 3 i64 (only compared for layout) */
	uint8_t input;	  /* a graph input: allocated before any node */
	uint8_t output;	  /* a graph output: never freed or reused */
	uint8_t external; /* lives in another buffer (weights, caches) */
	uint8_t inplace;  /* the op may reuse a parent's memory */
	uint8_t is_view;
	uint8_t view_op; /* VIEW/RESHAPE/PERMUTE/TRANSPOSE (not a sink, which is an op) */
	uint8_t dep;	 /* the scheduler's dependency view (op NONE): counts no view */
	uint8_t weight;	 /* an external in a weights buffer (not a cache) */
	uint8_t op;	 /* enum ga_op_kind */
	uint8_t gop;	 /* enum ga_gop */
	int view_src;	 /* for views: the tensor viewed, or -1 */
	int src[GA_MAX_SRC];
	int n_src;
	int home;	      /* externals: the backend whose buffer holds it (0 when unplaced) */
	int force;	      /* a backend the graph assigns (ggml_backend_sched_set_tensor_backend), -1 none */
	int buf;	      /* the backend buffer it is allocated in */
	uint64_t alloc_bytes; /* what its buffer type allocates (get_alloc_size), 0: bytes */
	uint32_t qtype;	      /* a weight's ggml type id + 1 (ne[0] its row), 0 unknown: a copy's padding */
	int moe_dst; /* a MoE weighted sum's MUL: its last ADD's index + 1 (CUDA's fusion keeps the MUL's srcs to it) */
	struct ga_fa fa;       /* op GA_OP_FA only */
	uint8_t quant_strided; /* GA_OP_MUL_MAT: src0 a quantized view not contiguous in dims 0-1
				* (a quantized K cache read without flash attention; vulkan.h) */
	/* allocator state */
	int n_children, n_views, allocated;
	uint64_t offset;
};

struct ga_graph {
	struct ga_tensor *t;
	int n, cap;
	int *nodes; /* ops and views, in graph order */
	int n_nodes, cap_nodes;
	int *leafs; /* inputs, in discovery order */
	int n_leafs, cap_leafs;
	/* The engine's graph size (llama_context::graph_max_nodes), 0: none.
	 * A node past it sets over: the engine aborts building that graph
	 * (ggml_visit_parents asserts n_nodes < size), so the build goes on
	 * in one scratch tensor, growing nothing, and is never replayed. */
	int64_t max_nodes;
	int over;
	int wrapped; /* a tensor's bytes went past 2^64 (or a dimension below 0): no replay either */
};

/* ggml-alloc's in-place rule (ggml_gallocr_allocate_node): the parent of
 * node I whose memory I takes over, or -1. The op must allow it; the
 * first source qualifies that this allocator owns (allocated, not a view,
 * not external, not an output), that SAME finds laid out like I (type and
 * shape; with CTX) and whose only consumer is I, with no view of it. */
static inline int ga_inplace_parent(const struct ga_graph *g, int i,
				    int (*same)(void *ctx, const struct ga_graph *g, int i, int p), void *ctx)
{
	const struct ga_tensor *t = &g->t[i];
	if (!t->inplace)
		return -1;
	for (int s = 0; s < t->n_src; s++) {
		const struct ga_tensor *p = &g->t[t->src[s]];
		if (!p->allocated || p->is_view || p->external || p->output)
			continue;
		if (same(ctx, g, i, t->src[s]) && p->n_children == 1 && p->n_views == 0)
			return t->src[s];
	}
	return -1;
}

/* Tag node t with its ggml op (enum ga_gop); returns t. */
static inline int ga_gop(struct ga_graph *g, int t, int gop)
{
	g->t[t].gop = (uint8_t)gop;
	return t;
}

/* The start of ggml_gallocr_allocate_node: -2 when tensor i takes no
 * memory here (placed already, external or a view); else i is marked
 * placed and the parent whose memory it takes over in place is returned
 * (no longer marked placed: i owns it now), or -1. */
static inline int ga_claim(struct ga_graph *g, int i, int (*same)(void *ctx, const struct ga_graph *g, int i, int p),
			   void *ctx)
{
	struct ga_tensor *t = &g->t[i];
	if (t->allocated || t->external || t->is_view)
		return -2;
	t->allocated = 1;
	int p = ga_inplace_parent(g, i, same, ctx);
	if (p >= 0)
		g->t[p].allocated = 0;
	return p;
}

void ga_init(struct ga_graph *g);
/* Whether g's build went past its max_nodes (nothing of it may be replayed);
 * a builder's loop over a count read from the header stops on it. */
static inline int ga_over(const struct ga_graph *g)
{
	return g->over;
}
/* An op's bytes: type size x ne0 x ne1 x ne2 x ne3, 0 with *wrapped set
 * when the product leaves 64 bits or a dimension is negative (a header's
 * sizes multiplied past what any machine holds). */
uint64_t ga_bytes(unsigned type_size, const int64_t *ne, int *wrapped);
void ga_release(struct ga_graph *g);
/* Empty g for another build, keeping its arrays (a plan builds four graphs
 * of thousands of tensors: fresh arrays each time were a third of a plan's
 * page faults). */
void ga_clear(struct ga_graph *g);

/* A tensor held elsewhere (a weight, a cache): never allocated here. */
int ga_external(struct ga_graph *g);
/* A graph input of `bytes` bytes. */
int ga_input(struct ga_graph *g, uint64_t bytes);
/* An op producing a contiguous tensor of type (0 f32 ...) and shape ne.
 * srcs is terminated by -2. */
int ga_op(struct ga_graph *g, int inplace, uint8_t type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3,
	  const int *srcs);
/* A view of src (reshape, permute, view): allocates nothing. */
int ga_view(struct ga_graph *g, int src);
/* An op whose result is a view of an external tensor (set_rows into a
 * cache, cpy into a state): allocates nothing, consumes srcs. */
int ga_sink(struct ga_graph *g, const int *srcs);
/* The same into a given external (a cache held by a backend). */
int ga_sink_to(struct ga_graph *g, int dst, const int *srcs);

/* Replay the allocator with the given alignment; returns the buffer size. */
uint64_t ga_run(struct ga_graph *g, uint64_t alignment);

/* ggml-alloc's step after a node is allocated (ggml_gallocr_alloc_graph_impl):
 * node i's parents counted down; one that no child and no view reaches
 * any more is released (a view's source once its last view goes), by
 * free_fn(ctx, g, index). galloc.c and gaparam.c's replays share it. */
typedef void ga_release_fn(void *ctx, struct ga_graph *g, int i);
void ga_free_parents(struct ga_graph *g, int i, ga_release_fn *free_fn, void *ctx);
/* ggml_gallocr_alloc_graph_impl's walk over several buffers, shared by
 * ga_run_nx and ga_affine_n: the leafs placed; each node's views and
 * children counted and its inputs placed; then each node's parents (one
 * not yet placed takes the node's buffer, told to adopt when not NULL)
 * and the node placed, its parents freed by release (ga_free_parents).
 * The caller resets the counters first. */
struct ga_walk {
	void (*place)(void *ctx, struct ga_graph *g, int i);
	void (*adopt)(void *ctx, int parent, int buf);
	ga_release_fn *release;
	void *ctx;
};
void ga_walk(struct ga_graph *g, const struct ga_walk *w);
/* The same over several buffers (one per backend): every tensor is
 * allocated in its t->buf; leafs come first, in g->leafs order.
 * sizes[n_buf] receives each buffer's high-water mark. */
void ga_run_n(struct ga_graph *g, int n_buf, const uint64_t *alignment, uint64_t *sizes);

/* A buffer type's get_alloc_size for tensor t in buffer buf (0: ggml_nbytes). */
typedef uint64_t ga_size_fn(const struct ga_graph *g, int t, int buf, const void *ctx);

/* ga_run_n with each buffer's own get_alloc_size (NULL: ggml_nbytes). */
void ga_run_nx(struct ga_graph *g, int n_buf, const uint64_t *alignment, ga_size_fn *size, const void *ctx,
	       uint64_t *sizes);

/* A view of src spanning `bytes` (what ggml_nbytes gives for its strides). */
int ga_view_n(struct ga_graph *g, int src, uint64_t bytes);
/* A weight or cache held in backend `home`'s buffer; `weight` says whether
 * the buffer holds weights (the scheduler follows those). */
int ga_held(struct ga_graph *g, int home, int weight, uint64_t bytes);

#endif
