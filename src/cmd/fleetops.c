/* zealot fleet status|deploy|history DIR: the fleet's endpoints on their
 * hosts, over ssh; src/fleet/ops.c and status.c do the work, this file
 * reads the options, prints and chooses the exit status.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../base/util.h"
#include "../fleet/fleet.h"
#include "../fleet/ops.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

/* The options fleet status and fleet history share. */
#define QUERY_OPTS                                                                                                     \
	OPT_FLAG(0, "json", &json, "one JSON object (keys above)"),                                                    \
	    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 3600, "the most one host may take to answer (30)"),          \
	    OPT_U64(0, "parallel", &parallel, "N", 1, 256, "hosts queried at once (16)"),                              \
	    OPT_STRING(0, "ssh-config", &cfg, "FILE", "ssh -F FILE (an ssh config of its own)"),                       \
	    OPT_STRING(0, "remote-zealot", &rz, "PATH", "zealot on the hosts (default: zealot in PATH)")

/* This zealot and the fleet in dir; -1 with *err when either cannot be
 * had (the fleet commands' exit 3). */
static int open_fleet(const char *dir, const char *cfg, const char *rz, unsigned connect_timeout, struct fleet_ops *c,
		      struct fleet *f, char **err)
{
	if (fleet_ops_init(c, cfg, rz, connect_timeout, err))
		return -1;
	return fleet_load(dir, f, NULL, err);
}

/* ---- fleet status ------------------------------------------------------ */

static const struct cmd_help status_help = {DOC_FLEET_STATUS};

static void status_print(json_t *row)
{
	const char *name = json_string_value(json_object_get(row, "endpoint"));
	const char *host = json_string_value(json_object_get(row, "host"));
	const char *state = json_string_value(json_object_get(row, "state"));
	printf("  %-16s %-22s %-12s", name, host, state);
	if (!strcmp(state, "unreachable")) {
		printf("%s\n", json_string_value(json_object_get(row, "why")));
		return;
	}
	json_t *u = json_object_get(row, "unit");
	char unit[96];
	snprintf(unit, sizeof(unit), "%s pid %lld", json_string_value(json_object_get(u, "active")) ?: "?",
		 (long long)json_integer_value(json_object_get(u, "main_pid")));
	json_t *era = json_object_get(row, "era");
	char es[32] = "-";
	if (json_is_object(era))
		snprintf(es, sizeof(es), "%lld", (long long)json_integer_value(json_object_get(era, "id")));
	json_t *p = json_object_get(row, "probes");
	struct sb ps = {0}, failed = {0};
	if (json_object_get(p, "error")) {
		sb_adds(&ps, "error");
	} else {
		size_t k, pass = 0;
		json_t *e;
		json_array_foreach(json_object_get(p, "probes"), k, e)
		{
			const char *st = json_string_value(json_object_get(e, "status"));
			if (st && !strcmp(st, "pass"))
				pass++;
			else if (st && !strcmp(st, "fail"))
				sb_addf(&failed, "%s%s", failed.len ? "," : "",
					json_string_value(json_object_get(e, "name")));
		}
		if (failed.len)
			sb_addf(&ps, "fail: %s", failed.s);
		else
			sb_addf(&ps, "%zu pass", pass);
	}
	json_t *a = json_object_get(row, "audit");
	char as[48];
	if (json_object_get(a, "error"))
		snprintf(as, sizeof(as), "error");
	else {
		long long d = json_integer_value(json_object_get(a, "divergences"));
		snprintf(as, sizeof(as), "%lld divergence%s", d, d == 1 ? "" : "s");
	}
	json_t *mem = json_object_get(row, "memory");
	char ms[96] = "no nvidia-smi";
	if (json_is_true(json_object_get(mem, "nvidia_smi"))) {
		json_t *pm = json_object_get(mem, "plan_mib");
		snprintf(ms, sizeof(ms), "card %lld: %s MiB used, plan %s",
			 (long long)json_integer_value(json_object_get(mem, "card")),
			 FMT_MIB((double)json_integer_value(json_object_get(mem, "used_mib"))),
			 FMT_MIB(json_is_number(pm) ? json_number_value(pm) : 0.0));
	}
	printf("%-22s %-5s %-18s %-14s %s\n", unit, es, ps.s, as, ms);
	json_t *sum = json_object_get(row, "summary");
	const char *alias = json_string_value(json_object_get(json_object_get(sum, "alias"), "evidence"));
	const char *slots = json_string_value(json_object_get(json_object_get(sum, "slots"), "evidence"));
	if (alias || slots)
		printf("  %-16s   %s%s%s\n", "", alias ? alias : "", alias && slots ? "; " : "", slots ? slots : "");
	if (json_object_get(p, "error"))
		printf("  %-16s   probes: %s\n", "", json_string_value(json_object_get(p, "error")));
	if (json_object_get(a, "error"))
		printf("  %-16s   audit: %s\n", "", json_string_value(json_object_get(a, "error")));
	size_t k;
	json_t *e;
	json_array_foreach(json_object_get(p, "probes"), k, e)
	{
		const char *st = json_string_value(json_object_get(e, "status"));
		if (st && !strcmp(st, "fail"))
			printf("  %-16s   probe %s: %s\n", "", json_string_value(json_object_get(e, "name")),
			       json_string_value(json_object_get(e, "evidence")));
	}
	json_array_foreach(json_object_get(a, "rows"), k, e)
	{
		if (json_is_true(json_object_get(e, "diverges")))
			printf("  %-16s   audit %s: intended %s, live %s\n", "",
			       json_string_value(json_object_get(e, "what")),
			       json_string_value(json_object_get(e, "intended")),
			       json_string_value(json_object_get(e, "live")));
	}
	sb_release(&ps);
	sb_release(&failed);
}

