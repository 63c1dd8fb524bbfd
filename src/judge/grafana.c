#include "grafana.h"

#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/safe.h"
#include "../base/util.h"
#include "../endpoint/quote.h"
#include "emit.h"

/* fmt with every "%J" replaced by {job="NAME"}'s inside and "%E" by
 * endpoint="NAME" (the textfile metrics' label), as a new string. */
static char *expr(const char *fmt, const char *name)
{
	struct sb b = {0};
	for (const char *p = fmt; *p; p++) {
		if (p[0] == '%' && (p[1] == 'J' || p[1] == 'E')) {
			sb_adds(&b, p[1] == 'J' ? "job=" : "endpoint=");
			quote_prom(&b, name);
			p++;
		} else {
			sb_addc(&b, *p);
		}
	}
	return sb_detach(&b);
}

static json_t *datasource(void)
{
	return json_pack("{s:s, s:s}", "type", "prometheus", "uid", "${datasource}");
}

struct board {
	json_t *panels;
	int id;
	int y;
};

/* A target of a panel: expression fmt on name, its legend. */
static json_t *target(const char *fmt, const char *name, const char *legend, char ref)
{
	char *e = expr(fmt, name);
	char r[2] = {ref, '\0'};
	json_t *t = json_pack("{s:s, s:s, s:s, s:o}", "refId", r, "expr", e, "legendFormat", legend, "datasource",
			      datasource());
	free(e);
	return t;
}

/* A panel at (x, y) of width w; targets a JSON array (stolen). */
static void panel(struct board *d, const char *type, const char *title, const char *description, const char *unit,
		  int x, int w, json_t *targets)
{
	json_t *defaults = json_pack("{s:s}", "unit", unit);
	json_t *p = json_pack("{s:i, s:s, s:s, s:s, s:o, s:{s:i, s:i, s:i, s:i}, s:o, s:{s:o, s:[]}, s:{}}", "id",
			      ++d->id, "type", type, "title", title, "description", description, "datasource",
			      datasource(), "gridPos", "h", 8, "w", w, "x", x, "y", d->y, "targets", targets,
			      "fieldConfig", "defaults", defaults, "overrides", "options");
	json_array_append_new(d->panels, p);
}

/* The per-slot window M03 gives: the pool padded to 256, divided across
 * the slots (unless unified), padded to 256 again. 0 when unknown. */
static uint64_t slot_window(const struct endpoint *ep)
{
	uint64_t ctx = 0, par = 1;
	int unified = 0;
	if (endpoint_uint(ep, "CTX_SIZE", &ctx, NULL) || endpoint_uint(ep, "PARALLEL", &par, NULL) || !ctx || !par)
		return 0;
	if (endpoint_bool(ep, "KV_UNIFIED", &unified, NULL))
		unified = 0;
	ctx = (ctx + 255) / 256 * 256;
	if (unified)
		return ctx;
	return (ctx / par + 255) / 256 * 256;
}

static void endpoint_row(struct board *d, const struct endpoint *ep)
{
	struct sb nm = {0}; /* the job's name as emit prometheus writes it (UTF-8 always) */
	const char *n = emit_name(ep, &nm);
	json_array_append_new(d->panels, json_pack("{s:i, s:s, s:s, s:b, s:{s:i, s:i, s:i, s:i}, s:[]}", "id", ++d->id,
						   "type", "row", "title", n, "collapsed", 0, "gridPos", "h", 1, "w",
						   24, "x", 0, "y", d->y, "panels"));
	d->y += 1;

	json_t *t = json_array();
	json_array_append_new(t, target("rate(llamacpp:prompt_tokens_total{%J}[5m]) / "
					"rate(llamacpp:prompt_seconds_total{%J}[5m])",
					n, "prefill", 'A'));
	json_array_append_new(t, target("rate(llamacpp:tokens_predicted_total{%J}[5m]) / "
					"rate(llamacpp:tokens_predicted_seconds_total{%J}[5m])",
					n, "decode", 'B'));
	panel(d, "timeseries", "tokens/s: prefill and decode",
	      "The engine's own timings (law A05): tokens over the seconds spent on them, while it works.", "tokens/s",
	      0, 12, t);
	t = json_array();
	json_array_append_new(t, target("llamacpp:requests_processing{%J}", n, "processing", 'A'));
	json_array_append_new(t, target("llamacpp:requests_deferred{%J}", n, "deferred (waiting for a slot)", 'B'));
	panel(d, "timeseries", "requests: processing and deferred",
	      "A deferred request waits for a slot: the slot count is the concurrency contract (law A07).", "short", 12,
	      12, t);
	d->y += 8;

	struct sb desc = {0};
	sb_addf(&desc, "Average busy slots per decode call, of PARALLEL=%s.",
		endpoint_value(ep, "PARALLEL") ? endpoint_value(ep, "PARALLEL") : "1");
	t = json_array();
	json_array_append_new(t, target("llamacpp:n_busy_slots_per_decode{%J}", n, "busy slots", 'A'));
	panel(d, "timeseries", "slots busy", desc.s, "short", 0, 8, t);
	sb_release(&desc);

	uint64_t w = slot_window(ep);
	struct sb kv = {0};
	t = json_array();
	if (w) {
		sb_addf(&kv, "llamacpp:n_tokens_max{%%J} / %llu", (unsigned long long)w);
		json_array_append_new(t, target(kv.s, n, "largest sequence / per-slot window", 'A'));
		kv.len = 0;
		sb_addf(&kv,
			"The largest sequence the engine has held (prompt + generation) against the per-slot "
			"window of %llu tokens (law M03): at 1 the next longer prompt is an HTTP 400.",
			(unsigned long long)w);
	} else {
		json_array_append_new(t, target("llamacpp:n_tokens_max{%J}", n, "largest sequence", 'A'));
		sb_adds(&kv, "The largest sequence the engine has held (prompt + generation).");
	}
	panel(d, "timeseries", "KV cache use", kv.s, w ? "percentunit" : "short", 8, 8, t);
	sb_release(&kv);

	t = json_array();
	json_array_append_new(t, target("rate(llamacpp:spec_decode_num_accepted_tokens_total{%J}[5m]) / "
					"rate(llamacpp:spec_decode_num_draft_tokens_total{%J}[5m])",
					n, "accepted / drafted", 'A'));
	panel(d, "timeseries", "draft acceptance",
	      "Draft tokens accepted over drafted (empty with SPEC_TYPE=none). Acceptance alone never "
	      "justifies speculation: compare decode with the drafter off.",
	      "percentunit", 16, 8, t);
	d->y += 8;

	t = json_array();
	json_array_append_new(t,
			      target("sum by (term, source) (zealot_memory_mib{%E})", n, "{{term}} ({{source}})", 'A'));
	json_array_append_new(t, target("zealot_slack_mib{%E}", n, "slack", 'B'));
	panel(d, "timeseries", "memory per term: planned, ledger, settled",
	      "zealot's plan against the engine's boot ledger and the settled figure, per term (zealot ledger "
	      "--prom, deploy), through the node exporter's textfile collector.",
	      "mbytes", 0, 16, t);
	t = json_array();
	json_array_append_new(t, target("up{%J}", n, "scrape up", 'A'));
	json_array_append_new(t, target("min(zealot_probe_pass{%E})", n, "probes pass", 'B'));
	panel(d, "stat", "scrape up, probes pass",
	      "up is 0 when /metrics fails: an engine without --metrics answers 501 while /health says 200 "
	      "(law C04).",
	      "short", 16, 8, t);
	d->y += 8;
	sb_release(&nm);
}

