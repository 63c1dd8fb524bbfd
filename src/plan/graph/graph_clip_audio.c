/* graph_clip_audio: the audio projectors' encoder graphs, rebuilt node for
 * node from the pinned engine's tools/mtmd (models/whisper-enc.cpp over
 * clip.cpp's build_vit, build_stack, build_ffn) for the allocator replay.
 *
 * The engine warms an audio tower up with warmup_audio_size (3000) mel
 * frames of num_mel_bins (clip_model_loader::get_dummy_batch): two 1D
 * convolutions halve them to 1500 positions, the blocks run over those,
 * qwen2a, voxtral and musicflamingo pool them 2 to 1, and each type's
 * head stacks and projects them. qwen3a convolves them in 100-frame
 * chunks (13 positions each), dots3note_a unchunked; gemma4ua projects
 * 640-sample frames with no encoder; lfm2a (a conformer) subsamples them
 * 8 to 1.
 */
#include <string.h>

#include "../../payload/gguf.h"
#include "galloc.h"
#include "graph.h"
#include "graph_clip_int.h"

/* clip_model::warmup_audio_size: the warmup's mel frames */
#define AUDIO_FRAMES 3000

/* ggml_conv_1d_ph of x ([n, ic]) by a [3, ic, E] kernel with stride s:
 * im2col (f16), the matmul of its and the kernel's reshapes, the bias
 * added in place of the matmul (its reshape, same layout), GELU (erf) */
static int conv1d_gelu(const struct clip *c, int x, int64_t ic, int64_t n, int s)
{
	struct ga_graph *g = c->g;
	int64_t on = (n + 2 - 3) / s + 1;
	int col = ga_op(g, 0, F16, 3 * ic, on, 1, 1, S(w(c), x));
	int r = gr_op_kind(g, ga_op(g, 0, F32, on, c->E, 1, 1, S(ga_view(g, col), ga_view(g, w(c)))), GA_OP_MUL_MAT);
	r = ga_op(g, 1, F32, on, c->E, 1, 1, S(ga_view(g, r), w(c)));
	return ga_op(g, 1, F32, on, c->E, 1, 1, S(r));
}

/* the transposed copy of x ([a, b]) */
static int transposed(const struct clip *c, int x, int64_t a, int64_t b)
{
	return ga_op(c->g, 0, F32, b, a, 1, 1, S(ga_view(c->g, x)));
}

/* build_stack: the rows [E, T] regrouped sf at a time; padded (ggml_pad
 * of a 1D view, laid out as its 2D view) when sf does not divide T */
static int stack(const struct clip *c, int x, int64_t E, int64_t T, int64_t *rows)
{
	int64_t sf = c->stack;
	*rows = (T + sf - 1) / sf;
	if (T % sf)
		x = ga_op(c->g, 0, F32, E * sf, *rows, 1, 1, S(ga_view(c->g, x)));
	return ga_view(c->g, x);
}

/* build_ffn over x's T rows: A (+ bias), GELU (erf) in place, B (+ bias) */
static int head_ffn(const struct clip *c, int x, int64_t T, const char *a, const char *b, int bias)
{
	int64_t na = rows_of(c, a);
	x = mm_b(c, x, na, T, bias);
	x = ga_op(c->g, 1, F32, na, T, 1, 1, S(x));
	return mm_b(c, x, rows_of(c, b), T, bias);
}

/* ultravox: RMS norm, mlp.1, SwiGLU (swapped halves), RMS norm, mlp.2 */
static int ultravox_head(const struct clip *c, int x, int64_t W, int64_t T)
{
	struct ga_graph *g = c->g;
	x = with_w(c, norm(c, x, W, T, 1, 0, 0), W, T);
	int64_t n1 = rows_of(c, "mm.a.mlp.1.weight");
	x = ga_op(g, 0, F32, n1 / 2, T, 1, 1, S(mm(c, x, n1, T)));
	x = with_w(c, norm(c, x, n1 / 2, T, 1, 0, 0), n1 / 2, T);
	return mm(c, x, rows_of(c, "mm.a.mlp.2.weight"), T);
}

/* meralion: a layer norm, mlp.0 and SiLU, the product of SiLU(mlp.1) and
 * mlp.2, mlp.3 (each with its bias) */
