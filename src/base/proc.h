/* proc: run a program from an argv vector (never a shell string, so no
 * value is ever re-parsed by a shell) and collect what it prints, with a
 * time limit and a cap on the bytes kept.
 */
#ifndef ZEALOT_PROC_H
#define ZEALOT_PROC_H

#include <poll.h>
#include <stddef.h>

#include "util.h"

struct proc_result {
	int status;    /* the exit status; 128 + N when killed by signal N */
	int timed_out; /* killed (SIGKILL) at the time limit */
	struct sb out; /* stdout, at most max_bytes of it */
	struct sb err; /* stderr, at most max_bytes of it */
};

/* Run argv[0] (a bare name is looked up in PATH) with stdin from /dev/null.
 * timeout_ms <= 0: no limit. Output past max_bytes per stream is read and
 * dropped, so a chatty child never blocks on a full pipe. Returns 0 when the
 * program ran (whatever its status), -1 with *err when it could not be
 * started at all. */
int proc_run(const char *const *argv, long timeout_ms, size_t max_bytes, struct proc_result *r, char **err);
/* The sandbox of a program zealot runs to ask it something (a runtime's
 * --help): when zealot is root it becomes uid/gid (no supplementary
 * groups, and it cannot regain root), with no new privileges, an empty
 * environment (nothing of the caller's or a unit's), in /. Root that
 * holds no capability at all (a unit's empty CapabilityBoundingSet=)
 * cannot change its uid and has nothing to drop: it runs as it is. argv[0]
 * must be a path: there is no PATH to search. */
struct proc_sandbox {
	unsigned uid, gid;
};

int proc_run_sandboxed(const char *const *argv, const struct proc_sandbox *sb, long timeout_ms, size_t max_bytes,
		       struct proc_result *r, char **err);
void proc_result_release(struct proc_result *r);

/* After a poll(2) of a child's stdout and stderr (fds[0], fds[1]): drain
 * whichever is readable into out or err, keeping at most max bytes of
 * each (the rest is read and dropped), closing one at its end
 * and setting its fd to -1. How many it closed. */
int proc_drain(struct pollfd fds[2], struct sb *out, struct sb *err, size_t max);

#endif
