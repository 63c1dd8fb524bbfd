/* zealot solve ENDPOINT [--maximize window|slots|precision] [--slots N] [--min-window N]
 *                       [--fix KEY=V ...] [--vary KEY=a,b,...] [--device D] [--json] */
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../plan/report.h"
#include "../plan/shape.h"
#include "../plan/solve.h"
#include "../plan/terms.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_SOLVE, .more = cmd_devices};

/* The frontier shapes the human report shows by default: a screen's worth
 * under the best shape's lines. */
#define SOLVE_TOP_DEFAULT 10

/* The byte model's decode change beside what an arm measured (rates.c). */
static const struct cmd_measured *measured;
static const struct endpoint *measured_ep;

static json_t *shape_json(const struct solve_shape *s, int full)
{
	json_t *o = json_object();
	json_object_set_new(o, "keys", plan_keys_json(&s->keys));
	json_object_set_new(o, "decode_measured", cmd_measured_json(measured, measured_ep, &s->keys, s->decode_ratio));
	json_object_set_new(o, "slots", json_integer(s->slots));
	json_object_set_new(o, "window", json_integer((json_int_t)s->window));
	json_object_set_new(o, "cache_k", json_string(s->k));
	json_object_set_new(o, "cache_v", json_string(s->v));
	json_object_set_new(o, "drafter", json_string(s->drafter ? "draft-mtp" : "none"));
	json_object_set_new(o, "depth", json_integer(s->depth));
	json_object_set_new(o, "ubatch", json_integer(s->ubatch));
	json_object_set_new(o, "capped", json_boolean(s->capped));
	if (full) {
		json_object_set_new(o, "plan", plan_summary_json(&s->plan));
		if (s->capped)
			json_object_set_new(o, "next_step",
					    json_pack("{s:I,s:s}", "window", (json_int_t)(s->window + SOLVE_STEP),
						      "refused_by", "S02 (the trained context)"));
		else
			json_object_set_new(
			    o, "next_step",
			    json_pack("{s:I,s:I,s:f,s:s,s:s}", "window", (json_int_t)(s->window + SOLVE_STEP),
				      "ctx_size", (json_int_t)s->next.n_ctx, "free_mib",
				      plan_r2((double)s->next.free_bytes / 1048576.0), "verdict",
				      s->next.fits ? "fits" : "refused", "refused_by", "M09 (the slack band)"));
		json_object_set_new(o, "decode", plan_rate_json(&s->rate, s->decode_ratio));
	} else {
		json_object_set_new(o, "free_mib", json_real(plan_r2((double)s->plan.free_bytes / 1048576.0)));
		json_object_set_new(o, "total_mib", json_real(plan_r2(cmd_mib(s->plan.device_total))));
		json_object_set_new(o, "decode_ratio", json_real(round(s->decode_ratio * 10000) / 10000));
	}
	return o;
}

static const char *objective_name(enum solve_objective o)
{
	return o == SOLVE_SLOTS ? "slots" : o == SOLVE_PRECISION ? "precision" : o == SOLVE_RATE ? "rate" : "window";
}

