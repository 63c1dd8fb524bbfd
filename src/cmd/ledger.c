/* zealot ledger LOG [--endpoint ENDPOINT] [--json] */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/color.h"
#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../live/ledger.h"
#include "../live/ledger_compare.h"
#include "../live/promfile.h"
#include "../plan/plan.h"
#include "../plan/report.h"
#include "../plan/shape.h"
#include "../store/calib.h"
#include "../store/store.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_LEDGER};

/* Boot logs of a long-running unit can be large; the ledger is near the
 * start, but a journal excerpt may be anywhere: read up to 256 MiB. */
#define LOG_MAX (256u << 20)

static char *read_all(const char *path, size_t *len, char **err)
{
	char *t = read_file(path, LOG_MAX, READ_STDIN, len, NULL, err);
	if (!t && *err && strstr(path, "://")) { /* a URL is no log: say where the log is */
		free(*err);
		*err = NULL;
		errorf(err,
		       "'%s' is a URL: the ledger is in the engine's boot log, not on its HTTP port "
		       "(journalctl -u UNIT | zealot ledger -)",
		       path);
	}
	return t;
}

/* The plan's CPU features against the engine's system_info: a different
 * instruction set moves weights between AMX, CPU_REPACK and the mapping,
 * so a mismatch explains a model-term difference before anyone reads it.
 * Returns the finding (static text in buf) or NULL when they agree. */
static const char *cpu_finding(const struct plan_shape *s, const struct ledger *l, char *buf, size_t n)
{
	if (!l->has_cpu || l->cpu.bits == s->cpu.bits)
		return NULL;
	char a[128], b[128];
	snprintf(buf, n,
		 "the plan assumed CPU features %s (%s) but the engine that booted has %s (its system_info line): "
		 "set CPU_FEATURES=%s to plan for that host",
		 cpu_features_format(&s->cpu, a, sizeof(a)), s->cpu.source, cpu_features_format(&l->cpu, b, sizeof(b)),
		 b);
	return buf;
}

static void print_kv(const char *name, const struct ledger_kv *kv)
{
	if (!kv->present)
		return;
	char a[32], head[64], d[256];
	snprintf(head, sizeof(head), "%-14s %10s MiB  ", name, FMT_MIB(kv->mib));
	snprintf(d, sizeof(d), "%s cells, %u layers, %u/%u seqs; K (%s) %s + V (%s) %s",
		 cmd_commas(kv->cells, a, sizeof(a)), kv->layers, kv->seqs, kv->streams, kv->k_type, FMT_MIB(kv->k_mib),
		 kv->v_type, FMT_MIB(kv->v_mib));
	cmd_wrap(stdout, head, strlen(head), d); /* the detail wraps under itself */
	for (unsigned i = 0; kv->n_bufs > 1 && i < kv->n_bufs; i++)
		printf("%-14s %10s MiB  %s\n", "", FMT_MIB(kv->bufs[i].mib), kv->bufs[i].buft);
}

static void print_ctx(const char *label, const struct ledger_ctx *c)
{
	if (!c->present)
		return;
	/* what the log states, wrapped to the report's width; a field the log
	 * does not state (kv_unified, a draft context's batch) is left out */
	char a[32], b[32], head[64];
	struct sb d = {0};
	sb_addf(&d, "n_ctx %s, n_ctx_seq %s, n_seq_max %u", cmd_commas(c->n_ctx, a, sizeof(a)),
		cmd_commas(c->n_ctx_seq, b, sizeof(b)), c->n_seq_max);
	if (c->n_batch)
		sb_addf(&d, ", n_batch %u, n_ubatch %u", c->n_batch, c->n_ubatch);
	if (c->kv_unified >= 0)
		sb_addf(&d, ", kv_unified %s", c->kv_unified ? "true" : "false");
	sb_addf(&d, ", n_rs_seq %u", c->n_rs_seq);
	snprintf(head, sizeof(head), "%s: ", label);
	cmd_wrap(stdout, head, 2, d.s);
	sb_release(&d);
	print_kv("kv", &c->kv);
	print_kv("kv_swa", &c->kv_swa);
	if (c->rs.present)
		printf("%-14s %10s MiB  %s cells, %u layers, %u seqs %u rs_seq; R %s + S %s\n", "recurrent",
		       FMT_MIB(c->rs.mib), cmd_commas(c->rs.cells, a, sizeof(a)), c->rs.layers, c->rs.seqs,
		       c->rs.rs_seq, FMT_MIB(c->rs.r_mib), FMT_MIB(c->rs.s_mib));
	for (unsigned i = 0; c->rs.n_bufs > 1 && i < c->rs.n_bufs; i++)
		printf("%-14s %10s MiB  %s\n", "", FMT_MIB(c->rs.bufs[i].mib), c->rs.bufs[i].buft);
	for (unsigned i = 0; i < c->n_output; i++)
		printf("%-14s %10s MiB  %s\n", "output", FMT_MIB(c->output[i].mib), c->output[i].buft);
	for (unsigned i = 0; i < c->n_compute; i++)
		printf("%-14s %10s MiB  %s\n", "compute", FMT_MIB(c->compute[i].mib), c->compute[i].buft);
}

