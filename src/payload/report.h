/* report: a payload as `zealot inspect` shows it. */
#ifndef ZEALOT_PAYLOAD_REPORT_H
#define ZEALOT_PAYLOAD_REPORT_H

#include <jansson.h>
#include <stddef.h>

#include "census.h"
#include "gguf.h"
#include "model.h"

/* A tensor type's name, or "typeN" for one ggml does not know. */
const char *payload_type_label(const struct census_type *t, char *buf, size_t n);
/* The layer map: one letter per block, A attention, S sliding window,
 * R recurrent, N nextn. Allocated. */
char *payload_layer_map(const struct model *m);

struct payload_kvgeo {
	enum layer_kind kind;
	uint32_t k, v, heads;
	uint32_t layers;
};
/* Distinct (kind, K width, V width) groups among KV-holding layers. */
size_t payload_kv_groups(const struct model *m, struct payload_kvgeo *out, size_t max);

/* `zealot inspect --json` of the payload at path (its shards aside). */
json_t *payload_to_json(const char *path, const struct gguf *g, const struct census *c);

#endif