static json_t *to_json(const struct endpoint *ep, const struct solve_opts *o, const struct solve_result *r, size_t top)
{
	json_t *j = json_object();
	json_object_set_new(j, "endpoint", json_string(ep->name));
	json_object_set_new(j, "device", json_string(r->base_plan.device->name));
	json_object_set_new(j, "objective", json_string(objective_name(o->objective)));
	json_t *c = json_object();
	json_object_set_new(c, "slots", o->slots ? json_integer(o->slots) : json_null());
	json_object_set_new(c, "min_window", o->min_window ? json_integer((json_int_t)o->min_window) : json_null());
	json_object_set_new(c, "fix", plan_keys_json(&o->fix));
	json_object_set_new(j, "constraints", c);
	json_object_set_new(j, "base",
			    json_pack("{s:I,s:I,s:o}", "slots", (json_int_t)r->base_plan.n_seq, "window",
				      (json_int_t)r->base_window, "decode", plan_rate_json(&r->base_rate, 1)));
	json_object_set_new(j, "best", r->has_best ? shape_json(&r->best, 1) : json_null());
	json_t *f = json_array();
	for (size_t i = 0; i < r->n_frontier && i < top; i++)
		json_array_append_new(f, shape_json(&r->frontier[i], 0));
	json_object_set_new(j, "frontier_shapes", json_integer((json_int_t)r->n_frontier));
	json_object_set_new(j, "frontier", f);
	json_t *sp = json_object();
	for (unsigned i = 0; i < r->n_axes; i++) {
		json_t *v = json_array();
		for (unsigned k = 0; k < r->axes[i].n; k++)
			json_array_append_new(v, json_string(r->axes[i].val[k]));
		json_object_set_new(sp, key_name(r->axes[i].key), v);
	}
	json_object_set_new(j, "space", sp);
	json_object_set_new(
	    j, "search",
	    json_pack("{s:I,s:I,s:I,s:I,s:f,s:f}", "shapes", (json_int_t)r->combos, "plans", (json_int_t)r->plans,
		      "replays", (json_int_t)(r->memo.affine_replays + r->memo.plain_replays), "fallbacks",
		      (json_int_t)r->fallbacks, "ms", plan_r2(r->ms), "frontier_ms", plan_r2(r->frontier_ms)));
	return j;
}

static void print_shape(const struct solve_shape *s)
{
	char w[32];
	printf("%u x %s tokens, %s K + %s V, ", s->slots, cmd_commas(s->window, w, sizeof(w)), s->k, s->v);
	if (s->drafter)
		printf("MTP drafter depth %u, ", s->depth);
	else
		printf("no drafter, ");
	printf("ubatch %u", s->ubatch);
	const char *moe = cand_get(&s->keys, K_N_CPU_MOE);
	if (moe)
		printf(", the experts of the first %s blocks on the host", moe);
}

