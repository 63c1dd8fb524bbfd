/* systemd: what deploy asks of the service manager, through `systemctl` and
 * `journalctl` run as argv vectors (never a shell string). The tests run
 * zealot inside a systemd-nspawn container, so these talk to that
 * container's systemd and read its journal.
 */
#ifndef ZEALOT_SYSTEMD_H
#define ZEALOT_SYSTEMD_H

#include <stddef.h>

/* A unit's state, from `systemctl show`. */
struct systemd_unit {
	long main_pid;		/* 0: none */
	long exec_main_pid;	/* ExecMainPID: the last main process, kept after it ended */
	char invocation_id[40]; /* "" when the unit has not run */
	char active[24];	/* ActiveState: active, failed, inactive, activating ... */
	char sub[24];		/* SubState: running, dead, auto-restart ... */
	char result[32];	/* Result: success, exit-code, signal ... */
	int exec_main_status;	/* the main process's exit status (or signal) */
	unsigned n_restarts;	/* NRestarts */
	char load[24];		/* LoadState: loaded, not-found ... */
	char **dropins;		/* DropInPaths, split */
	size_t n_dropins;
};

/* Parse `systemctl show` KEY=VALUE text (exposed for tests and fuzzing).
 * Unknown keys are ignored; missing ones stay zero. */
void systemd_parse_show(const char *text, size_t len, struct systemd_unit *out);
void systemd_unit_release(struct systemd_unit *u);

/* `systemctl show` of unit. Returns 0, or -1 with *err. */
int systemd_show(const char *unit, struct systemd_unit *out, char **err);

/* `systemctl VERB [UNIT]`: daemon-reload (unit NULL), restart, stop,
 * reset-failed. timeout_ms bounds the wait (a stop rides out
 * TimeoutStopSec=). Returns 0, or -1 with *err holding systemctl's own
 * message. */
int systemd_ctl(const char *verb, const char *unit, long timeout_ms, char **err);

/* `systemd-run --unit=UNIT -p PROP ... -- CMD...`: a transient service
 * (what `zealot arm` boots a candidate in: never a drop-in, never the
 * production unit's files). cmd is NULL-terminated. Returns 0 once the
 * manager started it, or -1 with *err. */
int systemd_run(const char *unit, const char *const *props, size_t n_props, const char *const *cmd, long timeout_ms,
		char **err);

/* Everything the journal holds for one start of a unit: the process's own
 * lines (_SYSTEMD_INVOCATION_ID) and the manager's lines about that start
 * (INVOCATION_ID), as plain messages. With unit and main_pid (> 0), also
 * the lines of that process in this boot (_SYSTEMD_UNIT and _PID): a line
 * journald reads from the stream after the unit has failed no longer finds
 * the unit's invocation and carries none. Returns an allocated string, or
 * NULL with *err. */
char *systemd_journal(const char *invocation_id, const char *unit, long main_pid, char **err);

#endif
