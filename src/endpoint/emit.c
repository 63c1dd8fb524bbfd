#include "emit.h"

#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "laws.h"

static const char *host_of(const struct endpoint *ep)
{
	const char *b = endpoint_value(ep, "BIND_ADDR");
	/* a wildcard bind is scraped on loopback from the same host */
	if (!b || !*b || strcmp(b, "0.0.0.0") == 0 || strcmp(b, "::") == 0)
		return "127.0.0.1";
	return b;
}

char *emit_unit(const struct endpoint *ep, const char *zealot, const char *endpoint, const char *user)
{
	struct sb b = {0};
	sb_addf(&b,
		"# %s.service - emitted by zealot from %s\n"
		"# The engine is the main process: zealot serve gates, then execs it.\n"
		"[Unit]\n"
		"Description=llama-server endpoint %s (zealot)\n"
		"After=network-online.target\n"
		"Wants=network-online.target\n"
		"\n"
		"[Service]\n"
		"Type=exec\n",
		ep->name, endpoint, ep->name);
	if (user && *user)
		sb_addf(&b, "User=%s\n", user);
	sb_addf(&b,
		"EnvironmentFile=%s\n"
		"ExecStart=%s serve %s\n"
		"Restart=on-failure\n"
		"RestartSec=10\n"
		"# %d: a gate refused (missing payload, wrong pin, broken law, no fit);\n"
		"# restarting cannot fix it, and a crash loop would read like a runtime fault\n"
		"RestartPreventExitStatus=%d\n"
		"# llama.cpp rides out the default stop timeout\n"
		"TimeoutStopSec=180\n"
		"LimitMEMLOCK=infinity\n"
		"\n"
		"[Install]\n"
		"WantedBy=multi-user.target\n",
		endpoint, zealot, endpoint, SERVE_REFUSED, SERVE_REFUSED);
	return sb_detach(&b);
}

char *emit_prometheus(const struct endpoint *ep)
{
	struct sb b = {0};
	sb_addf(&b,
		"# Prometheus scrape job for %s: llama-server's /metrics (needs METRICS=1, law C04)\n"
		"- job_name: %s\n"
		"  metrics_path: /metrics\n"
		"  scrape_interval: 15s\n",
		ep->name, ep->name);
	char *key = endpoint_path(ep, "API_KEY_FILE");
	if (key) {
		sb_addf(&b, "  authorization:\n    type: Bearer\n    credentials_file: %s\n", key);
		free(key);
	}
	sb_addf(&b, "  static_configs:\n    - targets: ['%s:%s']\n      labels:\n        alias: %s\n", host_of(ep),
		endpoint_value(ep, "LISTEN_PORT"), endpoint_value(ep, "ALIAS"));
	return sb_detach(&b);
}

char *emit_alerts(const struct endpoint *ep, unsigned slot_minutes)
{
	struct sb b = {0};
	const char *n = ep->name;
	sb_addf(&b,
		"# Alert rules for %s (Prometheus rule file)\n"
		"groups:\n"
		"  - name: %s\n"
		"    rules:\n"
		"      - alert: LlmEndpointDown\n"
		"        expr: up{job=\"%s\"} == 0\n"
		"        for: 2m\n"
		"        labels:\n"
		"          severity: critical\n"
		"        annotations:\n"
		"          summary: \"%s: the /metrics scrape fails\"\n"
		"          description: >-\n"
		"            If /health still answers 200, the engine runs without --metrics and\n"
		"            answers /metrics with HTTP 501 (METRICS=0, law C04): the target's\n"
		"            lastError in /api/v1/targets says so. Otherwise the engine is down.\n"
		"      - alert: LlmMetricsOff\n"
		"        expr: absent(llamacpp:prompt_tokens_total{job=\"%s\"}) and on() up{job=\"%s\"} == 0\n"
		"        for: 10m\n"
		"        labels:\n"
		"          severity: warning\n"
		"        annotations:\n"
		"          summary: \"%s: no llamacpp: series at all (scrape answered 501?)\"\n"
		"      - alert: LlmNoFreeSlot\n"
		"        expr: llamacpp:requests_deferred{job=\"%s\"} > 0\n"
		"        for: %um\n"
		"        labels:\n"
		"          severity: warning\n"
		"        annotations:\n"
		"          summary: \"%s: requests waited for a slot for %u minutes (PARALLEL=%s, law A07)\"\n",
		n, n, n, n, n, n, n, n, slot_minutes, n, slot_minutes, endpoint_value(ep, "PARALLEL"));
	return sb_detach(&b);
}

/* Fold a harness level onto the nearest value the template accepts. */
static const char *nearest(const struct template_facts *t, const char *level)
{
	static const char *const ladder[] = {"minimal", "low", "medium", "high", "xhigh"};
	int want = -1;
	for (int i = 0; i < 5; i++)
		if (strcmp(ladder[i], level) == 0)
			want = i;
	const char *best = t->effort[0];
	int best_d = 99;
	for (size_t j = 0; j < t->n_effort; j++) {
		int at = -1;
		for (int i = 0; i < 5; i++)
			if (strcmp(ladder[i], t->effort[j]) == 0)
				at = i;
		if (at < 0)
			continue;
		int d = at > want ? at - want : want - at;
		/* ties go up: a higher effort never raises */
		if (d < best_d || (d == best_d && at > want)) {
			best_d = d;
			best = t->effort[j];
		}
	}
	return best;
}

char *emit_harness(const struct endpoint *ep, const struct census *c, const struct plan *p)
{
	struct sb b = {0};
	char *mm = endpoint_path(ep, "MMPROJ_FILE");
	sb_addf(&b,
		"# Client harness entry for %s. contextWindow is the PER-SLOT window: the\n"
		"# engine divides the pool across slots and answers a longer prompt with\n"
		"# HTTP 400, never a truncation (law M03).\n"
		"- id: %s\n"
		"  provider: llamacpp\n"
		"  baseUrl: http://%s:%s/v1\n"
		"  contextWindow: %u\n"
		"  maxTokens: 16384\n"
		"  input: [text%s]\n"
		"  compat:\n"
		"    reasoningContentField: reasoning_content\n",
		ep->name, endpoint_value(ep, "ALIAS"), host_of(ep), endpoint_value(ep, "LISTEN_PORT"), p->n_ctx_seq,
		mm ? ", image" : "");
	free(mm);
	if (c->has_template && c->tpl.n_effort) {
		static const char *const levels[] = {"minimal", "low", "medium", "high", "xhigh"};
		sb_adds(&b, "    # the template accepts only these and raises on any other (law A08)\n");
		sb_adds(&b, "    reasoningEffortMap:\n");
		for (size_t i = 0; i < 5; i++)
			sb_addf(&b, "      %s: %s\n", levels[i], nearest(&c->tpl, levels[i]));
	}
	sb_adds(&b, "  extraBody:\n");
	int any = 0;
	for (size_t i = 0; i < c->n_sampling; i++) {
		const char *k = c->sampling[i].key;
		const char *name = strcmp(k, "temp") == 0 ? "temperature" : k;
		sb_addf(&b, "    %s: %g\n", name, c->sampling[i].value);
		any = 1;
	}
	const char *pp = endpoint_value(ep, "PRESENCE_PENALTY");
	if (pp && *pp) {
		sb_addf(&b, "    presence_penalty: %s\n", pp);
		any = 1;
	}
	if (!any)
		sb_adds(&b, "    {}\n");
	return sb_detach(&b);
}