static void print_human(const struct endpoint *ep, const struct solve_opts *o, const struct solve_result *r, size_t top)
{
	char w[32];
	printf("solve %s on %s: maximize %s", ep->name, r->base_plan.device->name, objective_name(o->objective));
	if (o->slots)
		printf(", %u slots", o->slots);
	if (o->min_window)
		printf(", window >= %s", cmd_commas(o->min_window, w, sizeof(w)));
	printf("\n");
	printf("endpoint as written: %u x %s tokens, %s (free %s MiB)\n\n", r->base_plan.n_seq,
	       cmd_commas(r->base_window, w, sizeof(w)), r->base_plan.fits ? "fits" : "refused",
	       FMT_MIB((double)r->base_plan.free_bytes / 1048576.0));
	if (!r->has_best) {
		printf("best: no shape of the space fits with the slack band\n");
	} else {
		const struct solve_shape *b = &r->best;
		printf("best: ");
		print_shape(b);
		printf("\n  free %s MiB (slack band %s); ", FMT_MIB((double)b->plan.free_bytes / 1048576.0),
		       FMT_MIB(cmd_mib(b->plan.slack)));
		if (b->capped)
			printf("the window is the trained context: one step up is law S02's refusal\n");
		else
			printf("one step up (%s tokens) leaves %s MiB: refused\n",
			       cmd_commas(b->window + SOLVE_STEP, w, sizeof(w)),
			       FMT_MIB((double)b->next.free_bytes / 1048576.0));
		printf("  predicted decode %+.1f %% against the endpoint (at %s tokens of context)\n",
		       (b->decode_ratio - 1) * 100, cmd_commas(b->rate.fill, w, sizeof(w)));
		cmd_measured_line("  measured: ", measured, measured_ep, &b->keys, b->decode_ratio);
		for (unsigned i = 0; b->rate.ms_per_token > 0 && i < b->rate.n_dev; i++)
			if (b->rate.dev[i].bytes_per_token > 0)
				printf("    %s: %s MiB per token, %.3f ms at %.0f GB/s\n", b->rate.dev[i].name,
				       FMT_MIB(b->rate.dev[i].bytes_per_token / 1048576.0), b->rate.dev[i].ms_per_token,
				       b->rate.dev[i].bandwidth_gbs);
		printf("\nendpoint lines:\n");
		for (unsigned i = 0; i < b->keys.n; i++)
			printf("%s=%s\n", key_name(b->keys.key[i]), b->keys.val[i]);
		printf("\nplan:\n");
		struct term t[TERM_N];
		terms_of(&b->plan, t);
		for (int i = 0; i < TERM_N; i++)
			if (t[i].gated)
				printf("  %-14s %11s MiB\n", t[i].name, FMT_MIB(cmd_mib(t[i].gated)));
		printf("  %-14s %11s MiB of %s addressable, %s\n", "total", FMT_MIB(cmd_mib(b->plan.device_total)),
		       FMT_MIB(cmd_mib(b->plan.addressable)), b->plan.fits ? "fits" : "refused");
	}
	size_t shown = top < r->n_frontier ? top : r->n_frontier;
	printf("\nfrontier: %zu shapes that fit with slack (each the largest window for its values)", r->n_frontier);
	if (shown < r->n_frontier)
		printf(";\n  the %zu best by %s (--top N shows more, --json all)", shown, objective_name(o->objective));
	printf("\n  %5s %9s %-7s %-7s %-8s %6s %10s %8s\n", "slots", "window", "K", "V", "drafter", "ubatch",
	       "free MiB", "decode");
	for (size_t i = 0; i < shown; i++) {
		const struct solve_shape *s = &r->frontier[i];
		char d[16];
		cmd_measured_cell(measured, measured_ep, &s->keys, s->decode_ratio, d, sizeof(d));
		const char *moe = cand_get(&s->keys, K_N_CPU_MOE);
		printf("  %5u %9s %-7s %-7s %-8s %6u %10s %8s%s%s%s\n", s->slots, cmd_commas(s->window, w, sizeof(w)),
		       s->k, s->v, s->drafter ? "mtp" : "none", s->ubatch,
		       FMT_MIB((double)s->plan.free_bytes / 1048576.0), d, moe ? "  N_CPU_MOE=" : "", moe ? moe : "",
		       s->capped ? "  (trained context)" : "");
	}
	printf("\nsearched %zu shapes: %llu candidate plans, %llu graph replays, %.1f ms\n", r->combos,
	       (unsigned long long)r->plans, (unsigned long long)(r->memo.affine_replays + r->memo.plain_replays),
	       r->ms);
}

/* --accept (NaN: not given), --host-bw and --fill (rate), --slots, --min-window,
 * --fix and --vary into o; -1 with *err (usage). */
static int solve_options(struct solve_opts *o, const struct rate_opts *rate, uint64_t slots, uint64_t min_window,
			 const struct opt_list *fixes, const struct opt_list *varies, char **err)
{
	o->slots = (uint32_t)slots;
	o->min_window = min_window;
	o->rate.fill = rate->fill;
	o->rate.host_bw_gbs = rate->host_bw_gbs;
	if (cmd_rate_check(rate, err))
		return -1;
	for (unsigned i = 0; i < fixes->n; i++)
		if (cand_parse_line(&o->fix, fixes->v[i], err)) {
			char *e = *err;
			*err = NULL;
			errorf(err, "--fix %s", e);
			free(e);
			return -1;
		}
	if (slots && cand_get(&o->fix, K_PARALLEL)) {
		errorf(err, "--fix PARALLEL and --slots say the same thing twice");
		return -1;
	}
	for (unsigned i = 0; i < varies->n; i++) {
		if (o->n_vary == SOLVE_MAX_AXES) {
			errorf(err, "--vary: at most %d keys", SOLVE_MAX_AXES);
			return -1;
		}
		if (solve_axis_parse(varies->v[i], &o->vary[o->n_vary++], err))
			return -1;
	}
	return 0;
}

