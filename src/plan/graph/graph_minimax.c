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
	if (*slot < 0)
		*slot = gr_input_nd(g, 0, F32, ne0, ne1, ne2, ne3);
	return *slot;
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
	struct gr_moe_opts o = gr_moe_opts_softmax(m, 1);
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
 * MiniMax sparse attention (below) on the layers past the dense lead
 * otherwise. */
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
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.probs_b = 1;
	int64_t F_sh = d->F_exp * (m->n_expert_shared ? m->n_expert_shared : 1);
	return gr_moe_shared(g, d, il, x, T, &o, F_sh);
}

/* MiniMax sparse attention (flash attention on, one slot or per-slot
 * caches): the shape of the reserve's graphs. The position axis spans
 * the positions in the cache padded to 256 (get_n_pos: 256 at a reserve,
 * its cache empty), then to whole blocks. */
struct msa {
	int64_t blk, n_ps, nblk, K, Hd, idx; /* idx: the indexer's key length */
	int64_t ns, n_tps, n_kv;
	int bias, pos_mask, pos_slot_i, pos_slot_f, cell_blk, k_idx_idx, mf;
};

static void msa_shape(struct msa *a, const struct model *m, const struct dims *d)
{
	uint64_t blk = 64;
	if (d->w->gg)
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.attention.indexer.block_size", m->arch), &blk);
	a->blk = blk ? (int64_t)blk : 1;
	a->n_ps = (256 + a->blk - 1) / a->blk * a->blk;
	a->nblk = a->n_ps / a->blk;
	a->K = (int64_t)m->indexer_top_k < a->nblk ? (int64_t)m->indexer_top_k : a->nblk;
	a->Hd = m->indexer_n_head;
	a->idx = m->indexer_head_size;
	a->ns = d->n_stream > 0 ? d->n_stream : 1;
	a->n_tps = d->T / a->ns;
	a->n_kv = d->n_kv;
	a->bias = a->pos_mask = a->pos_slot_i = a->pos_slot_f = a->cell_blk = a->k_idx_idx = a->mf = -1;
}

/* a cast (ggml_cast: a CPY into a new tensor of the type) */
static int cast(struct ga_graph *g, int x, uint8_t type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3)
{
	return ga_op(g, 0, type, ne0, ne1, ne2, ne3, S(x));
}

/* The indexer's query heads, normed and roped, over an (once a graph's
 * layer: every stream reads them). */
static int msa_iq(struct ga_graph *g, const struct dims *d, const struct msa *a, int il, int an, int pos)
{
	int iq = gr_mm(g, d, il, "indexer.q_proj.weight", an, a->Hd * a->idx, d->T);
	iq = gr_norm(g, d, ga_view(g, iq), a->idx, a->Hd, d->T, il, "indexer.q_norm.weight");
	return gr_rope(g, iq, pos, a->idx, a->Hd, d->T);
}

/* One stream's block mask and flash attention (the batch graph); its
 * views of the inputs span the stream's share (what a copy of one to
 * another backend allocates). */
