/* zealot plan ENDPOINT [--set K=V ...] [--device NAME] [--cpu-features LIST] [--json] [--svg FILE] */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/color.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/quote.h"
#include "../endpoint/router.h"
#include "../plan/plan.h"
#include "../plan/rate.h"
#include "../plan/report.h"
#include "../plan/shape.h"
#include "../store/calib.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static void list_devices(FILE *f)
{
	fprintf(f, "devices:\n");
	for (unsigned i = 0; i < device_n_profiles; i++) {
		const struct device *d = &device_profiles[i];
		if (!device_is_card(d))
			fprintf(f, "  %-14s %s\n", d->name, d->note);
		else
			fprintf(f, "  %-14s %6llu MiB advertised, %6llu addressable, %llu overhead (%s)\n", d->name,
				(unsigned long long)d->advertised_mib, (unsigned long long)d->addressable_mib,
				(unsigned long long)d->overhead_mib, d->note);
	}
}

static const struct cmd_help help = {DOC_PLAN, .more = list_devices};

/* The buffer column is as wide as the longest buffer name (an RPC
 * server's is RPC0[host:port]); "on" names the device a line bills. */
static int bw = 11;

static void row(const struct plan *p, const char *term, const char *buft, uint64_t bytes, int dev, const char *detail)
{
	char head[256];
	int n = snprintf(head, sizeof(head), "%-14s %-*s %11s  %-*s ", term, bw, buft, FMT_MIB(plan_mib(bytes)),
			 p->n_cards ? bw : 0, p->n_cards ? p->devs[dev].name : "");
	/* the detail wraps under itself */
	cmd_wrap(stdout, head, n > 0 && (size_t)n < sizeof(head) ? (size_t)n : 0, detail);
}

/* The weights, a line per buffer. On the CPU a repack buffer (AMX,
 * CPU_REPACK) holds a copy of the tensors its kernels take, while the
 * file's mapped span still holds their originals: the same tensors count
 * twice, and the lines say so. */
static void model_rows(const struct plan *p)
{
	int mapped = 0, repacked = 0;
	for (unsigned i = 0; i < p->n_model; i++) {
		const char *b = p->model[i].buft;
		int is_mapped = strstr(b, "_Mapped") != NULL;
		mapped |= is_mapped && !p->model[i].on_device;
		repacked |= !is_mapped && !p->model[i].on_device && strcmp(b, "CPU") != 0;
	}
	for (unsigned i = 0; i < p->n_model; i++) {
		const struct plan_buf *b = &p->model[i];
		char d[160];
		if (!mapped || !repacked || b->on_device)
			snprintf(d, sizeof(d), "weights");
		else if (strstr(b->buft, "_Mapped"))
			snprintf(d, sizeof(d),
				 "weights: the file's mapped span, which still holds the originals of the "
				 "repacked tensors (counted twice)");
		else
			snprintf(d, sizeof(d), "weights repacked for the CPU's %s kernels: a copy in memory", b->buft);
		row(p, "model", b->buft, b->bytes, b->dev, d);
	}
}

/* One line per KV buffer, the cache's shape on the first. */
static void kv_rows(const struct plan *p, const char *term, const struct plan_kv *kv)
{
	char d[256], a[32];
	snprintf(d, sizeof(d), "%s cells, %u layers, %u/%u seqs; K (%s) %s + V (%s) %s",
		 cmd_commas(kv->cells, a, sizeof(a)), kv->layers, kv->seqs, kv->streams, kv->k_type,
		 FMT_MIB(plan_mib(kv->k_bytes)), kv->v_type, FMT_MIB(plan_mib(kv->v_bytes)));
	for (unsigned i = 0; i < kv->n_bufs; i++)
		row(p, term, kv->bufs[i].buft, kv->bufs[i].bytes, kv->bufs[i].dev, i == 0 ? d : "");
}

