/* rename: an endpoint renamed with its history (rename.h). */
#include "rename.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/fault.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../judge/emit.h"
#include "../live/http.h"
#include "deploy.h"
#include "install.h"
#include "systemd.h"

struct ren {
	struct store *st;
	const struct rename_opts *o;
	struct rename_result *r;
	char *from_unit_path, *to_unit_path;
	char *env_text; /* FROM's installed file */
	size_t env_len;
	char *unit_text; /* TO's unit */
	char *http_base;
	struct store_era era;
};

static void say(struct ren *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct ren *x, const char *fmt, ...)
{
	struct sb b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&b, fmt, ap);
	va_end(ap);
	x->r->steps = xreallocarray(x->r->steps, x->r->n_steps + 1, sizeof(*x->r->steps));
	x->r->steps[x->r->n_steps++] = sb_detach(&b);
}

static enum rename_outcome why(struct ren *x, enum rename_outcome oc, char *err, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static enum rename_outcome why(struct ren *x, enum rename_outcome oc, char *err, const char *fmt, ...)
{
	struct sb b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&b, fmt, ap);
	va_end(ap);
	if (err)
		sb_addf(&b, ": %s", err);
	free(err);
	free(x->r->why);
	x->r->why = sb_detach(&b);
	return x->r->outcome = oc;
}

/* Whether path holds exactly text (absent: -1, differs: 0, same: 1). */
static int holds(const char *path, const char *text, size_t len)
{
	size_t n = 0;
	char *have = install_read(path, &n, NULL);
	int rc = !have ? -1 : n == len && memcmp(have, text, len) == 0;
	free(have);
	return rc;
}

static void paths(struct ren *x)
{
	const struct rename_opts *o = x->o;
	const char *ud = o->unit_dir ? o->unit_dir : "/etc/systemd/system",
		   *ed = o->env_dir ? o->env_dir : "/etc/zealot";
	x->r->from_unit = xstrf("%s.service", o->from);
	x->r->to_unit = xstrf("%s.service", o->to);
	x->r->from_env = xstrf("%s/%s.env", ed, o->from);
	x->r->to_env = xstrf("%s/%s.env", ed, o->to);
	x->from_unit_path = xstrf("%s/%s", ud, x->r->from_unit);
	x->to_unit_path = xstrf("%s/%s", ud, x->r->to_unit);
}

/* TO's unit text and address from FROM's installed file. 0, or -1. */
static int emit_to(struct ren *x, char **err)
{
	struct endpoint *ep = endpoint_parse(x->env_text, x->env_len, x->r->to_env, err);
	if (!ep)
		return -1;
	x->unit_text = emit_unit(ep, x->o->zealot, x->r->to_env, NULL);
	uint64_t port = 0;
	char *perr = NULL;
	endpoint_uint(ep, K_LISTEN_PORT, &port, &perr);
	free(perr);
	x->http_base = deploy_http_base(ep, (unsigned)port);
	endpoint_free(ep);
	return 0;
}

/* TO is free, or holds only this rename's own files (a cut run's). */
static int to_free(struct ren *x)
{
	char *err = NULL;
	struct store_era *v = NULL;
	size_t n = 0;
	if (store_era_list(x->st, x->o->to, &v, &n, &err))
		return why(x, RENAME_REFUSED, err, "cannot read the store"), -1;
	store_eras_free(v, n);
	if (n)
		return why(x, RENAME_REFUSED, NULL, "%s is taken: the store holds %zu era(s) of it", x->o->to, n), -1;
	int env = holds(x->r->to_env, x->env_text, x->env_len);
	int unit = holds(x->to_unit_path, x->unit_text, strlen(x->unit_text));
	if (env == 0 || unit == 0)
		return why(x, RENAME_REFUSED, NULL, "%s is taken: %s exists and is not %s's", x->o->to,
			   env == 0 ? x->r->to_env : x->to_unit_path, x->o->from),
		       -1;
	struct systemd_unit u;
	if (unit < 0 && systemd_show(x->r->to_unit, &u, &err) == 0) {
		int loaded = strcmp(u.load, "not-found") != 0 && *u.load;
		systemd_unit_release(&u);
		if (loaded)
			return why(x, RENAME_REFUSED, NULL, "%s is taken: systemd has a unit %s (%s)", x->o->to,
				   x->r->to_unit, "not in the unit directory"),
			       -1;
	}
	free(err);
	x->r->resumed = env > 0 || unit > 0;
	return 0;
}

/* Both names are endpoint names, TO a unit name too. 0, or -1 refused. */
static int names(struct ren *x)
{
	const struct rename_opts *o = x->o;
	char *err = NULL;
	if (store_name_ok(o->to, &err) || !deploy_unit_name_ok(o->to) || strcmp(o->from, o->to) == 0)
		return why(x, RENAME_REFUSED, err, "'%s' is not a new endpoint name%s", o->to,
			   strcmp(o->from, o->to) == 0 ? " (it is the old one)"
			   : err		       ? ""
						       : " (systemd takes no such unit name)"),
		       -1;
	if (store_name_ok(o->from, &err))
		return why(x, RENAME_REFUSED, err, "'%s' is not an endpoint name", o->from), -1;
	return 0;
}

