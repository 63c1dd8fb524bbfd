/* graph_embed: llama-embed (src/models/llama-embed.cpp), llama's graph
 * built with embed = true (src/models/llama.cpp graph<true>): the llama
 * block, but its attention takes build_attn_inp_no_cache (q, k and v of
 * the ubatch alone, expanded in that order, no cache written or read),
 * and the graph ends at the final norm (t_embd): no lm_head. The engine
 * still makes the default KV cache for it (create_memory names no
 * llama-embed), which the plan prices. With EMBEDDINGS=on build_pooling
 * follows (graph.c: gr_pooling). */
#include "graph.h"

static int embed_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int x,
		       int an, int last, const void *ctx)
{
	(void)ctx;
	int64_t T = d->T;
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int q = gr_rope(g, ga_view(g, gr_mm(g, d, L, "attn_q.weight", an, d->D * d->H, T)), pos, d->D, d->H, T);
	int k = gr_rope(g, ga_view(g, gr_mm(g, d, L, "attn_k.weight", an, d->D * d->Hkv, T)), pos, d->D, d->Hkv, T);
	int v = ga_view(g, gr_mm(g, d, L, "attn_v.weight", an, d->D * d->Hkv, T));
	int mask = gr_input_once(g, &in->mask, (uint64_t)T * T * (d->fa ? 2 : 4));
	int o = gr_attend_nc(g, d, q, k, v, mask);
	int cur = gr_mm(g, d, L, "attn_output.weight", o, d->E, T);
	return gr_layer_end(g, m, d, in, L, last, cur, x, 0, "ffn_norm.weight", gr_ffn_dense);
}

void gr_llama_embed(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int x = gr_layers(g, m, d, in, embed_layer, NULL);
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	g->t[rn].output = 1; /* result_norm: t_embd, a graph output */
	gr_pooling(g, d, rn, To);
}
