/* deploy: the attempt (see deploy.h): the lock, the eras a deploy replaces
 * and brings back, the order of the steps and the outcome. The steps are
 * gates.c's, restart.c's, verify.c's and restore.c's (deploy_int.h). */
#include "deploy.h"

#include <string.h>
#include <unistd.h>

#include "../base/fault.h"
#include "../judge/emit.h"
#include "../live/audit.h"
#include "deploy_int.h"
#include "install.h"

const char *deploy_outcome_name(enum deploy_outcome o)
{
	switch (o) {
	case DEPLOY_DEPLOYED: return "deployed";
	case DEPLOY_REFUSED: return "refused";
	case DEPLOY_ROLLED_BACK: return "rolled-back";
	case DEPLOY_ROLLBACK_FAILED: return "rollback-failed";
	case DEPLOY_ERROR: return "error";
	case DEPLOY_FAILED: return "failed";
	}
	return "error";
}

int deploy_step_add(const struct deploy_steps *b, const char *name, const char *status, double t, const char *law,
		    const char *fmt, va_list ap)
{
	*b->v = xreallocarray(*b->v, *b->n + 1, sizeof(**b->v));
	struct deploy_step *s = &(*b->v)[(*b->n)++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->status = status;
	s->seconds = mono_s() - t;
	snprintf(s->law, sizeof(s->law), "%s", law ? law : "");
	s->detail = xvstrf(fmt, ap);
	if (b->attempt > 0) {
		struct sb rec = {0};
		sb_addf(&rec, "%s%s%s", s->law, s->law[0] ? ": " : "", s->detail);
		char *err = NULL;
		store_attempt_step(b->st, b->attempt, name, status, s->seconds, rec.s, &err);
		free(err); /* the record is evidence, not a gate: a full disk must not stop a restore */
		sb_release(&rec);
	}
	if (b->on_step)
		b->on_step(s, b->arg);
	if (strcmp(status, "failed") == 0 && !*b->failed_step) {
		*b->failed_step = name;
		snprintf(b->law, 8, "%s", s->law);
		free(*b->why);
		*b->why = xstrdup(s->detail);
	}
	return strcmp(status, "ok") == 0 || strcmp(status, "warning") == 0 || strcmp(status, "skipped") == 0 ? 0 : -1;
}

char *deploy_endpoint_name(const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".env") == 0)
		n -= 4;
	return xstrndup(b, n);
}

char *deploy_cmdline_of(long pid)
{
	size_t n = 0;
	char **v = audit_read_vector((pid_t)pid, "cmdline", &n);
	struct sb b = {0};
	sb_adds(&b, "");
	for (size_t i = 0; i < n && b.len < 200; i++)
		sb_addf(&b, "%s%s", i ? " " : "", v[i]);
	audit_free_vector(v, n);
	if (!b.len)
		sb_adds(&b, "(unreadable)");
	return sb_detach(&b);
}

/* The endpoint's address as a client on this host reaches it. */
char *deploy_http_base(const struct endpoint *ep, unsigned port)
{
	const char *b = endpoint_value(ep, K_BIND_ADDR);
	struct sb s = {0};
	if (!b || !*b || strcmp(b, "0.0.0.0") == 0)
		b = "127.0.0.1";
	if (strcmp(b, "::") == 0)
		b = "::1";
	if (strchr(b, ':'))
		sb_addf(&s, "http://[%s]:%u", b, port);
	else
		sb_addf(&s, "http://%s:%u", b, port);
	return sb_detach(&s);
}

static void alias_change(struct run *x)
{
	if (!x->have_prev || !x->prev.env_text)
		return;
	char *err = NULL;
	struct endpoint *old = endpoint_parse(x->prev.env_text, strlen(x->prev.env_text), x->r->env_path, &err);
	free(err);
	if (!old)
		return;
	const char *a = endpoint_value(old, K_ALIAS), *b = endpoint_value(x->ep, K_ALIAS);
	if (a && b && strcmp(a, b) != 0)
		warn(x,
		     "C06: the alias changes from '%s' (era %lld) to '%s': the engine echoes any id, so clients keyed "
		     "on '%s' break silently; update them",
		     a, (long long)x->prev.id, b, a);
	endpoint_free(old);
}

/* CTX_SIZE / PARALLEL of an endpoint, or 0 when either is unknown. */
static uint64_t slot_window(const struct endpoint *ep)
{
	uint64_t ctx = 0, par = 0;
	if (endpoint_uint(ep, K_CTX_SIZE, &ctx, NULL) || endpoint_uint(ep, K_PARALLEL, &par, NULL) || !par)
		return 0;
	return ctx / par;
}

