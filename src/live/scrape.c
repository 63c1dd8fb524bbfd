#include "scrape.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/keys.h"

char *scrape_instance(const char *url)
{
	const char *h;
	const char *port = NULL;
	if (strncmp(url, "http://", 7) == 0) {
		h = url + 7;
		port = "80";
	} else if (strncmp(url, "https://", 8) == 0) {
		h = url + 8;
		port = "443";
	} else {
		return NULL;
	}
	size_t n = strcspn(h, "/?#");
	if (!n)
		return NULL;
	struct sb b = {0};
	sb_add(&b, h, n);
	const char *close = memchr(h, ']', n);
	const char *colon = close ? (close + 1 < h + n && close[1] == ':' ? close + 1 : NULL) : memchr(h, ':', n);
	if (!colon)
		sb_addf(&b, ":%s", port);
	return sb_detach(&b);
}

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void fail(struct probe_result *out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct probe_result *out, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	out->evidence = xvstrf(fmt, ap);
	va_end(ap);
	out->status = PROBE_FAIL;
}

static void probe_at(const struct http_client *prom, const char *job, const char *instance, int exact,
		     struct probe_result *out);

void scrape_probe(const struct http_client *prom, const char *job, const char *instance, struct probe_result *out)
{
	probe_at(prom, job, instance, 0, out);
}

void scrape_probe_exact(const struct http_client *prom, const char *job, const char *instance, struct probe_result *out)
{
	probe_at(prom, job, instance, 1, out);
}

char *scrape_host_instance(const struct endpoint *ep)
{
	const char *h = endpoint_value(ep, K_SCRAPE_HOST), *port = endpoint_value(ep, K_LISTEN_PORT);
	if (!h || !*h)
		return NULL;
	struct sb b = {0};
	sb_addf(&b, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, port ? port : "8080");
	return sb_detach(&b);
}

/* exact: the job's target must be at instance (SCRAPE_HOST's); one of the
 * job elsewhere is no pass */
static void probe_at(const struct http_client *prom, const char *job, const char *instance, int exact,
		     struct probe_result *out)
{
	memset(out, 0, sizeof(*out)); /* no expectation, no prompts: a result of its own kind */
	out->name = "scrape";
	out->law = "C04";
	struct http_response r;
	if (http_request(prom, "GET", "/api/v1/targets?state=active", NULL, &r)) {
		fail(out, "Prometheus at %s did not answer: %s", prom->base, r.error);
		out->no_answer = 1;
		http_response_release(&r);
		return;
	}
	json_t *root = r.status == 200 ? json_loadb(r.body.s ? r.body.s : "", r.body.len, 0, NULL) : NULL;
	json_t *targets = json_object_get(json_object_get(root, "data"), "activeTargets");
	if (!json_is_array(targets)) {
		fail(out, "Prometheus at %s answered /api/v1/targets with HTTP %ld and no activeTargets", prom->base,
		     r.status);
		json_decref(root);
		http_response_release(&r);
		return;
	}
	json_t *hit = NULL, *t;
	size_t i;
	json_array_foreach(targets, i, t)
	{
		json_t *labels = json_object_get(t, "labels");
		int job_ok = !job || strcmp(str(labels, "job"), job) == 0;
		int inst_ok = !instance || strcmp(str(labels, "instance"), instance) == 0;
		if (job_ok && inst_ok) {
			hit = t;
			break;
		}
		if (job && job_ok && !hit)
			hit = t; /* the job's target at another address: still this endpoint's job */
	}
	const char *at = hit ? str(json_object_get(hit, "labels"), "instance") : "";
	if (hit && exact && instance && strcmp(at, instance) != 0) {
		fail(out,
		     "Prometheus at %s scrapes job '%s' at %s, not at %s (SCRAPE_HOST): the target zealot emit "
		     "prometheus writes is not the one it scrapes",
		     prom->base, job ? job : "?", at, instance);
	} else if (!hit) {
		if (job)
			fail(out,
			     "Prometheus at %s scrapes no target of job '%s' (%zu active targets): add the job "
			     "zealot emit prometheus writes",
			     prom->base, job, json_array_size(targets));
		else
			fail(out, "Prometheus at %s scrapes no target at %s (%zu active targets)", prom->base,
			     instance ? instance : "?", json_array_size(targets));
	} else {
		const char *health = str(hit, "health"), *err = str(hit, "lastError"), *url = str(hit, "scrapeUrl");
		if (strcmp(health, "up") != 0 || *err) {
			fail(out, "the scrape of %s (job %s) is %s%s%s%s", url,
			     str(json_object_get(hit, "labels"), "job"), *health ? health : "unknown",
			     *err ? ": lastError: " : "", err,
			     strstr(err, "501") ? " (the engine runs without --metrics: METRICS=0, law C04)"
			     : !*err && strcmp(health, "unknown") == 0 ? " (not scraped yet)"
								       : "");
		} else {
			struct sb b = {0};
			sb_addf(&b, "the scrape of %s (job %s) is up, last at %s in %.3f s", url,
				str(json_object_get(hit, "labels"), "job"), str(hit, "lastScrape"),
				json_number_value(json_object_get(hit, "lastScrapeDuration")));
			out->status = PROBE_PASS;
			out->evidence = sb_detach(&b);
		}
	}
	json_decref(root);
	http_response_release(&r);
}
