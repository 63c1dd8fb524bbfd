/* graph_moe2: more of llama's MoE kin, one builder over the block they
 * share (the pinned engine's src/models/NAME.cpp): the attention norm,
 * build_qkv (a fused qkv projection viewed three ways, or q, k and v),
 * per-head q/k norms before RoPE where the payload has them, build_attn
 * (q, v, k expanded), the last layer's output rows, then the family's
 * FFN half and the LM head.
 *
 * dbrx.cpp: layer norms (ggml_norm, never in place); the fused qkv
 * clamped (attention.clamp_kqv); the FFN norm is attn_output_norm;
 * softmax experts ff wide, weights normalised.
 * arctic.cpp: a dense FFN embd wide over ffn_norm, its residual added,
 * then softmax experts ff wide over the layer's input (its output rows
 * in the last layer) normed by ffn_norm_exps, added to it.
 * grok.cpp: the attention's output normed (attn_output_norm) before its
 * residual; without flash attention KQ scaled, tanh'd and scaled before
 * the softmax (build_attn_mha); GELU experts ff_exp (or ff) wide,
 * normalised, beside grok-2's dense FFN where the payload has one (their
 * sum scaled); the FFN's output normed (layer_output_norm, else
 * post_ffw_norm) before its residual; the logits scaled by logit_scale
 * (and soft-capped when final_logit_softcapping is set).
 * dots1.cpp, bailingmoe.cpp and bailingmoe2.cpp: deepseek2's FFN (dense
 * leading layers, then routed experts as the payload gates them beside
 * the shared ones); dots1 and bailingmoe2 norm q and k per head
 * (bailingmoe2 over the views of its fused qkv).
 * exaone-moe.cpp: dots1's layer over an iSWA cache, RoPE on the
 * window's layers only.
 * granite-swa.cpp: llama's attention over an iSWA cache (q, k, v), RoPE
 * on every layer, a sink per head; Granite's residual and logit scales;
 * a dense FFN or softmax experts ff wide (no deepstack inputs, no shared
 * expert).
 * grovemoe.cpp: dots1's attention; softmax experts ff_exp wide, then
 * chunk experts over their output (grove_ffn).
 * hy-v3.cpp (no MTP context): dots1's layer and FFN, every row kept to
 * the final norm (h_nextn, a graph output), then the output rows.
 * smallthinker.cpp (without a sliding window): the router reads the
 * layer's input, not the FFN's; ReLU experts ff_exp wide, normalised.
 * cohere2moe.cpp (no MTP context): a parallel block over an iSWA cache,
 * RoPE on the window's and the dense leading layers; deepseek2's FFN
 * over the attention's normed input (routed plus shared experts halved),
 * plus the input, plus the attention's projection (reached last); every
 * row kept to the final norm (hy_v3's), the logits scaled.
 * laguna.cpp (without a sliding window): dots1's attention (q/k norms,
 * RoPE on every layer) without its projection, then a softplus gate
 * over the layer's normed input, per head or per element as the
 * payload's attn_gate is wide, then attn_output; deepseek2's FFN.
 * mimo2.cpp (no MTP context): llama's attention over an iSWA cache
 * (RoPE on every layer, a sink per head where the payload has them),
 * its output scaled by attention.value_scale when set (not 1); a dense
 * FFN where a layer has no router, else sigmoid experts, normalised,
 * over the selection bias where the payload has it.
 * step35.cpp (no MTP context): dots1's attention (q/k norms where the
 * payload has them, RoPE on every layer) over an iSWA cache, gated per
 * head by a sigmoid where the payload has attn_gate; every row kept to
 * the end (h_nextn: the last layer's output, a graph output), then its
 * output rows, the final norm; a dense FFN where a layer has no router,
 * else experts as the payload gates them beside the shared one
 * (expert_shared_feed_forward_length wide).
 * muse-glimmer.cpp: dense; the embeddings RMS-normed without a weight;
 * exaone-moe's attention (q/k norms, RoPE on the window's layers) gated
 * per element by a sigmoid, attn_output, a post norm (rms_norm and its
 * weight outside build_norm); a dense FFN and its post norm; the logits
 * scaled by logit_scale (and soft-capped when final_logit_softcapping is
 * set).
 * afmoe.cpp: the embeddings scaled by sqrt(n_embd); muse-glimmer's
 * attention (over an iSWA cache, RoPE on every layer but each 4th, the
 * engine's n_no_rope_layer_step) and post norms (build_norm's here),
 * deepseek2's FFN between them (synth writes the shared expert afmoe
 * makes optional). */
