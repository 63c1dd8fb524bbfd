/* graph_clip_vision3: the projector graphs of the third round of vision
 * types (MobileVLM's ldp and ldpv2 over llava's tower), rebuilt node for
 * node from the pinned engine's tools/mtmd/models with graph_clip.c's
 * helpers (graph_clip_int.h); graph_clip.c's lookup reads the table.
 */
#include <string.h>

#include "graph.h"
#include "graph_clip_int.h"

/* MobileVLM's grid: n_patch (24) patches a side, hard-coded in llava.cpp */
#define LDP_SIDE 24

/* ggml_conv_2d_dw of x [n, n, ch] by the next weight [3, 3, ch, 1],
 * padding 1 and stride ST: the reshaped kernel and input, the f16
 * im2col, the matmul, its reshape [o, o, ch] (a view) */
static int conv_dw(const struct clip *c, int x, int64_t n, int64_t ch, int64_t st)
{
	struct ga_graph *g = c->g;
	int64_t o = (n + 2 - 3) / st + 1;
	int k = ga_view(g, w(c));
	int col = ga_op(g, 0, F16, 9, o, o, ch, S(k, ga_view(g, x)));
	int r = gr_op_kind(g, ga_op(g, 0, F32, 1, o * o, ch, 1, S(ga_view(g, k), ga_view(g, col))), GA_OP_MUL_MAT);
	return ga_view(g, r);
}

/* mm.model.mlp.A, its bias, GELU, mm.model.mlp.B and its bias over the
 * patches, permuted and made a grid [24, 24, pd] */
static int ldp_mlp(const struct clip *c, const char *a, const char *b)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, na = rows_of(c, a), pd = rows_of(c, b);
	int x = mm_b(c, llava_patches(c, 0), na, T, 1);
	x = ga_op(g, 1, F32, na, T, 1, 1, S(x));
	x = mm_b(c, x, pd, T, 1);
	return ga_op(g, 0, F32, LDP_SIDE, LDP_SIDE, pd, 1, S(ga_view(g, x)));
}

/* clip_graph_llava's ldpv2 projector: ldp_mlp (mlp.0, mlp.2), the 2 x 2
 * average pool, the peg's depthwise 3 x 3 convolution permuted to rows
 * and its bias, plus the pool permuted to rows */
static int build_ldpv2(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t pd = rows_of(c, "mm.model.mlp.2.weight"), n = LDP_SIDE / 2;
	int x = ldp_mlp(c, "mm.model.mlp.0.weight", "mm.model.mlp.2.weight");
	x = ga_op(g, 0, F32, n, n, pd, 1, S(x));
	int peg = conv_dw(c, x, n, pd, 1);
	peg = ga_op(g, 0, F32, pd, n, n, 1, S(ga_view(g, peg)));
	peg = ga_op(g, 1, F32, pd, n, n, 1, S(peg, w(c)));
	int rows = ga_op(g, 0, F32, pd, n, n, 1, S(ga_view(g, x)));
	peg = ga_op(g, 1, F32, pd, n, n, 1, S(peg, rows));
	return ga_view(g, peg);
}

/* the layer norm of x [ch, n, n] and its weight and bias (in place) */
static int ln_rows(const struct clip *c, int x, int64_t ch, int64_t n)
{
	struct ga_graph *g = c->g;
	x = ga_op(g, 0, F32, ch, n, n, 1, S(x));
	x = ga_op(g, 1, F32, ch, n, n, 1, S(x, w(c)));
	return ga_op(g, 1, F32, ch, n, n, 1, S(x, w(c)));
}

/* one of ldp's mb_blocks over x [n, n, ch]: the depthwise 3 x 3
 * convolution of stride ST, permuted to rows, layer-normed, back to a
 * grid; hardswish; the squeeze (the whole grid's average pool, fc1, ReLU,
 * fc2, hardsigmoid) scaling it; permuted to rows, the pointwise matmul
 * (block.2.0), the layer norm; block 1 permuted back to a grid plus its
 * input, block 2 left as rows (the caller's view) */
static int mb_block(const struct clip *c, int x, int64_t n, int64_t ch, int64_t st)
{
	struct ga_graph *g = c->g;
	int64_t o = (n + 2 - 3) / st + 1;
	int b = conv_dw(c, x, n, ch, st);
	b = ga_op(g, 0, F32, ch, o, o, 1, S(ga_view(g, b)));
	b = ln_rows(c, b, ch, o);
	b = ga_op(g, 0, F32, o, o, ch, 1, S(ga_view(g, b)));
	int hw = ga_op(g, 1, F32, o, o, ch, 1, S(b));
	int s = ga_op(g, 0, F32, 1, 1, ch, 1, S(hw));
	int64_t f1 =
	    rows_of(c, st == 1 ? "mm.model.mb_block.1.block.1.fc1.weight" : "mm.model.mb_block.2.block.1.fc1.weight");
	s = mm_b(c, ga_view(g, s), f1, 1, 1);
	s = ga_op(g, 1, F32, f1, 1, 1, 1, S(s));
	s = mm_b(c, s, ch, 1, 1);
	s = ga_op(g, 1, F32, ch, 1, 1, 1, S(s));
	b = ga_op(g, 1, F32, o, o, ch, 1, S(hw, ga_view(g, s)));
	b = ga_op(g, 0, F32, ch, o * o, 1, 1, S(ga_view(g, ga_view(g, b))));
	b = mm(c, b, ch, o * o);
	b = ln_rows(c, ga_view(g, b), ch, o);
	if (st != 1)
		return ga_view(g, b);
	b = ga_op(g, 0, F32, o, o, ch, 1, S(ga_view(g, b)));
	return ga_op(g, 1, F32, o, o, ch, 1, S(x, b));
}

