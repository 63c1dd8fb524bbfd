#include "memory.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/proc.h"
#include "../base/util.h"

/* "VmRSS:	   67476 kB" -> MiB, or -1. */
static int64_t status_mib(const char *text, const char *field)
{
	size_t n = strlen(field);
	for (const char *p = text; p && *p; p = strchr(p, '\n') ? strchr(p, '\n') + 1 : NULL)
		if (strncmp(p, field, n) == 0 && p[n] == ':')
			return strtoll(p + n + 1, NULL, 10) / 1024;
	return -1;
}

/* The process's used MiB on the card from nvidia-smi's compute apps, or -1
 * with the reason in note. */
static int64_t card_used(long pid, int card, char *note, size_t n)
{
	char index[16];
	snprintf(index, sizeof(index), "%d", card);
	const char *argv[] = {
	    "nvidia-smi", "--query-compute-apps=pid,used_memory", "--format=csv,noheader,nounits", "-i", index, NULL};
	struct proc_result r;
	char *err = NULL;
	if (proc_run(argv, 20000, 1 << 16, &r, &err)) {
		snprintf(note, n, "nvidia-smi did not run (%s)", err ? err : "?");
		free(err);
		return -1;
	}
	int64_t v = -1;
	size_t listed = 0;
	if (r.status != 0)
		snprintf(note, n, "nvidia-smi -i %d exited %d", card, r.status);
	for (char *line = r.status == 0 ? r.out.s : NULL; line && *line;) {
		char *next = strchr(line, '\n');
		long p = 0;
		long long mib = -1;
		if (sscanf(line, "%ld , %lld", &p, &mib) == 2 && mib >= 0) {
			listed++;
			if (p == pid)
				v = (v < 0 ? 0 : v) + mib;
		}
		line = next ? next + 1 : NULL;
	}
	if (r.status == 0 && v < 0 && listed)
		snprintf(note, n, "nvidia-smi lists %zu other process%s on card %d, not %ld (another PID namespace?)",
			 listed, listed == 1 ? "" : "es", card, pid);
	else if (r.status == 0 && v < 0)
		snprintf(note, n, "nvidia-smi lists no process on card %d", card);
	proc_result_release(&r);
	return v;
}

int memory_read(long pid, int card, struct memory_settled *m, char **err)
{
	memset(m, 0, sizeof(*m));
	m->pid = pid;
	m->card = card;
	m->card_used_mib = -1;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/status", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return errorf(err, "cannot read %s: %s", path, strerror(errno));
	char text[8192];
	size_t len = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[len] = '\0';
	m->rss_mib = status_mib(text, "VmRSS");
	m->anon_mib = status_mib(text, "RssAnon");
	m->file_mib = status_mib(text, "RssFile");
	if (card >= 0)
		m->card_used_mib = card_used(pid, card, m->card_note, sizeof(m->card_note));
	return 0;
}

/* --- the ledger's buffers by where they are ----------------------------- */

/* Add the buffers to *card (those named as the plan's card) or *host
 * (those on no device of the plan). */
static void add_bufs(const struct plan *p, const struct ledger_buf *b, unsigned n, double *card, double *host)
{
	for (unsigned i = 0; i < n; i++) {
		int dev = 0;
		for (unsigned d = 0; d < p->n_cards; d++)
			dev |= strcmp(b[i].buft, p->devs[d].name) == 0;
		if (p->n_cards && strcmp(b[i].buft, p->devs[p->main_dev].name) == 0)
			*card += b[i].mib;
		else if (!dev && strncmp(b[i].buft, "RPC", 3) != 0)
			*host += b[i].mib;
	}
}

