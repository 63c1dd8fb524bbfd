/* calibrate: prices come from boots, not formulas (law M08).
 *
 * The planner's exact terms (model, KV, state, output) need nothing; its
 * modelled terms (compute and draft compute per buffer, projector compute,
 * the runtime overhead) are held against what one recorded boot of the
 * same runtime, device and payload measured. The caller (the command
 * layer, which reads the store) fills a plan_calibration with, per term,
 * what that boot measured and what the model said at the boot's own shape;
 * plan_calibrate applies it to a plan of any shape:
 *
 *   - same shape (the model says at this shape what it said at the boot's):
 *     the measured figure, so the plan reproduces the ledger;
 *   - another shape: modelled now x measured / modelled at the boot, term
 *     by term (the model carries the shape dependence, the boot the
 *     backend's constant factor);
 *   - a buffer the model does not have at all (CUDA_Host compute on a CUDA
 *     build): the measured figure, scaled by the ratio of change of the
 *     same context's card compute (modelled now / modelled at the boot);
 *   - a buffer the model has and the boot did not show: left modelled;
 *   - overhead: the settled memory the boot used minus its ledger's card
 *     terms, when the boot recorded settled memory; not scaled.
 *
 * The plan module knows nothing of the store: figures in, plan out.
 */
#ifndef ZEALOT_CALIBRATE_H
#define ZEALOT_CALIBRATE_H

#include <stdint.h>

#include "plan.h"

struct calib_buf {
	char buft[24];
	double measured_mib; /* the boot's ledger */
	double modelled_mib; /* the model at the boot's shape; < 0: the model has no such buffer */
	int on_device;	     /* bills the card on a CUDA profile */
};

#define CALIB_MAX_BUFS 6

struct plan_calibration {
	struct calib_buf compute[CALIB_MAX_BUFS];
	unsigned n_compute;
	struct calib_buf draft_compute[CALIB_MAX_BUFS];
	unsigned n_draft_compute;
	int has_projector; /* the boot ran a projector and the model priced it */
	double projector_measured_mib, projector_modelled_mib;
	int has_overhead; /* the boot recorded settled memory */
	double overhead_mib;
};

/* What plan_calibrate did to one term, for the report. */
struct calib_term {
	char term[16];	       /* compute, draft_compute, projector, overhead */
	char buft[24];	       /* the buffer, or "" */
	double modelled_mib;   /* the model at this shape (what the plan said before) */
	double boot_model_mib; /* the model at the boot's shape (-1: none) */
	double measured_mib;   /* the boot's figure */
	double calibrated_mib; /* what the plan bills now */
	const char *how;       /* "measured", "scaled", "measured-only, scaled with the card", "settled" */
};

#define CALIB_MAX_TERMS 16

struct calib_report {
	struct calib_term terms[CALIB_MAX_TERMS];
	unsigned n;
};

/* Apply c to p (a plan made by plan_make, uncalibrated) and re-bill it
 * (plan_bill). Every term it changes is listed in r and flagged in p
 * (plan_buf.calibrated, projector_calibrated, overhead_calibrated). */
void plan_calibrate(struct plan *p, const struct plan_calibration *c, struct calib_report *r);

#endif
