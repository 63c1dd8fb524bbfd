/* graph_llama: the dense llama block and the families built like it. */
#include "graph.h"

/* The FFN of layer il: qwen3moe's experts, or dense. */
static int llama_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)m;
	return d->n_expert ? gr_moe(g, d, il, x, T) : gr_ffn(g, d, il, x, T);
}

/* The dense llama block (src/models/llama.cpp); with experts, the
 * qwen3moe block (src/models/qwen3moe.cpp: q and k normed before rope). */
void gr_llama(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int qk_norm = d->n_expert > 0;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int swa = m->kind[il] == LAYER_SWA;
		int *krot = swa ? &in->k_rot_swa : &in->k_rot, *vrot = swa ? &in->v_rot_swa : &in->v_rot;
		/* ggml finds the K rotation (src0 of q's rotation) before the
		 * positions, and allocates leafs in that order */
		if (d->k_rot)
			gr_input_once(g, krot, (uint64_t)d->k_rot * d->k_rot * 4);
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
		int q = ga_view(g, gr_mm(g, d, L, "attn_q.weight", an, d->D * d->H, T));
		if (qk_norm)
			q = gr_norm(g, d, q, d->D, d->H, T, L, "attn_q_norm.weight");
		q = gr_rope(g, q, pos, d->D, d->H, T);
		q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, krot);
		int k, vr;
		if (m->n_kind[LAYER_SWA]) { /* the iSWA builder expands q, k, v */
			k = gr_mm(g, d, L, "attn_k.weight", an, d->D * d->Hkv, T);
			k = gr_rope(g, ga_view(g, k), pos, d->D, d->Hkv, T);
			k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
			vr = ga_view(g, gr_mm(g, d, L, "attn_v.weight", an, d->D * d->Hkv, T));
			vr = gr_rotate(g, vr, d->D * d->Hkv * T, d->v_rot, vrot);
		} else { /* the plain builder expands q, v, k */
			vr = ga_view(g, gr_mm(g, d, L, "attn_v.weight", an, d->D * d->Hkv, T));
			vr = gr_rotate(g, vr, d->D * d->Hkv * T, d->v_rot, vrot);
			k = ga_view(g, gr_mm(g, d, L, "attn_k.weight", an, d->D * d->Hkv, T));
			if (qk_norm)
				k = gr_norm(g, d, k, d->D, d->Hkv, T, L, "attn_k_norm.weight");
			k = gr_rope(g, k, pos, d->D, d->Hkv, T);
			k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
		}
		int o = gr_attend(g, d, in, L, q, k, vr, swa);
		o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, vrot);
		int cur = gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1)
			Tn = gr_out_rows(g, d, in, &cur, &res, 1);
		x = gr_ffn_half(g, m, d, L, cur, res, Tn, "ffn_norm.weight", llama_ffn);
	}
	gr_result(g, d, x);
}