#include "graph.h"

#include <stdio.h>
#include <string.h>

enum {
	KIN_DBRX,
	KIN_ARCTIC,
	KIN_GROK,
	KIN_SHARED,
	KIN_THINKER,
	KIN_GRANITE,
	KIN_GROVE,
	KIN_HYV3,
	KIN_COHERE,
	KIN_MIMO,
	KIN_STEP,
	KIN_MUSE,
	KIN_AFMOE
};

struct kin {
	int kind;
	int clamp;     /* attention.clamp_kqv > 0 */
	int res_scale; /* granite_swa: residual_scale set */
	int v_scale;   /* mimo2: attention.value_scale set, not 1 */
};

static int kin_norm(struct ga_graph *g, const struct dims *d, const struct kin *k, int x, int64_t T, int il,
		    const char *w)
{
	return k->kind == KIN_DBRX ? gr_lnorm(g, d, x, d->E, T, 1, il, w) : gr_norm(g, d, x, d->E, T, 1, il, w);
}

/* q or k of H heads: a view of the fused projection (off elements in)
 * or its own projection, normed per head where the payload has the
 * weight, RoPE'd (pos >= 0), rotated for a quantized cache */
static int kin_qk(struct ga_graph *g, const struct dims *d, int L, int qkv, int an, char c, int64_t H, int pos,
		  int *krot)
{
	int64_t T = d->T, n = d->D * H;
	int x;
	if (qkv >= 0) {
		x = ga_view_n(g, qkv, (uint64_t)((T - 1) * g->t[qkv].ne[0] + n) * 4);
	} else {
		char w[32];
		snprintf(w, sizeof(w), "attn_%c.weight", c);
		x = ga_view(g, gr_mm(g, d, L, w, an, n, T));
	}
	char nw[32];
	snprintf(nw, sizeof(nw), "attn_%c_norm.weight", c);
	if (gr_has_tensor(d, L, nw))
		x = gr_norm(g, d, x, d->D, H, T, L, nw);
	if (pos >= 0)
		x = gr_rope(g, x, pos, d->D, H, T);
	return gr_rotate(g, x, n * T, d->k_rot, krot);
}

/* A layer's attention between its two halves: q ready, K and V stored */
struct kin_att {
	struct dims d; /* the attention's dims (grok's KQ ops) */
	int q, swa, sinks, cache[2];
	int *vrot; /* the V rotation's input */
};

/* build_qkv, RoPE and what build_attn expands of layer L over its normed
 * input an: q, v, k (the iSWA builder: q, k, v, for a window on some
 * layers: exaone-moe, which ropes only those, and granite_swa) and the
 * cache stores; the attention itself is kin_core */
static void kin_attn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int an,
		     const struct kin *k, struct kin_att *a)
{
	int64_t T = d->T, nkv = d->D * d->Hkv, nall = d->D * (d->H + 2 * d->Hkv);
	int iswa = m->n_kind[LAYER_SWA] > 0;
	int *krot;
	a->swa = m->kind[L] == LAYER_SWA;
	gr_rot_inputs(g, d, in, a->swa, &krot, &a->vrot);
	/* granite_swa ropes every layer (its rope_pattern unset) */
	int rope = !iswa || a->swa || k->kind == KIN_GRANITE || k->kind == KIN_MIMO || k->kind == KIN_STEP ||
		   (k->kind == KIN_COHERE && (uint32_t)L < m->n_lead_dense);
	if (k->kind == KIN_AFMOE)
		rope = (L + 1) % 4 != 0;
	int pos = rope ? gr_input_once(g, &in->pos, (uint64_t)T * 4) : -1;
	int qkv = -1;
	if (gr_has_tensor(d, L, "attn_qkv.weight")) {
		qkv = gr_mm(g, d, L, "attn_qkv.weight", an, nall, T);
		if (k->clamp)
			qkv = ga_op(g, 1, F32, nall, T, 1, 1, S(qkv));
	}
	a->q = kin_qk(g, d, L, qkv, an, 'q', d->H, pos, krot);
	int kk = iswa ? kin_qk(g, d, L, qkv, an, 'k', d->Hkv, pos, krot) : -1;
	int v = qkv >= 0 ? ga_view_n(g, qkv, (uint64_t)((T - 1) * nall + nkv) * 4)
			 : ga_view(g, gr_mm(g, d, L, "attn_v.weight", an, nkv, T));
	v = gr_rotate(g, v, nkv * T, d->v_rot, a->vrot);
	if (!iswa)
		kk = kin_qk(g, d, L, qkv, an, 'k', d->Hkv, pos, krot);
	a->d = *d;
	a->d.kq_ops = k->kind == KIN_GROK ? 3 : 0;
	a->sinks = gr_has_tensor(d, L, "attn_sinks.weight") ? gr_weight(g, d, L, "attn_sinks.weight") : -1;
	gr_attend_store(g, &a->d, in, L, kk, v, a->swa, a->cache);
}

