/* shape: an endpoint file turned into what the planner prices: the
 * payload headers (model, projector, adapter), their geometry, the serving
 * shape and the device. One place, so plan, check, serve and ledger read
 * the endpoint the same way.
 */
#ifndef ZEALOT_SHAPE_H
#define ZEALOT_SHAPE_H

#include "../endpoint/endpoint.h"
#include "../payload/census.h"
#include "../payload/gguf.h"
#include "../payload/remote.h"
#include "device.h"
#include "plan.h"
#include "shape_laws.h"

struct shape_ctx {
	char *model_path, *projector_path, *lora_path;
	struct gguf_file *model, *projector, *lora;
	struct census *census; /* of the model */
	/* the drafter model (SPEC_DRAFT_MODEL_FILE), its header and census */
	char *draft_path;
	struct gguf_file *draft;
	struct census *draft_census;
	struct plan_shape shape;
	struct plan_extras extras;
	const struct device *dev;
	uint64_t n_batch_asked; /* BATCH_SIZE as written (the engine clamps it) */
	/* the shape laws it breaks (shape_laws.h): how many, and the first,
	 * which a verdict names */
	size_t n_breach;
	struct shape_breach breach;
	/* headers read from *_URL because the file is not there yet */
	unsigned remote_reads;
	struct remote_stats remote;
};

/* The KV cache types the engine accepts (common/arg.cpp kv_cache_types). */
const struct ggml_type_info *shape_cache_type(const char *name);
const char *shape_cache_types(void);

/* Set the field of s or x that key id drives (its row's target) to v, a
 * value in force, through the table's one parse and range: the one map
 * from a key to the priced shape, for shape_read and cand_apply alike.
 * Returns 0, or -1 with *err ("KEY=V is ...") naming the key. */
int shape_set(struct plan_shape *s, struct plan_extras *x, enum key_id id, const char *v, char **err);
/* The engine's clamps: n_batch <= the pool, n_ubatch <= n_batch, from the
 * values asked. */
void shape_clamp(struct plan_shape *s, uint64_t batch, uint64_t ubatch);
/* The shape the endpoint's values make, without its payloads (the extras'
 * slack and addressable memory; l's values as asked, window_cap unbounded).
 * Returns 0, or -1 with *err naming the file, line and key. */
int shape_read(const struct endpoint *ep, struct plan_shape *s, struct plan_extras *x, struct cand_limits *l,
	       char **err);

/* The per-slot window the payload allows: its trained context, or no cap
 * (UINT64_MAX) when rope scaling is configured (in the payload, or by
 * EXTRA_ARGS). */
uint64_t shape_window_cap(const struct endpoint *ep, const struct model *m);

/* Read the endpoint's shape and open its payload headers, and judge the
 * shape by the shape laws (n_breach, breach). device_override
 * (or NULL) replaces DEVICE. Returns ZE_OK (0), or with *err the kind of
 * the failure: ZE_IO for a file that cannot be read, ZE_USAGE for a value
 * that is wrong. *io (may be NULL) is set to whether it was ZE_IO. */
enum zerr shape_load(const struct endpoint *ep, const char *device_override, struct shape_ctx *c, int *io, char **err);
void shape_release(struct shape_ctx *c);

#endif
