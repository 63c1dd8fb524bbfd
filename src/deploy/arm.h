/* arm: a bench window. A candidate shape (the current era's endpoint file
 * with some keys changed) is booted and benched against production, and
 * production is restored and verified.
 *
 *   lock           the endpoint's lock (deploy's): no deploy in between
 *   clean          what a killed arm left: its transient unit, its file,
 *                  a stopped production (restored and verified first)
 *   gate:arm       the candidate's endpoint file parses and renders
 *   gate:idle      production is idle: /slots all idle, and /metrics
 *                  request counters unchanged over the window; else the
 *                  arm refuses, naming the busy slots and the clients
 *                  connected to the port
 *   bench:production  bench (live/bench.h) against production
 *   stop           systemctl stop of production's unit
 *   arm:boot       systemd-run of a transient unit (ARM_UNIT_PREFIX NAME)
 *                  with the sandbox `zealot emit unit` gives the candidate
 *                  (the production unit's, with the candidate's keys),
 *                  running `zealot serve` on a file in /run/zealot/arm:
 *                  never a drop-in, never a file of production's
 *   arm:health     /health 200 from the transient unit, the port answered
 *                  by its MainPID alone
 *   bench:arm      the same bench against it
 *   arm:census     its boot ledger (the transient unit's journal) and its
 *                  settled memory (live/memory.h) against its plan: a term
 *                  off fails as deploy's would; kept in the arm's figures
 *                  under "census"
 *   arm:stop       the transient unit stopped, its file removed
 *   restore        deploy_run's "restore" kind: production's own files
 *                  started and verified as a deploy verifies (health,
 *                  MainPID, cmdline, ledger, probes), a boot row of its era
 *                  holding production's figures
 *   record         the arm row: keys, reason, the arm's figures
 *
 * Any failure after stop restores production; a restore that fails is
 * ARM_RESTORE_FAILED (the host needs a person). Each step is recorded in
 * the store as an attempt of kind "arm" as it ends.
 */
#ifndef ZEALOT_ARM_H
#define ZEALOT_ARM_H

#include <stddef.h>
#include <stdint.h>

#include "../live/bench.h"
#include "../store/store.h"
#include "deploy.h"

enum arm_outcome {
	ARM_BENCHED,	    /* both measured, production restored and verified */
	ARM_REFUSED,	    /* a gate said no (busy, no era, a bad key): production untouched */
	ARM_FAILED,	    /* the candidate failed (boot, bench); production restored and verified */
	ARM_RESTORE_FAILED, /* production could not be restored: the host needs a person */
	ARM_ERROR,	    /* the store, systemd or production's bench failed before anything changed */
};

struct arm_opts {
	const char *endpoint; /* the endpoint's name (or its file's path) */
	const char *const *sets;
	size_t n_sets; /* KEY=VALUE each */
	const char *reason;
	struct bench bench;   /* what each bench asks (runs, prompt, max tokens, ladder) */
	double idle_window_s; /* how long the counters must hold still */
	long boot_timeout_ms;
	const char *run_dir; /* the arm's endpoint file's directory (NULL: /run/zealot/arm) */
	/* as deploy's: for the restore */
	struct deploy_opts restore;
};

struct arm_result {
	enum arm_outcome outcome;
	char *endpoint, *unit_name; /* unit_name: the transient unit */
	int64_t attempt, era, arm_id, boot;
	char *keys_json;	   /* {"KEY": "VALUE"} */
	char *production_bench;	   /* bench JSON, or NULL */
	char *arm_bench;	   /* bench JSON, or NULL */
	struct deploy_step *steps; /* the arm's own; the restore's are restore.steps */
	size_t n_steps;
	char **warnings;
	size_t n_warnings;
	const char *failed_step;
	char law[8];
	char *why;
	char *host_state; /* ARM_RESTORE_FAILED */
	int restored;	  /* a restore ran (restore holds it) */
	struct deploy_result restore;
	double seconds;
};

enum arm_outcome arm_run(struct store *st, const struct arm_opts *o, struct arm_result *r);
void arm_result_release(struct arm_result *r);
const char *arm_outcome_name(enum arm_outcome o);

/* The endpoint file text with each KEY=VALUE of sets in place of the
 * key's line (or appended). Allocated. */
char *arm_env_text(const char *env_text, const char *const *sets, size_t n_sets);

#endif
