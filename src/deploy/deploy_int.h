/* deploy_int: what the deploy's files share, private to src/deploy/ (as
 * SQLite keeps btreeInt.h beside btree.c): one attempt's state and its
 * steps. deploy.c runs the attempt (deploy_run); gates.c, restart.c,
 * verify.c and restore.c are its steps, in that order. Nothing outside
 * src/deploy/ includes this header. */
#ifndef ZEALOT_DEPLOY_INT_H
#define ZEALOT_DEPLOY_INT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../live/probe.h"
#include "../plan/router.h"
/* deploy.h first: this header uses its types (and including it here would
 * make a circle of deploy.h and this, which tests/layers.py refuses) */
#include "systemd.h"

/* Everything one attempt holds. */
struct run {
	struct store *st;
	const struct deploy_opts *o;
	struct deploy_result *r;
	int lock_fd;
	double t0;

	/* the shape to install */
	char *name;
	char *src_path; /* the endpoint file as given (deploy) or as installed (rollback) */
	char *env_text; /* what is installed: the source with absolute paths */
	struct endpoint *ep;
	struct shape_ctx sc;
	struct plan plan;	/* what is gated: calibrated from a recorded boot when one matches */
	struct plan plan_model; /* as modelled: what the era and its boot record (calibration's base) */
	int have_plan;
	struct argv_list argv;
	char *unit_text;
	char *pins_json;
	char *runtime, *runtime_version;
	char model_sha[65];
	uint64_t model_bytes;
	int gpu;
	unsigned port;
	char *http_base, *api_key;

	/* what was there before */
	struct store_era prev, target;
	int have_prev, have_target;
	char *old_unit, *old_env;
	size_t old_unit_len, old_env_len;
	int was_active;
	long old_main_pid;

	/* this start */
	struct systemd_unit unit;
	struct ledger *ledger;
	struct probe_results probes;
	int installed; /* files were touched: a failure from here on restores */
	char *reason;

	/* a router endpoint (endpoint/router.h; router_run.c) */
	int router;
	struct router_price rp; /* its members priced (the gates') */
	char *members_dir;	/* where its members are installed: DIR/NAME.models/HASH */
	char *members_json;	/* [{name, text, sha256}]: what the era records */
	int members_new;	/* this attempt made members_dir */
	char *router_ledger;	/* each child's boot held to its member's plan (JSON) */
};

/* A step of this run (deploy_step_add); a gate reads `if (step(...)) return ...`. */
static inline int step(struct run *x, const char *name, const char *status, double t, const char *law, const char *fmt,
		       ...) __attribute__((format(printf, 6, 7)));
static inline int step(struct run *x, const char *name, const char *status, double t, const char *law, const char *fmt,
		       ...)
{
	struct deploy_result *r = x->r;
	const struct deploy_steps b = {&r->steps, &r->n_steps, x->st,	      r->attempt, &r->failed_step,
				       r->law,	  &r->why,     x->o->on_step, x->o->arg};
	va_list ap;
	va_start(ap, fmt);
	int rc = deploy_step_add(&b, name, status, t, law, fmt, ap);
	va_end(ap);
	return rc;
}

/* A failed step whose detail is an error message: err is taken (freed
 * here), why stands in when there is none. Returns -1, as step does. */
static inline int failed(struct run *x, const char *name, double t, const char *law, char *err, const char *why)
{
	int rc = step(x, name, "failed", t, law, "%s", err ? err : why);
	free(err);
	return rc;
}

