/* graph_dense: dense transformer blocks built like llama's with small
 * differences: Qwen2 (q, k, v biases), Qwen3 (q and k normed before
 * rope), Phi-3 (q, k, v in one projection, q scaled after rope, gate and
 * up in one projection, the residual first in the last add). */
#include "graph.h"

#include <string.h>

enum { QWEN2 = 1, QWEN3, PHI3 };

static int dense_kind(const char *arch)
{
	if (strcmp(arch, "qwen2") == 0)
		return QWEN2;
	if (strcmp(arch, "qwen3") == 0)
		return QWEN3;
	return PHI3;
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

/* The FFN of layer il: gate, up, swiglu, down. */
static int dense_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)m;
	return gr_ffn(g, d, il, x, T);
}

/* phi3's FFN half: build_ffn LLM_FFN_SWIGLU, SEQ (up 2 x ff, swiglu,
 * down), then ggml_add(residual, cur). */
static int phi3_ffn_half(struct ga_graph *g, const struct dims *d, int il, int cur, int res, int64_t T)
{
	int fi = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, res));
	int fn = gr_norm(g, d, fi, d->E, T, 1, il, "ffn_norm.weight");
	int up = gr_mm(g, d, il, "ffn_up.weight", fn, 2 * d->F, T);
	int glu = ga_op(g, 0, F32, d->F, T, 1, 1, S(up));
	int fo = gr_mm(g, d, il, "ffn_down.weight", glu, d->E, T);
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(fi, fo));
}

void gr_dense(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int kind = dense_kind(m->arch);
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int q, k, v;
		if (kind == PHI3) {
			phi3_qkv(g, d, in, L, an, &q, &k, &v);
		} else {
			int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
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
		int o = gr_attend(g, d, in, L, q, k, v, 0);
		o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, &in->v_rot);
		int cur = gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1)
			Tn = gr_out_rows(g, d, in, &cur, &res, 1);
		x = kind == PHI3 ? phi3_ffn_half(g, d, L, cur, res, Tn)
				 : gr_ffn_half(g, m, d, L, cur, res, Tn, "ffn_norm.weight", dense_ffn);
	}
	gr_result(g, d, x);
}
