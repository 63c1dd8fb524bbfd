/* zealot bench URL [--runs N] [--concurrency N] [--json] */
#include <jansson.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../live/bench.h"
#include "../live/http.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_BENCH};

static void on_progress(const char *what, uint64_t i, uint64_t n, void *arg)
{
	(void)arg;
	if (strcmp(what, "single stream") == 0)
		fprintf(stderr, "\rbench: single stream, run %llu/%llu%s", (unsigned long long)i, (unsigned long long)n,
			i == n ? "\n" : "");
	else if (strcmp(what, "warm-up") == 0)
		fprintf(stderr, "bench: warm-up request (discarded)\n");
	else if (strcmp(what, "simultaneous streams") == 0)
		fprintf(stderr, "bench: %llu simultaneous streams\n", (unsigned long long)n);
}

static void print_json(const char *url, const struct bench *b)
{
	json_t *o = bench_json(url, b);
	cmd_print_json(o, 10);
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

static struct bench b = {.runs = 5, .conc = 1, .ptok = 512, .mtok = 128};
static uint64_t timeout = 600;
static const char *keyfile;
static int json;
static const struct opt opts[] = {
    OPT_U64(0, "runs", &b.runs, "N", 1, 10000, "single-stream runs after the warm-up (default 5)"),
    OPT_U64(0, "concurrency", &b.conc, "N", 1, 256, "simultaneous streams for the aggregate (default 1: none)"),
    OPT_U64(0, "prompt-tokens", &b.ptok, "N", 1, 1000000, "approximate prompt length (default 512)"),
    OPT_U64(0, "max-tokens", &b.mtok, "N", 1, 1000000, "tokens generated per request (default 128)"),
    OPT_STRING(0, "api-key-file", &keyfile, "F", "authenticate with the key in F"),
    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 1000000, "per request (default 600)"),
    OPT_JSON(&json),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	int rc;
	struct http_client c = {.base = xstrdup(args->v[0]), .timeout_ms = (long)timeout * 1000};
	for (size_t n = strlen(c.base); n && c.base[n - 1] == '/';)
		c.base[--n] = '\0';
	if (keyfile && !(c.api_key = endpoint_read_key(keyfile))) {
		free(c.base);
		return cmd_fail(cmd_exit(ZE_IO), "bench: cannot read the key in '%s'", keyfile);
	}
	char *err = NULL;
	if (isatty(2))
		b.on_progress = on_progress;
	enum zerr kind = bench_run(&c, &b, &err);
	rc = kind != ZE_OK ? cmd_fail(cmd_exit(kind), "bench: %s", err) : EXIT_OK;
	if (rc == EXIT_OK) {
		if (json)
			print_json(c.base, &b);
		else
			print_human(c.base, &b);
	}
	free(err);
	bench_release(&b);
	free(c.base);
	free(c.api_key);
	return rc;
}

const struct command cmd_bench = {"bench", &help, opts, run, NULL};
