/* zealot plan ENDPOINT [--set K=V ...] [--device NAME] [--json] */
#include <getopt.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "calib.h"
#include "cmd.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: zealot plan ENDPOINT [--set KEY=VALUE ...] [--device NAME] [--no-calibration] [--json]\n"
		   "\n"
		   "Price the endpoint's serving shape on a device, term by term, named like\n"
		   "the engine's own boot ledger, then total, addressable, free, slack and the\n"
		   "verdict. Refuses a shape that leaves less than SLACK_MIB free (law M09).\n"
		   "\n"
		   "Terms: model (per buffer: CPU_Mapped, CPU_REPACK on cpu, CUDA0), kv (K\n"
		   "and V, cells per sequence, layers, sequences), kv_swa (sliding-window\n"
		   "layers), recurrent (R and S, cells, rollback planes), draft_kv and\n"
		   "draft_compute (an armed MTP drafter: its KV over the whole pool, law M05),\n"
		   "compute (per buffer, modelled), output, projector (weights + worst-case\n"
		   "encoder compute, billed before launch, law M06), lora, overhead (the\n"
		   "device profile's runtime context).\n"
		   "model, kv, kv_swa, recurrent, draft_kv and output are exact; compute and\n"
		   "projector compute are modelled.\n"
		   "\n"
		   "Calibration (law M08): with a boot recorded in the store (zealot ledger\n"
		   "LOG --record ENDPOINT, or a deploy) of the same runtime version, device\n"
		   "and payload, the modelled terms come from it: at the recorded shape the\n"
		   "measured figures, at another shape each modelled term scaled by\n"
		   "measured/modelled at the recorded one; a buffer the model lacks (CUDA_Host\n"
		   "compute) is carried as measured, scaled with the card's compute; overhead\n"
		   "is the boot's settled memory minus its ledger. The plan says which boot.\n"
		   "\n"
		   "  --set KEY=VALUE  override an endpoint key (what-if; repeatable)\n"
		   "  --device NAME    price on this profile instead of DEVICE\n"
		   "  --no-calibration the model alone, even when a boot is recorded\n"
		   "  --json           one JSON object\n"
		   "  -h, --help       this text\n"
		   "\n"
		   "devices:\n");
	for (unsigned i = 0; i < device_n_profiles; i++) {
		const struct device *d = &device_profiles[i];
		if (d->backend == DEVICE_CPU)
			fprintf(f, "  %-14s %s\n", d->name, d->note);
		else
			fprintf(f, "  %-14s %6llu MiB advertised, %6llu addressable, %llu overhead (%s)\n", d->name,
				(unsigned long long)d->advertised_mib, (unsigned long long)d->addressable_mib,
				(unsigned long long)d->overhead_mib, d->note);
	}
	fprintf(f, "\nexit: 0 fits, 1 refused, 2 usage or invalid endpoint, 3 unreadable file\n");
}

/* Two decimals as the engine prints them (see ledger.c). */
static double r2(uint64_t bytes)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.2f", plan_mib(bytes));
	return strtod(buf, NULL);
}

static json_t *jbufs(const struct plan_buf *b, unsigned n)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(
		    a, json_pack("{s:s,s:f,s:b}", "device", b[i].buft, "mib", r2(b[i].bytes), "card", b[i].on_device));
	return a;
}

static json_t *jkv(const struct plan_kv *kv)
{
	if (!kv->present)
		return json_null();
	return json_pack("{s:f,s:f,s:f,s:i,s:i,s:i,s:i,s:s,s:s}", "mib", r2(kv->k_bytes + kv->v_bytes), "k_mib",
			 r2(kv->k_bytes), "v_mib", r2(kv->v_bytes), "cells", (json_int_t)kv->cells, "layers",
			 (json_int_t)kv->layers, "seqs", (json_int_t)kv->seqs, "streams", (json_int_t)kv->streams,
			 "k_type", kv->k_type, "v_type", kv->v_type);
}

