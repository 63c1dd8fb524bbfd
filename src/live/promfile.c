#include "promfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/util.h"
#include "../endpoint/quote.h"
#include "ledger_compare.h"

static void label(struct sb *b, const char *name, const char *v)
{
	sb_addf(b, "%s=", name);
	quote_prom(b, v);
}

struct row {
	char term[48], buffer[64], source[8];
	double mib;
};

struct rows {
	struct row *v;
	size_t n;
};

/* one series per label set: the collector refuses a file that repeats one */
static void put(struct rows *r, const char *term, const char *buffer, const char *source, double mib)
{
	for (size_t i = 0; i < r->n; i++)
		if (!strcmp(r->v[i].term, term) && !strcmp(r->v[i].buffer, buffer) && !strcmp(r->v[i].source, source)) {
			r->v[i].mib += mib;
			return;
		}
	r->v = xreallocarray(r->v, r->n + 1, sizeof(*r->v));
	struct row *w = &r->v[r->n++];
	snprintf(w->term, sizeof(w->term), "%s", term);
	snprintf(w->buffer, sizeof(w->buffer), "%s", buffer);
	snprintf(w->source, sizeof(w->source), "%s", source);
	w->mib = mib;
}

/* a row that splits a term's total (K and V, R and S), not a buffer */
static int is_split(const char *part)
{
	return !strcmp(part, "k_mib") || !strcmp(part, "v_mib") || !strcmp(part, "r_mib") || !strcmp(part, "s_mib");
}

char *promfile_text(const struct promfile *f)
{
	struct sb b = {0}, ep = {0};
	label(&ep, "endpoint", f->endpoint);
	struct rows r = {0};
	if (f->plan && f->ledger) {
		struct ledger_comparison lc;
		ledger_compare(f->plan, f->ledger, &lc);
		for (size_t i = 0; i < lc.n; i++) {
			const struct ledger_row *x = &lc.v[i];
			if (x->count || !strcmp(x->term, "context") || is_split(x->part))
				continue;
			/* a term's total only where no buffer row of it says the same */
			int by_buffer = 0;
			for (size_t j = 0; j < lc.n && !strcmp(x->part, "mib"); j++)
				by_buffer |= !strcmp(lc.v[j].term, x->term) && !lc.v[j].count &&
					     strcmp(lc.v[j].part, "mib") && !is_split(lc.v[j].part);
			if (by_buffer)
				continue;
			const char *buffer = strcmp(x->part, "mib") ? x->part : "all";
			put(&r, x->term, buffer, "plan", x->plan);
			put(&r, x->term, buffer, "ledger", x->ledger);
		}
		ledger_comparison_release(&lc);
	}
	if (f->plan)
		put(&r, "total", "device", "plan", plan_mib(f->plan->device_total));
	if (f->settled_used_mib >= 0)
		put(&r, "total", "device", "settled", (double)f->settled_used_mib);
	sb_adds(&b, "# HELP zealot_memory_mib Memory per term of an endpoint: zealot's plan, the engine's boot ledger, "
		    "the settled figure.\n# TYPE zealot_memory_mib gauge\n");
	for (size_t i = 0; i < r.n; i++) {
		sb_addf(&b, "zealot_memory_mib{%s,", ep.s);
		label(&b, "term", r.v[i].term);
		sb_addc(&b, ',');
		label(&b, "buffer", r.v[i].buffer);
		sb_addc(&b, ',');
		label(&b, "source", r.v[i].source);
		sb_addf(&b, "} %.2f\n", r.v[i].mib);
	}
	free(r.v);
	if (f->plan) {
		sb_adds(&b, "# HELP zealot_slack_mib Memory left free after every term (law M09).\n"
			    "# TYPE zealot_slack_mib gauge\n");
		sb_addf(&b, "zealot_slack_mib{%s,source=\"plan\"} %.2f\n", ep.s,
			(double)f->plan->free_bytes / 1048576.0);
		if (f->settled_used_mib >= 0)
			sb_addf(&b, "zealot_slack_mib{%s,source=\"settled\"} %.2f\n", ep.s,
				plan_mib(f->plan->addressable) - (double)f->settled_used_mib);
	}
	if (f->era > 0)
		sb_addf(&b,
			"# HELP zealot_era The endpoint's current era (zealot history).\n# TYPE zealot_era gauge\n"
			"zealot_era{%s} %lld\n",
			ep.s, (long long)f->era);
	if (f->probes && f->probes->n) {
		sb_adds(&b,
			"# HELP zealot_probe_pass A contract probe: 1 passed, 0 failed (skipped probes are absent).\n"
			"# TYPE zealot_probe_pass gauge\n");
		for (size_t i = 0; i < f->probes->n; i++) {
			const struct probe_result *p = &f->probes->v[i];
			if (p->status != PROBE_PASS && p->status != PROBE_FAIL)
				continue;
			sb_addf(&b, "zealot_probe_pass{%s,", ep.s);
			label(&b, "probe", p->name);
			sb_addf(&b, "} %d\n", p->status == PROBE_PASS);
		}
	}
	sb_release(&ep);
	return sb_detach(&b);
}

int promfile_write(const char *path, const char *text, char **err)
{
	struct sb tmp = {0};
	const char *slash = strrchr(path, '/');
	/* the collector reads *.prom only: the temporary name is never one */
	if (slash)
		sb_addf(&tmp, "%.*s/.%s.%ld.tmp", (int)(slash - path), path, slash + 1, (long)getpid());
	else
		sb_addf(&tmp, ".%s.%ld.tmp", path, (long)getpid());
	int fd = open(tmp.s, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		errorf(err, "cannot write '%s': %s", tmp.s, strerror(errno));
		sb_release(&tmp);
		return -1;
	}
	size_t n = strlen(text), off = 0;
	while (off < n) {
		ssize_t w = write(fd, text + off, n - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t)w;
	}
	int e = off == n ? (fsync(fd) == 0 ? 0 : errno) : errno ? errno : EIO;
	if (close(fd) != 0 && !e)
		e = errno;
	if (!e && rename(tmp.s, path) != 0)
		e = errno;
	if (e) {
		unlink(tmp.s);
		errorf(err, "cannot write '%s': %s", path, strerror(e));
		sb_release(&tmp);
		return -1;
	}
	sb_release(&tmp);
	return 0;
}