/* An era that changes the per-slot window names what must follow it: the
 * harness entry and every consumer keyed on the alias that carries a window
 * (the seeds': models.yml's contextWindow, the OpenWebUI model row). */
static void window_change(struct run *x)
{
	if (!x->have_prev || !x->prev.env_text)
		return;
	char *err = NULL;
	struct endpoint *old = endpoint_parse(x->prev.env_text, strlen(x->prev.env_text), x->r->env_path, &err);
	free(err);
	if (!old)
		return;
	uint64_t a = slot_window(old), b = slot_window(x->ep);
	const char *id = endpoint_value(x->ep, K_ALIAS);
	if (a && b && a != b)
		warn(x,
		     "M03: the per-slot window changes from %llu (era %lld) to %llu: the harness entry '%s' (zealot "
		     "emit harness) must say contextWindow: %llu, and every consumer keyed on '%s' that carries a "
		     "window (models.yml's contextWindow, an OpenWebUI model row) must follow%s; zealot check "
		     "--harness FILE holds a file to it",
		     (unsigned long long)a, (long long)x->prev.id, (unsigned long long)b, id ? id : x->name,
		     (unsigned long long)b, id ? id : x->name,
		     b < a ? " (a client still told the old window gets HTTP 400 past the new one)" : "");
	endpoint_free(old);
}

/* Attempts that never ended and whose process no longer holds the lock
 * were cut short (a kill -9, a crash, a reboot). Read before taking the
 * lock, which marks them interrupted for good. */
static void interrupted_before(struct run *x)
{
	struct store_attempt *v = NULL;
	size_t n = 0;
	char *err = NULL;
	if (store_attempt_list(x->st, x->name, &v, &n, &err) == 0)
		for (size_t i = 0; i < n; i++)
			if (v[i].outcome && strcmp(v[i].outcome, "interrupted") == 0 && v[i].ended == 0)
				warn(x,
				     "attempt %lld (%s, pid %lld) was interrupted%s%s: the installed files may be its; "
				     "this %s rewrites them",
				     (long long)v[i].id, v[i].kind, (long long)v[i].pid,
				     v[i].n_steps ? " after step " : "",
				     v[i].n_steps ? v[i].steps[v[i].n_steps - 1].step : "", x->o->kind);
	free(err);
	store_attempts_free(v, n);
}

static enum deploy_outcome finish(struct run *x, enum deploy_outcome oc)
{
	x->r->outcome = oc;
	x->r->seconds = mono_s() - x->t0;
	if (x->r->attempt > 0) {
		char *err = NULL;
		int restore = strcmp(x->o->kind, "restore") == 0;
		store_attempt_end(x->st, x->r->attempt,
				  restore && oc == DEPLOY_DEPLOYED ? "restored" : deploy_outcome_name(oc),
				  oc == DEPLOY_DEPLOYED ? x->r->era : 0, &err);
		free(err);
	}
	return oc;
}

static enum deploy_outcome failed_after_install(struct run *x)
{
	if (strcmp(x->o->kind, "restore") == 0) {
		/* the era itself is what failed: there is nothing older to put back */
		x->r->host_state = deploy_host_state(x);
		return finish(x, DEPLOY_ROLLBACK_FAILED);
	}
	if (!x->installed)
		return finish(x, DEPLOY_REFUSED);
	if (deploy_restore(x) == 0)
		return finish(x, x->have_prev || x->was_active ? DEPLOY_ROLLED_BACK : DEPLOY_FAILED);
	x->r->host_state = deploy_host_state(x);
	return finish(x, DEPLOY_ROLLBACK_FAILED);
}

/* The era's whole endpoint file, its secret values included (the store
 * keeps them apart from its text): from the store's secrets, else from the
 * installed file when that is the era's. 0, or -1 with the gate failed. */
static int era_secrets(struct run *x, struct store_era *e, double t)
{
	const char *envp = e->endpoint_path && *e->endpoint_path ? e->endpoint_path : x->r->env_path;
	size_t len = 0;
	char *err = NULL, *live = install_read(envp, &len, NULL);
	int rc = store_era_secrets(x->st, e, live && strlen(live) == len ? live : NULL, &err);
	free(live);
	if (rc)
		step(x, "gate:era", "failed", t, NULL, "%s", err);
	free(err);
	return rc;
}

/* The endpoint's current era, the one a failed deploy restores (its
 * secrets at hand). 0, or -1 with *oc the outcome. */
