/* graph_clip_audio2: the second round of audio projectors' encoder graphs,
 * rebuilt node for node from the pinned engine's tools/mtmd
 * (models/parakeet.cpp, models/gemma4a.cpp) for the allocator replay, in the order ggml's
 * left-to-right walk from the output visits them.
 *
 * The engine warms an audio tower up with warmup_audio_size (3000) mel
 * frames (clip_model_loader::get_dummy_batch); parakeet subsamples them 8
 * to 1 (375 positions, under its 8192 threshold for local attention: the
 * attention is full, and never flash attention); gemma4a 4 to 1 (750
 * positions, attended in 12-row chunks with 12 rows of past).
 */
#include <string.h>

#include "../../payload/gguf.h"
#include "galloc.h"
#include "graph.h"
#include "graph_clip_int.h"

/* clip_model::warmup_audio_size: the warmup's mel frames */
#define AUDIO_FRAMES 3000

/* ggml_conv_2d (k x k, stride s, padding k / 2) of x [w, h, ic, 1] by a
 * [k, k, ic, oc] kernel: im2col (f16), the matmul, the permuted cont */
static int conv2d_k(const struct clip *c, int x, int64_t *pw, int64_t *ph, int64_t ic, int64_t oc, int64_t k, int s)
{
	struct ga_graph *g = c->g;
	*pw = (*pw + 2 * (k / 2) - k) / s + 1;
	*ph = (*ph + 2 * (k / 2) - k) / s + 1;
	int col = ga_op(g, 0, F16, k * k * ic, *pw, *ph, 1, S(w(c), x));
	int r =
	    gr_op_kind(g, ga_op(g, 0, F32, *pw * *ph, oc, 1, 1, S(ga_view(g, col), ga_view(g, w(c)))), GA_OP_MUL_MAT);
	return ga_op(g, 0, F32, *pw, *ph, oc, 1, S(ga_view(g, ga_view(g, r))));
}

/* the same, its bias added and ReLU (both may reuse it) */
static int conv2d_relu(const struct clip *c, int x, int64_t *pw, int64_t *ph, int64_t ic, int64_t oc, int64_t k, int s)
{
	int r = conv2d_k(c, x, pw, ph, ic, oc, k, s);
	r = ga_op(c->g, 1, F32, *pw, *ph, oc, 1, S(r, w(c)));
	return ga_op(c->g, 1, F32, *pw, *ph, oc, 1, S(r));
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

/* gemma4a's build_mm: the input clamped, the matmul, its output clamped
 * (every weight has its clamp range, FLT_MAX when the tower gives none) */
static int cmm(const struct clip *c, int x, int64_t ne0, int64_t ne1, int64_t in)
{
	x = ga_op(c->g, 1, F32, in, ne1, 1, 1, S(x));
	return ga_op(c->g, 1, F32, ne0, ne1, 1, 1, S(mm(c, x, ne0, ne1)));
}

/* an RMS norm (in place when it may) times its weight */
static int rms_w(const struct clip *c, int x, int64_t T)
{
	return norm(c, x, c->E, T, 1, 1, 0);
}

/* a half-step FFN: the norm, up, SiLU, down (clamped matmuls), the post
 * norm, scaled by a half, added to r */
static int g4a_ffn(const struct clip *c, int r, int64_t T)
{
	struct ga_graph *g = c->g;
	int x = cmm(c, rms_w(c, r, T), c->F, T, c->E);
	x = ga_op(g, 1, F32, c->F, T, 1, 1, S(x));
	x = rms_w(c, cmm(c, x, c->E, T, c->F), T);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x));
	return ga_op(g, 1, F32, c->E, T, 1, 1, S(r, x));
}

/* K's or V's blocks: padded to S * B, rolled, the cont, the overlapping
 * windows' cont */
static int g4a_blocks(const struct clip *c, int t, int64_t S_, int64_t B)
{
	struct ga_graph *g = c->g;
	t = ga_op(g, 0, F32, c->D, c->H, S_ * B, 1, S(t));
	t = ga_op(g, 0, F32, c->D, c->H, S_ * B, 1, S(t));
	t = ga_op(g, 0, F32, c->D, c->H, S_ * B, 1, S(t));
	return ga_op(g, 0, F32, c->D, c->H, S_, B, S(ga_view(g, t)));
}

