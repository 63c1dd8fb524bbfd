/* ops: what the fleet operations share (this zealot, the hosts), fleet
 * deploy and fleet history; fleet status is status.c. See ops.h.
 */
#include "ops.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/fault.h"
#include "../base/file.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../deploy/deploy.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/url.h"
#include "ops_util.h"

int fleet_ops_init(struct fleet_ops *c, const char *cfg, const char *rz, unsigned connect_timeout, char **err)
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

void fleet_ops_release(struct fleet_ops *c)
{
	free(c->self);
	free(c->version);
}

const char *fleet_ops_zealot(const struct fleet_ops *c, const struct fleet_member *m)
{
	return m->remote ? c->remote_zealot : c->self;
}

const char *fleet_ops_host_label(const struct fleet_member *m)
{
	return host_label(m);
}

size_t fleet_ops_count_hosts(const struct fleet *f)
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

struct fleet_deploy_shared {
	pthread_mutex_t mu;
	int stop; /* a failure, without --keep-going: begin no more */
};

static int deploy_failed(const char *outcome)
{
	return strcmp(outcome, "deployed") != 0;
}

static int has_url(const struct fleet_member *m)
{
	static const enum key_id keys[] = {K_MODEL_FILE, K_MMPROJ_FILE, K_LORA_FILE};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (endpoint_has_url(m->ep, keys[i])) /* *_URL or *_URL_FILE */
			return 1;
	return 0;
}

/* Run a command's words (av) on the job's host; 0, or -1 with the job's
 * outcome (fails) and why when ssh could not be run. */
static int job_ssh(struct fleet_deploy_job *j, const struct host_dest *h, const char *const *av, long timeout_ms,
		   const char *fails, struct fleet_ssh_result *r)
{
	char *err = NULL;
	struct sb cmd = {0};
	fleet_ssh_words(&cmd, av);
	int rc = fleet_ssh_run(&j->c->ssh, h, cmd.s, NULL, 0, timeout_ms, r, &err);
	sb_release(&cmd);
	if (!rc)
		return 0;
	j->outcome = fails;
	j->why = err;
	return -1;
}

/* A remote member: the host's zealot is this one, and the endpoint file
 * goes to REMOTE-DIR/NAME.env (*path). 0, or -1 with the outcome set. */
static int deploy_copy(struct fleet_deploy_job *j, const struct host_dest *h, const char *hn, struct sb *path)
{
	struct fleet_ssh_result r = {0};
	char *err = NULL;
	/* the host's zealot is this one */
	const char *vav[] = {j->c->remote_zealot, "--version", NULL};
	if (job_ssh(j, h, vav, 60000, "unreachable", &r))
		goto fail;
	if (!r.reached || r.timed_out) {
		j->outcome = "unreachable";
		j->why = xstrdup(r.why ? r.why : "no answer");
		goto fail;
	}
	char *v = first_line(r.out.s);
	j->remote_version = v;
	if (r.status != 0 || strcmp(v, j->c->version) != 0) {
		struct sb w = {0};
		char *l = last_words(&r);
		if (r.status != 0)
			sb_addf(&w, "%s: '%s' does not run there (exit %d: %s); this is %s", hn, j->c->remote_zealot,
				r.status, l, j->c->version);
		else
			sb_addf(&w,
				"version skew: %s runs %s, this is %s: refused (install the same zealot "
				"on every host)",
				hn, v[0] ? v : "(nothing)", j->c->version);
		free(l);
		j->outcome = "version-skew";
		j->why = sb_detach(&w);
		goto fail;
	}
	fleet_ssh_result_release(&r);
	/* the endpoint file, on stdin */
	char *text = NULL;
	size_t len = 0;
	text = read_file(j->m->path, 1 << 20, 0, &len, NULL, &err);
	if (!text) {
		j->outcome = "error";
		j->why = err;
		err = NULL;
		goto fail;
	}
	sb_addf(path, "%s/%s.env", j->o->remote_dir, j->m->name);
	int prc = fleet_ssh_put(&j->c->ssh, h, text, len, path->s, 0600, 60000, &err);
	free(text);
	if (prc) {
		j->outcome = "copy-failed";
		j->why = err;
		err = NULL;
		goto fail;
	}
	return 0;
fail:
	free(err);
	fleet_ssh_result_release(&r);
	return -1;
}