/* --maximize's word as the solver's objective. */
static enum solve_objective objective_of(const char *maximize)
{
	return strcmp(maximize, "slots") == 0	    ? SOLVE_SLOTS
	       : strcmp(maximize, "precision") == 0 ? SOLVE_PRECISION
	       : strcmp(maximize, "rate") == 0	    ? SOLVE_RATE
						    : SOLVE_WINDOW;
}

static struct opt_list fixes, varies;
static const char *device, *maximize = "window";
static int json;
static uint64_t slots, min_window, top;
static struct rate_opts rate = {.accept = NAN};
static const struct opt opts[] = {
    OPT_CHOICE(0, "maximize", &maximize, "window|slots|precision|rate", "the objective (default window)"),
    OPT_U64(0, "slots", &slots, "N", 1, 256, "pin PARALLEL to N"),
    OPT_U64(0, "min-window", &min_window, "N", 1, UINT32_MAX, "only shapes whose per-slot window is >= N"),
    OPT_LIST(0, "set", &fixes, "KEY=VALUE", "pin a key for every candidate (repeatable; --fix is the same)"),
    OPT_LIST(0, "fix", &fixes, "KEY=VALUE", "the same as --set"),
    OPT_LIST(0, "vary", &varies, "KEY=a,b,...", "the values to try for a key (repeatable)"),
    OPT_STRING(0, "device", &device, "NAME", "price on this profile instead of DEVICE"),
    OPT_U64(0, "top", &top, "N", 1, 1000000,
	    "show the N best frontier shapes by the objective (default 10; --json: all)"),
    OPT_FLAG(0, "json", &json, "one JSON object"),
    CMD_RATE_OPTS(&rate, ""),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	char *err = NULL;
	struct shape_ctx c = {0};
	struct endpoint *ep = NULL;
	struct solve_result *r = xcalloc(1, sizeof(*r));
	struct solve_opts *o = xcalloc(1, sizeof(*o));
	o->objective = objective_of(maximize);
	struct cmd_recorded rec = {0};
	struct cmd_measured m = {0};
	rc = EXIT_USAGE;
	if (solve_options(o, &rate, slots, min_window, &fixes, &varies, &err))
		goto done;
	rc = EXIT_OK;
	ep = cmd_load_target("solve", args->v[0], NULL, &rc, &err);
	if (!ep)
		goto done;
	int io = 0;
	if ((rc = cmd_exit(shape_load(ep, device, &c, &io, &err))) != EXIT_OK)
		goto done;
	o->rate.accept = cmd_rates_accept(ep->name, c.shape.spec_n_max, rate.accept, &rec);
	cmd_measured_load(ep->name, &m);
	measured = &m;
	measured_ep = ep;
	if (solve_run(ep, &c, o, r, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (json) {
		json_t *j = to_json(ep, o, r, top ? (size_t)top : SIZE_MAX);
		json_object_set_new(j, "rates", cmd_rates_used(&rec, o->rate.accept, !isnan(rate.accept)));
		cmd_print_json(j, 12);
		json_decref(j);
	} else {
		print_human(ep, o, r, top ? (size_t)top : SOLVE_TOP_DEFAULT);
		cmd_rates_used_line(&rec, o->rate.accept, !isnan(rate.accept));
		cmd_measured_note(&m);
	}
	rc = r->has_best ? EXIT_OK : EXIT_NO;
done:
	cmd_measured_release(&m);
	solve_result_release(r);
	free(r);
	free(o);
	shape_release(&c);
	endpoint_free(ep);
	return cmd_end("solve", rc, err);
}

const struct command cmd_solve = {"solve", &help, opts, run, NULL};
