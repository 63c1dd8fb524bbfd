/* calibrate: the modelled terms held against a recorded boot (see
 * calibrate.h). */
#include "calibrate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

static uint64_t to_bytes(double mib)
{
	return mib > 0 ? (uint64_t)llround(mib * MIB) : 0;
}

/* The model says at this shape what it said at the boot's: the same figure
 * to the hundredth, as both were printed. */
static int same_figure(double a, double b)
{
	char x[64], y[64];
	snprintf(x, sizeof(x), "%.2f", a);
	snprintf(y, sizeof(y), "%.2f", b);
	return strcmp(x, y) == 0;
}

static struct calib_term *note(struct calib_report *r, const char *term, const char *buft)
{
	if (r->n == CALIB_MAX_TERMS)
		return NULL;
	struct calib_term *t = &r->terms[r->n++];
	memset(t, 0, sizeof(*t));
	snprintf(t->term, sizeof(t->term), "%s", term);
	snprintf(t->buft, sizeof(t->buft), "%s", buft ? buft : "");
	return t;
}

static struct plan_buf *find(struct plan_buf *b, unsigned n, const char *buft)
{
	for (unsigned i = 0; i < n; i++)
		if (strcmp(b[i].buft, buft) == 0)
			return &b[i];
	return NULL;
}

/* One context's compute buffers (target or draft). */
static void calibrate_bufs(const char *term, struct plan_buf *pb, unsigned *pn, const struct calib_buf *cb, unsigned cn,
			   struct calib_report *r)
{
	/* the card's ratio of change, for buffers the model does not have:
	 * the first buffer both the model and the boot have, the card's first */
	double ratio = 0;
	const char *ratio_of = NULL;
	for (int want_card = 1; want_card >= 0 && !ratio_of; want_card--)
		for (unsigned i = 0; i < cn && !ratio_of; i++) {
			const struct plan_buf *b = find(pb, *pn, cb[i].buft);
			if (!b || cb[i].modelled_mib <= 0 || (want_card && !cb[i].on_device))
				continue;
			double now = plan_mib(b->bytes);
			ratio = same_figure(now, cb[i].modelled_mib) ? 1.0 : now / cb[i].modelled_mib;
			ratio_of = cb[i].buft;
		}
	for (unsigned i = 0; i < cn; i++) {
		struct plan_buf *b = find(pb, *pn, cb[i].buft);
		struct calib_term *t = note(r, term, cb[i].buft);
		if (!t)
			return;
		t->measured_mib = cb[i].measured_mib;
		t->boot_model_mib = cb[i].modelled_mib;
		if (b && cb[i].modelled_mib > 0) {
			double now = plan_mib(b->bytes);
			t->modelled_mib = now;
			if (same_figure(now, cb[i].modelled_mib)) {
				b->bytes = to_bytes(cb[i].measured_mib);
				t->how = "measured";
			} else {
				b->bytes = to_bytes(now * cb[i].measured_mib / cb[i].modelled_mib);
				t->how = "scaled";
			}
			b->calibrated = 1;
			t->calibrated_mib = plan_mib(b->bytes);
			continue;
		}
		/* the model has no such buffer: carried as measured */
		t->modelled_mib = b ? plan_mib(b->bytes) : 0;
		t->boot_model_mib = -1;
		if (!b) {
			if (*pn == PLAN_MAX_BUFS) {
				r->n--;
				continue;
			}
			b = &pb[(*pn)++];
			memset(b, 0, sizeof(*b));
			snprintf(b->buft, sizeof(b->buft), "%s", cb[i].buft);
			b->on_device = cb[i].on_device;
		}
		double k = ratio_of ? ratio : 1.0;
		b->bytes = to_bytes(k == 1.0 ? cb[i].measured_mib : cb[i].measured_mib * k);
		b->calibrated = 1;
		t->how = ratio_of ? "measured-only, scaled with the card" : "measured-only";
		t->calibrated_mib = plan_mib(b->bytes);
	}
}

void plan_calibrate(struct plan *p, const struct plan_calibration *c, struct calib_report *r)
{
	memset(r, 0, sizeof(*r));
	calibrate_bufs("compute", p->compute, &p->n_compute, c->compute, c->n_compute, r);
	if (p->has_draft)
		calibrate_bufs("draft_compute", p->draft_compute, &p->n_draft_compute, c->draft_compute,
			       c->n_draft_compute, r);
	if (c->has_projector && p->projector_compute && c->projector_modelled_mib > 0) {
		struct calib_term *t = note(r, "projector", "compute");
		double now = plan_mib(p->projector_compute);
		if (same_figure(now, c->projector_modelled_mib))
			p->projector_compute = to_bytes(c->projector_measured_mib);
		else
			p->projector_compute = to_bytes(now * c->projector_measured_mib / c->projector_modelled_mib);
		p->projector_calibrated = 1;
		if (t) {
			t->modelled_mib = now;
			t->boot_model_mib = c->projector_modelled_mib;
			t->measured_mib = c->projector_measured_mib;
			t->calibrated_mib = plan_mib(p->projector_compute);
			t->how = same_figure(now, c->projector_modelled_mib) ? "measured" : "scaled";
		}
	}
	if (c->has_overhead && p->device->backend == DEVICE_CUDA) {
		struct calib_term *t = note(r, "overhead", "");
		double now = plan_mib(p->overhead_bytes);
		p->overhead_bytes = to_bytes(c->overhead_mib);
		p->overhead_calibrated = 1;
		if (t) {
			t->modelled_mib = now;
			t->boot_model_mib = now;
			t->measured_mib = c->overhead_mib;
			t->calibrated_mib = plan_mib(p->overhead_bytes);
			t->how = "settled";
		}
	}
	plan_bill(p);
}
