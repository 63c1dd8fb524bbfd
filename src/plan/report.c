/* What rungs, solve and plan --svg share: a plan's terms as JSON, a
 * decode prediction as JSON, an endpoint's shape in one line, the picture
 * of a plan written to a file. */
#include "report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "cpu.h"
#include "svg.h"
#include "terms.h"

/* Two decimals as the engine prints them. */
double plan_r2(double mib)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.2f", mib);
	return strtod(buf, NULL);
}

json_t *plan_terms_json(const struct plan *p)
{
	struct term t[TERM_N];
	terms_of(p, t);
	json_t *o = json_object();
	for (int i = 0; i < TERM_N; i++)
		json_object_set_new(o, t[i].name, json_real(plan_r2(plan_mib(t[i].gated))));
	return o;
}

json_t *plan_summary_json(const struct plan *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "verdict", json_string(p->fits ? "fits" : "refused"));
	json_object_set_new(o, "n_ctx", json_integer(p->n_ctx));
	json_object_set_new(o, "n_ctx_seq", json_integer(p->n_ctx_seq));
	json_object_set_new(o, "n_seq", json_integer(p->n_seq));
	json_object_set_new(o, "terms", plan_terms_json(p));
	json_object_set_new(o, "total_mib", json_real(plan_r2(plan_mib(p->device_total))));
	json_object_set_new(o, "host_mib", json_real(plan_r2(plan_mib(p->host_total))));
	json_object_set_new(o, "addressable_mib", json_real(plan_r2(plan_mib(p->addressable))));
	json_object_set_new(o, "free_mib", json_real(plan_r2((double)p->free_bytes / (1024.0 * 1024.0))));
	json_object_set_new(o, "slack_mib", json_real(plan_r2(plan_mib(p->slack))));
	return o;
}

json_t *plan_rate_json(const struct rate *r, double ratio)
{
	json_t *o = json_object();
	json_object_set_new(o, "fill_tokens", json_integer((json_int_t)r->fill));
	json_object_set_new(o, "bytes_per_token", json_integer((json_int_t)(r->bytes_per_token + 0.5)));
	json_object_set_new(o, "weights_mib", json_real(plan_r2(r->weights / 1048576.0)));
	json_object_set_new(o, "kv_mib", json_real(plan_r2(r->kv / 1048576.0)));
	json_object_set_new(o, "state_mib", json_real(plan_r2(r->state / 1048576.0)));
	json_object_set_new(o, "draft_mib", json_real(plan_r2(r->draft / 1048576.0)));
	json_object_set_new(o, "tokens_per_step", json_real(plan_r2(r->tokens_per_step)));
	json_object_set_new(o, "ceiling_tps", r->tps_ceiling > 0 ? json_real(plan_r2(r->tps_ceiling)) : json_null());
	json_object_set_new(o, "ratio", json_real(round(ratio * 10000) / 10000));
	json_object_set_new(o, "ms_per_token",
			    r->ms_per_token > 0 ? json_real(round(r->ms_per_token * 1e4) / 1e4) : json_null());
	json_object_set_new(o, "host_bw_gbs", json_real(r->host_bw_gbs));
	json_object_set_new(o, "expert_share", json_real(round(r->expert_share * 1e6) / 1e6));
	json_t *a = json_array();
	for (unsigned i = 0; i < r->n_dev; i++) {
		const struct rate_dev *d = &r->dev[i];
		json_t *x = json_object();
		json_object_set_new(x, "device", json_string(d->name));
		json_object_set_new(x, "profile", d->profile ? json_string(d->profile) : json_null());
		json_object_set_new(x, "bandwidth_gbs", json_real(d->bandwidth_gbs));
		json_object_set_new(x, "bytes_per_token", json_integer((json_int_t)(d->bytes_per_token + 0.5)));
		json_object_set_new(x, "weights_mib", json_real(plan_r2(d->weights / 1048576.0)));
		json_object_set_new(x, "kv_mib", json_real(plan_r2(d->kv / 1048576.0)));
		json_object_set_new(x, "state_mib", json_real(plan_r2(d->state / 1048576.0)));
		json_object_set_new(x, "draft_mib", json_real(plan_r2(d->draft / 1048576.0)));
		json_object_set_new(x, "ms_per_token", json_real(round(d->ms_per_token * 1e4) / 1e4));
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "devices", a);
	return o;
}

json_t *plan_keys_json(const struct cand *c)
{
	json_t *o = json_object();
	for (unsigned i = 0; i < c->n; i++)
		json_object_set_new(o, key_name(c->key[i]), json_string(c->val[i]));
	return o;
}