/* clip_graph_llava's ldp projector: ldp_mlp (mlp.1, mlp.3), then two
 * mb_blocks, the second of stride 2 */
static int build_ldp(const struct clip *c)
{
	int64_t pd = rows_of(c, "mm.model.mlp.3.weight");
	int x = ldp_mlp(c, "mm.model.mlp.1.weight", "mm.model.mlp.3.weight");
	x = mb_block(c, x, LDP_SIDE, pd, 1);
	return mb_block(c, x, LDP_SIDE, pd, 2);
}

/* clip_graph_llava's glm_edge ("adapter") projector: llava_patches'
 * every block, the patches' grid (a transposed cont), adapter.conv's
 * 2 x 2 stride-2 convolution, its rows (a transposed cont) and bias;
 * adapter.linear's matrix, layer norm, GELU in place, the SwiGLU of gate
 * and dense_h_to_4h, dense_4h_to_h; boi and eoi concatenated around */
static int build_glm_edge(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t oc = (int64_t)gguf_tensor_find(c->gg, "adapter.conv.weight")->ne[3];
	int64_t n = (c->px / 2) * (c->px / 2);
	int x = llava_patches(c, 1);
	x = ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, x)));
	struct kconv k2 = {2, 2, 0};
	x = conv_k(c, x, c->E, c->px, k2, oc);
	x = ga_op(g, 0, F32, oc, n, 1, 1, S(ga_view(g, ga_view(g, x))));
	x = with_w(c, x, oc, n);
	int64_t h = rows_of(c, "adapter.linear.linear.weight"), f = rows_of(c, "adapter.linear.gate.weight");
	x = norm(c, mm(c, x, h, n), h, n, 0, 1, 1);
	x = ga_op(g, 1, F32, h, n, 1, 1, S(x));
	int gate = mm(c, x, f, n);
	x = ga_op(g, 0, F32, f, n, 1, 1, S(gate, mm(c, x, f, n)));
	int64_t O = rows_of(c, "adapter.linear.dense_4h_to_h.weight");
	x = mm(c, x, O, n);
	x = ga_op(g, 0, F32, O, n + 1, 1, 1, S(w(c), x));
	return ga_op(g, 0, F32, O, n + 2, 1, 1, S(x, w(c)));
}

/* glm_edge: llava's tower of square patches (an even side), no class
 * embedding; adapter.conv, the adapter's matrices, boi and eoi */
static const char *glm_edge_init(struct clip *c)
{
	static const char *const need[] = {"adapter.conv.weight",
					   "adapter.conv.bias",
					   "adapter.linear.linear.weight",
					   "adapter.linear.norm1.bias",
					   "adapter.linear.gate.weight",
					   "adapter.linear.dense_h_to_4h.weight",
					   "adapter.linear.dense_4h_to_h.weight",
					   "adapter.boi",
					   "adapter.eoi"};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!has(c, need[i]))
			return "no adapter.conv, its matrices, norm1, boi or eoi";
	if (gguf_find(c->gg, "clip.vision.feature_layer"))
		return "feature layers";
	return c->px % 2 || has(c, "v.class_embd") ? "an odd patch side or a class embedding" : NULL;
}

/* ldp and ldpv2: llava's tower of 24 x 24 patches (the grid llava.cpp
 * hard-codes), no stacked feature layers */
static const char *ldp_init(struct clip *c)
{
	if (gguf_find(c->gg, "clip.vision.feature_layer"))
		return "feature layers";
	if (c->px != LDP_SIDE || c->np != LDP_SIDE * LDP_SIDE)
		return "not 24 x 24 patches";
	if (strcmp(c->type, "ldp") == 0)
		return has(c, "mm.model.mlp.3.weight") && has(c, "mm.model.mb_block.2.block.2.1.bias")
			   ? NULL
			   : "no mlp.3 or mb_block.2";
	return has(c, "mm.model.mlp.2.weight") && has(c, "mm.model.peg.0.bias") ? NULL : "no mlp.2 or peg.0";
}

const struct clip_type clip_types3[] = {
    {"ldp", build_ldp, ldp_init},
    {"ldpv2", build_ldpv2, ldp_init},
    {"adapter", build_glm_edge, glm_edge_init},
};
const size_t clip_types3_n = sizeof(clip_types3) / sizeof(clip_types3[0]);
