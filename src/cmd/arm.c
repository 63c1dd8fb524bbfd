/* zealot arm ENDPOINT --set K=V ... --reason TEXT [--runs N] [--json] */
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../deploy/arm.h"
#include "../store/store.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_ARM};

/* The figures both benches have, production's against the arm's. */
static json_t *delta(const char *prod, const char *arm, int print)
{
	json_t *p = prod ? json_loads(prod, 0, NULL) : NULL, *a = arm ? json_loads(arm, 0, NULL) : NULL;
	struct bench_figure fp[32], fa[32];
	size_t np = p ? bench_figures(p, fp, 32) : 0, na = a ? bench_figures(a, fa, 32) : 0;
	json_t *out = json_array();
	if (print && np && na)
		printf("%-26s %12s %12s %9s\n", "figure", "production", "arm", "change");
	for (size_t i = 0; i < np; i++)
		for (size_t j = 0; j < na; j++) {
			if (strcmp(fp[i].name, fa[j].name) != 0)
				continue;
			double pct = fp[i].value != 0 ? (fa[j].value - fp[i].value) * 100.0 / fp[i].value : 0;
			json_array_append_new(out, json_pack("{s:s,s:f,s:f,s:f}", "figure", fp[i].name, "production",
							     fp[i].value, "arm", fa[j].value, "change_pct", pct));
			if (print)
				printf("%-26s %12.3f %12.3f %+8.1f%%  %s\n", fp[i].name, fp[i].value, fa[j].value, pct,
				       cmd_change_word(fp[i].name, pct));
		}
	json_decref(p);
	json_decref(a);
	return out;
}

static json_t *jraw(const char *s)
{
	json_t *j = s ? json_loads(s, 0, NULL) : NULL;
	return j ? j : json_null();
}

static void print_json(const struct arm_result *r)
{
	json_t *o = json_pack("{s:s,s:s,s:s}", "endpoint", r->endpoint, "outcome", arm_outcome_name(r->outcome),
			      "transient_unit", r->unit_name);
	json_object_set_new(o, "era", r->era ? json_integer(r->era) : json_null());
	json_object_set_new(o, "arm", r->arm_id ? json_integer(r->arm_id) : json_null());
	json_object_set_new(o, "boot", r->boot ? json_integer(r->boot) : json_null());
	json_object_set_new(o, "keys", jraw(r->keys_json));
	json_object_set_new(o, "production_bench", jraw(r->production_bench));
	json_object_set_new(o, "arm_bench", jraw(r->arm_bench));
	json_object_set_new(o, "delta", delta(r->production_bench, r->arm_bench, 0));
	json_object_set_new(o, "steps", cmd_deploy_steps_json(r->steps, r->n_steps));
	json_object_set_new(
	    o, "restore",
	    r->restored ? json_pack("{s:s,s:o}", "outcome",
				    r->restore.outcome == DEPLOY_DEPLOYED ? "restored"
									  : deploy_outcome_name(r->restore.outcome),
				    "steps", cmd_deploy_steps_json(r->restore.steps, r->restore.n_steps))
			: json_null());
	json_t *w = json_array();
	for (size_t i = 0; i < r->n_warnings; i++)
		json_array_append_new(w, json_string(r->warnings[i]));
	json_object_set_new(o, "warnings", w);
	json_object_set_new(o, "failed_step", r->failed_step ? json_string(r->failed_step) : json_null());
	json_object_set_new(o, "why", r->why ? json_string(r->why) : json_null());
	json_object_set_new(o, "host_state", r->host_state ? json_string(r->host_state) : json_null());
	json_object_set_new(o, "seconds", json_real(r->seconds));
	cmd_print_json(o, 10); /* redacted */
	json_decref(o);
}