static int current_era(struct run *x, double t, enum deploy_outcome *oc)
{
	char *err = NULL;
	int got = store_era_get(x->st, x->name, 0, &x->prev, &err);
	if (got < 0) {
		step(x, "gate:era", "failed", t, NULL, "%s", err);
		free(err);
		*oc = finish(x, DEPLOY_ERROR);
		return -1;
	}
	x->have_prev = got == 0;
	x->r->previous_era = x->have_prev ? x->prev.id : 0;
	if (x->have_prev && era_secrets(x, &x->prev, t)) {
		*oc = finish(x, DEPLOY_REFUSED);
		return -1;
	}
	return 0;
}

/* A rollback's era: the one named, else the one before the current one;
 * its file is what deploys. 0, or -1 with *oc the outcome. */
static int target_era(struct run *x, double t, enum deploy_outcome *oc)
{
	int64_t want = x->o->era ? x->o->era : strcmp(x->o->kind, "restore") == 0 ? 0 : -1;
	char *err = NULL;
	int got = store_era_get(x->st, x->name, want, &x->target, &err);
	if (got != 0 || (x->o->era && x->target.endpoint && strcmp(x->target.endpoint, x->name) != 0)) {
		if (got < 0)
			step(x, "gate:era", "failed", t, NULL, "%s", err);
		else if (want == -1)
			step(x, "gate:era", "failed", t, NULL, "%s has no era before the current one%s", x->name,
			     x->have_prev ? "" : " (it has never been deployed)");
		else
			step(x, "gate:era", "failed", t, NULL, "%s has no era %lld (zealot history %s)", x->name,
			     (long long)want, x->name);
		*oc = finish(x, got < 0 ? DEPLOY_ERROR : DEPLOY_REFUSED);
		free(err);
		return -1;
	}
	if (era_secrets(x, &x->target, t)) {
		*oc = finish(x, DEPLOY_REFUSED);
		return -1;
	}
	x->have_target = 1;
	if (!x->o->reason) {
		free(x->reason);
		struct sb rs = {0};
		sb_addf(&rs, "%s era %lld", strcmp(x->o->kind, "restore") == 0 ? "restore" : "rollback to",
			(long long)x->target.id);
		x->reason = sb_detach(&rs);
	}
	x->src_path = xstrdup(x->target.endpoint_path ? x->target.endpoint_path : x->r->env_path);
	step(x, "gate:era", "ok", t, NULL, "era %lld (%s), current: %s", (long long)x->target.id,
	     x->target.reason ? x->target.reason : "", x->have_prev ? "" : "none");
	if (x->have_prev && x->prev.id == x->target.id)
		warn(x, "era %lld is the current era: this redeploys it", (long long)x->target.id);
	free(err);
	return 0;
}

static void run_release(struct run *x)
{
	if (x->o->lock_fd <= 0)
		store_unlock(x->lock_fd);
	free(x->name);
	free(x->reason);
	free(x->src_path);
	free(x->env_text);
	endpoint_free(x->ep);
	shape_release(&x->sc);
	argv_release(&x->argv);
	free(x->unit_text);
	free(x->pins_json);
	free(x->runtime);
	free(x->runtime_version);
	free(x->http_base);
	free(x->api_key);
	store_era_release(&x->prev);
	store_era_release(&x->target);
	free(x->old_unit);
	free(x->old_env);
	systemd_unit_release(&x->unit);
	free(x->ledger);
	probe_results_release(&x->probes);
	deploy_router_release(x);
}

/* The endpoint's name, its unit's name and path, its installed file's. */
static void name_paths(struct run *x, int rollback)
{
	const struct deploy_opts *o = x->o;
	struct deploy_result *r = x->r;
	if (rollback) {
		x->name = deploy_endpoint_name(o->endpoint_path);
	} else {
		char *abs = realpath(o->endpoint_path, NULL);
		x->src_path = abs ? abs : xstrdup(o->endpoint_path);
		x->name = deploy_endpoint_name(x->src_path);
	}
	r->endpoint = xstrdup(x->name);
	struct sb p = {0};
	sb_addf(&p, "%s.service", x->name);
	r->unit_name = sb_detach(&p);
	sb_addf(&p, "%s/%s", o->unit_dir ? o->unit_dir : "/etc/systemd/system", r->unit_name);
	r->unit_path = sb_detach(&p);
	sb_addf(&p, "%s/%s.env", o->env_dir ? o->env_dir : "/etc/zealot", x->name);
	r->env_path = sb_detach(&p);
}

