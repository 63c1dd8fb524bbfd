/* graph_minimax: MiniMax-01 (src/models/minimax-01.cpp): lightning
 * attention layers over a head x head state per head, softmax attention
 * (llama's q, v, k without norms) on the others, every layer's residuals
 * scaled (residual_scale: a SCALE node whatever its value) around
 * softmax-routed experts, their weights normalised.
 *
 * A lightning layer expands its recurrent states first (build_rs of the
 * zero-sized conv states, then of the head x head states), so it reaches
 * its input norm, and through it the previous layer's scaled residual and
 * sum, only when it expands its attention scores: the previous layer's
 * tail is emitted after the gathers. A softmax layer reaches it at once.
 * The graph's decay inputs (slopes, q, k and the diagonal's) are one
 * tensor each, shared by every lightning layer: the last layer's SCALE of
 * each may take its memory in place. */
#include "graph.h"

#include <string.h>

/* The lightning attention's inputs (llm_graph_input_la), made when the
 * graph first reaches them. */
struct la_inputs {
	int slopes, q_decay, k_decay, diag;
};

/* An f32 input of shape ne (an op over it may take its memory in place). */
static int la_input(struct ga_graph *g, int *slot, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3)
{
	if (*slot >= 0)
		return *slot;
	int i = ga_input(g, (uint64_t)(ne0 * ne1 * ne2 * ne3) * 4);
	struct ga_tensor *t = &g->t[i];
	t->type = F32;
	t->ne[0] = ne0;
	t->ne[1] = ne1;
	t->ne[2] = ne2;
	t->ne[3] = ne3;
	*slot = i;
	return i;
}

/* exp(scale(x)): the decays of one layer (both in place) */
static int decay(struct ga_graph *g, int x, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3)
{
	int s = ga_op(g, 1, F32, ne0, ne1, ne2, ne3, S(x));
	return ga_gop(g, ga_op(g, 1, F32, ne0, ne1, ne2, ne3, S(s)), GA_G_UNARY);
}

static int mm4(struct ga_graph *g, int a, int b, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3)
{
	return gr_op_kind(g, ga_op(g, 0, F32, ne0, ne1, ne2, ne3, S(a, b)), GA_OP_MUL_MAT);
}

/* What a layer leaves for the next one's input norm: the experts' one
 * view made contiguous (one expert a token: build_moe_ffn's cont is not
 * expanded with the layer), the FFN's residual scaled, their sum. */
struct mm_tail {
	int fn, moe;
	int64_t Tn;
};

static int tail_flush(struct ga_graph *g, const struct dims *d, struct mm_tail *t)
{
	if (d->n_expert_used <= 1)
		t->moe = ga_op(g, 0, F32, d->E, t->Tn, 1, 1, S(t->moe));
	int res = ga_op(g, 1, F32, d->E, t->Tn, 1, 1, S(t->fn));
	return ga_gop(g, ga_op(g, 1, F32, d->E, t->Tn, 1, 1, S(t->moe, res)), GA_G_ADD);
}

/* The lightning layer il from its gathered states to its output
 * projection (reshaped: a view); an is the layer's normed input. */