static void print_ledger(const struct ledger *l)
{
	char a[32];
	for (unsigned i = 0; i < l->n_model; i++)
		printf("%-14s %10s MiB  %s\n", "model", FMT_MIB(l->model[i].mib), l->model[i].buft);
	for (unsigned i = 0; i < l->n_lora; i++)
		printf("%-14s %10s MiB  %s\n", "lora", FMT_MIB(l->lora[i].mib), l->lora[i].buft);
	for (unsigned i = 0; i < l->n_draft_model; i++)
		printf("%-14s %10s MiB  %s\n", "draft model", FMT_MIB(l->draft_model[i].mib), l->draft_model[i].buft);
	print_ctx("target context", &l->target);
	print_ctx("draft context", &l->draft);
	if (l->has_projector) {
		printf("%-14s %10s MiB  weights\n", "projector", FMT_MIB(l->projector_model_mib));
		for (unsigned i = 0; i < l->n_projector_compute; i++)
			printf("%-14s %10s MiB  compute %s\n", "projector", FMT_MIB(l->projector_compute[i].mib),
			       l->projector_compute[i].buft);
		if (l->projector_worst_mib > 0)
			printf("%-14s %10s MiB  worst case (charged after the engine's fit check, law M06)\n",
			       "projector", FMT_MIB(l->projector_worst_mib));
	}
	if (l->n_slots || l->slot_lines)
		printf("slots: %u, n_ctx per slot %s\n", l->n_slots ? l->n_slots : l->slot_lines,
		       cmd_commas(l->slot_n_ctx, a, sizeof(a)));
	if (l->has_fit) { /* the engine states these in whole MiB */
		struct sb d = {0};
		sb_addf(&d, "projected %s MiB vs %s MiB free", FMT_MIB(l->fit_projected_mib), FMT_MIB(l->fit_free_mib));
		if (l->fit_short)
			sb_addf(&d, "; cannot meet its %s MiB target, short by %s MiB", FMT_MIB(l->fit_target_mib),
				FMT_MIB(l->fit_reduce_mib));
		cmd_wrap(stdout, "engine fit: ", 2, d.s);
		sb_release(&d);
	}
}

/* --- plan vs ledger ------------------------------------------------------ */

struct cmp {
	json_t *rows;
	int diverged;
};

/* The comparison is the library's (deploy holds boots to it too); the
 * command renders its rows. */
static void compare_all(struct cmp *c, const struct plan *p, const struct ledger *l)
{
	struct ledger_comparison lc;
	ledger_compare(p, l, &lc);
	for (size_t i = 0; i < lc.n; i++) {
		const struct ledger_row *r = &lc.v[i];
		json_array_append_new(c->rows, json_pack("{s:s,s:s,s:f,s:f,s:f,s:f,s:b,s:b,s:b}", "term", r->term,
							 "part", r->part, "plan", r->plan, "ledger", r->ledger, "diff",
							 r->diff, "error_pct", r->error_pct, "exact", r->exact, "match",
							 r->match, "count", r->count));
	}
	c->diverged = lc.diverged;
	ledger_comparison_release(&lc);
}

static void print_compare(const struct cmp *c)
{
	printf("%-14s %-11s %12s %12s %10s %8s  %s\n", "term", "part", "plan", "ledger", "diff", "error", "");
	size_t i;
	json_t *r;
	json_array_foreach(c->rows, i, r)
	{
		int exact = json_is_true(json_object_get(r, "exact"));
		int match = json_is_true(json_object_get(r, "match"));
		double pl = json_number_value(json_object_get(r, "plan")),
		       le = json_number_value(json_object_get(r, "ledger"));
		double df = json_number_value(json_object_get(r, "diff")),
		       pct = json_number_value(json_object_get(r, "error_pct"));
		char a[48], b[48], d[48];
		if (json_is_true(json_object_get(r, "count"))) { /* cells, layers, n_ctx: whole numbers */
			cmd_commas((uint64_t)llround(fabs(pl)), a, sizeof(a));
			cmd_commas((uint64_t)llround(fabs(le)), b, sizeof(b));
			snprintf(d, sizeof(d), "%s%.0f", df > 0 ? "+" : "", df);
		} else {
			fmt_mib(pl, 0, a, sizeof(a));
			fmt_mib(le, 0, b, sizeof(b));
			fmt_mib(df, 1, d, sizeof(d));
		}
		printf("%-14s %-11s %12s %12s %10s %7.2f%%  %s%s%s\n", json_string_value(json_object_get(r, "term")),
		       json_string_value(json_object_get(r, "part")), a, b, d, fabs(pct) < 0.005 ? 0.0 : pct,
		       exact ? color_word(match ? "match" : "DIFFERS") : "",
		       exact ? (match ? "exact: match" : "exact: DIFFERS") : "modelled", color_tone(stdout, COLOR_END));
	}
	printf("\nverdict: %s\n", c->diverged ? "the plan differs from the ledger on an exact term"
					      : "every exact term matches the ledger");
}

