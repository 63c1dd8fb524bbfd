#include "ledger_compare.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

/* Two decimals exactly as the engine prints them (printf's rounding of
 * the binary value: 10.625 prints as 10.62, not 10.63). */
static double r2(double mib)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.2f", mib);
	return strtod(buf, NULL);
}

/* The one rounding rule: a ledger figure summed from `lines` printed ones
 * (a buffer type's several buffers, deepseek4's four caches, a DSA or QSA
 * indexer's cache printed apart from its pool's) may differ from the
 * plan's exact sum, rounded once, by each line's rounding: 0.005 MiB a
 * line. */
static void compare_lines(struct ledger_comparison *c, const char *term, const char *part, double plan, double ledger,
			  int exact, unsigned lines)
{
	double diff = r2(plan) - ledger;
	int bad = exact && fabs(diff) > 0.0051 * (lines > 1 ? lines : 1);
	if (bad)
		c->diverged = 1;
	double err_pct = ledger != 0 ? 100.0 * (plan - ledger) / ledger : (plan != 0 ? 100.0 : 0.0);
	c->v = xreallocarray(c->v, c->n + 1, sizeof(*c->v));
	struct ledger_row *r = &c->v[c->n++];
	memset(r, 0, sizeof(*r));
	r->term = term;
	snprintf(r->part, sizeof(r->part), "%s", part);
	r->plan = r2(plan);
	r->ledger = ledger;
	r->diff = r2(diff);
	r->error_pct = round(err_pct * 100) / 100;
	r->exact = exact;
	r->match = !bad;
}

static void compare(struct ledger_comparison *c, const char *term, const char *part, double plan, double ledger,
		    int exact)
{
	compare_lines(c, term, part, plan, ledger, exact, 1);
}

static void compare_count(struct ledger_comparison *c, const char *term, const char *part, uint32_t plan,
			  uint32_t ledger)
{
	compare(c, term, part, plan, ledger, 1);
	c->v[c->n - 1].count = 1;
}

static void compare_bufs(struct ledger_comparison *c, const char *term, const struct plan_buf *pb, unsigned pn,
			 const struct ledger_buf *lb, unsigned ln, int exact);

static void compare_kv(struct ledger_comparison *c, const char *term, const struct plan_kv *p,
		       const struct ledger_kv *l)
{
	if (!p->present && !l->present)
		return;
	compare_lines(c, term, "mib", plan_mib(p->k_bytes + p->v_bytes), l->mib, 1, l->lines);
	compare_lines(c, term, "k_mib", plan_mib(p->k_bytes), l->k_mib, 1, l->lines);
	compare_lines(c, term, "v_mib", plan_mib(p->v_bytes), l->v_mib, 1, l->lines);
	compare_count(c, term, "cells", p->cells, l->cells);
	compare_count(c, term, "layers", p->layers, l->layers);
	compare_count(c, term, "seqs", p->seqs, l->seqs);
	compare_count(c, term, "streams", p->streams, l->streams);
	/* per device: the "KV buffer size" lines (older logs lack them) */
	if (l->n_bufs)
		compare_bufs(c, term, p->bufs, p->n_bufs, l->bufs, l->n_bufs, 1);
}

static const struct ledger_buf *buf_of(const struct ledger_buf *b, unsigned n, const char *buft)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(b[i].buft, buft) == 0)
			return &b[i];
	return NULL;
}

static void compare_bufs(struct ledger_comparison *c, const char *term, const struct plan_buf *pb, unsigned pn,
			 const struct ledger_buf *lb, unsigned ln, int exact)
{
	for (unsigned i = 0; i < pn; i++) {
		const struct ledger_buf *b = buf_of(lb, ln, pb[i].buft);
		compare_lines(c, term, pb[i].buft, plan_mib(pb[i].bytes), b ? b->mib : 0, exact, b ? b->lines : 1);
	}
	for (unsigned i = 0; i < ln; i++) {
		int seen = 0;
		for (unsigned j = 0; j < pn; j++)
			seen |= strcmp(pb[j].buft, lb[i].buft) == 0;
		if (!seen)
			compare(c, term, lb[i].buft, 0, lb[i].mib, exact);
	}
}

