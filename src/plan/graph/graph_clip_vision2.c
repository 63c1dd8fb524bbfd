/* graph_clip_vision2: the projector graphs of the second round of vision
 * types (glm4v, minicpmv's resampler, step3vl, kimik25's position table),
 * rebuilt node for node from the pinned engine's tools/mtmd/models
 * with graph_clip.c's helpers (graph_clip_int.h); graph_clip.c's table
 * names them.
 */
#include <stdio.h>
#include <string.h>

#include "graph.h"
#include "graph_clip_int.h"

/* build_vit's body over x (T rows): the pre norm, every block with the
 * same options O (no hook), the post norm */
static int vit_run(const struct clip *c, int x, int64_t T, const struct vit_opts *o)
{
	x = tower_norm(c, x, "pre_ln", T);
	for (int64_t il = 0; il < c->L; il++)
		x = vit_block(c, x, il, T, o);
	return tower_norm(c, x, "post_ln", T);
}

/* PRE + PART (+ ".weight" or ".bias") in BUF */
static const char *named(char *buf, size_t n, const char *pre, const char *part)
{
	snprintf(buf, n, "%s%s", pre, part);
	return buf;
}

/* build_ffn of PREup, PREgate (when present) and PREdown (mm.: the
 * projector's; v.blk.N.ffn_: a block's), each with its bias when
 * present, over x (T rows) */
static int ffn_at(const struct clip *c, int x, int64_t T, const char *pre)
{
	char a[64], b[64];
	int64_t nu = rows_of(c, named(a, sizeof(a), pre, "up.weight"));
	int up = mm_b(c, x, nu, T, has(c, named(b, sizeof(b), pre, "up.bias")));
	int cur;
	if (has(c, named(a, sizeof(a), pre, "gate.weight"))) {
		int gate = mm_b(c, x, nu, T, has(c, named(b, sizeof(b), pre, "gate.bias")));
		cur = ga_op(c->g, 0, F32, nu, T, 1, 1, S(gate, up));
	} else {
		cur = ga_op(c->g, 1, F32, nu, T, 1, 1, S(up));
	}
	int64_t nd = rows_of(c, named(a, sizeof(a), pre, "down.weight"));
	return mm_b(c, cur, nd, T, has(c, named(b, sizeof(b), pre, "down.bias")));
}

/* clip_graph_glm4v (models/glm4v.cpp): qwen-vl's two patch embeddings
 * merged 2 x 2, the patch bias, the RMS norm_embd, the learned positions
 * resized and merged like the patches, RMS blocks turned by M-RoPE; the
 * merger's conv2d over each n_merge x n_merge group (its cont, im2col,
 * matmul, cont) and its bias, mm.model.fc, the layer-normed post norm,
 * GELU, the projector's FFN */
static int build_glm4v(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, s = c->merge, n = c->np / (s * s);
	int x = with_w(c, qwen_inp(c), c->E, T);
	x = norm(c, x, c->E, T, 1, has(c, "v.norm_embd.weight"), has(c, "v.norm_embd.bias"));
	if (has(c, "v.position_embd.weight"))
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, qwen3_pos(c)));
	int pos = -1;
	struct vit_opts o = {&pos, NULL, NULL, NULL, NULL};
	x = vit_run(c, ga_view(g, x), T, &o);
	x = ga_op(g, 0, F32, s, s, c->E, n, S(ga_view(g, ga_view(g, x))));
	int64_t oc = (int64_t)gguf_tensor_find(c->gg, "mm.patch_merger.weight")->ne[3];
	int col = ga_op(g, 0, F16, c->E * s * s, 1, 1, n, S(w(c), x));
	int r = gr_op_kind(g, ga_op(g, 0, F32, n, oc, 1, 1, S(ga_view(g, col), ga_view(g, w(c)))), GA_OP_MUL_MAT);
	x = ga_op(g, 0, F32, 1, oc, 1, n, S(ga_view(g, ga_view(g, r))));
	x = with_w(c, ga_view(g, x), oc, n);
	int64_t nf = rows_of(c, "mm.model.fc.weight");
	x = mm(c, x, nf, n);
	x = norm(c, x, nf, n, 0, 1, has(c, "mm.post_norm.bias"));
	x = ga_op(g, 1, F32, nf, n, 1, 1, S(x));
	return ffn_at(c, x, n, "mm.");
}

/* set_warmup_n_tokens(SIDE x SIDE): the warmup image SIDE merged tokens
 * of spatial_merge_size (2) patches a side; RMS norms or not; -1 when
 * the merge is not the 2 x 2 the graph builds */
static int warm_merged(struct clip *c, int64_t side, int rms)
{
	c->merge = u64_or(c->gg, "clip.vision.spatial_merge_size", 2);
	c->px = side * c->merge;
	c->img = c->px * c->patch;
	c->np = c->px * c->px;
	c->rms = rms;
	return c->merge == 2 ? 0 : -1;
}

/* glm4v: 46 x 46 merged tokens at warmup (set_warmup_n_tokens), merged
 * spatial_merge_size (2) a side; RMS norms */
static const char *glm4v_init(struct clip *c)
{
	if (warm_merged(c, 46, 1))
		return "a spatial merge other than 2";
	if (!has(c, "v.patch_embd.weight.1") || !has(c, "v.patch_embd.bias") || has(c, "v.class_embd"))
		return "no second patch embedding or patch bias";
	if (!has(c, "mm.patch_merger.weight") || !has(c, "mm.patch_merger.bias") || !has(c, "mm.model.fc.weight"))
		return "no patch merger or mm.model.fc";
	return has(c, "mm.up.weight") && has(c, "mm.down.weight") && has(c, "mm.post_norm.weight")
		   ? NULL
		   : "no mm.up, mm.down or mm.post_norm";
}

/* the sinusoidal half of minicpmv's resampler positions for one axis:
 * omega (repeated) times the positions, its sin and cos concatenated */
