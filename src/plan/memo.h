/* memo: what zealot solve and rungs reuse between the candidate plans of
 * one payload, so that a candidate costs microseconds instead of a replay:
 *
 *   - the model term, per placement (everything in the shape but the pool,
 *     the slots, the caches and the batches: a new shape field joins the
 *     key by itself);
 *   - the compute replays, as affine pieces over the KV cells the masks
 *     span (gaparam.c), keyed by everything else the graph is built from:
 *     on the CPU alone the allocator's replay, with devices (cards,
 *     rpc-servers) the scheduler's, one piece per backend over the cells
 *     on which the scheduler and every allocator decide alike.
 *
 * The caller owns it and passes it in plan_extras.memo; NULL (zealot plan)
 * means no reuse. A plan made with a memo equals the plan made without
 * (tests/unit/test_solve.c holds the two equal over every window of the
 * seeds' shape, over random geometries, and over random candidates on a
 * card and on two rpc-servers against ZEALOT_FULL_REPLAY=1).
 */
#ifndef ZEALOT_MEMO_H
#define ZEALOT_MEMO_H

#include <stddef.h>
#include <stdint.h>

#include "graph/gaparam.h"
#include "plan_base.h"

struct memo_stats {
	uint64_t model_hits, model_misses;
	uint64_t piece_hits;	 /* graph buffers read from a piece */
	uint64_t affine_replays; /* replays that made a piece */
	uint64_t plain_replays;	 /* replays gaparam could not make affine */
};

struct memo *memo_new(void);
void memo_free(struct memo *mm);
const struct memo_stats *memo_stats(const struct memo *mm);

/* The model term: 1 and p->model filled when this placement was priced
 * before, else 0. */
int memo_model_get(struct memo *mm, const struct plan_shape *s, const struct device *dev, struct plan *p);
void memo_model_put(struct memo *mm, const struct plan_shape *s, const struct device *dev, const struct plan *p);

/* A graph's buffer at n cells: 1 and *bytes when a piece of this key holds
 * n, else 0. */
int memo_piece_find(struct memo *mm, const void *key, size_t len, uint64_t n, uint64_t *bytes);
void memo_piece_add(struct memo *mm, const void *key, size_t len, const struct ga_piece *pc);
void memo_count_replay(struct memo *mm, int affine);

/* The cells over which every graph buffer read since memo_interval_reset()
 * keeps its affine form: the solver's window search walks the pieces
 * rather than the windows. */
void memo_interval_reset(struct memo *mm);
void memo_interval(const struct memo *mm, uint64_t *lo, uint64_t *hi);

#endif
