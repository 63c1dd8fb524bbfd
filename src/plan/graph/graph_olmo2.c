/* graph_olmo2: OLMo 2 (src/models/olmo2.cpp of the pinned engine): no
 * norm before attention; q and k normed over their whole width before the
 * reshape and RoPE; the attention output and the FFN output each normed
 * after (post norms), the FFN's one outside the layer's callback (il -1:
 * never pinned). A sliding window (olmo3) makes the layers the metadata
 * marks SWA read the window cache, whose builder expands q, k, v.
 *
 * exaone4.cpp builds the same nodes: its q and k norms are per head (the
 * same sizes), and with a window only the window layers rope. */
#include "graph.h"

#include <string.h>

/* rms_norm then the layer's weight, named for the output layer (il -1 in
 * build_norm): the graph callback does not pin it */
static int norm_free(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int il, const char *w)
{
	int n = ga_op(g, 1, F32, ne0, ne1, 1, 1, S(x));
	return ga_op(g, 1, F32, ne0, ne1, 1, 1, S(n, gr_weight(g, d, il, w)));
}

void gr_olmo2(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int swa = m->kind[il] == LAYER_SWA;
		int rope = strcmp(m->arch, "exaone4") != 0 || !m->n_kind[LAYER_SWA] || swa;
		int *krot, *vrot;
		gr_rot_inputs(g, d, in, swa, &krot, &vrot);
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
		int q = gr_mm(g, d, L, "attn_q.weight", x, nq, T);
		q = ga_view(g, gr_norm(g, d, q, nq, T, 1, L, "attn_q_norm.weight"));
		if (rope)
			q = gr_rope(g, q, pos, d->D, d->H, T);
		q = gr_rotate(g, q, nq * T, d->k_rot, krot);
		int k = -1, v;
		if (m->n_kind[LAYER_SWA]) { /* the iSWA builder expands q, k, v */
			k = gr_mm(g, d, L, "attn_k.weight", x, nkv, T);
			k = ga_view(g, gr_norm(g, d, k, nkv, T, 1, L, "attn_k_norm.weight"));
			if (rope)
				k = gr_rope(g, k, pos, d->D, d->Hkv, T);
			k = gr_rotate(g, k, nkv * T, d->k_rot, krot);
		}
		v = ga_view(g, gr_mm(g, d, L, "attn_v.weight", x, nkv, T));
		v = gr_rotate(g, v, nkv * T, d->v_rot, vrot);
		if (k < 0) { /* the plain builder expands q, v, k */
			k = gr_mm(g, d, L, "attn_k.weight", x, nkv, T);
			k = ga_view(g, gr_norm(g, d, k, nkv, T, 1, L, "attn_k_norm.weight"));
			if (rope)
				k = gr_rope(g, k, pos, d->D, d->Hkv, T);
			k = gr_rotate(g, k, nkv * T, d->k_rot, krot);
		}
		int cur = gr_attn_wo(g, d, in, L, q, k, v, swa, vrot);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1)
			Tn = gr_out_rows(g, d, in, &cur, &res, 1);
		cur = gr_norm(g, d, cur, d->E, Tn, 1, L, "post_attention_norm.weight");
		int fi = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
		int fo = gr_ffn(g, d, L, fi, Tn);
		fo = norm_free(g, d, fo, d->E, Tn, L, "post_ffw_norm.weight");
		x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, fi));
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}