static int meralion_head(const struct clip *c, int x, int64_t W, int64_t T)
{
	struct ga_graph *g = c->g;
	x = norm(c, x, W, T, 0, 1, 1);
	int64_t n0 = rows_of(c, "mm.a.mlp.0.weight"), n1 = rows_of(c, "mm.a.mlp.1.weight");
	x = ga_op(g, 1, F32, n0, T, 1, 1, S(mm_b(c, x, n0, T, 1)));
	int gate = ga_op(g, 1, F32, n1, T, 1, 1, S(mm_b(c, x, n1, T, 1)));
	int pool = mm_b(c, x, rows_of(c, "mm.a.mlp.2.weight"), T, 1);
	x = ga_op(g, 1, F32, n1, T, 1, 1, S(gate, pool));
	return mm_b(c, x, rows_of(c, "mm.a.mlp.3.weight"), T, 1);
}

/* glma: a layer norm, the stack, the FFN, the BOI and EOI rows concatenated */
static int glma_head(const struct clip *c, int x, int64_t T)
{
	struct ga_graph *g = c->g;
	int64_t rows;
	x = norm(c, x, c->E, T, 0, 1, 1);
	x = stack(c, x, c->E, T, &rows);
	x = head_ffn(c, x, rows, "mm.a.mlp.1.weight", "mm.a.mlp.2.weight", 1);
	int64_t pd = rows_of(c, "mm.a.mlp.2.weight");
	x = ga_op(g, 0, F32, pd, rows + 1, 1, 1, S(w(c), x));
	return ga_op(g, 0, F32, pd, rows + 2, 1, 1, S(x, w(c)));
}

/* clip_graph_whisper_enc: the convolutions, the transposed rows plus the
 * learned positions' view, build_vit (layer norms, GELU), the 2 to 1
 * average pool (qwen2a, voxtral, musicflamingo), the post norm, the head */
static int build_whisper(const struct clip *c)
{
	struct ga_graph *g = c->g;
	const char *t = c->type;
	int64_t T = AUDIO_FRAMES / 2;
	int x = ga_input(g, (uint64_t)AUDIO_FRAMES * c->mel * 4);
	x = conv1d_gelu(c, x, c->mel, AUDIO_FRAMES, 1);
	x = conv1d_gelu(c, x, c->E, AUDIO_FRAMES, 2);
	x = transposed(c, x, T, c->E);
	x = ga_view(g, ga_op(g, 1, F32, c->E, T, 1, 1, S(x, ga_view(g, w(c)))));
	for (int64_t il = 0; il < c->L; il++)
		x = vit_block(c, x, il, T, NULL);
	if (strcmp(t, "qwen2a") == 0 || strcmp(t, "voxtral") == 0 || strcmp(t, "musicflamingo") == 0) {
		x = transposed(c, x, c->E, T);
		x = ga_op(g, 0, F32, T / 2, c->E, 1, 1, S(x));
		T /= 2;
		x = transposed(c, x, T, c->E);
	}
	x = ga_view(g, tower_norm(c, x, "post_ln", T));
	int64_t rows;
	if (strcmp(t, "glma") == 0)
		return glma_head(c, x, T);
	if (strcmp(t, "qwen2a") == 0)
		return mm_b(c, x, rows_of(c, "mm.a.fc.weight"), T, 1);
	if (strcmp(t, "musicflamingo") == 0)
		return head_ffn(c, x, T, "mm.a.mlp.1.weight", "mm.a.mlp.2.weight", 1);
	x = stack(c, x, c->E, T, &rows);
	if (strcmp(t, "ultravox") == 0)
		return ultravox_head(c, x, c->E * c->stack, rows);
	if (strcmp(t, "meralion") == 0)
		return meralion_head(c, x, c->E * c->stack, rows);
	return head_ffn(c, x, rows, "mm.a.mlp.1.weight", "mm.a.mlp.2.weight", 0); /* voxtral */
}

/* ggml_conv_2d (3 x 3, stride 2, padding 1) of x [w, h, ic, n] by a
 * [3, 3, ic, oc] kernel: im2col (f16), the matmul, the permuted cont
 * [ow, oh, oc, n]; the bias (a reshape of it) and GELU (erf) in place */
