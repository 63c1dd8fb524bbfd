/* zealot fleet status|deploy|history DIR: the fleet's endpoints on their
 * hosts, over ssh (src/fleet/ssh.c), in parallel, each call bounded.
 *
 * Every remote command is built from quoted words (quote_shell); an
 * endpoint file travels on ssh's stdin, never on a command line. A local
 * endpoint (no HOST) runs the same commands here, with this zealot.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/fault.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../deploy/deploy.h"
#include "../endpoint/endpoint.h"
#include "../fleet/fleet.h"
#include "../fleet/ssh.h"
#include "cmd.h"
#include "options.h"

/* What every fleet command shares: how to reach hosts, which zealot runs
 * there, this zealot's path and version line. */
struct common {
	struct fleet_ssh ssh;
	const char *remote_zealot; /* on a host: a name in PATH or a path */
	char *self;		   /* this binary, for local endpoints */
	char *version;		   /* "zealot X.Y.Z", as --version prints it */
};

static int common_init(struct common *c, const char *cfg, const char *rz, unsigned connect_timeout, char **err)
{
	memset(c, 0, sizeof(*c));
	c->ssh.config = cfg;
	c->ssh.connect_timeout = connect_timeout;
	c->remote_zealot = rz ? rz : "zealot";
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0)
		return errorf(err, "cannot find this zealot (/proc/self/exe)");
	buf[n] = '\0';
	c->self = xstrdup(buf);
	const char *av[] = {c->self, "--version", NULL};
	struct proc_result r;
	if (proc_run(av, 10000, 4096, &r, err))
		return -1;
	size_t l = strcspn(r.out.s ? r.out.s : "", "\n");
	c->version = xstrndup(r.out.s ? r.out.s : "", l);
	proc_result_release(&r);
	return 0;
}

static void common_release(struct common *c)
{
	free(c->self);
	free(c->version);
}

static const struct host_dest *host_of(const struct fleet_member *m)
{
	return m->remote ? &m->host : NULL;
}

static const char *host_label(const struct fleet_member *m)
{
	return m->remote ? m->host.dest : "localhost";
}

static const char *zealot_of(const struct common *c, const struct fleet_member *m)
{
	return m->remote ? c->remote_zealot : c->self;
}

static char *first_line(const char *s)
{
	while (s && (*s == '\n' || *s == ' '))
		s++;
	return xstrndup(s ? s : "", s ? strcspn(s, "\n") : 0);
}

/* The last line that says something, of stderr or stdout. */
static char *last_words(const struct fleet_ssh_result *r)
{
	const struct sb *b = r->err.len ? &r->err : &r->out;
	const char *s = b->s ? b->s : "";
	size_t n = b->len;
	while (n && (s[n - 1] == '\n' || s[n - 1] == ' '))
		n--;
	size_t a = n;
	while (a && s[a - 1] != '\n')
		a--;
	return xstrndup(s + a, n - a);
}

/* A name that could be read as an option by the remote programs. */
static int name_refused(const struct fleet_member *m)
{
	return m->name[0] == '-' || m->name[0] == '\0';
}

static void print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	puts(s);
	free(s);
}

static json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

/* ---- fleet status ------------------------------------------------------ */

static const struct cmd_help status_help = {
    .usage = "zealot fleet status DIR [--json] [--timeout SECONDS] [--parallel N] [--ssh-config FILE]\n"
	     "                         [--remote-zealot PATH] [--endpoint-dir DIR]",
    .about = "Every endpoint of the fleet DIR on its host, over ssh, the hosts queried in\n"
	     "parallel, each within --timeout: the host reachable; the unit's state and\n"
	     "MainPID (systemctl show); the current era (zealot history); the contract\n"
	     "probes (health, models with the alias, props with the slots, slots,\n"
	     "metrics, and scrape where the endpoint names its PROMETHEUS_URL: zealot\n"
	     "probe on the host against the installed endpoint file);\n"
	     "the audit's divergences (zealot audit --unit); and, where nvidia-smi\n"
	     "answers, the card's used memory against the era's plan. An unreachable\n"
	     "host, a host key that does not match known_hosts, or a host that does not\n"
	     "answer in time is a row saying so. An endpoint without HOST is queried\n"
	     "here, with this zealot.\n\n"
	     "Each endpoint is healthy (the unit active with a MainPID, no probe failed,\n"
	     "no divergence), down (unreachable, the unit not active, or /health not\n"
	     "200), or diverges (it serves, but a probe or the audit says it is not\n"
	     "the intended one).\n\n"
	     "--json: {\"fleet\", \"seconds\", \"endpoints\": [{\"endpoint\", \"host\",\n"
	     "\"state\" (healthy|down|diverges|unreachable), \"reachable\", \"why\",\n"
	     "\"seconds\", \"zealot_version\", \"unit\" ({\"name\", \"load\", \"active\",\n"
	     "\"sub\", \"result\", \"main_pid\"}), \"era\" ({\"id\", \"started\", \"reason\",\n"
	     "\"plan_mib\"} or null), \"probes\" ({\"verdict\", \"probes\": [{\"name\",\n"
	     "\"status\", \"evidence\", \"law\"}]} or {\"error\"}), \"summary\" ({\"health\",\n"
	     "\"alias\", \"slots\", \"metrics\"}: each {\"status\", \"evidence\"} of the\n"
	     "health, models, props and metrics probes), \"audit\"\n"
	     "({\"divergences\", \"pid\", \"rows\": [...]} or {\"error\"}), \"memory\"\n"
	     "({\"nvidia_smi\": false} or {\"nvidia_smi\": true, \"card\", \"used_mib\",\n"
	     "\"total_mib\", \"plan_mib\"})}], \"healthy\", \"total\"}.\n",
    .exits = "0 every endpoint healthy, 1 any endpoint down, diverging or unreachable,\n"
	     "      2 usage, 3 the fleet directory cannot be read",
    .min_args = 1,
    .max_args = 1,
};

