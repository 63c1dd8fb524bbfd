/* graph_moe: build_moe_ffn (llama-graph.cpp) in its two halves, for the
 * builders that visit them apart. build_moe_ffn expands the routing
 * weights as soon as they are built ("call early so that topk-moe can be
 * used"); in a hybrid builder whose layer ends are reached late (the
 * pending tails of graph_mamba.c) the routing, and all it depends on, is
 * visited with the layer while the experts wait for a later expand. The
 * nodes are gr_moe_ex's, in its order. */
#include "graph.h"

#include <stdio.h>

/* The router, the gating, the optional selection bias, the weights of
 * the chosen experts normalised and scaled as o says (expert groups:
 * gr_moe_ex only). */
void gr_moe_route(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_opts *o,
		  struct gr_moe_routed *r)
{
	int64_t ne = d->n_expert, k = d->n_expert_used;
	int logits = gr_mm(g, d, il, "ffn_gate_inp.weight", x, ne, T);
	int probs = logits; /* SOFTMAX_WEIGHT: the logits themselves */
	if (o->gating == 4) /* sqrt(softplus(logits)) */
		probs = ga_op(g, 1, F32, ne, T, 1, 1, S(ga_op(g, 1, F32, ne, T, 1, 1, S(logits))));
	else if (o->gating != 3) /* soft_max or sigmoid */
		probs = ga_op(g, 1, F32, ne, T, 1, 1, S(logits));
	int probs3 = ga_view(g, probs);
	int selp = probs;
	if (o->probs_b)
		selp = ga_op(g, 1, F32, ne, T, 1, 1, S(probs, gr_weight(g, d, il, "exp_probs_b.bias")));
	int order = ga_op(g, 0, I32, ne, T, 1, 1, S(selp));
	int sel = ga_view_n(g, order, (uint64_t)((T - 1) * ne + k) * 4);
	int w = gr_op_kind(g, ga_op(g, 0, F32, 1, k, T, 1, S(probs3, sel)), GA_OP_GET_ROWS);
	if (o->gating == 3) /* a softmax over the chosen experts' logits */
		w = ga_view(g, ga_op(g, 1, F32, k, T, 1, 1, S(ga_view(g, w))));
	if (o->norm_w)
		w = gr_moe_norm_w(g, w, k, T);
	if (o->scale)
		w = ga_op(g, 1, F32, 1, k, T, 1, S(w));
	r->w = w;
	r->sel = sel;
}

/* The chosen experts over x, as build_moe_ffn expands them with the
 * layer: up and gate (act 0: a SwiGLU of the two) or up alone (act 1:
 * squared ReLU, Nemotron-H), down, weighted by the routing, the k views
 * of the experts and their sum. With one expert the caller conts the view
 * (build_moe_ffn's cont is not expanded with the layer). */
int gr_moe_experts(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_routed *r,
		   int act)
{
	int64_t k = d->n_expert_used;
	int cur = ga_view(g, x);
	int up = gr_op_kind(
	    g, ga_op(g, 0, F32, d->F_exp, k, T, 1, S(gr_weight(g, d, il, "ffn_up_exps.weight"), cur, r->sel)),
	    GA_OP_MUL_MAT_ID);
	int h;
	if (act == 1) {
		h = ga_op(g, 1, F32, d->F_exp, k, T, 1, S(up));
		h = ga_op(g, 1, F32, d->F_exp, k, T, 1, S(h));
	} else {
		int gate = gr_op_kind(
		    g, ga_op(g, 0, F32, d->F_exp, k, T, 1, S(gr_weight(g, d, il, "ffn_gate_exps.weight"), cur, r->sel)),
		    GA_OP_MUL_MAT_ID);
		h = ga_op(g, 0, F32, d->F_exp, k, T, 1, S(gate, up));
	}
	int down =
	    gr_op_kind(g, ga_op(g, 0, F32, d->E, k, T, 1, S(gr_weight(g, d, il, "ffn_down_exps.weight"), h, r->sel)),
		       GA_OP_MUL_MAT_ID);
	int experts = ga_op(g, 1, F32, d->E, k, T, 1, S(down, r->w));
	return gr_moe_sum(g, d, experts, k, T);
}

/* Mistral Small 4 (src/models/mistral4.cpp): deepseek2's model with a
 * build_arch_graph of its own that builds the trunk's graph for every
 * graph type, so its MTP draft context reserves the whole trunk (the
 * boot's draft compute buffer equals the target's), never deepseek2's
 * nextn head. */
void gr_mistral4_mtp(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il)
{
	(void)il;
	gr_deepseek2(g, m, d, in);
}
