/* graph_dots3: dots3note (src/models/dots3note.cpp), deepseek32's trunk
 * over the DSA-iSWA cache (llama-kv-cache-dsa-iswa.cpp: the DSA cache of
 * the full layers, MLA rows beside the indexer's keys, and a window's
 * K-only cache of the sliding layers). A full layer is deepseek32's
 * (the indexer's keys cached, the mask rebuilt from its top-k cells); a
 * sliding layer is deepseek2's MLA at the window's latent and key head,
 * over the window cache's own indices and mask. Both norm the shared rope
 * key before its rope and call build_attn without attn_output: the
 * output is gated per head by a sigmoid of attn_gate over the layer's
 * normed input, then projected. */
#include "graph.h"

#include "../../payload/ggml_type.h"

static void swap(int *a, int *b)
{
	int t = *a;
	*a = *b;
	*b = t;
}

/* deepseek2's MLA of a sliding layer: the window's latent and heads, its
 * cache's cells, index and mask (build_attn with inp_attn->get_swa()) */
static int window_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			    int an, const struct gr_mla_opts *o)
{
	struct model ms = *m;
	ms.kv_lora_rank = m->kv_lora_rank_swa;
	ms.head_k_mla = m->head_k_mla_swa;
	ms.head_v_mla = m->head_v_mla_swa;
	struct dims dl = *d;
	dl.n_kv = d->n_kv_swa;
	dl.kv_size = d->kv_size_swa;
	dl.D = m->head_k_swa;
	dl.k_row = ggml_row_bytes(ggml_type_get(d->k_type), (uint64_t)m->head_k_swa);
	swap(&in->k_idx, &in->k_idx_swa);
	swap(&in->mask, &in->mask_swa);
	int cur = gr_mla_attention_ex(g, &ms, &dl, in, il, an, NULL, o);
	swap(&in->k_idx, &in->k_idx_swa);
	swap(&in->mask, &in->mask_swa);
	return cur;
}

static int dots3_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			   int an)
{
	static const struct gr_mla_opts o = {"attn_k_norm.weight", 1};
	int swa = m->kind[il] == LAYER_SWA;
	struct dims dh = *d; /* the layer's heads: the two kinds have their own */
	dh.H = m->n_head[il];
	int64_t T = d->T, H = dh.H, dv = swa ? m->head_v_mla_swa : m->head_v_mla;
	int cur = swa ? window_attention(g, m, &dh, in, il, an, &o) : gr_dsa_attention_ex(g, m, &dh, in, il, an, &o);
	/* the head-wise gate: reshapes of the output and of the gate's
	 * sigmoid, multiplied (measured for step35: no memory taken over) */
	int o3 = ga_view(g, cur);
	int gt = gr_mm(g, d, il, "attn_gate.weight", an, H, T);
	gt = ga_op(g, 1, F32, H, T, 1, 1, S(gt));
	o3 = ga_op(g, 1, F32, dv, H, T, 1, S(o3, ga_view(g, gt)));
	return gr_mm(g, d, il, "attn_output.weight", ga_view(g, o3), d->E, T);
}

void gr_dots3note(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	/* a full first layer's first expand (its indexer keys) reaches the
	 * rotation before the tokens, as deepseek32's does; after a window
	 * layer the first full layer reaches it (gr_dsa_attention_ex) */
	if (m->kind[0] != LAYER_SWA)
		gr_input_once(g, &in->k_rot_lid, (uint64_t)m->indexer_head_size * m->indexer_head_size * 4);
	gr_trunk_moe(g, m, d, in, dots3_attention, "ffn_norm.weight", gr_ds2_ffn);
}
