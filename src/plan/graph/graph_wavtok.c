/* graph_wavtok: src/models/wavtokenizer-dec.cpp's graph of the pinned
 * engine, a vocoder over the ubatch as one sequence in time (no memory,
 * no output ids: every op is T tokens wide). The token embedding,
 * transposed to [T, E]; the conv1d stem (ggml_conv_1d_ph: an f16 im2col
 * [K x IC, T], its reshape and the kernel's as a mul_mat [T, OC], a
 * reshape), its bias; the posnet: resnet blocks (group norm over a
 * [T, 1, C] reshape, weight and bias, x * sigmoid(x), a kernel-3 conv,
 * twice, the residual), one attention block (group norm; k, q and v as
 * kernel-1 convs with biases, k and q transposed copies, KQ [T, T] and
 * its softmax, KQV, the output conv, the residual) and a closing group
 * norm; a transposed copy, token_embd_norm (a layer norm), transposed
 * back; convnext blocks (ggml_conv_1d_dw_ph: a [T, 1, C] view, an f16
 * im2col [K, T, C], a mul_mat with the kernel, a reshape; the bias, a
 * transposed copy, a layer norm, pw1, GELU, pw2 with biases, gamma, a
 * transposed copy back, the residual); a transposed copy, output_norm
 * and output with its bias: t_embd, the graph's output, embd_out wide.
 * Nodes are made in the order ggml_build_forward_expand visits them
 * (a conv's input chain before its im2col; k's chain before q's, both
 * before v's). The widths come from the payload's tensors. */
#include <stdio.h>

#include "graph.h"

struct wt {
	struct ga_graph *g;
	const struct dims *d;
	int64_t T;
};

static int wt_w(struct wt *c, const char *name, int il)
{
	return gr_weight_at(c->g, c->d, name, il);
}

static int64_t wt_ne(const struct dims *d, const char *name, int dim)
{
	const struct gguf_tensor *t = d->w->gg ? gguf_tensor_find(d->w->gg, name) : NULL;
	return t ? (int64_t)t->ne[dim] : 0;
}

static int wt_add(struct wt *c, int x, int y, int64_t ne0, int64_t ne1)
{
	return ga_gop(c->g, ga_op(c->g, 1, F32, ne0, ne1, 1, 1, S(x, y)), GA_G_ADD);
}

/* build_inp_embd: the tokens, the embeddings input features_length (E)
 * wide, token_embd's rows */
static int wt_input(struct wt *c, struct inputs *in, int64_t E)
{
	struct ga_graph *g = c->g;
	int toks = gr_input_once(g, &in->tokens, (uint64_t)c->T * 4);
	ga_input(g, (uint64_t)E * c->T * 4);
	int w = wt_w(c, "token_embd.weight", -1);
	return gr_op_kind(g, ga_op(g, 0, F32, E, c->T, 1, 1, S(w, toks)), GA_OP_GET_ROWS);
}

/* ggml_conv_1d_ph of kernel W [K, IC, OC] over x [T, IC], then its bias */
static int wt_conv(struct wt *c, const char *w, const char *b, int il, int x)
{
	struct ga_graph *g = c->g;
	int64_t K = wt_ne(c->d, w, 0), IC = wt_ne(c->d, w, 1), OC = wt_ne(c->d, w, 2);
	int kw = wt_w(c, w, il);
	int im = ga_op(g, 0, F16, K * IC, c->T, 1, 1, S(kw, x));
	int imr = ga_view(g, im);
	int kwr = ga_view(g, kw);
	int mm = gr_op_kind(g, ga_op(g, 0, F32, c->T, OC, 1, 1, S(imr, kwr)), GA_OP_MUL_MAT);
	int r = ga_view(g, mm);
	return wt_add(c, r, wt_w(c, b, il), c->T, OC);
}

/* build_norm with LLM_NORM_GROUP over x [T, C]: weight and bias */
static int wt_gnorm(struct wt *c, int x, int64_t C, int il, const char *part)
{
	struct ga_graph *g = c->g;
	char w[64], b[64];
	snprintf(w, sizeof(w), "posnet.%d.%s.weight", il, part);
	snprintf(b, sizeof(b), "posnet.%d.%s.bias", il, part);
	int n = ga_op(g, 0, F32, c->T, 1, C, 1, S(ga_view(g, x)));
	int r = ga_view(g, n);
	int m = ga_gop(g, ga_op(g, 1, F32, c->T, C, 1, 1, S(r, wt_w(c, w, il))), GA_G_MUL);
	return wt_add(c, m, wt_w(c, b, il), c->T, C);
}

