#include "compute.h"

#include <string.h>

#include "plan.h"

void compute_model(const struct compute_input *in, struct plan *p)
{
	(void)in;
	p->n_compute = 0;
	p->n_draft_compute = 0;
}

uint64_t compute_projector(const struct gguf *projector)
{
	(void)projector;
	return 0;
}
