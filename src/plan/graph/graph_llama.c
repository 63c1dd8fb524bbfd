/* graph_llama: the dense llama block and the families built like it. */
#include "graph.h"

/* The FFN of layer il: qwen3moe's experts, or dense. */
static int llama_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)m;
	return d->n_expert ? gr_moe(g, d, il, x, T) : gr_ffn(g, d, il, x, T);
}

/* One llama (or qwen3moe) layer over its input x and normed input an. */
static int llama_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int x,
		       int an, int last, const void *ctx)
{
	(void)ctx;
	int64_t T = d->T;
	int qk_norm = d->n_expert > 0;
	int swa = m->kind[L] == LAYER_SWA;
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, swa, &krot, &vrot);
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
	int cur = gr_attn_wo(g, d, in, L, q, k, vr, swa, vrot);
	return gr_layer_end(g, m, d, in, L, last, cur, x, 1, "ffn_norm.weight", llama_ffn);
}

/* The dense llama block (src/models/llama.cpp); with experts, the
 * qwen3moe block (src/models/qwen3moe.cpp: q and k normed before rope). */
void gr_llama(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	gr_result(g, d, gr_layers(g, m, d, in, llama_layer, NULL));
}
