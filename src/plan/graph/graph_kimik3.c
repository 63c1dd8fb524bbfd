/* graph_kimik3: Kimi-K3 (src/models/kimi-k3.cpp). Kimi-Linear's layers
 * (graph_linear.c: Kimi delta attention with K3's full-rank gate and
 * sigmoid decay, MLA without RoPE, here with a sigmoid output gate before
 * attn_output), the situ activation in every FFN, routed experts in a
 * latent space (ffn_routed_down, the experts, ffn_routed_norm,
 * ffn_routed_up) beside shared experts at full width, and the cross-layer
 * residual attention: every attn_res.block_size layers the layer's input
 * is banked as a checkpoint (concatenated to the stack) and the residual
 * restarts from the attention's output; before each half (and the output
 * norm) the stack and the current stream are scored (RMS norm, the
 * layer's score vector, a row sum), softmaxed, and mixed (dsv4_hc_pre
 * over the stack, a product for the stream, added).
 *
 * The graph is visited as ggml_build_forward_expand finds it, which is
 * not the order the builder writes it: a mix visits the stack's scores
 * before the stream it mixes, and the stream is the earlier layer's tail
 * (what no expand reached: the attention's output, a dense FFN, the
 * experts' sum onward). So one layer stays pending: its attention's tail
 * nodes are cut from the node list when built and put back where the
 * next visit reaches them, and the rest of it is built there. */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>

#include "../../base/util.h"

/* The layer whose end no expand has reached yet. */
struct k3_pend {
	int il;			     /* -1: none */
	int *tail, n_tail, cap_tail; /* the attention's nodes after its last expand, cut out */
	int att, x, banked;	     /* the attention's output, the layer's input, a checkpoint layer */
	int P;			     /* the residual after the attention, once visited (-1) */
	int moe, sum, fn;	     /* experts: their sum (latent wide) and the FFN's normed input */
};

struct k3 {
	struct ga_graph *g;
	const struct model *m;
	const struct dims *d;
	struct inputs *in;
	uint32_t bs;	   /* attn_res.block_size, 0: no residual attention */
	int64_t latent;	   /* expert_latent_length, 0: the experts run n_embd wide */
	int linear;	   /* situ_linear_beta > 0 */
	int S, n_ck, push; /* the checkpoint stack, its size, a checkpoint not yet concatenated (-1) */
	int inp;	   /* the last layer input visited */
	struct k3_pend p;
};

static double k3_key(const struct model *m, const struct dims *d, const char *key)
{
	double v;
	if (!d->w->gg || gguf_kv_f64(gguf_findf(d->w->gg, "%s.%s", m->arch, key), &v) != 0)
		return 0;
	return v;
}

int gr_situ_gate(struct ga_graph *g, int gate, int64_t ne0, int64_t ne1, int64_t ne2)
{
	int a = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(gate)); /* gate / beta */
	a = ga_gop(g, ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(a)), GA_G_UNARY);
	a = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(a)); /* * beta */
	int sg = ga_gop(g, ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(gate)), GA_G_UNARY);
	return ga_gop(g, ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(a, sg)), GA_G_MUL);
}

int gr_situ_up(struct ga_graph *g, int act, int up, int linear, int64_t ne0, int64_t ne1, int64_t ne2)
{
	if (linear) {
		up = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(up));
		up = ga_gop(g, ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(up)), GA_G_UNARY);
		up = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(up));
	}
	return ga_gop(g, ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(act, up)), GA_G_MUL);
}

/* build_ffn-like situ FFN over x of the named gate, up and down (F wide) */
static int k3_situ_ffn(struct k3 *k, int il, int x, const char *const w[3], int64_t F)
{
	struct ga_graph *g = k->g;
	int64_t T = k->d->T;
	int a = gr_situ_gate(g, gr_mm(g, k->d, il, w[0], x, F, T), F, T, 1);
	int up = gr_mm(g, k->d, il, w[1], x, F, T);
	return gr_mm(g, k->d, il, w[2], gr_situ_up(g, a, up, k->linear, F, T, 1), k->d->E, T);
}

