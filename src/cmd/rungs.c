/* zealot rungs ENDPOINT [--device D] [--set K=V ...] [--json] [--svg FILE] */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/color.h"
#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../plan/report.h"
#include "../plan/rungs.h"
#include "../plan/shape.h"
#include "../plan/svg.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_RUNGS, .more = cmd_devices};

static json_t *shape_json(const struct rungs_shape *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "slots", json_integer(f->slots));
	json_object_set_new(o, "window", json_integer((json_int_t)f->window));
	json_object_set_new(o, "cache_k", json_string(f->k));
	json_object_set_new(o, "cache_v", json_string(f->v));
	json_object_set_new(o, "drafter", json_string(f->drafter ? "draft-mtp" : "none"));
	json_object_set_new(o, "depth", json_integer(f->depth));
	json_object_set_new(o, "ubatch", json_integer(f->ubatch));
	json_object_set_new(o, "projector", json_boolean(f->projector));
	json_object_set_new(o, "adapter", json_boolean(f->adapter));
	json_object_set_new(o, "slack_mib", json_integer((json_int_t)f->slack_mib));
	return o;
}

static json_t *to_json(const struct endpoint *ep, const struct shape_ctx *c, const struct rungs *r,
		       const struct rate_opts *ro, const struct cmd_measured *m)
{
	json_t *o = json_object();
	json_object_set_new(o, "endpoint", json_string(ep->name));
	json_object_set_new(o, "device", json_string(r->base.device->name));
	json_object_set_new(o, "fill_tokens", json_integer((json_int_t)r->base_rate.fill));
	json_object_set_new(o, "accept", json_real(ro->accept));
	json_t *b = json_object();
	struct cand keys;
	cand_shape_keys(ep, NULL, &c->shape, &keys);
	json_object_set_new(b, "keys", plan_keys_json(&keys));
	json_object_set_new(b, "shape", shape_json(&r->base_shape));
	json_object_set_new(b, "plan", plan_summary_json(&r->base));
	json_object_set_new(b, "decode", plan_rate_json(&r->base_rate, 1));
	json_object_set_new(o, "base", b);
	json_t *a = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct rung *g = &r->v[i];
		json_t *x = json_object();
		json_object_set_new(x, "keys", plan_keys_json(&g->keys));
		json_object_set_new(x, "line", json_string(g->line));
		json_t *d = json_object();
		for (int t = 0; t < TERM_N; t++)
			json_object_set_new(d, terms_names[t], json_real(plan_r2((double)g->delta[t] / 1048576.0)));
		json_object_set_new(d, "total", json_real(plan_r2((double)g->delta_total / 1048576.0)));
		json_object_set_new(x, "delta", d);
		json_object_set_new(x, "total_mib", json_real(plan_r2(cmd_mib(g->plan.device_total))));
		json_object_set_new(x, "free_mib", json_real(plan_r2((double)g->plan.free_bytes / 1048576.0)));
		json_object_set_new(x, "verdict", json_string(g->plan.fits ? "fits" : "refused"));
		json_object_set_new(x, "gives_up", json_string(g->gives_up));
		json_t *cost = shape_json(&g->shape);
		json_object_set_new(cost, "words", json_string(g->words));
		json_object_set_new(cost, "decode_ratio", json_real(round(g->decode_ratio * 10000) / 10000));
		json_object_set_new(cost, "decode_change_pct", json_real(round((g->decode_ratio - 1) * 1000) / 10));
		json_object_set_new(x, "cost", cost);
		json_object_set_new(x, "decode", plan_rate_json(&g->rate, g->decode_ratio));
		json_object_set_new(x, "decode_measured", cmd_measured_json(m, ep, &g->keys, g->decode_ratio));
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "rungs", a);
	json_object_set_new(o, "plans", json_integer((json_int_t)r->plans));
	json_object_set_new(o, "ms", json_real(plan_r2(r->ms)));
	return o;
}