struct status_job {
	const struct common *c;
	const struct fleet_member *m;
	const char *endpoint_dir;
	long timeout_ms;
	struct fleet_ssh_result r;
	char *err;
	double seconds;
};

static void status_script(struct sb *s, const struct common *c, const struct fleet_member *m, const char *edir,
			  long timeout_ms)
{
	struct sb file = {0}, unit = {0}, url = {0}, cmd = {0};
	sb_addf(&file, "%s/%s.env", edir, m->name);
	sb_addf(&unit, "%s.service", m->name);
	const char *bind = endpoint_value(m->ep, "BIND_ADDR");
	const char *port = endpoint_value(m->ep, "LISTEN_PORT");
	if (!bind || !strcmp(bind, "0.0.0.0") || !bind[0])
		bind = "127.0.0.1";
	if (!strcmp(bind, "::"))
		bind = "::1";
	sb_addf(&url, strchr(bind, ':') ? "http://[%s]:%s" : "http://%s:%s", bind, port ? port : "8080");
	char tmo[32];
	long per = timeout_ms / 4000;
	snprintf(tmo, sizeof(tmo), "%ld", per < 1 ? 1 : per);

	sb_adds(s, "Z=");
	quote_shell(s, zealot_of(c, m));
	sb_adds(s, "; F=");
	quote_shell(s, file.s);
	sb_adds(s, "; U=");
	quote_shell(s, unit.s);
	sb_adds(s, "; N=");
	quote_shell(s, m->name);
	sb_adds(s, "; URL=");
	quote_shell(s, url.s);
	sb_adds(s, "; T=");
	quote_shell(s, tmo);
	sb_adds(s, "\n");
	fleet_ssh_section_add(s, "version", "\"$Z\" --version 2>&1");
	fleet_ssh_section_add(
	    s, "show", "systemctl show -p LoadState -p ActiveState -p SubState -p Result -p MainPID -- \"$U\" 2>&1");
	fleet_ssh_section_add(s, "history", "\"$Z\" history --json -- \"$N\" 2>&1");
	fleet_ssh_section_add(
	    s, "probe",
	    "if [ -r \"$F\" ]; then \"$Z\" probe --endpoint \"$F\" --only health,models,props,slots,metrics,scrape "
	    "--timeout \"$T\" --json -- \"$URL\" 2>&1; else echo \"no installed endpoint file $F\"; false; fi");
	fleet_ssh_section_add(
	    s, "audit",
	    "if [ -r \"$F\" ]; then \"$Z\" audit --unit \"$U\" --json -- \"$F\" 2>&1; else echo \"no installed "
	    "endpoint file $F\"; false; fi");
	fleet_ssh_section_add(
	    s, "nvidia",
	    "if command -v nvidia-smi >/dev/null 2>&1; then nvidia-smi "
	    "--query-gpu=index,memory.used,memory.total --format=csv,noheader,nounits 2>&1; else echo 'no "
	    "nvidia-smi'; fi");
	sb_release(&file);
	sb_release(&unit);
	sb_release(&url);
	sb_release(&cmd);
}

static void status_run(size_t i, void *ctx)
{
	struct status_job *j = &((struct status_job *)ctx)[i];
	struct sb s = {0};
	double t0 = mono_s();
	status_script(&s, j->c, j->m, j->endpoint_dir, j->timeout_ms);
	if (fleet_ssh_run(&j->c->ssh, host_of(j->m), s.s, NULL, 0, j->timeout_ms, &j->r, &j->err) && !j->err)
		j->err = xstrdup("cannot run ssh");
	j->seconds = mono_s() - t0;
	sb_release(&s);
}

/* "Key=Value" lines of systemctl show. */
static const char *show_value(const char *show, const char *key, char *buf, size_t n)
{
	size_t kl = strlen(key);
	for (const char *p = show; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			size_t vl = l - kl - 1 < n - 1 ? l - kl - 1 : n - 1;
			memcpy(buf, p + kl + 1, vl);
			buf[vl] = '\0';
			return buf;
		}
		p = e ? e + 1 : NULL;
	}
	return NULL;
}

