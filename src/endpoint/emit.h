/* emit: the files an endpoint needs around it, rendered from the endpoint
 * (and, for the harness, its payload and plan): a systemd unit whose
 * ExecStart is `zealot serve`, a Prometheus scrape job, alert rules, and a
 * client harness entry. Each returns an allocated string.
 */
#ifndef ZEALOT_EMIT_H
#define ZEALOT_EMIT_H

#include "../payload/census.h"
#include "../plan/plan.h"
#include "endpoint.h"

/* zealot: absolute path of the zealot binary; endpoint: absolute path of
 * the endpoint file; user: the unit's User=, or NULL for the endpoint's USER key.
 * The unit is hardened (ProtectSystem=strict, ProtectHome=tmpfs, PrivateTmp,
 * a system call filter, a closed device policy with the NVIDIA nodes on GPU
 * profiles ...), the payload and runtime directories it would hide bound
 * back read-only. */
char *emit_unit(const struct endpoint *ep, const char *zealot, const char *endpoint, const char *user);
char *emit_prometheus(const struct endpoint *ep);
char *emit_alerts(const struct endpoint *ep, unsigned slot_minutes);
/* The harness entry: the per-slot window from the plan (what a client may
 * send: law M03), the template's reasoning_effort map (A08), the payload's
 * sampling defaults and presence penalty. */
char *emit_harness(const struct endpoint *ep, const struct census *c, const struct plan *p);

#endif
