/* graph_cohere: Command R and Cohere 2 (src/models/command-r.cpp and
 * cohere2.cpp of the pinned engine). The block is parallel: one layer
 * norm (ggml_norm, which ggml never computes in place) feeds both the
 * attention and the FFN, and the layer's output is ffn + input +
 * attention. build_attn expands only q, v, k (cohere2's iSWA builder: q,
 * k, v), their cache stores and build_attn_mha's result (flash
 * attention, or kq/softmax/kqv and the cont); the output projection (and
 * a V rotation's inverse) is reached only from the layer's second
 * residual add, so ggml visits it after the FFN. In the last layer the
 * FFN's input, the residual and the projection each keep the output
 * rows.
 *
 * command-r ropes every layer and norms q and k per head (layer norms)
 * where the payload has the weights (the engine creates them at 64
 * layers or more); cohere2 ropes only its sliding-window layers. The
 * logits are scaled by logit_scale when it is set. The output matrix is
 * token_embd's copy (TENSOR_DUPLICATED). */
#include "graph.h"

#include <string.h>

void gr_cohere(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	int cohere2 = strcmp(m->arch, "cohere2") == 0; /* the iSWA cache and builder */
	double logit_scale = 0;
	if (d->w->gg)
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.logit_scale", m->arch), &logit_scale);
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int swa = m->kind[il] == LAYER_SWA;
		int rope = !cohere2 || swa;
		int an = gr_lnorm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int *krot, *vrot;
		gr_rot_inputs(g, d, in, swa, &krot, &vrot);
		int pos = rope ? gr_input_once(g, &in->pos, (uint64_t)T * 4) : -1;
		int q = ga_view(g, gr_mm(g, d, L, "attn_q.weight", an, nq, T));
		if (gr_has_tensor(d, L, "attn_q_norm.weight"))
			q = gr_lnorm(g, d, q, d->D, d->H, T, L, "attn_q_norm.weight");
		if (rope)
			q = gr_rope(g, q, pos, d->D, d->H, T);
		q = gr_rotate(g, q, nq * T, d->k_rot, krot);
		int k = -1, v = -1;
		for (int step = 0; step < 2; step++) {
			/* the plain builder expands v then k; the iSWA one k then v */
			if ((step == 0) == (cohere2 != 0)) {
				k = ga_view(g, gr_mm(g, d, L, "attn_k.weight", an, nkv, T));
				if (gr_has_tensor(d, L, "attn_k_norm.weight"))
					k = gr_lnorm(g, d, k, d->D, d->Hkv, T, L, "attn_k_norm.weight");
				if (rope)
					k = gr_rope(g, k, pos, d->D, d->Hkv, T);
				k = gr_rotate(g, k, nkv * T, d->k_rot, krot);
			} else {
				v = ga_view(g, gr_mm(g, d, L, "attn_v.weight", an, nkv, T));
				v = gr_rotate(g, v, nkv * T, d->v_rot, vrot);
			}
		}
		int o = gr_attend(g, d, in, L, q, k, v, swa); /* build_attn: the cache stores after q, v, k */
		/* the FFN over the normed input (its output rows in the last
		 * layer), the residual, then the attention's output projection */
		int fewer = il == n_layer - 1 && d->n_out < T;
		int64_t Tn = fewer ? d->n_out : T;
		int ids = fewer ? gr_input_once(g, &in->out_ids, (uint64_t)Tn * 4) : -1;
		int fin = fewer ? gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(an, ids)), GA_OP_GET_ROWS) : an;
		int fo = gr_ffn(g, d, L, fin, Tn);
		int res = fewer ? gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(x, ids)), GA_OP_GET_ROWS) : x;
		int sum = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, res));
		o = gr_rotate(g, ga_view(g, o), nq * T, d->v_rot, vrot);
		int cur = gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
		if (fewer)
			cur = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(cur, ids)), GA_OP_GET_ROWS);
		x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(sum, cur));
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_lnorm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	if (logit_scale != 0)
		out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out));
	g->t[out].output = 1;
}