/* build_norm with LLM_NORM over x [C, T]: weight and bias */
static int wt_lnorm(struct wt *c, int x, int64_t C, int il, const char *w, const char *b)
{
	struct ga_graph *g = c->g;
	int n = ga_op(g, 0, F32, C, c->T, 1, 1, S(x));
	int m = ga_gop(g, ga_op(g, 1, F32, C, c->T, 1, 1, S(n, wt_w(c, w, il))), GA_G_MUL);
	return wt_add(c, m, wt_w(c, b, il), C, c->T);
}

/* ggml_cont(ggml_transpose(x)) of x [ne1, ne0]: [ne0, ne1] */
static int wt_tcont(struct wt *c, int x, int64_t ne0, int64_t ne1)
{
	return ga_op(c->g, 0, F32, ne0, ne1, 1, 1, S(ga_view(c->g, x)));
}

/* x * sigmoid(x) after a group norm */
static int wt_swish(struct wt *c, int x, int64_t C)
{
	struct ga_graph *g = c->g;
	int sg = ga_gop(g, ga_op(g, 1, F32, c->T, C, 1, 1, S(x)), GA_G_UNARY);
	return ga_gop(g, ga_op(g, 1, F32, c->T, C, 1, 1, S(sg, x)), GA_G_MUL);
}

static void wt_name(char *buf, size_t n, const char *pre, int il, const char *part)
{
	snprintf(buf, n, "%s.%d.%s", pre, il, part);
}

static int wt_resnet(struct wt *c, int x, int64_t C, int il)
{
	char w[64], b[64];
	int cur = wt_swish(c, wt_gnorm(c, x, C, il, "norm1"), C);
	wt_name(w, sizeof(w), "posnet", il, "conv1.weight");
	wt_name(b, sizeof(b), "posnet", il, "conv1.bias");
	cur = wt_conv(c, w, b, il, cur);
	cur = wt_swish(c, wt_gnorm(c, cur, C, il, "norm2"), C);
	wt_name(w, sizeof(w), "posnet", il, "conv2.weight");
	wt_name(b, sizeof(b), "posnet", il, "conv2.bias");
	cur = wt_conv(c, w, b, il, cur);
	return wt_add(c, cur, x, c->T, C);
}

static int wt_qkv(struct wt *c, int x, int il, const char *part)
{
	char w[64], b[64];
	snprintf(w, sizeof(w), "posnet.%d.%s.weight", il, part);
	snprintf(b, sizeof(b), "posnet.%d.%s.bias", il, part);
	return wt_conv(c, w, b, il, x);
}

static int wt_attn(struct wt *c, int x, int64_t C, int il)
{
	struct ga_graph *g = c->g;
	int64_t T = c->T;
	int cur = wt_gnorm(c, x, C, il, "attn_norm");
	int k = wt_tcont(c, wt_qkv(c, cur, il, "attn_k"), C, T);
	int q = wt_tcont(c, wt_qkv(c, cur, il, "attn_q"), C, T);
	int kq = gr_op_kind(g, ga_op(g, 0, F32, T, T, 1, 1, S(k, q)), GA_OP_MUL_MAT);
	kq = ga_gop(g, ga_op(g, 1, F32, T, T, 1, 1, S(kq)), GA_G_SOFT_MAX);
	int v = wt_qkv(c, cur, il, "attn_v");
	int kqv = gr_op_kind(g, ga_op(g, 0, F32, T, C, 1, 1, S(kq, v)), GA_OP_MUL_MAT);
	cur = wt_qkv(c, kqv, il, "attn_output");
	return wt_add(c, cur, x, T, C);
}

