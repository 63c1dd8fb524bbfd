/* calib: store -> calibration input -> plan_calibrate (see calib.h). */
#include "calib.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/util.h"
#include "../judge/runtime.h"
#include "../plan/calibrate.h"
#include "../plan/report.h"

void calib_date(int64_t t, char *buf, size_t n)
{
	time_t tt = (time_t)t;
	struct tm tm;
	if (!localtime_r(&tt, &tm) || !strftime(buf, n, "%Y-%m-%d %H:%M", &tm))
		snprintf(buf, n, "%lld", (long long)t);
}

/* A bare runtime name through PATH, as execvp would find it; the name
 * itself when nothing on PATH is. */
static char *which(const char *name)
{
	char *p = path_which(name);
	return p ? p : xstrdup(name);
}

/* What the runtime at path says to --version, asked through runtime_ask
 * (judge/runtime.h: sandboxed, cached by its SHA-256, and never run when
 * the endpoint's RUNTIME_SHA256 does not pin it): one rule, one place.
 * NULL when it cannot be hashed, is not run, or names no build. */
static char *runtime_version(const struct endpoint *ep, const char *path)
{
	struct stat sb;
	char hex[65];
	if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode) || access(path, X_OK) != 0 ||
	    runtime_sha256(path, hex, NULL, NULL))
		return NULL;
	char *v = runtime_ask(ep, path, hex, "version", NULL, NULL);
	if (v && !strstr(v, "(build ") && !strstr(v, " build ")) {
		free(v);
		v = NULL;
	}
	return v;
}

int calib_identity_of(const struct endpoint *ep, const struct shape_ctx *c, int run_runtime, struct calib_identity *id,
		      char **err)
{
	memset(id, 0, sizeof(*id));
	char *rt = endpoint_path(ep, "RUNTIME");
	id->runtime = which(rt ? rt : "llama-server");
	free(rt);
	if (run_runtime)
		id->runtime_version = runtime_version(ep, id->runtime);
	id->device = c->dev->name;
	const char *sha = endpoint_value(ep, "MODEL_SHA256");
	id->payload_sha256 = xstrdup(sha ? sha : "");
	uint64_t bytes;
	if (endpoint_value(ep, "MODEL_BYTES") && *endpoint_value(ep, "MODEL_BYTES") &&
	    endpoint_uint(ep, "MODEL_BYTES", &bytes, NULL) == 0) {
		id->payload_bytes = bytes;
	} else {
		struct stat sb;
		if (stat(c->model_path, &sb) != 0) {
			calib_identity_release(id);
			return errorf(err, "cannot stat '%s': %s", c->model_path, strerror(errno));
		}
		id->payload_bytes = (uint64_t)sb.st_size;
	}
	return 0;
}

void calib_identity_release(struct calib_identity *id)
{
	free(id->runtime);
	free(id->runtime_version);
	free(id->payload_sha256);
	memset(id, 0, sizeof(*id));
}

/* --- a boot's figures ----------------------------------------------------- */

static double jnum(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : 0;
}

/* A buffer bills the card unless it is a host buffer (CPU*, *_Host). */
static int card_buffer(const char *buft)
{
	return strncmp(buft, "CPU", 3) != 0 && !strstr(buft, "_Host");
}

static double bufs_on_card(json_t *a)
{
	double s = 0;
	size_t i;
	json_t *b;
	json_array_foreach(a, i, b)
	{
		const char *d = json_string_value(json_object_get(b, "device"));
		if (d && card_buffer(d))
			s += jnum(b, "mib");
	}
	return s;
}

static double bufs_all(json_t *a)
{
	double s = 0;
	size_t i;
	json_t *b;
	json_array_foreach(a, i, b) s += jnum(b, "mib");
	return s;
}

/* What the model said at the boot's shape for (term, buffer): the boot's
 * plan, or, when that plan was itself calibrated, the modelled figure its
 * calibration kept. -1: the model had no such buffer. */
static double boot_modelled(json_t *plan, const char *term, const char *buft)
{
	json_t *terms = json_object_get(json_object_get(plan, "calibration"), "terms");
	size_t i;
	json_t *t;
	json_array_foreach(terms, i, t)
	{
		const char *tt = json_string_value(json_object_get(t, "term"));
		const char *tb = json_string_value(json_object_get(t, "device"));
		if (tt && tb && strcmp(tt, term) == 0 && strcmp(tb, buft) == 0) {
			json_t *m = json_object_get(t, "boot_modelled_mib");
			if (json_is_null(m) || !json_is_number(json_object_get(t, "modelled_mib")))
				return -1;
			double v = jnum(t, "modelled_mib");
			return v > 0 ? v : -1;
		}
	}
	if (strcmp(term, "projector") == 0)
		return jnum(json_object_get(plan, "projector"), "compute_mib");
	json_t *a = json_object_get(plan, term);
	json_t *b;
	json_array_foreach(a, i, b)
	{
		const char *d = json_string_value(json_object_get(b, "device"));
		if (d && strcmp(d, buft) == 0)
			return jnum(b, "mib");
	}
	return -1;
}

