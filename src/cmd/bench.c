/* zealot bench URL [--runs N] [--concurrency N] [--json] */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/util.h"
#include "../live/http.h"
#include "cmd.h"

static const char usage[] =
    "usage: zealot bench URL [--runs N] [--concurrency N] [--prompt-tokens N] [--max-tokens N] [--json]\n"
    "\n"
    "Prefill and decode rates from the engine's own `timings` (law A05), never\n"
    "wall clock: every request uses a unique prompt (no cache hits) and\n"
    "ignore_eos (a generation that stops on its own reads low), and the first\n"
    "request after boot is discarded (a 3x warm-up artifact). Reports min,\n"
    "median and max over the runs, single-stream and N-stream aggregate, draft\n"
    "acceptance when the engine drafts, and the decode rate the engine's own\n"
    "/metrics counters give over the single-stream runs.\n"
    "\n"
    "  --runs N           single-stream runs after the warm-up (default 5)\n"
    "  --concurrency N    simultaneous streams for the aggregate (default 1: none)\n"
    "  --prompt-tokens N  approximate prompt length (default 512)\n"
    "  --max-tokens N     tokens generated per request (default 128)\n"
    "  --api-key-file F   authenticate with the key in F\n"
    "  --timeout SECONDS  per request (default 600)\n"
    "  --json             one JSON object\n"
    "  -h, --help         this text\n"
    "\n"
    "exit: 0, 2 usage, 3 the engine did not answer\n";

