/* fleet/emit: what `zealot emit KIND DIR` writes for a whole fleet: one
 * Prometheus scrape configuration, one alert rule file, one client
 * harness, one Grafana dashboard. The per-endpoint pieces are judge/emit's
 * and judge/grafana's; here they are joined, with the fleet's own notes
 * (a remote loopback bind, a compaction hub whose window is too small).
 * Nothing is printed.
 */
#ifndef ZEALOT_FLEET_EMIT_H
#define ZEALOT_FLEET_EMIT_H

#include "../base/util.h"
#include "../base/zerr.h"
#include "../endpoint/endpoint.h"
#include "fleet.h"

/* The harness entry of one endpoint, planned as `zealot plan` plans it, for
 * clients on host (NULL: this host) compacting at hub (NULL: none); *window
 * its per-slot window. ZE_OK with *out (allocated), else the kind with *err. */
enum zerr fleet_emit_harness_entry(const struct endpoint *ep, const char *host, const char *hub, unsigned *window,
				   char **out, char **err);

/* A scrape job per member, appended to b. */
void fleet_emit_prometheus(const struct fleet *f, struct sb *b);
/* An alert group per member (minutes: waiting before LlmNoFreeSlot). */
void fleet_emit_alerts(const struct fleet *f, unsigned minutes, struct sb *b);
/* A harness entry per member, appended to b; a member whose compaction hub
 * holds fewer tokens per slot than it does gets a warning line in warn
 * (and a comment in b, law M03). ZE_OK, else the kind with *err naming the
 * member. */
enum zerr fleet_emit_harness(const struct fleet *f, struct sb *b, struct sb *warn, char **err);
/* The fleet's dashboard, titled by the directory's last part. Allocated. */
char *fleet_emit_grafana(const struct fleet *f);

#endif
