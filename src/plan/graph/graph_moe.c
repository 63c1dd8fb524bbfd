/* graph_moe: build_moe_ffn (llama-graph.cpp) in its two halves, for the
 * builders that visit them apart. build_moe_ffn expands the routing
 * weights as soon as they are built ("call early so that topk-moe can be
 * used"); in a hybrid builder whose layer ends are reached late (the
 * pending tails of graph_mamba.c) the routing, and all it depends on, is
 * visited with the layer while the experts wait for a later expand. The
 * nodes are gr_moe_ex's, in its order; gr_moe_ex and gr_moe are the two
 * halves in one. */
#include "graph.h"

#include <stdio.h>

/* build_lora_mm_id: the experts' matmul of one stack over x, the chosen
 * experts sel (k per token), ne0 rows out. */
int gr_mm_id(struct ga_graph *g, const struct dims *d, int il, const char *w, int x, int sel, int64_t ne0, int64_t k,
	     int64_t T)
{
	return gr_op_kind(g, ga_op(g, 0, F32, ne0, k, T, 1, S(gr_weight(g, d, il, w), x, sel)), GA_OP_MUL_MAT_ID);
}

struct gr_moe_opts gr_moe_opts_of(const struct model *m)
{
	struct gr_moe_opts o = {0};
	o.gating = (int)m->expert_gating;
	o.sigmoid = o.gating == 2;
	o.norm_w = m->expert_w_norm != 0;
	o.scale = m->expert_w_scale != 0.0 && m->expert_w_scale != 1.0; /* build_moe_ffn's test */
	return o;
}

struct gr_moe_opts gr_moe_opts_softmax(const struct model *m, int norm_w)
{
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.gating = o.sigmoid = 0;
	o.norm_w = norm_w;
	return o;
}

/* The expert groups (DeepSeek-V3): the top groups by the sum of their two
 * best scores, the other groups' scores masked out. */
static int moe_groups(struct ga_graph *g, int selp, int64_t ne, int64_t T, const struct gr_moe_opts *o)
{
	int64_t G = o->n_groups, per = ne / G, gu = o->n_group_used;
	int sg = ga_view(g, selp);
	int sg4 = ga_view(g, sg);
	int gsort = ga_gop(g, ga_op(g, 0, I32, per, G, T, 1, S(sg)), GA_G_ARGSORT);
	int gs = ga_view_n(g, gsort, (uint64_t)((G * T - 1) * per + 2) * 4);
	int top2 = gr_op_kind(g, ga_op(g, 0, F32, 1, 2, G, T, S(sg4, gs)), GA_OP_GET_ROWS);
	int gsum = ga_gop(g, ga_op(g, 0, F32, 1, G, T, 1, S(ga_view(g, top2))), GA_G_SUM_ROWS);
	int esort = ga_gop(g, ga_op(g, 0, I32, G, T, 1, 1, S(ga_view(g, gsum))), GA_G_ARGSORT);
	int eg = ga_view_n(g, esort, (uint64_t)((T - 1) * G + gu) * 4);
	int sp = gr_op_kind(g, ga_op(g, 0, F32, per, gu, T, 1, S(sg, eg)), GA_OP_GET_ROWS);
	int fill = ga_op(g, 1, F32, per, G, T, 1, S(sg));
	int set = ga_sink_to(g, fill, S(sp, eg, fill));
	return ga_view(g, set);
}

/* The router, the gating (softmax or sigmoid: the same nodes), the
 * optional selection bias (exp_probs_b, DeepSeek-V3), the expert groups,
 * the weights of the chosen experts normalised and scaled as o says. */
void gr_moe_route(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_opts *o,
		  struct gr_moe_routed *r)
{
	int64_t ne = d->n_expert, k = d->n_expert_used;
	int logits = o->logits_in ? o->logits_in - 1 : gr_mm(g, d, il, "ffn_gate_inp.weight", x, ne, T);
	int probs = logits; /* SOFTMAX_WEIGHT: the logits themselves */
	if (o->gating == 4) /* sqrt(softplus(logits)) */
		probs = ga_gop(
		    g,
		    ga_op(g, 1, F32, ne, T, 1, 1, S(ga_gop(g, ga_op(g, 1, F32, ne, T, 1, 1, S(logits)), GA_G_UNARY))),
		    GA_G_SQRT);
	else if (o->gating != 3) /* soft_max or sigmoid */
		probs = ga_gop(g, ga_op(g, 1, F32, ne, T, 1, 1, S(logits)), o->sigmoid ? GA_G_UNARY : GA_G_SOFT_MAX);
	int probs3 = ga_view(g, probs);
	int selp = o->sel_sigmoid ? ga_op(g, 1, F32, ne, T, 1, 1, S(logits)) : probs;
	if (o->probs_b)
		selp = ga_gop(g, ga_op(g, 1, F32, ne, T, 1, 1, S(probs, gr_weight(g, d, il, "exp_probs_b.bias"))),
			      GA_G_ADD);
	if (o->n_groups > 1)
		selp = moe_groups(g, selp, ne, T, o);
	int order = ga_gop(g, ga_op(g, 0, I32, ne, T, 1, 1, S(selp)), GA_G_ARGSORT);
	int sel = ga_view_n(g, order, (uint64_t)((T - 1) * ne + k) * 4);
	if (o->chunk) { /* cast to f32, scaled by 1/experts_per_group, cast back */
		int f = ga_op(g, 0, F32, k, T, 1, 1, S(sel));
		sel = ga_op(g, 0, I32, k, T, 1, 1, S(ga_op(g, 1, F32, k, T, 1, 1, S(f))));
	}
	int w = gr_op_kind(g, ga_op(g, 0, F32, 1, k, T, 1, S(probs3, sel)), GA_OP_GET_ROWS);
	if (o->gating == 3) /* a softmax over the chosen experts' logits */
		w = ga_view(g, ga_gop(g, ga_op(g, 1, F32, k, T, 1, 1, S(ga_view(g, w))), GA_G_SOFT_MAX));
	if (o->norm_w)
		w = gr_moe_norm_w(g, w, k, T);
	if (o->scale)
		w = ga_op(g, 1, F32, 1, k, T, 1, S(w));
	r->w = w;
	r->sel = sel;
	r->chexps = o->chunk;
}