static void deploy_job(size_t i, void *ctx)
{
	struct fleet_deploy_job *j = &((struct fleet_deploy_job *)ctx)[i];
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
	struct sb path = {0};
	if (!deploy_unit_name_ok(j->m->name)) {
		j->outcome = "refused";
		errorf(&j->why,
		       "'%s' is not a unit name systemd takes (letters, digits, ':', '_', '.', '-'; not first '-'): "
		       "refused before reaching %s",
		       j->m->name, hn);
		goto out;
	}
	if (j->m->remote) {
		if (deploy_copy(j, h, hn, &path))
			goto out;
	} else {
		sb_adds(&path, j->m->path);
	}
	/* the payloads, where the file names where they come from */
	if (j->o->fetch && has_url(j->m)) {
		const char *fav[] = {fleet_ops_zealot(j->c, j->m), "fetch", "--", path.s, NULL};
		if (job_ssh(j, h, fav, j->o->timeout_ms, "error", &r))
			goto out;
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
	const char *dav[] = {
	    fleet_ops_zealot(j->c, j->m), "deploy", "--reason", j->o->reason, "--json", "--", path.s, NULL};
	if (job_ssh(j, h, dav, j->o->timeout_ms, "error", &r))
		goto out;
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
	if (j->outcome && deploy_failed(j->outcome) && !j->o->keep_going) {
		pthread_mutex_lock(&j->sh->mu);
		j->sh->stop = 1;
		pthread_mutex_unlock(&j->sh->mu);
	}
	if (!j->outcome && r.status != 0 && !j->o->keep_going) {
		pthread_mutex_lock(&j->sh->mu);
		j->sh->stop = 1;
		pthread_mutex_unlock(&j->sh->mu);
	}
	fleet_ssh_result_release(&r);
	sb_release(&path);
	j->seconds = mono_s() - t0;
	fault_point("fleet", "after-endpoint");
}

/* The outcome of a deploy that ran, from its JSON. */
static void deploy_judge(struct fleet_deploy_job *j)
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

int fleet_ops_pick(const struct fleet *f, const char *only, char *pick, char **err)
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

struct fleet_deploy_job *fleet_ops_deploy(const struct fleet_ops *c, const struct fleet *f, const char *pick,
					  const struct fleet_deploy_opts *o, size_t *n, double *seconds)
{
	struct fleet_deploy_shared sh = {.stop = 0};
	pthread_mutex_init(&sh.mu, NULL);
	struct fleet_deploy_job *jobs = xcalloc(f->n ? f->n : 1, sizeof(*jobs));
	size_t k = 0;
	for (size_t i = 0; i < f->n; i++)
		if (pick[i])
			jobs[k++] = (struct fleet_deploy_job){.c = c, .m = &f->m[i], .o = o, .sh = &sh};
	double t0 = mono_s();
	fleet_ssh_each(k, o->parallel, deploy_job, jobs, NULL);
	*seconds = mono_s() - t0;
	pthread_mutex_destroy(&sh.mu);
	for (size_t i = 0; i < k; i++) {
		jobs[i].sh = NULL;
		deploy_judge(&jobs[i]);
	}
	*n = k;
	return jobs;
}

json_t *fleet_ops_deploy_row(const struct fleet_deploy_job *j)
{
	json_t *era = json_object_get(j->deploy, "era");
	json_t *law = json_object_get(j->deploy, "law");
	return json_pack("{s:s,s:s,s:s,s:O,s:f,s:o,s:O,s:o,s:o,s:O}", "endpoint", j->m->name, "host", host_label(j->m),
			 "outcome", j->outcome, "era", era ? era : json_null(), "seconds",
			 (double)(long)(j->seconds * 1000) / 1000, "failed_step", jstr_or_null(j->failed_step), "law",
			 law ? law : json_null(), "why", jstr_or_null(j->why), "remote_version",
			 jstr_or_null(j->remote_version), "deploy", j->deploy ? j->deploy : json_null());
}

void fleet_ops_deploy_free(struct fleet_deploy_job *jobs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(jobs[i].why);
		free(jobs[i].remote_version);
		free(jobs[i].failed_step);
		free(jobs[i].deploy_text);
		json_decref(jobs[i].deploy);
	}
	free(jobs);
}

