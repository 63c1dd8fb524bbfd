/* bench_plan: how long a plan takes on a large header.
 *
 * usage: bench_plan ENDPOINT [ITERATIONS]
 * Loads the endpoint and its payload headers once per iteration (as the
 * command does) and prices the shape, compute-buffer replay included.
 * Prints figures; asserts nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/util.h"
#include "endpoint/endpoint.h"
#include "plan/plan.h"
#include "plan/shape.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_plan ENDPOINT [ITERATIONS]\n");
		return 2;
	}
	int iters = argc > 2 ? (int)strtol(argv[2], NULL, 10) : 100;
	if (iters < 1)
		iters = 1;
	double *t = calloc((size_t)iters, sizeof(*t));
	double total_mib = 0;
	for (int i = 0; i < iters; i++) {
		char *err = NULL;
		int io;
		double t0 = mono_ms();
		struct endpoint *ep = endpoint_load(argv[1], NULL, &err);
		struct shape_ctx c;
		struct plan p;
		if (!ep || shape_load(ep, NULL, &c, &io, &err) ||
		    plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, &err)) {
			fprintf(stderr, "bench_plan: %s\n", err ? err : "failed");
			return 3;
		}
		t[i] = mono_ms() - t0;
		total_mib = plan_mib(p.device_total);
		shape_release(&c);
		endpoint_free(ep);
	}
	qsort(t, (size_t)iters, sizeof(*t), cmp);
	printf("plan (endpoint + header + all terms + compute replay): total %.2f MiB\n", total_mib);
	printf("  %d runs: min %.3f ms, median %.3f ms, p90 %.3f ms, max %.3f ms\n", iters, t[0], t[iters / 2],
	       t[iters * 9 / 10], t[iters - 1]);
	free(t);
	return 0;
}