static int conv2d_gelu(const struct clip *c, int x, int64_t *pw, int64_t *ph, int64_t ic, int64_t oc, int64_t n)
{
	struct ga_graph *g = c->g;
	*pw = (*pw - 1) / 2 + 1;
	*ph = (*ph - 1) / 2 + 1;
	int col = ga_op(g, 0, F16, 9 * ic, *pw, *ph, n, S(w(c), x));
	int r = gr_op_kind(g, ga_op(g, 0, F32, *pw * *ph * n, oc, 1, 1, S(ga_view(g, col), ga_view(g, w(c)))),
			   GA_OP_MUL_MAT);
	r = ga_op(g, 0, F32, *pw, *ph, oc, n, S(ga_view(g, ga_view(g, r))));
	r = ga_op(g, 1, F32, *pw, *ph, oc, n, S(r, ga_view(g, w(c))));
	return ga_op(g, 1, F32, *pw, *ph, oc, n, S(r));
}

/* The 2D convolution stem of qwen3a and dots3note_a over n chunks of w
 * frames (x: [w, mel, 1, n]): three convolutions, the permuted cont,
 * conv_out; *T the positions left */
static int stem2d(const struct clip *c, int x, int64_t w, int64_t n, int64_t *T)
{
	struct ga_graph *g = c->g;
	int64_t h = c->mel, ch = (int64_t)gguf_tensor_find(c->gg, "a.conv2d.1.weight")->ne[3];
	x = conv2d_gelu(c, x, &w, &h, 1, ch, n);
	x = conv2d_gelu(c, x, &w, &h, ch, ch, n);
	x = conv2d_gelu(c, x, &w, &h, ch, ch, n);
	x = ga_op(g, 0, F32, h, ch, w, n, S(ga_view(g, x)));
	*T = w * n;
	return mm(c, ga_view(g, x), c->E, *T);
}

/* clip_graph_qwen3a (models/qwen3a.cpp): the frames as 100-frame chunks
 * (a cont), the stem, the positions of a chunk repeated to every chunk
 * and added, build_vit, the post norm, mlp.1, GELU, mlp.2; and
 * clip_graph_dots3note_a (models/dots3note.cpp): the stem over the
 * frames, RMS blocks turned by a rope over half of each head, the post
 * norm, a layer norm, mlp.1, GELU, mlp.3 */
static int build_stem2d(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int q3 = c->type[0] == 'q';
	int64_t T, n = q3 ? AUDIO_FRAMES / 100 : 1;
	int x = ga_input(g, (uint64_t)AUDIO_FRAMES * c->mel * 4);
	if (q3)
		x = ga_op(g, 0, F32, 100, c->mel, 1, n, S(ga_view(g, x)));
	x = stem2d(c, x, AUDIO_FRAMES / n, n, &T);
	if (q3) {
		int rep = ga_op(g, 0, F32, c->E, T, 1, 1, S(ga_view(g, w(c))));
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, rep));
	}
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	int pos[2] = {-1, CLIP_ONE_ROPE};
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {NULL, q3 ? NULL : pos, NULL, NULL, NULL};
		x = vit_block(c, x, il, T, &o);
	}
	x = ga_view(g, tower_norm(c, x, "post_ln", T));
	if (q3)
		return head_ffn(c, x, T, "mm.a.mlp.1.weight", "mm.a.mlp.2.weight", 1);
	x = norm(c, x, c->E, T, 0, 1, 1);
	return head_ffn(c, x, T, "mm.a.mlp.1.weight", "mm.a.mlp.3.weight", 1);
}

/* clip_graph_gemma4ua (models/gemma4ua.cpp): no encoder; the frames'
 * transposed cont, the RMS norm in place, the input projection */
static int build_gemma4ua(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int x = ga_input(g, (uint64_t)AUDIO_FRAMES * c->mel * 4);
	x = ga_op(g, 0, F32, c->mel, AUDIO_FRAMES, 1, 1, S(ga_view(g, x)));
	x = norm(c, x, c->mel, AUDIO_FRAMES, 1, 0, 0);
	return mm(c, x, rows_of(c, "mm.a.input_projection.weight"), AUDIO_FRAMES);
}

