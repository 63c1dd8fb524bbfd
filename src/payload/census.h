/* census: everything `inspect` says about a payload, gathered from its
 * header: geometry (model.h), the tensor-type histogram with custom types
 * named as such, sampling defaults, chat-template facts, adapter and
 * projector facts, and vendor metadata families (e.g. `prism.hadamard.*`,
 * the transform a stock loader would ignore: law S10).
 */
#ifndef ZEALOT_CENSUS_H
#define ZEALOT_CENSUS_H

#include <stdint.h>

#include "gguf.h"
#include "model.h"
#include "template.h"

struct census_type {
	uint32_t type;
	const char *name; /* NULL for a custom type */
	uint64_t count;
	uint64_t bytes;
};

struct census_kv {
	char *key;
	double value;
};

struct census_family {
	char *prefix;
	uint64_t keys;
};

struct census {
	struct model *model; /* NULL for adapters and projectors */
	uint64_t n_tensors;
	struct census_type *types;
	size_t n_types;
	uint64_t weights_bytes;
	uint64_t custom_tensors;

	struct census_kv *sampling;
	size_t n_sampling;

	int has_template;
	struct template_facts tpl;

	int is_adapter;
	char *adapter_type;
	int has_alpha;
	double adapter_alpha;
	char *adapter_base;
	int touches_token_embd;

	int is_projector;
	char *projector_type;
	int has_vision, has_audio;
	uint64_t image_size, patch_size, vision_blocks, vision_embd, projection_dim;

	struct census_family *families;
	size_t n_families;
};

/* Gather the census. Returns NULL with *err when the geometry cannot be
 * derived (see model_from_gguf). */
struct census *census_take(const struct gguf *g, char **err);
void census_free(struct census *c);

#endif
