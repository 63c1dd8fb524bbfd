#include "bench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/util.h"

static char *body_for(long run, uint64_t prompt_tokens, uint64_t max_tokens)
{
	struct sb b = {0};
	/* unique per run and per process: no prefix-cache hit */
	sb_addf(&b,
		"{\"max_tokens\":%llu,\"ignore_eos\":true,\"cache_prompt\":false,\"messages\":[{\"role\":\"user\","
		"\"content\":\"bench %ld-%ld-%ld:",
		(unsigned long long)max_tokens, (long)getpid(), (long)time(NULL), run);
	for (uint64_t i = 0; i < prompt_tokens; i++)
		sb_add(&b, " x", 2);
	sb_adds(&b, "\"}]}");
	return sb_detach(&b);
}

static int parse_sample(const struct http_response *r, struct bench_sample *s, char **err)
{
	if (r->status != 200)
		return errorf(err, "HTTP %ld%s%s: %.200s", r->status, r->error[0] ? ": " : "", r->error,
			      r->body.s ? r->body.s : "");
	json_t *j = json_loadb(r->body.s, r->body.len, JSON_ALLOW_NUL, NULL);
	json_t *t = json_object_get(j, "timings");
	if (!t) {
		json_decref(j);
		return errorf(err, "the answer carries no timings");
	}
	s->prompt_ps = json_number_value(json_object_get(t, "prompt_per_second"));
	s->predicted_ps = json_number_value(json_object_get(t, "predicted_per_second"));
	s->prompt_ms = json_number_value(json_object_get(t, "prompt_ms"));
	s->predicted_ms = json_number_value(json_object_get(t, "predicted_ms"));
	s->prompt_n = json_integer_value(json_object_get(t, "prompt_n"));
	s->predicted_n = json_integer_value(json_object_get(t, "predicted_n"));
	s->draft_n = json_integer_value(json_object_get(t, "draft_n"));
	s->draft_accepted = json_integer_value(json_object_get(t, "draft_n_accepted"));
	json_decref(j);
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Min, median and max of the double at offset off in each of n samples. */
static struct bench_stats stats_of(const struct bench_sample *s, size_t n, size_t off)
{
	struct bench_stats st = {0, 0, 0};
	if (!n)
		return st;
	double *v = xcalloc(n, sizeof(*v));
	for (size_t i = 0; i < n; i++)
		memcpy(&v[i], (const char *)&s[i] + off, sizeof(*v));
	qsort(v, n, sizeof(*v), cmp_double);
	st.min = v[0];
	st.max = v[n - 1];
	st.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	free(v);
	return st;
}

/* llamacpp:tokens_predicted_total and _seconds_total from /metrics. */
static int counters(const struct http_client *c, double *tokens, double *seconds)
{
	struct http_response r;
	if (http_request(c, "GET", "/metrics", NULL, &r) || r.status != 200) {
		http_response_release(&r);
		return -1;
	}
	static const char tk[] = "\nllamacpp:tokens_predicted_total ";
	static const char sk[] = "\nllamacpp:tokens_predicted_seconds_total ";
	const char *a = r.body.s ? strstr(r.body.s, tk) : NULL;
	const char *b = r.body.s ? strstr(r.body.s, sk) : NULL;
	int rc = a && b ? 0 : -1;
	if (!rc) {
		*tokens = strtod(a + sizeof(tk) - 1, NULL);
		*seconds = strtod(b + sizeof(sk) - 1, NULL);
	}
	http_response_release(&r);
	return rc;
}

/* n simultaneous requests, runs first .. first + n - 1 (a run < 0 is the
 * warm-up) of ptok prompt tokens; their timings into s[0 .. n - 1]. */
static int batch(const struct http_client *c, const struct bench *b, long first, uint64_t n, uint64_t ptok,
		 struct bench_sample *s, char **err)
{
	char **bodies = xcalloc(n, sizeof(*bodies));
	struct http_response *rs = xcalloc(n, sizeof(*rs));
	for (uint64_t i = 0; i < n; i++)
		bodies[i] = body_for(first + (long)i, ptok, b->mtok);
	http_parallel(c, "/v1/chat/completions", bodies, n, rs);
	int bad = 0;
	for (uint64_t i = 0; i < n; i++) {
		if (!bad)
			bad = parse_sample(&rs[i], &s[i], err);
		free(bodies[i]);
		http_response_release(&rs[i]);
	}
	free(bodies);
	free(rs);
	return bad;
}

static void progress(const struct bench *b, const char *what, uint64_t i, uint64_t n)
{
	if (b->on_progress)
		b->on_progress(what, i, n, b->arg);
}

static void summarise(struct bench *b)
{
	double sum_n = 0, sum_ms = 0;
	for (uint64_t i = 0; i < b->runs; i++) {
		sum_n += (double)b->single[i].predicted_n;
		sum_ms += b->single[i].predicted_ms;
		b->drafted += b->single[i].draft_n;
		b->accepted += b->single[i].draft_accepted;
	}
	b->prefill = stats_of(b->single, b->runs, offsetof(struct bench_sample, prompt_ps));
	b->decode = stats_of(b->single, b->runs, offsetof(struct bench_sample, predicted_ps));
	b->timings_rate = sum_ms > 0 ? sum_n * 1000.0 / sum_ms : 0;
	b->metrics_rate = b->have_counters && b->sec1 > b->sec0 ? (b->tok1 - b->tok0) / (b->sec1 - b->sec0) : 0;
	if (b->conc > 1) {
		for (uint64_t i = 0; i < b->conc; i++)
			b->aggregate += b->multi[i].predicted_ps;
		b->per_stream = stats_of(b->multi, b->conc, offsetof(struct bench_sample, predicted_ps));
	}
}

/* The warm-up (discarded, A05), the single-stream runs between two reads
 * of the /metrics counters, then conc simultaneous streams, then the
 * ladder. */
enum zerr bench_run(const struct http_client *c, struct bench *b, char **err)
{
	b->single = xcalloc(b->runs ? b->runs : 1, sizeof(*b->single));
	b->multi = xcalloc(b->conc ? b->conc : 1, sizeof(*b->multi));
	progress(b, "warm-up", 0, 1);
	if (batch(c, b, -1, 1, b->ptok, &b->warm, err))
		return ZE_IO;
	b->have_counters = counters(c, &b->tok0, &b->sec0) == 0;
	for (uint64_t i = 0; i < b->runs; i++) {
		progress(b, "single stream", i + 1, b->runs);
		if (batch(c, b, (long)i, 1, b->ptok, &b->single[i], err))
			return ZE_IO;
	}
	b->have_counters = b->have_counters && counters(c, &b->tok1, &b->sec1) == 0;
	if (b->conc > 1) {
		progress(b, "simultaneous streams", b->conc, b->conc);
		if (batch(c, b, 1000000, b->conc, b->ptok, b->multi, err))
			return ZE_IO;
	}
	for (size_t i = 0; i < BENCH_LADDER_MAX && b->ladder[i]; i++) {
		progress(b, "prefill ladder", i + 1, BENCH_LADDER_MAX);
		if (batch(c, b, 2000000 + (long)i, 1, b->ladder[i], &b->ladder_s[i], err))
			return ZE_IO;
	}
	summarise(b);
	return ZE_OK;
}

void bench_release(struct bench *b)
{
	free(b->single);
	free(b->multi);
	b->single = b->multi = NULL;
}

static json_t *jstats(struct bench_stats s)
{
	return json_pack("{s:f,s:f,s:f}", "min", s.min, "median", s.median, "max", s.max);
}

json_t *bench_json(const char *url, const struct bench *b)
{
	json_t *o = json_pack("{s:s,s:I,s:I,s:I}", "url", url, "runs", (json_int_t)b->runs, "prompt_tokens",
			      (json_int_t)(b->runs ? b->single[0].prompt_n : 0), "max_tokens", (json_int_t)b->mtok);
	json_object_set_new(o, "warmup_decode_tps", json_real(b->warm.predicted_ps));
	json_object_set_new(o, "prefill_tps", jstats(b->prefill));
	json_object_set_new(o, "decode_tps", jstats(b->decode));
	json_object_set_new(o, "decode_tps_timings", json_real(b->timings_rate));
	json_object_set_new(o, "decode_tps_metrics", b->have_counters ? json_real(b->metrics_rate) : json_null());
	json_object_set_new(o, "concurrent",
			    b->conc > 1
				? json_pack("{s:I,s:f,s:o}", "streams", (json_int_t)b->conc, "aggregate_decode_tps",
					    b->aggregate, "per_stream_decode_tps", jstats(b->per_stream))
				: json_null());
	json_object_set_new(o, "draft",
			    b->drafted
				? json_pack("{s:I,s:I,s:f}", "drafted", (json_int_t)b->drafted, "accepted",
					    (json_int_t)b->accepted, "acceptance", (double)b->accepted / b->drafted)
				: json_null());
	if (b->ladder[0]) {
		json_t *l = json_array();
		for (size_t i = 0; i < BENCH_LADDER_MAX && b->ladder[i]; i++)
			json_array_append_new(l, json_pack("{s:I,s:I,s:f}", "asked", (json_int_t)b->ladder[i],
							   "prompt_tokens", (json_int_t)b->ladder_s[i].prompt_n,
							   "prefill_tps", b->ladder_s[i].prompt_ps));
		json_object_set_new(o, "prefill_ladder", l);
	}
	return o;
}

static size_t add(struct bench_figure *out, size_t n, size_t max, const char *name, const json_t *v)
{
	if (n >= max || !json_is_number(v))
		return n;
	snprintf(out[n].name, sizeof(out[n].name), "%s", name);
	out[n].value = json_number_value(v);
	return n + 1;
}

size_t bench_figures(const json_t *j, struct bench_figure *out, size_t max)
{
	size_t n = 0;
	n = add(out, n, max, "prefill_tps", json_object_get(json_object_get(j, "prefill_tps"), "median"));
	n = add(out, n, max, "decode_tps", json_object_get(json_object_get(j, "decode_tps"), "median"));
	n = add(out, n, max, "decode_tps_timings", json_object_get(j, "decode_tps_timings"));
	n = add(out, n, max, "decode_tps_metrics", json_object_get(j, "decode_tps_metrics"));
	n = add(out, n, max, "aggregate_decode_tps",
		json_object_get(json_object_get(j, "concurrent"), "aggregate_decode_tps"));
	n = add(out, n, max, "draft_acceptance", json_object_get(json_object_get(j, "draft"), "acceptance"));
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(j, "prefill_ladder"), i, r)
	{
		char name[40];
		snprintf(name, sizeof(name), "prefill_tps@%lld",
			 (long long)json_integer_value(json_object_get(r, "prompt_tokens")));
		n = add(out, n, max, name, json_object_get(r, "prefill_tps"));
	}
	return n;
}