static int sincos(const struct clip *c, int rep, int64_t n, int64_t T)
{
	struct ga_graph *g = c->g;
	int pos = ga_input(g, (uint64_t)T * 4);
	int th = ga_op(g, 1, F32, n, T, 1, 1, S(rep, pos));
	int sn = ga_op(g, 0, F32, n, T, 1, 1, S(th));
	int cs = ga_op(g, 0, F32, n, T, 1, 1, S(th));
	return ga_op(g, 0, F32, 2 * n, T, 1, 1, S(sn, cs));
}

/* a resampler projection: mm (its bias added) and its reshape */
static int proj_view(const struct clip *c, int x, int64_t n, int64_t T)
{
	return ga_view(c->g, mm_b(c, x, n, T, 1));
}

/* the resampler's queries, layer-normed and projected: built where the
 * resampler's build_attn orders its q, after the last block's q, k and v
 * (which the blocks' build_attn ordered before) */
struct resampler_q {
	int q;
	int64_t ep, nq;
};

static void resampler_q(const struct clip *c, void *ctx)
{
	struct resampler_q *r = ctx;
	r->q = proj_view(c, norm(c, w(c), r->ep, r->nq, 0, 1, 1), r->ep, r->nq);
}

/* clip_graph_minicpmv (models/minicpmv.cpp): build_inp, the learned
 * positions' rows, build_vit; the resampler: its queries (resampler_q),
 * the tower's output
 * through resampler.kv and a layer norm, plus the sinusoidal positions
 * (k), projected; v projected; attention of the queries over the patches
 * (heads of 128), ln_post, the projection */
static int build_minicpmv(const struct clip *c)
{
	struct ga_graph *g = c->g;
	const struct gguf_tensor *qt = gguf_tensor_find(c->gg, "resampler.query");
	int64_t T = c->np, ep = (int64_t)qt->ne[0], nq = (int64_t)qt->ne[1];
	struct resampler_q rq = {-1, ep, nq};
	int x = build_inp(c);
	int pos = ga_input(g, (uint64_t)T * 4);
	int rows = gr_op_kind(g, ga_op(g, 0, F32, c->E, T, 1, 1, S(w(c), pos)), GA_OP_GET_ROWS);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, rows));
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {NULL, NULL, NULL, il == c->L - 1 ? resampler_q : NULL, &rq};
		x = vit_block(c, x, il, T, &o);
	}
	x = tower_norm(c, x, "post_ln", T);
	int v = norm(c, mm(c, x, ep, T), ep, T, 0, 1, 1);
	int omega = ga_input(g, (uint64_t)ep / 4 * 4);
	int rep = ga_op(g, 0, F32, ep / 4, T, 1, 1, S(omega));
	int px = sincos(c, rep, ep / 4, T);
	int pe = ga_op(g, 0, F32, ep, T, 1, 1, S(px, sincos(c, rep, ep / 4, T)));
	int k = proj_view(c, ga_op(g, 1, F32, ep, T, 1, 1, S(v, pe)), ep, T);
	int vv = proj_view(c, v, ep, T);
	struct heads h = {128, ep / 128, nq, T, 0};
	x = mm_b(c, attn_heads(c, rq.q, k, vv, NULL, h), ep, nq, 1);
	x = norm(c, x, ep, nq, 0, 1, 1);
	return mm(c, x, rows_of(c, "resampler.proj.weight"), nq);
}

/* minicpmv (resampler): the image size; the queries' count
 * (clip.minicpmv_query_num, else the version's: 64, or 96 for 2) must be
 * the query table's rows, its width a multiple of 128 heads */
static const char *minicpmv_init(struct clip *c)
{
	const struct gguf_tensor *qt = gguf_tensor_find(c->gg, "resampler.query");
	int64_t ver = u64_or(c->gg, "clip.minicpmv_version", 0);
	int64_t nq = u64_or(c->gg, "clip.minicpmv_query_num", (ver >= 3 && ver <= 6) || ver == 100045 ? 64 : 96);
	if (!qt || qt->n_dims < 2 || (int64_t)qt->ne[1] != nq || qt->ne[0] % 128)
		return "a query table not the queries' count or 128-wide heads";
	if (has(c, "v.class_embd") || !has(c, "v.position_embd.weight"))
		return "a class embedding or no learned positions";
	return has(c, "resampler.kv.weight") && has(c, "resampler.proj.weight") ? NULL : "no resampler.kv or proj";
}

/* ggml_conv_2d of x [iw, iw, ic] by the next weight [k, k, ic, oc]:
 * im2col (f16), the matmul, the cont [ow, ow, oc] */
int conv_k(const struct clip *c, int x, int64_t ic, int64_t iw, struct kconv kc, int64_t oc)
{
	struct ga_graph *g = c->g;
	int64_t ow = (iw + 2 * kc.pad - kc.k) / kc.st + 1;
	int col = ga_op(g, 0, F16, ic * kc.k * kc.k, ow, ow, 1, S(w(c), x));
	int r = gr_op_kind(g, ga_op(g, 0, F32, ow * ow, oc, 1, 1, S(ga_view(g, col), ga_view(g, w(c)))), GA_OP_MUL_MAT);
	return ga_op(g, 0, F32, ow, ow, oc, 1, S(ga_view(g, ga_view(g, r))));
}

/* step3vl's spatial bias over x [n, n, ch] (when the tower has it): the
 * transposed cont, the bias in place, transposed back */
static int spatial_bias(const struct clip *c, int x, int64_t n, int64_t ch, const char *bias)
{
	struct ga_graph *g = c->g;
	if (!has(c, bias))
		return x;
	x = ga_op(g, 0, F32, ch, n * n, 1, 1, S(ga_view(g, ga_view(g, x))));
	x = with_w(c, x, ch, n * n);
	x = ga_op(g, 0, F32, n * n, ch, 1, 1, S(ga_view(g, x)));
	return ga_view(g, x);
}

/* clip_graph_step3vl (models/step3vl.cpp): build_inp, the learned
 * positions resized, build_vit turned by 2D RoPE; the patches' grid (a
 * transposed cont), two 3 x 3 stride-2 convolutions each with its
 * spatial bias, the flattened cont, mm.model.fc */
