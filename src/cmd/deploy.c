/* zealot deploy ENDPOINT --reason TEXT [options]
 * zealot rollback ENDPOINT [ERA] [options] */
#include <jansson.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/redact.h"
#include "../base/util.h"
#include "../deploy/deploy.h"
#include "../live/probe.h"
#include "../store/store.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

/* The contract an endpoint promises its clients, cheap enough for every
 * deploy; the capability probes (chat, tools, vision, overlong,
 * concurrency, effort) generate tokens and run with --probes all. */
#define DEPLOY_PROBES "health,models,props,slots,metrics"

static const char steps_text[] = "Steps, each printed with its time as it ends and recorded in the store:\n"
				 "  gate:laws      zealot check: no errors (C01-C08, the payload laws, S15)\n"
				 "  gate:pins      MODEL/MMPROJ/LORA present, *_BYTES and *_SHA256 pins hold\n"
				 "                 (rollback: the era's recorded bytes and SHA-256 too)\n"
				 "  gate:fit       the plan keeps the slack band (M09)\n"
				 "  gate:unit      the unit's start command is a binary or #! script (C08),\n"
				 "                 USER exists, the runtime's version line\n"
				 "  gate:drop-ins  no drop-in for the unit in any UNIT.d/: zealot writes none,\n"
				 "                 so any is foreign and refuses, named (A01)\n"
				 "  gate:port      LISTEN_PORT free or held by the unit's own MainPID (A02)\n"
				 "  install        the endpoint file (ENDPOINT-DIR/NAME.env, paths made\n"
				 "                 absolute) and the hardened unit (zealot emit unit), each\n"
				 "                 written atomically; daemon-reload; enable\n"
				 "  restart        systemctl restart; the start's InvocationID and MainPID\n"
				 "  health         /health answers 200 (the unit failing or restarting ends\n"
				 "                 the wait, and its journal names the cause: cudaMalloc out of\n"
				 "                 memory and the term, 203/EXEC C08, no CUDA GPUs A09, a serve\n"
				 "                 refusal 78, KV in host memory M10, the port taken A02)\n"
				 "  mainpid        the port is answered by the unit's MainPID alone (A02)\n"
				 "  cmdline        /proc/MainPID/cmdline is exactly zealot argv (A01)\n"
				 "  ledger         the boot ledger in the journal of this start\n"
				 "                 (_SYSTEMD_INVOCATION_ID) equals the plan on every exact term\n"
				 "  probes         the contract probes pass (zealot probe), and those the\n"
				 "                 endpoint set an expectation for (PROBE_CHAT_EXPECT, ...,\n"
				 "                 PROBE_REFUSAL_PROMPTS or the previous era's prompts):\n"
				 "                 each answer changed or refusal gone since the previous\n"
				 "                 era's baseline is named; PROBE_REFUSAL=absent|present\n"
				 "                 that does not hold fails the step (S12)\n"
				 "  memory         the settled memory against the plan: the process's\n"
				 "                 memory on GPU's card (nvidia-smi) short of the plan by\n"
				 "                 more than the band is a spill and fails (M10); more than\n"
				 "                 the plan, or a host RSS beyond it, warns (M09)\n"
				 "  record         the new era and its boot (ledger, probes) in the store;\n"
				 "                 with --prom FILE the node exporter's textfile metrics\n"
				 "                 (zealot_memory_mib, zealot_era, zealot_slack_mib,\n"
				 "                 zealot_probe_pass), written atomically\n"
				 "Any failure after install puts the previous era's files back, restarts it\n"
				 "and verifies it serves again (restore, restore:restart, restore:health,\n"
				 "restore:mainpid, restore:cmdline). A first deploy that fails after install\n"
				 "has nothing to roll back: the unit is stopped and disabled, the files that\n"
				 "were there come back (or go), and the outcome is failed. A second deploy\n"
				 "of the same endpoint while one runs is refused (the store's lock).\n";

static void more_steps(FILE *f)
{
	fputs(steps_text, f);
}