static int kin_core(struct ga_graph *g, struct inputs *in, const struct kin_att *a)
{
	return gr_attend_core(g, &a->d, in, a->q, a->swa, a->sinks, a->cache);
}

/* o laid out as a per-element gate's MUL sees it without flash
 * attention (n x T): the softmax path's cont_2d, which the MUL takes
 * over in place (left 3D, the replay put the MUL on the gate and the
 * plan of a 4-layer muse-glimmer came out 1.19 % over the boot). Flash
 * attention's output reaches the MUL through a reshape, which the boot
 * measured it does not take over (laid out so, afmoe's plan was 9.33 %
 * under) */
static void kin_shape(struct ga_graph *g, int o, int64_t n, int64_t T)
{
	struct ga_tensor *t = &g->t[o];
	if (t->is_view || t->ne[0] * t->ne[1] * t->ne[2] * t->ne[3] != n * T)
		return;
	t->ne[0] = n;
	t->ne[1] = T;
	t->ne[2] = t->ne[3] = 1;
}

/* laguna's gate on the attention's output o (before its projection):
 * attn_gate over the normed input an, softplus (a sigmoid: step35,
 * muse-glimmer), times o per head (a gate H wide) or per element */
static int kin_gate(struct ga_graph *g, const struct dims *d, int L, int an, int o)
{
	int64_t T = d->T, n = d->D * d->H, w = d->H;
	char nm[64];
	snprintf(nm, sizeof(nm), "blk.%d.attn_gate.weight", L);
	const struct gguf_tensor *t = d->w->gg ? gguf_tensor_find(d->w->gg, nm) : NULL;
	if (t)
		w = (int64_t)t->ne[1];
	int gt = gr_mm(g, d, L, "attn_gate.weight", an, w, T);
	gt = ga_op(g, 1, F32, w, T, 1, 1, S(gt));
	if (w != d->H) {
		if (!d->fa)
			kin_shape(g, o, n, T);
		return ga_op(g, 1, F32, n, T, 1, 1, S(o, gt));
	}
	/* per head the MUL's source is a reshape: measured, the boot takes
	 * no memory over for it */
	return ga_view(g, ga_op(g, 1, F32, d->D, d->H, T, 1, S(ga_view(g, o), ga_view(g, gt))));
}

/* the attention's output rotation undone, attn_output */
static int kin_wo(struct ga_graph *g, const struct dims *d, int L, int o, int *vrot)
{
	o = gr_rotate(g, ga_view(g, o), d->D * d->H * d->T, d->v_rot, vrot);
	return gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, d->T);
}

static int add(struct ga_graph *g, const struct dims *d, int a, int b, int64_t T)
{
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(a, b));
}

/* build_moe_ffn with softmax gating, normalised weights, F wide; scaled
 * when expert_weights_scale is neither 0 nor 1 */
static int kin_moe(struct ga_graph *g, const struct model *m, const struct dims *d, int L, int x, int64_t T, int64_t F)
{
	struct dims de = *d;
	de.F_exp = F;
	struct gr_moe_opts o = gr_moe_opts_softmax(m, 1);
	return gr_moe_ex(g, &de, L, x, T, &o);
}

/* grok's FFN half over the attention's output cur (T rows) and the
 * residual res */
