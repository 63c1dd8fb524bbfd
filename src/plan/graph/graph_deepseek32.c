/* graph_deepseek32: DeepSeek-V3.2 (src/models/deepseek32.cpp), deepseek2's
 * MLA trunk with a lightning indexer per layer over the DSA cache
 * (llama-kv-cache-dsa.cpp: the MLA cache beside a cache of the indexer's
 * keys, one head of attention.indexer.key_length) and the attention mask
 * rebuilt per layer from the indexer's top-k cells (llama-graph.cpp
 * build_attn with the k_dsa input). The indexer is always the fused
 * ggml_lightning_indexer: llama_context sets fused_lid and no flag of
 * the pinned engine clears it. GLM-5 (src/models/glm-dsa.cpp) is the same
 * graph (its indexer roped NORM, not NeoX: the same nodes), but a layer
 * whose indexer is shared (model.h indexer_shared) stores no indexer keys
 * and scores nothing: its mask is rebuilt from the top-k cells of the
 * last full layer. */
#include "graph.h"

#include "../../payload/ggml_type.h"

/* build_norm with LLM_NORM and a bias: ggml_norm (never in place), named
 * "norm" and pinned like an rms norm, then the weight and the bias */
static int norm_b(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int il, const char *w,
		  const char *b)
{
	int n = ga_op(g, 0, F32, ne0, ne1, 1, 1, S(x));
	if (d->w->force_norm)
		g->t[n].force = gr_backend_of(d->w, d->w->pl->layer ? d->w->pl->layer[il] : -1);
	n = ga_op(g, 1, F32, ne0, ne1, 1, 1, S(n, gr_weight(g, d, il, w)));
	return ga_op(g, 1, F32, ne0, ne1, 1, 1, S(n, gr_weight(g, d, il, b)));
}

/* x (D wide, heads per token) NeoX-roped, then rotated by the indexer
 * cache's Hadamard input (a plain mul_mat: the head is the rotation's
 * size); returns the rotation's output, viewed. */
static int rope_rot(struct ga_graph *g, const struct dims *d, struct inputs *in, int x, int64_t D, int64_t heads)
{
	int pos = gr_input_once(g, &in->pos, (uint64_t)d->T * 4);
	int r = gr_rope(g, ga_view(g, x), pos, D, heads, d->T);
	r = gr_op_kind(g, ga_op(g, 0, F32, D, heads, d->T, 1, S(in->k_rot_lid, r)), GA_OP_MUL_MAT);
	return ga_view(g, r);
}

/* The indexer's keys of layer il into its cache, the layer's first
 * expand: projected to one head, layer-normed, roped, rotated, stored. */
static void indexer_keys(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			 int an)
{
	int64_t T = d->T, D = m->indexer_head_size;
	int k = gr_mm(g, d, il, "indexer.attn_k.weight", an, D, T);
	k = norm_b(g, d, k, D, T, il, "indexer.k_norm.weight", "indexer.k_norm.bias");
	k = rope_rot(g, d, in, k, D, 1);
	int kidx = gr_input_once(g, &in->k_idx_lid, (uint64_t)T * 8);
	int cache = gr_cache(g, d, il);
	ga_sink_to(g, cache, S(k, kidx, cache));
}

/* The indexer's top-k cells of a full layer (made contiguous): the
 * scores of q from the normed q latent qr (indexer heads x key length),
 * roped and rotated, over the cached keys, weighted by the heads' weights
 * (an's projection, scaled), under the indexer cache's own mask, always
 * F16 (the fused op's). */