static void print_devices(const struct plan *p)
{
	printf("\n%-*s %-8s %6s %11s %11s %11s %9s  %s\n", bw, "device", "profile", "layers", "total", "addressable",
	       "free", "slack", "");
	for (unsigned i = 0; i < p->n_devs; i++) {
		const struct plan_dev *d = &p->devs[i];
		char layers[16];
		snprintf(layers, sizeof(layers), "%u%s", d->layers, d->output ? "+out" : "");
		printf("%-*s %-8s %6s %11s %11s %11s %9s  %s%s%s\n", bw, d->name, d->profile, layers,
		       FMT_MIB(plan_mib(d->total)), FMT_MIB(plan_mib(d->addressable)),
		       FMT_MIB((double)d->free_bytes / (1024.0 * 1024.0)), FMT_MIB(plan_mib(d->slack)),
		       color_word(d->fits ? "fits" : "REFUSED"), d->fits ? "fits" : "REFUSED (law M09)",
		       color_tone(stdout, COLOR_END));
	}
}

/* The verdict line: fits, by how much; or which device refuses. */
static void print_verdict(const struct shape_ctx *c, const struct plan *p)
{
	if (c->n_breach) {
		struct sb d = {0};
		sb_addf(&d, "%srefused%s: %s (law %s)", color_word("refused"), color_tone(stdout, COLOR_END),
			c->breach.reason, c->breach.law);
		cmd_wrap(stdout, "\nverdict: ", 2, d.s);
		sb_release(&d);
	} else if (p->fits) {
		struct sb d = {0};
		sb_addf(&d, "%sfits%s, %s MiB above the slack band%s", color_word("fits"),
			color_tone(stdout, COLOR_END),
			FMT_MIB((double)(p->free_bytes - (int64_t)p->slack) / (1024.0 * 1024.0)),
			p->n_unmirrored ? " (by an estimate: see what is not mirrored)" : "");
		cmd_wrap(stdout, "\nverdict: ", 2, d.s);
		sb_release(&d);
	} else {
		for (unsigned i = 0; i < p->n_devs; i++)
			if (!p->devs[i].fits)
				printf("\nverdict: %srefused%s: %s MiB free on %s is below the %s MiB slack band (law "
				       "M09)",
				       color_word("refused"), color_tone(stdout, COLOR_END),
				       FMT_MIB((double)p->devs[i].free_bytes / (1024.0 * 1024.0)), p->devs[i].name,
				       FMT_MIB(plan_mib(p->devs[i].slack)));
		printf("\n");
	}
}

/* A compute buffer per row: on its device or the host, calibrated or modelled. */
static void compute_rows(const struct plan *p, const char *term, const struct plan_buf *v, unsigned n, int host,
			 int cuda)
{
	for (unsigned i = 0; i < n; i++)
		row(p, term, v[i].buft, v[i].bytes, v[i].on_device ? v[i].dev : host,
		    v[i].calibrated ? "calibrated"
				    : (cuda ? "modelled from source, not measured on a GPU here" : "modelled"));
}