static int grok_ffn_half(struct ga_graph *g, const struct model *m, const struct dims *d, int L, int cur, int res,
			 int64_t T)
{
	cur = gr_norm(g, d, cur, d->E, T, 1, L, "attn_output_norm.weight");
	int fi = add(g, d, cur, res, T);
	int fn = gr_norm(g, d, fi, d->E, T, 1, L, "ffn_norm.weight");
	int moe = kin_moe(g, m, d, L, fn, T, d->F_exp ? d->F_exp : d->F);
	if (gr_has_tensor(d, L, "ffn_up.weight")) /* (dense + experts) x sqrt(2)/2 */
		cur = ga_op(g, 1, F32, d->E, T, 1, 1, S(add(g, d, gr_ffn(g, d, L, fn, T), moe, T)));
	else
		cur = moe;
	const char *post =
	    gr_has_tensor(d, L, "layer_output_norm.weight") ? "layer_output_norm.weight" : "post_ffw_norm.weight";
	cur = gr_norm(g, d, cur, d->E, T, 1, L, post);
	return add(g, d, cur, fi, T);
}

/* mimo2.cpp's FFN: dense without a router, else sigmoid experts,
 * normalised, biased where the payload has the bias (the engine reads
 * no scale) */
static int mimo_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int L, int x, int64_t T)
{
	(void)m;
	if (!gr_has_tensor(d, L, "ffn_gate_inp.weight"))
		return gr_ffn(g, d, L, x, T);
	struct gr_moe_opts o = {0};
	o.sigmoid = 1;
	o.gating = 2;
	o.norm_w = 1;
	o.probs_b = gr_has_tensor(d, L, "exp_probs_b.bias");
	return gr_moe_ex(g, d, L, x, T, &o);
}

/* step35.cpp's FFN: dense without a router, else the routed experts as
 * the payload gates them beside the shared one, added */
static int step_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int L, int x, int64_t T)
{
	if (!gr_has_tensor(d, L, "ffn_gate_inp.weight"))
		return gr_ffn(g, d, L, x, T);
	uint64_t sh = 0;
	if (d->w->gg)
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.expert_shared_feed_forward_length", m->arch), &sh);
	struct gr_moe_opts o = gr_moe_opts_of(m);
	if (!o.gating) { /* the engine's default: sigmoid */
		o.gating = 2;
		o.sigmoid = 1;
	}
	o.probs_b = gr_has_tensor(d, L, "exp_probs_b.bias");
	return gr_moe_shared(g, d, L, x, T, &o, (int64_t)sh);
}

/* smallthinker.cpp: the router over the layer's input x (its output
 * rows in the last layer), handed to build_moe_ffn as probs_in; its
 * routing is expanded after the attention, before its projection */
static void thinker_route(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L,
			  int x, int last, struct gr_moe_routed *r)
{
	int64_t T = d->T;
	int logits = gr_mm(g, d, L, "ffn_gate_inp.weight", x, d->n_expert, T);
	if (last) {
		T = d->n_out < T ? d->n_out : T;
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)T * 4);
		logits = gr_op_kind(g, ga_op(g, 0, F32, d->n_expert, T, 1, 1, S(logits, ids)), GA_OP_GET_ROWS);
	}
	/* the replay builds softmax's nodes whatever the gating (the engine
	 * builds sigmoid's for gating 2: ggml-vulkan orders them apart) */
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.sigmoid = 0;
	o.norm_w = 1;
	o.logits_in = logits + 1;
	gr_moe_route(g, d, L, x, T, &o, r);
}

/* grovemoe.cpp's FFN over its normed input fn: one router's logits
 * handed to two build_moe_ffn calls (softmax weights, the choice over
 * their sigmoid), their routings expanded before either's experts: the
 * experts ff_exp wide over fn, then the chunk experts (one per group,
 * the choice divided by the group's size) over their output, scaled and
 * added to it */
static int grove_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int L, int fn, int64_t T)
{
	uint64_t per = 1, fc = 0;
	if (d->w->gg) {
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.experts_per_group", m->arch), &per);
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.expert_chunk_feed_forward_length", m->arch), &fc);
	}
	int64_t n_chunk = d->n_expert / (int64_t)(per ? per : 1);
	struct dims d2 = *d;
	d2.n_expert_used = d->n_expert_used < n_chunk ? d->n_expert_used : n_chunk;
	d2.F_exp = (int64_t)fc;
	struct gr_moe_opts o = gr_moe_opts_softmax(m, 1);
	o.logits_in = gr_mm(g, d, L, "ffn_gate_inp.weight", fn, d->n_expert, T) + 1;
	o.sel_sigmoid = 1;
	struct gr_moe_routed r1, r2;
	gr_moe_route(g, d, L, fn, T, &o, &r1);
	o.chunk = d2.n_expert_used > 0 && n_chunk != d->n_expert;
	gr_moe_route(g, &d2, L, fn, T, &o, &r2);
	r2.chexps = 1;
	int moe = gr_moe_experts(g, d, L, fn, T, &r1, 0);
	if (d->n_expert_used <= 1)
		moe = ga_op(g, 0, F32, d->E, T, 1, 1, S(moe));
	int ch = gr_moe_experts(g, &d2, L, moe, T, &r2, 0);
	if (d2.n_expert_used <= 1)
		ch = ga_op(g, 0, F32, d->E, T, 1, 1, S(ch));
	return add(g, d, moe, ga_op(g, 1, F32, d->E, T, 1, 1, S(ch)), T);
}