static json_t *status_row(struct status_job *j, const char **state_out)
{
	json_t *row = json_object();
	const struct fleet_member *m = j->m;
	json_object_set_new(row, "endpoint", json_string(m->name));
	json_object_set_new(row, "host", json_string(host_label(m)));
	json_object_set_new(row, "seconds", json_real((double)(long)(j->seconds * 1000) / 1000));
	const char *state = "healthy";
	if (j->err || !j->r.reached || j->r.timed_out) {
		state = "unreachable";
		json_object_set_new(row, "state", json_string(state));
		json_object_set_new(row, "reachable", json_boolean(j->r.reached));
		json_object_set_new(row, "why", json_string(j->err ? j->err : j->r.why ? j->r.why : "no answer"));
		*state_out = "unreachable";
		return row;
	}
	const char *out = j->r.out.s;
	int rc;
	json_object_set_new(row, "reachable", json_true());
	char *v = fleet_ssh_section(out, "version", &rc);
	char *vl = first_line(v);
	json_object_set_new(row, "zealot_version", json_string(vl));
	free(vl);
	free(v);

	/* the unit */
	char *show = fleet_ssh_section(out, "show", &rc);
	char b1[64], b2[64], b3[64], b4[64], b5[32];
	const char *load = show_value(show, "LoadState", b1, sizeof(b1));
	const char *active = show_value(show, "ActiveState", b2, sizeof(b2));
	const char *sub = show_value(show, "SubState", b3, sizeof(b3));
	const char *result = show_value(show, "Result", b4, sizeof(b4));
	const char *pid = show_value(show, "MainPID", b5, sizeof(b5));
	long main_pid = pid ? strtol(pid, NULL, 10) : 0;
	struct sb un = {0};
	sb_addf(&un, "%s.service", m->name);
	json_object_set_new(row, "unit",
			    json_pack("{s:s,s:o,s:o,s:o,s:o,s:I}", "name", un.s, "load", jstr_or_null(load), "active",
				      jstr_or_null(active), "sub", jstr_or_null(sub), "result", jstr_or_null(result),
				      "main_pid", (json_int_t)main_pid));
	sb_release(&un);
	free(show);
	int unit_up = active && !strcmp(active, "active") && main_pid > 0;

	/* the current era */
	char *hist = fleet_ssh_section(out, "history", &rc);
	json_t *h = hist ? json_loads(hist, 0, NULL) : NULL;
	json_t *era = json_null(), *plan_mib = json_null();
	json_t *eras = json_object_get(h, "eras");
	size_t k;
	json_t *e;
	json_array_foreach(eras, k, e)
	{
		if (!json_is_true(json_object_get(e, "current")))
			continue;
		json_t *pl = json_object_get(json_object_get(e, "plan"), "total_mib");
		json_decref(era);
		json_decref(plan_mib);
		plan_mib = pl ? json_incref(pl) : json_null();
		era = json_pack("{s:O?,s:O?,s:O?,s:O?}", "id", json_object_get(e, "id"), "started",
				json_object_get(e, "started"), "reason", json_object_get(e, "reason"), "plan_mib",
				plan_mib);
	}
	json_object_set_new(row, "era", era);
	json_decref(h);
	free(hist);

	/* the contract probes */
	char *pr = fleet_ssh_section(out, "probe", &rc);
	json_t *p = pr ? json_loads(pr, 0, NULL) : NULL;
	int health = 0, probe_failed = 0;
	if (p && json_is_object(p)) {
		const char *verdict = json_string_value(json_object_get(p, "verdict"));
		probe_failed = !verdict || strcmp(verdict, "pass") != 0;
		json_array_foreach(json_object_get(p, "probes"), k, e)
		{
			const char *n = json_string_value(json_object_get(e, "name"));
			const char *st = json_string_value(json_object_get(e, "status"));
			if (n && st && !strcmp(n, "health") && !strcmp(st, "pass"))
				health = 1;
		}
		json_object_set_new(row, "probes",
				    json_pack("{s:O?,s:O?}", "verdict", json_object_get(p, "verdict"), "probes",
					      json_object_get(p, "probes")));
		/* the summary: health, the alias (models), the slots (props), metrics */
		json_t *sum = json_object();
		json_array_foreach(json_object_get(p, "probes"), k, e)
		{
			const char *n = json_string_value(json_object_get(e, "name"));
			static const char *const keep[][2] = {
			    {"health", "health"}, {"models", "alias"}, {"props", "slots"}, {"metrics", "metrics"}};
			for (size_t q = 0; n && q < ARRAY_SIZE(keep); q++)
				if (!strcmp(n, keep[q][0]))
					json_object_set_new(sum, keep[q][1],
							    json_pack("{s:O?,s:O?}", "status",
								      json_object_get(e, "status"), "evidence",
								      json_object_get(e, "evidence")));
		}
		json_object_set_new(row, "summary", sum);
	} else {
		char *w = first_line(pr);
		json_object_set_new(row, "probes", json_pack("{s:s}", "error", w[0] ? w : "no answer"));
		free(w);
		probe_failed = 1;
	}
	json_decref(p);
	free(pr);

	/* the audit */
	char *au = fleet_ssh_section(out, "audit", &rc);
	json_t *a = au ? json_loads(au, 0, NULL) : NULL;
	long long div = -1;
	if (a && json_is_object(a)) {
		div = json_integer_value(json_object_get(a, "divergences"));
		json_object_set_new(row, "audit",
				    json_pack("{s:I,s:O?,s:O?}", "divergences", (json_int_t)div, "pid",
					      json_object_get(a, "pid"), "rows", json_object_get(a, "rows")));
	} else {
		char *w = first_line(au);
		json_object_set_new(row, "audit", json_pack("{s:s}", "error", w[0] ? w : "no answer"));
		free(w);
	}
	json_decref(a);
	free(au);

	/* the card's memory */
	char *nv = fleet_ssh_section(out, "nvidia", &rc);
	if (!nv || strstr(nv, "no nvidia-smi") || rc != 0) {
		json_object_set_new(row, "memory", json_pack("{s:b}", "nvidia_smi", 0));
	} else {
		long used = -1, total = -1, idx;
		for (const char *q = nv; q && *q;) {
			while (*q == '\n')
				q++;
			char *end;
			idx = strtol(q, &end, 10);
			if (end != q && *end == ',') {
				long u = strtol(end + 1, &end, 10);
				long t = *end == ',' ? strtol(end + 1, &end, 10) : -1;
				if (m->gpu < 0 ? idx == 0 : idx == m->gpu) {
					used = u;
					total = t;
				}
			}
			q = strchr(q, '\n');
		}
		json_object_set_new(row, "memory",
				    json_pack("{s:b,s:i,s:I,s:I,s:O}", "nvidia_smi", 1, "card", m->gpu < 0 ? 0 : m->gpu,
					      "used_mib", (json_int_t)used, "total_mib", (json_int_t)total, "plan_mib",
					      plan_mib));
	}
	json_decref(plan_mib);
	free(nv);

	if (!unit_up || !health)
		state = "down";
	else if (probe_failed || div != 0)
		state = "diverges";
	json_object_set_new(row, "state", json_string(state));
	json_object_set_new(row, "why", json_null());
	*state_out = state;
	return row;
}

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
		snprintf(ms, sizeof(ms), "card %lld: %lld MiB used, plan %.2f",
			 (long long)json_integer_value(json_object_get(mem, "card")),
			 (long long)json_integer_value(json_object_get(mem, "used_mib")),
			 json_is_number(pm) ? json_number_value(pm) : 0.0);
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

static size_t count_hosts(const struct fleet *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++) {
		char *k = fleet_host_key(&f->m[i]);
		int seen = 0;
		for (size_t j = 0; j < i && !seen; j++) {
			char *o = fleet_host_key(&f->m[j]);
			seen = !strcmp(k, o);
			free(o);
		}
		n += !seen;
		free(k);
	}
	return n;
}

