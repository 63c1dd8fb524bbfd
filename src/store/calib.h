/* calib: the bridge between the store and the planner's calibration (law
 * M08). plan and ledger --record use it; the plan module itself never
 * reads the store (src/plan/calibrate.h takes figures).
 */
#ifndef ZEALOT_STORE_CALIB_H
#define ZEALOT_STORE_CALIB_H

#include <jansson.h>
#include <stdint.h>

#include "../endpoint/endpoint.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "store.h"

/* What a boot of this endpoint is matched on. */
struct calib_identity {
	char *runtime;		/* RUNTIME resolved (a bare name through PATH; kept as written if not found) */
	char *runtime_version;	/* its `--version` text, or NULL when it could not be read */
	const char *device;	/* the plan's device profile */
	char *payload_sha256;	/* MODEL_SHA256 when pinned, else "" */
	uint64_t payload_bytes; /* MODEL_BYTES when pinned, else MODEL_FILE's size */
};

/* Fill id. With run_runtime, read the runtime's version (`RUNTIME
 * --version` through runtime_ask: sandboxed, cached by the binary's
 * SHA-256, never run when RUNTIME_SHA256 does not pin it; a runtime that
 * is missing, not executable, mispinned or silent leaves it NULL).
 * Returns 0 or -1 with *err (MODEL_FILE unreadable). */
int calib_identity_of(const struct endpoint *ep, const struct shape_ctx *c, int run_runtime, struct calib_identity *id,
		      char **err);
void calib_identity_release(struct calib_identity *id);

/* Calibrate p (uncalibrated, made from ep and c) from the latest recorded
 * boot with the same runtime, device and payload, when the store exists.
 * Returns 1 when calibrated (*json: the `calibration` object of plan
 * --json; *text: the lines plan prints), 0 when there is nothing to
 * calibrate from (*json NULL, *text a one-line reason or NULL when there
 * is no store at all), -1 with *err when the store cannot be read. */
int calib_apply(const struct endpoint *ep, const struct shape_ctx *c, struct plan *p, json_t **json, char **text,
		char **err);

/* Price ep as `zealot plan` does: its shape (device: NULL for the
 * endpoint's DEVICE; cpu_source: a name for where CPU_FEATURES came from,
 * NULL to keep the endpoint's), the plan, and, when calibrate is set, the
 * calibration calib_apply makes. ZE_OK, else ZE_IO (a file unread) or
 * ZE_USAGE (the endpoint or its payload refused) with *err. A store that
 * cannot be read is no failure: *warn says why and p stays the model's. */
enum zerr calib_price(const struct endpoint *ep, const char *device, const char *cpu_source, int calibrate,
		      struct shape_ctx *c, struct plan *p, json_t **cal, char **cal_text, char **warn, char **err);

/* Record a boot of the endpoint at endpoint_path: its ledger (ledger_json,
 * the engine's build line), the log it came from ("-": stdin), the settled
 * used MiB (-1: not measured), and the endpoint's plan beside it
 * (calibration's modelled figures at this shape). ZE_OK with *id and
 * *runtime (the runtime it is matched by; the caller frees it), else the
 * failure's kind with *err. */
enum zerr calib_record_boot(const char *endpoint_path, const char *log, const char *build, int64_t settled_mib,
			    json_t *ledger_json, int64_t *id, char **runtime, char **err);

/* "2026-10-19 03:21" in local time. */
void calib_date(int64_t t, char *buf, size_t n);

#endif
