/* zealot probe URL [--endpoint ENDPOINT] [--json] [--only NAMES] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/color.h"
#include "../base/safe.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../live/probe.h"
#include "../live/scrape.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "../store/store.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_PROBE};

/* --only: 0 when every name is a probe's, else says which is not. */
static int unknown_probe(const char *only)
{
	size_t m;
	for (const char *p = only; (p = probe_unknown(p, &m)) != NULL; p += m + (p[m] == ','))
		if (!(m == 6 && strncmp(p, "scrape", 6) == 0)) /* live/scrape.c's, not probe_run's */
			return cmd_fail(EXIT_USAGE, "probe: unknown probe '%.*s'", (int)m, p);
	return 0;
}

/* The probes' results: one JSON object with the verdict (and the era a
 * --record stored them in, when recorded > 0), or a line each, with what
 * a probe expected against what it got and each refusal prompt's answer. */
static void print_results(const char *url, const struct probe_results *res, int failed, int json, int64_t recorded)
{
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "url", json_string(url));
		json_t *arr = json_array();
		for (size_t i = 0; i < res->n; i++)
			json_array_append_new(arr, probe_result_json(&res->v[i]));
		json_object_set_new(o, "probes", arr);
		json_object_set_new(o, "verdict", json_string(failed ? "fail" : "pass"));
		if (recorded)
			json_object_set_new(o, "recorded_era", json_integer(recorded));
		cmd_print_json(o, 0);
		json_decref(o);
		return;
	}
	/* the server's words print as one safe line each (base/safe.h): an
	 * answer's escape sequence never reaches the terminal */
	struct sb a = {0}, b = {0};
	for (size_t i = 0; i < res->n; i++) {
		const struct probe_result *r = &res->v[i];
		const char *st = probe_status_name(r->status);
		printf("%s%-4s%s %-12s %-4s %s\n", color_word(st), st, color_tone(stdout, COLOR_END), r->name,
		       r->law ? r->law : "", safe_str(r->evidence, &a));
		if (r->expected)
			printf("     %-12s      expected: %s\n     %-12s      answer:   %s\n", "",
			       safe_str(r->expected, &a), "", r->answer ? safe_str(r->answer, &b) : "(none)");
		for (size_t k = 0; k < r->n_prompts; k++)
			printf("     %-12s      %s: %s\n     %-12s        -> %s\n", "",
			       r->prompts[k].refused < 0 ? "inconclusive"
			       : r->prompts[k].refused	 ? "refused"
							 : "answered",
			       safe_str(r->prompts[k].prompt, &a), "",
			       r->prompts[k].answer ? safe_str(r->prompts[k].answer, &b) : "(none)");
	}
	sb_release(&a);
	sb_release(&b);
}

/* --record: the answers become the endpoint's current era's baseline.
 * Returns the era's id, or 0 with *err. */
static int64_t record_baseline(const struct endpoint *ep, const struct probe_results *res, char **err)
{
	int64_t recorded = 0;
	struct store *st = store_open(NULL, err);
	struct store_era era = {0};
	int got = st ? store_era_get(st, ep->name, 0, &era, err) : -1;
	char *answers = got == 0 ? probe_results_json(res) : NULL;
	if (got == 1)
		errorf(err, "--record: '%s' has no current era (deploy it first)", ep->name);
	else if (got == 0 && store_baseline_put(st, ep->name, era.id, "probe --record", answers, err) == 0)
		recorded = era.id;
	free(answers);
	store_era_release(&era);
	store_close(st);
	return recorded;
}

/* The engine's base URL from the argument: http(s)://..., or HOST:PORT
 * (or HOST), the engine's plain-HTTP address; no trailing slash. NULL when
 * it is neither. */
static char *base_url(const char *url)
{
	struct sb b = {0};
	if (strncmp(url, "http://", 7) == 0 || strncmp(url, "https://", 8) == 0)
		sb_adds(&b, url);
	else if (!strstr(url, "://") && url[0] && url[0] != '/' && url[0] != '-')
		sb_addf(&b, "http://%s", url);
	else
		return NULL;
	while (b.len && b.s[b.len - 1] == '/')
		b.s[--b.len] = '\0';
	return sb_detach(&b);
}

/* --set and --device: a what-if of --endpoint */
static struct opt_list sets;
static const char *device;

/* --endpoint: what the probes expect of it (alias, slots, window,
 * projector, effort values) and its API key. EXIT_OK, or the exit status
 * with *err. */
static int load_expect(const char *endpoint, struct http_client *c, struct probe_expect *e, struct endpoint **epp,
		       struct shape_ctx *s, char **err)
{
	enum zerr kind;
	struct endpoint *ep = *epp = endpoint_load(endpoint, &kind, err);
	int io = 0;
	struct plan p;
	if (ep && cmd_apply_sets(ep, &sets, err))
		return EXIT_USAGE;
	if (!ep || (kind = shape_load(ep, device, s, &io, err)) != ZE_OK)
		return cmd_exit(kind);
	if (plan_make(s->census->model, s->model->g, &s->shape, s->dev, &s->extras, &p, err))
		return EXIT_USAGE;
	if ((kind = probe_expect_load(ep, s, &p, e, err)) != ZE_OK)
		return cmd_exit(kind);
	char *kf = endpoint_path(ep, "API_KEY_FILE");
	if (kf) {
		c->api_key = endpoint_read_key(kf);
		free(kf);
	}
	return EXIT_OK;
}

/* The scrape probe: whether the Prometheus at prometheus scrapes c's
 * engine, appended to res. */