/* The gates: names, FROM deployed, TO free. 0, 1 (only FROM's files are
 * left to retire: a cut run recorded already), or -1 refused. */
static int gates(struct ren *x)
{
	const struct rename_opts *o = x->o;
	char *err = NULL;
	x->env_text = install_read(x->r->from_env, &x->env_len, &err);
	int got = store_era_get(x->st, o->from, 0, &x->era, err ? NULL : &err);
	if (got < 0 || err)
		return why(x, RENAME_REFUSED, err, "cannot read %s's state", o->from), -1;
	if (got == 1) {
		struct store_era cur;
		int done = x->env_text && store_era_get(x->st, o->to, 0, &cur, NULL) == 0 &&
			   holds(x->r->to_env, x->env_text, x->env_len) > 0;
		if (done)
			x->r->era = cur.id, store_era_release(&cur);
		return done ? (x->r->resumed = 1)
			    : (why(x, RENAME_REFUSED, NULL,
				   "%s has no current era: zealot "
				   "deployed no endpoint of that name",
				   o->from),
			       -1);
	}
	x->r->era = x->era.id;
	char *members = NULL;
	if (store_era_members_get(x->st, x->era.id, &members, NULL) == 0) {
		free(members);
		return why(x, RENAME_REFUSED, NULL, "%s is a router: renaming a router is not supported", o->from), -1;
	}
	if (!x->env_text)
		return why(x, RENAME_REFUSED, NULL, "%s is not installed (%s is absent)", o->from, x->r->from_env), -1;
	if (emit_to(x, &err))
		return why(x, RENAME_REFUSED, err, "%s", x->r->from_env), -1;
	return to_free(x);
}

/* /health 200 from the endpoint (FROM's and TO's address is one) while
 * unit stays up. */
static int wait_health(struct ren *x, const char *unit, char **err)
{
	struct http_client hc = {x->http_base, NULL, 2000};
	double t = mono_s(),
	       deadline = t + (double)(x->o->boot_timeout_ms > 0 ? x->o->boot_timeout_ms : 300000) / 1000.0;
	long last = 0;
	while (mono_s() < deadline) {
		struct systemd_unit u;
		if (systemd_show(unit, &u, NULL) == 0) {
			int up = (strcmp(u.active, "active") == 0 || strcmp(u.active, "activating") == 0) &&
				 strcmp(u.sub, "auto-restart") != 0;
			if (!up)
				errorf(err, "%s is %s/%s (%s, status %d)", unit, u.active, u.sub, u.result,
				       u.exec_main_status);
			systemd_unit_release(&u);
			if (!up)
				return -1;
		}
		struct http_response resp;
		if (http_request(&hc, "GET", "/health", NULL, &resp) == 0)
			last = resp.status;
		http_response_release(&resp);
		if (last == 200) {
			say(x, "%s: %s serves, /health 200 after %.1f s", unit == x->r->to_unit ? "start" : "restore",
			    unit, mono_s() - t);
			return 0;
		}
		usleep(200000);
	}
	return errorf(err, "%s did not answer /health 200 within %.0f s (last: %ld)", x->http_base, mono_s() - t, last);
}

/* TO stopped and its files removed, FROM enabled and started again. */
static enum rename_outcome put_back(struct ren *x, char *err, const char *what)
{
	char *e2 = NULL;
	systemd_ctl("disable", x->r->to_unit, 60000, NULL);
	systemd_ctl("stop", x->r->to_unit, 300000, NULL);
	systemd_ctl("reset-failed", x->r->to_unit, 60000, NULL);
	int bad = install_remove(x->to_unit_path, &e2) || install_remove(x->r->to_env, &e2) ||
		  systemd_ctl("daemon-reload", NULL, 60000, &e2) ||
		  systemd_ctl("enable", x->r->from_unit, 60000, &e2) ||
		  systemd_ctl("start", x->r->from_unit, 300000, &e2) || wait_health(x, x->r->from_unit, &e2);
	say(x, "restore: %s", bad ? e2 : "the new unit's files removed, the old unit started again");
	if (bad)
		return why(x, RENAME_FAILED, err, "%s, and %s could not be started again (%s)", what, x->r->from_unit,
			   e2 ? e2 : "?");
	free(e2);
	return why(x, RENAME_ROLLED_BACK, err, "%s; %s serves again", what, x->r->from_unit);
}

