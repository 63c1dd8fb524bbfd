/* probe: named checks against a live engine, each with pass/fail/skip, the
 * evidence, and the law it serves. Health cannot see the payload (A01); the
 * probes check the contract the endpoint promises: its alias, slots and
 * per-slot window, /metrics, a chat that survives thinking (A03), tools,
 * vision through image_url (A04), the 400 past the window (M03), the slot
 * count as the concurrency contract (A07), the template's effort values
 * (A08). Answers that depend on a model's intelligence are evidence.
 */
#ifndef ZEALOT_PROBE_H
#define ZEALOT_PROBE_H

#include <stddef.h>
#include <stdint.h>

#include "http.h"

enum probe_status { PROBE_PASS, PROBE_FAIL, PROBE_SKIP };

struct probe_result {
	const char *name;
	const char *law;
	enum probe_status status;
	char *evidence;
};

struct probe_results {
	struct probe_result *v;
	size_t n;
};

/* What the endpoint promises; zero/NULL fields are read from the engine
 * and reported rather than compared. */
struct probe_expect {
	const char *alias;
	uint32_t slots;
	uint32_t n_ctx_seq;
	int projector;		    /* -1 unknown, 0 none, 1 present */
	const char *const *efforts; /* accepted reasoning_effort values, or NULL */
	size_t n_efforts;
	int effort_raises;
};

extern const char *const probe_names[];
extern const size_t probe_n_names;

/* Run the probes named in `only` (comma-separated; NULL for all). */
void probe_run(const struct http_client *c, const struct probe_expect *e, const char *only, struct probe_results *out);
void probe_results_release(struct probe_results *r);
const char *probe_status_name(enum probe_status s);

/* Judge a chat completion's answer (exposed for tests and the fuzzer):
 * the status, and the evidence in *evidence (caller frees). */
enum probe_status probe_judge_chat(long status, const char *body, size_t n, char **evidence);

#endif
