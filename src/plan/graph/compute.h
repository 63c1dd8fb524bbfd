/* compute: the compute buffers the engine reserves for its worst-case
 * graph (sched_reserve: a batch of min(n_ctx, n_ubatch) tokens). A model,
 * not an enumeration of the graph: its error against real boots is
 * measured by the live tests and stated in the README.
 */
#ifndef ZEALOT_COMPUTE_H
#define ZEALOT_COMPUTE_H

#include "../../payload/gguf.h"
#include "../../payload/model.h"
#include "../device.h"

struct plan;
struct plan_shape;
struct placement;
struct memo;

struct compute_input {
	const struct model *m;
	const struct plan_shape *s;
	const struct plan *p;
	const struct device *dev;
	const struct placement *pl; /* where weights and caches live (place.h) */
	const struct gguf *gg;	    /* the payload's header: weight sizes */
	struct memo *memo;	    /* NULL: replay every graph (see memo.h) */
	uint64_t layer_out[4];	    /* draft-eagle3/dflash: the target layers whose input is an output */
};

/* Fill p->compute (and p->draft_compute when a drafter is armed): one
 * buffer per backend that allocates, devices first, then the CPU's. -1
 * with err when a graph holds more nodes than the engine's budget
 * (llama_context::graph_max_nodes): the engine aborts on it. */
int compute_model(const struct compute_input *in, struct plan *p, char **err);

/* The projector's encoder compute (graph_clip.c): the engine's warmup
 * reservation replayed over its graph for the projector types mirrored
 * (mirrored 1), else estimated from its clip.* metadata; type is the
 * tower's clip.projector_type. fa: flash attention not off. */
struct projector_compute {
	uint64_t bytes;
	int mirrored;
	char type[32];
	const char *why; /* a mirrored type's tower the builder does not fit, or NULL */
};
void compute_projector(const struct gguf *projector, int fa, struct projector_compute *out);
/* The projector types graph_clip.c and graph_clip_audio.c mirror, i from 0
 * (NULL past the end). */
const char *compute_projector_type_at(size_t i);

#endif