static uint64_t bufs_sum(const struct plan_buf *b, unsigned n)
{
	uint64_t s = 0;
	for (unsigned i = 0; i < n; i++)
		s += b[i].bytes;
	return s;
}

static json_t *to_json(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "endpoint", json_string(ep->name));
	json_object_set_new(o, "model_file", json_string(c->model_path));
	json_object_set_new(o, "device", json_string(p->device->name));
	json_object_set_new(o, "verdict", json_string(p->fits ? "fits" : "refused"));
	json_object_set_new(o, "n_ctx", json_integer(p->n_ctx));
	json_object_set_new(o, "n_ctx_seq", json_integer(p->n_ctx_seq));
	json_object_set_new(o, "n_seq", json_integer(p->n_seq));
	json_object_set_new(o, "model", jbufs(p->model, p->n_model));
	json_object_set_new(o, "kv", jkv(&p->kv));
	json_object_set_new(o, "kv_swa", jkv(&p->kv_swa));
	if (p->rs.present)
		json_object_set_new(o, "recurrent",
				    json_pack("{s:f,s:f,s:f,s:i,s:i,s:i,s:i}", "mib", r2(p->rs.r_bytes + p->rs.s_bytes),
					      "r_mib", r2(p->rs.r_bytes), "s_mib", r2(p->rs.s_bytes), "cells",
					      (json_int_t)p->rs.cells, "layers", (json_int_t)p->rs.layers, "seqs",
					      (json_int_t)p->rs.seqs, "rs_seq", (json_int_t)p->rs.rs_seq));
	else
		json_object_set_new(o, "recurrent", json_pack("{s:f,s:f,s:f}", "mib", 0.0, "r_mib", 0.0, "s_mib", 0.0));
	json_t *dk = jkv(&p->draft_kv);
	if (json_is_null(dk)) {
		json_decref(dk);
		dk = json_pack("{s:f}", "mib", 0.0);
	}
	json_object_set_new(o, "draft_kv", dk);
	json_object_set_new(o, "output_mib", json_real(r2(p->output_bytes + p->draft_output_bytes)));
	json_object_set_new(o, "compute", jbufs(p->compute, p->n_compute));
	json_object_set_new(o, "draft_compute", jbufs(p->draft_compute, p->n_draft_compute));
	json_object_set_new(o, "projector",
			    json_pack("{s:f,s:f,s:f}", "mib", r2(p->projector_weights + p->projector_compute),
				      "weights_mib", r2(p->projector_weights), "compute_mib",
				      r2(p->projector_compute)));
	json_object_set_new(o, "lora_mib", json_real(r2(p->lora_bytes)));
	json_object_set_new(o, "overhead_mib", json_real(r2(p->overhead_bytes)));
	json_object_set_new(o, "total_mib", json_real(r2(p->device_total)));
	json_object_set_new(o, "host_mib", json_real(r2(p->host_total)));
	json_object_set_new(o, "addressable_mib", json_real(r2(p->addressable)));
	json_object_set_new(o, "free_mib", json_real(round((double)p->free_bytes / (1024.0 * 1024.0) * 100) / 100));
	json_object_set_new(o, "slack_mib", json_real(r2(p->slack)));
	return o;
}

static void row(const char *term, const char *buft, uint64_t bytes, int card, int cuda, const char *detail)
{
	printf("%-14s %-11s %11.2f  %-4s %s\n", term, buft, plan_mib(bytes), cuda ? (card ? "card" : "host") : "",
	       detail);
}

static void kv_row(const char *term, const char *buft, const struct plan_kv *kv, int cuda)
{
	char d[256];
	snprintf(d, sizeof(d), "%u cells, %u layers, %u/%u seqs; K (%s) %.2f + V (%s) %.2f", kv->cells, kv->layers,
		 kv->seqs, kv->streams, kv->k_type, plan_mib(kv->k_bytes), kv->v_type, plan_mib(kv->v_bytes));
	row(term, buft, kv->k_bytes + kv->v_bytes, 1, cuda, d);
}