static int build_step3vl(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np;
	int x = build_inp(c);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, resize_pos(c)));
	int pos2[2] = {-1, -1};
	struct vit_opts o = {NULL, pos2, NULL, NULL, NULL};
	x = vit_run(c, ga_view(g, x), T, &o);
	x = ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, x)));
	const struct gguf_tensor *w0 = gguf_tensor_find(c->gg, "mm.0.weight");
	const struct gguf_tensor *w1 = gguf_tensor_find(c->gg, "mm.1.weight");
	int64_t o0 = (int64_t)w0->ne[3], o1 = (int64_t)w1->ne[3];
	int64_t n0 = (c->px - 1) / 2 + 1, n1 = (n0 - 1) / 2 + 1;
	struct kconv k3 = {3, 2, 1};
	x = spatial_bias(c, conv_k(c, x, c->E, c->px, k3, o0), n0, o0, "mm.0.bias");
	x = spatial_bias(c, conv_k(c, x, o0, n0, k3, o1), n1, o1, "mm.1.bias");
	x = ga_op(g, 0, F32, o1, n1 * n1, 1, 1, S(ga_view(g, ga_view(g, x))));
	return mm(c, x, rows_of(c, "mm.model.fc.weight"), n1 * n1);
}

/* step3vl: the image size (hparams.warmup_image_size), two 3 x 3
 * downsamplers */
static const char *step3vl_init(struct clip *c)
{
	const struct gguf_tensor *w0 = gguf_tensor_find(c->gg, "mm.0.weight");
	const struct gguf_tensor *w1 = gguf_tensor_find(c->gg, "mm.1.weight");
	if (!w0 || !w1 || w0->n_dims != 4 || w1->n_dims != 4 || w0->ne[0] != 3 || w1->ne[0] != 3 || w0->ne[1] != 3 ||
	    w1->ne[1] != 3)
		return "downsamplers other than two 3 x 3 convolutions";
	if (has(c, "v.class_embd") || !has(c, "v.position_embd.weight"))
		return "a class embedding or no learned positions";
	return has(c, "mm.model.fc.weight") ? NULL : "no mm.model.fc";
}

/* kimik25's resize_position_embeddings_3d: the table [E, W, H] flattened
 * (a cont) when it is the image's size, else interpolated over a permute
 * of it and the permuted result's cont */
int resize_pos3d(const struct clip *c)
{
	struct ga_graph *g = c->g;
	const struct gguf_tensor *t = gguf_tensor_find(c->gg, "v.position_embd.weight");
	int pe = w(c);
	if ((int64_t)t->ne[1] != c->px || (int64_t)t->ne[2] != c->px)
		pe = ga_view(g, ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, pe))));
	return ga_op(g, 0, F32, c->E, c->np, 1, 1, S(pe));
}

/* kimik25: kimivl's graph over a 3D position table; the warmup image
 * sqrt(image_max_pixels) a side when the tower gives both limits, else
 * 64 x 64 merged tokens (set_limit_image_tokens(2, 4096)) */
static const char *kimik25_init(struct clip *c)
{
	const struct gguf_tensor *t = gguf_tensor_find(c->gg, "v.position_embd.weight");
	int64_t lo = u64_or(c->gg, "clip.vision.image_min_pixels", 0);
	int64_t hi = u64_or(c->gg, "clip.vision.image_max_pixels", 0);
	c->merge = u64_or(c->gg, "clip.vision.projector.scale_factor", 1);
	if (lo > 0 && hi > 0) {
		c->img = 0;
		while ((c->img + 1) * (c->img + 1) <= hi)
			c->img++;
	} else {
		c->img = 64 * c->patch * c->merge;
	}
	c->px = c->img / c->patch;
	c->np = c->px * c->px;
	if (c->merge < 2 || c->px % c->merge)
		return "a scale factor below 2 or not dividing the patches";
	if (!t || t->n_dims != 3)
		return "no 3D position table";
	return has(c, "mm.1.weight") && has(c, "mm.2.weight") ? NULL : "no mm.1 or mm.2";
}

/* the output channels of a convolution's weight (its ne[3]) */
static int64_t oc_of(const struct clip *c, const char *name)
{
	return (int64_t)gguf_tensor_find(c->gg, name)->ne[3];
}

/* a convolution's bias, a reshape of the weight, added */
static int conv_bias(const struct clip *c, int x, int64_t n, int64_t oc)
{
	return ga_op(c->g, 1, F32, n, n, oc, 1, S(x, ga_view(c->g, w(c))));
}

/* clip_graph_hunyuanvl (models/hunyuanvl.cpp): build_inp plus the
 * positions (an input the host fills), build_vit; the perceiver: the RMS
 * pre norm, the grid's cont, an n_merge conv2d (its bias), GELU, a 1 x 1
 * conv2d (its bias), image_newline repeated and concatenated after each
 * row, the cont, mm.model.fc (+ bias), image_begin and image_end
 * concatenated around, the RMS post norm */
static int build_hunyuanvl(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, s = c->merge, n = c->px / s;
	int64_t o0 = oc_of(c, "mm.0.weight"), o1 = oc_of(c, "mm.2.weight");
	int x = build_inp(c);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, ga_input(g, (uint64_t)c->E * T * 4)));
	struct vit_opts o = {NULL, NULL, NULL, NULL, NULL};
	x = vit_run(c, ga_view(g, x), T, &o);
	x = norm(c, x, c->E, T, 1, 1, 0);
	x = ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, ga_view(g, x))));
	struct kconv km = {s, s, 0}, k1 = {1, 1, 0};
	x = conv_bias(c, conv_k(c, x, c->E, c->px, km, o0), n, o0);
	x = ga_op(g, 1, F32, n, n, o0, 1, S(x));
	x = conv_bias(c, conv_k(c, x, o0, n, k1, o1), n, o1);
	int nl = ga_op(g, 0, F32, 1, n, o1, 1, S(ga_view(g, w(c))));
	x = ga_op(g, 0, F32, n + 1, n, o1, 1, S(x, nl));
	x = ga_op(g, 0, F32, o1, (n + 1) * n, 1, 1, S(ga_view(g, x)));
	int64_t P = rows_of(c, "mm.model.fc.weight"), m = (n + 1) * n;
	x = mm_b(c, x, P, m, has(c, "mm.model.fc.bias"));
	x = ga_op(g, 0, F32, P, m + 1, 1, 1, S(ga_view(g, w(c)), x));
	x = ga_op(g, 0, F32, P, m + 2, 1, 1, S(x, ga_view(g, w(c))));
	return norm(c, x, P, m + 2, 1, 1, 0);
}