/* the q, k or v matmul of cur, scaled (and per dimension: q and k) */
static int g4a_qkv(const struct clip *c, int cur, int64_t T, int scaled)
{
	int x = cmm(c, cur, c->E, T, c->E);
	if (scaled) {
		x = ga_op(c->g, 1, F32, c->D, c->H, T, 1, S(ga_view(c->g, x)));
		x = ga_op(c->g, 1, F32, c->D, c->H, T, 1, S(x, w(c)));
	}
	return ga_view(c->g, x);
}

/* The chunked local attention (12-row chunks, 12 rows of past) in the
 * order ggml's walk reaches it: V's blocks, K's, Q's, the content
 * scores, the positions' scores (pos_emb projected, shifted by a pad and
 * a cont), softcapped, masked, softmaxed, times V; o; the post norm */
static int g4a_attn(const struct clip *c, int cur, int *in, int64_t T)
{
	struct ga_graph *g = c->g;
	const int64_t C = 12, P = 12, S_ = C + P, R = P + 1, B = (T + C - 1) / C, D = c->D, H = c->H;
	int v = g4a_blocks(c, g4a_qkv(c, cur, T, 0), S_, B);
	v = ga_op(g, 0, F32, S_, D, B, H, S(ga_view(g, v)));
	int k = g4a_blocks(c, g4a_qkv(c, cur, T, 1), S_, B);
	k = ga_op(g, 0, F32, D, S_, B, H, S(ga_view(g, k)));
	int q = ga_op(g, 0, F32, D, H, B * C, 1, S(g4a_qkv(c, cur, T, 1)));
	q = ga_op(g, 0, F32, D, C, B, H, S(ga_view(g, ga_view(g, q))));
	int ac = gr_op_kind(g, ga_op(g, 0, F32, S_, C, B, H, S(k, q)), GA_OP_MUL_MAT);
	if (in[0] < 0)
		in[0] = ga_input(g, (uint64_t)c->E * R * 4);
	int p = gr_op_kind(g, ga_op(g, 0, F32, c->E, R, 1, 1, S(w(c), in[0])), GA_OP_MUL_MAT);
	p = ga_op(g, 0, F32, D, R, H, 1, S(ga_view(g, ga_view(g, p))));
	int bd = gr_op_kind(g, ga_op(g, 0, F32, R, C * B, H, 1, S(p, ga_view(g, q))), GA_OP_MUL_MAT);
	bd = ga_op(g, 0, F32, S_ + 1, C, B, H, S(ga_view(g, bd)));
	bd = ga_op(g, 0, F32, C * S_, B, H, 1, S(ga_view(g, ga_view(g, bd))));
	int sc = ga_op(g, 1, F32, S_, C, B, H, S(ac, ga_view(g, bd)));
	for (int i = 0; i < 3; i++)
		sc = ga_op(g, 1, F32, S_, C, B, H, S(sc));
	if (in[1] < 0)
		in[1] = ga_input(g, (uint64_t)S_ * C * B * 4);
	sc = ga_op(g, 1, F32, S_, C, B, H, S(sc, in[1]));
	sc = ga_op(g, 1, F32, S_, C, B, H, S(sc));
	int x = gr_op_kind(g, ga_op(g, 0, F32, D, C, B, H, S(v, sc)), GA_OP_MUL_MAT);
	x = ga_op(g, 0, F32, D, H, C, B, S(ga_view(g, x)));
	x = ga_op(g, 0, F32, c->E, C * B, 1, 1, S(x));
	if (C * B > T)
		x = ga_op(g, 0, F32, c->E, T, 1, 1, S(ga_view(g, x)));
	return rms_w(c, cmm(c, x, c->E, T, c->E), T);
}

/* the convolution module: the norm, pw1, the GLU (its gate's cont and
 * sigmoid), the transposed cont padded and rolled, ssm_conv (5 taps),
 * the RMS norm, SiLU, pw2 */
static int g4a_conv(const struct clip *c, int r, int64_t T)
{
	struct ga_graph *g = c->g;
	int64_t E = c->E;
	int x = cmm(c, rms_w(c, r, T), 2 * E, T, E);
	int a = ga_view(g, x);
	int gate = ga_op(g, 0, F32, E, T, 1, 1, S(ga_view(g, x)));
	gate = ga_op(g, 1, F32, E, T, 1, 1, S(gate));
	x = ga_op(g, 1, F32, E, T, 1, 1, S(a, gate));
	x = ga_op(g, 0, F32, T, E, 1, 1, S(ga_view(g, x)));
	x = ga_op(g, 0, F32, T + 4, E, 1, 1, S(x));
	x = ga_op(g, 0, F32, T + 4, E, 1, 1, S(x));
	x = ga_op(g, 0, F32, E, T, 1, 1, S(x, w(c)));
	x = rms_w(c, x, T);
	x = ga_op(g, 1, F32, E, T, 1, 1, S(x));
	return cmm(c, x, E, T, E);
}

