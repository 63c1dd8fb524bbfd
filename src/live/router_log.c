#include "router_log.h"

#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../judge/router_preset.h"
#include "../plan/router.h"
#include "audit.h"
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

long router_child_of(long main_pid, const char *name, unsigned *port)
{
	char *tasks = xstrf("/proc/%ld/task", main_pid);
	DIR *d = opendir(tasks);
	struct dirent *de;
	long found = 0;
	while (d && !found && (de = readdir(d))) {
		char *cf = xstrf("%s/%s/children", tasks, de->d_name);
		FILE *f = de->d_name[0] != '.' ? fopen(cf, "r") : NULL;
		long pid;
		while (f && !found && fscanf(f, "%ld", &pid) == 1) {
			size_t n = 0;
			char **v = audit_read_vector((pid_t)pid, "cmdline", &n);
			unsigned p = 0;
			int mine = 0;
			for (size_t i = 0; i + 1 < n; i++) {
				mine |= !strcmp(v[i], "--alias") && !strcmp(v[i + 1], name);
				if (!strcmp(v[i], "--port"))
					p = (unsigned)strtoul(v[i + 1], NULL, 10);
			}
			if (mine) {
				found = pid;
				*port = p;
			}
			audit_free_vector(v, n);
		}
		if (f)
			fclose(f);
		free(cf);
	}
	if (d)
		closedir(d);
	free(tasks);
	return found;
}

int router_child_holds(const struct router_member *m, long pid, char **why)
{
	struct argv_list a;
	struct sb sec = {0};
	if (argv_render(m->ep, &a, why))
		return -1;
	router_preset_section(&a, &sec);
	argv_release(&a);
	size_t n = 0;
	char **v = audit_read_vector((pid_t)pid, "cmdline", &n);
	int held = 0;
	for (char *line = sec.s; line && *line && !*why;) {
		char *nl = strchr(line, '\n'), *eq = strstr(line, " = ");
		if (!nl || !eq || eq > nl)
			break; /* (router_preset_section writes "key = value\n" lines only) */
		*nl = '\0';
		*eq = '\0';
		const char *val = eq + 3;
		char *flag = xstrf("--%s", line);
		size_t i = 0;
		while (i < n && strcmp(v[i], flag) != 0)
			i++;
		int ok = i < n && (!strcmp(val, "true") || (i + 1 < n && !strcmp(v[i + 1], val)));
		if (!ok)
			errorf(why, "%s's child (pid %ld) runs %s %s, its preset section says %s", m->name, pid,
			       i < n ? v[i] : flag, i < n && i + 1 < n ? v[i + 1] : "(absent)", val);
		held += ok;
		free(flag);
		line = nl + 1;
	}
	audit_free_vector(v, n);
	sb_release(&sec);
	return *why ? -1 : held;
}

void router_audit_members(const struct router *r, pid_t router_pid, struct audit *a)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct router_member *m = &r->m[i];
		unsigned port = 0;
		long pid = router_child_of(router_pid, m->name, &port);
		char *why = NULL, *what = xstrf("member %s", m->name);
		int held = pid ? router_child_holds(m, pid, &why) : 0;
		char *live = !pid  ? xstrdup("not loaded (the router starts it on demand)")
			     : why ? why
				   : xstrf("pid %ld on port %u holds its %d preset arguments", pid, port, held);
		a->rows = xreallocarray(a->rows, a->n + 1, sizeof(*a->rows));
		a->rows[a->n++] = (struct audit_row){what, xstrdup("its preset section (zealot emit preset)"), live,
						     held < 0, held < 0 ? "A01" : NULL};
		a->divergences += held < 0;
	}
}