/* hunyuanvl: 32 x 32 merged tokens at warmup (set_warmup_n_tokens),
 * merged spatial_merge_size (2) a side; layer norms */
static const char *hunyuanvl_init(struct clip *c)
{
	c->merge = u64_or(c->gg, "clip.vision.spatial_merge_size", 2);
	c->px = 32 * c->merge;
	c->img = c->px * c->patch;
	c->np = c->px * c->px;
	static const char *const need[] = {"mm.0.weight",	 "mm.2.weight",		"mm.model.fc.weight",
					   "mm.pre_norm.weight", "mm.post_norm.weight", "mm.image_begin",
					   "mm.image_end",	 "v.image_newline",	"v.position_embd.weight"};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!has(c, need[i]))
			return "a perceiver tensor missing";
	if (!c->merge || has(c, "v.class_embd"))
		return "no merge, or a class embedding";
	const struct gguf_tensor *m0 = gguf_tensor_find(c->gg, "mm.0.weight");
	const struct gguf_tensor *m2 = gguf_tensor_find(c->gg, "mm.2.weight");
	if (m0->n_dims != 4 || m2->n_dims != 4 || (int64_t)m0->ne[0] != c->merge || m2->ne[0] != 1)
		return "convolutions other than n_merge and 1 x 1";
	return NULL;
}

/* one of cogvlm's blocks: the fused qkv (+ bias) and its views, the
 * attention, attn_out (+ bias), ln1 after it, the residual; the FFN, ln2
 * after it, the residual */
static int cog_block(const struct clip *c, int x, int64_t il, int64_t T)
{
	struct ga_graph *g = c->g;
	char pre[32], a[64];
	snprintf(pre, sizeof(pre), "v.blk.%d.", (int)il);
	int qkv = mm_b(c, x, 3 * c->E, T, has(c, named(a, sizeof(a), pre, "attn_qkv.bias")));
	uint64_t span = (uint64_t)c->E * 4 + (uint64_t)(T - 1) * 3 * c->E * 4;
	int q = ga_view_n(g, qkv, span), k = ga_view_n(g, qkv, span), v = ga_view_n(g, qkv, span);
	struct heads h = {c->D, c->H, T, T, 0};
	int cur = mm_b(c, attn_heads(c, q, k, v, NULL, h), c->E, T, has(c, named(a, sizeof(a), pre, "attn_out.bias")));
	cur = ga_op(g, 1, F32, c->E, T, 1, 1, S(norm(c, cur, c->E, T, 0, 1, 1), x));
	x = cur;
	snprintf(pre, sizeof(pre), "v.blk.%d.ffn_", (int)il);
	cur = norm(c, ffn_at(c, cur, T, pre), c->E, T, 0, 1, 1);
	return ga_op(g, 1, F32, c->E, T, 1, 1, S(cur, x));
}

/* clip_graph_cogvlm (models/cogvlm.cpp): build_inp, the class embedding
 * concatenated, the learned positions added, cogvlm's blocks (norms after
 * the attention and the FFN); the class row dropped (a view),
 * mm.model.fc, a layer norm, GELU in place, the gated FFN of mm.up,
 * mm.gate, mm.down, boi and eoi concatenated around */
static int build_cogvlm(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np + 1, n = c->np;
	int x = ga_op(g, 0, F32, c->E, T, 1, 1, S(build_inp(c), w(c)));
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, w(c)));
	for (int64_t il = 0; il < c->L; il++)
		x = cog_block(c, x, il, T);
	int64_t P = rows_of(c, "mm.model.fc.weight"), O = rows_of(c, "mm.down.weight");
	x = norm(c, mm(c, ga_view(g, x), P, n), P, n, 0, 1, 1);
	x = ffn_at(c, ga_op(g, 1, F32, P, n, 1, 1, S(x)), n, "mm.");
	x = ga_op(g, 0, F32, O, n + 1, 1, 1, S(w(c), x));
	return ga_op(g, 0, F32, O, n + 2, 1, 1, S(x, w(c)));
}

/* every block's q, k and v are one matrix (attn_qkv) */
static int fused_qkv(const struct clip *c)
{
	char a[48];
	for (int64_t il = 0; il < c->L; il++) {
		snprintf(a, sizeof(a), "v.blk.%d.attn_qkv.weight", (int)il);
		if (!has(c, a))
			return 0;
	}
	return 1;
}

/* cogvlm: the image size; fused qkv blocks, the class embedding, the
 * projector's tensors */
static const char *cogvlm_init(struct clip *c)
{
	static const char *const need[] = {
	    "v.class_embd", "v.position_embd.weight", "mm.model.fc.weight", "mm.post_fc_norm.weight",
	    "mm.up.weight", "mm.gate.weight",	      "mm.down.weight",	    "v.boi",
	    "v.eoi"};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!has(c, need[i]))
			return "a cogvlm tensor missing";
	return fused_qkv(c) ? NULL : "a block without fused qkv";
}

/* block IL is one of clip.vision.wa_layer_indexes (full attention) */
static int wa_full(const struct clip *c, int64_t il)
{
	const struct gguf_kv *kv = gguf_find(c->gg, "clip.vision.wa_layer_indexes");
	uint64_t v;
	for (uint64_t i = 0; kv && kv->type == GGUF_ARRAY && i < kv->arr_n; i++)
		if (!gguf_arr_u64(kv, i, &v) && (int64_t)v == il)
			return 1;
	return 0;
}

/* a window reorder (or its restore) over x [W, R] rows of 4 patches
 * (or merged rows): rows by an index input, the result's reshape */
static int window_rows(const struct clip *c, int x, int64_t W, int64_t R)
{
	struct ga_graph *g = c->g;
	int idx = ga_input(g, (uint64_t)R * 4);
	return ga_view(g, gr_op_kind(g, ga_op(g, 0, F32, W, R, 1, 1, S(ga_view(g, x), idx)), GA_OP_GET_ROWS));
}