/* arctic.cpp's experts over the layer's input *x (its output rows in the
 * last layer, *x then the rows) normed by ffn_norm_exps: the routing
 * expanded by build_moe_ffn, the experts reached first by the layer's
 * last add (its first source), both before attn_output */
static int arctic_moe(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int *x,
		      int last)
{
	int64_t T = d->T;
	if (last) {
		T = d->n_out < T ? d->n_out : T;
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)T * 4);
		*x = gr_op_kind(g, ga_op(g, 0, F32, d->E, T, 1, 1, S(*x, ids)), GA_OP_GET_ROWS);
	}
	return kin_moe(g, m, d, L, gr_norm(g, d, *x, d->E, T, 1, L, "ffn_norm_exps.weight"), T, d->F);
}

/* cohere2moe's FFN over the normed input an (every row), deepseek2's with
 * the routed and shared experts' sum halved, plus the input x; then the
 * attention's projection o, added */
static int cohere_half(struct ga_graph *g, const struct model *m, const struct dims *d, int L, int an, int x, int o,
		       int *vrot)
{
	int fo = gr_ds2_ffn(g, m, d, L, an, d->T);
	if (gr_has_tensor(d, L, "ffn_up_shexp.weight") && (uint32_t)L >= m->n_lead_dense)
		fo = ga_op(g, 1, F32, d->E, d->T, 1, 1, S(fo));
	int sum = add(g, d, fo, x, d->T);
	return add(g, d, sum, kin_wo(g, d, L, o, vrot), d->T);
}

/* ggml_rms_norm without build_norm (no callback), times the weight of
 * layer L where it is named */
static int kin_rms(struct ga_graph *g, const struct dims *d, int x, int64_t T, int L, const char *w)
{
	int n = ga_gop(g, ga_op(g, 1, F32, d->E, T, 1, 1, S(x)), GA_G_RMS_NORM);
	return w ? ga_gop(g, ga_op(g, 1, F32, d->E, T, 1, 1, S(n, gr_weight(g, d, L, w))), GA_G_MUL) : n;
}

/* muse-glimmer.cpp's and afmoe.cpp's layer after its projection cur:
 * the post norm, the output rows, the FFN (afmoe: deepseek2's) between
 * ffn_norm and its post norm */
static int muse_half(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int cur,
		     int x, int last, int afmoe)
{
	int64_t T = d->T;
	cur = afmoe ? gr_norm(g, d, cur, d->E, T, 1, L, "post_attention_norm.weight")
		    : kin_rms(g, d, cur, T, L, "post_attention_norm.weight");
	if (last)
		T = gr_out_rows(g, d, in, &cur, &x, 0);
	int fi = add(g, d, cur, x, T);
	int fn = gr_norm(g, d, fi, d->E, T, 1, L, "ffn_norm.weight");
	int fo = afmoe ? gr_ds2_ffn(g, m, d, L, fn, T) : gr_ffn(g, d, L, fn, T);
	fo = afmoe ? gr_norm(g, d, fo, d->E, T, 1, L, "post_ffw_norm.weight")
		   : kin_rms(g, d, fo, T, L, "post_ffw_norm.weight");
	return add(g, d, fo, fi, T);
}