/* one of lfm2a's subsampling convolutions ("direct": one op; depthwise
 * 3 x 3 stride 2 or pointwise 1 x 1), its bias added in place, ReLU in
 * place (a view) when told */
static int conformer_conv(const struct clip *c, int x, int64_t *pw, int64_t *ph, int64_t ch, int dw, int relu)
{
	struct ga_graph *g = c->g;
	if (dw) {
		*pw = (*pw - 1) / 2 + 1;
		*ph = (*ph - 1) / 2 + 1;
	}
	x = ga_op(g, 0, F32, *pw, *ph, ch, 1, S(w(c), x));
	x = ga_op(g, 1, F32, *pw, *ph, ch, 1, S(x, w(c)));
	return relu ? ga_view(g, x) : x;
}

/* build_ffn with SiLU, scaled by a half, added to the residual r */
static int conformer_ffn(const struct clip *c, int r, int64_t T)
{
	struct ga_graph *g = c->g;
	int x = norm(c, r, c->E, T, 0, 1, 1);
	x = mm_b(c, x, c->F, T, 1);
	x = ga_op(g, 1, F32, c->F, T, 1, 1, S(x));
	x = mm_b(c, x, c->E, T, 1);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x));
	return ga_op(g, 1, F32, c->E, T, 1, 1, S(r, x));
}

/* the relative-position attention of a conformer block over cur (the
 * normed rows), the positions' embedding pe [512, P] */
static int conformer_attn(const struct clip *c, int cur, int pe, int64_t T, int64_t P)
{
	struct ga_graph *g = c->g;
	int64_t D = c->D, H = c->H;
	int q = ga_view(g, mm_b(c, cur, c->E, T, 1));
	int qu = ga_view(g, ga_op(g, 1, F32, D, H, T, 1, S(q, w(c))));
	int k = mm_b(c, cur, c->E, T, 1);
	k = ga_op(g, 0, F32, D, T, H, 1, S(ga_view(g, ga_view(g, k))));
	int ac = gr_op_kind(g, ga_op(g, 0, F32, T, T, H, 1, S(qu, k)), GA_OP_MUL_MAT);
	ac = ga_op(g, 0, F32, T, T, H, 1, S(ga_view(g, ac)));
	int qv = ga_view(g, ga_op(g, 1, F32, D, H, T, 1, S(q, w(c))));
	int p = ga_view(g, ga_view(g, mm(c, pe, c->E, P)));
	int bd = gr_op_kind(g, ga_op(g, 0, F32, T, P, H, 1, S(qv, p)), GA_OP_MUL_MAT);
	bd = ga_op(g, 0, F32, P, T, H, 1, S(ga_view(g, bd)));
	bd = ga_op(g, 0, F32, P + 1, T, H, 1, S(bd));
	bd = ga_op(g, 0, F32, P + 1, T, H, 1, S(bd));
	bd = ga_op(g, 0, F32, P, T, H, 1, S(ga_view(g, ga_view(g, bd))));
	int sc = ga_op(g, 1, F32, T, T, H, 1, S(ac, ga_view(g, bd)));
	sc = ga_op(g, 1, F32, T, T, H, 1, S(ga_op(g, 1, F32, T, T, H, 1, S(sc))));
	int v = mm_b(c, cur, c->E, T, 1);
	v = ga_op(g, 0, F32, T, D, H, 1, S(ga_view(g, ga_view(g, v))));
	int x = gr_op_kind(g, ga_op(g, 0, F32, T, D, H, 1, S(sc, v)), GA_OP_MUL_MAT);
	x = ga_op(g, 0, F32, c->E, T, 1, 1, S(ga_view(g, x)));
	return mm_b(c, x, c->E, T, 1);
}

/* the convolution module: pw1, the sigmoid gate over its second half
 * times its first half, the transposed cont, padded, rolled, padded, the
 * depthwise ssm_conv, its bias, the norm's scale and shift, SiLU, pw2 */
