/* graph_clip_audio2: the second round of audio projectors' encoder graphs,
 * rebuilt node for node from the pinned engine's tools/mtmd
 * (models/parakeet.cpp) for the allocator replay, in the order ggml's
 * left-to-right walk from the output visits them.
 *
 * The engine warms an audio tower up with warmup_audio_size (3000) mel
 * frames (clip_model_loader::get_dummy_batch); parakeet subsamples them 8
 * to 1 (375 positions, under its 8192 threshold for local attention: the
 * attention is full, and never flash attention).
 */
#include <string.h>

#include "../../payload/gguf.h"
#include "galloc.h"
#include "graph.h"
#include "graph_clip_int.h"

/* clip_model::warmup_audio_size: the warmup's mel frames */
#define AUDIO_FRAMES 3000

/* ggml_conv_2d (k x k, stride s, padding k / 2) of x [w, h, ic, 1] by a
 * [k, k, ic, oc] kernel: im2col (f16), the matmul, the permuted cont; the
 * bias added, ReLU (both may reuse it) */
static int conv2d_relu(const struct clip *c, int x, int64_t *pw, int64_t *ph, int64_t ic, int64_t oc, int64_t k, int s)
{
	struct ga_graph *g = c->g;
	*pw = (*pw + 2 * (k / 2) - k) / s + 1;
	*ph = (*ph + 2 * (k / 2) - k) / s + 1;
	int col = ga_op(g, 0, F16, k * k * ic, *pw, *ph, 1, S(w(c), x));
	int r =
	    gr_op_kind(g, ga_op(g, 0, F32, *pw * *ph, oc, 1, 1, S(ga_view(g, col), ga_view(g, w(c)))), GA_OP_MUL_MAT);
	r = ga_op(g, 0, F32, *pw, *ph, oc, 1, S(ga_view(g, ga_view(g, r))));
	r = ga_op(g, 1, F32, *pw, *ph, oc, 1, S(r, w(c)));
	return ga_op(g, 1, F32, *pw, *ph, oc, 1, S(r));
}

/* ggml_conv_2d_dw_direct (3 x 3, stride 2) and its bias */
static int conv_dw(const struct clip *c, int x, int64_t *pw, int64_t *ph, int64_t ch)
{
	struct ga_graph *g = c->g;
	*pw = (*pw - 1) / 2 + 1;
	*ph = (*ph - 1) / 2 + 1;
	x = ga_op(g, 0, F32, *pw, *ph, ch, 1, S(w(c), x));
	return ga_op(g, 1, F32, *pw, *ph, ch, 1, S(x, w(c)));
}

/* a norm with its weight and bias, build_ffn (SiLU, no biases), scaled
 * by a half, added to the residual r */
static int pk_ffn(const struct clip *c, int r, int64_t T)
{
	struct ga_graph *g = c->g;
	int x = norm(c, r, c->E, T, 0, 1, 1);
	x = mm(c, x, c->F, T);
	x = ga_op(g, 1, F32, c->F, T, 1, 1, S(x));
	x = mm(c, x, c->E, T);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x));
	return ga_op(g, 1, F32, c->E, T, 1, 1, S(r, x));
}

/* The positions' embedding: pos_freqs repeated over the window, times
 * rel_positions, its sin and cos concatenated, the cont [E, W] */
static int pos_embd(const struct clip *c, int64_t W)
{
	struct ga_graph *g = c->g;
	int64_t dh = c->E / 2;
	int f = ga_input(g, (uint64_t)dh * 4);
	f = ga_op(g, 0, F32, dh, W, 1, 1, S(f));
	int th = ga_op(g, 1, F32, dh, W, 1, 1, S(f, ga_input(g, (uint64_t)W * 4)));
	int sn = ga_view(g, ga_op(g, 0, F32, dh, W, 1, 1, S(th)));
	int cs = ga_view(g, ga_op(g, 0, F32, dh, W, 1, 1, S(th)));
	int x = ga_op(g, 0, F32, 2, dh, W, 1, S(sn, cs));
	return ga_view(g, ga_op(g, 0, F32, 2, dh, W, 1, S(x)));
}

