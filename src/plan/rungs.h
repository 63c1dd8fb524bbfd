/* rungs: every one-line change an operator would consider to an endpoint's
 * shape, each priced as a full plan against the payload parsed once: what
 * it frees or costs per term, the free memory and verdict it leaves, and
 * what it costs the user (conversations, per-slot window, K/V precision,
 * the drafter, prefill, decode as predicted by rate.c).
 *
 * Offered: the drafter off, shallower or deeper, or on when the payload
 * carries it; its cache quantized; one conversation fewer or more at the
 * same window; the same slots at a smaller window, and at the largest
 * window that fits (solve_window); K or V one step more exact, one step
 * cheaper, or q4_0, among the types law S04 allows for the payload;
 * ubatch halved or doubled; flash attention on; the projector and the
 * adapter off; a unified pool; the slack band halved. A change that breaks
 * a law (cand_law) is not offered.
 *
 * Order, as the seeds' fallback tables: the rungs that fit first; among
 * them those that free memory before those that cost it; then by what the
 * user gives up (prefill before the drafter's cache before decode before
 * vision before precision before window before a conversation before the
 * adapter before the slack band); then the smallest step first.
 */
#ifndef ZEALOT_RUNGS_H
#define ZEALOT_RUNGS_H

#include <stddef.h>
#include <stdint.h>

#include "../endpoint/endpoint.h"
#include "cand.h"
#include "rate.h"
#include "shape.h"
#include "terms.h"

struct rungs_opts {
	struct rate_opts rate; /* fill 0: half the endpoint's per-slot window */
};

/* A shape's user-facing facts. */
struct rungs_shape {
	uint32_t slots;
	uint64_t window;
	char k[8], v[8], draft_k[8], draft_v[8];
	int drafter; /* an MTP drafter armed */
	uint32_t depth, ubatch;
	int projector, adapter;
	uint64_t slack_mib;
};

struct rung {
	struct cand keys;
	char line[256];	      /* the keys as endpoint lines, space separated */
	const char *gives_up; /* prefill, draft-cache, decode, vision, precision, window,
				 conversations, adapter, headroom, concurrency-contract, nothing */
	int rank;
	char words[384]; /* the cost to the user, in words and figures */
	struct plan plan;
	struct rungs_shape shape;
	int64_t delta[TERM_N]; /* gated bytes, this minus the base */
	int64_t delta_total;
	struct rate rate;
	double decode_ratio; /* base bytes per token / this */
};

struct rungs {
	struct plan base;
	struct rungs_shape base_shape;
	struct rate base_rate;
	struct rung *v;
	size_t n;
	uint64_t plans; /* candidate plans made */
	double ms;
};

int rungs_make(const struct endpoint *ep, const struct shape_ctx *base, const struct rungs_opts *o, struct rungs *r,
	       char **err);
void rungs_release(struct rungs *r);

#endif
