/* live/router_log: a router's log split by child. The engine's router
 * names each child as it spawns it ("spawning server instance with
 * name=N on port P") and forwards every line the child writes prefixed
 * with "[PORT] " (the port right-aligned in five columns,
 * tools/server/server-models.cpp). Each spawn is one boot: a member loaded
 * again after its eviction is a second boot, and a port the kernel gives
 * again to a later child starts that child's boot.
 */
#ifndef ZEALOT_LIVE_ROUTER_LOG_H
#define ZEALOT_LIVE_ROUTER_LOG_H

#include <stddef.h>
#include <sys/types.h>

#include "../base/util.h"

struct router_boot {
	char name[128];
	unsigned port;
	struct sb log; /* the child's own lines, the prefix taken off */
	int lines;
};

struct router_log {
	struct router_boot *v;
	size_t n;
};

/* Split buf[0..len). Never fails: a log with no spawn yields no boots. */
void router_log_split(const char *buf, size_t len, struct router_log *out);
void router_log_release(struct router_log *l);

#endif

/* Each boot's ledger held to its member's plan (ledger_compare): JSON
 * {boots: [{name, port, lines, verdict ("matches", "differs", "no ledger",
 * "no such member"), differs (the summary), comparison: [rows]}],
 * verdict ("matches" when every boot does and there is one)}. *diverged is
 * set when any boot does not match. */
struct router_price;
struct json_t;
struct json_t *router_log_hold(const struct router_price *rp, const struct router_log *lg, int *diverged);

/* The router's child serving a member (the child of router_pid that runs
 * --alias NAME): its pid (0: none runs) and its --port in *port. */
long router_child_of(long router_pid, const char *name, unsigned *port);
/* Whether a child's command line holds every line of its member's preset
 * section (judge/router_preset.h: "key = value" is --key value, "true" the
 * bare flag): the count held, or -1 with *why naming the first that
 * differs. */
struct router_member;
int router_child_holds(const struct router_member *m, long pid, char **why);
/* audit of a router (live/audit.h): a row per member, its running child's
 * command line against its preset section (A01 when it differs), or not
 * loaded. */
struct router;
struct audit;
void router_audit_members(const struct router *r, pid_t router_pid, struct audit *a);
