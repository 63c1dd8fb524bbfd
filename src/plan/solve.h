/* solve: the best shape a payload can have on a card, and the Pareto
 * frontier of the shapes that fit, searched exactly: every candidate is a
 * full plan (plan_make), made against the payload parsed once, with the
 * model term and the compute replays reused through a memo (memo.h).
 *
 * The per-slot window moves in the engine's 256-cell steps. For a shape,
 * solve_window finds the largest window that fits: the total is affine in
 * the window wherever the allocator decides the same (memo_interval), so
 * the search walks those pieces from the top (the trained context, law
 * S02) down and solves each piece's line, then proves the answer with two
 * plans: the window fits, one step up is refused.
 *
 * The space is the endpoint's shape with axes: PARALLEL, CACHE_TYPE_K,
 * CACHE_TYPE_V, SPEC_TYPE, UBATCH_SIZE by default, and N_CPU_MOE on a
 * payload with experts placed on a card (see solve.c for the values), each replaceable by --vary KEY=a,b and pinned by
 * --fix KEY=V. The frontier is every combination's largest window, less the dominated ones. The best maximises the
 * objective among the shapes that give up nothing else the endpoint has (each axis no worse than the endpoint's value
 * unless --vary opens it).
 */
#ifndef ZEALOT_SOLVE_H
#define ZEALOT_SOLVE_H

#include <stddef.h>
#include <stdint.h>

#include "../endpoint/endpoint.h"
#include "cand.h"
#include "memo.h"
#include "rate.h"
#include "shape.h"

#define SOLVE_STEP 256

/* The search context: one loaded endpoint, one memo. */
struct solve_ctx {
	const struct endpoint *ep;
	const struct shape_ctx *base;
	const struct model *m;
	struct memo *memo;
	uint64_t addressable_mib; /* read once for cpu */
	uint64_t plans;		  /* candidate plans made */
	uint64_t fallbacks;	  /* window searches that fell back to a scan */
};

void solve_init(struct solve_ctx *sc, const struct endpoint *ep, const struct shape_ctx *base);
void solve_release(struct solve_ctx *sc);

/* A candidate: c's lines on the endpoint, applied, judged by the laws
 * (law: the id, or NULL) and planned. Returns 0 or -1 with *err. */
int solve_candidate(struct solve_ctx *sc, const struct cand *c, struct plan_shape *s, struct plan_extras *x,
		    struct cand_limits *l, const char **law, char *why, size_t n, struct plan *p, char **err);

/* Plan shape s (with extras x; the memo and addressable are set here). */
int solve_plan(struct solve_ctx *sc, const struct plan_shape *s, const struct plan_extras *x, struct plan *p,
	       char **err);

struct solve_window {
	uint64_t window;  /* the largest per-slot window that fits; 0: none at or above the floor */
	int capped;	  /* window is the law's cap (S02), not memory's */
	struct plan fit;  /* its plan */
	struct plan next; /* the plan one step up (when not capped) */
};

/* The largest window for shape s (s->ctx_size is ignored) at or above
 * floor and at most l->window_cap. */
int solve_window(struct solve_ctx *sc, const struct plan_shape *s, const struct plan_extras *x,
		 const struct cand_limits *l, uint64_t floor, struct solve_window *w, char **err);

enum solve_objective { SOLVE_WINDOW, SOLVE_SLOTS, SOLVE_PRECISION, SOLVE_RATE };

#define SOLVE_MAX_AXES 8
#define SOLVE_MAX_VALS 16

struct solve_axis {
	enum key_id key;
	unsigned n;
	char val[SOLVE_MAX_VALS][40];
};

struct solve_opts {
	enum solve_objective objective;
	uint32_t slots;	     /* --slots: 0 not pinned */
	uint64_t min_window; /* --min-window: 0 the objective's default */
	struct cand fix;     /* --fix lines */
	struct solve_axis vary[SOLVE_MAX_AXES];
	unsigned n_vary;
	struct rate_opts rate;
	unsigned cards; /* set by solve_run: the endpoint's plan has cards (N_CPU_MOE is an axis) */
};

/* Parse "KEY=a,b,c" into an axis. */
int solve_axis_parse(const char *arg, struct solve_axis *a, char **err);

struct solve_shape {
	struct cand keys; /* every shape key, ready to paste */
	uint32_t slots;
	uint64_t window;
	char k[8], v[8]; /* cache types */
	int drafter;	 /* an MTP drafter armed */
	uint32_t depth, ubatch;
	int capped;
	struct plan plan, next;
	struct rate rate;
	double decode_ratio; /* rate against the endpoint's shape (base bytes / these bytes) */
};

struct solve_result {
	struct plan base_plan;
	struct rate base_rate;
	uint64_t base_window;
	int has_best;
	struct solve_shape best;
	struct solve_shape *frontier; /* best first, by the objective */
	size_t n_frontier;
	size_t combos;				/* shapes searched for the frontier */
	uint64_t plans;				/* candidate plans made, all told */
	uint64_t fallbacks;			/* window searches that scanned */
	struct memo_stats memo;			/* what the candidates reused */
	double ms;				/* wall time of the search */
	double frontier_ms;			/* of the frontier alone */
	struct solve_axis axes[SOLVE_MAX_AXES]; /* the space searched, for the record */
	unsigned n_axes;
};

int solve_run(const struct endpoint *ep, const struct shape_ctx *base, const struct solve_opts *o,
	      struct solve_result *r, char **err);
void solve_result_release(struct solve_result *r);

#endif
