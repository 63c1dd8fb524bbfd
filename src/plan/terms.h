/* terms: a plan as one fixed list of terms, each with its bytes and the
 * part of them billed to the budget the verdict gates (the card on a CUDA
 * profile, host memory on cpu), named like plan's table. rungs diffs two
 * such lists; the picture stacks them.
 */
#ifndef ZEALOT_TERMS_H
#define ZEALOT_TERMS_H

#include <stdint.h>

#include "plan.h"

enum term_id {
	TERM_MODEL,
	TERM_KV,
	TERM_KV_SWA,
	TERM_RECURRENT,
	TERM_DRAFT_KV,
	TERM_OUTPUT,
	TERM_COMPUTE,
	TERM_DRAFT_COMPUTE,
	TERM_PROJECTOR,
	TERM_LORA,
	TERM_OVERHEAD,
	TERM_N,
};

struct term {
	const char *name;
	uint64_t bytes; /* wherever it lands */
	uint64_t gated; /* the part billed to the gated budget */
};

extern const char *const terms_names[TERM_N];

/* Fill t[TERM_N] from p. The gated parts add up to p->device_total. */
void terms_of(const struct plan *p, struct term t[TERM_N]);

#endif