/* A warning of this run's result. */
static inline void warn(struct run *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void warn(struct run *x, const char *fmt, ...)
{
	x->r->warnings = xreallocarray(x->r->warnings, x->r->n_warnings + 1, sizeof(char *));
	va_list ap;
	va_start(ap, fmt);
	x->r->warnings[x->r->n_warnings++] = xvstrf(fmt, ap);
	va_end(ap);
}

/* deploy.c: /proc/PID/cmdline as one line (at most ~200 bytes), allocated. */
char *deploy_cmdline_of(long pid);
/* verify.c: the SHA-256 of s[0..n) in lowercase hex ("" when it cannot be
 * taken). */
void deploy_sha256_hex(const char *s, size_t n, char hex[65]);

/* gates.c. The endpoint read as it will be installed (paths absolute), its
 * name as a unit's, the laws, the pins, the fit (the plan calibrated from a
 * recorded boot, M08); then, once systemd was asked about the unit (x->unit),
 * the unit's start command and user, foreign drop-ins (A01) and the port
 * (A02). Each returns 0 when every gate passed, -1 at the first that said no
 * (its step failed). */
int deploy_gates_shape(struct run *x);
int deploy_gates_host(struct run *x);

/* restart.c. systemctl VERB [UNIT] as step name's failure; the install step
 * (the endpoint file and unit written atomically, daemon-reload, enable);
 * a restart (x->unit, the result's MainPID and invocation); the wait for
 * /health 200 from the start with this MainPID and invocation; the journal
 * of one start read again every 50 ms until enough() holds or `seconds`
 * pass (the last text read, or NULL with *err). 0 or -1 as step. */
int deploy_ctl(struct run *x, const char *verb, const char *unit, long ms, const char *name, double t);
int deploy_install(struct run *x);
int deploy_restart(struct run *x, const char *name, double t);
int deploy_wait_health(struct run *x, const char *name, long main_pid, const char *invocation, double t);
char *deploy_journal_until(const struct run *x, const char *invocation, long main_pid, double seconds,
			   int (*enough)(const char *j, void *arg), void *arg, char **err);

/* verify.c. The started engine (x->unit): /health, MainPID alone on the
 * port (A02), its cmdline (A01), the ledger against the plan, the probes;
 * MainPID alone and the cmdline on their own (a restore's); the record of
 * a verified start (an era and its boot; a restore's boot of the current
 * era). 0 or -1 as step. */
int deploy_verify(struct run *x);
int deploy_verify_mainpid(struct run *x, const char *name, long main_pid);
int deploy_verify_cmdline(struct run *x, const char *name, long main_pid, char *const *want, size_t n_want);
int deploy_record(struct run *x);
int deploy_record_boot(struct run *x);

/* restore.c. A failed attempt put back (the previous era's files
 * restarted and verified, or a first deploy's undone); what the host is
 * left in (allocated); a restore's gate (the installed files are the
 * current era's); what a killed `zealot arm` left, cleaned as a step;
 * whether a unit runs nothing (a stop that failed may still leave none). */
int deploy_restore(struct run *x);
char *deploy_host_state(struct run *x);
int deploy_same_files(struct run *x);
void deploy_clean_arm_left(struct run *x);
int deploy_nothing_runs(const char *unit);

/* router_run.c. A router's members staged where the installed file's
 * MODELS names them (DIR/NAME.models/HASH, HASH their content's: a deploy
 * reads them from the source's MODELS, a rollback from its era's record;
 * x->env_text's MODELS rewritten to it), as a gate:laws step; the router's
 * gates (deploy/router.h) as gate:laws, gate:pins and gate:fit; each child
 * loaded once through the router's API and verified (its health, its
 * command line against its member's preset section, then unloaded), and
 * the journal's children held to their members' plans; the era's members
 * recorded; a previous era's members written back (a restore's). 0 or -1
 * as step (the restage: 0, or -1 with *err). */
int deploy_router_stage(struct run *x, const struct endpoint *src, const char *text, size_t len, double t);
int deploy_router_gate(struct run *x);
int deploy_router_verify(struct run *x);
int deploy_router_record(struct run *x, int64_t era, char **err);
int deploy_router_restage(struct run *x, const struct store_era *e, char **err);
void deploy_router_release(struct run *x);

#endif
