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
};

/* Fill p->compute (and p->draft_compute when a drafter is armed): one
 * buffer per backend that allocates, devices first, then the CPU's. -1
 * with err when a graph holds more nodes than the engine's budget
 * (llama_context::graph_max_nodes): the engine aborts on it. */
int compute_model(const struct compute_input *in, struct plan *p, char **err);

/* Worst-case encoder compute of a projector, from its clip.* metadata. */
uint64_t compute_projector(const struct gguf *projector);

#endif
