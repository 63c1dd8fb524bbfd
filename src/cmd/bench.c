/* zealot bench URL [--runs N] [--concurrency N] [--json] */
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/util.h"
#include "../live/http.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_BENCH};

struct sample {
	double prompt_ps, predicted_ps, prompt_ms, predicted_ms;
	long long prompt_n, predicted_n, draft_n, draft_accepted;
};

struct stats {
	double min, median, max;
};

/* What one bench asks for, what it measured and what that comes to. */
struct bench {
	uint64_t runs, conc, ptok, mtok;
	int tty, have_counters;
	struct sample warm, *single, *multi;
	double tok0, sec0, tok1, sec1; /* /metrics counters around the single-stream runs */
	struct stats prefill, decode, per_stream;
	double timings_rate, metrics_rate, aggregate;
	long long drafted, accepted;
};

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

static int parse_sample(const struct http_response *r, struct sample *s, char **err)
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
static struct stats stats_of(const struct sample *s, size_t n, size_t off)
{
	struct stats st = {0, 0, 0};
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
 * warm-up); their timings into s[0 .. n - 1]. */
static int batch(const struct http_client *c, const struct bench *b, long first, uint64_t n, struct sample *s,
		 char **err)
{
	char **bodies = xcalloc(n, sizeof(*bodies));
	struct http_response *rs = xcalloc(n, sizeof(*rs));
	for (uint64_t i = 0; i < n; i++)
		bodies[i] = body_for(first + (long)i, b->ptok, b->mtok);
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

/* The warm-up (discarded, A05), the single-stream runs between two reads
 * of the /metrics counters, then conc simultaneous streams. */
static int bench_run(const struct http_client *c, struct bench *b, char **err)
{
	if (b->tty)
		fprintf(stderr, "bench: warm-up request (discarded)\n");
	if (batch(c, b, -1, 1, &b->warm, err))
		return -1;
	b->have_counters = counters(c, &b->tok0, &b->sec0) == 0;
	for (uint64_t i = 0; i < b->runs; i++) {
		if (b->tty)
			fprintf(stderr, "\rbench: single stream, run %llu/%llu", (unsigned long long)i + 1,
				(unsigned long long)b->runs);
		if (batch(c, b, (long)i, 1, &b->single[i], err))
			return -1;
	}
	if (b->tty)
		fprintf(stderr, "\n");
	b->have_counters = b->have_counters && counters(c, &b->tok1, &b->sec1) == 0;
	if (b->conc < 2)
		return 0;
	if (b->tty)
		fprintf(stderr, "bench: %llu simultaneous streams\n", (unsigned long long)b->conc);
	return batch(c, b, 1000000, b->conc, b->multi, err);
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
	b->prefill = stats_of(b->single, b->runs, offsetof(struct sample, prompt_ps));
	b->decode = stats_of(b->single, b->runs, offsetof(struct sample, predicted_ps));
	b->timings_rate = sum_ms > 0 ? sum_n * 1000.0 / sum_ms : 0;
	b->metrics_rate = b->have_counters && b->sec1 > b->sec0 ? (b->tok1 - b->tok0) / (b->sec1 - b->sec0) : 0;
	if (b->conc > 1) {
		for (uint64_t i = 0; i < b->conc; i++)
			b->aggregate += b->multi[i].predicted_ps;
		b->per_stream = stats_of(b->multi, b->conc, offsetof(struct sample, predicted_ps));
	}
}

static json_t *jstats(struct stats s)
{
	return json_pack("{s:f,s:f,s:f}", "min", s.min, "median", s.median, "max", s.max);
}

static void print_json(const char *url, const struct bench *b)
{
	json_t *o = json_pack("{s:s,s:I,s:I,s:I}", "url", url, "runs", (json_int_t)b->runs, "prompt_tokens",
			      (json_int_t)b->single[0].prompt_n, "max_tokens", (json_int_t)b->mtok);
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
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	puts(s);
	free(s);
	json_decref(o);
}

static void print_human(const char *url, const struct bench *b)
{
	printf("bench %s: %llu runs of %lld prompt + %llu generated tokens (warm-up discarded: %.1f t/s)\n", url,
	       (unsigned long long)b->runs, b->single[0].prompt_n, (unsigned long long)b->mtok, b->warm.predicted_ps);
	printf("%-26s %10s %10s %10s\n", "", "min", "median", "max");
	printf("%-26s %10.1f %10.1f %10.1f  t/s\n", "prefill", b->prefill.min, b->prefill.median, b->prefill.max);
	printf("%-26s %10.1f %10.1f %10.1f  t/s\n", "decode", b->decode.min, b->decode.median, b->decode.max);
	printf("%-26s %10.1f  t/s (all runs' tokens / their decode time)\n", "decode, timings", b->timings_rate);
	if (b->have_counters)
		printf("%-26s %10.1f  t/s (the engine's /metrics counters over the same runs)\n", "decode, /metrics",
		       b->metrics_rate);
	if (b->conc > 1)
		printf("%-26s %10.1f  t/s aggregate over %llu streams (per stream %.1f .. %.1f)\n",
		       "decode, concurrent", b->aggregate, (unsigned long long)b->conc, b->per_stream.min,
		       b->per_stream.max);
	if (b->drafted)
		printf("%-26s %lld of %lld drafted tokens accepted (%.3f)\n", "draft", b->accepted, b->drafted,
		       (double)b->accepted / b->drafted);
}

int cmd_bench(int argc, char **argv)
{
	struct bench b = {.runs = 5, .conc = 1, .ptok = 512, .mtok = 128};
	uint64_t timeout = 600;
	const char *keyfile = NULL;
	int json = 0;
	const struct opt opts[] = {
	    OPT_U64(0, "runs", &b.runs, "N", 1, 10000, "single-stream runs after the warm-up (default 5)"),
	    OPT_U64(0, "concurrency", &b.conc, "N", 1, 256, "simultaneous streams for the aggregate (default 1: none)"),
	    OPT_U64(0, "prompt-tokens", &b.ptok, "N", 1, 1000000, "approximate prompt length (default 512)"),
	    OPT_U64(0, "max-tokens", &b.mtok, "N", 1, 1000000, "tokens generated per request (default 128)"),
	    OPT_STRING(0, "api-key-file", &keyfile, "F", "authenticate with the key in F"),
	    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 1000000, "per request (default 600)"),
	    OPT_FLAG(0, "json", &json, "one JSON object"),
	    OPT_END(),
	};
	struct opt_args args;
	int rc = opt_parse("bench", &help, opts, argc, argv, &args);
	if (rc >= 0)
		return rc;
	struct http_client c = {.base = xstrdup(args.v[0]), .timeout_ms = (long)timeout * 1000};
	opt_args_release(&args);
	for (size_t n = strlen(c.base); n && c.base[n - 1] == '/';)
		c.base[--n] = '\0';
	if (keyfile && !(c.api_key = cmd_read_key(keyfile))) {
		free(c.base);
		return cmd_fail(EXIT_IO, "bench: cannot read the key in '%s'", keyfile);
	}
	char *err = NULL;
	b.tty = isatty(2);
	b.single = xcalloc(b.runs, sizeof(*b.single));
	b.multi = xcalloc(b.conc, sizeof(*b.multi));
	rc = bench_run(&c, &b, &err) ? cmd_fail(EXIT_IO, "bench: %s", err) : EXIT_OK;
	if (rc == EXIT_OK) {
		summarise(&b);
		if (json)
			print_json(c.base, &b);
		else
			print_human(c.base, &b);
	}
	free(err);
	free(b.single);
	free(b.multi);
	free(c.base);
	free(c.api_key);
	return rc;
}
