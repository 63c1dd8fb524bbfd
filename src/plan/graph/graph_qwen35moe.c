/* graph_qwen35moe: Qwen3.5-MoE (src/models/qwen35moe.cpp) is qwen35's
 * hybrid (graph_qwen35.c) with this FFN in every block and the MTP head. */
#include "graph.h"

#include <stdio.h>

/* build_layer_ffn: routed experts (softmax, weights normalised, scaled by
 * expert_weights_scale), then the shared expert gated per token by
 * sigmoid(ffn_gate_inp_shexp . x), added. */
int gr_qwen35moe_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	struct gr_moe_opts o = gr_moe_opts_softmax(m, 1);
	int moe = gr_moe_ex(g, d, il, x, T, &o);
	char name[64];
	snprintf(name, sizeof(name), "blk.%d.ffn_up_shexp.weight", il);
	const struct gguf_tensor *up = d->w->gg ? gguf_tensor_find(d->w->gg, name) : NULL;
	if (d->w->gg && !up)
		return moe;
	/* the shared expert's width: expert_shared_feed_forward_length, else
	 * feed_forward_length (read off the tensor when there is one) */
	int64_t F = up && up->n_dims >= 2 ? (int64_t)up->ne[1] : d->F;
	int sh = gr_ffn_shexp(g, d, il, x, T, F);
	int gate = gr_mm(g, d, il, "ffn_gate_inp_shexp.weight", x, 1, T);
	gate = ga_op(g, 1, F32, 1, T, 1, 1, S(gate));
	sh = ga_op(g, 1, F32, d->E, T, 1, 1, S(sh, gate));
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(moe, sh));
}