/* The full relative-position attention over cur (the normed rows): the
 * content scores of k and q + bias u, the positions' scores of the
 * positions' projection and q + bias v shifted (pad, roll, three conts),
 * scaled, masked, softmax, times v; *pe made where first reached */
static int pk_attn(const struct clip *c, int cur, int *pe, int *mask, int64_t T)
{
	struct ga_graph *g = c->g;
	int64_t D = c->D, H = c->H, W = 2 * T - 1;
	int k = ga_view(g, mm(c, cur, c->E, T));
	int q = ga_view(g, mm(c, cur, c->E, T));
	int qu = ga_view(g, ga_op(g, 1, F32, D, H, T, 1, S(q, w(c))));
	int sc = gr_op_kind(g, ga_op(g, 0, F32, T, T, H, 1, S(ga_view(g, k), qu)), GA_OP_MUL_MAT);
	if (*pe < 0)
		*pe = pos_embd(c, W);
	int p = ga_view(g, ga_view(g, mm(c, *pe, c->E, W)));
	p = ga_op(g, 0, F32, D, W, H, 1, S(p));
	int qv = ga_op(g, 1, F32, D, H, T, 1, S(q, w(c)));
	qv = ga_op(g, 0, F32, D, T, H, 1, S(ga_view(g, qv)));
	int rp = gr_op_kind(g, ga_op(g, 0, F32, W, T, H, 1, S(p, qv)), GA_OP_MUL_MAT);
	rp = ga_op(g, 0, F32, W + 1, T, H, 1, S(rp));
	rp = ga_op(g, 0, F32, W + 1, T, H, 1, S(rp));
	rp = ga_op(g, 0, F32, T, W + 1, H, 1, S(ga_view(g, rp)));
	rp = ga_op(g, 0, F32, T, W, H, 1, S(ga_view(g, rp)));
	rp = ga_op(g, 0, F32, T, T, H, 1, S(ga_view(g, rp)));
	sc = ga_op(g, 1, F32, T, T, H, 1, S(sc, rp));
	sc = ga_op(g, 1, F32, T, T, H, 1, S(sc));
	if (*mask < 0)
		*mask = ga_input(g, (uint64_t)T * T * 4);
	sc = ga_op(g, 1, F32, T, T, H, 1, S(sc, *mask));
	sc = ga_op(g, 1, F32, T, T, H, 1, S(sc));
	int v = mm(c, cur, c->E, T);
	v = ga_op(g, 0, F32, T, D, H, 1, S(ga_view(g, ga_view(g, v))));
	int x = gr_op_kind(g, ga_op(g, 0, F32, T, D, H, 1, S(sc, v)), GA_OP_MUL_MAT);
	x = ga_op(g, 0, F32, c->E, T, 1, 1, S(ga_view(g, x)));
	return mm(c, x, c->E, T);
}

/* The convolution module: pw1, the sigmoid of its second half times its
 * first, the transposed cont, padded, rolled, padded, ssm_conv, minus
 * the mean, over the variance's sqrt, the norm's scale and shift, SiLU,
 * pw2 */
static int pk_conv(const struct clip *c, int cur, int64_t T, int64_t K)
{
	struct ga_graph *g = c->g;
	int64_t E = c->E, p = (K - 1) / 2;
	int x = mm(c, cur, 2 * E, T);
	int a = ga_view(g, x);
	int gate = ga_op(g, 0, F32, E, T, 1, 1, S(ga_view(g, x)));
	x = ga_op(g, 0, F32, E, T, 1, 1, S(a, gate));
	x = ga_op(g, 0, F32, T, E, 1, 1, S(ga_view(g, x)));
	x = ga_op(g, 0, F32, T + p, E, 1, 1, S(x));
	x = ga_op(g, 0, F32, T + p, E, 1, 1, S(x));
	x = ga_op(g, 0, F32, T + 2 * p, E, 1, 1, S(x));
	x = ga_op(g, 0, F32, E, T, 1, 1, S(x, w(c)));
	x = with_w(c, x, E, T);
	x = ga_op(g, 1, F32, E, T, 1, 1, S(x, ga_op(g, 0, F32, E, 1, 1, 1, S(w(c)))));
	x = with_w(c, with_w(c, x, E, T), E, T);
	x = ga_op(g, 1, F32, E, T, 1, 1, S(x));
	return mm(c, x, E, T);
}

