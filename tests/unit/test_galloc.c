/* galloc: the engine's node budget (llama_context::graph_max_nodes) and
 * the byte count of a tensor whose sizes a header multiplies out. */
#include <stdint.h>

#include "plan/graph/galloc.h"
#include "tap.h"

static void budget(void)
{
	struct ga_graph g;
	ga_init(&g);
	g.max_nodes = 8;
	int x = ga_input(&g, 64);
	for (int i = 0; i < 100000; i++)
		x = ga_op(&g, i & 1, 0, 4, 4, 1, 1, (const int[]){x, -2});
	ok(ga_over(&g), "galloc: a build past max_nodes is over the budget");
	ok(g.n_nodes == 8, "galloc: the graph keeps max_nodes nodes (%d)", g.n_nodes);
	ok(g.n <= 10 && g.cap <= 4096, "galloc: nothing grows past the budget (%d tensors, cap %d)", g.n, g.cap);
	x = ga_view(&g, ga_view(&g, x));
	ok(x >= 0 && x < g.n, "galloc: a view past the budget is a tensor of the graph (%d)", x);
	ga_clear(&g);
	ok(!ga_over(&g), "galloc: ga_clear ends the over state");
	g.max_nodes = 0;
	for (int i = 0; i < 20; i++)
		x = ga_op(&g, 0, 0, 4, 4, 1, 1, (const int[]){-2});
	ok(!ga_over(&g) && g.n_nodes == 20, "galloc: max_nodes 0: no budget");
	ga_release(&g);
}

static void bytes(void)
{
	int wrapped = 0;
	ok(ga_bytes(4, (const int64_t[]){4096, 512, 2, 1}, &wrapped) == 16777216 && !wrapped,
	   "galloc: 4 x 4096 x 512 x 2 bytes");
	ok(ga_bytes(4, (const int64_t[]){INT64_C(1) << 31, INT64_C(1) << 31, 4, 1}, &wrapped) == 0 && wrapped,
	   "galloc: a product past 2^64 is flagged, not wrapped");
	wrapped = 0;
	ok(ga_bytes(2, (const int64_t[]){8, -1, 1, 1}, &wrapped) == 0 && wrapped,
	   "galloc: a negative dimension is flagged");
	struct ga_graph g;
	ga_init(&g);
	ga_op(&g, 0, 0, INT64_MAX, 2, 1, 1, (const int[]){-2});
	ok(g.wrapped, "galloc: ga_op flags the graph");
	ga_release(&g);
}

void test_galloc(void)
{
	budget();
	bytes();
}
