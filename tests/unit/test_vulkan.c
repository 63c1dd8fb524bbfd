#include <stdlib.h>
#include <string.h>

#include "plan/vulkan.h"
#include "tap.h"

/* ggml type ids */
enum { F32 = 0, F16 = 1, Q4_0 = 2, Q8_0 = 8, IQ4_NL = 20, Q4_K = 12, BF16 = 30 };

/* A one-node graph: an FA node over K/V types at head size d, or a MUL_MAT
 * of `bytes` bytes; whether backend 0 (lavapipe) and 1 (the CPU) run it. */
static int runs(int fa, uint32_t k, uint32_t v, int64_t d, uint64_t bytes, int strided, int backend)
{
	struct ga_graph g;
	ga_init(&g);
	int t = ga_op(&g, 0, 0, 64, 8, 4, 1, NULL);
	g.t[t].op = fa ? GA_OP_FA : GA_OP_MUL_MAT;
	if (fa) {
		g.t[t].fa.k_type = k;
		g.t[t].fa.v_type = v;
		g.t[t].fa.dk = g.t[t].fa.dv = d;
	}
	if (bytes)
		g.t[t].bytes = bytes;
	g.t[t].quant_strided = (uint8_t)strided;
	struct vulkan_rules r;
	memset(&r, 0, sizeof(r));
	r.lim[0] = vulkan_limits_of("lavapipe");
	int yes = vulkan_supports_op(&g, t, backend, &r);
	ga_release(&g);
	return yes;
}

/* graph_optimize over x1 = f(in), y1 = g(x1), x2 = f(in), y2 = g(x2)
 * (x1 tagged gop1, y1 gop2) with the reordering on or off: the new order
 * as the tensors' letters. */
static void reordered(int gop1, int gop2, int on, char *out)
{
	struct ga_graph g;
	ga_init(&g);
	int in = ga_input(&g, 64);
	int x1 = ga_gop(&g, ga_op(&g, 1, 0, 16, 1, 1, 1, (const int[]){in, -2}), gop1);
	int y1 = ga_gop(&g, ga_op(&g, 1, 0, 16, 1, 1, 1, (const int[]){x1, -2}), gop2);
	int x2 = ga_op(&g, 1, 0, 16, 1, 1, 1, (const int[]){in, -2});
	ga_op(&g, 1, 0, 16, 1, 1, 1, (const int[]){x2, -2});
	struct vulkan_rules r;
	memset(&r, 0, sizeof(r));
	r.lim[0] = vulkan_limits_of("lavapipe");
	r.reorder = (uint8_t)on;
	vulkan_graph_optimize(&g, g.nodes, g.n_nodes, 0, &r);
	static const char name[] = "iabcd";
	for (int k = 0; k < g.n_nodes; k++)
		out[k] = name[g.nodes[k]];
	out[g.n_nodes] = '\0';
	(void)y1;
	ga_release(&g);
}

void test_vulkan(void)
{
	char o[8];
	reordered(0, 0, 1, o);
	ok(strcmp(o, "acbd") == 0, "graph_optimize: the independent x2 joins x1's set, y1 and y2 follow (%s)", o);
	reordered(GA_G_RMS_NORM, GA_G_MUL, 1, o);
	ok(strcmp(o, "abcd") == 0, "graph_optimize: RMS_NORM + MUL fuse, x2 joins them (%s)", o);
	reordered(0, 0, 0, o);
	ok(strcmp(o, "abcd") == 0, "graph_optimize off: the graph's order (%s)", o);

	const struct vulkan_limits *l = vulkan_limits_of("lavapipe");
	ok(l && l->ssbo_align == 16 && l->map_align == 64, "lavapipe: alignment 16, host map alignment 64 (measured)");
	ok(l && l->max_storage_range == 134217728ull, "lavapipe: a 128 MiB storage range");
	ok(!vulkan_limits_of("rtx3090"), "a CUDA profile has no Vulkan limits");
	ok(vulkan_limits_of("rx7900xtx") && vulkan_limits_of("arc-a770") && vulkan_limits_of("rtx3090-vk"),
	   "the cards' profiles have limits");

	/* supports_op FLASH_ATTN_EXT */
	ok(runs(1, F16, F16, 128, 0, 0, 0), "FA f16/f16 at 128 runs on the device");
	ok(runs(1, Q8_0, Q8_0, 128, 0, 0, 0), "FA q8_0/q8_0 runs");
	ok(runs(1, F16, Q4_0, 128, 0, 0, 0), "FA f16 K + q4_0 V runs (no same-type rule, unlike CUDA)");
	ok(runs(1, IQ4_NL, IQ4_NL, 64, 0, 0, 0), "FA iq4_nl runs");
	ok(!runs(1, BF16, F16, 128, 0, 0, 0), "FA bf16 K with f16 V: on the CPU (bf16 on both or neither)");
	ok(runs(1, BF16, BF16, 128, 0, 0, 0), "FA bf16/bf16 runs");
	ok(!runs(1, Q4_K, Q4_K, 128, 0, 0, 0), "FA q4_K: no path");
	ok(!runs(1, F16, F16, 100, 0, 0, 0), "FA at head size 100 (not a multiple of 8): on the CPU");
	ok(runs(1, BF16, F16, 128, 0, 0, 1), "the CPU backend runs it all");

	/* MUL_MAT: a strided quantized source, and the storage range */
	ok(!runs(0, 0, 0, 0, 0, 1, 0), "KQ over a strided quantized K: on the CPU");
	ok(runs(0, 0, 0, 0, 0, 0, 0), "a plain MUL_MAT runs");
	ok(!runs(0, 0, 0, 0, 134217728ull + 4, 0, 0), "a tensor past maxStorageBufferRange: on the CPU");
	ok(runs(0, 0, 0, 0, 134217728ull, 0, 0), "one at the range runs");
}