void plan_shape_line(const struct plan *p, const struct plan_shape *s, char *buf, size_t n)
{
	char w[32];
	snprintf(buf, n, "%u x %s tokens, %s K + %s V, %s, ubatch %u", p->n_seq, fmt_commas(p->n_ctx_seq, w, sizeof(w)),
		 s->type_k->name, s->type_v->name, p->has_draft ? "MTP drafter armed" : "no drafter", s->n_ubatch);
}

int plan_svg_write(const char *path, const char *name, const struct plan *p, const struct plan_shape *s, char **err)
{
	char line[256];
	struct sb t = {0};
	plan_shape_line(p, s, line, sizeof(line));
	sb_addf(&t, "%s on %s: %s", name, p->device->name, line);
	char *svg = svg_plan(t.s, p);
	int rc = write_file(path, svg, err);
	free(svg);
	sb_release(&t);
	return rc;
}

/* Two decimals as the engine prints them (see ledger.c). */
static double r2(uint64_t bytes)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.2f", plan_mib(bytes));
	return strtod(buf, NULL);
}

static json_t *jbufs(const struct plan_buf *b, unsigned n)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(
		    a, json_pack("{s:s,s:f,s:b}", "device", b[i].buft, "mib", r2(b[i].bytes), "card", b[i].on_device));
	return a;
}

/* A term's per-device entries: the engine's buffer name and the device it
 * bills ("host" or a card's name). */
static json_t *jdevs(const struct plan *p, const struct plan_buf *b, unsigned n)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:f,s:s}", "device", b[i].buft, "mib", r2(b[i].bytes), "on",
						   p->devs[b[i].dev].name));
	return a;
}

static json_t *jone(const struct plan *p, const char *buft, int dev, uint64_t bytes)
{
	struct plan_buf b = {.bytes = bytes, .dev = dev};
	snprintf(b.buft, sizeof(b.buft), "%s", buft);
	return jdevs(p, &b, bytes ? 1 : 0);
}

static json_t *jkv(const struct plan *p, const struct plan_kv *kv)
{
	if (!kv->present)
		return json_null();
	return json_pack("{s:f,s:f,s:f,s:i,s:i,s:i,s:i,s:s,s:s,s:o}", "mib", r2(kv->k_bytes + kv->v_bytes), "k_mib",
			 r2(kv->k_bytes), "v_mib", r2(kv->v_bytes), "cells", (json_int_t)kv->cells, "layers",
			 (json_int_t)kv->layers, "seqs", (json_int_t)kv->seqs, "streams", (json_int_t)kv->streams,
			 "k_type", kv->k_type, "v_type", kv->v_type, "devices", jdevs(p, kv->bufs, kv->n_bufs));
}

static json_t *jdevices(const struct plan *p)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < p->n_devs; i++) {
		const struct plan_dev *d = &p->devs[i];
		json_array_append_new(a, json_pack("{s:s,s:s,s:i,s:b,s:f,s:f,s:f,s:f,s:b}", "device", d->name,
						   "profile", d->profile, "layers", (json_int_t)d->layers,
						   "output_layer", d->output, "total_mib", r2(d->total),
						   "addressable_mib", r2(d->addressable), "free_mib",
						   round((double)d->free_bytes / (1024.0 * 1024.0) * 100) / 100,
						   "slack_mib", r2(d->slack), "fits", d->fits));
	}
	return a;
}

