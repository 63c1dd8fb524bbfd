/* cand: a candidate shape, written as the endpoint lines that make it
 * (KEY=VALUE, the way `plan --set` takes them), applied to an endpoint's
 * loaded shape without reading the payload again, and judged by the laws
 * that decide whether the engine would take it at all.
 *
 * rungs and solve price hundreds of candidates against one loaded payload;
 * `plan --set` with the same lines prices the same shape (the CLI tests
 * hold every rung and every answer of solve to it).
 */
#ifndef ZEALOT_CAND_H
#define ZEALOT_CAND_H

#include <stddef.h>
#include <stdint.h>

#include "../endpoint/endpoint.h"
#include "shape.h"

#define CAND_MAX_KEYS 16

struct cand {
	unsigned n;
	char key[CAND_MAX_KEYS][24];
	char val[CAND_MAX_KEYS][40];
};

/* Set KEY to VALUE in c (replacing an earlier value of KEY). Returns 0, or
 * -1 when c is full or the strings do not fit. */
int cand_set(struct cand *c, const char *key, const char *value);
int cand_setu(struct cand *c, const char *key, uint64_t value);
/* The value c sets for key, or NULL. */
const char *cand_get(const struct cand *c, const char *key);
/* "K=V K=V" */
void cand_line(const struct cand *c, char *buf, size_t n);

/* The keys a candidate may change: the shape (CTX_SIZE, PARALLEL,
 * KV_UNIFIED, CACHE_TYPE_K/V, FLASH_ATTN, BATCH_SIZE, UBATCH_SIZE, NGL,
 * N_CPU_MOE, REPACK, SPEC_TYPE, SPEC_DRAFT_N_MAX, SPEC_DRAFT_TYPE_K/V), SLACK_MIB,
 * ADDRESSABLE_MIB, and the opt-outs MMPROJ_FILE= and LORA_FILE=. */
int cand_key_ok(const char *key);

/* The shape and extras base's endpoint would have with c's lines on top:
 * base->shape and base->extras with each key applied, then the engine's
 * clamps (n_batch <= the pool, n_ubatch <= n_batch) as shape_load does
 * them. ep is the endpoint base was loaded from (for the values asked
 * before a clamp). Returns 0 or -1 with *err naming the key. */
int cand_apply(const struct endpoint *ep, const struct shape_ctx *base, const struct cand *c, struct plan_shape *s,
	       struct plan_extras *x, char **err);

/* What the laws read beyond the priced shape: the values as written
 * (before the engine's clamps), whether FLASH_ATTN is literally on, and
 * the per-slot window the payload allows (its trained context, or no cap
 * when rope scaling is configured). */
struct cand_limits {
	uint64_t ubatch_asked, batch_asked;
	int fa_on;
	uint64_t window_cap;
};

/* Fill l from the endpoint with c's lines on top. */
int cand_limits(const struct endpoint *ep, const struct model *m, const struct cand *c, struct cand_limits *l,
		char **err);

/* The law a shape breaks before any memory is priced, or NULL: S04 (a
 * quantized cache whose block does not divide a head size), S03 (a
 * quantized V off flash attention), S06 (a drafter the payload does not
 * carry), S02 (a per-slot window above the cap), M03 (a pool not
 * divisible by the slots, no slot), S08 (UBATCH_SIZE above BATCH_SIZE).
 * The rules of laws.c, which `check` runs (tests/unit/test_solve.c holds
 * the two to the same answers). *why gets one sentence. */
const char *cand_law(const struct model *m, const struct plan_shape *s, const struct cand_limits *l, char *why,
		     size_t n);

/* Every shape key in force for shape s (c's lines on the endpoint):
 * CTX_SIZE (from s), PARALLEL, KV_UNIFIED, CACHE_TYPE_K/V, FLASH_ATTN,
 * BATCH_SIZE, UBATCH_SIZE, SPEC_TYPE, and the drafter's SPEC_DRAFT_N_MAX
 * and SPEC_DRAFT_TYPE_K/V when one is armed, N_CPU_MOE when it is not 0:
 * lines ready to paste. */
void cand_shape_keys(const struct endpoint *ep, const struct cand *c, const struct plan_shape *s, struct cand *out);

/* The per-slot window of a shape: the engine's n_ctx_seq. */
uint64_t cand_window(const struct plan_shape *s);
/* The CTX_SIZE that gives `slots` slots a window of w (w a multiple of 256). */
uint64_t cand_pool(uint64_t w, uint32_t slots, int unified);

/* The KV cache types, most exact first, and a type's place in that order
 * (higher is more exact; 0 for a name that is none). */
extern const char *const cand_types[];
extern const unsigned cand_n_types;
int cand_type_rank(const char *name);

#endif