static void print_human(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p,
			const char *cal_text)
{
	const struct model *m = c->census->model;
	int cards = p->n_cards > 0;
	int cuda = p->device->backend == DEVICE_CUDA && p->n_cards == 1;
	bw = 11;
	for (unsigned i = 0; i < p->n_devs; i++)
		if ((int)strlen(p->devs[i].name) > bw)
			bw = (int)strlen(p->devs[i].name);
	{
		struct sb h = {0}, d = {0};
		sb_addf(&h, "plan %s: ", ep->name);
		sb_addf(&d, "%s (%s, %u blocks) on %s", c->model_path, m->arch, m->n_layer_all, p->device->name);
		cmd_wrap(stdout, h.s, 2, d.s);
		sb_release(&h);
		sb_release(&d);
	}
	char nc[32], ns[32];
	struct sb cx = {0};
	sb_addf(&cx, "n_ctx %s = %u slot%s x n_ctx_seq %s%s%s", cmd_commas(p->n_ctx, nc, sizeof(nc)), p->n_seq,
		p->n_seq == 1 ? "" : "s", cmd_commas(p->n_ctx_seq, ns, sizeof(ns)),
		c->shape.kv_unified ? " (unified)" : "",
		p->ctx_rounded ? " (the engine rounds CTX_SIZE to a whole number of padded slots)" : "");
	cmd_wrap(stdout, "context: ", 2, cx.s);
	sb_release(&cx);
	if (cards) {
		printf("devices:");
		for (unsigned i = 0; i < p->n_cards; i++)
			printf("%s %s (%s)", i ? "," : "", p->devs[i].name, p->devs[i].profile);
		printf("; offloaded %u/%u layers%s%s", p->offloaded, p->offloadable,
		       p->kv_offload ? "" : "; KV and state on the CPU (KV_OFFLOAD=0)",
		       p->pipeline ? "; pipeline parallelism (4 scheduler copies)" : "");
		if (p->n_overrides)
			printf("; %u override pattern%s", p->n_overrides, p->n_overrides == 1 ? "" : "s");
		printf("\n");
	}
	printf("\n");
	if (!p->n_cards || !p->devs[0].profile || strncmp(p->devs[0].name, "CUDA", 4) != 0) {
		char f[128];
		printf("cpu: %s (%s)%s\n\n", cpu_features_format(&c->shape.cpu, f, sizeof(f)), c->shape.cpu.source,
		       c->shape.repack ? "" : "; REPACK=0: no extra buffers");
	}
	printf("%-14s %-*s %11s  %-*s %s\n", "term", bw, "buffer", "MiB", cards ? bw : 0, cards ? "on" : "", "detail");
	model_rows(p);
	if (p->kv.present)
		kv_rows(p, "kv", &p->kv);
	if (p->kv_swa.present)
		kv_rows(p, "kv_swa", &p->kv_swa);
	if (p->rs.present) {
		char d[256], a[32];
		snprintf(d, sizeof(d), "%s cells, %u layers (%u recurrent), %u seqs %u rs_seq; R (f32) %s + S (f32) %s",
			 cmd_commas(p->rs.cells, a, sizeof(a)), p->rs.layers, p->rs.recurrent_layers, p->rs.seqs,
			 p->rs.rs_seq, FMT_MIB(plan_mib(p->rs.r_bytes)), FMT_MIB(plan_mib(p->rs.s_bytes)));
		for (unsigned i = 0; i < p->rs.n_bufs; i++)
			row(p, "recurrent", p->rs.bufs[i].buft, p->rs.bufs[i].bytes, p->rs.bufs[i].dev,
			    i == 0 ? d : "");
	}
	for (unsigned i = 0; i < p->n_draft_model; i++)
		row(p, "draft_model", p->draft_model[i].buft, p->draft_model[i].bytes, p->draft_model[i].dev,
		    "the drafter's weights (SPEC_DRAFT_MODEL_FILE)");
	if (p->draft_kv.present)
		kv_rows(p, "draft_kv", &p->draft_kv);
	int host = (int)p->n_cards;
	row(p, "output", p->output_buft, p->output_bytes + p->draft_output_bytes, host,
	    p->has_draft ? "logits, target + draft" : "logits");
	if (p->extract_bytes)
		row(p, "extract", p->output_buft, p->extract_bytes, host,
		    "the target's layer inputs the drafter reads, added to the output buffer at the first decode "
		    "(logged by no line)");
	compute_rows(p, "compute", p->compute, p->n_compute, host, cuda);
	compute_rows(p, "draft_compute", p->draft_compute, p->n_draft_compute, host, cuda);
	int card = (int)p->side_dev;
	const char *dbuf = cards ? p->devs[card].name : "CPU";
	if (p->projector_weights)
		row(p, "projector", dbuf, p->projector_weights + p->projector_compute, card,
		    p->projector_calibrated ? "weights + encoder compute calibrated (counted before launch, law M06)"
					    : "weights + worst-case encoder compute (counted before launch, law M06)");
	if (p->lora_bytes)
		row(p, "lora", dbuf, p->lora_bytes, card, "adapter tensors");
	for (unsigned i = 0; i < p->n_cards; i++)
		if (p->devs[i].overhead)
			row(p, "overhead", p->devs[i].name, p->devs[i].overhead, (int)i,
			    p->overhead_calibrated ? "runtime context (settled memory minus ledger)"
						   : "runtime context (device profile)");
	if (cal_text && *cal_text)
		printf("\n%s%s", cal_text, cal_text[strlen(cal_text) - 1] == '\n' ? "" : "\n");
	if (cards && !cuda)
		print_devices(p);
	printf("\n%-26s %11s  %s\n", cards ? "total on the card" : "total", FMT_MIB(plan_mib(p->device_total)),
	       cards ? (cuda ? "" : p->devs[p->main_dev].name) : "(host memory)");
	if (cards)
		printf("%-26s %11s  %s\n", "host", FMT_MIB(plan_mib(p->host_total)),
		       p->devs[host].addressable ? "(held against the host's MemAvailable)" : "(host memory unknown)");
	printf("%-26s %11s  %s\n", "addressable", FMT_MIB(plan_mib(p->addressable)),
	       c->extras.addressable_mib ? "(ADDRESSABLE_MIB)"
	       : cards			 ? "(profile)"
					 : "(host MemAvailable)");
	printf("%-26s %11s\n", "free", FMT_MIB((double)p->free_bytes / (1024.0 * 1024.0)));
	if (cuda) {
		int64_t now = device_nvidia_free_mib(device_card_of(endpoint_value(ep, K_GPU)));
		if (now >= 0)
			printf("%-26s %11s  (nvidia-smi free right now; the plan budgets the idle card)\n",
			       "card free now", FMT_MIB((double)now));
	}
	printf("%-26s %11s  (SLACK_MIB)\n", "slack", FMT_MIB(plan_mib(p->slack)));
	if (*p->cuda_note)
		cmd_wrap(stdout, "\n", 2, p->cuda_note);
	if (p->n_unmirrored)
		printf("\nnot mirrored by zealot yet (the figures it touches are estimates):\n");
	for (unsigned i = 0; i < p->n_unmirrored; i++)
		cmd_wrap(stdout, "  - ", 4, p->unmirrored[i]);
	print_verdict(c, p);
}