/* clip_graph_youtuvl (models/youtuvl.cpp): the image cut into 2 x 2
 * merge units of patches by four conts, the patch matrix (+ bias); M-RoPE
 * blocks, windowed but for wa_layer_indexes (the rows reordered by
 * window before the blocks, restored after); the post norm, the RMS
 * input norm, the merged rows through mm.0, GELU, mm.2 */
static int build_youtuvl(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, p = c->patch, h = c->px / 2, m3 = 2 * p * 3;
	int x = ga_input(g, (uint64_t)c->img * c->img * 3 * 4);
	x = ga_op(g, 0, F32, m3, h, 2 * p, h, S(ga_view(g, ga_view(g, x))));
	x = ga_op(g, 0, F32, m3, p, 2, h * h, S(ga_view(g, x)));
	x = ga_op(g, 0, F32, p, 3, p, T, S(ga_view(g, x)));
	x = ga_op(g, 0, F32, 3 * p * p, T, 1, 1, S(ga_view(g, x)));
	x = mm(c, x, c->E, T);
	if (has(c, "v.patch_embd.bias"))
		x = with_w(c, x, c->E, T);
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	const struct gguf_kv *wl = gguf_find(c->gg, "clip.vision.wa_layer_indexes");
	int wa = wl && wl->type == GGUF_ARRAY && wl->arr_n > 0;
	struct clip_mask mk = {-1, -1, 0};
	if (wa) {
		x = window_rows(c, x, 4 * c->E, T / 4);
		mk.T = T;
	}
	int pos = -1;
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {&pos, NULL, !wa || wa_full(c, il) ? NULL : &mk, NULL, NULL};
		x = vit_block(c, x, il, T, &o);
	}
	if (wa)
		x = window_rows(c, x, 4 * c->E, T / 4);
	x = tower_norm(c, x, "post_ln", T);
	x = norm(c, x, c->E, T, 1, 1, 0);
	return merge_ffn(c, x, "mm.0.weight", "mm.2.weight");
}

/* youtuvl: 16 x 16 merged tokens at warmup (set_warmup_n_tokens), merged
 * 2 x 2 (the graph's merge units are 2 whatever spatial_merge_size says:
 * other merges are not mirrored); layer norms */
static const char *youtuvl_init(struct clip *c)
{
	const struct gguf_tensor *pe = gguf_tensor_find(c->gg, "v.patch_embd.weight");
	if (warm_merged(c, 16, 0))
		return "a spatial merge other than 2";
	if (!pe || pe->n_dims != 2 || has(c, "v.class_embd"))
		return "a patch embedding not a matrix, or a class embedding";
	return has(c, "mm.input_norm.weight") && has(c, "mm.0.weight") && has(c, "mm.2.weight")
		   ? NULL
		   : "no mm.input_norm, mm.0 or mm.2";
}

/* M-RoPE over x [d, heads, T] by the positions' slot (made where first
 * reached) */
static int rope_m(const struct clip *c, int x, int *pos, int64_t d, int64_t heads)
{
	int64_t T = c->np;
	if (*pos < 0)
		*pos = ga_input(c->g, (uint64_t)T * 4 * 4);
	return gr_op_kind(c->g, ga_op(c->g, 1, F32, d, heads, T, 1, S(x, *pos)), GA_OP_ROPE);
}

/* One of exaone4_5's or mimovl's blocks: the RMS ln1, the fused qkv (+
 * bias) of H query and head_count_kv key/value heads of the qkv's own
 * head size, M-RoPE by the positions' slot POS, the attention (the window
 * mask MK, when given; mimovl's sinks size nothing), attn_out (+ bias),
 * the residual; ln2, the FFN, the residual */
static int gqa_block(const struct clip *c, int x, int64_t il, int *pos, struct clip_mask *mk)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, hkv = u64_or(c->gg, "clip.vision.attention.head_count_kv", c->H);
	char pre[32], a[64];
	snprintf(pre, sizeof(pre), "v.blk.%d.", (int)il);
	int64_t wq = rows_of(c, named(a, sizeof(a), pre, "attn_qkv.weight")), hd = wq / (c->H + 2 * hkv);
	int cur = norm(c, x, c->E, T, 1, 1, has(c, named(a, sizeof(a), pre, "ln1.bias")));
	int qkv = mm_b(c, cur, wq, T, has(c, named(a, sizeof(a), pre, "attn_qkv.bias")));
	uint64_t row = (uint64_t)(T - 1) * wq * 4;
	int q = rope_m(c, ga_view_n(g, qkv, (uint64_t)hd * c->H * 4 + row), pos, hd, c->H);
	int k = rope_m(c, ga_view_n(g, qkv, (uint64_t)hd * hkv * 4 + row), pos, hd, hkv);
	int v = ga_view_n(g, qkv, (uint64_t)hd * hkv * 4 + row);
	struct heads h = {hd, c->H, T, T, hkv};
	cur = attn_heads(c, q, k, v, mk, h);
	cur = mm_b(c, cur, c->E, T, has(c, named(a, sizeof(a), pre, "attn_out.bias")));
	cur = ga_op(g, 1, F32, c->E, T, 1, 1, S(cur, x));
	x = cur;
	cur = norm(c, cur, c->E, T, 1, 1, has(c, named(a, sizeof(a), pre, "ln2.bias")));
	snprintf(pre, sizeof(pre), "v.blk.%d.ffn_", (int)il);
	return ga_op(g, 1, F32, c->E, T, 1, 1, S(x, ffn_at(c, cur, T, pre)));
}

/* clip_graph_exaone4_5 (models/exaone4_5.cpp): qwen-vl's two patch
 * embeddings and 2 x 2 merge, the rows reordered by window
 * (n_wa_pattern), exaone's GQA blocks (every n_wa_pattern-th full), the
 * RMS post norm, the merger (mm.0, GELU, mm.2), the rows restored */