static json_t *era_annotation(const struct endpoint *ep)
{
	struct sb nm = {0};
	const char *n = emit_name(ep, &nm);
	char *e = expr("changes(zealot_era{%E}[5m]) > 0", n);
	struct sb title = {0};
	sb_addf(&title, "%s: a new era (zealot history)", n);
	json_t *a = json_pack("{s:s, s:o, s:b, s:b, s:s, s:s, s:s, s:s, s:s}", "name", n, "datasource", datasource(),
			      "enable", 1, "hide", 0, "iconColor", "orange", "expr", e, "step", "60s", "titleFormat",
			      title.s, "tagKeys", "endpoint");
	free(e);
	sb_release(&title);
	sb_release(&nm);
	return a;
}

char *grafana_dashboard(const struct endpoint *const *eps, size_t n, const char *title)
{
	struct board d = {json_array(), 0, 0};
	json_t *annotations = json_array();
	json_array_append_new(annotations,
			      json_pack("{s:i, s:{s:s, s:s}, s:b, s:b, s:s, s:s, s:s}", "builtIn", 1, "datasource",
					"type", "grafana", "uid", "-- Grafana --", "enable", 1, "hide", 1, "iconColor",
					"rgba(0, 211, 255, 1)", "name", "Annotations & Alerts", "type", "dashboard"));
	for (size_t i = 0; i < n; i++) {
		endpoint_row(&d, eps[i]);
		json_array_append_new(annotations, era_annotation(eps[i]));
	}
	/* a uid Grafana accepts (at most 40 of [A-Za-z0-9_-]), the same at every emit */
	struct sb uid = {0};
	sb_adds(&uid, "zealot-");
	for (const char *p = title; *p && uid.len < 40; p++)
		sb_addc(&uid, (strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-", *p) && *p)
				  ? *p
				  : '-');
	struct sb t = {0}, tt = {0};
	sb_addf(&t, "zealot: %s", safe_utf8(title) ? title : safe_str(title, &tt));
	sb_release(&tt);
	json_t *root = json_pack(
	    "{s:s, s:s, s:i, s:i, s:b, s:i, s:s, s:[s, s], s:{s:s, s:s}, s:s, s:{s:o}, s:{s:[{s:s, s:s, s:s, s:s, "
	    "s:b, s:[]}]}, s:o}",
	    "uid", uid.s, "title", t.s, "schemaVersion", GRAFANA_SCHEMA_VERSION, "version", 1, "editable", 1,
	    "graphTooltip", 1, "refresh", "30s", "tags", "zealot", "llama.cpp", "time", "from", "now-6h", "to", "now",
	    "timezone", "browser", "annotations", "list", annotations, "templating", "list", "name", "datasource",
	    "label", "Prometheus", "type", "datasource", "query", "prometheus", "hide", 0, "options", "panels",
	    d.panels);
	sb_release(&uid);
	sb_release(&t);
	char *out = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	json_decref(root);
	struct sb b = {0};
	sb_adds(&b, out);
	sb_addc(&b, '\n');
	free(out);
	return sb_detach(&b);
}
