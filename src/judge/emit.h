/* emit: the files an endpoint needs around it, rendered from the endpoint
 * (and, for the harness, its payload and plan): a systemd unit whose
 * ExecStart is `zealot serve`, a Prometheus scrape job, alert rules, and a
 * client harness entry. Each returns an allocated string.
 */
#ifndef ZEALOT_EMIT_H
#define ZEALOT_EMIT_H

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../payload/census.h"
#include "../plan/plan.h"

/* zealot: absolute path of the zealot binary; endpoint: absolute path of
 * the endpoint file; user: the unit's User=, or NULL for the endpoint's USER key.
 * The unit is hardened (ProtectSystem=strict, ProtectHome=tmpfs, PrivateTmp,
 * a system call filter, a closed device policy with the NVIDIA nodes on GPU
 * profiles ...), the payload and runtime directories it would hide bound
 * back read-only. */
/* The endpoint's name as a job, label or title: the file name itself when
 * it is UTF-8, else made safe (safe_line: \xNN), in tmp; every emitter
 * (scrape job, alerts, dashboard) names the job the same way. */
const char *emit_name(const struct endpoint *ep, struct sb *tmp);

char *emit_unit(const struct endpoint *ep, const char *zealot, const char *endpoint, const char *user);
char *emit_prometheus(const struct endpoint *ep);
char *emit_alerts(const struct endpoint *ep, unsigned slot_minutes);
/* The pieces a fleet's files are made of (zealot emit KIND DIR): one scrape
 * job (an item of scrape_configs) with the target at host:LISTEN_PORT (host
 * NULL: the endpoint's BIND_ADDR, loopback for a wildcard), and one rule
 * group (an item of groups). Names that are not plain names are quoted, so
 * none can add a key or a line. */
void emit_prometheus_job(struct sb *b, const struct endpoint *ep, const char *host);
void emit_alerts_group(struct sb *b, const struct endpoint *ep, unsigned slot_minutes);
/* The harness entry: the per-slot window from the plan (what a client may
 * send: law M03), the template's reasoning_effort map (A08), the payload's
 * sampling defaults and presence penalty. */
char *emit_harness(const struct endpoint *ep, const struct census *c, const struct plan *p);
/* The same entry with its baseUrl on host (NULL: as emit_harness) and
 * compactionModel hub, the served id of the endpoint that compacts this
 * one's conversations (NULL: none; emit_harness takes COMPACTION_HUB). */
char *emit_harness_at(const struct endpoint *ep, const struct census *c, const struct plan *p, const char *host,
		      const char *hub);

#endif
