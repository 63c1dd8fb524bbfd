/* graph_plm: PLM and MiniCPM3 (src/models/plm.cpp and minicpm3.cpp of the
 * pinned engine): deepseek2's latent K and V decompressed into a plain
 * KV cache. k and v come from one latent (attn_kv_a_mqa: kv_lora wide,
 * normed, then attn_kv_b per head, nope + V wide) beside a shared RoPE
 * key (rope wide, repeated over the heads and concatenated to each
 * head's nope part); q is projected whole (plm) or through its own
 * normed latent (minicpm3: attn_q_a, attn_q_a_norm, attn_q_b) and RoPE'd
 * whole. The cache holds K head_dim and V head_dim_v wide per head.
 * build_attn expands q, v (the latent, its norm, attn_kv_b, V's view and
 * cont) and k (the nope view, the RoPE'd key, its repeat, the concat).
 *
 * plm.cpp: a squared-ReLU FFN without gate; the output matrix is
 * token_embd's copy. minicpm3.cpp: the embeddings scaled, each half's
 * output scaled before its residual, the final norm scaled before the
 * LM head, a gated SiLU FFN. */
#include "graph.h"

#include <string.h>

#include "../../payload/ggml_type.h"

/* the attention of layer L over its normed input an: its output (after
 * attn_output) */
static int plm_attn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int an)
{
	int64_t T = d->T, H = d->H, dk = d->D, dv = m->head_v, rope = m->rope_dims, lora = m->kv_lora_rank;
	int64_t nope = dk - rope, kvw = H * (nope + dv);
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, 0, &krot, &vrot);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int q;
	if (gr_has_tensor(d, L, "attn_q_a.weight")) {
		q = gr_mm(g, d, L, "attn_q_a.weight", an, m->q_lora_rank, T);
		q = gr_norm(g, d, q, m->q_lora_rank, T, 1, L, "attn_q_a_norm.weight");
		q = gr_mm(g, d, L, "attn_q_b.weight", q, dk * H, T);
	} else {
		q = gr_mm(g, d, L, "attn_q.weight", an, dk * H, T);
	}
	q = gr_rope(g, ga_view(g, q), pos, dk, H, T);
	q = gr_rotate(g, q, dk * H * T, d->k_rot, krot);
	int kvpe = gr_mm(g, d, L, "attn_kv_a_mqa.weight", an, lora + rope, T);
	int kvc = ga_view_n(g, kvpe, (uint64_t)((T - 1) * (lora + rope) + lora) * 4);
	kvc = gr_norm(g, d, kvc, lora, T, 1, L, "attn_kv_a_norm.weight");
	int kv = gr_mm(g, d, L, "attn_kv_b.weight", kvc, kvw, T);
	int v = ga_op(g, 0, F32, dv, H, T, 1, S(ga_view_n(g, kv, (uint64_t)((T - 1) * kvw + kvw - nope) * 4)));
	if (!gr_has_tensor(d, L, "attn_q_a.weight")) /* plm's view_2d of the cont */
		v = ga_view(g, v);
	v = gr_rotate(g, v, dv * H * T, d->v_rot, vrot);
	int knope = ga_view_n(g, kv, (uint64_t)((T - 1) * kvw + kvw - dv) * 4);
	int kpe = ga_view_n(g, kvpe, (uint64_t)((T - 1) * (lora + rope) + rope) * 4);
	kpe = gr_rope(g, kpe, pos, rope, 1, T);
	int rep = ga_op(g, 0, F32, rope, H, T, 1, S(kpe));
	int k = ga_op(g, 0, F32, dk, H, T, 1, S(knope, rep));
	k = gr_rotate(g, k, dk * H * T, d->k_rot, krot);
	/* the attention over V's width: V's rows and the output dv wide */
	struct dims dd = *d;
	dd.D = dv;
	dd.v_row = ggml_row_bytes(ggml_type_get(d->v_type), (uint64_t)dv * d->Hkv);
	int o = gr_attend(g, &dd, in, L, q, k, v, 0);
	if (d->fa)
		g->t[o].fa.dk = dk;
	o = gr_rotate(g, ga_view(g, o), dv * H * T, d->v_rot, vrot);
	return gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
}

/* plm's FFN: up, relu, sqr, down (build_ffn RELU_SQR, SEQ); minicpm3's
 * the gated SiLU */
static int plm_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)m;
	if (gr_has_tensor(d, il, "ffn_gate.weight"))
		return gr_ffn(g, d, il, x, T);
	int up = gr_mm(g, d, il, "ffn_up.weight", x, d->F, T);
	up = ga_op(g, 1, F32, d->F, T, 1, 1, S(ga_op(g, 1, F32, d->F, T, 1, 1, S(up))));
	return gr_mm(g, d, il, "ffn_down.weight", up, d->E, T);
}

void gr_plm(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int scaled = strcmp(m->arch, "minicpm3") == 0;
	int x = gr_input_embd(g, d, in);
	if (scaled)
		x = ga_op(g, 1, F32, d->E, d->T, 1, 1, S(x));
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = gr_norm(g, d, x, d->E, d->T, 1, L, "attn_norm.weight");
		int cur = plm_attn(g, m, d, in, L, an);
		int res = x;
		int64_t T = d->T;
		if (il == n_layer - 1)
			T = gr_out_rows(g, d, in, &cur, &res, 0);
		if (scaled)
			cur = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur));
		int fi = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, res));
		int fo = plm_ffn(g, m, d, L, gr_norm(g, d, fi, d->E, T, 1, L, "ffn_norm.weight"), T);
		if (scaled)
			fo = ga_op(g, 1, F32, d->E, T, 1, 1, S(fo));
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(fo, fi));
	}
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	if (scaled) /* the LM head's input scaled by 256 / n_embd */
		rn = ga_op(g, 1, F32, d->E, To, 1, 1, S(rn));
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}