json_t *plan_to_json(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "endpoint", json_string(ep->name));
	json_object_set_new(o, "model_file", json_string(c->model_path));
	json_object_set_new(o, "device", json_string(p->device->name));
	json_object_set_new(o, "verdict", json_string(p->fits && !c->n_breach ? "fits" : "refused"));
	json_object_set_new(o, "law", c->n_breach ? json_string(c->breach.law) : json_null());
	json_t *um = json_array();
	for (unsigned i = 0; i < p->n_unmirrored; i++)
		json_array_append_new(um, json_string(p->unmirrored[i]));
	json_object_set_new(o, "exact", json_boolean(p->n_unmirrored == 0));
	json_object_set_new(o, "unmirrored", um);
	json_object_set_new(o, "cuda",
			    *p->cuda_note ? json_pack("{s:s,s:s,s:b,s:b,s:b}", "note", p->cuda_note, "build_source",
						      *c->shape.cuda.source ? c->shape.cuda.source : "defaults",
						      "fa_all", c->shape.cuda.fa_all, "fa_scratch",
						      !c->shape.cuda.no_scratch, "fa_on_card", p->cuda_fa_on_card)
					  : json_null());
	json_object_set_new(o, "n_ctx", json_integer(p->n_ctx));
	json_object_set_new(o, "n_ctx_seq", json_integer(p->n_ctx_seq));
	json_object_set_new(o, "n_seq", json_integer(p->n_seq));
	char feat[128];
	json_object_set_new(o, "cpu",
			    json_pack("{s:s,s:s,s:b}", "features",
				      cpu_features_format(&c->shape.cpu, feat, sizeof(feat)), "source",
				      c->shape.cpu.source, "extra_buffers", c->shape.repack));
	json_object_set_new(o, "model", jbufs(p->model, p->n_model));
	if (p->n_draft_model) /* a separate drafter's weights */
		json_object_set_new(o, "draft_model", jbufs(p->draft_model, p->n_draft_model));
	json_object_set_new(o, "kv", jkv(p, &p->kv));
	json_object_set_new(o, "kv_swa", jkv(p, &p->kv_swa));
	if (p->rs.present)
		json_object_set_new(o, "recurrent",
				    json_pack("{s:f,s:f,s:f,s:i,s:i,s:i,s:i,s:o}", "mib",
					      r2(p->rs.r_bytes + p->rs.s_bytes), "r_mib", r2(p->rs.r_bytes), "s_mib",
					      r2(p->rs.s_bytes), "cells", (json_int_t)p->rs.cells, "layers",
					      (json_int_t)p->rs.layers, "seqs", (json_int_t)p->rs.seqs, "rs_seq",
					      (json_int_t)p->rs.rs_seq, "devices", jdevs(p, p->rs.bufs, p->rs.n_bufs)));
	else
		json_object_set_new(o, "recurrent",
				    json_pack("{s:f,s:f,s:f,s:[]}", "mib", 0.0, "r_mib", 0.0, "s_mib", 0.0, "devices"));
	json_t *dk = jkv(p, &p->draft_kv);
	if (json_is_null(dk)) {
		json_decref(dk);
		dk = json_pack("{s:f,s:[]}", "mib", 0.0, "devices");
	}
	json_object_set_new(o, "draft_kv", dk);
	json_object_set_new(o, "output_mib", json_real(r2(p->output_bytes + p->draft_output_bytes)));
	json_object_set_new(o, "output",
			    jone(p, p->output_buft, (int)p->n_cards, p->output_bytes + p->draft_output_bytes));
	if (p->extract_bytes)
		json_object_set_new(o, "extract_mib", json_real(r2(p->extract_bytes)));
	json_object_set_new(o, "compute", jbufs(p->compute, p->n_compute));
	json_object_set_new(o, "draft_compute", jbufs(p->draft_compute, p->n_draft_compute));
	int card = (int)p->side_dev;
	json_object_set_new(o, "projector",
			    json_pack("{s:f,s:f,s:f,s:o}", "mib", r2(p->projector_weights + p->projector_compute),
				      "weights_mib", r2(p->projector_weights), "compute_mib", r2(p->projector_compute),
				      "devices",
				      jone(p, p->devs[card].name, card, p->projector_weights + p->projector_compute)));
	json_object_set_new(o, "lora_mib", json_real(r2(p->lora_bytes)));
	json_object_set_new(o, "lora", jone(p, p->devs[card].name, card, p->lora_bytes));
	json_object_set_new(o, "overhead_mib", json_real(r2(p->overhead_bytes)));
	json_t *ov = json_array();
	for (unsigned i = 0; i < p->n_cards; i++)
		if (p->devs[i].overhead)
			json_array_append_new(ov, json_pack("{s:s,s:f,s:s}", "device", p->devs[i].name, "mib",
							    r2(p->devs[i].overhead), "on", p->devs[i].name));
	json_object_set_new(o, "overhead", ov);
	json_object_set_new(o, "devices", jdevices(p));
	json_object_set_new(o, "offloaded", json_integer(p->offloaded));
	json_object_set_new(o, "offloadable", json_integer(p->offloadable));
	json_object_set_new(o, "kv_offload", json_boolean(p->kv_offload));
	json_object_set_new(o, "pipeline_parallel", json_boolean(p->pipeline));
	json_object_set_new(o, "overrides", json_integer(p->n_overrides));
	json_object_set_new(o, "total_mib", json_real(r2(p->device_total)));
	json_object_set_new(o, "host_mib", json_real(r2(p->host_total)));
	json_object_set_new(o, "addressable_mib", json_real(r2(p->addressable)));
	json_object_set_new(o, "free_mib", json_real(round((double)p->free_bytes / (1024.0 * 1024.0) * 100) / 100));
	json_object_set_new(o, "slack_mib", json_real(r2(p->slack)));
	return o;
}
