#include "rate.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

static double per_cell(const struct plan_kv *kv)
{
	if (!kv->present || !kv->cells || !kv->streams)
		return 0;
	return (double)(kv->k_bytes + kv->v_bytes) / ((double)kv->cells * kv->streams);
}

int rate_is_expert(const struct model *m, const struct gguf_tensor *t)
{
	if (!m->n_expert)
		return 0;
	const char *x = strstr(t->name, "_exps.");
	if (!x)
		x = strstr(t->name, "_chexps.");
	if (!x)
		return 0;
	/* [in, out, experts] matrices, [out, experts] biases */
	return t->n_dims >= 2 && t->ne[t->n_dims - 1] == m->n_expert;
}

/* The device index in plan.devs for a placement's device (the host last). */
static unsigned dev_index(const struct plan *p, int d)
{
	return d < 0 || (unsigned)d >= p->n_cards ? p->n_cards : (unsigned)d;
}

/* A buffered term (KV, draft KV, state) spread over the devices its
 * buffers bill, in proportion to their bytes. */
static void spread(struct rate *r, const struct plan_buf *b, unsigned n, double total_bytes, double step_bytes,
		   int which)
{
	if (total_bytes <= 0 || step_bytes <= 0)
		return;
	for (unsigned i = 0; i < n; i++) {
		unsigned d = b[i].dev >= 0 && b[i].dev < (int)r->n_dev ? (unsigned)b[i].dev : r->n_dev - 1;
		double part = step_bytes * (double)b[i].bytes / total_bytes;
		struct rate_dev *v = &r->dev[d];
		if (which == 0)
			v->kv += part;
		else if (which == 1)
			v->state += part;
		else
			v->draft += part;
	}
}

/* The devices, as the plan lists them, and their bandwidths. */
static void rate_devices(struct rate *r, const struct plan *p, const struct placement *pl, const struct rate_opts *o)
{
	const struct device *cpu = device_find("cpu");
	r->host_bw_gbs = o->host_bw_gbs > 0 ? o->host_bw_gbs : cpu ? cpu->bandwidth_gbs : 0;
	r->n_dev = p->n_devs;
	for (unsigned i = 0; i < p->n_devs; i++) {
		struct rate_dev *v = &r->dev[i];
		snprintf(v->name, sizeof(v->name), "%s", p->devs[i].name);
		v->profile = p->devs[i].profile;
		const struct device *d = i < p->n_cards ? pl->dev[i].profile : NULL;
		v->bandwidth_gbs = device_is_card(d) && d->bandwidth_gbs ? d->bandwidth_gbs : r->host_bw_gbs;
		if (d && d->backend == DEVICE_RPC && d->bandwidth_gbs)
			v->bandwidth_gbs = d->bandwidth_gbs;
	}
	if (!p->n_cards)
		r->dev[0].profile = p->device->name;
}

/* The sums, and the time each device takes. */
static void rate_sums(struct rate *r)
{
	int known = 1;
	for (unsigned d = 0; d < r->n_dev; d++) {
		struct rate_dev *v = &r->dev[d];
		r->weights += v->weights;
		r->kv += v->kv;
		r->state += v->state;
		r->draft += v->draft;
		v->bytes_per_token = (v->weights + v->kv + v->state + v->draft) / r->tokens_per_step;
		if (v->bytes_per_token > 0 && v->bandwidth_gbs <= 0)
			known = 0;
		else if (v->bytes_per_token > 0)
			v->ms_per_token = v->bytes_per_token / (v->bandwidth_gbs * 1e6);
		r->ms_per_token += v->ms_per_token;
	}
	r->bytes_per_token = (r->weights + r->kv + r->state + r->draft) / r->tokens_per_step;
	if (!known)
		r->ms_per_token = 0;
	if (r->ms_per_token > 0)
		r->tps_ceiling = 1000 / r->ms_per_token;
}