/* --record: the boot into the store, with the endpoint's plan beside it
 * (calibration's modelled figures at this shape). */
static int record_boot(const char *path, const char *settled, const char *log, const struct ledger *l, json_t *lj,
		       int64_t *id, char **err)
{
	uint64_t used = 0;
	if (settled && parse_u64(settled, &used)) {
		errorf(err, "--settled-used '%s' is not a whole number of MiB", settled);
		return EXIT_USAGE;
	}
	char *runtime = NULL;
	enum zerr k = calib_record_boot(path, log, l->build, settled ? (int64_t)used : -1, lj, id, &runtime, err);
	if (k == ZE_OK && !l->build[0])
		fprintf(stderr,
			"zealot: ledger: note: '%s' has no build line: this boot calibrates plans whose runtime "
			"is %s by its path alone\n",
			log, runtime);
	free(runtime);
	return cmd_exit(k);
}

/* --endpoint: the ledger against the endpoint's plan, into out and cmp;
 * EXIT_OK or EXIT_NO by the verdict, else the failure's status. The
 * caller releases *ep and c. */
static int write_prom(const char *path, const struct endpoint *ep, const struct plan *p, const struct ledger *l,
		      int64_t settled, int matches, char **err);

/* --set and --device: a what-if of --endpoint */
static struct opt_list sets;
static const char *device;

/* --prom (prom not NULL) writes the textfile with settled MiB (-1: none). */
static int compare_endpoint(const char *endpoint_path, const struct ledger *l, int json, json_t *out, struct cmp *cmp,
			    struct endpoint **ep, struct shape_ctx *c, const char *prom, int64_t settled, char **err)
{
	enum zerr kind;
	*ep = endpoint_load(endpoint_path, &kind, err);
	int io = 0;
	if (*ep && cmd_apply_sets(*ep, &sets, err))
		return EXIT_USAGE;
	if (!*ep || (kind = shape_load(*ep, device, c, &io, err)) != ZE_OK)
		return cmd_exit(kind);
	struct plan p;
	if (plan_make(c->census->model, c->model->g, &c->shape, c->dev, &c->extras, &p, err))
		return EXIT_USAGE;
	compare_all(cmp, &p, l);
	if (prom && write_prom(prom, *ep, &p, l, settled, !cmp->diverged, err))
		return cmd_exit(ZE_IO);
	char finding[512];
	const char *cpu = cpu_finding(&c->shape, l, finding, sizeof(finding));
	json_object_set_new(out, "cpu_mismatch", cpu ? json_string(cpu) : json_null());
	if (cpu && !json)
		fprintf(stderr, "zealot: ledger: warning: %s\n", cpu);
	json_object_set(out, "comparison", cmp->rows);
	json_object_set_new(out, "verdict", json_string(cmp->diverged ? "differs" : "matches"));
	return cmp->diverged ? EXIT_NO : EXIT_OK;
}

/* The ledger of the boot log at path ("-": stdin); NULL with *err when it
 * cannot be read, holds no ledger lines, or says the engine did not boot. */
static struct ledger *read_ledger(const char *path, char **err)
{
	size_t len = 0;
	char *log = read_all(path, &len, err);
	if (!log)
		return NULL;
	struct ledger *l = xcalloc(1, sizeof(*l));
	ledger_parse(log, len, l);
	free(log);
	if (l->recognised == 0) {
		errorf(err, "'%s': no ledger lines (%d lines read): is it a llama-server log at --log-verbosity 4?",
		       path, l->lines);
		free(l);
		return NULL;
	}
	if (l->engine_error[0] && !l->target.present) {
		errorf(err, "'%s': the engine did not boot: %s", path, l->engine_error);
		free(l);
		return NULL;
	}
	return l;
}

