/* shape_laws: the laws a serving shape breaks before any memory is priced,
 * written once. `check` (judge/laws.c) reports every breach as a finding,
 * `plan` says the first in its verdict, and solve and rungs never offer a
 * shape that breaks one (cand_law).
 *
 *   M03  a pool not divisible by the slots, or no slot
 *   S08  BATCH_SIZE below PARALLEL, UBATCH_SIZE above BATCH_SIZE
 *   S03  a quantized V cache off flash attention
 *   S04  a quantized cache whose block does not divide a head size; an MLA
 *        payload's K and V types that differ
 *   S06  a drafter the payload does not carry
 *   S02  a per-slot window above the payload's trained context
 *   S19  t5encoder over several KV streams (the engine aborts at load)
 */
#ifndef ZEALOT_SHAPE_LAWS_H
#define ZEALOT_SHAPE_LAWS_H

#include <stddef.h>
#include <stdint.h>

#include "../endpoint/keys.h"
#include "../payload/model.h"
#include "plan_base.h"

/* What the laws read beyond the priced shape: the values as written
 * (before the engine's clamps), whether FLASH_ATTN is literally on, and
 * the per-slot window the payload allows (its trained context, or no cap
 * when rope scaling is configured). */
struct cand_limits {
	uint64_t ubatch_asked, batch_asked;
	int fa_on;
	uint64_t window_cap;
};

enum {
	SHAPE_LAWS_STATIC = 1,	/* the endpoint's values alone: M03, S08, S03 */
	SHAPE_LAWS_PAYLOAD = 2, /* against the payload's geometry: S04, S06, S02, S19 */
	SHAPE_LAWS_ALL = 3,
};

struct shape_breach {
	const char *law;
	enum key_id key; /* the key the finding names */
	char fix[160];
	char reason[320];
};

/* The breaches of shape s (m may be NULL for SHAPE_LAWS_STATIC), in a fixed
 * order (the first is the one a verdict names). Fills up to max of them and
 * returns how many there are. */
size_t shape_laws(const struct model *m, const struct plan_shape *s, const struct cand_limits *l, unsigned which,
		  struct shape_breach *out, size_t max);

#endif