int rate_of(const struct model *m, const struct gguf *g, const struct plan_shape *s, const struct plan_extras *x,
	    const struct plan *p, const struct rate_opts *o, struct rate *r, char **err)
{
	memset(r, 0, sizeof(*r));
	if (!m->n_layer_all)
		return errorf(err, "the payload has no layers to decode with");
	if (!p->n_devs || p->n_devs > PLAN_MAX_DEVS)
		return errorf(err, "the plan places nothing");
	struct place_request rq = s->place;
	rq.ngl = s->ngl;
	struct placement pl;
	if (place_make(&rq, p->device, m, &pl, err))
		return -1;
	place_refusals(&pl, g, m);

	rate_devices(r, p, &pl, o);

	/* tokens per step, and the tokens a target step verifies */
	r->tokens_per_step = 1;
	double verified = 1, a = 0;
	int drafting = p->has_draft && s->spec_n_max;
	if (drafting) {
		double term = 1;
		a = o->accept < 0 ? 0 : o->accept > 1 ? 1 : o->accept;
		for (uint32_t i = 0; i < s->spec_n_max; i++) {
			term *= a;
			r->tokens_per_step += term;
		}
		verified = 1 + s->spec_n_max;
	}
	double used = m->n_expert ? (double)m->n_expert_used / m->n_expert : 0;
	if (used > 1)
		used = 1;
	r->expert_share = m->n_expert ? 1 - pow(1 - used, verified) : 0;

	/* weights, where each lives */
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	const struct gguf_tensor *out = gguf_tensor_find(g, "output.weight");
	const struct gguf_tensor *embd = gguf_tensor_find(g, "token_embd.weight");
	double mtp_step[PLAN_MAX_DEVS] = {0};
	int mtp_head = 0;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		int64_t il = place_tensor_layer(t->name, m);
		if (il < 0)
			continue; /* a gather: one row per token */
		unsigned d = dev_index(p, place_weight(&pl, t->name, il));
		int expert = rate_is_expert(m, t);
		if (il >= (int64_t)n_layer && il < (int64_t)m->n_layer_all) {
			mtp_step[d] += (double)t->bytes * (expert ? used : 1);
			mtp_head |= strstr(t->name, ".nextn.shared_head_head.") != NULL;
		} else {
			r->dev[d].weights += (double)t->bytes * (expert ? r->expert_share : 1);
		}
	}
	/* a tied output layer multiplies by the embedding matrix, placed as the
	 * output layer's copy of it (plan.c) */
	double head = out ? (double)out->bytes : embd ? (double)embd->bytes : 0;
	unsigned head_dev = out ? dev_index(p, place_weight(&pl, "output.weight", m->n_layer_all))
				: dev_index(p, place_weight(&pl, "token_embd.weight", m->n_layer_all));
	if (!out)
		r->dev[head_dev].weights += head;
	if (x && x->lora)
		for (uint64_t i = 0; i < x->lora->n_tensors; i++)
			r->dev[dev_index(p, (int)p->side_dev)].weights += (double)x->lora->tensors[i].bytes;

	/* caches, on the devices their buffers bill */
	uint64_t window = p->n_ctx_seq;
	r->fill = o->fill < window ? o->fill : window;
	double fill = (double)r->fill;
	double swa_fill = fill;
	if (m->n_swa && m->n_swa < r->fill)
		swa_fill = m->n_swa;
	double kv_full = per_cell(&p->kv) * fill, kv_swa = per_cell(&p->kv_swa) * swa_fill;
	spread(r, p->kv.bufs, p->kv.n_bufs, (double)(p->kv.k_bytes + p->kv.v_bytes), kv_full, 0);
	spread(r, p->kv_swa.bufs, p->kv_swa.n_bufs, (double)(p->kv_swa.k_bytes + p->kv_swa.v_bytes), kv_swa, 0);
	if (p->rs.present && p->rs.cells) {
		double st = (double)(p->rs.r_bytes + p->rs.s_bytes) / ((double)p->rs.cells * (1 + p->rs.rs_seq));
		spread(r, p->rs.bufs, p->rs.n_bufs, (double)(p->rs.r_bytes + p->rs.s_bytes), st, 1);
	}
	if (drafting) {
		double n = s->spec_n_max;
		for (unsigned d = 0; d < r->n_dev; d++)
			r->dev[d].draft += mtp_step[d] * n;
		if (!mtp_head)
			r->dev[head_dev].draft += head * n;
		spread(r, p->draft_kv.bufs, p->draft_kv.n_bufs, (double)(p->draft_kv.k_bytes + p->draft_kv.v_bytes),
		       per_cell(&p->draft_kv) * fill * n, 2);
	}
	place_release(&pl);

	rate_sums(r);
	return 0;
}

double rate_ratio(const struct rate *base, const struct rate *r)
{
	if (base->ms_per_token > 0 && r->ms_per_token > 0)
		return base->ms_per_token / r->ms_per_token;
	return r->bytes_per_token > 0 ? base->bytes_per_token / r->bytes_per_token : 0;
}

int rate_host_bw(const struct endpoint *ep, double *gbs, char **err)
{
	*gbs = 0;
	const char *v = endpoint_value(ep, K_HOST_BW_GBS);
	if (!v || !*v)
		return 0;
	if (endpoint_number(ep, K_HOST_BW_GBS, gbs, err))
		return -1;
	if (!(*gbs > 0) || *gbs > 1e6)
		return errorf(err, "HOST_BW_GBS=%s: the host's memory bandwidth in GB/s, above 0", v);
	return 0;
}
