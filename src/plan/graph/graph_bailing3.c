/* graph_bailing3: Bailing MoE 3 (src/models/bailingmoe3.cpp), Kimi delta
 * attention layers and gated MLA layers over a hybrid memory (the
 * recurrent states and a K-only cache), each followed by a dense FFN (the
 * leading layers) or biased experts beside a shared one.
 *
 * Unlike kimi-linear.cpp, a layer expands nothing before its first
 * build_rs or build_attn: a delta layer's conv states are gathered before
 * the previous layer's last nodes and its own input norm are visited. So
 * each layer leaves a tail (what none of its expands reaches) that the
 * next layer, after its gather, or the output norm visits: the attention's
 * gated output and the whole FFN half in a dense layer; in an expert layer
 * (build_moe_ffn expands the routing weights) only the experts, the shared
 * one and the residual adds. */
#include "graph.h"

#include <stdio.h>

struct bl3_tail {
	int il, recr, moe;
	int routed; /* the attention's tail, the FFN norm and the routing are built */
	int x, an;  /* the layer's input and its attention norm */
	int o;	    /* the delta net's output (recr) or build_attn's (MLA, before the gate) */
	int fi, fn; /* the residual add and the FFN norm, once routed */
	struct gr_moe_routed r;
};

/* The delta layer up to what it expands: q, k and v through their
 * conv windows (one into the cache per rollback snapshot written, the
 * first by gr_kda_conv_in), the SSM states gathered, the convs, the gate
 * (ssm_f_a with the dt bias, times A, its sigmoid scaled by the lower
 * bound), beta, the fused delta net and its state snapshots into the
 * cache. Returns the delta net. */
static int bl3_kda_head(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			int an, int rcache, int scache, int states)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int64_t H = d->H, hd = m->kda_head_dim, inner = H * hd, dc = d->d_conv ? d->d_conv : 4;
	int64_t n_written = nst < d->rs_k ? nst : d->rs_k;
	uint64_t win = 4ull * (dc - 1) + 4ull * (dc - 1 + nst) * (inner * ns - 1);
	int cx[3];
	for (int c = 0; c < 3; c++) {
		cx[c] = gr_kda_conv_in(g, d, il, an, rcache, states, c, inner);
		for (int64_t k = 1; k < n_written; k++)
			ga_sink_to(g, rcache, S(ga_view_n(g, cx[c], win), ga_view(g, rcache)));
	}
	int state = gr_rs_gather(g, d, in, scache, d->n_embd_s);
	int q = gr_kda_conv(g, d, il, cx[0], 0, hd, H);
	int k = gr_kda_conv(g, d, il, cx[1], 1, hd, H);
	int v = gr_kda_conv(g, d, il, cx[2], 2, hd, H);
	int gt = gr_mm(g, d, il, "ssm_f_a.weight", an, inner, T);
	gt = ga_op(g, 1, F32, inner, T, 1, 1, S(gt, gr_weight(g, d, il, "ssm_dt.bias")));
	gt = ga_op(g, 1, F32, hd, H, T, 1, S(ga_view(g, gt), ga_view(g, gr_weight(g, d, il, "ssm_a"))));
	gt = ga_op(g, 1, F32, hd, H, T, 1, S(ga_op(g, 1, F32, hd, H, T, 1, S(gt))));
	int beta = ga_view(g, gr_mm(g, d, il, "ssm_beta.weight", an, H, T));
	beta = ga_op(g, 1, F32, 1, H, nst, ns, S(beta));
	int delta = ga_op(g, 0, F32, inner * T + d->rs_k * d->n_embd_s * ns, 1, 1, 1,
			  S(q, k, v, ga_view(g, gt), beta, ga_view(g, state)));
	ga_sink_to(g, scache, S(ga_view(g, delta), ga_view(g, scache)));
	return delta;
}

/* The attention's tail, as the residual add reaches it: a delta layer's
 * output made contiguous, normed per head, gated by sigmoid(ssm_g_a),
 * made contiguous, projected; an MLA layer's gated per head by
 * sigmoid(attn_gate), made contiguous, projected. */
static int bl3_attn_tail(struct ga_graph *g, const struct model *m, const struct dims *d, const struct bl3_tail *t)
{
	int64_t T = d->T, H = d->H;
	int il = t->il;
	int64_t hd = t->recr ? m->kda_head_dim : m->head_v_mla;
	int o, gate;
	if (t->recr) {
		o = ga_op(g, 0, F32, hd, H, T / d->n_seq, d->n_seq, S(ga_view(g, t->o)));
		o = gr_norm(g, d, ga_view(g, o), hd, H, T, il, "ssm_norm.weight");
		gate = gr_mm(g, d, il, "ssm_g_a.weight", t->an, hd * H, T);
		gate = ga_op(g, 1, F32, hd, H, T, 1, S(ga_view(g, gate)));
	} else {
		o = ga_view(g, t->o);
		gate = gr_mm(g, d, il, "attn_gate.weight", t->an, H, T);
		gate = ga_op(g, 1, F32, 1, H, T, 1, S(ga_view(g, gate)));
	}
	o = ga_op(g, 1, F32, hd, H, T, 1, S(o, gate));
	o = ga_op(g, 0, F32, hd * H, T, 1, 1, S(o));
	return gr_mm(g, d, il, "attn_output.weight", o, d->E, T);
}

