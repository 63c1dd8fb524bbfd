/* scrape: scrape health is a probe. A Prometheus that scrapes the endpoint
 * is asked (GET /api/v1/targets) for the endpoint's target: the job named
 * after the endpoint (what zealot emit prometheus writes) or, without one,
 * the target whose instance is the probed URL's host:port. The probe fails
 * when the target is absent, not up, or has a lastError, and names it: an
 * engine without --metrics answers 501, which Prometheus reads as down
 * while /health says 200 (law C04).
 */
#ifndef ZEALOT_SCRAPE_H
#define ZEALOT_SCRAPE_H

#include "http.h"
#include "probe.h"

/* prom: the Prometheus client (its base URL); job: the scrape job's name,
 * or NULL; instance: "host:port" of the endpoint, or NULL. Fills out
 * (name "scrape", law C04, an allocated evidence). */
void scrape_probe(const struct http_client *prom, const char *job, const char *instance, struct probe_result *out);

/* As scrape_probe, but the job's target must be at instance: a target of
 * the job at another address fails, naming both (SCRAPE_HOST set). */
void scrape_probe_exact(const struct http_client *prom, const char *job, const char *instance,
			struct probe_result *out);

/* The target emit prometheus writes for ep's SCRAPE_HOST: "host:port"
 * (an IPv6 address bracketed), allocated; NULL without SCRAPE_HOST. */
struct endpoint;
char *scrape_host_instance(const struct endpoint *ep);

/* "host:port" of an http(s) URL (the default port when it names none),
 * allocated; NULL when it is no such URL. */
char *scrape_instance(const char *url);

#endif