/* The decode prediction's line, and where the headers came from. */
static void print_decode(const struct shape_ctx *c, const struct rate *rt)
{
	struct sb d = {0};
	sb_addf(&d, "%s MiB per token", FMT_MIB(rt->bytes_per_token / 1048576.0));
	if (rt->tps_ceiling > 0)
		sb_addf(&d, ", ceiling %.1f tokens/s", rt->tps_ceiling);
	for (unsigned i = 0; i < rt->n_dev; i++)
		if (rt->dev[i].bytes_per_token > 0)
			sb_addf(&d, "%s %s %s MiB, %.3f ms at %.0f GB/s", i ? ";" : ":", rt->dev[i].name,
				FMT_MIB(rt->dev[i].bytes_per_token / 1048576.0), rt->dev[i].ms_per_token,
				rt->dev[i].bandwidth_gbs);
	char head[96], a[32];
	snprintf(head, sizeof(head), "\ndecode at %s tokens of context: ", cmd_commas(rt->fill, a, sizeof(a)));
	cmd_wrap(stdout, head, 2, d.s);
	sb_release(&d);
	if (c->remote_reads)
		printf("\nremote: %llu requests, %llu bytes: headers read from *_URL (the files are not "
		       "here yet: zealot fetch)\n",
		       (unsigned long long)c->remote.requests, (unsigned long long)c->remote.bytes);
}

/* --cpu-features: CPU_FEATURES set as --set would. */
static int set_cpu(struct endpoint *ep, const char *cpu, char **err)
{
	struct sb kv = {0};
	sb_addf(&kv, "CPU_FEATURES=%s", cpu);
	int bad = endpoint_set(ep, kv.s, err);
	sb_release(&kv);
	return bad;
}

