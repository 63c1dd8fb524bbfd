/* ops: the fleet's endpoints on their hosts, over ssh (ssh.c), in
 * parallel, each call bounded: what `zealot fleet status`, `fleet deploy`
 * and `fleet history` find, as data. The command layer prints it and
 * chooses the exit status.
 *
 * Every remote command is built from quoted words (quote_shell); an
 * endpoint file travels on ssh's stdin, never on a command line. A local
 * endpoint (no HOST) runs the same commands here, with this zealot.
 */
#ifndef ZEALOT_FLEET_OPS_H
#define ZEALOT_FLEET_OPS_H

#include <jansson.h>
#include <stddef.h>

#include "fleet.h"
#include "ssh.h"

/* What every fleet operation shares: how to reach hosts, which zealot runs
 * there, this zealot's path and version line. */
struct fleet_ops {
	struct fleet_ssh ssh;
	const char *remote_zealot; /* on a host: a name in PATH or a path */
	char *self;		   /* this binary, for local endpoints */
	char *version;		   /* "zealot X.Y.Z", as --version prints it */
};

/* Fill c: ssh -F cfg (NULL: none), the remote zealot rz (NULL: "zealot"),
 * this binary and its --version line. 0, or -1 with *err. */
int fleet_ops_init(struct fleet_ops *c, const char *cfg, const char *rz, unsigned connect_timeout, char **err);
void fleet_ops_release(struct fleet_ops *c);

/* The zealot that runs the member's commands: the remote one on its host,
 * this binary here. */
const char *fleet_ops_zealot(const struct fleet_ops *c, const struct fleet_member *m);
/* The member's host as a row names it ("localhost" without HOST). */
const char *fleet_ops_host_label(const struct fleet_member *m);
/* How many distinct hosts the fleet's members are on. */
size_t fleet_ops_count_hosts(const struct fleet *f);

/* fleet status: one row a member, in the fleet's order (the keys of
 * `fleet status --json`'s "endpoints"); *healthy counts the healthy rows.
 * endpoint_dir is where deploy installed the endpoint files. */
json_t *fleet_ops_status(const struct fleet_ops *c, const struct fleet *f, const char *endpoint_dir, long timeout_ms,
			 unsigned parallel, size_t *healthy);

/* fleet deploy */
struct fleet_deploy_opts {
	const char *reason, *remote_dir;
	long timeout_ms;
	int keep_going, fetch;
	unsigned parallel;
};

struct fleet_deploy_shared;

/* One endpoint's deploy: its outcome ("deployed", "refused",
 * "rolled-back", "rollback-failed", "error": deploy's; "version-skew",
 * "unreachable", "copy-failed", "fetch-failed", "lost", "skipped"). */
struct fleet_deploy_job {
	const struct fleet_ops *c;
	const struct fleet_member *m;
	const struct fleet_deploy_opts *o;
	struct fleet_deploy_shared *sh;
	/* results */
	const char *outcome; /* static strings */
	char *why, *remote_version, *failed_step;
	json_t *deploy; /* the host's deploy JSON (built after the threads end) */
	char *deploy_text;
	int deploy_status;
	double seconds;
};

/* NAME,NAME (NULL: every member) into pick[f->n]: every name a member of
 * f, else -1 with *err naming it. */
int fleet_ops_pick(const struct fleet *f, const char *only, char *pick, char **err);
/* Deploy the picked members, o->parallel at once; the first failure stops
 * those not yet begun unless o->keep_going. Returns *n jobs, each with its
 * outcome, in the fleet's order; *seconds the whole run. */
struct fleet_deploy_job *fleet_ops_deploy(const struct fleet_ops *c, const struct fleet *f, const char *pick,
					  const struct fleet_deploy_opts *o, size_t *n, double *seconds);
/* A job as a row of `fleet deploy --json`'s "endpoints". */
json_t *fleet_ops_deploy_row(const struct fleet_deploy_job *j);
void fleet_ops_deploy_free(struct fleet_deploy_job *jobs, size_t n);

/* fleet history: every era of the fleet's endpoints from every host's
 * store, merged and sorted by the time each began (*eras), and one row a
 * host (*hosts: host, reachable, why, eras). Returns 1 when a host's store
 * could not be read, else 0. */
int fleet_ops_history(const struct fleet_ops *c, const struct fleet *f, long timeout_ms, unsigned parallel,
		      json_t **hosts, json_t **eras);

#endif