/* clip_graph_parakeet (models/parakeet.cpp): the frames' transposed cont,
 * the subsampling convolutions (3 x 3 stride 2 by im2col, ReLU; a
 * depthwise stride 2; 1 x 1 by im2col, ReLU; twice), the permuted cont,
 * its projection; each block: half an FFN, the attention, the
 * convolution module, half an FFN, a norm; an RMS norm, mlp.1, ReLU
 * squared, mlp.2 */
static int build_parakeet(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int x = ga_input(g, (uint64_t)AUDIO_FRAMES * c->mel * 4);
	x = ga_op(g, 0, F32, c->mel, AUDIO_FRAMES, 1, 1, S(ga_view(g, x)));
	int64_t wd = c->mel, h = AUDIO_FRAMES, ch = (int64_t)gguf_tensor_find(c->gg, "a.conv1d.0.weight")->ne[3];
	int64_t K = u64_or(c->gg, "clip.audio.conv_kernel_size", 0);
	x = conv2d_relu(c, x, &wd, &h, 1, ch, 3, 2);
	x = conv_dw(c, x, &wd, &h, ch);
	x = conv2d_relu(c, x, &wd, &h, ch, ch, 1, 1);
	x = conv_dw(c, x, &wd, &h, ch);
	x = conv2d_relu(c, x, &wd, &h, ch, ch, 1, 1);
	x = ga_op(g, 0, F32, wd, ch, h, 1, S(ga_view(g, x)));
	int64_t T = h;
	x = mm_b(c, ga_view(g, x), c->E, T, 1);
	int pe = -1, mask = -1;
	for (int64_t il = 0; il < c->L; il++) {
		x = pk_ffn(c, x, T);
		int a = pk_attn(c, norm(c, x, c->E, T, 0, 1, 1), &pe, &mask, T);
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, a));
		a = pk_conv(c, norm(c, x, c->E, T, 0, 1, 1), T, K);
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, a));
		x = pk_ffn(c, x, T);
		x = norm(c, x, c->E, T, 0, 1, 1);
	}
	x = with_w(c, norm(c, x, c->E, T, 1, 0, 0), c->E, T);
	int64_t n1 = rows_of(c, "mm.a.mlp.1.weight");
	x = mm(c, x, n1, T);
	x = ga_op(g, 1, F32, n1, T, 1, 1, S(x));
	x = ga_op(g, 1, F32, n1, T, 1, 1, S(x));
	return mm(c, x, rows_of(c, "mm.a.mlp.2.weight"), T);
}

/* parakeet: the subsampling convolutions 0, 2, 3, 5 and 6 (factor 8),
 * an odd kernel for the convolution module, the relative positions'
 * biases, the conv norm's mean, the head's norm, mlp.1 and mlp.2 without
 * biases */
static const char *parakeet_init(struct clip *c)
{
	if (c->mel % 8 || !c->L || !has(c, "a.conv1d.6.weight") || !has(c, "a.pre_encode.out.bias"))
		return "mel bins not a multiple of 8, or no conv1d.6 or pre_encode.out";
	if (u64_or(c->gg, "clip.audio.subsampling_factor", 0) != 8 ||
	    u64_or(c->gg, "clip.audio.conv_kernel_size", 0) % 2 == 0)
		return "a subsampling factor not 8, or an even convolution kernel";
	if (!blk_has(c, 0, "conv_norm_mean") || !blk_has(c, 0, "pos_bias_u") || c->E % 2)
		return "no conv norm mean or positions' biases, or an odd width";
	if (!has(c, "mm.a.norm_pre.weight") || !has(c, "mm.a.mlp.2.weight") || has(c, "mm.a.mlp.1.bias"))
		return "no head norm or mlp.2, or head biases";
	return NULL;
}

const struct clip_type clip_audio_types2[] = {
    {"parakeet", build_parakeet, parakeet_init},
};
const size_t clip_audio_types2_n = sizeof(clip_audio_types2) / sizeof(clip_audio_types2[0]);