/* --prom: the textfile collector's file, with the endpoint's current era
 * from the store when it has one. */
static int write_prom(const char *path, const struct endpoint *ep, const struct plan *p, const struct ledger *l,
		      int64_t settled, int matches, char **err)
{
	int64_t era = 0;
	char *serr = NULL;
	struct store *st = store_name_ok(ep->name, NULL) == 0 ? store_open(NULL, &serr) : NULL;
	struct store_era cur;
	memset(&cur, 0, sizeof(cur));
	if (st && store_era_get(st, ep->name, 0, &cur, NULL) == 0)
		era = cur.id;
	store_era_release(&cur);
	store_close(st);
	free(serr);
	struct probe_result pr = {.name = "ledger", .law = "M08", .status = matches ? PROBE_PASS : PROBE_FAIL};
	struct probe_results probes = {&pr, 1};
	struct promfile f = {ep->name, p, l, settled, era, &probes};
	char *text = promfile_text(&f);
	int rc = promfile_write(path, text, err);
	free(text);
	return rc;
}

/* What is wrong with the options together, or NULL; --prom without
 * --endpoint takes --record's file. */
static const char *usage_problem(const char *settled, const char *record, const char *prom, const char **endpoint_path,
				 uint64_t *settled_mib)
{
	if (settled && !record && !prom)
		return "--settled-used goes with --record or --prom";
	if (prom && !*endpoint_path)
		*endpoint_path = record;
	if (prom && !*endpoint_path)
		return "--prom needs --endpoint (the plan the ledger is held to)";
	if (settled && parse_u64(settled, settled_mib))
		return "--settled-used is a whole number of MiB";
	return NULL;
}

static const char *endpoint_path, *record, *settled, *prom;
static int json;
static const struct opt opts[] = {
    OPT_STRING(0, "endpoint", &endpoint_path, "FILE", "compare with the plan of this endpoint"),
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "with --endpoint: override a key of it (what-if; repeatable)"),
    OPT_STRING(0, "device", &device, "NAME", "with --endpoint: price its plan on this profile instead of DEVICE"),
    OPT_STRING(0, "record", &record, "FILE", "record the boot as one of this endpoint's"),
    OPT_STRING(0, "settled-used", &settled, "MIB", "with --record or --prom: nvidia-smi's used MiB after settling"),
    OPT_STRING(0, "prom", &prom, "FILE", "write the node exporter's textfile metrics (needs --endpoint)"),
    OPT_JSON(&json),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	const char *path = args->v[0]; /* "-" is stdin: a lone dash is an argument, not an option */
	uint64_t settled_mib = 0;
	const char *bad = usage_problem(settled, record, prom, &endpoint_path, &settled_mib);
	if (bad)
		return opt_usage_error("ledger", &help, bad);
	if ((sets.n || device) && (record || !endpoint_path))
		return opt_usage_error(
		    "ledger", &help,
		    "--set and --device take --endpoint and no --record (a what-if is never recorded)");
	if (endpoint_path && !record && !prom && cmd_router_file(endpoint_path))
		return cmd_router_ledger(endpoint_path, path, json);
	char *err = NULL;
	struct endpoint *ep = NULL;
	struct shape_ctx c = {0};
	struct ledger *l = NULL;
	json_t *out = NULL;
	struct cmp cmp = {NULL, 0};
	l = read_ledger(path, &err);
	if (!l) {
		rc = cmd_exit(ZE_IO);
		goto done;
	}
	out = ledger_to_json(l);
	cmp.rows = json_array();
	if (endpoint_path) {
		rc = compare_endpoint(endpoint_path, l, json, out, &cmp, &ep, &c, prom,
				      settled ? (int64_t)settled_mib : -1, &err);
		if (rc != EXIT_OK && rc != EXIT_NO)
			goto done;
	}
	if (record) {
		int64_t id = 0;
		rc = record_boot(record, settled, path, l, out, &id, &err);
		if (rc != EXIT_OK)
			goto done;
		if (json)
			json_object_set_new(out, "recorded_boot", json_integer(id));
		else
			printf("recorded as boot %lld of %s\n\n", (long long)id, record);
		rc = cmp.diverged ? EXIT_NO : EXIT_OK;
	}
	if (json) {
		cmd_print_json(out, 12);
	} else {
		print_ledger(l);
		if (endpoint_path) {
			printf("\n");
			print_compare(&cmp);
		}
	}
done:
	json_decref(out);
	json_decref(cmp.rows);
	shape_release(&c);
	endpoint_free(ep);
	free(l);
	return cmd_end("ledger", rc, err);
}

const struct command cmd_ledger = {"ledger", &help, opts, run, NULL};
