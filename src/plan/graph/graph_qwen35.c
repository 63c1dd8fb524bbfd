/* graph_qwen35: Qwen3.5's hybrid of gated attention and Gated DeltaNet,
 * and its MTP head. */
#include "graph.h"

/* Qwen3.5's gated attention block: q and its gate in one projection;
 * its first half, up to K and V stored (what build_attn expands). */
void gr_qwen35_attn_in(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int swa,
		       struct gr_q35_attn *a)
{
	int64_t T = d->T;
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, swa, &krot, &vrot);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
	int qf = gr_mm(g, d, il, "attn_q.weight", an, d->D * d->H * 2, T);
	uint64_t half = g->t[qf].bytes - (uint64_t)d->D * 4; /* a view of every other head */
	int q = gr_norm(g, d, ga_view_n(g, qf, half), d->D, d->H, T, il, "attn_q_norm.weight");
	q = gr_rope(g, q, pos, d->D, d->H, T);
	q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, krot);
	int v = gr_mm(g, d, il, "attn_v.weight", an, d->D * d->Hkv, T);
	int vr = gr_rotate(g, ga_view(g, v), d->D * d->Hkv * T, d->v_rot, vrot);
	int k = gr_mm(g, d, il, "attn_k.weight", an, d->D * d->Hkv, T);
	k = gr_norm(g, d, ga_view(g, k), d->D, d->Hkv, T, il, "attn_k_norm.weight");
	k = gr_rope(g, k, pos, d->D, d->Hkv, T);
	k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
	gr_attend_store(g, d, in, il, k, vr, swa, a->cache);
	a->qf = qf;
	a->q = q;
	a->swa = swa;
	a->vrot = vrot;
	a->mask = NULL;
	a->o = -1;
}

/* build_attn_mha's expand: the attention over the cache (once) */
int gr_qwen35_attn_core(struct ga_graph *g, const struct dims *d, struct inputs *in, struct gr_q35_attn *a)
{
	if (a->o < 0)
		a->o = gr_attend_core_fn(g, d, in, a->q, a->swa, -1, a->cache, a->mask);
	return a->o;
}

/* ... and its second half: the attention over the cache, gated, out */
int gr_qwen35_attn_out(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, struct gr_q35_attn *a)
{
	int64_t T = d->T;
	int qf = a->qf;
	uint64_t half = g->t[qf].bytes - (uint64_t)d->D * 4;
	int o = gr_qwen35_attn_core(g, d, in, a);
	o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, a->vrot);
	int gate = ga_op(g, 0, F32, d->D * d->H, T, 1, 1, S(ga_view_n(g, qf, half)));
	gate = ga_op(g, 1, F32, d->D * d->H, T, 1, 1, S(gate));
	int gated = ga_op(g, 1, F32, d->D * d->H, T, 1, 1, S(ga_view(g, o), gate));
	return gr_mm(g, d, il, "attn_output.weight", gated, d->E, T);
}

static int qwen35_attention(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int swa)
{
	struct gr_q35_attn a;
	gr_qwen35_attn_in(g, d, in, il, an, swa, &a);
	return gr_qwen35_attn_out(g, d, in, il, &a);
}

/* Gated DeltaNet (src/models/qwen35.cpp build_layer_attn_linear with the
 * fused GATED_DELTA_NET op), states read from and written to the cache. */
