/* fleet/ssh: run a command on a fleet host over OpenSSH, copy a file to it,
 * and fan work out over many hosts at once.
 *
 * ssh runs from an argv vector (no local shell):
 *
 *   ssh [-F CONFIG] [-p PORT] [-l USER] -T -o BatchMode=yes
 *       -o ConnectTimeout=N -o ServerAliveInterval=5 -o ServerAliveCountMax=3
 *       -- HOST COMMAND
 *
 * COMMAND is the one string the remote shell reads: every value in it is
 * single-quoted (quote_shell), so a name, path or reason reaches the
 * remote program as one word whatever it holds. Secrets never go on it:
 * files (an endpoint file, an API key file) travel on ssh's stdin.
 *
 * Host keys are checked as the user's ssh config says (BatchMode: never a
 * prompt; nothing here turns StrictHostKeyChecking off): a key that does
 * not match known_hosts is "host key for H does not match known_hosts".
 *
 * Each call has a time limit; at it, ssh's whole process group is killed.
 * The remote command is prefixed with a marker it prints first, so a call
 * tells "never reached the host" from "the host answered, then the command
 * failed or the connection dropped".
 *
 * Nothing here prints; calls fill a result and return 0, or -1 with *err
 * when ssh could not be started at all.
 */
#ifndef ZEALOT_FLEET_SSH_H
#define ZEALOT_FLEET_SSH_H

#include <stddef.h>

#include "../base/util.h"
#include "fleet.h"

struct fleet_ssh {
	const char *config;	  /* -F FILE; NULL: the user's ~/.ssh/config */
	const char *program;	  /* NULL: "ssh" from PATH */
	unsigned connect_timeout; /* seconds, -o ConnectTimeout (0: 10) */
};

struct fleet_ssh_result {
	int reached;   /* the remote shell ran the command */
	int status;    /* the remote command's exit status (ssh's 255 when not reached or cut) */
	int timed_out; /* killed at the time limit */
	int lost;      /* reached, then the connection dropped (ssh 255 without a remote status) */
	struct sb out; /* the remote command's stdout (the marker removed) */
	struct sb err; /* stderr: the remote command's and ssh's */
	char *why;     /* not reached, lost or timed out: one sentence naming the host; else NULL */
};

/* Append argv as one remote shell command line: each word quoted, joined
 * by spaces. */
void fleet_ssh_words(struct sb *cmd, const char *const *argv);

/* Run cmd (a remote shell command line) on h; h NULL runs it on this host
 * (/bin/sh -c, the same wrapping). in (in_len bytes) is its
 * stdin, NULL for none. timeout_ms bounds the whole call. Output past 16 MiB
 * per stream is dropped. */
int fleet_ssh_run(const struct fleet_ssh *s, const struct host_dest *h, const char *cmd, const char *in, size_t in_len,
		  long timeout_ms, struct fleet_ssh_result *r, char **err);
void fleet_ssh_result_release(struct fleet_ssh_result *r);

/* The parsing half of fleet_ssh_run, for tests and fuzzing: r->out is what
 * the wrapped command printed (the marker first, the status line last),
 * ssh_status ssh's own exit status; sets reached, status and lost, and
 * strips the marker and the status line from r->out. */
void fleet_ssh_unwrap(struct fleet_ssh_result *r, int ssh_status);

/* A script of several commands whose outputs are told apart: each is
 * appended as a section (its output between a "@@zf NAME" line and a
 * "@@zf-rc STATUS" line); fleet_ssh_section() finds one again, allocated,
 * with its status in *rc (-1: it never ended), or NULL when it never
 * began. Names are plain words the caller chooses. */
void fleet_ssh_section_add(struct sb *script, const char *name, const char *cmdline);
char *fleet_ssh_section(const char *out, const char *name, int *rc);

/* Copy data to path on h, atomically: written over ssh's stdin to a
 * temporary file beside path (mode 0600 while written), chmod mode, then
 * renamed over path; the directory is created (h NULL: this host). Returns 0 when the file is
 * in place; -1 with *err naming the host and what failed. */
int fleet_ssh_put(const struct fleet_ssh *s, const struct host_dest *h, const char *data, size_t len, const char *path,
		  unsigned mode, long timeout_ms, char **err);

/* Call job(i, ctx) for every i < n, at most parallel (0: 1) at once, each
 * in a thread of its own; returns when every job has ended. A job touches
 * only its own slot of ctx. Returns 0, or -1 with *err when no thread could
 * be started (then the jobs ran one by one in the caller). */
int fleet_ssh_each(size_t n, unsigned parallel, void (*job)(size_t i, void *ctx), void *ctx, char **err);

#endif
