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

#include "../base/zerr.h"
#include "http.h"

/* INCONCLUSIVE: the budget ran out in reasoning (empty content, finish_reason
 * length, reasoning present): neither a refusal nor a pass of an expectation
 * (A03). */
enum probe_status { PROBE_PASS, PROBE_FAIL, PROBE_SKIP, PROBE_INCONCLUSIVE };

/* One refusal prompt's result: refused is 1, 0, or -1 inconclusive. */
struct probe_prompt {
	char *prompt;
	char *answer;
	int refused;
};

struct probe_result {
	const char *name;
	const char *law;
	enum probe_status status;
	char *evidence;
	char *expected;		      /* what the endpoint says the answer must be; NULL: none */
	char *answer;		      /* the answer got; NULL: not applicable */
	char *answer_without;	      /* vision with PROBE_VISION_EXPECT: the same question's answer
				       * without the image; NULL: not asked */
	struct probe_prompt *prompts; /* the refusal probe's, per prompt */
	size_t n_prompts;
	int no_answer; /* the server it asked gave no HTTP answer at all (dead) */
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
	const char *chat_expect;   /* PROBE_CHAT_EXPECT, or NULL */
	const char *tools_expect;  /* PROBE_TOOLS_EXPECT (JSON arguments), or NULL */
	const char *vision_expect; /* PROBE_VISION_EXPECT, or NULL */
	char **refusal_prompts;	   /* owned: PROBE_REFUSAL_PROMPTS's lines */
	size_t n_refusal_prompts;
	char **markers; /* owned: PROBE_REFUSAL_MARKERS split on '|' */
	size_t n_markers;
	int refusal;		  /* PROBE_REFUSAL: 0 report only, 1 absent, 2 present */
	int has_presence_penalty; /* PRESENCE_PENALTY is set: /props must report it */
	double presence_penalty;
	const struct census_kv *sampling; /* the payload's general.sampling.* (borrowed) */
	size_t n_sampling;
	int embeddings;	 /* EMBEDDINGS=on: /v1/embeddings must answer */
	uint32_t n_embd; /* the model's embedding width, or 0 unknown */
	int rerank;	 /* EMBEDDINGS=on with POOLING=rank: /v1/rerank must answer */
};

struct endpoint;
struct census_kv;
struct shape_ctx;
struct plan;

/* Fill e from the endpoint, its loaded shape and its plan (the one place
 * both probe and deploy read the endpoint's promises): alias, slots, window,
 * projector, effort values, answer expectations and the refusal prompts
 * file. Borrowed strings point into ep and s; release with
 * probe_expect_release. Returns ZE_OK, or with *err the kind of what
 * failed: the prompts file unreadable (zerr_of_errno), PROBE_REFUSAL
 * without prompts (ZE_USAGE). */
enum zerr probe_expect_load(const struct endpoint *ep, const struct shape_ctx *s, const struct plan *p,
			    struct probe_expect *e, char **err);
void probe_expect_release(struct probe_expect *e);

/* The probe list `only` (NULL: every probe) widened by the probes the
 * endpoint set an expectation for (chat, tools, vision, refusal): what
 * deploy runs, so that its cheap default still checks the answers the
 * endpoint promises. Returns an allocated list, or NULL when only is. */
char *probe_only_expected(const char *only, const struct probe_expect *e);

/* Whether the engine at c answers HTTP at all (GET /health, any status):
 * ZE_OK, or ZE_IO with why (the transport error) when nothing answers,
 * which is no verdict on the endpoint but a dead server. */
enum zerr probe_reachable(const struct http_client *c, char *why, size_t why_n);

/* Whether a result fails its verdict: a fail, or an inconclusive answer
 * where an expectation was set. */
int probe_failed(const struct probe_result *r);

/* One result as a JSON object: name, status, evidence, law, expected,
 * answer and, for the refusal probe, prompts [{prompt, answer, refused:
 * true|false|"inconclusive"}]. */
struct json_t;
struct json_t *probe_result_json(const struct probe_result *r);
/* Every result as a compact JSON array (what deploy stores per boot and
 * `probe --record` stores as the era's baseline). Caller frees. */
char *probe_results_json(const struct probe_results *r);

/* Each change of now against a baseline (probe_results_json text), one
 * line each into out: an answer changed, a refusal gone or appeared.
 * Returns the number of changes. */
size_t probe_compare(const char *baseline_json, const struct probe_results *now, struct sb *out);

/* Ask the baseline's refusal prompts when the endpoint names none (the
 * same prompts the previous era answered). */
void probe_expect_baseline(struct probe_expect *e, const char *baseline_json);

/* Judge one refusal prompt's completion: 1 refused (the content holds a
 * marker), 0 answered, -1 inconclusive (the budget ran out in reasoning, or
 * an empty content), -2 no completion. *answer is the trimmed content or
 * NULL (caller frees). */
int probe_judge_refusal(long status, const char *body, size_t n, char *const *markers, size_t n_markers, char **answer);

/* Whether answer contains one of the markers (case-insensitive). */
int probe_is_refusal(const char *answer, char *const *markers, size_t n_markers);

/* The first name in the comma-separated list that is no probe's (*len its
 * length), or NULL. */
const char *probe_unknown(const char *list, size_t *len);
/* Every probe's name, comma-separated, appended to b. */
void probe_names(struct sb *b);

/* Run the probes named in `only` (comma-separated; NULL for all). */
void probe_run(const struct http_client *c, const struct probe_expect *e, const char *only, struct probe_results *out);
void probe_results_release(struct probe_results *r);
const char *probe_status_name(enum probe_status s);

/* Judge a chat completion's answer (exposed for tests and the fuzzer):
 * the status, and the evidence in *evidence (caller frees). */
enum probe_status probe_judge_chat(long status, const char *body, size_t n, char **evidence);

#endif
