/* graph_dense: dense transformer blocks built like llama's with small
 * differences: Qwen2 (q, k, v biases), Qwen3 (q and k normed before
 * rope), Phi-3 (q, k, v in one projection, q scaled after rope, gate and
 * up in one projection, the residual first in the last add); PhiMoE
 * (phi3.cpp's graph with experts and biases: gr_phimoe). */
#include "graph.h"

#include <stdio.h>
#include <string.h>

enum { QWEN2 = 1, QWEN3, PHI3, PHIMOE };

static int dense_kind(const char *arch)
{
	if (strcmp(arch, "qwen2") == 0 || strcmp(arch, "qwen2vl") == 0) /* qwen2vl: with M-RoPE */
		return QWEN2;
	if (strcmp(arch, "qwen3") == 0 || strcmp(arch, "qwen3vl") == 0 || /* qwen3vl: with M-RoPE */
	    strcmp(arch, "qwen3tts") == 0)				  /* qwen3vl's graph, a codec head */
		return QWEN3;
	if (strcmp(arch, "phimoe") == 0)
		return PHIMOE;
	return PHI3;
}

/* The rows of output.weight: the vocabulary, or fewer for qwen3tts's
 * codec head (3072: src/models/qwen3vl.cpp) */
static int64_t out_rows(const struct dims *d)
{
	const struct gguf_tensor *t = d->w->gg ? gguf_tensor_find(d->w->gg, "output.weight") : NULL;
	return t && t->n_dims >= 2 && (int64_t)t->ne[1] < d->V ? (int64_t)t->ne[1] : d->V;
}

/* qwen3vl.cpp's padding of a codec head's logits to the vocabulary: a
 * -inf scalar (ggml_scale_bias of a view of output_norm) repeated to
 * [vocab - rows, To]. The final expand visits it first (the concat's
 * first source), so the last layer builds it between its cache writes and
 * its attention. */
static int codec_pad(struct ga_graph *g, const struct dims *d, int64_t rows)
{
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int ninf = ga_op(g, 1, F32, 1, 1, 1, 1, S(ga_view(g, gr_weight(g, d, -1, "output_norm.weight"))));
	return ga_op(g, 0, F32, d->V - rows, To, 1, 1, S(ninf));
}

/* build_qkv's separate path: the projection, its bias added in place
 * (qwen2), the reshape. */
static int proj(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x, int64_t n)
{
	int p = gr_mm(g, d, il, w, x, n, d->T);
	if (b)
		p = ga_op(g, 1, F32, n, d->T, 1, 1, S(p, gr_weight(g, d, il, b)));
	return ga_view(g, p);
}

/* Phi-3's attention: one projection, q, k and v strided views of it
 * (ggml_nbytes of a view_3d over the fused row), q scaled after rope. */
static void phi3_qkv(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int *q, int *k,
		     int *v)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	uint64_t row = (uint64_t)(nq + 2 * nkv) * 4;
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int qkv = gr_mm(g, d, il, "attn_qkv.weight", an, nq + 2 * nkv, T);
	*q = ga_view_n(g, qkv, (uint64_t)nq * 4 + (T - 1) * row);
	*q = gr_rope(g, *q, pos, d->D, d->H, T);
	*q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(*q));
	*q = gr_rotate(g, *q, d->D * d->H * T, d->k_rot, &in->k_rot);
	*v = ga_view_n(g, qkv, (uint64_t)nkv * 4 + (T - 1) * row);
	*v = gr_rotate(g, *v, d->D * d->Hkv * T, d->v_rot, &in->v_rot);
	*k = ga_view_n(g, qkv, (uint64_t)nkv * 4 + (T - 1) * row);
	*k = gr_rope(g, *k, pos, d->D, d->Hkv, T);
	*k = gr_rotate(g, *k, d->D * d->Hkv * T, d->k_rot, &in->k_rot);
}

/* build_norm with a bias: rms_norm, the weight, the bias (phimoe) */
static int norm_b(struct ga_graph *g, const struct dims *d, int x, int64_t T, int il, const char *w, const char *b)
{
	int n = gr_norm(g, d, x, d->E, T, 1, il, w);
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(n, gr_weight(g, d, il, b)));
}

/* PhiMoE (phi3.cpp's graph over phimoe's tensors): biased norms, q, k, v
 * projected apart (biases when the payload has them), q scaled after
 * RoPE, the output projection's bias; softmax experts ff wide with
 * normalised weights; the output's norm and matrix biased too. */
