/* zealot rungs ENDPOINT [--device D] [--set K=V ...] [--json] [--svg FILE] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../plan/report.h"
#include "../plan/rungs.h"
#include "../plan/shape.h"
#include "../plan/svg.h"
#include "cmd.h"
#include "options.h"

static const struct cmd_help help = {
    .usage = "zealot rungs ENDPOINT [--device NAME] [--set KEY=VALUE ...] [--json] [--svg FILE]",
    .about = "Every one-line change an operator would consider to the endpoint's shape,\n"
	     "each priced as a full plan: the drafter off, shallower or deeper (or on when\n"
	     "the payload carries one), its cache quantized (SPEC_DRAFT_TYPE_K/V); one\n"
	     "conversation fewer or more at the same window; the same slots at 3/4 and\n"
	     "1/2 of the window, and at the largest window that fits; K or V one step\n"
	     "more exact, one step cheaper, or q4_0, among the types law S04 allows for\n"
	     "the payload; ubatch halved or doubled; flash attention on; the projector\n"
	     "(MMPROJ_FILE=) and the adapter (LORA_FILE=) off; one pool for all slots\n"
	     "(KV_UNIFIED); the slack band halved; on a payload with experts placed on\n"
	     "a card, N_CPU_MOE at none, a quarter, half, three quarters and all of the\n"
	     "blocks, the fewest that make a refused endpoint fit, and one conversation\n"
	     "more with the fewest that make room for it. A change that breaks a law is\n"
	     "not offered.\n"
	     "\n"
	     "For each rung: the line to change, the MiB it frees (-) or costs (+) per\n"
	     "term and in total on the gated budget, the free MiB and verdict it leaves,\n"
	     "and what it costs the user: conversations, per-slot window, K/V precision,\n"
	     "the drafter, prefill, and the decode change predicted from the bytes read\n"
	     "per generated token (law A06) at --fill tokens of context, each byte at\n"
	     "the bandwidth of the device it sits on (a card's profile; the host's\n"
	     "--host-bw, HOST_BW_GBS, default 51 GB/s).\n"
	     "\n"
	     "Order, as the seeds' fallback tables: the rungs that fit first; those that\n"
	     "free memory before those that cost it; then by what the user gives up\n"
	     "(prefill, the draft cache, decode, vision, precision, window, a\n"
	     "conversation, the pool contract, the adapter, the slack band); the\n"
	     "smallest step first.\n"
	     "\n"
	     "--json: {endpoint, device, fill_tokens, accept, base: {keys, shape, plan,\n"
	     "decode}, rungs: [{keys, line, delta: {term: MiB, ..., total}, total_mib,\n"
	     "free_mib, verdict, gives_up, cost: {words, slots, window, cache_k, cache_v,\n"
	     "drafter, depth, ubatch, projector, adapter, slack_mib, decode_ratio,\n"
	     "decode_change_pct}, decode}], plans, ms}.\n"
	     "--svg FILE: the base and every rung as stacked bars on one scale, with the\n"
	     "addressable and advertised lines and the slack band.\n",
    .more = cmd_devices,
    .examples = "  zealot rungs my.env   (what each one-line change frees, costs and gives up)\n"
		"  zealot rungs my.env --device rtx3060\n",
    .exits = "0, 2 usage or invalid endpoint, 3 unreadable file",
    .min_args = 1,
    .max_args = 1,
};

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
		       const struct rate_opts *ro)
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
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "rungs", a);
	json_object_set_new(o, "plans", json_integer((json_int_t)r->plans));
	json_object_set_new(o, "ms", json_real(plan_r2(r->ms)));
	return o;
}

static void print_human(const struct endpoint *ep, const struct shape_ctx *c, const struct rungs *r)
{
	char line[256], a[32], f[32];
	const struct plan *p = &r->base;
	plan_shape_line(p, &c->shape, line, sizeof(line));
	char head[200];
	snprintf(head, sizeof(head), "rungs %s on %s: ", ep->name, p->device->name);
	cmd_wrap(stdout, head, 2, line);
	printf("base: total %.2f MiB, free %.2f MiB, %s (slack band %.2f MiB)\n", cmd_mib(p->device_total),
	       (double)p->free_bytes / 1048576.0, p->fits ? "fits" : "refused", cmd_mib(p->slack));
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
		snprintf(f, sizeof(f), "%+.1f %%", (g->decode_ratio - 1) * 100);
		printf("%2zu %-36s %+11.2f %11.2f  %-8s %-14s %8s\n", i + 1, g->line,
		       (double)g->delta_total / 1048576.0, (double)g->plan.free_bytes / 1048576.0,
		       g->plan.fits ? "fits" : "refused", g->gives_up, f);
		struct sb d = {0};
		for (int t = 0; t < TERM_N; t++)
			if (g->delta[t] >= 5243 || g->delta[t] <= -5243) /* shows as 0.00 below 0.005 MiB */
				sb_addf(&d, "%s%s %+.2f", d.len ? ", " : "", terms_names[t],
					(double)g->delta[t] / 1048576.0);
		if (d.len)
			cmd_wrap(stdout, "   terms: ", 10, d.s);
		sb_release(&d);
		cmd_wrap(stdout, "   cost: ", 9, g->words);
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