static void k3_node(struct ga_graph *g, int x)
{
	if (g->n_nodes == g->cap_nodes) {
		g->cap_nodes = g->cap_nodes ? g->cap_nodes * 2 : 256;
		g->nodes = xreallocarray(g->nodes, (size_t)g->cap_nodes, sizeof(*g->nodes));
	}
	g->nodes[g->n_nodes++] = x;
}

/* Cut the nodes from `from` on into the pending tail (from < 0: those
 * built since n0 after the last expanded write, a sink into a state). */
static void k3_cut_tail(struct k3 *k, int n0, int from)
{
	struct ga_graph *g = k->g;
	struct k3_pend *p = &k->p;
	int cut = from;
	for (int i = g->n_nodes - 1; cut < 0 && i >= n0; i--) {
		const struct ga_tensor *t = &g->t[g->nodes[i]];
		if (t->is_view && !t->view_op)
			cut = i + 1;
	}
	if (cut < 0)
		cut = n0;
	p->n_tail = 0;
	for (int i = cut; i < g->n_nodes; i++) {
		if (p->n_tail == p->cap_tail) {
			p->cap_tail = p->cap_tail ? p->cap_tail * 2 : 64;
			p->tail = xreallocarray(p->tail, (size_t)p->cap_tail, sizeof(*p->tail));
		}
		p->tail[p->n_tail++] = g->nodes[i];
	}
	g->n_nodes = cut;
}

/* The pending layer's residual after its attention: its tail put back,
 * then the add (a checkpoint layer restarts from the attention's output) */
static int k3_P(struct k3 *k)
{
	struct k3_pend *p = &k->p;
	if (p->P >= 0)
		return p->P;
	for (int i = 0; i < p->n_tail; i++)
		k3_node(k->g, p->tail[i]);
	p->n_tail = 0;
	p->P =
	    p->banked ? p->att : ga_gop(k->g, ga_op(k->g, 1, F32, k->d->E, k->d->T, 1, 1, S(p->x, p->att)), GA_G_ADD);
	return p->P;
}

static int k3_flush(struct k3 *k);
static int k3_mix(struct k3 *k, int layer_end, int il, const char *w);

/* The pending layer's end, as the next visit reaches it: the residual,
 * the FFN half (a dense FFN's mix and norm too; the experts' sum through
 * the routed norm and up projection, the shared experts), the residual
 * add. Returns the next layer's input. */
static int k3_flush(struct k3 *k)
{
	static const char *const dense[3] = {"ffn_gate.weight", "ffn_up.weight", "ffn_down.weight"};
	static const char *const shexp[3] = {"ffn_gate_shexp.weight", "ffn_up_shexp.weight", "ffn_down_shexp.weight"};
	struct ga_graph *g = k->g;
	const struct dims *d = k->d;
	struct k3_pend *p = &k->p;
	int il = p->il, ffn;
	if (il < 0)
		return k->inp;
	int P = k3_P(k);
	if (!p->moe) {
		int fn = gr_norm(g, d, k3_mix(k, 0, il, "ffn_res_score.weight"), d->E, d->T, 1, il, "ffn_norm.weight");
		ffn = k3_situ_ffn(k, il, fn, dense, d->F);
	} else {
		int64_t W = k->latent && gr_has_tensor(d, il, "ffn_routed_down.weight") ? k->latent : d->E;
		ffn = p->sum;
		if (d->n_expert_used <= 1) /* build_moe_ffn's cont of the one expert */
			ffn = ga_op(g, 0, F32, W, d->T, 1, 1, S(ffn));
		if (gr_has_tensor(d, il, "ffn_routed_norm.weight"))
			ffn = gr_norm(g, d, ffn, W, d->T, 1, il, "ffn_routed_norm.weight");
		if (gr_has_tensor(d, il, "ffn_routed_up.weight"))
			ffn = gr_mm(g, d, il, "ffn_routed_up.weight", ffn, d->E, d->T);
		if (gr_has_tensor(d, il, "ffn_gate_shexp.weight")) {
			int64_t F = d->F_exp * (k->m->n_expert_shared ? k->m->n_expert_shared : 1);
			int sh = k3_situ_ffn(k, il, p->fn, shexp, F);
			ffn = ga_gop(g, ga_op(g, 1, F32, d->E, d->T, 1, 1, S(ffn, sh)), GA_G_ADD);
		}
	}
	p->il = -1;
	k->inp = ga_gop(g, ga_op(g, 1, F32, d->E, d->T, 1, 1, S(P, ffn)), GA_G_ADD);
	return k->inp;
}