static void gr_phimoe(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = norm_b(g, d, x, T, L, "attn_norm.weight", "attn_norm.bias");
		if (d->k_rot)
			gr_input_once(g, &in->k_rot, (uint64_t)d->k_rot * d->k_rot * 4);
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
		int q =
		    proj(g, d, L, "attn_q.weight", gr_has_tensor(d, L, "attn_q.bias") ? "attn_q.bias" : NULL, an, nq);
		q = gr_rope(g, q, pos, d->D, d->H, T);
		q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(q));
		q = gr_rotate(g, q, nq * T, d->k_rot, &in->k_rot);
		int v =
		    proj(g, d, L, "attn_v.weight", gr_has_tensor(d, L, "attn_v.bias") ? "attn_v.bias" : NULL, an, nkv);
		v = gr_rotate(g, v, nkv * T, d->v_rot, &in->v_rot);
		int k =
		    proj(g, d, L, "attn_k.weight", gr_has_tensor(d, L, "attn_k.bias") ? "attn_k.bias" : NULL, an, nkv);
		k = gr_rope(g, k, pos, d->D, d->Hkv, T);
		k = gr_rotate(g, k, nkv * T, d->k_rot, &in->k_rot);
		int o = gr_attend(g, d, in, L, q, k, v, 0);
		o = gr_rotate(g, ga_view(g, o), nq * T, d->v_rot, &in->v_rot);
		int cur = gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
		cur = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, gr_weight(g, d, L, "attn_output.bias")));
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1)
			Tn = gr_out_rows(g, d, in, &cur, &res, 1);
		int fi = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
		int fn = norm_b(g, d, fi, Tn, L, "ffn_norm.weight", "ffn_norm.bias");
		struct dims de = *d; /* the expert stacks are feed_forward_length wide */
		de.F_exp = d->F;
		struct gr_moe_opts mo = gr_moe_opts_softmax(m, 1);
		int fo = gr_moe_ex(g, &de, L, fn, Tn, &mo);
		x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fi, fo));
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = norm_b(g, d, x, To, -1, "output_norm.weight", "output_norm.bias");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out, gr_weight(g, d, -1, "output.bias")));
	g->t[out].output = 1;
}

void gr_dense(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int kind = dense_kind(m->arch);
	if (kind == PHIMOE) {
		gr_phimoe(g, m, d, in);
		return;
	}
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int64_t V_out = out_rows(d);
	int pad = -1;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int q, k, v;
		if (kind == PHI3) {
			phi3_qkv(g, d, in, L, an, &q, &k, &v);
		} else {
			int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
			int bias = kind == QWEN2;
			/* build_attn expands q, then v, then k */
			q = proj(g, d, L, "attn_q.weight", bias ? "attn_q.bias" : NULL, an, d->D * d->H);
			if (kind == QWEN3)
				q = gr_norm(g, d, q, d->D, d->H, T, L, "attn_q_norm.weight");
			q = gr_rope(g, q, pos, d->D, d->H, T);
			q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, &in->k_rot);
			v = proj(g, d, L, "attn_v.weight", bias ? "attn_v.bias" : NULL, an, d->D * d->Hkv);
			v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, &in->v_rot);
			k = proj(g, d, L, "attn_k.weight", bias ? "attn_k.bias" : NULL, an, d->D * d->Hkv);
			if (kind == QWEN3)
				k = gr_norm(g, d, k, d->D, d->Hkv, T, L, "attn_k_norm.weight");
			k = gr_rope(g, k, pos, d->D, d->Hkv, T);
			k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, &in->k_rot);
		}
		int cache[2];
		gr_attend_store(g, d, in, L, k, v, 0, cache);
		if (il == n_layer - 1 && V_out < d->V)
			pad = codec_pad(g, d, V_out);
		int o = gr_attend_core(g, d, in, q, 0, -1, cache);
		o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, &in->v_rot);
		int cur = gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1)
			Tn = gr_out_rows(g, d, in, &cur, &res, 1);
		int fi = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
		int fn = gr_norm(g, d, fi, d->E, Tn, 1, L, "ffn_norm.weight");
		if (kind == PHI3) {
			/* build_ffn LLM_FFN_SWIGLU, SEQ: up (2 x ff), swiglu, down;
			 * then ggml_add(residual, cur) */
			int up = gr_mm(g, d, L, "ffn_up.weight", fn, 2 * d->F, Tn);
			int glu = ga_op(g, 0, F32, d->F, Tn, 1, 1, S(up));
			int fo = gr_mm(g, d, L, "ffn_down.weight", glu, d->E, Tn);
			x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fi, fo));
		} else {
			int fo = gr_ffn(g, d, L, fn, Tn);
			x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, fi));
		}
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, V_out, To);
	if (pad >= 0) /* ggml_concat(pad, logits) */
		out = ga_op(g, 0, F32, d->V, To, 1, 1, S(pad, out));
	g->t[out].output = 1;
}
