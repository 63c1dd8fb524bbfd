/* gaparam: ggml's graph allocator (galloc.c) replayed over a graph whose
 * tensor sizes are affine in one parameter n (the KV cells the attention
 * masks span), so one replay prices every n over which the allocator makes
 * the same decisions.
 *
 * Two builds of the same graph at n0 and n1 give each tensor its affine
 * size (bytes and ne as a + b*n). The replay then runs galloc's rules on
 * the affine values, deciding every comparison at n0 and narrowing the
 * interval of n on which each comparison keeps its sign; at the end the
 * high-water mark is a + b*n exactly for every n in [lo, hi] (n a multiple
 * of the step). `zealot solve` asks hundreds of windows of one shape: the
 * allocator's decisions change at a handful of them, so a handful of
 * replays price them all (tests/unit/test_solve.c holds it against
 * galloc's plain replay window by window).
 */
#ifndef ZEALOT_GAPARAM_H
#define ZEALOT_GAPARAM_H

#include <stdint.h>

#include "galloc.h"

struct ga_piece {
	uint64_t lo, hi; /* the n (multiples of the step) this piece prices */
	int64_t a, b;	 /* high-water bytes = a + b*n */
};

/* Replay the allocator over g0 (built at n0) and g1 (the same graph built
 * at n1 = n0 + step) with the given alignment. Returns 0 and fills *out
 * (its interval holds n0), or -1 when the two graphs differ in structure,
 * a size is not affine in n on multiples of step, or a value leaves the
 * range this arithmetic holds: the caller then replays g0 plainly. */
int ga_affine(struct ga_graph *g0, struct ga_graph *g1, uint64_t n0, uint64_t step, uint64_t alignment,
	      struct ga_piece *out);

/* The same over a graph the scheduler has split and copied
 * (ga_schedule_graph) at n0 and n0 + step: every tensor in its t->buf,
 * n_buf buffers with their alignments and their buffer types'
 * get_alloc_size (size, ctx; NULL: the tensors' bytes), as ga_run_nx
 * replays them. The scheduler's own decisions hold on [lo, hi] (the
 * caller's ga_sched_interval). Returns 0 and one piece per buffer (one
 * interval for all, holding n0), or -1: replay plainly. */
int ga_affine_n(struct ga_graph *g0, struct ga_graph *g1, int n_buf, const uint64_t *alignment, ga_size_fn *size,
		const void *ctx, uint64_t n0, uint64_t step, uint64_t lo, uint64_t hi, struct ga_piece *out);

#endif