/* The options of status and history (one process runs one of them). */
static int json;
static uint64_t timeout = 30, parallel = 16;
static const char *cfg, *rz, *edir = "/etc/zealot";
static const struct opt status_opts[] = {
    QUERY_OPTS,
    OPT_STRING(0, "endpoint-dir", &edir, "DIR", "where deploy installed the endpoint files (/etc/zealot)"),
    OPT_END(),
};

/* status and history: the fleet in dir opened (a host gets timeout, at
 * most 10 s, to connect), the query run on it, closed; its exit status. */
static int query(const char *name, const char *dir,
		 int (*fn)(const struct fleet_ops *, const struct fleet *, const char *))
{
	char *err = NULL;
	struct fleet f = {0};
	struct fleet_ops c;
	int rc = cmd_exit(ZE_IO);
	if (!open_fleet(dir, cfg, rz, timeout < 10 ? (unsigned)timeout : 10, &c, &f, &err))
		rc = fn(&c, &f, dir);
	fleet_free(&f);
	fleet_ops_release(&c);
	return cmd_end(name, rc, err);
}

static int status(const struct fleet_ops *c, const struct fleet *f, const char *dir)
{
	double t0 = mono_s();
	size_t healthy = 0;
	json_t *rows = fleet_ops_status(c, f, edir, (long)timeout * 1000, (unsigned)parallel, &healthy);
	double secs = mono_s() - t0;
	if (json) {
		json_t *o =
		    json_pack("{s:s,s:f,s:o,s:I,s:I}", "fleet", dir, "seconds", (double)(long)(secs * 1000) / 1000,
			      "endpoints", rows, "healthy", (json_int_t)healthy, "total", (json_int_t)f->n);
		cmd_print_json(o, 10);
		json_decref(o);
	} else {
		printf("fleet status %s: %zu endpoint%s on %zu host%s, %zu healthy, %.1f s\n\n", dir, f->n,
		       f->n == 1 ? "" : "s", fleet_ops_count_hosts(f), fleet_ops_count_hosts(f) == 1 ? "" : "s",
		       healthy, secs);
		printf("  %-16s %-22s %-12s%-22s %-5s %-18s %-14s %s\n", "endpoint", "host", "state", "unit", "era",
		       "probes", "audit", "memory");
		size_t k;
		json_t *row;
		json_array_foreach(rows, k, row) status_print(row);
		json_decref(rows);
	}
	return healthy == f->n ? EXIT_OK : EXIT_NO;
}

static int run_status(struct opt_args *args)
{
	return query("fleet status", args->v[0], status);
}