/* A finding's text starts with its law ("C03 FILE:LINE KEY: ..."); where the
 * law is printed beside it already, the text goes on after it. */
static const char *after_law(const char *law, const char *s)
{
	size_t n = strlen(law);
	if (!s)
		return "";
	if (n && strncmp(s, law, n) == 0 && s[n] == ' ')
		return s + n + 1;
	return s;
}

static void on_step(const struct deploy_step *s, void *arg)
{
	const int *json = arg;
	if (*json)
		return;
	char *detail = redact_text(after_law(s->law, s->detail));
	printf("  %-16s %-7s %8.3f s  %s%s%s\n", s->name, s->status, s->seconds, s->law, s->law[0] ? ": " : "", detail);
	free(detail);
	fflush(stdout);
}

json_t *cmd_deploy_steps_json(const struct deploy_step *v, size_t n)
{
	json_t *steps = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct deploy_step *s = &v[i];
		json_t *j = json_pack("{s:s,s:s,s:f,s:s}", "step", s->name, "status", s->status, "seconds", s->seconds,
				      "detail", s->detail);
		json_object_set_new(j, "law", s->law[0] ? json_string(s->law) : json_null());
		json_array_append_new(steps, j);
	}
	return steps;
}

static json_t *jid(int64_t id)
{
	return id > 0 ? json_integer(id) : json_null();
}

static void print_json(const struct deploy_result *r)
{
	json_t *o = json_object();
	json_object_set_new(o, "endpoint", json_string(r->endpoint ? r->endpoint : ""));
	json_object_set_new(o, "outcome", json_string(deploy_outcome_name(r->outcome)));
	json_object_set_new(o, "attempt", jid(r->attempt));
	json_object_set_new(o, "era", jid(r->era));
	json_object_set_new(o, "previous_era", jid(r->previous_era));
	json_object_set_new(o, "boot", jid(r->boot));
	json_object_set_new(o, "unit", json_string(r->unit_path ? r->unit_path : ""));
	json_object_set_new(o, "endpoint_file", json_string(r->env_path ? r->env_path : ""));
	json_object_set_new(o, "main_pid", r->main_pid > 0 ? json_integer(r->main_pid) : json_null());
	json_object_set_new(o, "invocation_id", r->invocation_id[0] ? json_string(r->invocation_id) : json_null());
	json_object_set_new(o, "seconds", json_real(r->seconds));
	json_object_set_new(o, "steps", cmd_deploy_steps_json(r->steps, r->n_steps));
	json_t *w = json_array();
	for (size_t i = 0; i < r->n_warnings; i++)
		json_array_append_new(w, json_string(r->warnings[i]));
	json_object_set_new(o, "warnings", w);
	json_object_set_new(o, "failed_step", r->failed_step ? json_string(r->failed_step) : json_null());
	json_object_set_new(o, "law", r->law[0] ? json_string(r->law) : json_null());
	json_object_set_new(o, "why", r->why ? json_string(r->why) : json_null());
	json_object_set_new(o, "cause", r->cause ? json_string(r->cause) : json_null());
	json_object_set_new(o, "host_state", r->host_state ? json_string(r->host_state) : json_null());
	cmd_print_json(o, 0); /* no secret in the output */
	json_decref(o);
}

