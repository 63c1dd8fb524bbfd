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

struct shape_ctx {
	char *model_path, *projector_path, *lora_path;
	struct gguf_file *model, *projector, *lora;
	struct census *census; /* of the model */
	struct plan_shape shape;
	struct plan_extras extras;
	const struct device *dev;
	uint64_t n_batch_asked; /* BATCH_SIZE as written (the engine clamps it) */
	/* headers read from *_URL because the file is not there yet */
	unsigned remote_reads;
	struct remote_stats remote;
};

/* The KV cache types the engine accepts (common/arg.cpp kv_cache_types). */
const struct ggml_type_info *shape_cache_type(const char *name);
const char *shape_cache_types(void);

/* Read the endpoint's shape and open its payload headers. device_override
 * (or NULL) replaces DEVICE. Returns 0, or -1 with *err; *io is set when
 * the failure is a file that cannot be read (exit 3) rather than a value
 * that is wrong (exit 2). */
int shape_load(const struct endpoint *ep, const char *device_override, struct shape_ctx *c, int *io, char **err);
void shape_release(struct shape_ctx *c);

#endif