static int msa_stream(struct ga_graph *g, struct inputs *in, struct msa *a, int q, int *iq, int idxc, const int *kv,
		      const struct dims *d, int il, int an, int pos)
{
	int64_t T = d->T, n_tps = a->n_tps, Hd = a->Hd, nblk = a->nblk, n_kv = a->n_kv;
	gr_input_once(g, &a->pos_slot_i, (uint64_t)(a->n_ps * a->ns) * 4);
	int psl = ga_view_n(g, a->pos_slot_i, (uint64_t)a->n_ps * 4);
	int ikp = gr_op_kind(g, ga_op(g, 0, F32, a->idx, a->n_ps, 1, 1, S(ga_view(g, idxc), psl)), GA_OP_GET_ROWS);
	if (*iq < 0)
		*iq = msa_iq(g, d, a, il, an, pos);
	uint64_t share = (uint64_t)(a->idx * Hd * n_tps) * 4;
	int sc =
	    gr_op_kind(g, ga_op(g, 0, F32, a->n_ps, Hd * n_tps, 1, 1, S(ikp, ga_view_n(g, *iq, share))), GA_OP_MUL_MAT);
	gr_input_once(g, &a->pos_mask, (uint64_t)(a->n_ps * T) * 4);
	int scm = ga_sink_to(g, sc, S(ga_view(g, sc), ga_view_n(g, a->pos_mask, (uint64_t)(a->n_ps * n_tps) * 4)));
	int bs = ga_op(g, 0, F32, nblk, Hd, n_tps, 1, S(scm));
	gr_input_once(g, &a->bias, (uint64_t)(nblk * T) * 4);
	int bias_s = ga_view_n(g, a->bias, (uint64_t)(nblk * n_tps) * 4);
	bs = ga_gop(g, ga_op(g, 1, F32, nblk, Hd, n_tps, 1, S(bs, bias_s)), GA_G_ADD);
	int idx = ga_op(g, 0, I32, a->K, Hd, n_tps, 1, S(bs));
	int zero = ga_op(g, 1, F32, a->K, Hd, n_tps, 1, S(cast(g, idx, F32, a->K, Hd, n_tps, 1)));
	int ninf = ga_op(g, 0, F32, nblk, 1, n_tps, 1, S(bias_s));
	ninf = ga_op(g, 0, F16, nblk, Hd, n_tps, 1, S(cast(g, ninf, F16, nblk, 1, n_tps, 1)));
	int bm = ga_sink_to(g, ninf, S(ga_view(g, zero), ga_view(g, idx), ga_view(g, ninf)));
	bm = ga_op(g, 0, F16, nblk, n_tps, Hd, 1, S(ga_view(g, bm)));
	bm = ga_op(g, 0, F16, n_tps * Hd, nblk, 1, 1, S(ga_view(g, bm)));
	gr_input_once(g, &a->cell_blk, (uint64_t)(n_kv * a->ns) * 4);
	int cbs = ga_view_n(g, a->cell_blk, (uint64_t)n_kv * 4);
	int bmc = gr_op_kind(g, ga_op(g, 0, F32, n_tps * Hd, n_kv, 1, 1, S(bm, cbs)), GA_OP_GET_ROWS);
	int bmx = ga_op(g, 0, F32, n_kv, n_tps * Hd, 1, 1, S(ga_view(g, bmc)));
	if (a->mf < 0) /* the FA mask as f32, for every sparse layer */
		a->mf = cast(g, gr_input_once(g, &in->mask, (uint64_t)(n_kv * T) * 2), F32, n_kv, n_tps, 1, a->ns);
	int m4 = ga_sink_to(g, bmx, S(ga_view(g, bmx), ga_view_n(g, a->mf, (uint64_t)(n_kv * n_tps) * 4)));
	m4 = cast(g, ga_view(g, m4), F16, n_kv, n_tps, 1, Hd);
	int o = gr_op_kind(
	    g, ga_op(g, 0, F32, d->D, d->H / Hd, n_tps, Hd, S(ga_view(g, q), ga_view(g, kv[0]), ga_view(g, kv[1]), m4)),
	    GA_OP_FA);
	return ga_view(g, ga_op(g, 0, F32, d->D, d->H / Hd, Hd, n_tps, S(ga_view(g, o))));
}

/* The decode graph (one token a stream): the block scores of every
 * stream at once, the top-k blocks' positions and cells, K, V and the
 * mask gathered, one flash attention over (group, stream). */
static int msa_decode(struct ga_graph *g, const struct msa *a, struct msa *w, int q, int idxc, const int *kv,
		      const struct dims *d, int iq)
{
	int64_t ns = a->ns, Hd = a->Hd, nblk = a->nblk, K = a->K, blk = a->blk, n = blk * K * Hd;
	gr_input_once(g, &w->pos_slot_i, (uint64_t)(a->n_ps * ns) * 4);
	int ikp =
	    gr_op_kind(g, ga_op(g, 0, F32, a->idx, a->n_ps, ns, 1, S(ga_view(g, idxc), ga_view(g, w->pos_slot_i))),
		       GA_OP_GET_ROWS);
	int sc = gr_op_kind(g, ga_op(g, 0, F32, a->n_ps, Hd, 1, ns, S(ga_view(g, ikp), ga_view(g, iq))), GA_OP_MUL_MAT);
	gr_input_once(g, &w->pos_mask, (uint64_t)(a->n_ps * d->T) * 4);
	int scm = ga_sink_to(g, sc, S(ga_view(g, sc), ga_view(g, w->pos_mask)));
	int bs = ga_op(g, 0, F32, nblk, Hd, 1, ns, S(scm));
	gr_input_once(g, &w->bias, (uint64_t)(nblk * d->T) * 4);
	bs = ga_gop(g, ga_op(g, 1, F32, nblk, Hd, 1, ns, S(bs, ga_view(g, w->bias))), GA_G_ADD);
	int idx = ga_op(g, 0, I32, K, Hd, 1, ns, S(bs));
	int at = ga_op(g, 1, F32, K, Hd, 1, ns, S(cast(g, idx, F32, K, Hd, 1, ns)));
	int rep = ga_op(g, 0, F32, blk, K, Hd, ns, S(ga_view(g, at)));
	int tj =
	    ga_op(g, 1, F32, blk, K, Hd, ns, S(rep, ga_view(g, ga_op(g, 0, F32, blk, 1, 1, 1, (const int[]){-2}))));
	int tokj = cast(g, ga_view(g, tj), I32, n, ns, 1, 1);
	gr_input_once(g, &w->pos_slot_f, (uint64_t)(a->n_ps * ns) * 4);
	int cs = gr_op_kind(g, ga_op(g, 0, F32, 1, n, ns, 1, S(ga_view(g, w->pos_slot_f), tokj)), GA_OP_GET_ROWS);
	int tr = ga_op(g, 1, F32, blk, K, Hd, ns, S(ga_view(g, cs)));
	tr = ga_op(g, 1, F32, blk, K, Hd, ns, S(tr, ga_view(g, ga_op(g, 0, F32, Hd, 1, 1, 1, (const int[]){-2}))));
	int tokr = cast(g, ga_view(g, tr), I32, n, ns, 1, 1);
	int fa[3];
	for (int c = 0; c < 2; c++) { /* K and V gathered, cast to f16 unless f32 */
		fa[c] = gr_op_kind(g, ga_op(g, 0, F32, d->D, n, ns, 1, S(ga_view(g, kv[c]), tokr)), GA_OP_GET_ROWS);
		if ((c ? d->v_type : d->k_type) != F32)
			fa[c] = cast(g, ga_view(g, fa[c]), F16, d->D, blk * K, 1, Hd * ns);
	}
	int mg = gr_op_kind(g, ga_op(g, 0, F32, 1, n, ns, 1, S(ga_view(g, w->pos_mask), tokj)), GA_OP_GET_ROWS);
	fa[2] = cast(g, ga_view(g, mg), F16, blk * K, 1, 1, Hd * ns);
	int o = ga_op(g, 0, F32, d->D, d->H / Hd, 1, Hd * ns, S(ga_view(g, q), fa[0], fa[1], fa[2]));
	return ga_view(g, gr_op_kind(g, o, GA_OP_FA));
}