static int conclude(const struct arm_result *r, int json)
{
	if (json)
		print_json(r);
	else {
		for (size_t i = 0; i < r->n_warnings; i++)
			printf("  warning: %s\n", r->warnings[i]);
		json_decref(delta(r->production_bench, r->arm_bench, 1));
	}
	const char *step = r->failed_step ? r->failed_step : r->restore.failed_step ? r->restore.failed_step : "?";
	const char *why = r->why ? r->why : r->restore.why ? r->restore.why : "";
	switch (r->outcome) {
	case ARM_BENCHED:
		if (!json)
			printf("armed %s: arm %lld benched against era %lld; production restored and verified "
			       "(boot %lld) after %.2f s\n",
			       r->endpoint, (long long)r->arm_id, (long long)r->era, (long long)r->boot, r->seconds);
		return EXIT_OK;
	case ARM_REFUSED:
		return cmd_fail(EXIT_NO, "arm: %s: refused at %s%s%s: %s (nothing was changed)", r->endpoint, step,
				r->law[0] ? ", law " : "", r->law, why);
	case ARM_FAILED:
		return cmd_fail(EXIT_NO,
				"arm: %s: the candidate failed at %s: %s; production restored and verified "
				"(era %lld serves)",
				r->endpoint, step, why, (long long)r->era);
	case ARM_RESTORE_FAILED:
		return cmd_fail(cmd_exit(ZE_IO),
				"arm: %s: RESTORE FAILED. Production (era %lld) could not be restored: %s: %s. THE "
				"HOST NEEDS A PERSON. State: %s",
				r->endpoint, (long long)r->era, step, why, r->host_state ? r->host_state : "unknown");
	case ARM_ERROR: break;
	}
	return cmd_fail(cmd_exit(ZE_IO), "arm: %s: %s: %s", r->endpoint, step, why);
}

static struct arm_opts o = {.bench = {.runs = 3, .conc = 1, .ptok = 512, .mtok = 128}, .idle_window_s = 2};
static struct opt_list sets;
static uint64_t timeout = 300, window_ms = 2000;
static const char *ladder = "128,512";
static int json;
static const struct opt opts[] = {
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "a key the candidate changes (repeatable; at least one)"),
    OPT_STRING(0, "reason", &o.reason, "TEXT", "why this candidate (required; history shows it)"),
    OPT_U64(0, "runs", &o.bench.runs, "N", 1, 10000, "single-stream runs per bench (default 3)"),
    OPT_U64(0, "prompt-tokens", &o.bench.ptok, "N", 1, 1000000, "prompt length per run (default 512)"),
    OPT_U64(0, "max-tokens", &o.bench.mtok, "N", 1, 1000000, "tokens generated per run (default 128)"),
    OPT_STRING(0, "ladder", &ladder, "N,N,...", "prompt sizes of the prefill ladder (default 128,512)"),
    OPT_U64(0, "idle-window", &window_ms, "MS", 1, 600000, "how long the counters must hold still (2000)"),
    OPT_STRING(0, "zealot", &o.restore.zealot, "PATH", "the zealot binary the units run (default: this one)"),
    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 86400, "how long a boot may take to answer /health (300)"),
    OPT_FLAG(0, "json", &json, "one JSON object at the end"),
    OPT_END(),
};

static int run(struct opt_args *a)
{
	int rc = -1;
	size_t nl = 0;
	for (const char *p = ladder; *p && rc < 0; p += strcspn(p, ",") + (p[strcspn(p, ",")] == ',')) {
		char *w = xstrndup(p, strcspn(p, ","));
		if (nl == BENCH_LADDER_MAX || parse_u64(w, &o.bench.ladder[nl]) || !o.bench.ladder[nl])
			rc = cmd_fail(EXIT_USAGE, "arm: --ladder: '%s' is not up to %d prompt sizes", ladder,
				      BENCH_LADDER_MAX);
		nl++;
		free(w);
	}
	if (rc < 0 && (!o.reason || !*o.reason || !sets.n))
		rc = cmd_fail(EXIT_USAGE, "arm: --set KEY=VALUE and --reason TEXT are required: an arm says what it "
					  "changes and why");
	char self[PATH_MAX], *err = NULL;
	if (rc < 0)
		rc = cmd_deploy_setup("arm", &o.restore, self, sizeof(self), &json);
	enum zerr kind = ZE_OK;
	struct store *st = rc < 0 ? store_open_kind(NULL, &kind, &err) : NULL;
	if (rc < 0 && !st)
		rc = cmd_fail(cmd_exit(kind), "arm: %s", err);
	if (rc < 0) {
		o.endpoint = a->v[0];
		o.sets = sets.v;
		o.n_sets = sets.n;
		o.idle_window_s = (double)window_ms / 1000.0;
		o.boot_timeout_ms = (long)timeout * 1000;
		o.restore.boot_timeout_ms = o.boot_timeout_ms;
		if (!json)
			printf("arm %s\n", o.endpoint);
		struct arm_result r;
		arm_run(st, &o, &r);
		rc = conclude(&r, json);
		arm_result_release(&r);
	}
	store_close(st);
	free(err);
	return rc;
}

const struct command cmd_arm = {"arm", &help, opts, run, NULL};