static int build_exaone(const struct clip *c)
{
	int64_t T = c->np, wa = u64_or(c->gg, "clip.vision.n_wa_pattern", 0);
	int x = qwen_inp(c);
	struct clip_mask mk = {-1, -1, 0};
	if (wa > 0) {
		x = window_rows(c, x, 4 * c->E, T / 4);
		mk.T = T;
	}
	int pos = -1;
	for (int64_t il = 0; il < c->L; il++)
		x = gqa_block(c, x, il, &pos, wa > 0 && (il + 1) % wa ? &mk : NULL);
	x = merge_ffn(c, tower_norm(c, x, "post_ln", T), "mm.0.weight", "mm.2.weight");
	return wa > 0 ? window_rows(c, x, rows_of(c, "mm.2.weight"), T / 4) : x;
}

/* exaone4_5: 46 x 46 merged tokens at warmup, merged 2 x 2; RMS norms;
 * fused qkv with head_count_kv key and value heads */
static const char *exaone_init(struct clip *c)
{
	int64_t hkv = u64_or(c->gg, "clip.vision.attention.head_count_kv", 0);
	if (warm_merged(c, 46, 1))
		return "a spatial merge other than 2";
	if (!hkv || c->H % hkv)
		return "key/value heads not dividing the heads";
	if (!has(c, "v.patch_embd.weight.1") || has(c, "v.patch_embd.bias"))
		return "no second patch embedding, or a patch bias";
	if (!fused_qkv(c))
		return "a block without fused qkv";
	return has(c, "mm.0.weight") && has(c, "mm.2.weight") ? NULL : "no mm.0 or mm.2";
}

/* gemma4v's build_mm (Gemma4ClippableLinear: every weight has its clamp
 * bounds): x [in, T] clamped in place, the matmul to OUT, clamped in
 * place; then the bias NAME when the tower has it */
static int cmm(const struct clip *c, int x, int64_t in, int64_t out, int64_t T, const char *bias)
{
	struct ga_graph *g = c->g;
	x = mm(c, ga_op(g, 1, F32, in, T, 1, 1, S(x)), out, T);
	x = ga_op(g, 1, F32, out, T, 1, 1, S(x));
	return bias && has(c, bias) ? with_w(c, x, out, T) : x;
}

/* gemma4v's q or k: clamped projection, its reshape, the per-head RMS
 * norm and weight, 2D RoPE (neox halves) */
static int g4_qk(const struct clip *c, int x, const char *pre, const char *which, int *pos2)
{
	char a[64];
	int64_t T = c->np;
	snprintf(a, sizeof(a), "%s%s.bias", pre, which);
	int q = ga_view(c->g, cmm(c, x, c->E, c->E, T, a));
	q = norm(c, q, c->D * c->H, T, 1, 1, 0);
	return rope2d(c, q, pos2, T);
}

/* One of gemma4v's blocks (build_vit with its norms): the RMS ln1, q and
 * k (g4_qk), v's clamped projection and RMS norm, the attention, attn_out
 * clamped, the RMS post-attention norm, the residual; ln2, the clamped
 * gated FFN, the RMS post-FFN norm, the residual */
static int g4_block(const struct clip *c, int x, int64_t il, int *pos2)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, F = c->F;
	char pre[32], a[64], b[64];
	snprintf(pre, sizeof(pre), "v.blk.%d.", (int)il);
	int cur = norm(c, x, c->E, T, 1, 1, has(c, named(a, sizeof(a), pre, "ln1.bias")));
	int q = g4_qk(c, cur, pre, "attn_q", pos2), k = g4_qk(c, cur, pre, "attn_k", pos2);
	int v = ga_view(g, cmm(c, cur, c->E, c->E, T, named(a, sizeof(a), pre, "attn_v.bias")));
	v = ga_op(g, 1, F32, c->D * c->H, T, 1, 1, S(v));
	struct heads h = {c->D, c->H, T, T, 0};
	cur = cmm(c, attn_heads(c, q, k, v, NULL, h), c->E, c->E, T, named(a, sizeof(a), pre, "attn_out.bias"));
	cur = ga_op(g, 1, F32, c->E, T, 1, 1, S(norm(c, cur, c->E, T, 1, 1, 0), x));
	x = cur;
	cur = norm(c, cur, c->E, T, 1, 1, has(c, named(a, sizeof(a), pre, "ln2.bias")));
	int gate = cmm(c, cur, c->E, F, T, named(a, sizeof(a), pre, "ffn_gate.bias"));
	int up = cmm(c, cur, c->E, F, T, named(b, sizeof(b), pre, "ffn_up.bias"));
	cur = cmm(c, ga_op(g, 0, F32, F, T, 1, 1, S(gate, up)), F, c->E, T, named(a, sizeof(a), pre, "ffn_down.bias"));
	return ga_op(g, 1, F32, c->E, T, 1, 1, S(x, norm(c, cur, c->E, T, 1, 1, 0)));
}

/* gemma4's x and y position tables (views of one) : each one's rows by
 * its positions input (made here, kept in POS2) added to x [E, np] */
static int xy_rows(const struct clip *c, int x, int pos2[2])
{
	struct ga_graph *g = c->g;
	int64_t T = c->np;
	for (int i = 0; i < 2; i++) {
		pos2[i] = ga_input(g, (uint64_t)T * 4);
		int e = gr_op_kind(g, ga_op(g, 0, F32, c->E, T, 1, 1, S(ga_view(g, w(c)), pos2[i])), GA_OP_GET_ROWS);
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, e));
	}
	return x;
}

/* clip_graph_gemma4v (models/gemma4v.cpp): the image scaled (in place:
 * the input is the allocator's own),
 * its conv2d and transposed cont (no bias), the x and y position tables'
 * rows added, gemma4v's blocks; the transposed cont, the n_merge average
 * pool, its transposed cont, the scale in place (std_bias and std_scale
 * where the tower has them), the RMS norm in place, the clamped input
 * projection */