/* res_mix over the stack and the current stream: the layer's input
 * (layer_end: the pending layer flushed) or the residual after the
 * attention; with no stack (layer 0, no residual attention) the stream
 * itself. il -1: the output's score. */
static int k3_mix(struct k3 *k, int layer_end, int il, const char *w)
{
	struct ga_graph *g = k->g;
	const struct dims *d = k->d;
	int64_t E = d->E, T = d->T;
	if (k->push >= 0) { /* res_push: the checkpoint concatenated where the stack is first visited */
		int ck = ga_view(g, k->push);
		k->S = k->S < 0 ? ck : ga_op(g, 0, F32, E, k->n_ck + 1, T, 1, S(k->S, ck));
		k->n_ck++;
		k->push = -1;
	}
	if (k->S < 0 || !k->bs)
		return layer_end ? k3_flush(k) : k3_P(k);
	int wt = il >= 0 ? gr_weight(g, d, il, w) : gr_weight_at(g, d, "output_res_score.weight", d->w->n_layer_all);
	int64_t n = k->n_ck;
	int s = ga_gop(g, ga_op(g, 1, F32, E, n, T, 1, S(k->S)), GA_G_RMS_NORM);
	s = ga_gop(g, ga_op(g, 1, F32, E, n, T, 1, S(s, wt)), GA_G_MUL);
	s = ga_view(g, ga_gop(g, ga_op(g, 0, F32, 1, n, T, 1, S(s)), GA_G_SUM_ROWS));
	int cur = layer_end ? k3_flush(k) : k3_P(k);
	int c = ga_gop(g, ga_op(g, 1, F32, E, T, 1, 1, S(cur)), GA_G_RMS_NORM);
	c = ga_gop(g, ga_op(g, 1, F32, E, T, 1, 1, S(c, wt)), GA_G_MUL);
	c = ga_gop(g, ga_op(g, 0, F32, 1, T, 1, 1, S(c)), GA_G_SUM_ROWS);
	int probs =
	    ga_gop(g, ga_op(g, 1, F32, n + 1, T, 1, 1, S(ga_op(g, 0, F32, n + 1, T, 1, 1, S(s, c)))), GA_G_SOFT_MAX);
	int ps = ga_op(g, 0, F32, n, T, 1, 1, S(ga_view(g, probs)));
	int hc = ga_op(g, 0, F32, E, T, 1, 1, S(k->S, ps));
	int pc = ga_op(g, 0, F32, 1, T, 1, 1, S(ga_view(g, probs)));
	int mc = ga_gop(g, ga_op(g, 1, F32, E, T, 1, 1, S(cur, pc)), GA_G_MUL);
	return ga_gop(g, ga_op(g, 1, F32, E, T, 1, 1, S(hc, mc)), GA_G_ADD);
}

/* K3's MLA: kimi-linear's up to build_attn's output (expanded by
 * build_attn_mha: *from, where the tail begins), gated by
 * sigmoid(attn_gate(x)) where the payload has the gate, attn_output */
static int k3_mla(struct k3 *k, int il, int an, int *from)
{
	struct ga_graph *g = k->g;
	const struct dims *d = k->d;
	int64_t hv = d->H * (int64_t)k->m->head_v_mla;
	int o = gr_kimi_mla_kqv(g, k->m, d, k->in, il, an);
	*from = g->n_nodes;
	if (gr_has_tensor(d, il, "attn_gate.weight")) {
		int gt = gr_mm(g, d, il, "attn_gate.weight", an, hv, d->T);
		gt = ga_gop(g, ga_op(g, 1, F32, hv, d->T, 1, 1, S(gt)), GA_G_UNARY);
		o = ga_gop(g, ga_op(g, 1, F32, hv, d->T, 1, 1, S(o, gt)), GA_G_MUL);
	}
	return gr_mm(g, d, il, "attn_output.weight", o, d->E, d->T);
}

