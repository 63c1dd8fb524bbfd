#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/ledger.h"
#include "plan/calibrate.h"
#include "plan/device.h"
#include "plan/plan.h"
#include "tap.h"

#define MIB 1048576.0

static int near(double a, double b)
{
	return a - b < 0.0051 && b - a < 0.0051;
}

/* A plan as plan_make would leave it on a CUDA card: one modelled compute
 * buffer per context, a projector, the profile's overhead. */
static void cuda_plan(struct plan *p, double compute_mib, double draft_mib)
{
	memset(p, 0, sizeof(*p));
	p->device = device_find("rtx3090");
	p->has_draft = 1;
	p->n_compute = 1;
	snprintf(p->compute[0].buft, sizeof(p->compute[0].buft), "CUDA0");
	p->compute[0].on_device = 1;
	p->compute[0].bytes = (uint64_t)(compute_mib * MIB + 0.5);
	p->n_draft_compute = 1;
	p->draft_compute[0] = p->compute[0];
	p->draft_compute[0].bytes = (uint64_t)(draft_mib * MIB + 0.5);
	p->kv.k_bytes = (uint64_t)(14406 * MIB);
	p->projector_weights = (uint64_t)(595.29 * MIB);
	p->projector_compute = (uint64_t)(248.06 * MIB + 0.5);
	p->overhead_bytes = 387ull << 20;
	p->addressable = 24123ull << 20;
	p->slack = 1024ull << 20;
	plan_bill(p);
}

/* The seeds' 2026-10-19 boot: what it measured, what the model said there. */
static void seeds_boot(struct plan_calibration *c)
{
	memset(c, 0, sizeof(*c));
	c->n_compute = 2;
	c->compute[0] = (struct calib_buf){"CUDA0", 1665.00, 601.22, 1};
	c->compute[1] = (struct calib_buf){"CUDA_Host", 424.88, -1, 0};
	c->n_draft_compute = 2;
	c->draft_compute[0] = (struct calib_buf){"CUDA0", 480.97, 480.97, 1};
	c->draft_compute[1] = (struct calib_buf){"CUDA_Host", 424.86, -1, 0};
	c->has_projector = 1;
	c->projector_measured_mib = 248.10;
	c->projector_modelled_mib = 248.06;
	c->has_overhead = 1;
	c->overhead_mib = 384.09;
}

void test_calibrate(void)
{
	struct plan p;
	struct plan_calibration c;
	struct calib_report r;
	cuda_plan(&p, 601.22, 480.97);
	uint64_t before = p.device_total;
	seeds_boot(&c);
	plan_calibrate(&p, &c, &r);
	ok(p.n_compute == 2 && near(plan_mib(p.compute[0].bytes), 1665.00) &&
	       near(plan_mib(p.compute[1].bytes), 424.88),
	   "the recorded shape reproduces the ledger: compute 1665.00 + 424.88");
	ok(p.compute[1].on_device == 0 && strcmp(p.compute[1].buft, "CUDA_Host") == 0 && p.compute[0].calibrated &&
	       p.compute[1].calibrated,
	   "a buffer the model lacks is added as host memory, flagged calibrated");
	ok(p.n_draft_compute == 2 && near(plan_mib(p.draft_compute[0].bytes), 480.97) &&
	       near(plan_mib(p.draft_compute[1].bytes), 424.86),
	   "draft compute 480.97 + 424.86");
	ok(near(plan_mib(p.projector_compute), 248.10) && p.projector_calibrated, "projector compute measured");
	ok(near(plan_mib(p.overhead_bytes), 384.09) && p.overhead_calibrated, "overhead from settled memory");
	double card_delta = (1665.00 - 601.22) + (248.10 - 248.06) + (384.09 - 387);
	ok(near(plan_mib(p.device_total) - plan_mib(before), card_delta), "the card total is re-billed (%+.2f MiB)",
	   plan_mib(p.device_total) - plan_mib(before));
	ok(near(plan_mib(p.host_total), 424.88 + 424.86), "the host buffers bill the host, not the card");
	ok(r.n == 6 && strcmp(r.terms[0].how, "measured") == 0 &&
	       strcmp(r.terms[1].how, "measured-only, scaled with the card") == 0 && r.terms[1].boot_model_mib < 0,
	   "the report names each term and how");

	/* another shape: twice the modelled compute (a ubatch step) */
	cuda_plan(&p, 1202.44, 961.94);
	plan_calibrate(&p, &c, &r);
	ok(near(plan_mib(p.compute[0].bytes), 3330.00), "another shape: CUDA0 scaled by 1665.00/601.22 (%.2f)",
	   plan_mib(p.compute[0].bytes));
	ok(near(plan_mib(p.compute[1].bytes), 849.76), "CUDA_Host scaled with the card's change, x2 (%.2f)",
	   plan_mib(p.compute[1].bytes));
	ok(near(plan_mib(p.draft_compute[0].bytes), 961.94) && near(plan_mib(p.draft_compute[1].bytes), 849.72),
	   "draft: ratio 1 on the card, host x2");
	ok(strcmp(r.terms[0].how, "scaled") == 0, "labelled scaled");

	/* no drafter now: the boot's draft figures do not apply */
	cuda_plan(&p, 601.22, 0);
	p.has_draft = 0;
	p.n_draft_compute = 0;
	plan_bill(&p);
	plan_calibrate(&p, &c, &r);
	ok(p.n_draft_compute == 0 && p.n_compute == 2, "no drafter: no draft buffers appear");

	/* a boot that did not record settled memory leaves the profile's overhead */
	cuda_plan(&p, 601.22, 480.97);
	c.has_overhead = 0;
	plan_calibrate(&p, &c, &r);
	ok(p.overhead_bytes == 387ull << 20 && !p.overhead_calibrated, "no settled memory: the profile's overhead");

	/* on the CPU backend a settled figure (nvidia-smi) means nothing */
	cuda_plan(&p, 601.22, 480.97);
	p.device = device_find("cpu");
	c.has_overhead = 1;
	plan_calibrate(&p, &c, &r);
	ok(p.overhead_bytes == 387ull << 20, "cpu: overhead not calibrated from a card's settled memory");

	/* the build line of a boot log */
	struct ledger *l = calloc(1, sizeof(*l));
	const char *log = "0.00.000.415 I cmn  common_param: common_params_print_info: build 10777 (e3de71522) with "
			  "GNU 12.2.0 for x86_64-linux-gnu\n"
			  "0.00.010 I llama_context: n_ctx                 = 4096\n";
	ledger_parse(log, strlen(log), l);
	ok(strcmp(l->build, "b10777-e3de71522") == 0, "ledger: the build line gives the engine's build id (%s)",
	   l->build);
	const char *bad = "I cmn  common_param: common_params_print_info: build x (y) with\n";
	ledger_parse(bad, strlen(bad), l);
	ok(l->build[0] == '\0', "ledger: a malformed build line gives none");
	free(l);
}
