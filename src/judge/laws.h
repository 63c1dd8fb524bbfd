/* laws: every law of LAWS.md that can be decided from the endpoint file, the
 * payload headers and the plan, as findings a person can act on: the law's
 * id, a severity, the key and line it concerns, one sentence of reason and
 * one of fix.
 */
#ifndef ZEALOT_LAWS_H
#define ZEALOT_LAWS_H

#include <stddef.h>

#include "../endpoint/endpoint.h"
#include "../plan/plan.h"
#include "../plan/shape.h"

enum severity {
	SEV_ERROR,   /* refuses: check fails, serve does not exec */
	SEV_WARNING, /* said, not refused */
	SEV_INFO,    /* a fact clients need (A08's effort map) */
};

struct finding {
	const char *law;
	enum severity sev;
	const char *key; /* NULL when the finding is about the whole shape */
	int line;	 /* 0 unset, -1 from --set */
	char *reason;
	char *fix;
};

struct findings {
	struct finding *v;
	size_t n;
};

/* Which gates to evaluate: serve runs them in order, check runs all. */
enum {
	LAWS_STATIC = 1,   /* the file's own values and the runtime */
	LAWS_FILES = 2,	   /* payload files exist and read (C03) */
	LAWS_PAYLOAD = 4,  /* what the headers say against the shape */
	LAWS_FIT = 8,	   /* the plan's verdict (M09, S09) */
	LAWS_RUNTIME = 16, /* what the runtime's --help lists (R02; runs it, sandboxed) */
	LAWS_ALL = 31,
};

/* Evaluate the laws in `which`. c may be NULL or partly loaded (its
 * payload NULL when the file could not be read); p may be NULL (no plan).
 * Findings are appended; the count of errors is returned. */
size_t laws_check(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p, unsigned which,
		  struct findings *out);
/* Evidence beyond the endpoint and its files, for laws that need a fact
 * about the runtime no file of the endpoint holds. */
struct laws_evidence {
	const char *boot_log; /* a boot log of the runtime (S16: its system_info line), or NULL */
};

/* laws_check with evidence (ev may be NULL). */
size_t laws_check_with(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p, unsigned which,
		       const struct laws_evidence *ev, struct findings *out);
void findings_release(struct findings *f);
/* Append a finding (key: K__COUNT for none; ep may be NULL then). */
void findings_add(struct findings *out, const char *law, enum severity sev, const struct endpoint *ep, enum key_id key,
		  const char *fix, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
size_t findings_errors(const struct findings *f);
const char *severity_name(enum severity s);

/* The refusal status of `zealot serve`: the emitted unit lists it in
 * RestartPreventExitStatus= so a refusal never becomes a crash loop (C03). */
#define SERVE_REFUSED 78

#endif