static int wt_convnext(struct wt *c, int x, int64_t C, int64_t F, int il)
{
	struct ga_graph *g = c->g;
	int64_t T = c->T;
	char w[64], b[64];
	wt_name(w, sizeof(w), "convnext", il, "dw.weight");
	int kw = wt_w(c, w, il);
	int xr = ga_view(g, x);
	int im = ga_op(g, 0, F16, wt_ne(c->d, w, 0), T, C, 1, S(kw, xr));
	int mm = gr_op_kind(g, ga_op(g, 0, F32, T, 1, C, 1, S(im, kw)), GA_OP_MUL_MAT);
	wt_name(b, sizeof(b), "convnext", il, "dw.bias");
	int r = ga_view(g, mm);
	int cur = wt_add(c, r, wt_w(c, b, il), T, C);
	cur = wt_tcont(c, cur, C, T);
	wt_name(w, sizeof(w), "convnext", il, "norm.weight");
	wt_name(b, sizeof(b), "convnext", il, "norm.bias");
	cur = wt_lnorm(c, cur, C, il, w, b);
	wt_name(w, sizeof(w), "convnext", il, "pw1.weight");
	wt_name(b, sizeof(b), "convnext", il, "pw1.bias");
	cur = gr_op_kind(g, ga_op(g, 0, F32, F, T, 1, 1, S(wt_w(c, w, il), cur)), GA_OP_MUL_MAT);
	cur = wt_add(c, cur, wt_w(c, b, il), F, T);
	cur = ga_gop(g, ga_op(g, 1, F32, F, T, 1, 1, S(cur)), GA_G_UNARY);
	wt_name(w, sizeof(w), "convnext", il, "pw2.weight");
	wt_name(b, sizeof(b), "convnext", il, "pw2.bias");
	cur = gr_op_kind(g, ga_op(g, 0, F32, C, T, 1, 1, S(wt_w(c, w, il), cur)), GA_OP_MUL_MAT);
	cur = wt_add(c, cur, wt_w(c, b, il), C, T);
	wt_name(w, sizeof(w), "convnext", il, "gamma.weight");
	cur = ga_gop(g, ga_op(g, 1, F32, C, T, 1, 1, S(cur, wt_w(c, w, il))), GA_G_MUL);
	cur = wt_tcont(c, cur, T, C);
	return wt_add(c, cur, x, T, C);
}

/* the blocks the loader reads: posnet.block_count and convnext.block_count */
static uint32_t wt_blocks(const struct dims *d, const char *key)
{
	uint64_t v = 0;
	const struct gguf_kv *kv = d->w->gg ? gguf_findf(d->w->gg, "wavtokenizer-dec.%s.block_count", key) : NULL;
	if (!kv || gguf_kv_u64(kv, &v) != 0)
		return 0;
	return (uint32_t)v;
}

void gr_wavtok(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	(void)m;
	struct wt c = {g, d, d->T};
	int64_t T = d->T, E = wt_ne(d, "conv1d.weight", 1), P = wt_ne(d, "conv1d.weight", 2);
	int64_t C = wt_ne(d, "output.weight", 0), O = wt_ne(d, "output.weight", 1);
	int64_t F = wt_ne(d, "convnext.0.pw1.weight", 1);
	int x = wt_tcont(&c, wt_input(&c, in, E), T, E);
	int cur = wt_conv(&c, "conv1d.weight", "conv1d.bias", 0, x);
	uint32_t np = wt_blocks(d, "posnet"), nc = wt_blocks(d, "convnext");
	for (uint32_t il = 0; il < np; il++) {
		int L = (int)il;
		cur = il == 2	? wt_attn(&c, cur, P, L)
		      : il == 5 ? wt_gnorm(&c, cur, P, L, "attn_norm")
				: wt_resnet(&c, cur, P, L);
	}
	cur = wt_tcont(&c, cur, P, T);
	cur = wt_lnorm(&c, cur, P, 0, "token_embd_norm.weight", "token_embd_norm.bias");
	cur = wt_tcont(&c, cur, T, P);
	for (uint32_t il = 0; il < nc; il++)
		cur = wt_convnext(&c, cur, C, F, (int)il);
	cur = wt_tcont(&c, cur, C, T);
	int out = (int)d->w->n_layer_all; /* the output layer */
	cur = wt_lnorm(&c, cur, C, out, "output_norm.weight", "output_norm.bias");
	cur = gr_op_kind(g, ga_op(g, 0, F32, O, T, 1, 1, S(wt_w(&c, "output.weight", out), cur)), GA_OP_MUL_MAT);
	cur = wt_add(&c, cur, wt_w(&c, "output.bias", out), O, T);
	g->t[cur].output = 1; /* result_embd: t_embd */
}

const char *gr_wavtok_unmirrored(const struct placement *pl)
{
	int first = PLACE_HOST;
	for (uint32_t il = 0; pl->layer && il <= pl->n_layer_all; il++) {
		int dev = pl->layer[il];
		if (dev == PLACE_HOST || dev == first)
			continue;
		if (first != PLACE_HOST)
			return "over several devices (the posnet and convnext blocks take turns on them; a split "
			       "over two rpc-servers measured 27 % low on one)";
		first = dev;
	}
	return NULL;
}
