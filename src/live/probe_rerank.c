/* probe_rerank: the rerank answer of an endpoint that serves one
 * (EMBEDDINGS=on with POOLING=rank renders --embeddings --pooling rank).
 * The pinned server answers /v1/rerank (and /rerank, /reranking,
 * /v1/reranking) in Jina's form: results, one per document unless top_n
 * cuts them, each its document's index and a relevance_score, sorted best
 * first (tools/server/server-common.cpp format_response_rerank). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/util.h"
#include "probe_int.h"

#define RERANK_DOCS 3
#define RERANK_BODY                                                                                                    \
	"{\"query\":\"What colour is the sky?\",\"documents\":[\"The sky is blue.\",\"Grass is green.\","              \
	"\"Snow is white.\"]}"

/* What is wrong with the results (NULL: nothing): one per document, every
 * index once, numeric scores, best first. */
static char *rerank_shape(json_t *res)
{
	if (!json_is_array(res))
		return xstrf("no results array");
	if (json_array_size(res) != RERANK_DOCS)
		return xstrf("%zu results for %d documents", json_array_size(res), RERANK_DOCS);
	int seen[RERANK_DOCS] = {0};
	double prev = 0;
	for (size_t i = 0; i < RERANK_DOCS; i++) {
		json_t *r = json_array_get(res, i), *ix = json_object_get(r, "index"),
		       *sc = json_object_get(r, "relevance_score");
		if (!json_is_integer(ix) || json_integer_value(ix) < 0 || json_integer_value(ix) >= RERANK_DOCS ||
		    seen[json_integer_value(ix)]++)
			return xstrf("result %zu: no index of its own among 0..%d", i, RERANK_DOCS - 1);
		if (!json_is_number(sc))
			return xstrf("result %zu: no numeric relevance_score", i);
		if (i && json_number_value(sc) > prev)
			return xstrf("result %zu scores %g, above the one before (%g): not best first", i,
				     json_number_value(sc), prev);
		prev = json_number_value(sc);
	}
	return NULL;
}

void probe_rerank(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (!e->rerank) {
		probe_push(out, "rerank", "C06", PROBE_SKIP,
			   xstrf("the endpoint does not set EMBEDDINGS=on with POOLING=rank"));
		return;
	}
	struct http_response r;
	char why[512];
	json_t *j = probe_get_json(c, "POST", "/v1/rerank", RERANK_BODY, &r, why, sizeof(why));
	if (!j)
		probe_push(out, "rerank", "C06", PROBE_FAIL, xstrf("%s", why));
	else if (r.status != 200)
		probe_push(out, "rerank", "C06", PROBE_FAIL, xstrf("POST /v1/rerank: HTTP %ld", r.status));
	else {
		json_t *res = json_object_get(j, "results");
		char *bad = rerank_shape(res);
		if (bad)
			probe_push(out, "rerank", "C06", PROBE_FAIL, xstrf("POST /v1/rerank: %s", bad));
		else
			probe_push(
			    out, "rerank", "C06", PROBE_PASS,
			    xstrf("%d documents ranked, each index once, best first (top score %g)", RERANK_DOCS,
				  json_number_value(json_object_get(json_array_get(res, 0), "relevance_score"))));
		free(bad);
	}
	json_decref(j);
	http_response_release(&r);
}