/* The outcome, said the way an operator needs it; the exit status. */
static int conclude(const char *cmd, const struct deploy_result *r, int json)
{
	if (json)
		print_json(r);
	else
		for (size_t i = 0; i < r->n_warnings; i++)
			printf("  warning: %s\n", r->warnings[i]);
	const char *law = r->law[0] ? r->law : NULL;
	const char *why = after_law(r->law, r->why);
	switch (r->outcome) {
	case DEPLOY_DEPLOYED:
		if (!json)
			printf("%s %s: era %lld serves (MainPID %ld) after %.2f s\n",
			       strcmp(cmd, "rollback") == 0 ? "rolled back" : "deployed", r->endpoint,
			       (long long)r->era, r->main_pid, r->seconds);
		return EXIT_OK;
	case DEPLOY_REFUSED:
		cmd_fail(EXIT_NO, "%s: %s: refused at %s%s%s: %s (nothing was changed)", cmd, r->endpoint,
			 r->failed_step ? r->failed_step : "a gate", law ? ", law " : "", law ? law : "", why);
		return EXIT_NO;
	case DEPLOY_ROLLED_BACK:
		if (r->previous_era)
			cmd_fail(EXIT_NO,
				 "%s: %s: failed at %s%s%s: %s; rolled back: era %lld serves again (verified: /health, "
				 "MainPID, cmdline)",
				 cmd, r->endpoint, r->failed_step ? r->failed_step : "?", law ? ", law " : "",
				 law ? law : "", why, (long long)r->previous_era);
		else
			cmd_fail(EXIT_NO,
				 "%s: %s: failed at %s%s%s: %s; rolled back to what was there before (the unit "
				 "does not serve)",
				 cmd, r->endpoint, r->failed_step ? r->failed_step : "?", law ? ", law " : "",
				 law ? law : "", why);
		return EXIT_NO;
	case DEPLOY_FAILED:
		cmd_fail(EXIT_NO,
			 "%s: %s: failed at %s%s%s: %s; nothing served before this first deploy, so nothing was "
			 "rolled back: its files are removed and the unit is stopped",
			 cmd, r->endpoint, r->failed_step ? r->failed_step : "?", law ? ", law " : "", law ? law : "",
			 why);
		return EXIT_NO;
	case DEPLOY_ROLLBACK_FAILED:
		if (r->previous_era)
			cmd_fail(cmd_exit(ZE_IO),
				 "%s: %s: ROLLBACK FAILED. The deploy failed at %s%s%s (%s), and putting era %lld "
				 "back failed too. THE HOST NEEDS A PERSON. State: %s",
				 cmd, r->endpoint, r->failed_step ? r->failed_step : "?", law ? ", law " : "",
				 law ? law : "", why, (long long)r->previous_era,
				 r->host_state ? r->host_state : "unknown");
		else
			cmd_fail(cmd_exit(ZE_IO),
				 "%s: %s: UNDO FAILED. The deploy failed at %s%s%s (%s), and undoing what it "
				 "installed failed too. THE HOST NEEDS A PERSON. State: %s",
				 cmd, r->endpoint, r->failed_step ? r->failed_step : "?", law ? ", law " : "",
				 law ? law : "", why, r->host_state ? r->host_state : "unknown");
		return cmd_exit(ZE_IO);
	case DEPLOY_ERROR:
		cmd_fail(cmd_exit(ZE_IO), "%s: %s: %s%s%s", cmd, r->endpoint ? r->endpoint : "?",
			 r->failed_step ? r->failed_step : "error", r->why ? ": " : "", why);
		return cmd_exit(ZE_IO);
	}
	return cmd_exit(ZE_IO);
}

/* --probes: every name one probe knows ("all" alone means every probe). */
static int probes_ok(const char *cmd, const char *list)
{
	if (strcmp(list, "all") == 0)
		return 0;
	size_t m;
	const char *p = probe_unknown(list, &m);
	if (!p)
		return 0;
	struct sb names = {0};
	probe_names(&names);
	cmd_fail(EXIT_USAGE, "%s: --probes: unknown probe '%.*s' (probes: %s, or all)", cmd, (int)m, p, names.s);
	sb_release(&names);
	return -1;
}

int cmd_deploy_setup(const char *cmd, struct deploy_opts *o, char *self, size_t self_n, const int *json)
{
	if (o->probes && probes_ok(cmd, o->probes))
		return EXIT_USAGE;
	if (!o->probes)
		o->probes = DEPLOY_PROBES;
	else if (strcmp(o->probes, "all") == 0)
		o->probes = NULL;
	if (!o->zealot) {
		ssize_t n = readlink("/proc/self/exe", self, self_n - 1);
		if (n <= 0)
			return cmd_fail(cmd_exit(ZE_IO), "%s: cannot find this binary's path (give --zealot)", cmd);
		self[n] = '\0';
		o->zealot = self;
	}
	o->on_step = on_step;
	o->arg = (void *)json;
	return -1;
}