static int conformer_conv_module(const struct clip *c, int cur, int64_t T)
{
	struct ga_graph *g = c->g;
	int64_t E = c->E;
	int x = mm_b(c, cur, 2 * E, T, 1);
	int a = ga_view(g, x);
	int gate = ga_op(g, 0, F32, E, T, 1, 1, S(ga_view(g, x)));
	x = ga_op(g, 1, F32, E, T, 1, 1, S(a, gate));
	x = ga_op(g, 0, F32, T, E, 1, 1, S(ga_view(g, x)));
	x = ga_op(g, 0, F32, T + 4, E, 1, 1, S(x));
	x = ga_op(g, 0, F32, T + 4, E, 1, 1, S(x));
	x = ga_op(g, 0, F32, T + 8, E, 1, 1, S(x));
	x = ga_op(g, 0, F32, E, T, 1, 1, S(x, w(c)));
	for (int i = 0; i < 3; i++)
		x = with_w(c, x, E, T);
	x = ga_op(g, 1, F32, E, T, 1, 1, S(x));
	return mm_b(c, x, E, T, 1);
}

/* clip_graph_conformer (models/conformer.cpp, lfm2a): the positions'
 * embedding [512, P] (an input, the first leaf), the frames' transposed
 * cont, the subsampling convolutions (a 3 x 3 stride 2 by im2col, then
 * depthwise and pointwise pairs), the permuted cont, its projection; each
 * block: half an FFN, the relative-position attention, the convolution
 * module, half an FFN, a norm; the adapter's norm, mlp.1, GELU, mlp.3 */
static int build_conformer(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t P = ((((AUDIO_FRAMES + 1) / 2 + 1) / 2 + 1) / 2) * 2 - 1;
	int pe = ga_input(g, (uint64_t)512 * P * 4);
	int x = ga_input(g, (uint64_t)AUDIO_FRAMES * c->mel * 4);
	x = ga_op(g, 0, F32, c->mel, AUDIO_FRAMES, 1, 1, S(ga_view(g, x)));
	int64_t w = c->mel, h = AUDIO_FRAMES, ch = (int64_t)gguf_tensor_find(c->gg, "a.conv1d.0.weight")->ne[3];
	x = conv2d_gelu(c, x, &w, &h, 1, ch, 1);
	x = conformer_conv(c, x, &w, &h, ch, 1, 0);
	x = conformer_conv(c, x, &w, &h, ch, 0, 1);
	x = conformer_conv(c, x, &w, &h, ch, 1, 0);
	x = conformer_conv(c, x, &w, &h, ch, 0, 1);
	x = ga_op(g, 0, F32, w, ch, h, 1, S(ga_view(g, x)));
	int64_t T = h;
	x = mm_b(c, ga_view(g, x), c->E, T, 1);
	for (int64_t il = 0; il < c->L; il++) {
		x = conformer_ffn(c, x, T);
		int a = conformer_attn(c, norm(c, x, c->E, T, 0, 1, 1), pe, T, P);
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, a));
		a = conformer_conv_module(c, norm(c, x, c->E, T, 0, 1, 1), T);
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, a));
		x = conformer_ffn(c, x, T);
		x = norm(c, x, c->E, T, 0, 1, 1);
	}
	x = norm(c, x, c->E, T, 0, 1, 1);
	return head_ffn(c, x, T, "mm.a.mlp.1.weight", "mm.a.mlp.3.weight", 1);
}

/* lfm2a: the subsampling convolutions 0, 2, 3, 5 and 6, the
 * projection, each block's relative-position tensors over the 512-wide
 * positions' embedding, the adapter (mlp.0 its norm) */
static const char *conformer_init(struct clip *c)
{
	const struct gguf_tensor *lp = gguf_tensor_find(c->gg, "a.blk.0.linear_pos.weight");
	if (c->mel % 8 || !c->L || !lp || lp->ne[0] != 512 || !has(c, "a.conv1d.6.weight"))
		return "mel bins not a multiple of 8, or no linear_pos over 512 or conv1d.6";
	if (!has(c, "a.pre_encode.out.bias") || !blk_has(c, 0, "conv_dw.weight"))
		return "no pre_encode.out or conv_dw";
	return has(c, "mm.a.mlp.3.weight") && has(c, "mm.a.mlp.0.bias") ? NULL : "no adapter";
}

/* qwen3a: three convolutions and conv_out, learned positions, mlp.1 and
 * mlp.2; dots3note_a: the same stem, RMS blocks, its adapter's norm,
 * mlp.1 and mlp.3; gemma4ua: 640-sample frames, its input projection */