int gr_qwen35_deltanet(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int conv_cont)
{
	int64_t T = d->T, ns = d->n_seq;
	int64_t key_dim = d->d_state * d->n_group, value_dim = d->d_state * d->dt_rank;
	int64_t conv_dim = 2 * key_dim + value_dim;
	gr_input_once(g, &in->s_copy, (uint64_t)ns * 4);
	int rcache = gr_cache(g, d, il), scache = gr_cache(g, d, il);
	int conv_states = gr_rs_gather(g, d, in, rcache, d->n_embd_r);
	int qkv = gr_mm(g, d, il, "attn_qkv.weight", an, conv_dim, T);
	int conv_in =
	    ga_op(g, 0, F32, d->d_conv - 1 + T / ns, conv_dim, ns, 1, S(ga_view(g, conv_states), ga_view(g, qkv)));
	/* the last conv window into the cache: one per rollback snapshot */
	for (int64_t k = 0; k < d->rs_k; k++) {
		int tail = ga_view(g, conv_in);
		if (conv_cont) /* qwen4exp's build_conv_state_at conts each tail first */
			tail = ga_op(g, 0, F32, d->d_conv - 1, conv_dim, ns, 1, S(tail));
		ga_sink_to(g, rcache, S(tail, ga_view(g, rcache)));
	}
	int state = gr_rs_gather(g, d, in, scache, d->n_embd_s);
	int conv = ga_op(g, 0, F32, conv_dim, T / ns, ns, 1, S(conv_in, gr_weight(g, d, il, "ssm_conv1d.weight")));
	conv = ga_op(g, 1, F32, conv_dim, T / ns, ns, 1, S(conv));
	/* qwen3next.cpp: beta and alpha in one projection (ssm_ba), and q and
	 * k repeated to the value heads when there are fewer (its fused delta
	 * net still takes them repeated) */
	int ba = gr_has_tensor(d, il, "ssm_ba.weight");
	int64_t nk = d->n_group, nv = d->dt_rank;
	int qc = ga_op(g, 0, F32, d->d_state, nk, T / ns, ns, S(ga_view(g, conv)));
	if (ba && nk != nv)
		qc = ga_view(g, ga_op(g, 0, F32, d->d_state, nv / nk, nk, T, S(ga_view(g, qc))));
	int kc = ga_op(g, 0, F32, d->d_state, nk, T / ns, ns, S(ga_view(g, conv)));
	if (ba && nk != nv)
		kc = ga_view(g, ga_op(g, 0, F32, d->d_state, nv / nk, nk, T, S(ga_view(g, kc))));
	int vc = ga_view(g, conv);
	int alpha, beta;
	if (ba) {
		int mba = ga_view(g, gr_mm(g, d, il, "ssm_ba.weight", an, 2 * nv, T));
		alpha = ga_op(g, 0, F32, nv, T / ns, ns, 1, S(ga_view(g, mba)));
		alpha = ga_op(g, 1, F32, nv, T / ns, ns, 1, S(alpha, gr_weight(g, d, il, "ssm_dt.bias")));
		alpha = ga_op(g, 1, F32, nv, T / ns, ns, 1, S(alpha));
		alpha = ga_op(g, 1, F32, nv, T / ns, ns, 1, S(alpha, gr_weight(g, d, il, "ssm_a")));
		beta = ga_op(g, 0, F32, nv / nk, nk, T / ns, ns, S(ga_view(g, mba)));
		beta = ga_view(g, ga_op(g, 1, F32, nv / nk, nk, T / ns, ns, S(beta)));
	} else {
		alpha = gr_mm(g, d, il, "ssm_alpha.weight", an, d->dt_rank, T);
		alpha = ga_op(g, 0, F32, d->dt_rank, T / ns, ns, 1,
			      S(ga_view(g, alpha), gr_weight(g, d, il, "ssm_dt.bias")));
		alpha = ga_op(g, 1, F32, d->dt_rank, T / ns, ns, 1, S(alpha));
		alpha = ga_op(g, 1, F32, d->dt_rank, T / ns, ns, 1, S(alpha, gr_weight(g, d, il, "ssm_a")));
		beta = gr_mm(g, d, il, "ssm_beta.weight", an, d->dt_rank, T);
		beta = ga_op(g, 1, F32, 1, d->dt_rank, T / ns, ns, S(ga_view(g, beta)));
	}
	/* ggml_gated_delta_net: the attention scores, then K state snapshots */
	int delta = ga_op(g, 0, F32, value_dim * T + d->rs_k * d->n_embd_s * ns, 1, 1, 1,
			  S(qc, kc, ga_view(g, vc), ga_view(g, alpha), beta, ga_view(g, state)));
	ga_sink_to(g, scache, S(ga_view(g, delta), ga_view(g, scache)));
	int on = gr_norm(g, d, ga_view(g, delta), d->d_state, d->dt_rank * T, 1, il, "ssm_norm.weight");
	int z = gr_mm(g, d, il, "attn_gate.weight", an, value_dim, T);
	z = ga_op(g, 1, F32, d->d_state, d->dt_rank * T, 1, 1, S(ga_view(g, z)));
	int gated = ga_op(g, 1, F32, d->d_state, d->dt_rank * T, 1, 1, S(on, z));
	return gr_mm(g, d, il, "ssm_out.weight", ga_view(g, gated), d->E, T);
}

/* The FFN of layer il: qwen35moe's routed and shared experts, or dense. */
static int qwen35_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	return d->n_expert ? gr_qwen35moe_ffn(g, m, d, il, x, T) : gr_ffn(g, d, il, x, T);
}

/* One block: Gated DeltaNet or gated attention, then the FFN half */
static int qwen35_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L,
			int x, int an, int last, const void *ctx)
{
	(void)last;
	(void)ctx;
	/* DeltaNet's output is reshaped (a view, never reused in place);
	 * attention's is the projection itself, which the residual add
	 * takes over */
	int recr = m->kind[L] == LAYER_RECURRENT;
	int cur = recr ? ga_view(g, gr_qwen35_deltanet(g, d, in, L, an, 0))
		       : qwen35_attention(g, d, in, L, an, m->kind[L] == LAYER_SWA);
	return gr_ffn_half(g, m, d, L, cur, x, d->T, "post_attention_norm.weight", qwen35_ffn);
}

void gr_qwen35(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = gr_layers(g, m, d, in, qwen35_layer, NULL);
	int h = gr_norm(g, d, x, d->E, T, 1, -1, "output_norm.weight");
	g->t[h].output = 1; /* h_nextn: always a graph output, for an MTP head to read */
	gr_lm_rows(g, d, in, h);
}

/* The MTP block's attention: full, never windowed. */
static int qwen35_mtp_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in,
				int il, int an)
{
	(void)m;
	return qwen35_attention(g, d, in, il, an, 0);
}

/* The Qwen3.5 MTP head (qwen35.cpp graph_mtp): the nextn block il. */
void gr_qwen35_mtp(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il)
{
	gr_mtp_block(g, m, d, in, il, qwen35_mtp_attention, "post_attention_norm.weight", qwen35_ffn);
}