enum deploy_outcome deploy_run(struct store *st, const struct deploy_opts *o, struct deploy_result *r)
{
	memset(r, 0, sizeof(*r));
	struct run xs = {0}, *x = &xs;
	x->st = st;
	x->o = o;
	x->r = r;
	x->lock_fd = -1;
	x->t0 = mono_s();
	enum deploy_outcome oc = DEPLOY_ERROR;
	int restore = strcmp(o->kind, "restore") == 0;
	int rollback = restore || strcmp(o->kind, "rollback") == 0; /* both bring back a recorded era */
	const char *fa = restore ? "arm-restore" : rollback ? "rollback" : "deploy"; /* the fault points' area */
	char *err = NULL;

	name_paths(x, rollback);

	double t = mono_s();
	if (store_name_ok(x->name, &err)) {
		step(x, "lock", "failed", t, "C01", "%s", err);
		oc = finish(x, DEPLOY_REFUSED);
		goto out;
	}
	interrupted_before(x);
	x->lock_fd = o->lock_fd > 0 ? o->lock_fd : store_lock(st, x->name, &err);
	x->reason = xstrdup(o->reason ? o->reason : o->kind);
	r->attempt = store_attempt_begin(st, x->name, o->kind, x->reason, NULL);
	if (x->lock_fd < 0) {
		step(x, "lock", "failed", t, NULL, "%s", err);
		oc = finish(x, DEPLOY_REFUSED);
		goto out;
	}
	step(x, "lock", "ok", t, NULL, "%s held by pid %ld", x->name, (long)getpid());
	fault_point(fa, "after-lock");
	deploy_clean_arm_left(x);

	t = mono_s();
	if (current_era(x, t, &oc) || (rollback && target_era(x, t, &oc)))
		goto out;

	/* gates: nothing is changed until every one has passed */
	if (deploy_gates_shape(x)) {
		oc = finish(x, DEPLOY_REFUSED);
		goto out;
	}
	t = mono_s();
	if (systemd_show(r->unit_name, &x->unit, &err)) {
		step(x, "gate:unit", "failed", t, NULL, "cannot ask systemd about %s: %s", r->unit_name, err);
		oc = finish(x, DEPLOY_ERROR);
		goto out;
	}
	x->was_active = strcmp(x->unit.active, "active") == 0;
	x->old_main_pid = x->unit.main_pid;
	if (deploy_gates_host(x)) {
		oc = finish(x, DEPLOY_REFUSED);
		goto out;
	}
	alias_change(x);
	window_change(x);
	fault_point(fa, "after-gates");

	if (restore) {
		if (deploy_same_files(x) || deploy_restart(x, "restart", mono_s())) {
			oc = failed_after_install(x);
			goto out;
		}
		goto started;
	}
	/* install */
	x->old_unit = install_read(r->unit_path, &x->old_unit_len, NULL);
	x->old_env = install_read(r->env_path, &x->old_env_len, NULL);
	x->unit_text = emit_unit(x->ep, o->zealot, r->env_path, NULL);
	if (deploy_install(x)) {
		oc = failed_after_install(x);
		goto out;
	}
	fault_point(fa, "after-install");
	t = mono_s();
	if (deploy_restart(x, "restart", t)) {
		oc = failed_after_install(x);
		goto out;
	}
started:
	fault_point(fa, "after-restart");
	if (deploy_verify(x)) {
		oc = failed_after_install(x);
		goto out;
	}
	fault_point(fa, "after-verify");
	if (restore ? deploy_record_boot(x) : deploy_record(x)) {
		/* it serves, verified, but the store could not say so: the files
		 * stay (restoring would take down a good engine); the next deploy
		 * sees an era behind the files */
		oc = finish(x, DEPLOY_ERROR);
		goto out;
	}
	fault_point(fa, "after-record");
	oc = finish(x, DEPLOY_DEPLOYED);
out:
	free(err);
	run_release(x);
	return oc;
}

void deploy_log_release(struct deploy_step *steps, size_t n_steps, char **warnings, size_t n_warnings)
{
	for (size_t i = 0; i < n_steps; i++)
		free(steps[i].detail);
	free(steps);
	for (size_t i = 0; i < n_warnings; i++)
		free(warnings[i]);
	free(warnings);
}

void deploy_result_release(struct deploy_result *r)
{
	if (!r)
		return;
	deploy_log_release(r->steps, r->n_steps, r->warnings, r->n_warnings);
	free(r->endpoint);
	free(r->unit_path);
	free(r->env_path);
	free(r->unit_name);
	free(r->why);
	free(r->cause);
	free(r->host_state);
	memset(r, 0, sizeof(*r));
}