static int build_gemma4v(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, s = c->merge, n = c->px / s;
	int raw = ga_input(g, (uint64_t)c->img * c->img * 3 * 4);
	struct ga_tensor *rt = &g->t[raw]; /* an f32 image: the scale takes it over in place */
	rt->type = F32;
	rt->ne[0] = rt->ne[1] = c->img;
	rt->ne[2] = 3;
	rt->ne[3] = 1;
	int x = conv2d(c, ga_op(g, 1, F32, c->img, c->img, 3, 1, S(raw)));
	x = ga_op(g, 0, F32, c->E, T, 1, 1, S(ga_view(g, ga_view(g, x))));
	int pos2[2];
	x = xy_rows(c, x, pos2);
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	for (int64_t il = 0; il < c->L; il++)
		x = g4_block(c, x, il, pos2);
	x = tower_norm(c, x, "post_ln", T);
	x = ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, x)));
	x = ga_op(g, 0, F32, n, n, c->E, 1, S(x));
	x = ga_op(g, 0, F32, c->E, n * n, 1, 1, S(ga_view(g, ga_view(g, x))));
	x = ga_op(g, 1, F32, c->E, n * n, 1, 1, S(x));
	if (has(c, "v.std_bias") && has(c, "v.std_scale"))
		x = with_w(c, with_w(c, x, c->E, n * n), c->E, n * n);
	x = ga_op(g, 1, F32, c->E, n * n, 1, 1, S(x));
	return cmm(c, x, c->E, rows_of(c, "mm.input_projection.weight"), n * n, NULL);
}

/* gemma4v: 16 x 16 pooled tokens at warmup (set_warmup_n_tokens), pooled
 * n_merge (3 unless scale_factor says) a side; RMS norms; per-head q and
 * k norms, post norms, separate q, k, v */
static const char *gemma4v_init(struct clip *c)
{
	c->merge = u64_or(c->gg, "clip.vision.projector.scale_factor", 3);
	c->px = 16 * c->merge;
	c->img = c->px * c->patch;
	c->np = c->px * c->px;
	c->rms = 1;
	c->own_blocks = 1;
	if (!c->merge || has(c, "v.patch_embd.bias") || !has(c, "v.position_embd.weight"))
		return "no pooling, a patch bias or no position tables";
	if (!has(c, "mm.input_projection.weight") || has(c, "v.blk.0.attn_qkv.weight"))
		return "no input projection, or fused qkv";
	static const char *const need[] = {"attn_q_norm.weight", "attn_k_norm.weight", "attn_post_norm.weight",
					   "ffn_post_norm.weight", "ffn_gate.weight"};
	for (int64_t il = 0; il < c->L; il++)
		for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
			char a[64];
			snprintf(a, sizeof(a), "v.blk.%d.%s", (int)il, need[i]);
			if (!has(c, a))
				return "a block without gemma4's norms or gate";
		}
	const struct gguf_tensor *qn = gguf_tensor_find(c->gg, "v.blk.0.attn_q_norm.weight");
	return (int64_t)qn->ne[0] == c->D ? NULL : "q and k norms not per head";
}

/* clip_graph_gemma4uv (models/gemma4uv.cpp): no blocks: the image's
 * im2col (f32) by an unfilled kernel (a leaf the compute buffer holds),
 * patch_norm.1, the patch matrix and bias, patch_norm.2, the x and y
 * position tables' rows, patch_norm.3, the RMS norm in place, the input
 * projection */
static int build_gemma4uv(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, k = c->patch * c->patch * 3;
	int kern = ga_input(g, (uint64_t)k * 4);
	g->t[kern].input = 0;
	int raw = ga_input(g, (uint64_t)c->img * c->img * 3 * 4);
	int x = ga_op(g, 0, F32, k, c->px, c->px, 1, S(kern, raw));
	x = norm(c, ga_view(g, x), k, T, 0, has(c, "v.patch_norm.1.weight"), has(c, "v.patch_norm.1.bias"));
	x = with_w(c, mm(c, x, c->E, T), c->E, T);
	x = norm(c, x, c->E, T, 0, 1, 1);
	int pos2[2];
	x = norm(c, xy_rows(c, x, pos2), c->E, T, 0, 1, 1);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x));
	return mm(c, x, rows_of(c, "mm.input_projection.weight"), T);
}

/* gemma4uv: the patch n_merge (3 unless scale_factor says) times the
 * tower's, no merge; 16 x 16 patches at warmup */
static const char *gemma4uv_init(struct clip *c)
{
	int64_t m = u64_or(c->gg, "clip.vision.projector.scale_factor", 3);
	c->patch *= m;
	c->merge = 1;
	c->px = 16;
	c->img = c->px * c->patch;
	c->np = c->px * c->px;
	c->own_blocks = 1; /* the graph reads no block */
	static const char *const need[] = {"v.patch_norm.1.weight",  "v.patch_norm.2.weight",
					   "v.patch_norm.3.weight",  "v.patch_embd.bias",
					   "v.position_embd.weight", "mm.input_projection.weight"};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!has(c, need[i]))
			return "a gemma4uv tensor missing";
	const struct gguf_tensor *pe = gguf_tensor_find(c->gg, "v.patch_embd.weight");
	return m > 0 && pe->n_dims == 2 && (int64_t)pe->ne[0] == c->patch * c->patch * 3
		   ? NULL
		   : "a patch matrix not the merged patch's";
}

/* block IL's clip.vision.wa_pattern_mode: -1 full, 0 row windows, 1
 * column windows */
static int wa_mode(const struct clip *c, int64_t il)
{
	double v = -1;
	gguf_arr_f64(gguf_find(c->gg, "clip.vision.wa_pattern_mode"), (uint64_t)il, &v);
	return (int)v;
}

/* mimovl's state across its blocks: the positions of the row and column
 * orders, the column order's index (and its cast and argsort, made where
 * first reached), the window mask */
struct mimo {
	int pos_row, pos_col, idx_f, idx, inv;
	struct clip_mask mk;
};

/* mimovl's reorder of x by merge units: the rows of [4 E, np / 4] by the
 * column order (TO_COL) or back, its reshape */
static int mimo_reorder(const struct clip *c, struct mimo *m, int x, int to_col)
{
	struct ga_graph *g = c->g;
	int64_t n = c->np / 4;
	if (m->idx_f < 0)
		m->idx_f = ga_input(g, (uint64_t)n * 4);
	int *slot = to_col ? &m->idx : &m->inv;
	if (*slot < 0)
		*slot = ga_op(g, 0, F32, n, 1, 1, 1, S(m->idx_f));
	return ga_view(g, gr_op_kind(g, ga_op(g, 0, F32, 4 * c->E, n, 1, 1, S(ga_view(g, x), *slot)), GA_OP_GET_ROWS));
}

