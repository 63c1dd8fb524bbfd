#include "terms.h"

const char *const terms_names[TERM_N] = {
    "model",	     "kv",	  "kv_swa", "recurrent", "draft_kv", "output", "compute",
    "draft_compute", "projector", "lora",   "overhead",
};

static void put(struct term *t, uint64_t bytes, int on_device, int cuda)
{
	t->bytes += bytes;
	/* plan_make bills a buffer to the card when it is on the device and
	 * the profile is CUDA; on cpu everything is the gated host budget */
	if (!cuda || on_device)
		t->gated += bytes;
}

void terms_of(const struct plan *p, struct term t[TERM_N])
{
	int cuda = device_is_card(p->device);
	for (int i = 0; i < TERM_N; i++) {
		t[i].name = terms_names[i];
		t[i].bytes = t[i].gated = 0;
	}
	for (unsigned i = 0; i < p->n_model; i++)
		put(&t[TERM_MODEL], p->model[i].bytes, p->model[i].on_device, cuda);
	for (unsigned i = 0; i < p->n_draft_model; i++) /* a drafter's weights are weights too */
		put(&t[TERM_MODEL], p->draft_model[i].bytes, p->draft_model[i].on_device, cuda);
	put(&t[TERM_KV], p->kv.k_bytes + p->kv.v_bytes, 1, cuda);
	put(&t[TERM_KV_SWA], p->kv_swa.k_bytes + p->kv_swa.v_bytes, 1, cuda);
	put(&t[TERM_RECURRENT], p->rs.r_bytes + p->rs.s_bytes, 1, cuda);
	put(&t[TERM_DRAFT_KV], p->draft_kv.k_bytes + p->draft_kv.v_bytes, 1, cuda);
	put(&t[TERM_OUTPUT], p->output_bytes + p->draft_output_bytes + p->extract_bytes, 0, cuda);
	for (unsigned i = 0; i < p->n_compute; i++)
		put(&t[TERM_COMPUTE], p->compute[i].bytes, p->compute[i].on_device, cuda);
	for (unsigned i = 0; i < p->n_draft_compute; i++)
		put(&t[TERM_DRAFT_COMPUTE], p->draft_compute[i].bytes, p->draft_compute[i].on_device, cuda);
	put(&t[TERM_PROJECTOR], p->projector_weights + p->projector_compute, 1, cuda);
	put(&t[TERM_LORA], p->lora_bytes, 1, cuda);
	put(&t[TERM_OVERHEAD], p->overhead_bytes, 1, cuda);
}
