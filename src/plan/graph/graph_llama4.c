/* graph_llama4: Llama 4 (src/models/llama4.cpp of the pinned engine).
 *
 * llama's attention over an iSWA cache whose window layers attend in
 * chunks (q, k, v expanded in that order), or over one cache when the
 * payload's attention.sliding_window is 0 (q, v, k). Every
 * n_no_rope_layer_step-th layer (4, or n_layer without a window: the
 * last) skips RoPE and multiplies q by the per-token temperature (an
 * input of 1 x 1 x T); the others rope q and k and, unless the model has
 * 128 experts (use_kq_norm), rms-norm them without a weight.
 *
 * Every interleave_moe_layer_step-th layer is MoE: build_moe_ffn with
 * sigmoid gating, experts chosen by the raw logits, the chosen weights
 * applied to the input before the experts (the input repeated k times,
 * multiplied), no weighting after; a shared expert beside, added. The
 * other layers have a dense FFN. */
#include "graph.h"

#include <stdio.h>

static int64_t moe_step(const struct model *m, const struct dims *d)
{
	uint64_t step = 0;
	if (d->w->gg)
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.interleave_moe_layer_step", m->arch), &step);
	return (int64_t)step;
}

/* build_moe_ffn as llama4 builds it (weight_before_ffn) */
static int moe(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T)
{
	int64_t ne = d->n_expert, k = d->n_expert_used;
	int logits = gr_mm(g, d, il, "ffn_gate_inp.weight", x, ne, T);
	int probs = ga_op(g, 1, F32, ne, T, 1, 1, S(logits)); /* sigmoid */
	int probs3 = ga_view(g, probs);
	int order = ga_op(g, 0, I32, ne, T, 1, 1, S(logits)); /* chosen by the logits */
	int sel = ga_view_n(g, order, (uint64_t)((T - 1) * ne + k) * 4);
	int w = gr_op_kind(g, ga_op(g, 0, F32, 1, k, T, 1, S(probs3, sel)), GA_OP_GET_ROWS);
	int rep = ga_op(g, 0, F32, d->E, k, T, 1, S(ga_view(g, x))); /* ggml_repeat_4d */
	int cur = ga_op(g, 1, F32, d->E, k, T, 1, S(rep, w));
	int gate = gr_mm_id(g, d, il, "ffn_gate_exps.weight", cur, sel, d->F_exp, k, T);
	int up = gr_mm_id(g, d, il, "ffn_up_exps.weight", cur, sel, d->F_exp, k, T);
	int glu = ga_op(g, 0, F32, d->F_exp, k, T, 1, S(gate, up));
	int down = gr_mm_id(g, d, il, "ffn_down_exps.weight", glu, sel, d->E, k, T);
	int out = gr_moe_sum(g, d, down, k, T);
	if (k <= 1)
		out = ga_op(g, 0, F32, d->E, T, 1, 1, S(out));
	return out;
}

static int llama4_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	int64_t step = moe_step(m, d);
	if (!(step > 0 && (il + 1) % step == 0))
		return gr_ffn(g, d, il, x, T);
	int mo = moe(g, d, il, x, T);
	int sh = gr_ffn_shexp(g, d, il, x, T, d->F_exp);
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(mo, sh));
}

void gr_llama4(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int iswa = m->n_swa > 0;
	uint32_t no_rope_step = iswa ? 4 : n_layer;
	int kq_norm = m->n_expert != 128;
	int attn_scale = -1;
	int x = gr_input_embd(g, d, in);
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int swa = m->kind[il] == LAYER_SWA;
		int rope = no_rope_step > 0 && (il + 1) % no_rope_step != 0;
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int *krot, *vrot;
		gr_rot_inputs(g, d, in, swa, &krot, &vrot);
		int pos = rope ? gr_input_once(g, &in->pos, (uint64_t)T * 4) : -1;
		int q = ga_view(g, gr_mm(g, d, L, "attn_q.weight", an, nq, T));
		if (rope) {
			q = gr_rope(g, q, pos, d->D, d->H, T);
			if (kq_norm)
				q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(q));
		} else {
			q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(q, gr_input_once(g, &attn_scale, (uint64_t)T * 4)));
		}
		q = gr_rotate(g, q, nq * T, d->k_rot, krot);
		int k = -1, v = -1;
		for (int step = 0; step < 2; step++) {
			/* the iSWA builder expands k then v; the plain one v then k */
			if ((step == 0) == (iswa != 0)) {
				k = ga_view(g, gr_mm(g, d, L, "attn_k.weight", an, nkv, T));
				if (rope) {
					k = gr_rope(g, k, pos, d->D, d->Hkv, T);
					if (kq_norm)
						k = ga_op(g, 1, F32, d->D, d->Hkv, T, 1, S(k));
				}
				k = gr_rotate(g, k, nkv * T, d->k_rot, krot);
			} else {
				v = ga_view(g, gr_mm(g, d, L, "attn_v.weight", an, nkv, T));
				v = gr_rotate(g, v, nkv * T, d->v_rot, vrot);
			}
		}
		int cur = gr_attn_wo(g, d, in, L, q, k, v, swa, vrot);
		x = gr_layer_end(g, m, d, in, L, il == n_layer - 1, cur, x, 1, "ffn_norm.weight", llama4_ffn);
	}
	gr_result(g, d, x);
}