struct history_job {
	const struct fleet_ops *c;
	const struct fleet_member *m; /* the host's first member */
	long timeout_ms;
	struct fleet_ssh_result r;
	char *err;
};

static void history_run(size_t i, void *ctx)
{
	struct history_job *j = &((struct history_job *)ctx)[i];
	struct sb cmd = {0};
	const char *av[] = {fleet_ops_zealot(j->c, j->m), "history", "--json", NULL};
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

/* The eras of one host's answer that belong to the fleet's members on it,
 * appended to all as rows; the count, or with *why what went wrong. */
static size_t history_eras(const struct fleet *f, const size_t *host_of_m, size_t h, struct history_job *j, json_t *all,
			   struct sb *why)
{
	const char *label = host_label(j->m);
	json_t *d = NULL;
	if (j->err)
		sb_adds(why, j->err);
	else if (!j->r.reached || j->r.timed_out || j->r.lost)
		sb_adds(why, j->r.why ? j->r.why : "no answer");
	else if (!(d = json_loads(j->r.out.s ? j->r.out.s : "", 0, NULL))) {
		char *l = last_words(&j->r);
		sb_addf(why, "zealot history on %s: exit %d: %s", label, j->r.status, l);
		free(l);
	}
	size_t count = 0, k;
	json_t *e;
	json_array_foreach(json_object_get(d, "eras"), k, e)
	{
		const char *ep = json_string_value(json_object_get(e, "endpoint"));
		int mine = 0;
		for (size_t i = 0; ep && i < f->n && !mine; i++)
			mine = host_of_m[i] == h && !strcmp(f->m[i].name, ep);
		if (!mine)
			continue;
		json_t *row =
		    json_pack("{s:s,s:s,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?,s:O?}", "host", label, "endpoint", ep,
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
	json_decref(d);
	return count;
}

int fleet_ops_history(const struct fleet_ops *c, const struct fleet *f, long timeout_ms, unsigned parallel,
		      json_t **hosts_out, json_t **eras_out)
{
	/* one job per host: its first member names it */
	char **keys = xcalloc(f->n ? f->n : 1, sizeof(*keys));
	struct history_job *jobs = xcalloc(f->n ? f->n : 1, sizeof(*jobs));
	size_t *host_of_m = xcalloc(f->n ? f->n : 1, sizeof(*host_of_m));
	size_t nh = 0;
	for (size_t i = 0; i < f->n; i++) {
		char *k = fleet_host_key(&f->m[i]);
		size_t h;
		for (h = 0; h < nh; h++)
			if (!strcmp(keys[h], k))
				break;
		if (h == nh) {
			keys[nh] = k;
			jobs[nh] = (struct history_job){.c = c, .m = &f->m[i], .timeout_ms = timeout_ms};
			nh++;
		} else {
			free(k);
		}
		host_of_m[i] = h;
	}
	fleet_ssh_each(nh, parallel, history_run, jobs, NULL);
	json_t *hosts = json_array(), *all = json_array();
	int unread = 0;
	for (size_t h = 0; h < nh; h++) {
		struct sb why = {0};
		size_t count = history_eras(f, host_of_m, h, &jobs[h], all, &why);
		unread |= why.len > 0;
		json_array_append_new(hosts, json_pack("{s:s,s:b,s:o,s:I}", "host", host_label(jobs[h].m), "reachable",
						       why.len == 0, "why", jstr_or_null(why.len ? why.s : NULL),
						       "eras", (json_int_t)count));
		sb_release(&why);
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
	for (size_t h = 0; h < nh; h++) {
		fleet_ssh_result_release(&jobs[h].r);
		free(jobs[h].err);
		free(keys[h]);
	}
	free(keys);
	free(jobs);
	free(host_of_m);
	*hosts_out = hosts;
	*eras_out = all;
	return unread;
}
