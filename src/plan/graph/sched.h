/* sched: a replay of the engine's backend scheduler (ggml/src/ggml-backend.cpp
 * ggml_backend_sched_split_graph) over a ga_graph whose weights and caches
 * know the backend holding them, then of ggml_gallocr_reserve_n with one
 * buffer per backend.
 *
 *   pass 1  a node that writes into a held tensor (a cache) runs where it
 *           lives; a graph input goes to the CPU (the last backend); an op
 *           runs where its first weight lives (not ROPE, not
 *           FLASH_ATTN_EXT), unless a weight on the CPU and a device that
 *           offloads the op (CUDA: 32+ rows, op_offload on) take it
 *   pass 2  device assignments spread down then up over unassigned nodes,
 *           skipping the CPU; then any assignment down, then up
 *   pass 3  a node still unassigned goes where most of its sources can be
 *           read
 *   pass 4  views follow their source; unassigned sources their consumer
 *   pass 5  runs of one backend become splits; a source held by another
 *           backend is copied into the split's backend once (a copy per
 *           backend, reused by later splits), allocated at the start of the
 *           split, its original kept alive until the copy; with pipeline
 *           parallelism every input and copy is kept n_copies times and
 *           never freed
 *
 * A backend's graph_optimize may keep tensors alive longer (CUDA: the
 * experts and router weights of a MoE weighted sum it fuses, until the
 * sum's last ADD): a dependency node after that ADD, as the scheduler adds.
 *
 * A backend may reorder each of its splits' nodes (optimize: ggml-vulkan's
 * graph_optimize groups independent nodes), as the scheduler lets it
 * before it copies the graph.
 *
 * Then every tensor is allocated in its backend's buffer, leafs first, in
 * the graph copy's order, each in its buffer type's get_alloc_size. A
 * backend that cannot run an op (supports_op: a CUDA build without the
 * flash-attention kernel for a K/V pair) is skipped wherever the engine
 * asks ggml_backend_supports_op: pass 1's weight and offload rules,
 * pass 2's expansion, pass 3's choice and pass 4's fallback.
 */
#ifndef ZEALOT_SCHED_H
#define ZEALOT_SCHED_H

#include <stdint.h>

#include "galloc.h"

#define GA_MAX_BACKENDS 16

struct ga_sched {
	int n_backends; /* the CPU is the last */
	uint64_t align[GA_MAX_BACKENDS];
	uint8_t offload[GA_MAX_BACKENDS];  /* offload_op: ops of 32+ rows on CPU weights (CUDA) */
	uint8_t fuse_moe[GA_MAX_BACKENDS]; /* graph_optimize keeps a MoE weighted sum's srcs to its end (CUDA) */
	int n_copies;			   /* 4 with pipeline parallelism, else 1 */
	/* a backend's own rules (cuda.c); NULL: it runs every op and
	 * allocates ggml_nbytes (the CPU, an rpc-server's CPU backend) */
	int (*supports_op)(const struct ga_graph *g, int t, int backend, const void *ctx);
	ga_size_fn *alloc_size;
	/* where those rules read n (the KV cells) in a flash-attention node:
	 * 0 and [lo, hi] narrowed to the n (multiples of step from n0) over
	 * which they decide as at n0, given the node built at n0 (a) and at
	 * n0 + step (b); -1 when they may not (NULL: the rules read n nowhere
	 * the memo can follow, so a card's graphs are replayed plainly) */
	int (*fa_interval)(const struct ga_fa *a, const struct ga_fa *b, int64_t n0, int64_t step, int64_t *lo,
			   int64_t *hi);
	const void *ctx;
	/* a backend's graph_optimize over one split's nodes (the n node
	 * indices from nodes, reordered in place) before the graph copy is
	 * made; NULL: the graph's order (ggml-vulkan's: vulkan.h) */
	void (*optimize)(const struct ga_graph *g, int *nodes, int n, int backend, const void *ctx);
};

/* Assign, split, copy and allocate; sizes[n_backends] receives each
 * backend's compute buffer. The graph is modified (copies added). */
void ga_schedule(struct ga_graph *g, const struct ga_sched *sc, uint64_t *sizes);

/* ga_schedule without the allocation: every tensor's t->buf assigned, the
 * copies and the splits' order in place, ready for ga_run_nx (or
 * gaparam's ga_affine_n). */
void ga_schedule_graph(struct ga_graph *g, const struct ga_sched *sc);

/* Before scheduling g0 (built at n0) and g1 (at n0 + step): 0 when every
 * decision the scheduler takes from sizes is the same for every n in
 * [lo, hi] (narrowed here), -1 when it may not be. The sizes it reads: the
 * batch of an op on a weight (pass 1's offload rule) and a backend's
 * flash-attention rules (fa_interval). */
int ga_sched_interval(const struct ga_graph *g0, const struct ga_graph *g1, const struct ga_sched *sc, int64_t n0,
		      int64_t step, int64_t *lo, int64_t *hi);

#endif
