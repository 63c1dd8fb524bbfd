/* bench: prefill and decode rates of a live engine from its own `timings`
 * (law A05), never the wall clock. Every request has a unique prompt (no
 * prefix-cache hit) and ignore_eos; the first request is a warm-up and is
 * discarded. The single-stream runs sit between two reads of the engine's
 * /metrics counters; then, optionally, N simultaneous streams, and a
 * prefill ladder (one request per prompt size).
 *
 * `zealot bench` prints what this measures; `zealot arm` measures
 * production and a candidate with it and stores bench_json()'s object.
 */
#ifndef ZEALOT_BENCH_H
#define ZEALOT_BENCH_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/zerr.h"
#include "http.h"

struct bench_sample {
	double prompt_ps, predicted_ps, prompt_ms, predicted_ms;
	long long prompt_n, predicted_n, draft_n, draft_accepted;
};

struct bench_stats {
	double min, median, max;
};

#define BENCH_LADDER_MAX 8

/* What one bench asks for, what it measured and what that comes to. */
struct bench {
	/* asked: set before bench_run */
	uint64_t runs, conc, ptok, mtok;
	uint64_t ladder[BENCH_LADDER_MAX]; /* prompt sizes for the prefill ladder, 0-terminated */
	void (*on_progress)(const char *what, uint64_t i, uint64_t n, void *arg); /* or NULL */
	void *arg;

	/* measured */
	int have_counters;
	struct bench_sample warm, *single, *multi, ladder_s[BENCH_LADDER_MAX];
	double tok0, sec0, tok1, sec1; /* /metrics counters around the single-stream runs */
	struct bench_stats prefill, decode, per_stream;
	double timings_rate, metrics_rate, aggregate;
	long long drafted, accepted;
};

/* Measure (allocates b->single and b->multi) and summarise. ZE_OK, or
 * ZE_IO with *err (the first request that failed). */
enum zerr bench_run(const struct http_client *c, struct bench *b, char **err);
void bench_release(struct bench *b);

/* The figures as `zealot bench --json` prints them. */
json_t *bench_json(const char *url, const struct bench *b);

/* The headline figures of a bench_json object, by name, for deltas and
 * tables: "prefill_tps" (median), "decode_tps" (median),
 * "decode_tps_timings", "decode_tps_metrics", "aggregate_decode_tps",
 * "draft_acceptance", "prefill_tps@N" (the ladder). Returns how many were
 * present (up to max); names are borrowed from j or static. */
struct bench_figure {
	char name[40];
	double value;
};
size_t bench_figures(const json_t *j, struct bench_figure *out, size_t max);

#endif