/* A sparse layer (il past the dense lead): the indexer's keys into its
 * cache, q, k and v (expanded in that order) into the main one, then the
 * block-sparse attention, the output projection. */
static int msa_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an,
		     struct msa *a)
{
	int64_t T = d->T;
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, 0, &krot, &vrot);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int ik = gr_mm(g, d, il, "indexer.k_proj.weight", an, a->idx, T);
	ik = gr_rope(g, gr_norm(g, d, ga_view(g, ik), a->idx, 1, T, il, "indexer.k_norm.weight"), pos, a->idx, 1, T);
	gr_input_once(g, &a->k_idx_idx, (uint64_t)T * 8);
	int idxc = gr_cache(g, d, il);
	ga_sink_to(g, idxc, S(ga_view(g, ik), a->k_idx_idx, idxc));
	int q = ga_view(g, gr_mm(g, d, il, "attn_q.weight", an, d->D * d->H, T));
	q = gr_rope(g, gr_norm(g, d, q, d->D, d->H, T, il, "attn_q_norm.weight"), pos, d->D, d->H, T);
	q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, krot);
	int k = ga_view(g, gr_mm(g, d, il, "attn_k.weight", an, d->D * d->Hkv, T));
	k = gr_rope(g, gr_norm(g, d, k, d->D, d->Hkv, T, il, "attn_k_norm.weight"), pos, d->D, d->Hkv, T);
	k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
	int v = ga_view(g, gr_mm(g, d, il, "attn_v.weight", an, d->D * d->Hkv, T));
	v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, vrot);
	int kv[2];
	gr_attend_store(g, d, in, il, k, v, 0, kv);
	int cur, iq = -1;
	if (a->n_tps == 1) {
		cur = msa_decode(g, a, a, q, idxc, kv, d, msa_iq(g, d, a, il, an, pos));
	} else {
		cur = msa_stream(g, in, a, q, &iq, idxc, kv, d, il, an, pos);
		for (int64_t st = 1; st < a->ns; st++) /* concat along the tokens */
			cur = ga_op(g, 0, F32, d->D * d->H, a->n_tps * (st + 1), 1, 1,
				    S(cur, msa_stream(g, in, a, q, &iq, idxc, kv, d, il, an, pos)));
	}
	cur = gr_rotate(g, ga_view(g, cur), d->D * d->H * T, d->v_rot, vrot);
	(void)m;
	return gr_mm(g, d, il, "attn_output.weight", cur, d->E, T);
}

struct m3_trunk {
	struct msa a;
	int sparse;
};

static int m3_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int x,
		    int an, int last, const void *ctx)
{
	struct m3_trunk *t = (struct m3_trunk *)ctx;
	int cur = t->sparse && (uint32_t)il >= m->n_lead_dense ? msa_layer(g, m, d, in, il, an, &t->a)
							       : m3_attn(g, m, d, in, il, an);
	return gr_layer_end(g, m, d, in, il, last, cur, x, 0, "ffn_norm.weight", m3_ffn);
}

void gr_minimax_m3(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	struct m3_trunk t;
	msa_shape(&t.a, m, d);
	/* minimax-m3.cpp: msa_enabled = flash_attn && (n_seq_max == 1 || !kv_unified) */
	t.sparse = d->fa && (d->n_seq == 1 || d->n_stream > 1);
	int rn = gr_result(g, d, gr_layers(g, m, d, in, m3_layer, &t));
	g->t[rn].output = 1; /* result_norm: a graph output */
}