static int lightning(struct ga_graph *g, const struct dims *d, struct la_inputs *li, int il, int an, int state,
		     int scache)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns, D = d->D, H = d->H;
	int a4 = ga_view(g, an);
	int kv_old = ga_view(g, state);
	int qkv = mm4(g, gr_weight(g, d, il, "attn_qkv.weight"), a4, 3 * D * H, nst, 1, ns);
	qkv = ga_gop(g, ga_op(g, 1, F32, 3 * D * H, nst, 1, ns, S(qkv)), GA_G_UNARY);
	int q4 = ga_view(g, qkv);
	uint64_t span = (uint64_t)(3 * D * H * T - 2 * D) * 4; /* q, k or v: every third head row */
	int q = ga_view_n(g, q4, span);
	int qd = decay(g, la_input(g, &li->q_decay, 1, H, nst, ns), 1, H, nst, ns);
	int qs = ga_op(g, 1, F32, D, H, nst, ns, S(q, qd));
	int none_diag = mm4(g, kv_old, ga_view(g, qs), D, nst, H, ns);
	int v = ga_view_n(g, q4, span);
	int vt = ga_op(g, 0, F32, nst, D, H, ns, S(ga_view(g, v)));
	int k = ga_view_n(g, q4, span);
	int qk = mm4(g, ga_view(g, k), ga_view(g, q), nst, nst, H, ns);
	int dd = decay(g, la_input(g, &li->diag, nst, nst, H, ns), nst, nst, H, ns);
	qk = ga_op(g, 1, F32, nst, nst, H, ns, S(qk, dd));
	int diag = mm4(g, vt, qk, D, nst, H, ns);
	int sum = ga_gop(g, ga_op(g, 1, F32, D, nst, H, ns, S(none_diag, diag)), GA_G_ADD);
	/* the new state: the old one decayed by the block, plus k's decayed
	 * outer product with v, copied into the cache */
	int rate = ga_op(g, 1, F32, H, 1, 1, 1, S(la_input(g, &li->slopes, H, 1, 1, 1))); /* slope_rate */
	int bd = decay(g, rate, H, 1, 1, 1);
	int old_s = ga_op(g, 1, F32, D, D, H, ns, S(kv_old, ga_view(g, bd)));
	int kd = decay(g, la_input(g, &li->k_decay, 1, H, nst, ns), 1, H, nst, ns);
	int ka = ga_op(g, 1, F32, D, H, nst, ns, S(k, kd));
	int kat = ga_op(g, 0, F32, nst, D, H, ns, S(ga_view(g, ka)));
	int kv_cur = mm4(g, kat, vt, D, D, H, ns);
	int kv_new = ga_gop(g, ga_op(g, 1, F32, D, D, H, ns, S(old_s, kv_cur)), GA_G_ADD);
	ga_sink_to(g, scache, S(kv_new, ga_view(g, scache)));
	/* the output: normed, gated by sigmoid(g), projected */
	int gate = mm4(g, gr_weight(g, d, il, "attn_gate.weight"), a4, D * H, nst, 1, ns);
	gate = ga_gop(g, ga_op(g, 1, F32, D * H, nst, 1, ns, S(gate)), GA_G_UNARY);
	int o = ga_op(g, 0, F32, D, H, nst, ns, S(ga_view(g, sum)));
	o = gr_norm(g, d, ga_view(g, o), D * H, T, 1, il, "attn_norm_2.weight");
	o = ga_gop(g, ga_op(g, 1, F32, D * H, nst, 1, ns, S(gate, o)), GA_G_MUL);
	return ga_view(g, mm4(g, gr_weight(g, d, il, "attn_output.weight"), o, d->E, nst, 1, ns));
}

/* Softmax attention: llama's q, v, k (build_attn expands them so), RoPE
 * on q and k, no norms. */
static int softmax_attn(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an)
{
	int64_t T = d->T;
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, 0, &krot, &vrot);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int q = ga_view(g, gr_mm(g, d, il, "attn_q.weight", an, d->D * d->H, T));
	q = gr_rotate(g, gr_rope(g, q, pos, d->D, d->H, T), d->D * d->H * T, d->k_rot, krot);
	int v = ga_view(g, gr_mm(g, d, il, "attn_v.weight", an, d->D * d->Hkv, T));
	v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, vrot);
	int k = ga_view(g, gr_mm(g, d, il, "attn_k.weight", an, d->D * d->Hkv, T));
	k = gr_rotate(g, gr_rope(g, k, pos, d->D, d->Hkv, T), d->D * d->Hkv * T, d->k_rot, krot);
	return gr_attn_wo(g, d, in, il, q, k, v, 0, vrot);
}

/* The layer's end: the output rows (the last layer), the attention's
 * residual (the normed input) scaled and added, the FFN norm, the
 * experts; the FFN's residual is left to the next layer. */
static void layer_end(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
		      int last, int cur, int an, struct mm_tail *t)
{
	int res = an;
	t->Tn = last ? gr_out_rows(g, d, in, &cur, &res, 0) : d->T;
	res = ga_op(g, 1, F32, d->E, t->Tn, 1, 1, S(res));
	int fi = ga_gop(g, ga_op(g, 1, F32, d->E, t->Tn, 1, 1, S(cur, res)), GA_G_ADD);
	t->fn = gr_norm(g, d, fi, d->E, t->Tn, 1, il, "ffn_norm.weight");
	struct dims de = *d;
	de.F_exp = d->F; /* the experts are feed_forward_length wide */
	struct gr_moe_opts o = {0};
	o.norm_w = 1;
	o.scale = m->expert_w_scale != 0.0 && m->expert_w_scale != 1.0;
	struct gr_moe_routed r;
	gr_moe_route(g, &de, il, t->fn, t->Tn, &o, &r);
	t->moe = gr_moe_experts(g, &de, il, t->fn, t->Tn, &r, 0);
}