static void fill_bufs(const char *term, json_t *measured, json_t *plan, struct calib_buf *out, unsigned *n)
{
	size_t i;
	json_t *b;
	json_array_foreach(measured, i, b)
	{
		const char *d = json_string_value(json_object_get(b, "device"));
		if (!d || *n == CALIB_MAX_BUFS)
			continue;
		struct calib_buf *c = &out[(*n)++];
		snprintf(c->buft, sizeof(c->buft), "%s", d);
		c->measured_mib = jnum(b, "mib");
		c->modelled_mib = boot_modelled(plan, term, d);
		c->on_device = card_buffer(d);
	}
}

/* The card's share of a ledger: every term the engine placed there. */
static double ledger_card_mib(json_t *l)
{
	double s = bufs_on_card(json_object_get(l, "model")) + bufs_on_card(json_object_get(l, "lora"));
	const char *ctx[] = {"target", "draft"};
	for (int i = 0; i < 2; i++) {
		json_t *c = json_object_get(l, ctx[i]);
		if (!json_is_object(c))
			continue;
		s += jnum(json_object_get(c, "kv"), "mib") + jnum(json_object_get(c, "kv_swa"), "mib") +
		     jnum(json_object_get(c, "recurrent"), "mib");
		s += bufs_on_card(json_object_get(c, "output")) + bufs_on_card(json_object_get(c, "compute"));
	}
	json_t *pr = json_object_get(l, "projector");
	if (json_is_object(pr))
		s += jnum(pr, "model_mib") + bufs_on_card(json_object_get(pr, "compute"));
	return s;
}

static int boot_to_input(const struct store_boot *b, const struct plan *p, struct plan_calibration *in, char **err)
{
	memset(in, 0, sizeof(*in));
	json_error_t je;
	json_t *l = json_loads(b->ledger_json, 0, &je);
	json_t *pl = json_loads(b->plan_json, 0, &je);
	if (!json_is_object(l) || !json_is_object(pl)) {
		json_decref(l);
		json_decref(pl);
		return errorf(err, "boot %lld: its ledger or plan is not a JSON object", (long long)b->id);
	}
	fill_bufs("compute", json_object_get(json_object_get(l, "target"), "compute"), pl, in->compute, &in->n_compute);
	fill_bufs("draft_compute", json_object_get(json_object_get(l, "draft"), "compute"), pl, in->draft_compute,
		  &in->n_draft_compute);
	json_t *pr = json_object_get(l, "projector");
	double pm = boot_modelled(pl, "projector", "compute");
	if (json_is_object(pr) && json_array_size(json_object_get(pr, "compute")) && pm > 0) {
		in->has_projector = 1;
		/* the plan bills the projector on the card: its card buffers (the
		 * host's CPU compute buffer is not card memory); on cpu, all */
		double card = bufs_on_card(json_object_get(pr, "compute"));
		in->projector_measured_mib = card > 0 ? card : bufs_all(json_object_get(pr, "compute"));
		in->projector_modelled_mib = pm;
	}
	if (b->settled_used_mib > 0 && p->device->backend == DEVICE_CUDA) {
		double o = (double)b->settled_used_mib - ledger_card_mib(l);
		if (o > 0) {
			in->has_overhead = 1;
			in->overhead_mib = o;
		}
	}
	json_decref(l);
	json_decref(pl);
	return 0;
}

static json_t *fig(double v)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.2f", v);
	return json_real(strtod(buf, NULL));
}

/* The calibration as plan --json shows it (*json) and the lines plan
 * prints (*text). */