/* The chosen experts over x: up and gate (act 0: a SwiGLU of the two; one
 * fused gate_up stack where the builder passes it and the payload has
 * it: a matmul, then two views) or up alone (act 1: squared ReLU,
 * Nemotron-H; act 4: GELU, nomic-bert-moe) or situ (act 2, 3: kimi-k3),
 * down, weighted by the routing, the k views of the experts and their
 * sum; *experts: the weighting MUL. */
static int moe_experts(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T,
		       const struct gr_moe_routed *r, int act, int fused_ok, int *experts)
{
	int64_t k = d->n_expert_used, F = d->F_exp;
	int cur = ga_view(g, x);
	int h;
	if (act == 0 && fused_ok && gr_has_tensor(d, il, "ffn_gate_up_exps.weight")) {
		int gu = gr_mm_id(g, d, il, "ffn_gate_up_exps.weight", cur, r->sel, 2 * F, k, T);
		uint64_t span = (uint64_t)(F + (k * T - 1) * 2 * F) * 4;
		int gate = ga_view_n(g, gu, span), up = ga_view_n(g, gu, span);
		h = ga_op(g, 0, F32, F, k, T, 1, S(gate, up));
	} else if (act == 2 || act == 3) { /* situ (2: with the up branch's transform): the gate's half, then up */
		int a = gr_situ_gate(g, gr_mm_id(g, d, il, "ffn_gate_exps.weight", cur, r->sel, F, k, T), F, k, T);
		int up = gr_mm_id(g, d, il, "ffn_up_exps.weight", cur, r->sel, F, k, T);
		h = gr_situ_up(g, a, up, act == 2, F, k, T);
	} else {
		int up =
		    gr_mm_id(g, d, il, r->chexps ? "ffn_up_chexps.weight" : "ffn_up_exps.weight", cur, r->sel, F, k, T);
		if (act == 1) {
			h = ga_op(g, 1, F32, F, k, T, 1, S(up));
			h = ga_op(g, 1, F32, F, k, T, 1, S(h));
		} else if (act == 4) { /* GELU without a gate */
			h = ga_op(g, 1, F32, F, k, T, 1, S(up));
		} else {
			int gate = gr_mm_id(g, d, il, r->chexps ? "ffn_gate_chexps.weight" : "ffn_gate_exps.weight",
					    cur, r->sel, F, k, T);
			h = ga_op(g, 0, F32, F, k, T, 1, S(gate, up));
		}
	}
	int down =
	    gr_mm_id(g, d, il, r->chexps ? "ffn_down_chexps.weight" : "ffn_down_exps.weight", h, r->sel, d->E, k, T);
	*experts = ga_op(g, 1, F32, d->E, k, T, 1, S(down, r->w));
	return gr_moe_sum(g, d, *experts, k, T);
}

/* With one expert the caller conts the view (build_moe_ffn's cont is not
 * expanded with the layer). */
int gr_moe_experts(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_routed *r,
		   int act)
{
	int experts;
	return moe_experts(g, d, il, x, T, r, act, 0, &experts);
}

/* build_moe_ffn in full (llama-graph.cpp): the routing, then the experts
 * (a fused gate_up stack where the payload has one), their sum made
 * contiguous when one expert is used. */
int gr_moe_ex(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_opts *o)
{
	struct gr_moe_routed r;
	int experts;
	gr_moe_route(g, d, il, x, T, o, &r);
	int out = moe_experts(g, d, il, x, T, &r, 0, 1, &experts);
	if (d->n_expert_used <= 1)
		out = ga_op(g, 0, F32, d->E, T, 1, 1, S(out));
	return out;
}

/* build_moe_ffn as qwen3moe.cpp calls it: softmax gating, normalised
 * top-k weights, a gated SiLU, no fused stack. */
int gr_moe(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T)
{
	return gr_moe_norm(g, d, il, x, T, 1);
}

/* The same with the top-k weights normalised or not (norm_w): llada-moe
 * passes false, rnd1 true (src/models/llada-moe.cpp, rnd1.cpp). */
int gr_moe_norm(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, int norm_w)
{
	struct gr_moe_opts o = {0};
	struct gr_moe_routed r;
	int experts;
	int64_t k = d->n_expert_used;
	o.norm_w = norm_w;
	gr_moe_route(g, d, il, x, T, &o, &r);
	/* the views are built (and expanded) before the adds */
	int out = moe_experts(g, d, il, x, T, &r, 0, 0, &experts);
	if (k <= 1)
		out = ga_op(g, 0, F32, d->E, T, 1, 1, S(out));
	else if (k <= 15) /* ggml-cuda's MoE weighted reduction: 2..15 experts */
		g->t[experts].moe_dst = out + 1;
	return out;
}

/* The routed experts (gr_moe_ex) and a shared expert of width F_sh
 * (build_ffn over the *_shexp weights), added: the MoE FFN of
 * deepseek2.cpp, kimi-linear.cpp, glm4-moe.cpp and deepseek.cpp alike. */
int gr_moe_shared(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, const struct gr_moe_opts *o,
		  int64_t F_sh)
{
	int moe = gr_moe_ex(g, d, il, x, T, o);
	int sh = gr_ffn_shexp(g, d, il, x, T, F_sh);
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(moe, sh));
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