/* plan --json: the plan, its decode prediction, its calibration (taken)
 * and what was read over the network. */
static void print_plan_json(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p,
			    const struct rate *rt, json_t *cal)
{
	json_t *o = plan_to_json(ep, c, p);
	json_object_set_new(o, "decode", plan_rate_json(rt, 1));
	json_object_set_new(o, "calibration", cal ? cal : json_null());
	json_object_set_new(o, "remote", cmd_remote_json(c->remote_reads != 0, &c->remote));
	cmd_print_json(o, 12);
	json_decref(o);
}

/* A refused plan's next step: the commands that find a shape that fits,
 * on the file as the user named it (quoted for a shell when it must be). */
static void print_hint(const char *path)
{
	struct sb q = {0}, d = {0};
	quote_shell_word(&q, path);
	sb_addf(&d,
		"zealot rungs %s lists each one-line change and what it frees; zealot solve %s finds the best "
		"shape that fits",
		q.s, q.s);
	cmd_wrap(stdout, "\nhint: ", 2, d.s);
	sb_release(&q);
	sb_release(&d);
}

static struct opt_list sets;
static int no_calibration, json;
static const char *device, *cpu, *svg;
static const struct opt opts[] = {
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key (what-if; repeatable)"),
    OPT_STRING(0, "device", &device, "NAME", "price on this profile instead of DEVICE"),
    OPT_STRING(0, "cpu-features", &cpu, "LIST",
	       "plan for a host with these CPU features (CPU_FEATURES: avx2, avx512, avx512_vnni, amx_int8, "
	       "neon, dotprod, matmul_int8, sve, or none)"),
    OPT_FLAG(0, "no-calibration", &no_calibration, "the model alone, even when a boot is recorded"),
    OPT_JSON(&json),
    OPT_STRING(0, "svg", &svg, "FILE", "write the budget picture: a standalone SVG of every term"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	char *err = NULL;
	struct shape_ctx c = {0};
	struct endpoint *ep = cmd_load_target("plan", args->v[0], &sets, &rc, &err);
	if (!ep)
		goto done;
	if (cpu && set_cpu(ep, cpu, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (router_is(ep)) {
		rc = cmd_router_plan(ep, device, json, &err);
		goto done;
	}
	struct plan p;
	json_t *cal = NULL;
	char *cal_text = NULL, *warn = NULL;
	rc = cmd_exit(calib_price(ep, device, cpu ? "--cpu-features" : NULL, !no_calibration, &c, &p, &cal, &cal_text,
				  &warn, &err));
	if (rc != EXIT_OK)
		goto done;
	if (warn) {
		cmd_fail(0, "plan: warning: not calibrated: %s", warn);
		free(warn);
	}
	if (svg && plan_svg_write(svg, ep->name, &p, &c.shape, &err)) {
		rc = cmd_exit(ZE_IO);
		json_decref(cal);
		free(cal_text);
		goto done;
	}
	/* decode (rate.h): half the window, the default acceptance, HOST_BW_GBS */
	struct rate_opts ro = {p.n_ctx_seq / 2, RATE_ACCEPT_DEFAULT, 0};
	struct rate rt;
	if (rate_host_bw(ep, &ro.host_bw_gbs, &err) ||
	    rate_of(c.census->model, c.model->g, &c.shape, &c.extras, &p, &ro, &rt, &err)) {
		rc = EXIT_USAGE;
		json_decref(cal);
		free(cal_text);
		goto done;
	}
	if (json) {
		print_plan_json(ep, &c, &p, &rt, cal);
	} else {
		print_human(ep, &c, &p, cal_text);
		json_decref(cal);
		print_decode(&c, &rt);
		if (!p.fits || c.n_breach)
			print_hint(args->v[0]);
	}
	free(cal_text);
	rc = p.fits && !c.n_breach ? EXIT_OK : EXIT_NO;
done:
	shape_release(&c);
	endpoint_free(ep);
	return cmd_end("plan", rc, err);
}

const struct command cmd_plan = {"plan", &help, opts, run, NULL};
