/* grafana: a dashboard for Grafana's file provisioning (a dashboard JSON
 * model, schemaVersion GRAFANA_SCHEMA_VERSION) with a row of panels per
 * endpoint: prefill and decode tokens/s, requests processing and deferred,
 * busy slots, the KV cache's largest sequence against the per-slot window,
 * draft acceptance, the scrape's up, planned against settled memory per
 * term (zealot_memory_mib, the textfile metrics of `ledger --prom`), and
 * the era as an annotation. Every expression is plain PromQL (no Grafana
 * macro), so promtool can check each one in a rule file.
 */
#ifndef ZEALOT_GRAFANA_H
#define ZEALOT_GRAFANA_H

#include <stddef.h>

#include "../endpoint/endpoint.h"

/* Grafana 10.4 / 11's dashboard schema */
#define GRAFANA_SCHEMA_VERSION 39

/* The dashboard of eps[0..n-1] (the engine's series by job = the
 * endpoint's name, as emit prometheus names the job; zealot's own by the
 * endpoint label), titled title. An allocated JSON text. */
char *grafana_dashboard(const struct endpoint *const *eps, size_t n, const char *title);

#endif