/* clip_graph_gemma4a (models/gemma4a.cpp): the frames' transposed cont;
 * two 3 x 3 stride-2 convolutions by im2col, each with its channels'
 * norm (permuted conts around it) and ReLU (a tensor of its own: 64
 * wide, the cont's buffer reused planned 7.76 MiB, the engine 10.69); the permuted cont, the input
 * projection; each block: half an FFN, the attention, the convolution
 * module, half an FFN, the RMS norm; the output projection, the
 * embedder's RMS norm and projection (every matmul clamped) */
static int build_gemma4a(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int x = ga_input(g, (uint64_t)AUDIO_FRAMES * c->mel * 4);
	x = ga_op(g, 0, F32, c->mel, AUDIO_FRAMES, 1, 1, S(ga_view(g, x)));
	int64_t wd = c->mel, h = AUDIO_FRAMES, ch = (int64_t)gguf_tensor_find(c->gg, "a.conv1d.0.weight")->ne[3];
	for (int i = 0; i < 2; i++) {
		x = conv2d_k(c, x, &wd, &h, i ? ch : 1, ch, 3, 2);
		x = ga_op(g, 0, F32, ch, wd, h, 1, S(ga_view(g, x)));
		x = with_w(c, ga_op(g, 0, F32, ch, wd, h, 1, S(x)), ch, wd * h);
		x = ga_op(g, 0, F32, wd, h, ch, 1, S(ga_view(g, x)));
		x = ga_op(g, 0, F32, wd, h, ch, 1, S(x));
	}
	x = ga_op(g, 0, F32, ch, wd, h, 1, S(ga_view(g, x)));
	int64_t T = h;
	x = cmm(c, ga_view(g, x), c->E, T, ch * wd);
	int in[2] = {-1, -1};
	for (int64_t il = 0; il < c->L; il++) {
		x = g4a_ffn(c, x, T);
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, g4a_attn(c, rms_w(c, x, T), in, T)));
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, g4a_conv(c, x, T)));
		x = g4a_ffn(c, x, T);
		x = rms_w(c, x, T);
	}
	int64_t no = rows_of(c, "a.pre_encode.out.weight");
	x = rms_w(c, cmm(c, x, no, T, c->E), T);
	return cmm(c, x, rows_of(c, "mm.a.input_projection.weight"), T, no);
}

/* gemma4a: the two convolutions with their norms and no biases, every
 * block's optional tensors present (pre and post norms, per-dimension
 * scales, the positions' projection, the conv norm), no biases, the
 * output projection and the embedder's norm */
static const char *gemma4a_init(struct clip *c)
{
	if (c->mel % 4 || !c->L || !has(c, "a.conv1d.1.norm.weight") || has(c, "a.conv1d.0.bias"))
		return "mel bins not a multiple of 4, or no conv1d.1 norm, or convolution biases";
	static const char *const need[] = {"attn_pre_norm.weight", "attn_post_norm.weight",
					   "ffn_post_norm.weight", "ffn_post_norm_1.weight",
					   "per_dim_scale.weight", "per_dim_k_scale.weight",
					   "attn_k_rel.weight",	   "norm_conv.weight",
					   "conv_norm.weight",	   "ln2.weight"};
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!blk_has(c, 0, need[i]))
			return "a block without gemma4's optional norms, scales or positions' projection";
	if (blk_has(c, 0, "attn_q.bias") || blk_has(c, 0, "ffn_up.bias") || blk_has(c, 0, "conv_dw.bias") ||
	    has(c, "a.input_projection.bias") || has(c, "a.pre_encode.out.bias"))
		return "biases the builder does not add";
	if (!has(c, "a.pre_encode.out.weight") || !has(c, "mm.a.soft_emb_norm.weight") ||
	    !has(c, "mm.a.input_projection.weight"))
		return "no output projection or embedder";
	c->own_blocks = 1; /* the post norms are replayed */
	return NULL;
}

const struct clip_type clip_audio_types2[] = {
    {"parakeet", build_parakeet, parakeet_init},
    {"gemma4a", build_gemma4a, gemma4a_init},
};
const size_t clip_audio_types2_n = sizeof(clip_audio_types2) / sizeof(clip_audio_types2[0]);