static void add_ctx(const struct plan *p, const struct ledger_ctx *c, double *card, double *host)
{
	if (!c->present)
		return;
	add_bufs(p, c->output, c->n_output, card, host);
	add_bufs(p, c->kv.bufs, c->kv.n_bufs, card, host);
	add_bufs(p, c->kv_swa.bufs, c->kv_swa.n_bufs, card, host);
	add_bufs(p, c->rs.bufs, c->rs.n_bufs, card, host);
	add_bufs(p, c->compute, c->n_compute, card, host);
}

/* The ledger's MiB on the plan's card and on the host. */
static void ledger_split(const struct plan *p, const struct ledger *l, double *card, double *host)
{
	*card = *host = 0;
	add_bufs(p, l->model, l->n_model, card, host);
	add_bufs(p, l->draft_model, l->n_draft_model, card, host);
	add_bufs(p, l->lora, l->n_lora, card, host);
	add_ctx(p, &l->target, card, host);
	add_ctx(p, &l->draft, card, host);
	add_bufs(p, l->projector_compute, l->n_projector_compute, card, host);
	if (l->has_projector)
		*(p->n_cards ? card : host) += l->projector_model_mib;
}

/* --- the judgement ------------------------------------------------------- */

static double band_of(double plan, double floor_mib)
{
	double pct = plan * MEMORY_TOL_PCT / 100.0;
	double b = pct > MEMORY_TOL_MIB ? pct : MEMORY_TOL_MIB;
	return b > floor_mib ? b : floor_mib;
}

static void judge_card(struct memory_row *r, const struct memory_settled *m)
{
	if (r->settled_mib < 0) {
		snprintf(r->why, sizeof(r->why), "not measured: %s", m->card_note[0] ? m->card_note : "no figure");
		return;
	}
	if (r->diff_mib < -r->band_mib) {
		r->law = "M10";
		r->error = 1;
		snprintf(
		    r->why, sizeof(r->why),
		    "the process holds %s MiB on card %d where the plan puts %s: %s MiB of the plan are not on the "
		    "card (spilled into host or unified memory; decode slows and nothing says so)",
		    FMT_MIB(r->settled_mib), m->card, FMT_MIB(r->plan_mib), FMT_MIB(-r->diff_mib));
	} else if (r->diff_mib > r->band_mib) {
		r->law = "M09";
		snprintf(r->why, sizeof(r->why),
			 "the process holds %s MiB more on card %d than the plan: the slack band is that much smaller",
			 FMT_MIB(r->diff_mib), m->card);
	} else {
		snprintf(r->why, sizeof(r->why), "within %s MiB of the plan", FMT_MIB(r->band_mib));
	}
}

static void judge_host(struct memory_row *r, int on_card)
{
	if (r->settled_mib < 0) {
		snprintf(r->why, sizeof(r->why), "not measured");
	} else if (r->diff_mib > r->band_mib) {
		r->law = on_card ? "M10" : "M09";
		snprintf(r->why, sizeof(r->why), "%s MiB of host memory beyond the plan (band %s MiB)%s",
			 FMT_MIB(r->diff_mib), FMT_MIB(r->band_mib),
			 on_card ? ": memory meant for the card may be held on the host"
				 : ": the host's slack band is that much smaller");
	} else if (r->diff_mib < -r->band_mib) {
		snprintf(r->why, sizeof(r->why),
			 "%s MiB below the plan: pages of the mapped payload need not be resident (no finding)",
			 FMT_MIB(-r->diff_mib));
	} else {
		snprintf(r->why, sizeof(r->why), "within %s MiB of the plan", FMT_MIB(r->band_mib));
	}
}