static int go(const char *cmd, struct deploy_opts *o, int json)
{
	char self[PATH_MAX];
	int src = cmd_deploy_setup(cmd, o, self, sizeof(self), &json);
	if (src >= 0)
		return src;
	char *err = NULL;
	struct store *st = store_open(NULL, &err);
	if (!st) {
		int rc = cmd_fail(cmd_exit(ZE_IO), "%s: %s", cmd, err);
		free(err);
		return rc;
	}
	struct deploy_result r;
	if (!json) {
		printf("%s %s\n", cmd, o->endpoint_path);
		fflush(stdout);
	}
	deploy_run(st, o, &r);
	int rc = conclude(cmd, &r, json);
	deploy_result_release(&r);
	store_close(st);
	return rc;
}

/* The options of deploy and rollback (one process runs one of them). */
static struct deploy_opts o;
static int json;
static uint64_t timeout = 300;

/* The options deploy and rollback share. */
#define RUN_OPTS                                                                                                       \
	OPT_STRING(0, "unit-dir", &o.unit_dir, "DIR", "where the unit goes (default /etc/systemd/system)"),            \
	    OPT_STRING(0, "endpoint-dir", &o.env_dir, "DIR",                                                           \
		       "where the installed endpoint file goes (default /etc/zealot)"),                                \
	    OPT_STRING(0, "zealot", &o.zealot, "PATH", "the zealot binary the unit runs (default: this one)"),         \
	    OPT_STRING(0, "probes", &o.probes, "NAMES",                                                                \
		       "the probes verify runs, comma-separated, or all (default: the contract: " DEPLOY_PROBES ")"),  \
	    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 86400, "how long a boot may take to answer /health (300)")

static const struct opt deploy_opts[] = {
    OPT_STRING(0, "reason", &o.reason, "TEXT", "why this era replaces the current one (required; history shows it)"),
    RUN_OPTS,
    OPT_STRING(0, "prom", &o.prom_file, "FILE",
	       "write the node exporter's textfile metrics of the new era (docs/monitoring.md)"),
    OPT_FLAG(0, "json", &json, "one JSON object at the end (keys in the README)"),
    OPT_END(),
};

static int run_deploy(struct opt_args *a)
{
	if (!o.reason || !*o.reason)
		return cmd_fail(EXIT_USAGE,
				"deploy: --reason TEXT is required: every era says why it replaced the last");
	o.kind = "deploy";
	o.endpoint_path = a->v[0];
	o.boot_timeout_ms = (long)timeout * 1000;
	return go("deploy", &o, json);
}

static const struct cmd_help deploy_help = {DOC_DEPLOY, .more = more_steps};
const struct command cmd_deploy = {"deploy", &deploy_help, deploy_opts, run_deploy, NULL};

static const struct opt rollback_opts[] = {
    OPT_STRING(0, "reason", &o.reason, "TEXT", "why (default: \"rollback to era N\")"),
    RUN_OPTS,
    OPT_STRING(0, "prom", &o.prom_file, "FILE", "write the node exporter's textfile metrics"),
    OPT_FLAG(0, "json", &json, "one JSON object at the end (the same keys as deploy)"),
    OPT_END(),
};

static int run_rollback(struct opt_args *a)
{
	int64_t era = 0;
	if (a->n == 2 && (parse_i64(a->v[1], &era) || era <= 0))
		return cmd_fail(EXIT_USAGE, "rollback: ERA is an era's id (zealot history %s), not '%s'", a->v[0],
				a->v[1]);
	o.kind = "rollback";
	o.endpoint_path = a->v[0];
	o.era = era;
	o.boot_timeout_ms = (long)timeout * 1000;
	return go("rollback", &o, json);
}

static const struct cmd_help rollback_help = {DOC_ROLLBACK, .more = more_steps};
const struct command cmd_rollback = {"rollback", &rollback_help, rollback_opts, run_rollback, NULL};