const struct command cmd_fleet_status = {"status", &status_help, status_opts, run_status, NULL};

/* ---- fleet deploy ------------------------------------------------------ */

static const struct cmd_help deploy_help = {DOC_FLEET_DEPLOY};

struct tally {
	size_t deployed, failed, skipped;
	int io; /* a host unreachable or lost, a copy, fetch or rollback that failed */
};

/* Each endpoint's row, counted into *t, and printed as a line unless json. */
static json_t *deploy_rows(const struct fleet_deploy_job *jobs, size_t n, int as_json, struct tally *t)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct fleet_deploy_job *j = &jobs[i];
		if (!strcmp(j->outcome, "deployed"))
			t->deployed++;
		else if (!strcmp(j->outcome, "skipped"))
			t->skipped++;
		else
			t->failed++;
		t->io |= !strcmp(j->outcome, "unreachable") || !strcmp(j->outcome, "lost") ||
			 !strcmp(j->outcome, "fetch-failed") || !strcmp(j->outcome, "rollback-failed") ||
			 !strcmp(j->outcome, "copy-failed");
		json_array_append_new(rows, fleet_ops_deploy_row(j));
		json_t *era = json_object_get(j->deploy, "era");
		if (!as_json) {
			char es[32] = "";
			if (json_is_integer(era))
				snprintf(es, sizeof(es), "era %lld", (long long)json_integer_value(era));
			printf("  %-16s %-22s %-15s %-8s %6.1f s%s%s\n", j->m->name, fleet_ops_host_label(j->m),
			       j->outcome, es, j->seconds, j->why ? "  " : "", j->why ? j->why : "");
		}
	}
	return rows;
}

/* The run's end: one JSON object with every row, or the counts. Takes rows. */
static void print_deploy_end(const char *dir, const char *reason, const char *version, double secs, json_t *rows,
			     const struct tally *t, int as_json)
{
	if (as_json) {
		json_t *o = json_pack("{s:s,s:s,s:s,s:f,s:o,s:I,s:I,s:I}", "fleet", dir, "reason", reason, "version",
				      version, "seconds", (double)(long)(secs * 1000) / 1000, "endpoints", rows,
				      "deployed", (json_int_t)t->deployed, "failed", (json_int_t)t->failed, "skipped",
				      (json_int_t)t->skipped);
		cmd_print_json(o, 10);
		json_decref(o);
	} else {
		printf("%zu deployed, %zu failed, %zu skipped, %.1f s\n", t->deployed, t->failed, t->skipped, secs);
		json_decref(rows);
	}
}

static int keep_going, fetch;
static uint64_t deploy_timeout = 900, deploy_parallel = 1;
static const char *reason, *only, *rdir = "/etc/zealot/fleet";
static const struct opt deploy_opts[] = {
    OPT_STRING(0, "reason", &reason, "TEXT", "why (required; every era it makes records it)"),
    OPT_STRING(0, "only", &only, "NAME,...", "deploy only these endpoints"),
    OPT_U64(0, "parallel", &deploy_parallel, "N", 1, 256, "endpoints deployed at once (1)"),
    OPT_FLAG(0, "keep-going", &keep_going, "go on after a failure"),
    OPT_FLAG(0, "fetch", &fetch, "run `zealot fetch` on the host first when the file has a *_URL"),
    OPT_STRING(0, "ssh-config", &cfg, "FILE", "ssh -F FILE (an ssh config of its own)"),
    OPT_STRING(0, "remote-zealot", &rz, "PATH", "zealot on the hosts (default: zealot in PATH)"),
    OPT_STRING(0, "remote-dir", &rdir, "DIR", "where endpoint files are copied on a host (/etc/zealot/fleet)"),
    OPT_U64(0, "timeout", &deploy_timeout, "SECONDS", 1, 86400, "the most one endpoint's deploy may take (900)"),
    OPT_FLAG(0, "json", &json, "one JSON object (keys above)"),
    OPT_END(),
};