void memory_judge(const struct plan *p, const struct ledger *l, const struct memory_settled *m,
		  struct memory_report *out)
{
	memset(out, 0, sizeof(*out));
	double lcard = -1, lhost = -1;
	if (l && l->recognised)
		ledger_split(p, l, &lcard, &lhost);
	int on_card = p->n_cards > 0 && m->card >= 0;
	if (on_card) {
		struct memory_row *r = &out->rows[out->n++];
		snprintf(r->what, sizeof(r->what), "card %d", m->card);
		r->plan_mib = plan_mib(p->devs[p->main_dev].total);
		r->ledger_mib = lcard;
		r->settled_mib = (double)m->card_used_mib;
		r->diff_mib = r->settled_mib >= 0 ? r->settled_mib - r->plan_mib : 0;
		r->band_mib = band_of(r->plan_mib, 0);
		judge_card(r, m);
	}
	struct memory_row *h = &out->rows[out->n++];
	snprintf(h->what, sizeof(h->what), "host");
	h->plan_mib = plan_mib(p->devs[p->n_devs - 1].total);
	h->ledger_mib = lhost;
	h->settled_mib = (double)m->rss_mib;
	h->diff_mib = h->settled_mib >= 0 ? h->settled_mib - h->plan_mib : 0;
	h->band_mib = band_of(h->plan_mib, on_card ? MEMORY_HOST_RUNTIME_MIB : 0);
	judge_host(h, on_card);
	for (size_t i = 0; i < out->n; i++) {
		out->errors += out->rows[i].error;
		out->warnings += out->rows[i].law && !out->rows[i].error;
	}
}

static json_t *mib_or_null(double v)
{
	return v >= 0 ? json_real(round(v * 100) / 100) : json_null();
}

json_t *memory_json(const struct memory_report *r, const struct memory_settled *m)
{
	/* a figure not read is null */
	json_t *o = json_pack("{s:I,s:o,s:o,s:o,s:o,s:o,s:o}", "pid", (json_int_t)m->pid, "rss_mib",
			      m->rss_mib >= 0 ? json_integer(m->rss_mib) : json_null(), "anon_mib",
			      m->anon_mib >= 0 ? json_integer(m->anon_mib) : json_null(), "file_mib",
			      m->file_mib >= 0 ? json_integer(m->file_mib) : json_null(), "card",
			      m->card >= 0 ? json_integer(m->card) : json_null(), "card_used_mib",
			      m->card_used_mib >= 0 ? json_integer(m->card_used_mib) : json_null(), "card_note",
			      m->card_note[0] ? json_string(m->card_note) : json_null());
	json_t *rows = json_array();
	for (size_t i = 0; i < r->n; i++) {
		const struct memory_row *w = &r->rows[i];
		json_t *x = json_pack(
		    "{s:s,s:o,s:o,s:o,s:o,s:o,s:o,s:b,s:s}", "what", w->what, "plan_mib", mib_or_null(w->plan_mib),
		    "ledger_mib", mib_or_null(w->ledger_mib), "settled_mib", mib_or_null(w->settled_mib), "diff_mib",
		    json_real(round(w->diff_mib * 100) / 100), "band_mib", mib_or_null(w->band_mib), "law",
		    w->law ? json_string(w->law) : json_null(), "error", w->error, "why", w->why);
		json_array_append_new(rows, x);
	}
	json_object_set_new(o, "rows", rows);
	json_object_set_new(o, "errors", json_integer((json_int_t)r->errors));
	json_object_set_new(o, "warnings", json_integer((json_int_t)r->warnings));
	return o;
}

char *memory_summary(const struct memory_report *r)
{
	struct sb s = {0};
	for (size_t i = 0; i < r->n; i++) {
		const struct memory_row *w = &r->rows[i];
		sb_addf(&s, "%s%s: plan %s", i ? "; " : "", w->what, FMT_MIB(w->plan_mib));
		if (w->ledger_mib >= 0)
			sb_addf(&s, ", ledger %s", FMT_MIB(w->ledger_mib));
		if (w->settled_mib >= 0)
			sb_addf(&s, ", held %s (%s MiB)", FMT_MIB(w->settled_mib), FMT_MIB_PLUS(w->diff_mib));
		sb_addf(&s, "%s%s: %s", w->law ? " " : "", w->law ? w->law : "", w->why);
	}
	return sb_detach(&s);
}