int cmd_rungs(int argc, char **argv)
{
	struct opt_list sets = {0};
	const char *device = NULL, *svg = NULL;
	int json = 0, rc = EXIT_OK;
	uint64_t fill = 0;
	double accept = RATE_ACCEPT_DEFAULT, host_bw = 0;
	const struct opt opts[] = {
	    OPT_STRING(0, "device", &device, "NAME", "price on this profile instead of DEVICE"),
	    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key before the rungs (repeatable)"),
	    OPT_FLAG(0, "json", &json, "one JSON object"),
	    OPT_STRING(0, "svg", &svg, "FILE", "write the picture of the base and every rung"),
	    OPT_U64(0, "fill", &fill, "N", 1, UINT32_MAX,
		    "tokens of context per slot when decode is priced (default: half the window)"),
	    OPT_DOUBLE(0, "accept", &accept, "P",
		       "the drafter's per-position acceptance (default 0.79: the seeds' 2.41 tokens per step)"),
	    OPT_DOUBLE(0, "host-bw", &host_bw, "GBS",
		       "the host's memory bandwidth in GB/s (default HOST_BW_GBS, else the cpu profile's 51)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("rungs", &help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	char *err = NULL;
	struct shape_ctx c = {0};
	struct rungs r = {0};
	struct endpoint *ep = NULL;
	if (accept < 0 || accept > 1) {
		rc = EXIT_USAGE;
		errorf(&err, "--accept %g: a probability, 0 to 1", accept);
		goto done;
	}
	if (host_bw < 0) {
		rc = EXIT_USAGE;
		errorf(&err, "--host-bw %g: a bandwidth in GB/s, above 0", host_bw);
		goto done;
	}
	ep = cmd_load_endpoint(args.v[0], &sets, &rc, &err);
	if (!ep)
		goto done;
	int io = 0;
	if (shape_load(ep, device, &c, &io, &err)) {
		rc = io ? EXIT_IO : EXIT_USAGE;
		goto done;
	}
	struct rungs_opts ro = {{fill, accept, host_bw}};
	if (rungs_make(ep, &c, &ro, &r, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (svg && write_svg(svg, ep, &r, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	if (json) {
		json_t *o = to_json(ep, &c, &r, &ro.rate);
		cmd_print_json(o, 12);
		json_decref(o);
	} else {
		print_human(ep, &c, &r);
	}
done:
	if (err)
		cmd_fail(rc, "rungs: %s", err);
	free(err);
	rungs_release(&r);
	shape_release(&c);
	endpoint_free(ep);
	opt_list_release(&sets);
	opt_args_release(&args);
	return rc;
}