int cmd_fleet_status(int argc, char **argv)
{
	int json = 0, rc = EXIT_OK;
	uint64_t timeout = 30, parallel = 16;
	const char *cfg = NULL, *rz = NULL, *edir = "/etc/zealot";
	const struct opt opts[] = {
	    OPT_FLAG(0, "json", &json, "one JSON object (keys above)"),
	    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 3600, "the most one host may take to answer (30)"),
	    OPT_U64(0, "parallel", &parallel, "N", 1, 256, "hosts queried at once (16)"),
	    OPT_STRING(0, "ssh-config", &cfg, "FILE", "ssh -F FILE (an ssh config of its own)"),
	    OPT_STRING(0, "remote-zealot", &rz, "PATH", "zealot on the hosts (default: zealot in PATH)"),
	    OPT_STRING(0, "endpoint-dir", &edir, "DIR", "where deploy installed the endpoint files (/etc/zealot)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("fleet status", &status_help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	char *err = NULL;
	struct fleet f = {0};
	struct common c;
	if (common_init(&c, cfg, rz, timeout < 10 ? (unsigned)timeout : 10, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	if (fleet_load(args.v[0], &f, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	double t0 = mono_s();
	struct status_job *jobs = xcalloc(f.n, sizeof(*jobs));
	for (size_t i = 0; i < f.n; i++) {
		jobs[i].c = &c;
		jobs[i].m = &f.m[i];
		jobs[i].endpoint_dir = edir;
		jobs[i].timeout_ms = (long)timeout * 1000;
		if (name_refused(&f.m[i]))
			jobs[i].err = xstrdup("an endpoint name that begins with '-' is refused");
	}
	fleet_ssh_each(f.n, (unsigned)parallel, status_run, jobs, NULL);
	double secs = mono_s() - t0;
	json_t *rows = json_array();
	size_t healthy = 0;
	for (size_t i = 0; i < f.n; i++) {
		const char *state = "unreachable";
		json_t *row = status_row(&jobs[i], &state);
		healthy += !strcmp(state, "healthy");
		json_array_append_new(rows, row);
	}
	if (json) {
		json_t *o = json_pack("{s:s,s:f,s:o,s:I,s:I}", "fleet", args.v[0], "seconds",
				      (double)(long)(secs * 1000) / 1000, "endpoints", rows, "healthy",
				      (json_int_t)healthy, "total", (json_int_t)f.n);
		print_json(o);
		json_decref(o);
	} else {
		printf("fleet status %s: %zu endpoint%s on %zu host%s, %zu healthy, %.1f s\n\n", args.v[0], f.n,
		       f.n == 1 ? "" : "s", count_hosts(&f), count_hosts(&f) == 1 ? "" : "s", healthy, secs);
		printf("  %-16s %-22s %-12s%-22s %-5s %-18s %-14s %s\n", "endpoint", "host", "state", "unit", "era",
		       "probes", "audit", "memory");
		size_t k;
		json_t *row;
		json_array_foreach(rows, k, row) status_print(row);
		json_decref(rows);
	}
	for (size_t i = 0; i < f.n; i++) {
		fleet_ssh_result_release(&jobs[i].r);
		free(jobs[i].err);
	}
	free(jobs);
	rc = healthy == f.n ? EXIT_OK : EXIT_NO;
done:
	if (err)
		cmd_fail(rc, "fleet status: %s", err);
	free(err);
	fleet_free(&f);
	common_release(&c);
	opt_args_release(&args);
	return rc;
}

/* ---- fleet deploy ------------------------------------------------------ */

static const struct cmd_help deploy_help = {
    .usage = "zealot fleet deploy DIR --reason TEXT [--only NAME,...] [--parallel N] [--keep-going]\n"
	     "                         [--fetch] [--ssh-config FILE] [--remote-zealot PATH]\n"
	     "                         [--remote-dir DIR] [--timeout SECONDS] [--json]",
    .about = "Deploy every endpoint of the fleet DIR (or --only those) on its host with\n"
	     "`zealot deploy`, its gates, verification and automatic rollback. For each\n"
	     "endpoint with a HOST, over ssh:\n"
	     "  version  the host's `zealot --version` is this zealot's, or it refuses\n"
	     "           naming both\n"
	     "  copy     the endpoint file, on ssh's stdin, to REMOTE-DIR/NAME.env\n"
	     "           (a temporary file renamed into place)\n"
	     "  fetch    with --fetch, when the file has a MODEL/MMPROJ/LORA_URL: `zealot\n"
	     "           fetch REMOTE-DIR/NAME.env` there (pinned, resumable; a token stays\n"
	     "           in its file on the host)\n"
	     "  deploy   `zealot deploy REMOTE-DIR/NAME.env --reason TEXT --json` there\n"
	     "An endpoint without HOST is deployed here, with this zealot. Each\n"
	     "endpoint's outcome is reported as it ends; the first failure stops the\n"
	     "endpoints not yet begun (those running end) unless --keep-going. An\n"
	     "endpoint whose name systemd would not take as a unit name is refused\n"
	     "before its host is touched.\n\n"
	     "Only endpoint files travel: payloads are on the host already (`zealot\n"
	     "fetch` there), at the paths the file names. A relative path resolves\n"
	     "against REMOTE-DIR on the host, so name payloads by absolute paths.\n"
	     "An API key stays in its file on the host (API_KEY_FILE); nothing secret\n"
	     "is written on any command line.\n\n"
	     "--json: {\"fleet\", \"reason\", \"version\", \"seconds\", \"endpoints\":\n"
	     "[{\"endpoint\", \"host\", \"outcome\" (deployed, refused, rolled-back,\n"
	     "failed, rollback-failed, error: deploy's; version-skew, unreachable, copy-failed,\n"
	     "fetch-failed, lost, skipped), \"era\", \"seconds\", \"failed_step\", \"law\", \"why\",\n"
	     "\"remote_version\", \"deploy\" (the host's `zealot deploy --json`, or\n"
	     "null)}], \"deployed\", \"failed\", \"skipped\"}.\n",
    .exits = "0 every endpoint deployed, 1 any refused, rolled back, skipped or a\n"
	     "      version skew, 2 usage, 3 a host unreachable or lost, a rollback that\n"
	     "      failed, or the fleet directory unreadable",
    .min_args = 1,
    .max_args = 1,
};

struct deploy_shared {
	pthread_mutex_t mu;
	int stop; /* a failure, without --keep-going: begin no more */
};

struct deploy_job {
	const struct common *c;
	const struct fleet_member *m;
	const char *reason, *remote_dir;
	long timeout_ms;
	int keep_going, fetch;
	struct deploy_shared *sh;
	/* results */
	const char *outcome; /* static strings */
	char *why, *remote_version, *failed_step;
	json_t *deploy; /* the host's deploy JSON (built after the threads end) */
	char *deploy_text;
	int deploy_status;
	double seconds;
};

static int deploy_failed(const char *outcome)
{
	return strcmp(outcome, "deployed") != 0;
}

static int has_url(const struct fleet_member *m)
{
	static const char *const keys[] = {"MODEL_URL", "MMPROJ_URL", "LORA_URL"};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = endpoint_value(m->ep, keys[i]);
		if (v && v[0])
			return 1;
	}
	return 0;
}

static void deploy_job(size_t i, void *ctx)
{
	struct deploy_job *j = &((struct deploy_job *)ctx)[i];
	double t0 = mono_s();
	pthread_mutex_lock(&j->sh->mu);
	int stop = j->sh->stop;
	pthread_mutex_unlock(&j->sh->mu);
	if (stop) {
		j->outcome = "skipped";
		j->why = xstrdup("not begun: an endpoint before it failed (--keep-going goes on)");
		return;
	}
	fault_point("fleet", "before-endpoint");
	const struct host_dest *h = host_of(j->m);
	const char *hn = host_label(j->m);
	struct fleet_ssh_result r = {0};
	char *err = NULL;
	struct sb cmd = {0}, path = {0};
	if (!deploy_unit_name_ok(j->m->name)) {
		j->outcome = "refused";
		errorf(&j->why,
		       "'%s' is not a unit name systemd takes (letters, digits, ':', '_', '.', '-'; not first '-'): "
		       "refused before reaching %s",
		       j->m->name, hn);
		goto out;
	}
	if (j->m->remote) {
		/* the host's zealot is this one */
		const char *vav[] = {j->c->remote_zealot, "--version", NULL};
		fleet_ssh_words(&cmd, vav);
		if (fleet_ssh_run(&j->c->ssh, h, cmd.s, NULL, 0, 60000, &r, &err)) {
			j->outcome = "unreachable";
			j->why = err;
			err = NULL;
			goto out;
		}
		if (!r.reached || r.timed_out) {
			j->outcome = "unreachable";
			j->why = xstrdup(r.why ? r.why : "no answer");
			goto out;
		}
		char *v = first_line(r.out.s);
		j->remote_version = v;
		if (r.status != 0 || strcmp(v, j->c->version) != 0) {
			struct sb w = {0};
			char *l = last_words(&r);
			if (r.status != 0)
				sb_addf(&w, "%s: '%s' does not run there (exit %d: %s); this is %s", hn,
					j->c->remote_zealot, r.status, l, j->c->version);
			else
				sb_addf(&w,
					"version skew: %s runs %s, this is %s: refused (install the same zealot "
					"on every host)",
					hn, v[0] ? v : "(nothing)", j->c->version);
			free(l);
			j->outcome = "version-skew";
			j->why = sb_detach(&w);
			goto out;
		}
		fleet_ssh_result_release(&r);
		/* the endpoint file, on stdin */
		char *text = NULL;
		size_t len = 0;
		int efd = open_regular(j->m->path, NULL); /* a FIFO would hang the read */
		FILE *fp = efd >= 0 ? fdopen(efd, "rb") : NULL;
		if (!fp && efd >= 0)
			close(efd);
		if (fp) {
			struct sb t = {0};
			char buf[8192];
			size_t n;
			while ((n = fread(buf, 1, sizeof(buf), fp)) > 0)
				sb_add(&t, buf, n);
			fclose(fp);
			len = t.len;
			text = sb_detach(&t);
		}
		if (!text) {
			j->outcome = "error";
			errorf(&j->why, "cannot read %s", j->m->path);
			goto out;
		}
		sb_addf(&path, "%s/%s.env", j->remote_dir, j->m->name);
		int prc = fleet_ssh_put(&j->c->ssh, h, text, len, path.s, 0600, 60000, &err);
		free(text);
		if (prc) {
			j->outcome = "copy-failed";
			j->why = err;
			err = NULL;
			goto out;
		}
	} else {
		sb_adds(&path, j->m->path);
	}
	/* the payloads, where the file names where they come from */
	if (j->fetch && has_url(j->m)) {
		sb_release(&cmd);
		const char *fav[] = {zealot_of(j->c, j->m), "fetch", "--", path.s, NULL};
		fleet_ssh_words(&cmd, fav);
		if (fleet_ssh_run(&j->c->ssh, h, cmd.s, NULL, 0, j->timeout_ms, &r, &err)) {
			j->outcome = "error";
			j->why = err;
			err = NULL;
			goto out;
		}
		if (r.why || r.status != 0) {
			char *l = last_words(&r);
			j->outcome = r.reached && !r.lost && !r.timed_out ? "fetch-failed"
				     : r.reached			  ? "lost"
									  : "unreachable";
			if (r.why)
				j->why = xstrdup(r.why);
			else
				errorf(&j->why, "zealot fetch on %s: exit %d: %s", hn, r.status, l);
			free(l);
			goto out;
		}
		fleet_ssh_result_release(&r);
	}
	/* zealot deploy on the host */
	sb_release(&cmd);
	const char *dav[] = {zealot_of(j->c, j->m), "deploy", "--reason", j->reason, "--json", "--", path.s, NULL};
	fleet_ssh_words(&cmd, dav);
	if (fleet_ssh_run(&j->c->ssh, h, cmd.s, NULL, 0, j->timeout_ms, &r, &err)) {
		j->outcome = "error";
		j->why = err;
		err = NULL;
		goto out;
	}
	j->deploy_text = xstrdup(r.out.s ? r.out.s : "");
	j->deploy_status = r.status;
	if (!r.reached) {
		j->outcome = "unreachable";
		j->why = xstrdup(r.why ? r.why : "no answer");
	} else if (r.lost || r.timed_out) {
		j->outcome = "lost";
		errorf(&j->why, "%s (how far the deploy got is unknown here: `zealot history %s` on %s says)",
		       r.why ? r.why : "no answer", j->m->name, hn);
	} else {
		j->outcome = NULL; /* from the deploy JSON, after the threads */
		char *l = last_words(&r);
		j->why = l;
	}
out:
	if (j->outcome && deploy_failed(j->outcome) && !j->keep_going) {
		pthread_mutex_lock(&j->sh->mu);
		j->sh->stop = 1;
		pthread_mutex_unlock(&j->sh->mu);
	}
	if (!j->outcome && r.status != 0 && !j->keep_going) {
		pthread_mutex_lock(&j->sh->mu);
		j->sh->stop = 1;
		pthread_mutex_unlock(&j->sh->mu);
	}
	free(err);
	fleet_ssh_result_release(&r);
	sb_release(&cmd);
	sb_release(&path);
	j->seconds = mono_s() - t0;
	fault_point("fleet", "after-endpoint");
}

/* The outcome of a deploy that ran, from its JSON. */
static void deploy_judge(struct deploy_job *j)
{
	if (j->outcome)
		return;
	json_t *d = j->deploy_text ? json_loads(j->deploy_text, 0, NULL) : NULL;
	const char *o = json_string_value(json_object_get(d, "outcome"));
	static const char *const known[] = {"deployed", "refused", "rolled-back", "rollback-failed", "error", "failed"};
	j->outcome = "error";
	for (size_t i = 0; o && i < ARRAY_SIZE(known); i++)
		if (!strcmp(o, known[i]))
			j->outcome = known[i];
	if (d) {
		const char *why = json_string_value(json_object_get(d, "why"));
		const char *fs = json_string_value(json_object_get(d, "failed_step"));
		if (why && why[0]) {
			free(j->why);
			j->why = xstrdup(why);
		}
		if (fs)
			j->failed_step = xstrdup(fs);
		j->deploy = d;
	} else if (!j->why || !j->why[0]) {
		free(j->why);
		errorf(&j->why, "zealot deploy printed no JSON (exit %d)", j->deploy_status);
	}
	if (!strcmp(j->outcome, "deployed"))
		free(j->why), j->why = NULL;
}

/* NAME,NAME: every name a member of f, else a usage error naming it. */
static int pick_only(const struct fleet *f, const char *only, char *pick, char **err)
{
	if (!only) {
		memset(pick, 1, f->n);
		return 0;
	}
	memset(pick, 0, f->n);
	char *list = xstrdup(only);
	int rc = 0;
	for (char *p = list; p && *p && !rc;) {
		char *comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		size_t i;
		for (i = 0; i < f->n; i++)
			if (!strcmp(f->m[i].name, p))
				break;
		if (i == f->n)
			rc = errorf(err, "--only: no endpoint '%s' in %s", p, f->dir);
		else
			pick[i] = 1;
		p = comma ? comma + 1 : NULL;
	}
	free(list);
	return rc;
}

int cmd_fleet_deploy(int argc, char **argv)
{
	int json = 0, keep_going = 0, fetch = 0, rc = EXIT_OK;
	uint64_t timeout = 900, parallel = 1;
	const char *cfg = NULL, *rz = NULL, *reason = NULL, *only = NULL, *rdir = "/etc/zealot/fleet";
	const struct opt opts[] = {
	    OPT_STRING(0, "reason", &reason, "TEXT", "why (required; every era it makes records it)"),
	    OPT_STRING(0, "only", &only, "NAME,...", "deploy only these endpoints"),
	    OPT_U64(0, "parallel", &parallel, "N", 1, 256, "endpoints deployed at once (1)"),
	    OPT_FLAG(0, "keep-going", &keep_going, "go on after a failure"),
	    OPT_FLAG(0, "fetch", &fetch, "run `zealot fetch` on the host first when the file has a *_URL"),
	    OPT_STRING(0, "ssh-config", &cfg, "FILE", "ssh -F FILE (an ssh config of its own)"),
	    OPT_STRING(0, "remote-zealot", &rz, "PATH", "zealot on the hosts (default: zealot in PATH)"),
	    OPT_STRING(0, "remote-dir", &rdir, "DIR", "where endpoint files are copied on a host (/etc/zealot/fleet)"),
	    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 86400, "the most one endpoint's deploy may take (900)"),
	    OPT_FLAG(0, "json", &json, "one JSON object (keys above)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("fleet deploy", &deploy_help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	if (!reason || !reason[0]) {
		opt_args_release(&args);
		return opt_usage_error("fleet deploy", &deploy_help, "--reason TEXT is required");
	}
	if (rdir[0] != '/') {
		opt_args_release(&args);
		return opt_usage_error("fleet deploy", &deploy_help, "--remote-dir must be an absolute path");
	}
	char *err = NULL;
	struct fleet f = {0};
	struct common c;
	char *pick = NULL;
	if (common_init(&c, cfg, rz, 10, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	if (fleet_load(args.v[0], &f, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	pick = xcalloc(f.n, 1);
	if (pick_only(&f, only, pick, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	struct deploy_shared sh = {.stop = 0};
	pthread_mutex_init(&sh.mu, NULL);
	struct deploy_job *jobs = xcalloc(f.n, sizeof(*jobs));
	size_t n = 0;
	for (size_t i = 0; i < f.n; i++) {
		if (!pick[i])
			continue;
		jobs[n] = (struct deploy_job){.c = &c,
					      .m = &f.m[i],
					      .reason = reason,
					      .remote_dir = rdir,
					      .timeout_ms = (long)timeout * 1000,
					      .keep_going = keep_going,
					      .fetch = fetch,
					      .sh = &sh};
		n++;
	}
	if (!json)
		printf("fleet deploy %s: %zu endpoint%s, %llu at once, %s\n", args.v[0], n, n == 1 ? "" : "s",
		       (unsigned long long)parallel, c.version);
	double t0 = mono_s();
	fleet_ssh_each(n, (unsigned)parallel, deploy_job, jobs, NULL);
	double secs = mono_s() - t0;
	pthread_mutex_destroy(&sh.mu);
	size_t deployed = 0, failed = 0, skipped = 0;
	int io = 0;
	json_t *rows = json_array();
	for (size_t i = 0; i < n; i++) {
		struct deploy_job *j = &jobs[i];
		deploy_judge(j);
		if (!strcmp(j->outcome, "deployed"))
			deployed++;
		else if (!strcmp(j->outcome, "skipped"))
			skipped++;
		else
			failed++;
		io |= !strcmp(j->outcome, "unreachable") || !strcmp(j->outcome, "lost") ||
		      !strcmp(j->outcome, "fetch-failed") || !strcmp(j->outcome, "rollback-failed") ||
		      !strcmp(j->outcome, "copy-failed");
		json_t *era = json_object_get(j->deploy, "era");
		json_t *law = json_object_get(j->deploy, "law");
		json_t *row =
		    json_pack("{s:s,s:s,s:s,s:O,s:f,s:o,s:O,s:o,s:o,s:O}", "endpoint", j->m->name, "host",
			      host_label(j->m), "outcome", j->outcome, "era", era ? era : json_null(), "seconds",
			      (double)(long)(j->seconds * 1000) / 1000, "failed_step", jstr_or_null(j->failed_step),
			      "law", law ? law : json_null(), "why", jstr_or_null(j->why), "remote_version",
			      jstr_or_null(j->remote_version), "deploy", j->deploy ? j->deploy : json_null());
		json_array_append_new(rows, row);
		if (!json) {
			char es[32] = "";
			if (json_is_integer(era))
				snprintf(es, sizeof(es), "era %lld", (long long)json_integer_value(era));
			printf("  %-16s %-22s %-15s %-8s %6.1f s%s%s\n", j->m->name, host_label(j->m), j->outcome, es,
			       j->seconds, j->why ? "  " : "", j->why ? j->why : "");
		}
	}
	if (json) {
		json_t *o =
		    json_pack("{s:s,s:s,s:s,s:f,s:o,s:I,s:I,s:I}", "fleet", args.v[0], "reason", reason, "version",
			      c.version, "seconds", (double)(long)(secs * 1000) / 1000, "endpoints", rows, "deployed",
			      (json_int_t)deployed, "failed", (json_int_t)failed, "skipped", (json_int_t)skipped);
		print_json(o);
		json_decref(o);
	} else {
		printf("%zu deployed, %zu failed, %zu skipped, %.1f s\n", deployed, failed, skipped, secs);
		json_decref(rows);
	}
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].why);
		free(jobs[i].remote_version);
		free(jobs[i].failed_step);
		free(jobs[i].deploy_text);
		json_decref(jobs[i].deploy);
	}
	free(jobs);
	rc = io ? EXIT_IO : failed || skipped ? EXIT_NO : EXIT_OK;
done:
	if (err)
		cmd_fail(rc, "fleet deploy: %s", err);
	free(err);
	free(pick);
	fleet_free(&f);
	common_release(&c);
	opt_args_release(&args);
	return rc;
}

/* ---- fleet history ----------------------------------------------------- */

static const struct cmd_help history_help = {
    .usage = "zealot fleet history DIR [--json] [--timeout SECONDS] [--parallel N] [--ssh-config FILE]\n"
	     "                          [--remote-zealot PATH]",
    .about = "Every era of the fleet's endpoints, from every host's store (`zealot history\n"
	     "--json` on each host, in parallel, each within --timeout; an endpoint\n"
	     "without HOST from this host's), merged and sorted by the time each began,\n"
	     "with the host and the endpoint. Eras of endpoints that are not in DIR are\n"
	     "left out. A host that cannot be read is said, and the others are shown.\n\n"
	     "--json: {\"fleet\", \"hosts\": [{\"host\", \"reachable\", \"why\", \"eras\"}],\n"
	     "\"eras\": [{\"host\", \"endpoint\", \"id\", \"started\", \"ended\", \"current\",\n"
	     "\"reason\", \"window\", \"shape\", \"runtime_build\", \"plan\"}]} (times are\n"
	     "unix seconds; an era's other fields are in `zealot history --json` on its\n"
	     "host).\n",
    .exits = "0, 2 usage, 3 a host's store could not be read (the rest is printed)",
    .min_args = 1,
    .max_args = 1,
};

struct history_job {
	const struct common *c;
	const struct fleet_member *m; /* the host's first member */
	long timeout_ms;
	struct fleet_ssh_result r;
	char *err;
};

static void history_run(size_t i, void *ctx)
{
	struct history_job *j = &((struct history_job *)ctx)[i];
	struct sb cmd = {0};
	const char *av[] = {zealot_of(j->c, j->m), "history", "--json", NULL};
	fleet_ssh_words(&cmd, av);
	if (fleet_ssh_run(&j->c->ssh, host_of(j->m), cmd.s, NULL, 0, j->timeout_ms, &j->r, &j->err) && !j->err)
		j->err = xstrdup("cannot run ssh");
	sb_release(&cmd);
}

static int by_started(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t sx = json_integer_value(json_object_get(x, "started"));
	json_int_t sy = json_integer_value(json_object_get(y, "started"));
	if (sx != sy)
		return sx < sy ? -1 : 1;
	int h = strcmp(json_string_value(json_object_get(x, "host")), json_string_value(json_object_get(y, "host")));
	if (h)
		return h;
	int e = strcmp(json_string_value(json_object_get(x, "endpoint")),
		       json_string_value(json_object_get(y, "endpoint")));
	if (e)
		return e;
	return json_integer_value(json_object_get(x, "id")) < json_integer_value(json_object_get(y, "id")) ? -1 : 1;
}

int cmd_fleet_history(int argc, char **argv)
{
	int json = 0, rc = EXIT_OK;
	uint64_t timeout = 30, parallel = 16;
	const char *cfg = NULL, *rz = NULL;
	const struct opt opts[] = {
	    OPT_FLAG(0, "json", &json, "one JSON object (keys above)"),
	    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 3600, "the most one host may take to answer (30)"),
	    OPT_U64(0, "parallel", &parallel, "N", 1, 256, "hosts queried at once (16)"),
	    OPT_STRING(0, "ssh-config", &cfg, "FILE", "ssh -F FILE (an ssh config of its own)"),
	    OPT_STRING(0, "remote-zealot", &rz, "PATH", "zealot on the hosts (default: zealot in PATH)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("fleet history", &history_help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	char *err = NULL;
	struct fleet f = {0};
	struct common c;
	if (common_init(&c, cfg, rz, timeout < 10 ? (unsigned)timeout : 10, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	if (fleet_load(args.v[0], &f, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	/* one job per host: its first member names it */
	char **keys = xcalloc(f.n, sizeof(*keys));
	struct history_job *jobs = xcalloc(f.n, sizeof(*jobs));
	size_t *host_of_m = xcalloc(f.n, sizeof(*host_of_m));
	size_t nh = 0;
	for (size_t i = 0; i < f.n; i++) {
		char *k = fleet_host_key(&f.m[i]);
		size_t h;
		for (h = 0; h < nh; h++)
			if (!strcmp(keys[h], k))
				break;
		if (h == nh) {
			keys[nh] = k;
			jobs[nh] = (struct history_job){.c = &c, .m = &f.m[i], .timeout_ms = (long)timeout * 1000};
			nh++;
		} else {
			free(k);
		}
		host_of_m[i] = h;
	}
	fleet_ssh_each(nh, (unsigned)parallel, history_run, jobs, NULL);
	json_t *hosts = json_array(), *all = json_array();
	int unread = 0;
	for (size_t h = 0; h < nh; h++) {
		struct history_job *j = &jobs[h];
		const char *label = host_label(j->m);
		json_t *d = NULL;
		struct sb why = {0};
		if (j->err)
			sb_adds(&why, j->err);
		else if (!j->r.reached || j->r.timed_out || j->r.lost)
			sb_adds(&why, j->r.why ? j->r.why : "no answer");
		else if (!(d = json_loads(j->r.out.s ? j->r.out.s : "", 0, NULL))) {
			char *l = last_words(&j->r);
			sb_addf(&why, "zealot history on %s: exit %d: %s", label, j->r.status, l);
			free(l);
		}
		size_t count = 0, k;
		json_t *e;
		json_array_foreach(json_object_get(d, "eras"), k, e)
		{
			const char *ep = json_string_value(json_object_get(e, "endpoint"));
			int mine = 0;
			for (size_t i = 0; ep && i < f.n && !mine; i++)
				mine = host_of_m[i] == h && !strcmp(f.m[i].name, ep);
			if (!mine)
				continue;
			json_t *row = json_pack(
			    "{s:s,s:s,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}", "host", label, "endpoint", ep,
			    "id", json_object_get(e, "id"), "started", json_object_get(e, "started"), "ended",
			    json_object_get(e, "ended"), "current", json_object_get(e, "current"), "reason",
			    json_object_get(e, "reason"), "window", json_object_get(e, "window"), "shape",
			    json_object_get(e, "shape"), "runtime_build", json_object_get(e, "runtime_build"), "plan",
			    json_object_get(e, "plan"));
			if (row) {
				json_array_append_new(all, row);
				count++;
			}
		}
		unread |= why.len > 0;
		json_array_append_new(hosts,
				      json_pack("{s:s,s:b,s:o,s:I}", "host", label, "reachable", why.len == 0, "why",
						jstr_or_null(why.len ? why.s : NULL), "eras", (json_int_t)count));
		sb_release(&why);
		json_decref(d);
	}
	/* sorted by the time each began */
	size_t ne = json_array_size(all);
	json_t **v = xcalloc(ne ? ne : 1, sizeof(*v));
	for (size_t i = 0; i < ne; i++)
		v[i] = json_incref(json_array_get(all, i));
	qsort(v, ne, sizeof(*v), by_started);
	json_array_clear(all);
	for (size_t i = 0; i < ne; i++)
		json_array_append_new(all, v[i]);
	free(v);
	if (json) {
		json_t *o = json_pack("{s:s,s:o,s:o}", "fleet", args.v[0], "hosts", hosts, "eras", all);
		print_json(o);
		json_decref(o);
	} else {
		printf("fleet history %s: %zu era%s on %zu host%s\n\n", args.v[0], ne, ne == 1 ? "" : "s", nh,
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
	for (size_t h = 0; h < nh; h++) {
		fleet_ssh_result_release(&jobs[h].r);
		free(jobs[h].err);
		free(keys[h]);
	}
	free(keys);
	free(jobs);
	free(host_of_m);
	rc = unread ? EXIT_IO : EXIT_OK;
done:
	if (err)
		cmd_fail(rc, "fleet history: %s", err);
	free(err);
	fleet_free(&f);
	common_release(&c);
	opt_args_release(&args);
	return rc;
}