static enum rename_outcome dry(struct ren *x)
{
	say(x, "install: would write %s and %s/%s, daemon-reload", x->r->to_env,
	    x->o->unit_dir ? x->o->unit_dir : "/etc/systemd/system", x->r->to_unit);
	say(x, "stop: would disable and stop %s", x->r->from_unit);
	say(x, "start: would enable and start %s, wait for /health 200 at %s", x->r->to_unit, x->http_base);
	say(x, "record: would move era %lld and the rest of %s's history to %s", (long long)x->r->era, x->o->from,
	    x->o->to);
	say(x, "retire: would remove %s and %s", x->from_unit_path, x->r->from_env);
	return x->r->outcome = RENAME_DRY_RUN;
}

/* install, stop, start, record. */
static enum rename_outcome move(struct ren *x)
{
	char *err = NULL;
	if (install_env(x->r->to_env, x->env_text, x->env_len, x->r->from_env, &err) ||
	    install_write(x->to_unit_path, x->unit_text, strlen(x->unit_text), 0644, &err) ||
	    systemd_ctl("daemon-reload", NULL, 60000, &err)) {
		install_remove(x->to_unit_path, NULL);
		install_remove(x->r->to_env, NULL);
		return why(x, RENAME_REFUSED, err, "cannot install %s", x->o->to);
	}
	say(x, "install: %s and %s", x->r->to_env, x->to_unit_path);
	fault_point("rename", "after-install");
	systemd_ctl("disable", x->r->from_unit, 60000, NULL);
	if (systemd_ctl("stop", x->r->from_unit, 300000, &err))
		return put_back(x, err, "cannot stop the old unit");
	say(x, "stop: %s disabled and stopped", x->r->from_unit);
	fault_point("rename", "after-stop");
	if (systemd_ctl("enable", x->r->to_unit, 60000, &err) || systemd_ctl("start", x->r->to_unit, 300000, &err) ||
	    wait_health(x, x->r->to_unit, &err))
		return put_back(x, err, "the new unit did not serve");
	fault_point("rename", "after-start");
	struct store_rename sr = {x->o->from, x->o->to, x->r->from_env, x->r->to_env, x->r->to_unit, x->unit_text};
	if (store_rename(x->st, &sr, &x->r->n_eras, &err))
		return put_back(x, err, "cannot move the history");
	say(x, "record: %zu era(s) of %s are %s's; era %lld is current", x->r->n_eras, x->o->from, x->o->to,
	    (long long)x->r->era);
	fault_point("rename", "after-record");
	return RENAME_RENAMED;
}

/* FROM's unit and file removed. */
static enum rename_outcome retire(struct ren *x)
{
	char *err = NULL;
	systemd_ctl("disable", x->r->from_unit, 60000, NULL);
	if (install_remove(x->from_unit_path, &err) || install_remove(x->r->from_env, &err) ||
	    systemd_ctl("daemon-reload", NULL, 60000, &err))
		return why(x, RENAME_FAILED, err, "%s serves with its history, but %s's files could not be removed",
			   x->o->to, x->o->from);
	systemd_ctl("reset-failed", x->r->from_unit, 60000, NULL);
	say(x, "retire: %s and %s removed", x->from_unit_path, x->r->from_env);
	return x->r->outcome = RENAME_RENAMED;
}

enum rename_outcome rename_run(struct store *st, const struct rename_opts *o, struct rename_result *r)
{
	memset(r, 0, sizeof(*r));
	struct ren x = {.st = st, .o = o, .r = r};
	paths(&x);
	char *err = NULL;
	int lf = -1, lt = -1, g = -1;
	if (names(&x))
		;
	else if ((lf = store_lock(st, o->from, &err)) < 0 || (lt = store_lock(st, o->to, &err)) < 0)
		why(&x, RENAME_REFUSED, err, "cannot take the lock");
	else if ((g = gates(&x)) < 0)
		;
	else if (g == 1) {
		say(&x, "record: done by an earlier run (%s's era %lld is current)", o->to, (long long)r->era);
		r->outcome = o->dry_run ? RENAME_DRY_RUN : RENAME_RENAMED;
	} else if (o->dry_run)
		dry(&x);
	else if (move(&x) != RENAME_RENAMED)
		g = -1;
	if (g >= 0 && !o->dry_run)
		retire(&x);
	if (lt >= 0)
		store_unlock(lt);
	if (lf >= 0)
		store_unlock(lf);
	store_era_release(&x.era);
	free(x.from_unit_path);
	free(x.to_unit_path);
	free(x.env_text);
	free(x.unit_text);
	free(x.http_base);
	return r->outcome;
}

void rename_result_release(struct rename_result *r)
{
	free(r->from_unit);
	free(r->to_unit);
	free(r->from_env);
	free(r->to_env);
	for (size_t i = 0; i < r->n_steps; i++)
		free(r->steps[i]);
	free(r->steps);
	free(r->why);
	memset(r, 0, sizeof(*r));
}

const char *rename_outcome_name(enum rename_outcome o)
{
	static const char *const names[] = {"renamed", "dry-run", "refused", "rolled-back", "failed"};
	return (unsigned)o < ARRAY_SIZE(names) ? names[o] : "?";
}
