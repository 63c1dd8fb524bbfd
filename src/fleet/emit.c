#include "emit.h"

#include <stdlib.h>
#include <string.h>

#include "../endpoint/quote.h"
#include "../judge/emit.h"
#include "../judge/grafana.h"
#include "../plan/plan.h"
#include "../plan/shape.h"

enum zerr fleet_emit_harness_entry(const struct endpoint *ep, const char *host, const char *hub, unsigned *window,
				   char **out, char **err)
{
	struct shape_ctx c = {0};
	struct plan p;
	enum zerr k = shape_load(ep, NULL, &c, NULL, err);
	if (k == ZE_OK && plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, err))
		k = ZE_USAGE;
	if (k == ZE_OK) {
		*out = emit_harness_at(ep, c.census, &p, host, hub);
		*window = p.n_ctx_seq;
	}
	shape_release(&c);
	return k;
}

void fleet_emit_prometheus(const struct fleet *f, struct sb *b)
{
	sb_adds(b, "# Prometheus configuration for the fleet ");
	quote_one_line(b, f->dir);
	sb_adds(b, ", emitted by zealot: a scrape job\n"
		   "# per endpoint; a remote endpoint is scraped at its HOST.\n"
		   "scrape_configs:\n");
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_member *m = &f->m[i];
		const char *bind = endpoint_value(m->ep, K_BIND_ADDR);
		int loopback = bind && (strncmp(bind, "127.", 4) == 0 || strcmp(bind, "::1") == 0);
		if (m->remote && loopback) {
			sb_adds(b, "# ");
			quote_one_line(b, m->name);
			sb_addf(b, " binds %s on its host: only a Prometheus there reaches it (BIND_ADDR)\n", bind);
		}
		if (m->remote && endpoint_value(m->ep, K_API_KEY_FILE))
			sb_adds(b, "# Prometheus reads the API key on its own host, at API_KEY_FILE's path\n");
		emit_prometheus_job(b, m->ep, m->remote ? m->host.host : NULL);
	}
}

void fleet_emit_alerts(const struct fleet *f, unsigned minutes, struct sb *b)
{
	sb_adds(b, "# Alert rules for the fleet ");
	quote_one_line(b, f->dir);
	sb_adds(b, " (Prometheus rule file), emitted by zealot\ngroups:\n");
	for (size_t i = 0; i < f->n; i++)
		emit_alerts_group(b, f->m[i].ep, minutes);
}

/* The hub member i's COMPACTION_HUB names, or -1 (none); -2 with *err when
 * it names no endpoint of the fleet. */
static long hub_of(const struct fleet *f, size_t i, char **err)
{
	const char *hub = endpoint_value(f->m[i].ep, K_COMPACTION_HUB);
	if (!hub || !*hub)
		return -1;
	for (size_t j = 0; j < f->n; j++)
		if (strcmp(f->m[j].name, hub) == 0)
			return (long)j;
	char *w = endpoint_where(f->m[i].ep, K_COMPACTION_HUB);
	errorf(err, "%s: '%s' is no endpoint of %s (its *.env files name the endpoints)", w, hub, f->dir);
	free(w);
	return -2;
}

/* A compaction request carries a whole conversation of the endpoint it
 * compacts: a hub with a smaller window cannot take it (law M03). */
static void hub_windows(const struct fleet *f, const unsigned *window, struct sb *b, struct sb *warn)
{
	for (size_t i = 0; i < f->n; i++) {
		long h = hub_of(f, i, NULL);
		if (h < 0 || window[h] >= window[i])
			continue;
		sb_addf(warn,
			"%s compacts at %s, whose per-slot window (%u) is smaller than its own (%u): a full "
			"conversation will not fit (law M03)\n",
			f->m[i].name, f->m[h].name, window[h], window[i]);
		sb_adds(b, "# WARNING: ");
		quote_one_line(b, f->m[i].name);
		sb_adds(b, "'s hub ");
		quote_one_line(b, f->m[h].name);
		sb_addf(b, " holds %u tokens per slot, less than its %u (law M03)\n", window[h], window[i]);
	}
}

enum zerr fleet_emit_harness(const struct fleet *f, struct sb *b, struct sb *warn, char **err)
{
	unsigned *window = xcalloc(f->n ? f->n : 1, sizeof(*window));
	char **entry = xcalloc(f->n ? f->n : 1, sizeof(*entry));
	enum zerr k = ZE_OK;
	for (size_t i = 0; i < f->n && k == ZE_OK; i++) {
		long h = hub_of(f, i, err);
		if (h == -2) {
			k = ZE_USAGE;
			break;
		}
		const char *hub = h >= 0 ? endpoint_value(f->m[h].ep, K_ALIAS) : NULL;
		k = fleet_emit_harness_entry(f->m[i].ep, f->m[i].remote ? f->m[i].host.host : NULL, hub, &window[i],
					     &entry[i], err);
		if (k != ZE_OK) {
			char *e = *err;
			*err = NULL;
			errorf(err, "%s: %s", f->m[i].name, e);
			free(e);
		}
	}
	if (k == ZE_OK) {
		sb_adds(b, "# Client harness for the fleet ");
		quote_one_line(b, f->dir);
		sb_adds(b, ", emitted by zealot: an entry per endpoint.\n");
		hub_windows(f, window, b, warn);
		for (size_t i = 0; i < f->n; i++)
			sb_adds(b, entry[i]);
	}
	for (size_t i = 0; i < f->n; i++)
		free(entry[i]);
	free(entry);
	free(window);
	return k;
}

char *fleet_emit_grafana(const struct fleet *f)
{
	const struct endpoint **eps = xcalloc(f->n ? f->n : 1, sizeof(*eps));
	for (size_t i = 0; i < f->n; i++)
		eps[i] = f->m[i].ep;
	const char *slash = strrchr(f->dir, '/');
	const char *base = slash && slash[1] ? slash + 1 : f->dir;
	char *g = grafana_dashboard(eps, f->n, base);
	free(eps);
	return g;
}