/* clip_graph_mimovl (models/mimovl.cpp): qwen-vl's two patch embeddings
 * and 2 x 2 merge; mimovl's blocks, the rows reordered into column order
 * on entering a run of column-window blocks and back on leaving it; the
 * layer-normed post norm, the merged rows through mm.0, GELU, mm.2 (no
 * biases) */
static int build_mimovl(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, n = c->np / 4;
	struct mimo m = {-1, -1, -1, -1, -1, {-1, -1, T}};
	int x = qwen_inp(c), prev = -1;
	for (int64_t il = 0; il < c->L; il++) {
		int mode = wa_mode(c, il);
		if ((mode == 1) != (prev == 1))
			x = mimo_reorder(c, &m, x, mode == 1);
		x = gqa_block(c, x, il, mode == 1 ? &m.pos_col : &m.pos_row, mode == -1 ? NULL : &m.mk);
		prev = mode;
	}
	if (prev == 1)
		x = mimo_reorder(c, &m, x, 0);
	x = norm(c, x, c->E, T, 0, 1, has(c, "v.post_ln.bias"));
	int64_t n0 = rows_of(c, "mm.0.weight");
	x = ga_op(g, 1, F32, n0, n, 1, 1, S(mm(c, ga_view(g, x), n0, n)));
	return mm(c, x, rows_of(c, "mm.2.weight"), n);
}

/* mimovl: 46 x 46 merged tokens at warmup, merged 2 x 2; a mode per block;
 * fused qkv of head_count_kv key and value heads; attention sinks */
static const char *mimovl_init(struct clip *c)
{
	const struct gguf_kv *wm = gguf_find(c->gg, "clip.vision.wa_pattern_mode");
	int64_t hkv = u64_or(c->gg, "clip.vision.attention.head_count_kv", 0);
	if (warm_merged(c, 46, 1))
		return "a spatial merge other than 2";
	c->own_blocks = 1; /* the sinks are replayed (they size nothing) */
	if (!wm || wm->type != GGUF_ARRAY || (int64_t)wm->arr_n != c->L)
		return "no window mode per block";
	if (!hkv || c->H % hkv || !has(c, "v.patch_embd.weight.1") || !fused_qkv(c))
		return "key/value heads, a second patch embedding or fused qkv missing";
	return has(c, "mm.0.weight") && has(c, "mm.2.weight") && has(c, "v.post_ln.weight")
		   ? NULL
		   : "no mm.0, mm.2 or post norm";
}

/* clip_graph_minimax_m3 (models/minimax-m3.cpp): qwen-vl's two patch
 * embeddings and 2 x 2 merge, build_vit turned by 2D RoPE; per patch
 * mm.1, GELU, mm.2 (each with its bias), then the merged rows through
 * mm.merger.fc1, GELU, mm.merger.fc2 */
static int build_minimax(const struct clip *c)
{
	int pos2[2] = {-1, -1};
	struct vit_opts o = {NULL, pos2, NULL, NULL, NULL};
	int x = vit_run(c, ga_view(c->g, qwen_inp(c)), c->np, &o);
	x = pixtral_ffn(c, x, c->np);
	return merge_ffn(c, x, "mm.merger.fc1.weight", "mm.merger.fc2.weight");
}

/* minimax_m3: 16 x 16 merged tokens at warmup, merged 2 x 2; layer norms;
 * the merger's rows 4 of the per-patch projector's */
static const char *minimax_init(struct clip *c)
{
	if (warm_merged(c, 16, 0))
		return "a spatial merge other than 2";
	if (!has(c, "v.patch_embd.weight.1") || has(c, "v.patch_embd.bias") || has(c, "v.class_embd"))
		return "no second patch embedding, or a patch bias or class embedding";
	const struct gguf_tensor *f1 = gguf_tensor_find(c->gg, "mm.merger.fc1.weight");
	if (!f1 || !has(c, "mm.merger.fc2.weight") || !has(c, "mm.1.bias") || !has(c, "mm.2.bias"))
		return "no per-patch projector or merger";
	return (int64_t)f1->ne[0] == 4 * rows_of(c, "mm.2.weight") ? NULL : "a merger not over 2 x 2 rows";
}

/* dots3note_v: dots_ocr's graph (clip_graph_dotsocr) merged
 * spatial_merge_size (2) a side, 46 x 46 merged tokens at warmup; its
 * pyramid MoE blocks are not mirrored (blocks_unmirrored says so) */
static const char *dots3note_init(struct clip *c)
{
	if (warm_merged(c, 46, 1))
		return "a spatial merge other than 2";
	if (!has(c, "mm.post_norm.weight") || has(c, "v.post_ln.weight") || has(c, "v.pre_ln.weight"))
		return "a post norm other than mm.post_norm";
	return has(c, "mm.0.weight") && has(c, "mm.2.weight") ? NULL : "no mm.0 or mm.2";
}

const struct clip_type clip_types2[] = {
    {"glm4v", build_glm4v, glm4v_init},
    {"resampler", build_minicpmv, minicpmv_init},
    {"step3vl", build_step3vl, step3vl_init},
    {"kimik25", build_kimi_paddle, kimik25_init},
    {"hunyuanvl", build_hunyuanvl, hunyuanvl_init},
    {"cogvlm", build_cogvlm, cogvlm_init},
    {"youtuvl", build_youtuvl, youtuvl_init},
    {"exaone4_5", build_exaone, exaone_init},
    {"gemma4v", build_gemma4v, gemma4v_init},
    {"gemma4uv", build_gemma4uv, gemma4uv_init},
    {"mimovl", build_mimovl, mimovl_init},
    {"minimax_m3", build_minimax, minimax_init},
    {"dots3note_v", build_dotsocr, dots3note_init},
};
const size_t clip_types2_n = sizeof(clip_types2) / sizeof(clip_types2[0]);
