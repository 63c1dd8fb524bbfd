#include "rate.h"

#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

/* -1 input embedding, 0..n-1 blocks, n everything else (as plan.c). */
static int64_t layer_of(const char *name, uint32_t n_all)
{
	if (strncmp(name, "blk.", 4) == 0) {
		char *end;
		unsigned long il = strtoul(name + 4, &end, 10);
		if (end != name + 4 && *end == '.' && il < n_all)
			return (int64_t)il;
	}
	if (strncmp(name, "token_embd.", 11) == 0)
		return -1;
	return n_all;
}

static double per_cell(const struct plan_kv *kv)
{
	if (!kv->present || !kv->cells || !kv->streams)
		return 0;
	return (double)(kv->k_bytes + kv->v_bytes) / ((double)kv->cells * kv->streams);
}

int rate_of(const struct model *m, const struct gguf *g, const struct plan_shape *s, const struct plan_extras *x,
	    const struct plan *p, const struct rate_opts *o, struct rate *r, char **err)
{
	memset(r, 0, sizeof(*r));
	if (!m->n_layer_all)
		return errorf(err, "the payload has no layers to decode with");
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	const struct gguf_tensor *out = gguf_tensor_find(g, "output.weight");
	const struct gguf_tensor *embd = gguf_tensor_find(g, "token_embd.weight");
	double trunk = 0, mtp = 0;
	int mtp_head = 0;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		int64_t il = layer_of(t->name, m->n_layer_all);
		if (il < 0)
			continue; /* a gather: one row per token */
		if (il >= (int64_t)n_layer && il < (int64_t)m->n_layer_all) {
			mtp += (double)t->bytes;
			mtp_head |= strstr(t->name, ".nextn.shared_head_head.") != NULL;
		} else {
			trunk += (double)t->bytes;
		}
	}
	/* a tied output layer multiplies by the embedding matrix */
	double head = out ? (double)out->bytes : embd ? (double)embd->bytes : 0;
	if (!out)
		trunk += head;
	if (x && x->lora)
		for (uint64_t i = 0; i < x->lora->n_tensors; i++)
			trunk += (double)x->lora->tensors[i].bytes;

	uint64_t window = p->n_ctx_seq;
	r->fill = o->fill < window ? o->fill : window;
	double fill = (double)r->fill;
	double swa_fill = fill;
	if (m->n_swa && m->n_swa < r->fill)
		swa_fill = m->n_swa;
	r->weights = trunk;
	r->kv = per_cell(&p->kv) * fill + per_cell(&p->kv_swa) * swa_fill;
	if (p->rs.present && p->rs.cells)
		r->state = (double)(p->rs.r_bytes + p->rs.s_bytes) / ((double)p->rs.cells * (1 + p->rs.rs_seq));
	r->tokens_per_step = 1;
	if (p->has_draft && s->spec_n_max) {
		double a = o->accept < 0 ? 0 : o->accept > 1 ? 1 : o->accept, term = 1;
		double step = mtp + (mtp_head ? 0 : head) + per_cell(&p->draft_kv) * fill;
		r->draft = step * s->spec_n_max;
		for (uint32_t i = 0; i < s->spec_n_max; i++) {
			term *= a;
			r->tokens_per_step += term;
		}
	}
	r->bytes_per_token = (r->weights + r->kv + r->state + r->draft) / r->tokens_per_step;
	if (p->device && p->device->bandwidth_gbs && r->bytes_per_token > 0)
		r->tps_ceiling = p->device->bandwidth_gbs * 1e9 / r->bytes_per_token;
	return 0;
}