static int kin_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int x,
		     int an, int last, const void *ctx)
{
	const struct kin *k = ctx;
	struct kin_att a;
	struct gr_moe_routed r;
	int moe = -1;
	kin_attn(g, m, d, in, L, an, k, &a);
	int core = kin_core(g, in, &a);
	if (k->kind == KIN_COHERE)
		return cohere_half(g, m, d, L, an, x, core, a.vrot);
	int gated = gr_has_tensor(d, L, "attn_gate.weight");
	if (gated && d->v_rot) /* build_attn's result: its V rotation undone */
		core = gr_rotate(g, ga_view(g, core), d->D * d->H * d->T, d->v_rot, a.vrot);
	if (gated)
		core = kin_gate(g, d, L, an, core);
	/* what reads only the layer's input is reached before the
	 * attention's projection (the boot's graph: the attention, then
	 * smallthinker's routing, arctic's routing and experts, then
	 * attn_output) */
	if (k->kind == KIN_THINKER)
		thinker_route(g, m, d, in, L, x, last, &r);
	if (k->kind == KIN_ARCTIC)
		moe = arctic_moe(g, m, d, in, L, &x, last);
	int cur = gated && d->v_rot ? gr_mm(g, d, L, "attn_output.weight", ga_view(g, core), d->E, d->T)
				    : kin_wo(g, d, L, core, a.vrot);
	if (k->kind == KIN_MUSE || k->kind == KIN_AFMOE)
		return muse_half(g, m, d, in, L, cur, x, last, k->kind == KIN_AFMOE);
	if (k->v_scale)
		cur = ga_op(g, 1, F32, d->E, d->T, 1, 1, S(cur));
	int res = x;
	int64_t T = d->T;
	if (last && k->kind == KIN_ARCTIC) { /* its residual's rows were kept by arctic_moe */
		T = d->n_out < T ? d->n_out : T;
		cur = gr_op_kind(g, ga_op(g, 0, F32, d->E, T, 1, 1, S(cur, in->out_ids)), GA_OP_GET_ROWS);
	} else if (last && k->kind != KIN_HYV3 && k->kind != KIN_STEP) { /* they keep every row to the end */
		T = gr_out_rows(g, d, in, &cur, &res, 0);
	}
	if (k->kind == KIN_GROK)
		return grok_ffn_half(g, m, d, L, cur, res, T);
	if (k->kind == KIN_SHARED || k->kind == KIN_HYV3)
		return gr_ffn_half(g, m, d, L, cur, res, T, "ffn_norm.weight", gr_ds2_ffn);
	if (k->kind == KIN_GROVE)
		return gr_ffn_half(g, m, d, L, cur, res, T, "ffn_norm.weight", grove_ffn);
	if (k->kind == KIN_MIMO)
		return gr_ffn_half(g, m, d, L, cur, res, T, "ffn_norm.weight", mimo_ffn);
	if (k->kind == KIN_STEP)
		return gr_ffn_half(g, m, d, L, cur, res, T, "ffn_norm.weight", step_ffn);
	if (k->kind == KIN_GRANITE) { /* residual scales, a dense FFN or experts ff wide */
		if (k->res_scale)
			cur = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur));
		int fi = add(g, d, cur, res, T);
		int fn = gr_norm(g, d, fi, d->E, T, 1, L, "ffn_norm.weight");
		int fo = gr_has_tensor(d, L, "ffn_gate_inp.weight") ? kin_moe(g, m, d, L, fn, T, d->F)
								    : gr_ffn(g, d, L, fn, T);
		if (k->res_scale)
			fo = ga_op(g, 1, F32, d->E, T, 1, 1, S(fo));
		return add(g, d, fo, fi, T);
	}
	int fi = add(g, d, cur, res, T);
	if (k->kind == KIN_THINKER) { /* ReLU experts (the nodes of SwiGLU's) */
		int fn = gr_norm(g, d, fi, d->E, T, 1, L, "ffn_norm.weight");
		int fo = gr_moe_experts(g, d, L, fn, T, &r, 0);
		if (d->n_expert_used <= 1)
			fo = ga_op(g, 0, F32, d->E, T, 1, 1, S(fo));
		return add(g, d, fo, fi, T);
	}
	if (k->kind == KIN_DBRX) {
		int fn = gr_lnorm(g, d, fi, d->E, T, 1, L, "attn_output_norm.weight");
		return add(g, d, kin_moe(g, m, d, L, fn, T, d->F), fi, T);
	}
	/* arctic: the dense FFN embd wide, its residual; the experts added */
	struct dims dd = *d;
	dd.F = d->E;
	int fn = gr_norm(g, d, fi, d->E, T, 1, L, "ffn_norm.weight");
	int fo = add(g, d, gr_ffn(g, &dd, L, fn, T), fi, T);
	return add(g, d, moe, fo, T);
}