static void print_human(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p,
			const char *cal_text)
{
	const struct model *m = c->census->model;
	int cuda = p->device->backend == DEVICE_CUDA;
	const char *dbuf = cuda ? "CUDA0" : "CPU";
	char a[32];
	printf("plan %s: %s (%s, %u blocks) on %s\n", ep->name, c->model_path, m->arch, m->n_layer_all,
	       p->device->name);
	printf("context: n_ctx %u = %u slot%s x n_ctx_seq %u%s%s\n\n", p->n_ctx, p->n_seq, p->n_seq == 1 ? "" : "s",
	       p->n_ctx_seq, c->shape.kv_unified ? " (unified)" : "",
	       p->ctx_rounded ? " (the engine rounds CTX_SIZE to a whole number of padded slots)" : "");
	printf("%-14s %-11s %11s  %-4s %s\n", "term", "buffer", "MiB", cuda ? "on" : "", "detail");
	for (unsigned i = 0; i < p->n_model; i++)
		row("model", p->model[i].buft, p->model[i].bytes, p->model[i].on_device, cuda, "weights");
	if (p->kv.present)
		kv_row("kv", dbuf, &p->kv, cuda);
	if (p->kv_swa.present)
		kv_row("kv_swa", dbuf, &p->kv_swa, cuda);
	if (p->rs.present) {
		char d[256];
		snprintf(d, sizeof(d),
			 "%u cells, %u layers (%u recurrent), %u seqs %u rs_seq; R (f32) %.2f + S (f32) %.2f",
			 p->rs.cells, p->rs.layers, p->rs.recurrent_layers, p->rs.seqs, p->rs.rs_seq,
			 plan_mib(p->rs.r_bytes), plan_mib(p->rs.s_bytes));
		row("recurrent", dbuf, p->rs.r_bytes + p->rs.s_bytes, 1, cuda, d);
	}
	if (p->draft_kv.present)
		kv_row("draft_kv", dbuf, &p->draft_kv, cuda);
	row("output", cuda ? "CUDA_Host" : "CPU", p->output_bytes + p->draft_output_bytes, 0, cuda,
	    p->has_draft ? "logits, target + draft" : "logits");
	for (unsigned i = 0; i < p->n_compute; i++)
		row("compute", p->compute[i].buft, p->compute[i].bytes, p->compute[i].on_device, cuda,
		    p->compute[i].calibrated ? "calibrated" : "modelled");
	for (unsigned i = 0; i < p->n_draft_compute; i++)
		row("draft_compute", p->draft_compute[i].buft, p->draft_compute[i].bytes, p->draft_compute[i].on_device,
		    cuda, p->draft_compute[i].calibrated ? "calibrated" : "modelled");
	if (p->projector_weights)
		row("projector", dbuf, p->projector_weights + p->projector_compute, 1, cuda,
		    p->projector_calibrated ? "weights + encoder compute calibrated (billed before launch, law M06)"
					    : "weights + worst-case encoder compute (billed before launch, law M06)");
	if (p->lora_bytes)
		row("lora", dbuf, p->lora_bytes, 1, cuda, "adapter tensors");
	if (p->overhead_bytes)
		row("overhead", dbuf, p->overhead_bytes, 1, cuda,
		    p->overhead_calibrated ? "runtime context (settled memory minus ledger)"
					   : "runtime context (device profile)");
	if (cal_text && *cal_text)
		printf("\n%s%s", cal_text, cal_text[strlen(cal_text) - 1] == '\n' ? "" : "\n");
	printf("\n%-26s %11.2f  %s\n", cuda ? "total on the card" : "total", plan_mib(p->device_total),
	       cuda ? "" : "(host memory)");
	if (cuda)
		printf("%-26s %11.2f\n", "host (not gated)", plan_mib(p->host_total));
	printf("%-26s %11.2f  %s\n", "addressable", plan_mib(p->addressable),
	       c->extras.addressable_mib ? "(ADDRESSABLE_MIB)"
	       : cuda			 ? "(profile)"
					 : "(host MemAvailable)");
	printf("%-26s %11.2f\n", "free", (double)p->free_bytes / (1024.0 * 1024.0));
	if (cuda) {
		int64_t now = device_nvidia_free_mib();
		if (now >= 0)
			printf("%-26s %11lld  (nvidia-smi free right now; the plan budgets the idle card)\n",
			       "card free now", (long long)now);
	}
	printf("%-26s %11.2f  (SLACK_MIB)\n", "slack", plan_mib(p->slack));
	if (p->fits)
		printf("\nverdict: fits, %s MiB above the slack band\n",
		       cmd_commas((uint64_t)((p->free_bytes - (int64_t)p->slack) >> 20), a, sizeof(a)));
	else
		printf("\nverdict: refused: %.2f MiB free is below the %.2f MiB slack band (law M09)\n",
		       (double)p->free_bytes / (1024.0 * 1024.0), plan_mib(p->slack));
	(void)bufs_sum;
}