struct sample {
	double prompt_ps, predicted_ps, prompt_ms, predicted_ms;
	long long prompt_n, predicted_n, draft_n, draft_accepted;
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

struct stats {
	double min, median, max;
};

static struct stats stats_of(double *v, size_t n)
{
	struct stats s = {0, 0, 0};
	if (!n)
		return s;
	qsort(v, n, sizeof(*v), cmp_double);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return s;
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

static json_t *jstats(struct stats s)
{
	return json_pack("{s:f,s:f,s:f}", "min", s.min, "median", s.median, "max", s.max);
}

int cmd_bench(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"runs", required_argument, NULL, 'r'},
	    {"concurrency", required_argument, NULL, 'c'},
	    {"prompt-tokens", required_argument, NULL, 'p'},
	    {"max-tokens", required_argument, NULL, 'm'},
	    {"api-key-file", required_argument, NULL, 'k'},
	    {"timeout", required_argument, NULL, 't'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	uint64_t runs = 5, conc = 1, ptok = 512, mtok = 128, timeout = 600;
	const char *keyfile = NULL;
	int json = 0, ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		uint64_t *target = ch == 'r'   ? &runs
				   : ch == 'c' ? &conc
				   : ch == 'p' ? &ptok
				   : ch == 'm' ? &mtok
				   : ch == 't' ? &timeout
					       : NULL;
		switch (ch) {
		case 'r':
		case 'c':
		case 'p':
		case 'm':
		case 't':
			if (parse_u64(optarg, target) || *target == 0 || *target > 1000000)
				return cmd_fail(EXIT_USAGE, "bench: bad number '%s'", optarg);
			break;
		case 'k': keyfile = optarg; break;
		case 'j': json = 1; break;
		case 'h': fputs(usage, stdout); return EXIT_OK;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 1 || runs > 10000 || conc > 256) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	struct http_client c = {0};
	c.base = xstrdup(argv[optind]);
	size_t bl = strlen(c.base);
	while (bl && c.base[bl - 1] == '/')
		c.base[--bl] = '\0';
	c.timeout_ms = (long)timeout * 1000;
	if (keyfile) {
		FILE *f = fopen(keyfile, "r");
		char line[1024];
		if (!f || !fgets(line, sizeof(line), f)) {
			if (f)
				fclose(f);
			free(c.base);
			return cmd_fail(EXIT_IO, "bench: cannot read the key in '%s'", keyfile);
		}
		fclose(f);
		line[strcspn(line, "\r\n")] = '\0';
		c.api_key = xstrdup(line);
	}
	int tty = isatty(2);
	char *err = NULL;
	int rc = EXIT_OK;
	struct sample *single = xcalloc(runs, sizeof(*single));
	struct sample *multi = xcalloc(conc, sizeof(*multi));
	double *v = xcalloc(runs > conc ? runs : conc, sizeof(*v));
	struct http_response r;

	/* the warm-up: discarded (A05) */
	char *body = body_for(-1, ptok, mtok);
	if (tty)
		fprintf(stderr, "bench: warm-up request (discarded)\n");
	http_request(&c, "POST", "/v1/chat/completions", body, &r);
	free(body);
	struct sample warm;
	if (parse_sample(&r, &warm, &err)) {
		http_response_release(&r);
		rc = EXIT_IO;
		goto done;
	}
	http_response_release(&r);

	double tok0 = 0, sec0 = 0, tok1 = 0, sec1 = 0;
	int have_counters = counters(&c, &tok0, &sec0) == 0;
	for (uint64_t i = 0; i < runs; i++) {
		if (tty)
			fprintf(stderr, "\rbench: single stream, run %llu/%llu", (unsigned long long)i + 1,
				(unsigned long long)runs);
		body = body_for((long)i, ptok, mtok);
		http_request(&c, "POST", "/v1/chat/completions", body, &r);
		free(body);
		int bad = parse_sample(&r, &single[i], &err);
		http_response_release(&r);
		if (bad) {
			rc = EXIT_IO;
			goto done;
		}
	}
	if (tty)
		fprintf(stderr, "\n");
	have_counters = have_counters && counters(&c, &tok1, &sec1) == 0;

	if (conc > 1) {
		if (tty)
			fprintf(stderr, "bench: %llu simultaneous streams\n", (unsigned long long)conc);
		char **bodies = xcalloc(conc, sizeof(*bodies));
		struct http_response *rs = xcalloc(conc, sizeof(*rs));
		for (uint64_t i = 0; i < conc; i++)
			bodies[i] = body_for(1000000 + (long)i, ptok, mtok);
		http_parallel(&c, "/v1/chat/completions", bodies, conc, rs);
		int bad = 0;
		for (uint64_t i = 0; i < conc; i++) {
			if (!bad)
				bad = parse_sample(&rs[i], &multi[i], &err);
			free(bodies[i]);
			http_response_release(&rs[i]);
		}
		free(bodies);
		free(rs);
		if (bad) {
			rc = EXIT_IO;
			goto done;
		}
	}

	double sum_n = 0, sum_ms = 0;
	long long drafted = 0, accepted = 0;
	for (uint64_t i = 0; i < runs; i++) {
		sum_n += (double)single[i].predicted_n;
		sum_ms += single[i].predicted_ms;
		drafted += single[i].draft_n;
		accepted += single[i].draft_accepted;
	}
	for (uint64_t i = 0; i < runs; i++)
		v[i] = single[i].prompt_ps;
	struct stats prefill = stats_of(v, runs);
	for (uint64_t i = 0; i < runs; i++)
		v[i] = single[i].predicted_ps;
	struct stats decode = stats_of(v, runs);
	double timings_rate = sum_ms > 0 ? sum_n * 1000.0 / sum_ms : 0;
	double metrics_rate = have_counters && sec1 > sec0 ? (tok1 - tok0) / (sec1 - sec0) : 0;
	double aggregate = 0;
	struct stats per_stream = {0, 0, 0};
	if (conc > 1) {
		for (uint64_t i = 0; i < conc; i++) {
			aggregate += multi[i].predicted_ps;
			v[i] = multi[i].predicted_ps;
		}
		per_stream = stats_of(v, conc);
	}
	if (json) {
		json_t *o = json_pack("{s:s,s:I,s:I,s:I}", "url", c.base, "runs", (json_int_t)runs, "prompt_tokens",
				      (json_int_t)single[0].prompt_n, "max_tokens", (json_int_t)mtok);
		json_object_set_new(o, "warmup_decode_tps", json_real(warm.predicted_ps));
		json_object_set_new(o, "prefill_tps", jstats(prefill));
		json_object_set_new(o, "decode_tps", jstats(decode));
		json_object_set_new(o, "decode_tps_timings", json_real(timings_rate));
		json_object_set_new(o, "decode_tps_metrics", have_counters ? json_real(metrics_rate) : json_null());
		if (conc > 1)
			json_object_set_new(o, "concurrent",
					    json_pack("{s:I,s:f,s:o}", "streams", (json_int_t)conc,
						      "aggregate_decode_tps", aggregate, "per_stream_decode_tps",
						      jstats(per_stream)));
		else
			json_object_set_new(o, "concurrent", json_null());
		if (drafted)
			json_object_set_new(o, "draft",
					    json_pack("{s:I,s:I,s:f}", "drafted", (json_int_t)drafted, "accepted",
						      (json_int_t)accepted, "acceptance", (double)accepted / drafted));
		else
			json_object_set_new(o, "draft", json_null());
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
		puts(s);
		free(s);
		json_decref(o);
	} else {
		printf("bench %s: %llu runs of %lld prompt + %llu generated tokens (warm-up discarded: %.1f t/s)\n",
		       c.base, (unsigned long long)runs, single[0].prompt_n, (unsigned long long)mtok,
		       warm.predicted_ps);
		printf("%-26s %10s %10s %10s\n", "", "min", "median", "max");
		printf("%-26s %10.1f %10.1f %10.1f  t/s\n", "prefill", prefill.min, prefill.median, prefill.max);
		printf("%-26s %10.1f %10.1f %10.1f  t/s\n", "decode", decode.min, decode.median, decode.max);
		printf("%-26s %10.1f  t/s (all runs' tokens / their decode time)\n", "decode, timings", timings_rate);
		if (have_counters)
			printf("%-26s %10.1f  t/s (the engine's /metrics counters over the same runs)\n",
			       "decode, /metrics", metrics_rate);
		if (conc > 1)
			printf("%-26s %10.1f  t/s aggregate over %llu streams (per stream %.1f .. %.1f)\n",
			       "decode, concurrent", aggregate, (unsigned long long)conc, per_stream.min,
			       per_stream.max);
		if (drafted)
			printf("%-26s %lld of %lld drafted tokens accepted (%.3f)\n", "draft", accepted, drafted,
			       (double)accepted / drafted);
	}
done:
	if (err)
		cmd_fail(rc, "bench: %s", err);
	free(err);
	free(single);
	free(multi);
	free(v);
	free(c.base);
	free(c.api_key);
	return rc;
}