/* the kin whose FFN half is their own (the others: deepseek2's FFN) */
static const struct {
	const char *arch;
	int kind;
} kinds[] = {
    {"dbrx", KIN_DBRX},		  {"arctic", KIN_ARCTIC},  {"grok", KIN_GROK},	 {"smallthinker", KIN_THINKER},
    {"granite_swa", KIN_GRANITE}, {"grovemoe", KIN_GROVE}, {"hy_v3", KIN_HYV3},	 {"cohere2moe", KIN_COHERE},
    {"laguna", KIN_SHARED},	  {"mimo2", KIN_MIMO},	   {"step35", KIN_STEP}, {"muse-glimmer", KIN_MUSE},
    {"afmoe", KIN_AFMOE},
};

void gr_moe_kin(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	struct kin k = {KIN_SHARED, 0, 0, 0};
	struct dims dg = *d;
	double clamp = 0, softcap = 0, res_scale = 0, logit_scale = 0, v_scale = 0;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		if (strcmp(m->arch, kinds[i].arch) == 0)
			k.kind = kinds[i].kind;
	if (d->w->gg) {
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.attention.clamp_kqv", m->arch), &clamp);
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.final_logit_softcapping", m->arch), &softcap);
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.residual_scale", m->arch), &res_scale);
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.logit_scale", m->arch), &logit_scale);
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.attention.value_scale", m->arch), &v_scale);
	}
	/* llama_init_from_model: "flash_attn is not compatible with Grok -
	 * forcing off" */
	if (k.kind == KIN_GROK)
		dg.fa = 0;
	d = &dg;
	k.clamp = clamp > 0;
	k.res_scale = res_scale != 0;
	k.v_scale = k.kind == KIN_MIMO && v_scale != 0 && v_scale != 1;
	int x = gr_input_embd(g, d, in);
	if (k.kind == KIN_MUSE) /* embd_norm: no weight */
		x = kin_rms(g, d, x, d->T, -1, NULL);
	if (k.kind == KIN_AFMOE) /* the embeddings scaled by sqrt(n_embd) */
		x = ga_op(g, 1, F32, d->E, d->T, 1, 1, S(x));
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int an = kin_norm(g, d, &k, x, d->T, (int)il, "attn_norm.weight");
		x = kin_layer(g, m, d, in, (int)il, x, an, il == n_layer - 1, &k);
	}
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int rn;
	if (k.kind == KIN_HYV3 ||
	    k.kind == KIN_COHERE) { /* h_nextn: the norm over every row (a graph output), then its output rows */
		int hn = gr_norm(g, d, x, d->E, d->T, 1, -1, "output_norm.weight");
		g->t[hn].output = 1;
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
		rn = gr_op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(hn, ids)), GA_OP_GET_ROWS);
		g->t[rn].output = 1;
	} else if (k.kind == KIN_STEP) { /* h_nextn: the last layer's output (a graph output), its rows, the norm */
		g->t[x].output = 1;
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
		int rows = gr_op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(x, ids)), GA_OP_GET_ROWS);
		rn = kin_norm(g, d, &k, rows, To, -1, "output_norm.weight");
	} else {
		rn = kin_norm(g, d, &k, x, To, -1, "output_norm.weight");
	}
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	if (k.kind == KIN_GRANITE || (k.kind == KIN_COHERE && logit_scale != 0)) /* the logits scaled */
		out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out));
	if (k.kind == KIN_GROK || k.kind == KIN_MUSE) { /* logit_scale; the final soft cap: scale, tanh, scale */
		out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out));
		for (int i = 0; softcap != 0 && i < 3; i++)
			out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out));
	}
	g->t[out].output = 1;
}

/* deepseek2.cpp for deepseek2-ocr: no latent, plain multi-head
 * attention (q, k and v each embd wide, RoPE whole), deepseek2's trunk
 * and FFN */
static int ocr_attn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an)
{
	static const struct kin k = {KIN_SHARED, 0, 0, 0};
	struct kin_att a;
	kin_attn(g, m, d, in, il, an, &k, &a);
	return kin_wo(g, d, il, kin_core(g, in, &a), a.vrot);
}

void gr_deepseek2_ocr(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	gr_trunk_moe(g, m, d, in, ocr_attn, "ffn_norm.weight", gr_ds2_ffn);
}