static void run_scrape(const struct http_client *c, const char *prometheus, const struct endpoint *ep,
		       struct probe_results *res)
{
	struct http_client pc = {0};
	pc.base = xstrdup(prometheus);
	for (size_t m = strlen(pc.base); m && pc.base[m - 1] == '/';)
		pc.base[--m] = '\0';
	pc.timeout_ms = c->timeout_ms < 30000 ? c->timeout_ms : 30000;
	char *at = ep ? scrape_host_instance(ep) : NULL; /* SCRAPE_HOST: that target, exactly */
	char *inst = at ? at : scrape_instance(c->base);
	res->v = xreallocarray(res->v, res->n + 1, sizeof(*res->v));
	(at ? scrape_probe_exact : scrape_probe)(&pc, ep ? ep->name : NULL, inst, &res->v[res->n++]);
	free(inst);
	free(pc.base);
}

/* Every probe asked into res; the status of ZE_IO with *err when the engine gives no
 * HTTP answer at all (a dead server is no verdict on the endpoint). */
static int gather(const struct http_client *c, const struct probe_expect *e, const char *only, const char *prometheus,
		  const struct endpoint *ep, struct probe_results *res, char **err)
{
	int want_scrape = prometheus && (!only || strstr(only, "scrape"));
	int only_scrape = only && want_scrape && strspn(only, "scrape,") == strlen(only);
	char why[256];
	enum zerr kind = only_scrape ? ZE_OK : probe_reachable(c, why, sizeof(why));
	if (kind != ZE_OK) {
		errorf(err, "%s (is the engine running and listening there?)", why);
		return cmd_exit(kind);
	}
	if (!only_scrape)
		probe_run(c, e, only, res);
	if (want_scrape)
		run_scrape(c, prometheus, ep, res);
	return EXIT_OK;
}

static const char *endpoint, *only, *prometheus;
static uint64_t timeout = 300;
static int json, record;
static const struct opt opts[] = {
    OPT_STRING(0, "endpoint", &endpoint, "FILE",
	       "compare with this endpoint (alias, slots, window, projector,\n"
	       "effort values; its API_KEY_FILE authenticates)"),
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "with --endpoint: override a key of it (what-if; repeatable)"),
    OPT_STRING(0, "device", &device, "NAME", "with --endpoint: price its plan on this profile instead of DEVICE"),
    OPT_STRING(0, "prometheus", &prometheus, "PROM_URL",
	       "ask this Prometheus whether it scrapes the endpoint (the scrape probe)"),
    OPT_STRING(0, "only", &only, "NAMES", "comma-separated probe names"),
    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 86400, "per request (default 300)"),
    OPT_FLAG(0, "record", &record,
	     "store the answers as the current era's baseline (needs\n"
	     "--endpoint; the era is its name's in zealot history)"),
    OPT_JSON(&json),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	const char *url = args->v[0];
	if (only && unknown_probe(only))
		return EXIT_USAGE;
	if (record && !endpoint)
		return cmd_fail(EXIT_USAGE, "probe: --record needs --endpoint (the era is the endpoint's)");
	if ((sets.n || device) && (record || !endpoint))
		return cmd_fail(EXIT_USAGE, "probe: --set and --device take --endpoint and no --record (a what-if is "
					    "never recorded)");
	struct http_client c = {0};
	if (!(c.base = base_url(url)))
		return cmd_fail(EXIT_USAGE, "probe: '%s' is not an http:// URL or HOST:PORT", url);
	c.timeout_ms = (long)timeout * 1000;
	if (endpoint && !record && !prometheus && cmd_router_file(endpoint)) {
		int rrc = cmd_router_probe(&c, endpoint, only, json);
		free(c.base);
		return rrc;
	}
	struct probe_expect e = {0};
	e.projector = -1;
	struct endpoint *ep = NULL;
	struct shape_ctx s = {0};
	char *err = NULL;
	int rc = EXIT_OK;
	if (endpoint && (rc = load_expect(endpoint, &c, &e, &ep, &s, &err)) != EXIT_OK)
		goto done;
	if (!prometheus && ep && endpoint_value(ep, "PROMETHEUS_URL") && *endpoint_value(ep, "PROMETHEUS_URL"))
		prometheus = endpoint_value(ep, "PROMETHEUS_URL");
	if (prometheus && strncmp(prometheus, "http://", 7) != 0 && strncmp(prometheus, "https://", 8) != 0) {
		rc = EXIT_USAGE;
		errorf(&err, "--prometheus '%s' is not an http:// URL", prometheus);
		goto done;
	}
	struct probe_results res = {0};
	if ((rc = gather(&c, &e, only, prometheus, ep, &res, &err)) != EXIT_OK)
		goto done;
	int failed = 0, dead = 0;
	for (size_t i = 0; i < res.n; i++) {
		failed |= probe_failed(&res.v[i]);
		dead |= res.v[i].no_answer;
	}
	int64_t recorded = record ? record_baseline(ep, &res, &err) : 0;
	if (record && !recorded) {
		probe_results_release(&res);
		rc = cmd_exit(ZE_IO);
		goto done;
	}
	print_results(c.base, &res, failed, json, recorded);
	probe_results_release(&res);
	rc = dead ? cmd_exit(ZE_IO) : failed ? EXIT_NO : EXIT_OK;
	if (dead)
		errorf(&err, "a server gave no answer (the scrape probe's Prometheus)");
done:
	free(c.base);
	free(c.api_key);
	probe_expect_release(&e);
	shape_release(&s);
	endpoint_free(ep);
	return cmd_end("probe", rc, err);
}

const struct command cmd_probe = {"probe", &help, opts, run, NULL};