static int run_deploy(struct opt_args *args)
{
	if (!reason || !reason[0])
		return opt_usage_error("fleet deploy", &deploy_help, "--reason TEXT is required");
	if (rdir[0] != '/')
		return opt_usage_error("fleet deploy", &deploy_help, "--remote-dir must be an absolute path");
	int rc = EXIT_OK;
	char *err = NULL;
	struct fleet f = {0};
	struct fleet_ops c;
	char *pick = NULL;
	if (open_fleet(args->v[0], cfg, rz, 10, &c, &f, &err)) {
		rc = cmd_exit(ZE_IO);
		goto done;
	}
	pick = xcalloc(f.n, 1);
	if (fleet_ops_pick(&f, only, pick, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	size_t n = 0;
	for (size_t i = 0; i < f.n; i++)
		n += pick[i] != 0;
	if (!json)
		printf("fleet deploy %s: %zu endpoint%s, %llu at once, %s\n", args->v[0], n, n == 1 ? "" : "s",
		       (unsigned long long)deploy_parallel, c.version);
	const struct fleet_deploy_opts opt = {.reason = reason,
					      .remote_dir = rdir,
					      .timeout_ms = (long)deploy_timeout * 1000,
					      .keep_going = keep_going,
					      .fetch = fetch,
					      .parallel = (unsigned)deploy_parallel};
	double secs = 0;
	struct fleet_deploy_job *jobs = fleet_ops_deploy(&c, &f, pick, &opt, &n, &secs);
	struct tally t = {0};
	json_t *rows = deploy_rows(jobs, n, json, &t);
	print_deploy_end(args->v[0], reason, c.version, secs, rows, &t, json);
	fleet_ops_deploy_free(jobs, n);
	rc = t.io ? EXIT_IO : t.failed || t.skipped ? EXIT_NO : EXIT_OK;
done:
	free(pick);
	fleet_free(&f);
	fleet_ops_release(&c);
	return cmd_end("fleet deploy", rc, err);
}

const struct command cmd_fleet_deploy = {"deploy", &deploy_help, deploy_opts, run_deploy, NULL};

/* ---- fleet history ----------------------------------------------------- */

static const struct cmd_help history_help = {DOC_FLEET_HISTORY};

static const struct opt history_opts[] = {
    QUERY_OPTS,
    OPT_END(),
};

static int history(const struct fleet_ops *c, const struct fleet *f, const char *dir)
{
	json_t *hosts = NULL, *all = NULL;
	int unread = fleet_ops_history(c, f, (long)timeout * 1000, (unsigned)parallel, &hosts, &all);
	size_t ne = json_array_size(all), nh = json_array_size(hosts);
	if (json) {
		json_t *o = json_pack("{s:s,s:o,s:o}", "fleet", dir, "hosts", hosts, "eras", all);
		cmd_print_json(o, 10);
		json_decref(o);
	} else {
		printf("fleet history %s: %zu era%s on %zu host%s\n\n", dir, ne, ne == 1 ? "" : "s", nh,
		       nh == 1 ? "" : "s");
		size_t k;
		json_t *e;
		json_array_foreach(hosts, k, e)
		{
			if (!json_is_true(json_object_get(e, "reachable")))
				printf("  %s: %s\n", json_string_value(json_object_get(e, "host")),
				       json_string_value(json_object_get(e, "why")));
		}
		printf("  %-16s %-22s %-16s %-4s %-8s %s\n", "started", "host", "endpoint", "era", "", "reason");
		json_array_foreach(all, k, e)
		{
			time_t t = (time_t)json_integer_value(json_object_get(e, "started"));
			struct tm tm;
			char ts[32];
			gmtime_r(&t, &tm);
			strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M", &tm);
			printf("  %-16s %-22s %-16s %-4lld %-8s %s\n", ts,
			       json_string_value(json_object_get(e, "host")),
			       json_string_value(json_object_get(e, "endpoint")),
			       (long long)json_integer_value(json_object_get(e, "id")),
			       json_is_true(json_object_get(e, "current")) ? "current" : "",
			       json_string_value(json_object_get(e, "reason")) ?: "");
		}
		json_decref(hosts);
		json_decref(all);
	}
	return unread ? EXIT_IO : EXIT_OK;
}

static int run_history(struct opt_args *args)
{
	return query("fleet history", args->v[0], history);
}

const struct command cmd_fleet_history = {"history", &history_help, history_opts, run_history, NULL};