static int dsa_top_k(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an,
		     int qr)
{
	int64_t T = d->T, ns = d->n_stream > 0 ? d->n_stream : 1, Tq = T / ns, n_kv = d->n_kv;
	int64_t H = m->indexer_n_head, D = m->indexer_head_size;
	int64_t k = n_kv < (int64_t)m->indexer_top_k ? n_kv : (int64_t)m->indexer_top_k;
	int q = gr_mm(g, d, il, "indexer.attn_q_b.weight", qr, H * D, T);
	q = rope_rot(g, d, in, q, D, H);
	const struct ggml_type_info *tk = ggml_type_get(d->k_type);
	uint64_t span = (uint64_t)(n_kv + (ns - 1) * d->kv_size) * ggml_row_bytes(tk, (uint64_t)D);
	int keys = ga_view_n(g, gr_cache(g, d, il), span);
	int w = gr_mm(g, d, il, "indexer.proj.weight", an, H, T);
	w = ga_op(g, 1, F32, H, Tq, 1, ns, S(ga_view(g, w)));
	int lmask = gr_input_once(g, &in->mask_lid, (uint64_t)n_kv * T * 2);
	int score = ga_op(g, 0, F32, n_kv, Tq, 1, ns, S(q, keys, w, lmask));
	int top = ga_op(g, 0, I32, k, Tq, 1, ns, S(score));
	return ga_op(g, 0, I32, k, Tq, 1, ns, S(top));
}

int gr_topk_zeros(struct ga_graph *g, int64_t k, int64_t Tq, int64_t ns)
{
	int z = gr_input_nd(g, 1, F32, 1, k, Tq, ns);
	return ga_op(g, 1, F32, 1, k, Tq, ns, S(z));
}

/* build_attn's mask for the DSA input, where the attention reaches it:
 * the MLA mask filled with -inf, the top-k cells of the indexer's scores
 * set to zero (set_rows of a zero-filled leaf), the MLA mask added; in
 * the order the graph visits set_rows' sources (the zeros, the cells,
 * then the filled mask): the layer's own cells, or (glm-dsa's shared
 * layer) the last full layer's. */
static int dsa_mask(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an,
		    int qr)
{
	int64_t T = d->T, ns = d->n_stream > 0 ? d->n_stream : 1, Tq = T / ns, n_kv = d->n_kv;
	int64_t k = n_kv < (int64_t)m->indexer_top_k ? n_kv : (int64_t)m->indexer_top_k;
	uint8_t mt = d->fa ? F16 : F32;
	int zeros = gr_topk_zeros(g, k, Tq, ns);
	if (!m->indexer_shared || !m->indexer_shared[il])
		in->top_k = dsa_top_k(g, m, d, in, il, an, qr);
	int top = ga_view(g, in->top_k);
	int mask = gr_input_once(g, &in->mask, (uint64_t)n_kv * T * (d->fa ? 2 : 4));
	int all = ga_op(g, 1, mt, n_kv, Tq, 1, ns, S(mask));
	int set = ga_sink_to(g, all, S(zeros, top, ga_view(g, all)));
	return ga_op(g, 1, mt, n_kv, Tq, 1, ns, S(ga_view_n(g, set, g->t[all].bytes), mask));
}

static int dsa_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			 int an)
{
	if (!m->indexer_shared || !m->indexer_shared[il])
		indexer_keys(g, m, d, in, il, an);
	return gr_mla_attention(g, m, d, in, il, an, dsa_mask);
}

int gr_dsa_attention_ex(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			int an, const struct gr_mla_opts *o)
{
	gr_input_once(g, &in->k_rot_lid, (uint64_t)m->indexer_head_size * m->indexer_head_size * 4);
	if (!m->indexer_shared || !m->indexer_shared[il])
		indexer_keys(g, m, d, in, il, an);
	return gr_mla_attention_ex(g, m, d, in, il, an, dsa_mask, o);
}

uint64_t gr_deepseek32_affine_from(const struct model *m)
{
	return m->indexer_top_k;
}

void gr_deepseek32(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	/* the graph's first leaf: the rotation is the first source of the
	 * first layer's first expand (its indexer keys) */
	gr_input_once(g, &in->k_rot_lid, (uint64_t)m->indexer_head_size * m->indexer_head_size * 4);
	gr_trunk_moe(g, m, d, in, dsa_attention, "ffn_norm.weight", gr_ds2_ffn);
}