/* The residual add and the FFN norm after the attention's tail. */
static void bl3_ffn_in(struct ga_graph *g, const struct model *m, const struct dims *d, struct bl3_tail *t)
{
	int cur = bl3_attn_tail(g, m, d, t);
	t->fi = ga_gop(g, ga_op(g, 1, F32, d->E, d->T, 1, 1, S(cur, t->x)), GA_G_ADD);
	t->fn = gr_norm(g, d, t->fi, d->E, d->T, 1, t->il, "ffn_norm.weight");
}

/* build_moe_ffn's routing of x as the payload gates it (the selection
 * bias always there, the weights normalised and scaled as the keys say) */
static void bl3_route(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x,
		      struct gr_moe_routed *r)
{
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.probs_b = 1;
	gr_moe_route(g, d, il, x, d->T, &o, r);
}

/* The shared expert's width: n_ff_shexp (expert_shared_feed_forward_length,
 * which zealot's model does not read), as the payload's ffn_up_shexp has
 * it; else load_arch_hparams's default, ff_exp x max(1, shared) */
static int64_t bl3_shexp_width(const struct model *m, const struct dims *d, int il)
{
	char name[96];
	snprintf(name, sizeof(name), "blk.%d.ffn_up_shexp.weight", il);
	const struct gguf_tensor *t = d->w->gg ? gguf_tensor_find(d->w->gg, name) : NULL;
	if (t && t->n_dims >= 2)
		return (int64_t)t->ne[1];
	return d->F_exp * (m->n_expert_shared ? m->n_expert_shared : 1);
}

/* The rest of build_moe_ffn (the experts over x, their sum made
 * contiguous when one is used), the shared expert, their sum */
static int bl3_experts(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x,
		       const struct gr_moe_routed *r)
{
	int64_t T = d->T;
	int moe = gr_moe_experts(g, d, il, x, T, r, 0);
	if (d->n_expert_used <= 1)
		moe = ga_op(g, 0, F32, d->E, T, 1, 1, S(moe));
	int sh = gr_ffn_shexp(g, d, il, x, T, bl3_shexp_width(m, d, il));
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(moe, sh));
}

/* What is left of layer t when a later expand reaches it; returns the
 * layer's output. */
static int bl3_flush(struct ga_graph *g, const struct model *m, const struct dims *d, struct bl3_tail *t)
{
	if (!t->routed)
		bl3_ffn_in(g, m, d, t);
	int fo = t->moe ? bl3_experts(g, m, d, t->il, t->fn, &t->r) : gr_ffn(g, d, t->il, t->fn, d->T);
	return ga_gop(g, ga_op(g, 1, F32, d->E, d->T, 1, 1, S(fo, t->fi)), GA_G_ADD);
}

void gr_bailing3(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	struct bl3_tail prev = {0};
	prev.il = -1;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = il;
		struct bl3_tail t = {0};
		t.il = L;
		t.recr = m->has_rs[il];
		t.moe = il >= m->n_lead_dense;
		int rcache = -1, scache = -1, states = -1;
		if (t.recr) { /* build_rs: the conv states gathered before anything of the layer */
			gr_input_once(g, &in->s_copy, (uint64_t)d->n_seq * 4);
			rcache = gr_cache(g, d, L);
			scache = gr_cache(g, d, L);
			states = gr_rs_gather(g, d, in, rcache, d->n_embd_r);
		}
		if (prev.il >= 0)
			x = bl3_flush(g, m, d, &prev);
		t.x = x;
		t.an = gr_norm(g, d, x, d->E, d->T, 1, L, "attn_norm.weight");
		t.o = t.recr ? bl3_kda_head(g, m, d, in, L, t.an, rcache, scache, states)
			     : gr_mla_attention_kqv(g, m, d, in, L, t.an);
		if (t.moe) { /* build_moe_ffn expands its weights */
			bl3_ffn_in(g, m, d, &t);
			bl3_route(g, m, d, L, t.fn, &t.r);
			t.routed = 1;
		}
		prev = t;
	}
	if (prev.il >= 0)
		x = bl3_flush(g, m, d, &prev);
	int h = gr_norm(g, d, x, d->E, d->T, 1, -1, "output_norm.weight");
	g->t[h].output = 1; /* h_nextn: a graph output */
	gr_lm_rows(g, d, in, h);
}

/* The MTP block's attention: the trunk's gated MLA, whole */
static int bl3_mtp_attn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			int an)
{
	struct bl3_tail t = {0};
	t.il = il;
	t.an = an;
	t.o = gr_mla_attention_kqv(g, m, d, in, il, an);
	return bl3_attn_tail(g, m, d, &t);
}

/* The MTP block's FFN: the routed experts beside the shared one */
static int bl3_mtp_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)T;
	struct gr_moe_routed r;
	bl3_route(g, m, d, il, x, &r);
	return bl3_experts(g, m, d, il, x, &r);
}

/* bailingmoe3.cpp graph_mtp: the nextn block il over the target's hidden
 * state (gr_mtp_input), a K-only cache of its own; its final norm is the
 * block's layer_output_norm, then the output rows and the LM head */
void gr_bailing3_mtp(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il)
{
	int x = gr_mtp_input(g, d, in, il);
	int an = gr_norm(g, d, x, d->E, d->T, 1, il, "attn_norm.weight");
	x = gr_ffn_half(g, m, d, il, bl3_mtp_attn(g, m, d, in, il, an), x, d->T, "ffn_norm.weight", bl3_mtp_ffn);
	int h = gr_norm(g, d, x, d->E, d->T, 1, il, "layer_output_norm.weight");
	g->t[h].output = 1; /* h_nextn */
	gr_lm_rows(g, d, in, h);
}