/* build_latent_moe up to what it expands: the FFN half's mix and norm,
 * the router's logits over it, the routing, the latent projection, the
 * experts and their sum; the rest waits for k3_flush */
static void k3_moe(struct k3 *k, int il)
{
	struct ga_graph *g = k->g;
	const struct model *m = k->m;
	const struct dims *d = k->d;
	int fn = gr_norm(g, d, k3_mix(k, 0, il, "ffn_res_score.weight"), d->E, d->T, 1, il, "ffn_norm.weight");
	int logits = gr_mm(g, d, il, "ffn_gate_inp.weight", fn, d->n_expert, d->T);
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.probs_b = 1;
	o.logits_in = logits + 1;
	struct gr_moe_routed r;
	gr_moe_route(g, d, il, fn, d->T, &o, &r);
	struct dims dl = *d;
	int x = fn;
	if (gr_has_tensor(d, il, "ffn_routed_down.weight")) {
		dl.E = k->latent;
		x = gr_mm(g, d, il, "ffn_routed_down.weight", fn, dl.E, d->T);
	}
	k->p.sum = gr_moe_experts(g, &dl, il, x, d->T, &r, k->linear ? 2 : 3);
	k->p.fn = fn;
	k->p.moe = 1;
}

static void k3_layer(struct k3 *k, int il)
{
	struct ga_graph *g = k->g;
	const struct dims *d = k->d;
	int xin = k->bs ? k3_mix(k, 1, il, "attn_res_score.weight") : k3_flush(k);
	int x = k->inp;
	int banked = k->bs && (uint32_t)il % k->bs == 0;
	if (banked)
		k->push = x;
	int an = gr_norm(g, d, xin, d->E, d->T, 1, il, "attn_norm.weight");
	int n0 = g->n_nodes, from = -1;
	int att = k->m->has_rs[il] ? gr_kimi_kda(g, k->m, d, k->in, il, an) : k3_mla(k, il, an, &from);
	struct k3_pend *p = &k->p;
	k3_cut_tail(k, n0, from);
	p->il = il;
	p->att = att;
	p->x = x;
	p->banked = banked;
	p->P = -1;
	p->moe = 0;
	if ((uint32_t)il >= k->m->n_lead_dense)
		k3_moe(k, il);
}

void gr_kimi_k3(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	struct k3 k = {g, m, d, in, 0, 0, 0, -1, 0, -1, -1, {-1, NULL, 0, 0, -1, -1, 0, -1, 0, -1, -1}};
	k.bs = (uint32_t)k3_key(m, d, "attn_res.block_size");
	k.latent = (int64_t)k3_key(m, d, "expert_latent_length");
	k.linear = k3_key(m, d, "activation.situ_linear_beta") > 0;
	k.inp = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++)
		k3_layer(&k, (int)il);
	int x = k.bs ? k3_mix(&k, 1, -1, NULL) : k3_flush(&k);
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
	x = gr_op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(x, ids)), GA_OP_GET_ROWS);
	int rn = gr_result(g, d, x);
	g->t[rn].output = 1; /* result_norm is t_embd */
	free(k.p.tail);
}

const char *gr_kimi_k3_unmirrored(const struct gguf *gg, const struct model *m)
{
	static const char *const what[][2] = {{"attn_q_a.weight", "the q latent (attn_q_a, attn_q_b)"},
					      {"attn_kv_b.weight", "the MHA layout (attn_kv_b)"}};
	char nm[64];
	for (uint32_t il = 0; gg && il < m->n_layer_all; il++)
		for (size_t i = 0; i < sizeof(what) / sizeof(what[0]); i++) {
			snprintf(nm, sizeof(nm), "blk.%u.%s", il, what[i][0]);
			if (gguf_tensor_find(gg, nm))
				return what[i][1];
		}
	return NULL;
}