static void report_of(const struct store_boot *b, const struct calib_identity *id, const char *matched_on,
		      const struct calib_report *r, json_t **json, char **text)
{
	char date[64];
	calib_date(b->at, date, sizeof(date));
	json_t *o = json_object();
	json_object_set_new(o, "boot", json_integer(b->id));
	json_object_set_new(o, "recorded", json_integer(b->at));
	json_object_set_new(o, "date", json_string(date));
	json_object_set_new(o, "source", json_string(b->source));
	json_object_set_new(o, "runtime_version", json_string(b->runtime_version));
	json_object_set_new(o, "runtime", json_string(b->runtime));
	json_object_set_new(o, "matched_on", json_string(matched_on));
	json_object_set_new(o, "device", json_string(b->device));
	json_object_set_new(o, "payload_sha256", json_string(b->payload_sha256));
	json_object_set_new(o, "payload_bytes", json_integer((json_int_t)b->payload_bytes));
	json_object_set_new(o, "settled_used_mib",
			    b->settled_used_mib >= 0 ? json_integer(b->settled_used_mib) : json_null());
	json_t *terms = json_array();
	struct sb t = {0};
	sb_addf(&t, "calibrated from boot %lld of %s (%s)\n", (long long)b->id, date, b->source);
	char bytes[32];
	if (strcmp(matched_on, "version") == 0)
		sb_addf(&t, "  matched: runtime build %s, device %s, payload ", b->runtime_version, b->device);
	else if (id->runtime_version)
		sb_addf(&t, "  matched: runtime %s by its path (the boot's log had no build line), device %s, payload ",
			b->runtime, b->device);
	else
		sb_addf(
		    &t,
		    "  matched: runtime %s by its path (it does not run here; the log says %s), device %s, payload ",
		    b->runtime, b->runtime_version[0] ? b->runtime_version : "no build", b->device);
	if (b->payload_sha256[0] && id->payload_sha256[0])
		sb_addf(&t, "sha256 %.16s...\n", b->payload_sha256);
	else
		sb_addf(&t, "of %s bytes\n", fmt_commas(b->payload_bytes, bytes, sizeof(bytes)));
	sb_addf(&t, "  %-14s %-11s %10s %10s %10s %10s  %s\n", "term", "buffer", "model now", "model boot", "measured",
		"plan", "how");
	for (unsigned i = 0; i < r->n; i++) {
		const struct calib_term *x = &r->terms[i];
		json_t *row = json_object();
		json_object_set_new(row, "term", json_string(x->term));
		json_object_set_new(row, "device", json_string(x->buft));
		json_object_set_new(row, "modelled_mib", x->boot_model_mib < 0 ? json_null() : fig(x->modelled_mib));
		json_object_set_new(row, "boot_modelled_mib",
				    x->boot_model_mib < 0 ? json_null() : fig(x->boot_model_mib));
		json_object_set_new(row, "measured_mib", fig(x->measured_mib));
		json_object_set_new(row, "calibrated_mib", fig(x->calibrated_mib));
		json_object_set_new(row, "ratio",
				    x->boot_model_mib > 0
					? json_real(round(x->measured_mib / x->boot_model_mib * 10000) / 10000)
					: json_null());
		json_object_set_new(row, "how", json_string(x->how));
		json_array_append_new(terms, row);
		char now[32] = "-", then[32] = "-";
		if (x->boot_model_mib >= 0) {
			fmt_mib(x->modelled_mib, 0, now, sizeof(now));
			fmt_mib(x->boot_model_mib, 0, then, sizeof(then));
		}
		sb_addf(&t, "  %-14s %-11s %10s %10s %10s %10s  %s\n", x->term, x->buft[0] ? x->buft : "-", now, then,
			FMT_MIB(x->measured_mib), FMT_MIB(x->calibrated_mib), x->how);
	}
	json_object_set_new(o, "terms", terms);
	*json = o;
	*text = sb_detach(&t);
}