void gr_minimax01(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t ns = d->n_seq, n_rs = d->n_rs > ns ? d->n_rs : ns;
	struct la_inputs li;
	memset(&li, -1, sizeof(li));
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	struct mm_tail t = {-1, -1, 0};
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il, last = il == n_layer - 1, cur, an;
		if (m->has_rs[il]) {
			/* build_rs_inp_impl: s_copy of n_rs cells, its views for the
			 * ubatch's sequences and the others */
			int s_copy = gr_input_once(g, &in->s_copy, (uint64_t)n_rs * 4);
			if (in->s_main < 0) {
				in->s_main = ga_view_n(g, s_copy, (uint64_t)ns * 4);
				in->s_extra = ga_view_n(g, s_copy, (uint64_t)(n_rs - ns) * 4);
			}
			gr_rs_gather(g, d, in, gr_cache(g, d, L), d->n_embd_r);
			int scache = gr_cache(g, d, L);
			int state = gr_rs_gather(g, d, in, scache, d->n_embd_s);
			if (t.fn >= 0)
				x = tail_flush(g, d, &t);
			an = gr_norm(g, d, x, d->E, d->T, 1, L, "attn_norm.weight");
			cur = lightning(g, d, &li, L, an, state, scache);
		} else {
			if (t.fn >= 0)
				x = tail_flush(g, d, &t);
			an = gr_norm(g, d, x, d->E, d->T, 1, L, "attn_norm.weight");
			cur = softmax_attn(g, d, in, L, an);
		}
		layer_end(g, m, d, in, L, last, cur, an, &t);
	}
	if (t.fn >= 0)
		x = tail_flush(g, d, &t);
	int rn = gr_result(g, d, x);
	g->t[rn].output = 1; /* result_norm is t_embd: llm_graph_result::set_outputs marks it */
}

int gr_one_seq_prefill(const char *arch)
{
	/* llama_context::sched_reserve reserves minimax-01's prefill again
	 * with one sequence: inp_diag_decay grows with n_seq_tokens^2 */
	return arch && strcmp(arch, "minimax-01") == 0;
}

/* MiniMax-M3 (src/models/minimax-m3.cpp) with its attention dense: flash
 * attention off, or a unified cache over several slots. minimax-m2's
 * attention with q and k normed per head before their partial RoPE
 * (build_attn: q, v, k expanded), a dense SwiGLU-OAI FFN on the leading
 * layers, then sigmoid-gated experts with a selection bias beside a
 * shared expert (expert_feed_forward_length x expert_shared_count wide).
 * The sparse path (MiniMax sparse attention over the indexer's blocks) is
 * not mirrored: gr_minimax_m3_sparse names its shapes. */
static int m3_attn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an)
{
	(void)m;
	int64_t T = d->T;
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, 0, &krot, &vrot);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int q = ga_view(g, gr_mm(g, d, il, "attn_q.weight", an, d->D * d->H, T));
	q = gr_rope(g, gr_norm(g, d, q, d->D, d->H, T, il, "attn_q_norm.weight"), pos, d->D, d->H, T);
	q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, krot);
	int v = ga_view(g, gr_mm(g, d, il, "attn_v.weight", an, d->D * d->Hkv, T));
	v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, vrot);
	int k = ga_view(g, gr_mm(g, d, il, "attn_k.weight", an, d->D * d->Hkv, T));
	k = gr_rope(g, gr_norm(g, d, k, d->D, d->Hkv, T, il, "attn_k_norm.weight"), pos, d->D, d->Hkv, T);
	k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
	return gr_attn_wo(g, d, in, il, q, k, v, 0, vrot);
}

static int m3_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	if ((uint32_t)il < m->n_lead_dense)
		return gr_ffn(g, d, il, x, T);
	/* the payload's gating, the required selection bias, its norm and scale */
	const struct gr_moe_opts o = {.sigmoid = m->expert_gating == 2,
				      .gating = (int)m->expert_gating,
				      .probs_b = 1,
				      .norm_w = m->expert_w_norm,
				      .scale = m->expert_w_scale != 0.0 && m->expert_w_scale != 1.0};
	int64_t F_sh = d->F_exp * (m->n_expert_shared ? m->n_expert_shared : 1);
	return gr_moe_shared(g, d, il, x, T, &o, F_sh);
}

void gr_minimax_m3(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	gr_trunk_moe(g, m, d, in, m3_attn, "ffn_norm.weight", m3_ffn);
}

int gr_minimax_m3_sparse(const char *arch, int flash_attn, int kv_unified, uint32_t n_seq)
{
	/* minimax-m3.cpp: msa_enabled = flash_attn && (n_seq_max == 1 || !kv_unified) */
	return arch && strcmp(arch, "minimax-m3") == 0 && flash_attn && (n_seq == 1 || !kv_unified);
}
