/* probe_int: what probe.c shares with the probes kept in their own file
 * (probe_stream.c: the streamed completion and the long window;
 * probe_rerank.c: the rerank answer). Not a
 * module interface: only src/live/probe*.c include it.
 */
#ifndef ZEALOT_PROBE_INT_H
#define ZEALOT_PROBE_INT_H

#include <jansson.h>

#include "http.h"
#include "probe.h"

/* Append one result with its evidence (owned, allocated); returns it. */
struct probe_result *probe_push(struct probe_results *out, const char *name, const char *law, enum probe_status st,
				char *evidence);

/* stream: the same deterministic request (temperature 0, no prompt cache)
 * streamed and not: events arrive, the last carries a finish_reason, the
 * stream ends with data: [DONE], and the streamed text (content and
 * reasoning_content) equals the plain answer's. */
void probe_stream(const struct http_client *c, const struct probe_expect *e, struct probe_results *out);

/* long: one prompt filling the per-slot window to 32 tokens short of its
 * end is served (HTTP 200), and usage.prompt_tokens counts it within 64 of
 * the window (M03: the window a client is told is the one it gets). */
void probe_long(const struct http_client *c, const struct probe_expect *e, struct probe_results *out);

/* rerank (EMBEDDINGS=on, POOLING=rank): /v1/rerank answers a query and
 * three documents with a result for each, every index once, a numeric
 * relevance_score, best first (probe_rerank.c). */
void probe_rerank(const struct http_client *c, const struct probe_expect *e, struct probe_results *out);

/* A JSON answer of the engine: the response in *r (release it), the parsed
 * body, or NULL with why (no answer, or not JSON). */
json_t *probe_get_json(const struct http_client *c, const char *method, const char *path, const char *body,
		       struct http_response *r, char *why, size_t why_n);

#endif
