/* http: the requests zealot makes to an engine, through libcurl. Every
 * request has a timeout and a cap on the answer's size, so an engine that
 * hangs, resets or floods gets a named failure, never a hang of zealot.
 */
#ifndef ZEALOT_HTTP_H
#define ZEALOT_HTTP_H

#include <stddef.h>

#include "../base/util.h"

#define HTTP_MAX_BODY (32u << 20) /* an engine answer larger than this is garbage */

struct http_response {
	long status; /* 0 when no HTTP answer came */
	struct sb body;
	double seconds;	 /* wall time of the request */
	char error[256]; /* transport error ("connection refused", "timed out") */
};

struct http_client {
	char *base;    /* "http://127.0.0.1:8080" without a trailing slash */
	char *api_key; /* sent as a bearer token, or NULL */
	long timeout_ms;
};

/* A router's member to address (live/router_log.h): from now on every GET
 * asks ?model=NAME and every JSON body without a "model" gets "model":
 * NAME, the way the engine's router picks the child; NULL: none (the
 * default). The process's one setting, for the command that probes a
 * router's members one after the other. */
void http_route_model(const char *model);

/* One request: method "GET" or "POST" (body JSON, or NULL). Returns 0 when
 * an HTTP answer came (any status), -1 on a transport error (r->error). */
int http_request(const struct http_client *c, const char *method, const char *path, const char *body,
		 struct http_response *r);
void http_response_release(struct http_response *r);

/* Send n POSTs at once (curl multi) and wait for all; results in r[0..n).
 * Requests start together; each has the client's timeout. */
int http_parallel(const struct http_client *c, const char *path, char *const *bodies, size_t n,
		  struct http_response *r);

#endif
