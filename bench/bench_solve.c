/* bench_solve: how fast the solver prices candidate shapes.
 *
 * usage: bench_solve ENDPOINT [CANDIDATES]
 *
 * 1. one plan without reuse (what `zealot plan` pays, header parsed once);
 * 2. candidate plans per second: CANDIDATES random shapes of the solve
 *    space (slots 1-4 x a window of 256-cell steps up to the trained
 *    context x K and V in f16/q8_0/q4_0 x drafter on/off x ubatch
 *    512/1024/2048), each a full plan_make against one memo, from a cold
 *    memo (every compute replay included) and again warm;
 * 3. the whole frontier (solve's default space) and the rungs, timed.
 * Prints figures; asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/util.h"

#include "endpoint/endpoint.h"
#include "plan/cand.h"
#include "plan/memo.h"
#include "plan/plan.h"
#include "plan/rungs.h"
#include "plan/shape.h"
#include "plan/solve.h"

static uint64_t rng = 2026;
static uint32_t draw(uint32_t n) /* xorshift64* */
{
	rng ^= rng >> 12;
	rng ^= rng << 25;
	rng ^= rng >> 27;
	return (uint32_t)((rng * 2685821657736338717ull) >> 32) % n;
}

struct shape_draw {
	struct plan_shape s;
	struct plan_extras x;
};

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_solve ENDPOINT [CANDIDATES]\n");
		return 2;
	}
	int n = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 20000;
	if (n < 1)
		n = 1;
	char *err = NULL;
	int io;
	struct endpoint *ep = endpoint_load(argv[1], NULL, &err);
	struct shape_ctx c;
	if (!ep || shape_load(ep, NULL, &c, &io, &err)) {
		fprintf(stderr, "bench_solve: %s\n", err ? err : "cannot load");
		return 3;
	}
	const struct model *m = c.census->model;
	struct plan *p = malloc(sizeof(*p));

	/* 1. a plan without reuse */
	int base_n = 50;
	double t0 = mono_ms();
	for (int i = 0; i < base_n; i++)
		plan_make(m, c.model->g, &c.shape, c.dev, &c.extras, p, &err);
	double plain = (mono_ms() - t0) / base_n;
	printf("plan without reuse (header parsed once): %.3f ms, %.0f plans/s\n", plain, 1000 / plain);

	/* 2. random candidates of the solve space */
	static const char *const types[] = {"f16", "q8_0", "q4_0"};
	static const char *const ubs[] = {"512", "1024", "2048"};
	int mtp = m->n_nextn && m->mtp_tensors;
	struct shape_draw *d = calloc((size_t)n, sizeof(*d));
	int made = 0;
	for (int i = 0; i < n; i++) {
		struct cand cd = {0};
		uint32_t slots = 1 + draw(4);
		uint64_t w = 256 * (1 + draw((uint32_t)(m->n_ctx_train / 256)));
		cand_setu(&cd, K_PARALLEL, slots);
		cand_setu(&cd, K_CTX_SIZE, w * slots);
		cand_set(&cd, K_CACHE_TYPE_K, types[draw(3)]);
		cand_set(&cd, K_CACHE_TYPE_V, types[draw(3)]);
		cand_set(&cd, K_SPEC_TYPE, mtp && draw(2) ? "draft-mtp" : "none");
		cand_set(&cd, K_UBATCH_SIZE, ubs[draw(3)]);
		if (cand_apply(ep, &c, &cd, &d[made].s, &d[made].x, &err) == 0)
			made++;
	}
	struct memo *mm = memo_new();
	for (int pass = 0; pass < 2; pass++) {
		uint64_t fits = 0;
		t0 = mono_ms();
		for (int i = 0; i < made; i++) {
			struct plan_extras x = d[i].x;
			x.memo = mm;
			if (!x.addressable_mib && c.dev->backend == DEVICE_CPU)
				x.addressable_mib = 65536;
			plan_make(m, c.model->g, &d[i].s, c.dev, &x, p, &err);
			fits += p->fits;
		}
		double ms = mono_ms() - t0;
		const struct memo_stats *st = memo_stats(mm);
		printf("%d random candidate plans of the solve space, %s memo: %.1f ms, %.0f candidate plans/s "
		       "(%llu fit; %llu graph replays so far)\n",
		       made, pass ? "warm" : "cold", ms, made / (ms / 1000), (unsigned long long)fits,
		       (unsigned long long)(st->affine_replays + st->plain_replays));
	}
	memo_free(mm);
	free(d);

	/* 3. the frontier and the rungs */
	struct solve_opts o;
	memset(&o, 0, sizeof(o));
	o.rate.accept = RATE_ACCEPT_DEFAULT;
	struct solve_result *r = calloc(1, sizeof(*r));
	for (int k = 0; k < 2; k++) {
		o.slots = k ? c.shape.parallel : 0;
		if (solve_run(ep, &c, &o, r, &err)) {
			fprintf(stderr, "bench_solve: %s\n", err);
			return 3;
		}
		printf("solve%s: the frontier of %zu shapes (%zu on it) in %.1f ms, the best with it %.1f ms: "
		       "%llu candidate plans (%.0f/s), %llu graph replays\n",
		       k ? " --slots N" : "", r->combos, r->n_frontier, r->frontier_ms, r->ms,
		       (unsigned long long)r->plans, r->plans / (r->ms / 1000),
		       (unsigned long long)(r->memo.affine_replays + r->memo.plain_replays));
		solve_result_release(r);
	}
	free(r);
	struct rungs rg;
	struct rungs_opts ro = {{0, RATE_ACCEPT_DEFAULT, 0}};
	if (rungs_make(ep, &c, &ro, &rg, &err) == 0)
		printf("rungs: %zu rungs in %.1f ms (%llu candidate plans)\n", rg.n, rg.ms,
		       (unsigned long long)rg.plans);
	rungs_release(&rg);
	free(p);
	shape_release(&c);
	endpoint_free(ep);
	return 0;
}
