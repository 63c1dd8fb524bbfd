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
	enum key_id key[CAND_MAX_KEYS];
	char val[CAND_MAX_KEYS][40];
};

/* Set KEY to VALUE in c (replacing an earlier value of KEY). Returns 0, or
 * -1 when c is full or the value does not fit. */
int cand_set(struct cand *c, enum key_id key, const char *value);
int cand_setu(struct cand *c, enum key_id key, uint64_t value);
/* The value c sets for key, or NULL. */
const char *cand_get(const struct cand *c, enum key_id key);
/* The key an argument "KEY=..." names and, in *val, the text after '='.
 * name gets KEY ("" when the argument has no KEY= part, or a longer KEY
 * than a name holds); NULL when there is none, or KEY is not a key a
 * candidate may set (cand_key_ok). */
#define CAND_NAME_MAX 32
const struct key_def *cand_arg_key(const char *arg, char name[CAND_NAME_MAX], const char **val);
/* Add one line "KEY=VALUE" (as `solve --fix` takes it) to c. Returns 0, or
 * -1 with *err ("'KEY=VALUE': ...") when KEY is not a key a candidate may
 * set or c is full. */
int cand_parse_line(struct cand *c, const char *kv, char **err);
/* "K=V K=V" */
void cand_line(const struct cand *c, char *buf, size_t n);

/* The keys a candidate may change: the rows of the key table with a
 * target (keys.h): the shape, SLACK_MIB, ADDRESSABLE_MIB, and the opt-outs
 * MMPROJ_FILE= and LORA_FILE=. */
int cand_key_ok(enum key_id key);

/* The shape and extras base's endpoint would have with c's lines on top:
 * base->shape and base->extras with each key applied, then the engine's
 * clamps (n_batch <= the pool, n_ubatch <= n_batch) as shape_load does
 * them. ep is the endpoint base was loaded from (for the values asked
 * before a clamp). Returns 0 or -1 with *err naming the key. */
int cand_apply(const struct endpoint *ep, const struct shape_ctx *base, const struct cand *c, struct plan_shape *s,
	       struct plan_extras *x, char **err);

/* Fill l from the endpoint with c's lines on top. */
int cand_limits(const struct endpoint *ep, const struct model *m, const struct cand *c, struct cand_limits *l,
		char **err);

/* The first shape law (shape_laws.h) the shape breaks, or NULL; *why gets
 * its sentence. */
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
