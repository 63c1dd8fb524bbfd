/* bench_inspect: how long inspect's work takes on a large header.
 *
 * usage: bench_inspect FILE [ITERATIONS]
 * Maps and parses FILE's header and takes the full census (geometry,
 * histogram, template facts) ITERATIONS times, then prints the figures.
 * No assertion: the numbers are for people and for the closing notes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "base/util.h"
#include "payload/census.h"
#include "payload/gguf.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_inspect FILE [ITERATIONS]\n");
		return 2;
	}
	int iters = argc > 2 ? atoi(argv[2]) : 200;
	if (iters < 1)
		iters = 1;
	double *t = calloc((size_t)iters, sizeof(*t));
	uint64_t vocab = 0, header = 0, fsize = 0;
	for (int i = 0; i < iters; i++) {
		char *err = NULL;
		double t0 = mono_ms();
		struct gguf_file *f = gguf_open(argv[1], NULL, &err);
		struct census *c = f ? census_take(f->g, &err) : NULL;
		t[i] = mono_ms() - t0;
		if (!c) {
			fprintf(stderr, "bench_inspect: %s\n", err);
			return 3;
		}
		vocab = c->model ? c->model->n_vocab : 0;
		header = f->g->header_bytes;
		fsize = f->g->file_size;
		census_free(c);
		gguf_close(f);
	}
	qsort(t, (size_t)iters, sizeof(*t), cmp);
	printf("inspect (open + parse + census): file %llu bytes, header %llu bytes, vocab %llu\n",
	       (unsigned long long)fsize, (unsigned long long)header, (unsigned long long)vocab);
	printf("  %d runs: min %.3f ms, median %.3f ms, p90 %.3f ms, max %.3f ms\n", iters, t[0], t[iters / 2],
	       t[iters * 9 / 10], t[iters - 1]);
	free(t);
	return 0;
}