void ledger_compare(const struct plan *p, const struct ledger *l, struct ledger_comparison *c)
{
	memset(c, 0, sizeof(*c));
	compare_count(c, "context", "n_ctx", p->n_ctx, l->target.n_ctx);
	compare_count(c, "context", "n_ctx_seq", p->n_ctx_seq, l->target.n_ctx_seq);
	compare_count(c, "context", "n_seq_max", p->n_seq, l->target.n_seq_max);
	compare_bufs(c, "model", p->model, p->n_model, l->model, l->n_model, 1);
	compare_kv(c, "kv", &p->kv, &l->target.kv);
	compare_kv(c, "kv_swa", &p->kv_swa, &l->target.kv_swa);
	if (p->rs.present || l->target.rs.present) {
		compare(c, "recurrent", "mib", plan_mib(p->rs.r_bytes + p->rs.s_bytes), l->target.rs.mib, 1);
		compare(c, "recurrent", "r_mib", plan_mib(p->rs.r_bytes - p->rs.p_bytes), l->target.rs.r_mib, 1);
		compare(c, "recurrent", "s_mib", plan_mib(p->rs.s_bytes), l->target.rs.s_mib, 1);
		if (p->rs.p_bytes || l->target.rs.p_mib > 0)
			compare(c, "recurrent", "p_mib", plan_mib(p->rs.p_bytes), l->target.rs.p_mib, 1);
		compare_count(c, "recurrent", "cells", p->rs.cells, l->target.rs.cells);
		compare_count(c, "recurrent", "rs_seq", p->rs.rs_seq, l->target.rs.rs_seq);
		if (l->target.rs.n_bufs)
			compare_bufs(c, "recurrent", p->rs.bufs, p->rs.n_bufs, l->target.rs.bufs, l->target.rs.n_bufs,
				     1);
	}
	if (p->n_draft_model || l->n_draft_model)
		compare_bufs(c, "draft_model", p->draft_model, p->n_draft_model, l->draft_model, l->n_draft_model, 1);
	compare_kv(c, "draft_kv", &p->draft_kv, &l->draft.kv);
	compare(c, "output", "target", plan_mib(p->output_bytes), ledger_sum(l->target.output, l->target.n_output), 1);
	/* the output buffer's type: the output layer's device's pinned host type, or CPU */
	if (l->target.n_output && strcmp(l->target.output[0].buft, p->output_buft) != 0)
		compare(c, "output", p->output_buft, plan_mib(p->output_bytes), 0, 1);
	if (p->has_draft || l->draft.n_output)
		compare(c, "output", "draft", plan_mib(p->draft_output_bytes),
			ledger_sum(l->draft.output, l->draft.n_output), 1);
	compare_bufs(c, "compute", p->compute, p->n_compute, l->target.compute, l->target.n_compute, 0);
	if (p->has_draft || l->draft.n_compute)
		compare_bufs(c, "draft_compute", p->draft_compute, p->n_draft_compute, l->draft.compute,
			     l->draft.n_compute, 0);
	if (p->lora_bytes || l->n_lora)
		compare(c, "lora", "all", plan_mib(p->lora_bytes), ledger_sum(l->lora, l->n_lora), 0);
	if (p->projector_weights || l->has_projector) {
		compare(c, "projector", "weights", plan_mib(p->projector_weights), l->projector_model_mib, 0);
		compare(c, "projector", "compute", plan_mib(p->projector_compute),
			ledger_sum(l->projector_compute, l->n_projector_compute), 0);
	}
}

void ledger_comparison_release(struct ledger_comparison *c)
{
	if (!c)
		return;
	free(c->v);
	memset(c, 0, sizeof(*c));
}

char *ledger_comparison_summary(const struct ledger_comparison *c, size_t max)
{
	struct sb b = {0};
	sb_adds(&b, "");
	size_t shown = 0, bad = 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct ledger_row *r = &c->v[i];
		if (r->match)
			continue;
		bad++;
		if (shown++ < max && r->count)
			sb_addf(&b, "%s%s.%s plan %.0f ledger %.0f", shown > 1 ? "; " : "", r->term, r->part, r->plan,
				r->ledger);
		else if (shown <= max)
			sb_addf(&b, "%s%s.%s plan %s MiB ledger %s MiB", shown > 1 ? "; " : "", r->term, r->part,
				FMT_MIB(r->plan), FMT_MIB(r->ledger));
	}
	if (bad > max)
		sb_addf(&b, "; and %zu more", bad - max);
	return sb_detach(&b);
}
