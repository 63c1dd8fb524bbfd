/* libFuzzer target, differential: a graph built from the input, with sizes
 * affine in the cache cells n, replayed by gaparam as an affine piece must
 * equal galloc's plain replay at n0 and at both ends of the piece; and the
 * --vary parser on the input as text. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plan/graph/galloc.h"
#include "plan/graph/gaparam.h"
#include "plan/solve.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void build(struct ga_graph *g, const uint8_t *d, size_t n, int64_t cells)
{
	ga_init(g);
	int ids[96], k = 0;
	ids[k++] = ga_input(g, 64 + (uint64_t)cells * 32);
	for (size_t i = 0; i + 3 < n && k < 96; i += 4) {
		int s1 = ids[d[i] % k], s2 = ids[d[i + 1] % k];
		int64_t ne0 = 8 * (1 + d[i + 2] % 16), scale = d[i + 3] % 3;
		int64_t ne1 = 1 + (d[i + 3] >> 2) % 4 + scale * cells;
		switch (d[i] >> 6) {
		case 0: ids[k++] = ga_view(g, s1); break;
		case 1: ids[k++] = ga_input(g, 32 * (1 + d[i + 2] % 64) + (uint64_t)(scale * 32 * cells)); break;
		default: ids[k++] = ga_op(g, d[i + 1] & 1, 0, ne0, ne1, 1, 1, (const int[]){s1, s2, -2}); break;
		}
	}
	g->t[ids[k - 1]].output = 1;
}

static uint64_t plain(const uint8_t *d, size_t n, int64_t cells)
{
	struct ga_graph g;
	build(&g, d, n, cells);
	uint64_t v = ga_run(&g, 32);
	ga_release(&g);
	return v;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	int64_t n0 = 256 * (1 + data[0] % 32);
	struct ga_graph g0, g1;
	build(&g0, data + 1, size - 1, n0);
	build(&g1, data + 1, size - 1, n0 + 256);
	struct ga_piece pc;
	if (ga_affine(&g0, &g1, (uint64_t)n0, 256, 32, &pc) == 0) {
		int64_t at[3] = {n0, (int64_t)pc.lo, (int64_t)pc.hi};
		for (int i = 0; i < 3; i++)
			if (at[i] <= 1 << 16 && plain(data + 1, size - 1, at[i]) != (uint64_t)(pc.a + pc.b * at[i]))
				abort();
	}
	ga_release(&g0);
	ga_release(&g1);

	char *s = malloc(size + 1), *err = NULL;
	memcpy(s, data, size);
	s[size] = '\0';
	struct solve_axis a;
	solve_axis_parse(s, &a, &err);
	free(err);
	free(s);
	return 0;
}
