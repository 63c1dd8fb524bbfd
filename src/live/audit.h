/* audit: the live engine against the intended one (law A01: after a
 * deploy read, in order, the drop-ins, the process's command line, then the
 * boot ledger). Finds the engine (a PID, a unit's MainPID, or whoever
 * listens on the endpoint's port), reads /proc/PID/cmdline and environ,
 * and compares them flag by flag with `zealot argv`; lists the unit's
 * drop-ins and what they set; checks the process maps the pinned payload
 * file (the same inode, not a replaced or deleted one); and reports a
 * second process listening on the port (A02).
 */
#ifndef ZEALOT_AUDIT_H
#define ZEALOT_AUDIT_H

#include <stddef.h>
#include <sys/types.h>

#include "../endpoint/argv.h"

struct audit_row {
	char *what; /* "--ctx-size", "payload", "drop-in", "env LLAMA_ARG_CTX_SIZE", "listener" */
	char *intended;
	char *live;
	int diverges;
	const char *law;
};

struct audit {
	pid_t pid;
	char *pid_source; /* "--pid", "unit MainPID", "port 8080" */
	struct audit_row *rows;
	size_t n;
	size_t divergences;
};

/* PIDs listening on TCP port (IPv4 and IPv6), found through /proc/net and
 * /proc/PID/fd. Returns the count (up to max). */
size_t audit_listeners(unsigned port, pid_t *out, size_t max);

/* The clients connected to TCP port (ESTABLISHED, IPv4 and IPv6): each
 * one's own port and, when its end of the connection is a socket of a
 * process this host can see, that process. Returns the count (up to max). */
struct audit_client {
	unsigned port; /* the client's port */
	pid_t pid;     /* 0: not visible here */
};
size_t audit_clients(unsigned port, struct audit_client *out, size_t max);

/* Read a NUL-separated /proc file into a NULL-terminated vector. */
char **audit_read_vector(pid_t pid, const char *file, size_t *n);
void audit_free_vector(char **v, size_t n);

/* Compare the live process with the intended argv, and its environment
 * and the config files it read with what serve allows (judge/trust.h:
 * R04, C09, R03). model_path is the
 * intended payload (resolved). dropin_dir, if not NULL, is the unit's
 * .service.d directory to list. */
int audit_run(const struct endpoint *ep, pid_t pid, const struct argv_list *want, const char *model_path, unsigned port,
	      const char *const *dropin_dirs, size_t n_dropin_dirs, struct audit *out, char **err);
void audit_release(struct audit *a);

/* The settled memory's rows (live/memory.h): one a place (the card, the
 * host), intended the plan's MiB, live the held MiB; a row with a law
 * diverges. */
struct memory_report;
void audit_memory_rows(struct audit *a, const struct memory_report *r);

#endif