int calib_apply(const struct endpoint *ep, const struct shape_ctx *c, struct plan *p, json_t **json, char **text,
		char **err)
{
	*json = NULL;
	*text = NULL;
	char *dir = store_state_dir();
	struct sb dbp = {0};
	sb_addf(&dbp, "%s/zealot.db", dir);
	struct stat sb;
	int exists = stat(dbp.s, &sb) == 0;
	sb_release(&dbp);
	if (!exists) {
		free(dir);
		return 0;
	}
	struct store *st = store_open_read(dir, err);
	free(dir);
	if (!st)
		return -1;
	int rc = 0;
	struct calib_identity id;
	struct store_boot b = {0};
	if (calib_identity_of(ep, c, 0, &id, err)) {
		store_close(st);
		return -1;
	}
	/* any boot of this device and payload at all? only then is the
	 * runtime worth running for its version */
	int none = store_boot_match(st, NULL, NULL, id.device, id.payload_sha256, id.payload_bytes, &b, err);
	store_boot_release(&b);
	if (none < 0) {
		rc = -1;
		goto done;
	}
	if (none == 1) {
		*text = xstrdup("uncalibrated: no boot of this device and payload is recorded");
		goto done;
	}
	calib_identity_release(&id);
	if (calib_identity_of(ep, c, 1, &id, err)) {
		rc = -1;
		goto done;
	}
	int m = store_boot_match(st, id.runtime_version, id.runtime, id.device, id.payload_sha256, id.payload_bytes, &b,
				 err);
	if (m < 0) {
		rc = -1;
		goto done;
	}
	if (m == 1) {
		char *rid = id.runtime_version ? store_runtime_id(id.runtime_version) : NULL;
		struct sb t = {0};
		sb_addf(&t, "uncalibrated: boots of this device and payload are recorded, none of this runtime (%s)",
			rid ? rid : id.runtime);
		free(rid);
		*text = sb_detach(&t);
		goto done;
	}
	/* by its build, or by its path (the runtime does not run here, or the
	 * boot's log had no build line) */
	const char *matched_on = id.runtime_version && b.runtime_version[0] ? "version" : "path";
	struct plan_calibration in;
	if (boot_to_input(&b, p, &in, err)) {
		rc = -1;
		goto done;
	}
	struct calib_report r;
	plan_calibrate(p, &in, &r);

	report_of(&b, &id, matched_on, &r, json, text);
	rc = 1;
done:
	store_boot_release(&b);
	calib_identity_release(&id);
	store_close(st);
	return rc;
}

enum zerr calib_record_boot(const char *endpoint_path, const char *log, const char *build, int64_t settled_mib,
			    json_t *ledger_json, int64_t *id, char **runtime, char **err)
{
	enum zerr rc = ZE_IO;
	struct shape_ctx c = {0};
	struct calib_identity cid = {0};
	struct store *st = NULL;
	char *lj_s = NULL, *pj_s = NULL, *abs = NULL;
	enum zerr kind;
	struct endpoint *ep = endpoint_load(endpoint_path, &kind, err);
	if (!ep || (kind = shape_load(ep, NULL, &c, NULL, err)) != ZE_OK) {
		rc = kind;
		goto done;
	}
	struct plan p;
	if (plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, err)) {
		rc = ZE_USAGE;
		goto done;
	}
	if (store_name_ok(ep->name, err)) {
		rc = ZE_USAGE;
		goto done;
	}
	if (calib_identity_of(ep, &c, 0, &cid, err))
		goto done;
	if (!(st = store_open(NULL, err)))
		goto done;
	json_t *pj = plan_to_json(ep, &c, &p);
	pj_s = json_dumps(pj, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	json_decref(pj);
	lj_s = json_dumps(ledger_json, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	abs = strcmp(log, "-") == 0 ? NULL : realpath(log, NULL);
	struct sb src = {0};
	sb_addf(&src, "ledger %s", abs ? abs : log);
	struct store_boot b = {
	    .endpoint = ep->name,
	    .source = src.s,
	    .runtime = cid.runtime,
	    .runtime_version = (char *)build,
	    .device = (char *)cid.device,
	    .payload_sha256 = cid.payload_sha256,
	    .payload_bytes = cid.payload_bytes,
	    .ledger_json = lj_s,
	    .plan_json = pj_s,
	    .settled_used_mib = settled_mib,
	};
	if (store_boot_add(st, &b, err) == 0) {
		*id = b.id;
		*runtime = xstrdup(cid.runtime ? cid.runtime : "");
		rc = ZE_OK;
	}
	sb_release(&src);
done:
	free(lj_s);
	free(pj_s);
	free(abs);
	store_close(st);
	calib_identity_release(&cid);
	shape_release(&c);
	endpoint_free(ep);
	return rc;
}

enum zerr calib_price(const struct endpoint *ep, const char *device, const char *cpu_source, int calibrate,
		      struct shape_ctx *c, struct plan *p, json_t **cal, char **cal_text, char **warn, char **err)
{
	*cal = NULL;
	*cal_text = NULL;
	*warn = NULL;
	enum zerr kind = shape_load(ep, device, c, NULL, err);
	if (kind != ZE_OK)
		return kind;
	if (cpu_source)
		c->shape.cpu.source = cpu_source;
	if (plan_make(c->census->model, c->model->g, &c->shape, c->dev, &c->extras, p, err))
		return ZE_USAGE;
	if (calibrate && calib_apply(ep, c, p, cal, cal_text, warn) >= 0) {
		free(*warn);
		*warn = NULL;
	}
	return ZE_OK;
}