static void print_human(const struct endpoint *ep, const struct shape_ctx *c, const struct rungs *r,
			const struct cmd_measured *m)
{
	char line[256], a[32], f[32];
	const struct plan *p = &r->base;
	plan_shape_line(p, &c->shape, line, sizeof(line));
	char head[200];
	snprintf(head, sizeof(head), "rungs %s on %s: ", ep->name, p->device->name);
	cmd_wrap(stdout, head, 2, line);
	const char *bv = p->fits ? "fits" : "refused";
	printf("base: total %s MiB, free %s MiB, %s%s%s (slack band %s MiB)\n", FMT_MIB(cmd_mib(p->device_total)),
	       FMT_MIB((double)p->free_bytes / 1048576.0), color_word(bv), bv, color_tone(stdout, COLOR_END),
	       FMT_MIB(cmd_mib(p->slack)));
	struct sb dl = {0};
	sb_addf(&dl, "priced at %s tokens of context per slot", cmd_commas(r->base_rate.fill, a, sizeof(a)));
	if (r->base_rate.tps_ceiling > 0) {
		sb_addf(&dl, "; ceiling %.0f tokens/s (", r->base_rate.tps_ceiling);
		for (unsigned i = 0, k = 0; i < r->base_rate.n_dev; i++)
			if (r->base_rate.dev[i].bytes_per_token > 0)
				sb_addf(&dl, "%s%s %.3f ms at %.0f GB/s", k++ ? ", " : "", r->base_rate.dev[i].name,
					r->base_rate.dev[i].ms_per_token, r->base_rate.dev[i].bandwidth_gbs);
		sb_adds(&dl, ")");
	}
	cmd_wrap(stdout, "decode ", 2, dl.s);
	sb_release(&dl);
	printf("\n");
	printf("   %-36s %11s %11s  %-8s %-14s %8s\n", "change", "delta MiB", "free MiB", "verdict", "gives up",
	       "decode");
	for (size_t i = 0; i < r->n; i++) {
		const struct rung *g = &r->v[i];
		cmd_measured_cell(m, ep, &g->keys, g->decode_ratio, f, sizeof(f));
		const char *v = g->plan.fits ? "fits" : "refused";
		printf("%2zu %-36s %11s %11s  %s%-8s%s %-14s %8s\n", i + 1, g->line,
		       FMT_MIB_PLUS((double)g->delta_total / 1048576.0),
		       FMT_MIB((double)g->plan.free_bytes / 1048576.0), color_word(v), v, color_tone(stdout, COLOR_END),
		       g->gives_up, f);
		struct sb d = {0};
		for (int t = 0; t < TERM_N; t++)
			if (g->delta[t] >= 5243 || g->delta[t] <= -5243) /* shows as 0.00 below 0.005 MiB */
				sb_addf(&d, "%s%s %s", d.len ? ", " : "", terms_names[t],
					FMT_MIB_PLUS((double)g->delta[t] / 1048576.0));
		if (d.len)
			cmd_wrap(stdout, "   terms: ", 10, d.s);
		sb_release(&d);
		cmd_wrap(stdout, "   cost: ", 9, g->words);
		cmd_measured_line("   measured: ", m, ep, &g->keys, g->decode_ratio);
	}
	printf("\n%zu rungs, %llu candidate plans, %.1f ms\n", r->n, (unsigned long long)r->plans, r->ms);
}

static int write_svg(const char *path, const struct endpoint *ep, const struct rungs *r, char **err)
{
	struct svg_bar *bars = xcalloc(r->n + 1, sizeof(*bars));
	bars[0].label = "endpoint as written";
	bars[0].p = &r->base;
	for (size_t i = 0; i < r->n; i++) {
		bars[i + 1].label = r->v[i].line[0] ? r->v[i].line : "(no change)";
		bars[i + 1].p = &r->v[i].plan;
	}
	struct sb t = {0};
	sb_addf(&t, "rungs %s on %s: the endpoint and %zu one-line changes, one scale", ep->name, r->base.device->name,
		r->n);
	char *svg = svg_bars(t.s, bars, r->n + 1);
	int rc = write_file(path, svg, err);
	free(svg);
	sb_release(&t);
	free(bars);
	return rc;
}

static struct opt_list sets;
static const char *device, *svg;
static int json;
static struct rate_opts rate = {.accept = NAN};
static const struct opt opts[] = {
    OPT_STRING(0, "device", &device, "NAME", "price on this profile instead of DEVICE"),
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key before the rungs (repeatable)"),
    OPT_FLAG(0, "json", &json, "one JSON object"),
    OPT_STRING(0, "svg", &svg, "FILE", "write the picture of the base and every rung"),
    CMD_RATE_OPTS(&rate, ", the seeds' 2.41 tokens per step"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	char *err = NULL;
	struct shape_ctx c = {0};
	struct rungs r = {0};
	struct cmd_measured m = {0};
	struct endpoint *ep = NULL;
	int accept_given = !isnan(rate.accept);
	if (cmd_rate_check(&rate, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	ep = cmd_load_target("rungs", args->v[0], &sets, &rc, &err);
	if (!ep)
		goto done;
	int io = 0;
	if ((rc = cmd_exit(shape_load(ep, device, &c, &io, &err))) != EXIT_OK)
		goto done;
	struct cmd_recorded rec;
	rate.accept = cmd_rates_accept(ep->name, c.shape.spec_n_max, rate.accept, &rec);
	struct rungs_opts ro = {rate};
	if (rungs_make(ep, &c, &ro, &r, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (svg && write_svg(svg, ep, &r, &err)) {
		rc = cmd_exit(ZE_IO);
		goto done;
	}
	cmd_measured_load(ep->name, &m);
	if (json) {
		json_t *o = to_json(ep, &c, &r, &ro.rate, &m);
		json_object_set_new(o, "rates", cmd_rates_used(&rec, rate.accept, accept_given));
		cmd_print_json(o, 12);
		json_decref(o);
	} else {
		print_human(ep, &c, &r, &m);
		cmd_rates_used_line(&rec, rate.accept, accept_given);
		cmd_measured_note(&m);
	}
done:
	cmd_measured_release(&m);
	rungs_release(&r);
	shape_release(&c);
	endpoint_free(ep);
	return cmd_end("rungs", rc, err);
}

const struct command cmd_rungs = {"rungs", &help, opts, run, NULL};