int cmd_plan(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"set", required_argument, NULL, 's'}, {"device", required_argument, NULL, 'd'},
	    {"json", no_argument, NULL, 'j'},	   {"no-calibration", no_argument, NULL, 'n'},
	    {"help", no_argument, NULL, 'h'},	   {NULL, 0, NULL, 0},
	};
	int no_calibration = 0;
	char **sets = xcalloc((size_t)argc, sizeof(*sets));
	size_t n_sets = 0;
	const char *device = NULL;
	int json = 0, ch, rc = EXIT_OK;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 's': sets[n_sets++] = optarg; break;
		case 'd': device = optarg; break;
		case 'j': json = 1; break;
		case 'n': no_calibration = 1; break;
		case 'h':
			usage(stdout);
			free(sets);
			return EXIT_OK;
		default:
			usage(stderr);
			free(sets);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		free(sets);
		return EXIT_USAGE;
	}
	char *err = NULL;
	struct shape_ctx c = {0};
	struct endpoint *ep = endpoint_load(argv[optind], &err);
	if (!ep) {
		rc = err && strncmp(err, "cannot", 6) == 0 ? EXIT_IO : EXIT_USAGE;
		goto done;
	}
	for (size_t i = 0; i < n_sets; i++) {
		if (endpoint_set(ep, sets[i], &err)) {
			rc = EXIT_USAGE;
			goto done;
		}
	}
	int io = 0;
	if (shape_load(ep, device, &c, &io, &err)) {
		rc = io ? EXIT_IO : EXIT_USAGE;
		goto done;
	}
	struct plan p;
	if (plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	json_t *cal = NULL;
	char *cal_text = NULL;
	if (!no_calibration && calib_apply(ep, &c, &p, &cal, &cal_text, &err) < 0) {
		cmd_fail(0, "plan: warning: not calibrated: %s", err);
		free(err);
		err = NULL;
	}
	if (json) {
		json_t *o = to_json(ep, &c, &p);
		json_object_set_new(o, "calibration", cal ? cal : json_null());
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
		puts(s);
		free(s);
		json_decref(o);
	} else {
		print_human(ep, &c, &p, cal_text);
		json_decref(cal);
	}
	free(cal_text);
	rc = p.fits ? EXIT_OK : EXIT_NO;
done:
	if (err)
		cmd_fail(rc, "plan: %s", err);
	free(err);
	shape_release(&c);
	endpoint_free(ep);
	free(sets);
	return rc;
}

json_t *plan_to_json(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p)
{
	return to_json(ep, c, p);
}
