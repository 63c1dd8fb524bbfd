#include "router_log.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../plan/router.h"
#include "ledger.h"
#include "ledger_compare.h"

static const char spawn[] = "spawning server instance with name=";

/* The port of a "[PORT] " prefix at line start, or 0; *rest past it. */
static unsigned prefix_port(const char *s, size_t n, size_t *rest)
{
	if (n < 4 || s[0] != '[')
		return 0;
	size_t i = 1;
	while (i < n && s[i] == ' ')
		i++;
	unsigned port = 0;
	size_t d = i;
	while (i < n && s[i] >= '0' && s[i] <= '9' && port < 65536)
		port = port * 10 + (unsigned)(s[i++] - '0');
	if (i == d || i + 1 >= n || s[i] != ']' || s[i + 1] != ' ' || port == 0 || port > 65535)
		return 0;
	*rest = i + 2;
	return port;
}

/* "spawning server instance with name=N on port P": a new boot. */
static void spawned(const char *s, size_t n, struct router_log *out)
{
	const char *at = memmem(s, n, spawn, sizeof(spawn) - 1);
	if (!at)
		return;
	const char *name = at + sizeof(spawn) - 1, *end = s + n;
	const char *on = memmem(name, (size_t)(end - name), " on port ", 9);
	if (!on)
		return;
	unsigned port = (unsigned)strtoul(on + 9, NULL, 10);
	if (!port || port > 65535)
		return;
	out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	struct router_boot *b = &out->v[out->n++];
	memset(b, 0, sizeof(*b));
	snprintf(b->name, sizeof(b->name), "%.*s", (int)(on - name), name);
	b->port = port;
}

void router_log_split(const char *buf, size_t len, struct router_log *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		size_t rest = 0, skip = 0;
		/* a journal excerpt: past "ident[PID]: " */
		const char *j = p[0] == '[' ? NULL : memmem(p, n, "]: ", 3);
		if (j)
			skip = (size_t)(j - p) + 3;
		unsigned port = prefix_port(p + skip, n - skip, &rest);
		rest += skip;
		if (port) {
			/* the latest boot on that port owns the line */
			for (size_t i = out->n; i-- > 0;)
				if (out->v[i].port == port) {
					sb_addf(&out->v[i].log, "%.*s\n", (int)(n - rest), p + rest);
					out->v[i].lines++;
					break;
				}
		} else {
			spawned(p, n, out);
		}
		p += n + (nl ? 1 : 0);
	}
}

void router_log_release(struct router_log *l)
{
	for (size_t i = 0; i < l->n; i++)
		sb_release(&l->v[i].log);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

static json_t *rows_json(const struct ledger_comparison *lc)
{
	json_t *a = json_array();
	for (size_t i = 0; i < lc->n; i++) {
		const struct ledger_row *r = &lc->v[i];
		json_array_append_new(a,
				      json_pack("{s:s,s:s,s:f,s:f,s:b,s:b}", "term", r->term, "part", r->part, "plan",
						r->plan, "ledger", r->ledger, "exact", r->exact, "match", r->match));
	}
	return a;
}

/* One boot against its member's plan. */
static json_t *hold_one(const struct router_price *rp, const struct router_boot *b, int *bad)
{
	json_t *o = json_pack("{s:s, s:i, s:i}", "name", b->name, "port", (int)b->port, "lines", b->lines);
	const struct router_priced *pm = NULL;
	for (size_t i = 0; i < rp->r.n; i++)
		if (strcmp(rp->r.m[i].name, b->name) == 0)
			pm = &rp->m[i];
	if (!pm) {
		json_object_set_new(o, "verdict", json_string("no such member"));
		*bad = 1;
		return o;
	}
	struct ledger *l = xcalloc(1, sizeof(*l));
	ledger_parse(b->log.s ? b->log.s : "", b->log.len, l);
	if (!l->recognised || !l->target.present) {
		json_object_set_new(o, "verdict", json_string("no ledger"));
		*bad = 1;
		free(l);
		return o;
	}
	struct ledger_comparison lc;
	ledger_compare(&pm->p, l, &lc);
	char *sum = ledger_comparison_summary(&lc, 8);
	json_object_set_new(o, "verdict", json_string(lc.diverged ? "differs" : "matches"));
	json_object_set_new(o, "differs", json_string(sum));
	json_object_set_new(o, "comparison", rows_json(&lc));
	*bad |= lc.diverged;
	free(sum);
	ledger_comparison_release(&lc);
	free(l);
	return o;
}

json_t *router_log_hold(const struct router_price *rp, const struct router_log *lg, int *diverged)
{
	json_t *o = json_object(), *a = json_array();
	*diverged = lg->n == 0;
	for (size_t i = 0; i < lg->n; i++)
		json_array_append_new(a, hold_one(rp, &lg->v[i], diverged));
	json_object_set_new(o, "boots", a);
	json_object_set_new(o, "verdict", json_string(*diverged ? "differs" : "matches"));
	return o;
}
