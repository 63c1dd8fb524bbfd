/* fleet status: every member's unit, era, contract probes, audit and card
 * memory, read on its host by one script (status_script) and its sections
 * read back into a row. */
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "ops.h"
#include "ops_util.h"

struct status_job {
	const struct fleet_ops *c;
	const struct fleet_member *m;
	const char *endpoint_dir;
	long timeout_ms;
	struct fleet_ssh_result r;
	char *err;
	double seconds;
};

static void status_script(struct sb *s, const struct fleet_ops *c, const struct fleet_member *m, const char *edir,
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
	quote_shell(s, fleet_ops_zealot(c, m));
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

/* the unit */
static int status_unit(json_t *row, const char *out, const struct fleet_member *m)
{
	int rc;
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
	return unit_up;
}

/* the current era */
static json_t *status_era(json_t *row, const char *out)
{
	int rc;
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
	return plan_mib;
}

/* the contract probes */
static void status_probes(json_t *row, const char *out, int *health_out, int *failed_out)
{
	int rc;
	size_t k;
	json_t *e;
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
	*health_out = health;
	*failed_out = probe_failed;
}

/* the audit */
static long long status_audit(json_t *row, const char *out)
{
	int rc;
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
	return div;
}

/* the card's memory */
static void status_memory(json_t *row, const char *out, const struct fleet_member *m, json_t *plan_mib)
{
	int rc;
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
	free(nv);
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

	int unit_up = status_unit(row, out, m);
	json_t *plan_mib = status_era(row, out);
	int health = 0, probe_failed = 0;
	status_probes(row, out, &health, &probe_failed);
	long long div = status_audit(row, out);
	status_memory(row, out, m, plan_mib);
	json_decref(plan_mib);

	if (!unit_up || !health)
		state = "down";
	else if (probe_failed || div != 0)
		state = "diverges";
	json_object_set_new(row, "state", json_string(state));
	json_object_set_new(row, "why", json_null());
	*state_out = state;
	return row;
}

json_t *fleet_ops_status(const struct fleet_ops *c, const struct fleet *f, const char *endpoint_dir, long timeout_ms,
			 unsigned parallel, size_t *healthy)
{
	struct status_job *jobs = xcalloc(f->n ? f->n : 1, sizeof(*jobs));
	for (size_t i = 0; i < f->n; i++) {
		jobs[i].c = c;
		jobs[i].m = &f->m[i];
		jobs[i].endpoint_dir = endpoint_dir;
		jobs[i].timeout_ms = timeout_ms;
		if (name_refused(&f->m[i]))
			jobs[i].err = xstrdup("an endpoint name that begins with '-' is refused");
	}
	fleet_ssh_each(f->n, parallel, status_run, jobs, NULL);
	json_t *rows = json_array();
	*healthy = 0;
	for (size_t i = 0; i < f->n; i++) {
		const char *state = "unreachable";
		json_t *row = status_row(&jobs[i], &state);
		*healthy += !strcmp(state, "healthy");
		json_array_append_new(rows, row);
	}
	for (size_t i = 0; i < f->n; i++) {
		fleet_ssh_result_release(&jobs[i].r);
		free(jobs[i].err);
	}
	free(jobs);
	return rows;
}