static const char *stem2d_init(struct clip *c)
{
	int q3 = c->type[0] == 'q';
	if (c->type[0] == 'g') {
		c->mel = 640;
		return has(c, "mm.a.input_projection.weight") ? NULL : "no input projection";
	}
	c->rms = !q3;
	if (c->mel % 8 || !has(c, "a.conv2d.3.weight") || !has(c, "a.conv_out.weight") || has(c, "a.conv_out.bias"))
		return "mel bins not a multiple of 8, or no conv2d.3 or conv_out";
	if (!has(c, "a.conv2d.1.bias") || (q3 && !has(c, "a.position_embd.weight")))
		return "no convolution biases or learned positions";
	if (!q3 && (c->D % 4 || !has(c, "mm.a.norm_pre.bias")))
		return "a head size not a multiple of 4, or no adapter norm";
	return has(c, q3 ? "mm.a.mlp.2.weight" : "mm.a.mlp.3.weight") ? NULL : "no projector head";
}

/* The whisper towers: layer-normed blocks with q and v biases (k without),
 * the learned positions, the convolutions; the stack factor the type
 * needs (ultravox, voxtral, meralion, glma); each head's own matrices */
static const char *whisper_init(struct clip *c)
{
	const char *t = c->type;
	int needs = strcmp(t, "qwen2a") != 0 && strcmp(t, "musicflamingo") != 0;
	c->stack = needs ? u64_or(c->gg, "clip.audio.projector.stack_factor", 0) : 0;
	if (needs && c->stack < 1)
		return "no stack factor";
	if (!has(c, "a.conv1d.1.weight") || !has(c, "a.position_embd.weight"))
		return "no convolutions or learned positions";
	if (!blk_has(c, 0, "attn_q.bias") || blk_has(c, 0, "attn_k.bias") || blk_has(c, 0, "attn_qkv.weight") ||
	    blk_has(c, 0, "ffn_gate.weight"))
		return "blocks other than whisper's";
	const char *head = strcmp(t, "qwen2a") == 0	? "mm.a.fc.weight"
			   : strcmp(t, "meralion") == 0 ? "mm.a.mlp.3.weight"
			   : strcmp(t, "glma") == 0	? "v.eoi"
			   : strcmp(t, "ultravox") == 0 ? "mm.a.norm_mid.weight"
							: "mm.a.mlp.2.weight";
	return has(c, head) ? NULL : "no projector head";
}

static const struct clip_type audio_types[] = {
    {"ultravox", build_whisper, whisper_init},	{"qwen2a", build_whisper, whisper_init},
    {"voxtral", build_whisper, whisper_init},	{"musicflamingo", build_whisper, whisper_init},
    {"meralion", build_whisper, whisper_init},	{"glma", build_whisper, whisper_init},
    {"qwen3a", build_stem2d, stem2d_init},	{"gemma4ua", build_gemma4ua, stem2d_init},
    {"dots3note_a", build_stem2d, stem2d_init}, {"lfm2a", build_conformer, conformer_init},
};

const struct clip_type *clip_audio_type_at(size_t i)
{
	size_t n = sizeof(audio_types) / sizeof(audio_types[0]);
	if (i < n)
		return &audio_types[i];
	return i - n < clip_audio_types2_n ? &clip_audio_types2[i - n] : NULL; /* graph_clip_audio2.c's */
}

const struct clip_type *clip_audio_type(const char *name)
{
	const struct clip_type *t;
	for (size_t i = 0; (t = clip_audio_type_at(i)) != NULL; i++)
		if (strcmp(t->name, name) == 0)
			return t;
	return NULL;
}

int clip_audio_dims(struct clip *c, const struct gguf *gg, int fa)
{
	if (clip_tower_dims(c, gg, fa, "audio"))
		return -1;
	c->mel = u64_or(gg, "clip.audio.num_mel_bins", 0);
	return c->mel ? 0 : -1;
}

static int flag(const struct gguf *gg, const char *key)
{
	int v = 0;
	return gguf_kv_bool(gguf_find(gg, key), &v) == 0 && v;
}

const char *clip_two_encoders(const struct gguf *gg)
{
	if (flag(gg, "clip.has_vision_encoder") && flag(gg, "clip.has_audio_encoder"))
		return "a vision and an audio encoder, two buffers";
	return NULL;
}
