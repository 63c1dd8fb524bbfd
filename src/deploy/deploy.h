/* deploy: change a running endpoint safely, and remember it.
 *
 *   gates     nothing is changed yet: the laws (zealot check: no errors,
 *             C08 and S15 included), the payload pins (and, for a
 *             rollback, the era's recorded pins), the fit, the unit's start
 *             command (C08), foreign drop-ins (A01), a port held by a
 *             process that is not the unit's (A02), the unit's user
 *   install   the endpoint file and the unit, each written atomically,
 *             then daemon-reload and enable
 *   restart   systemctl restart; the start's InvocationID and MainPID
 *   verify    /health; the port answered by MainPID alone (A02);
 *             /proc/MainPID/cmdline = zealot argv; the boot ledger read from
 *             the journal of this start equals the plan on every exact term;
 *             the contract probes
 *   record    the new era and its boot (ledger, probes) in the store
 *
 * Any failure after install puts the previous era's files back (or the
 * files that were there before a first deploy), restarts it and verifies it
 * serves again; when that fails too the outcome says what state the host is
 * in. Every step is recorded as the attempt's step in the store as it ends,
 * so a kill -9 leaves an attempt the next deploy reports as interrupted.
 *
 * The module prints nothing: each step is handed to on_step as it ends, and
 * the result carries the outcome.
 */
#ifndef ZEALOT_DEPLOY_H
#define ZEALOT_DEPLOY_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "../endpoint/endpoint.h"
#include "../live/ledger.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "../store/store.h"

struct deploy_step {
	const char *name;   /* "gate:laws", "install", "health", "restore" ... (static) */
	const char *status; /* "ok", "failed", "skipped", "warning" (static) */
	double seconds;
	char law[8]; /* the law a failure names, or "" */
	char *detail;
};

/* Where a run keeps its steps: deploy's and arm's results, the store's
 * attempt, the caller's callback. deploy_step_add does the bookkeeping of
 * one ended step for both. */
struct deploy_steps {
	struct deploy_step **v;
	size_t *n;
	struct store *st;
	int64_t attempt; /* 0: nothing recorded */
	const char **failed_step;
	char *law; /* [8] */
	char **why;
	void (*on_step)(const struct deploy_step *s, void *arg);
	void *arg;
};
/* One step ended: appended, recorded on the attempt at once ("LAW: detail";
 * a kill -9 later leaves it there; a failed record is no gate), handed to
 * on_step; the first failed one is the run's failed_step, law and why.
 * Returns 0 for ok, warning or skipped, -1 otherwise. */
int deploy_step_add(const struct deploy_steps *b, const char *name, const char *status, double t, const char *law,
		    const char *fmt, va_list ap);
/* What a run's result keeps of its steps and warnings, freed (deploy's and
 * arm's results). */
void deploy_log_release(struct deploy_step *steps, size_t n_steps, char **warnings, size_t n_warnings);

enum deploy_outcome {
	DEPLOY_DEPLOYED,	/* the new era serves and is recorded */
	DEPLOY_REFUSED,		/* a gate (or the lock) said no: nothing was touched */
	DEPLOY_ROLLED_BACK,	/* it failed after install; the previous state serves again */
	DEPLOY_ROLLBACK_FAILED, /* and putting it back failed too: the host needs a person */
	DEPLOY_ERROR,		/* could not even start (store, systemctl): nothing was touched */
	DEPLOY_FAILED,		/* a first deploy failed after install: nothing served before, so
				   nothing was rolled back; what it installed is removed again */
};

struct deploy_opts {
	/* "deploy", "rollback", or "restore": start the current era again
	 * from the files installed (which must be its own: nothing is
	 * written), verify it as a deploy does, and record a boot of it
	 * (bench_json) instead of a new era; what `zealot arm` ends with */
	const char *kind;
	const char *endpoint_path; /* deploy: the endpoint file to install */
	int64_t era;		   /* rollback: the era to bring back */
	const char *reason;
	const char *unit_dir;  /* NULL: /etc/systemd/system */
	const char *env_dir;   /* NULL: /etc/zealot */
	const char *zealot;    /* the binary the unit runs; NULL: this one */
	const char *probes;    /* comma-separated probe names; NULL: all */
	long boot_timeout_ms;  /* how long a boot may take to answer /health */
	const char *prom_file; /* the node exporter's textfile metrics (live/promfile.h), or NULL */
	void (*on_step)(const struct deploy_step *s, void *arg);
	void *arg;
	int lock_fd;		 /* > 0: the caller holds the endpoint's lock (store_lock): it is used, not taken */
	const char *bench_json;	 /* restore: the figures its boot row records, or NULL */
	const char *boot_source; /* restore: the boot row's source (NULL: "restore") */
};

struct deploy_result {
	enum deploy_outcome outcome;
	char *endpoint;		    /* the endpoint's name */
	int64_t attempt;	    /* the attempt's id in the store */
	int64_t era;		    /* the era made current, 0 when none */
	int64_t previous_era;	    /* the era current before, 0 when none */
	int64_t boot;		    /* the boot recorded, 0 when none */
	char *unit_path, *env_path; /* where the unit and endpoint file live */
	char *unit_name;
	long main_pid;
	char invocation_id[40];
	double seconds; /* the whole attempt */

	struct deploy_step *steps;
	size_t n_steps;
	char **warnings; /* C06 alias changes, an interrupted attempt ... */
	size_t n_warnings;

	const char *failed_step; /* the step that said no, or NULL */
	char law[8];		 /* the law it names */
	char *why;		 /* one sentence */
	char *cause;		 /* from the journal of a failed start, or NULL */
	char *host_state;	 /* DEPLOY_ROLLBACK_FAILED: what the host is left in */
};

/* Run a deploy or a rollback. st is an open store. Returns the outcome
 * (also in r->outcome); r is filled in every case and freed with
 * deploy_result_release. */
enum deploy_outcome deploy_run(struct store *st, const struct deploy_opts *o, struct deploy_result *r);
void deploy_result_release(struct deploy_result *r);
const char *deploy_outcome_name(enum deploy_outcome o);

/* Stop and forget what a `zealot arm` left for the endpoint name: its
 * transient unit (ARM_UNIT_PREFIX NAME.service) and the arm's endpoint
 * file in run_dir (NULL: /run/zealot/arm). Returns 1 when something was
 * cleaned (*said names it), 0 when nothing was there, -1 with *err. */
#define ARM_UNIT_PREFIX "zealot-arm-"
int deploy_clean_arm(const char *name, const char *run_dir, char **said, char **err);

/* Shared with arm: the endpoint's name from a path or a name ("a/b.env"
 * -> "b"); the address a client on this host reaches the endpoint at
 * ("http://127.0.0.1:PORT"). Allocated. */
char *deploy_endpoint_name(const char *path);
char *deploy_http_base(const struct endpoint *ep, unsigned port);

/* Whether NAME.service is a unit name systemd takes: letters, digits,
 * ':', '_', '.', '-', not first '-', no '@' (a template's instance). */
int deploy_unit_name_ok(const char *name);

#endif
