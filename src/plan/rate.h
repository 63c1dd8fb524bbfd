/* rate: decode is bound by memory bandwidth (law A06), so a shape's decode
 * rate is predicted from the bytes the engine reads per generated token:
 *
 *   per target step  the weights the trunk multiplies (every block, the
 *                    output head; the input embedding is a gather of one
 *                    row), the adapter, each slot's KV at the stated fill
 *                    (K and V rows of every KV layer over `fill` cells;
 *                    window layers over at most the window), and the
 *                    recurrent state of one sequence;
 *   per draft token  (an armed MTP drafter, n = SPEC_DRAFT_N_MAX per step)
 *                    the MTP block, the head it projects through, and the
 *                    draft KV at the same fill;
 *   tokens per step  1, or 1 + a + a^2 + ... + a^n with a drafter whose
 *                    per-position acceptance is a.
 *
 * bytes per token = bytes per step / tokens per step; the ceiling is the
 * profile's published bandwidth over that. rungs and solve show a shape's
 * rate as base bytes / shape bytes (the card's bandwidth cancels). How
 * close this comes to the seeds' measurements is in the README.
 */
#ifndef ZEALOT_RATE_H
#define ZEALOT_RATE_H

#include <stdint.h>

#include "plan.h"

struct rate_opts {
	uint64_t fill; /* tokens of context a slot holds while it decodes */
	double accept; /* the drafter's per-position acceptance, 0..1 */
};

/* The seeds' drafter: mean accepted length 2.41 at depth 2 (2026-10-19),
 * i.e. 1 + a + a^2 = 2.41. */
#define RATE_ACCEPT_DEFAULT 0.79

struct rate {
	uint64_t fill;		/* the fill used: opts.fill within the window */
	double weights;		/* bytes per target step */
	double kv, state;	/* bytes per target step */
	double draft;		/* bytes per target step spent drafting */
	double tokens_per_step; /* generated tokens per target step */
	double bytes_per_token;
	double tps_ceiling; /* bandwidth / bytes per token; 0 when the profile has none */
};

/* Price decode for the plan p of shape s (x: its adapter). Returns 0, or
 * -1 with *err when the plan has nothing to decode with. */
int rate_of(const struct model *m, const struct gguf *g, const struct plan_shape *s, const struct plan_extras *x,
	    const struct plan *p, const struct rate_opts *o, struct rate *r, char **err);

#endif
