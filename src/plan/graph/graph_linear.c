/* graph_linear: hybrids of attention and a linear-time recurrent mixer
 * beyond Granite's and Qwen3.5's. Falcon-H1 (src/models/falcon-h1.cpp):
 * attention and a mamba2 mixer side by side in every layer, over the same
 * input, their outputs added, then a SwiGLU FFN. */
#include "graph.h"

#include <math.h>
#include <string.h>

/* What a Falcon-H1 layer leaves for a later expand: everything after the
 * attention (expanded by build_attn_mha) and the mixer's state writes. */
struct fh_layer {
	int il, o;
	struct gr_mamba2 m2;
};

/* The layer's tail, reached through the next layer's input norm (or the
 * output norm): the attention's output projection, the mixer's tail, their
 * sum and the residual (the last layer keeps the output rows of the
 * residual only: the rows of the sum are never used), the FFN and its
 * residual. */
static int fh_flush(struct ga_graph *g, const struct dims *d, struct inputs *in, const struct fh_layer *t, int x,
		    int last)
{
	int64_t T = d->T;
	int o = gr_rotate(g, ga_view(g, t->o), d->D * d->H * T, d->v_rot, &in->v_rot);
	int attn = gr_mm(g, d, t->il, "attn_output.weight", ga_view(g, o), d->E, T);
	int ssm = gr_mamba2_tail(g, d, t->il, &t->m2);
	int cur = ga_op(g, 1, F32, d->E, T, 1, 1, S(attn, ssm));
	int res = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, x));
	int64_t Tn = T;
	if (last) { /* build_inp_out_ids is never NULL: the rows are kept even when all are outputs */
		Tn = d->n_out < T ? d->n_out : T;
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)Tn * 4);
		res = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(res, ids)), GA_OP_GET_ROWS);
	}
	int fn = gr_norm(g, d, res, d->E, Tn, 1, t->il, "ffn_norm");
	int fo = gr_ffn(g, d, t->il, fn, Tn);
	return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, res));
}

void gr_falcon_h1(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	struct fh_layer prev = {-1, -1, {0, 0, 0}};
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		/* expand(q) finds q's rotation (its src0) before anything else */
		if (d->k_rot)
			gr_input_once(g, &in->k_rot, (uint64_t)d->k_rot * d->k_rot * 4);
		if (prev.il >= 0)
			x = fh_flush(g, d, in, &prev, x, 0);
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
		int q = gr_rope(g, ga_view(g, gr_mm(g, d, L, "attn_q.weight", an, d->D * d->H, T)), pos, d->D, d->H, T);
		q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, &in->k_rot);
		int v = ga_view(g, gr_mm(g, d, L, "attn_v.weight", an, d->D * d->Hkv, T));
		v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, &in->v_rot);
		int k =
		    gr_rope(g, ga_view(g, gr_mm(g, d, L, "attn_k.weight", an, d->D * d->Hkv, T)), pos, d->D, d->Hkv, T);
		k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, &in->k_rot);
		prev.o = gr_attend(g, d, in, L, q, k, v, 0);
		/* the mixer over a second norm of the same input */
		int rcache = gr_cache(g, d, L);
		int states = gr_mamba_rs(g, d, in, rcache, d->n_embd_r);
		int an2 = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		gr_mamba2_head(g, d, in, L, an2, rcache, states, &prev.m2);
		prev.il = L;
	}
	if (prev.il >= 0)
		x = fh_flush(g, d, in, &prev, x, 1);
	int rn = gr_result(g, d, x);
	g->t[rn].output = 1; /* result_norm is t_embd: llm_graph_result::set_outputs marks it */
}

/* Mamba (src/models/mamba.cpp with build_mamba_layer): the mixer alone in
 * every layer, its residual added; the jamba builder without attention or
 * FFN (jb_layer.bare).
 * Jamba (src/models/jamba.cpp): mamba (v1) layers (build_mamba_layer of
 * src/models/mamba-base.cpp) and attention without RoPE, each followed by
 * routed experts (softmax, unnormalised, ff wide) where the layer has a
 * router, a SwiGLU FFN elsewhere. */

/* a matmul whose input keeps the engine's 3-d shape {ne1, ne2} */
static int mm3(struct ga_graph *g, const struct dims *d, int il, const char *w, int x, int64_t ne0, int64_t ne1,
	       int64_t ne2)
{
	return gr_op_kind(g, ga_op(g, 0, F32, ne0, ne1, ne2, 1, S(gr_weight(g, d, il, w), x)), GA_OP_MUL_MAT);
}

struct jb_layer {
	int il, mamba, moe;
	int o;		  /* attention: what build_attn_mha expanded */
	int xz, x, y_ssm; /* mamba: the input projection, the conv's SiLU, the scan */
	int body;	  /* 1: the mixer's tail and the FFN are still to visit */
	int inx;	  /* the layer's input */
	int bare;	  /* mamba alone: the mixer and its residual, no FFN */
	int res, ffn;	  /* the FFN's residual input and output, once visited */
};

/* build_mamba_layer up to what it expands: the conv states were gathered
 * by the caller; the input projection and the conv window into the cache,
 * then the scan over the SSM states (its conv, dt, B and C chains), the
 * untouched states copied back, the new states into the cache. */
static void jb_mamba_head(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int rcache,
			  int states, struct jb_layer *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int64_t d_inner = d->n_embd_s / d->d_state;
	int scache = gr_cache(g, d, il);
	int conv = ga_view(g, states);
	int xz = mm3(g, d, il, "ssm_in.weight", ga_view(g, an), 2 * d_inner, nst, ns);
	int conv_x = ga_op(g, 0, F32, d->d_conv - 1 + nst, d_inner, ns, 1, S(conv, ga_view(g, ga_view(g, xz))));
	int s4;
	int x = gr_ssm_conv(g, d, in, il, rcache, scache, conv_x, d_inner, 1, &s4);
	int x4 = ga_view(g, x);
	int64_t n_xdb = d->dt_rank + 2 * d->d_state;
	int xdb = mm3(g, d, il, "ssm_x.weight", x, n_xdb, nst, ns);
	/* dt, B and C RMS-normed by their weights (jamba), by none
	 * (ssm.dt_b_c_rms: falcon-mamba) or not at all (mamba) */
	int wn = gr_has_tensor(d, il, "ssm_dt_norm.weight") && gr_has_tensor(d, il, "ssm_b_norm.weight") &&
		 gr_has_tensor(d, il, "ssm_c_norm.weight");
	int rms = 0;
	if (!wn && d->w->gg && gguf_kv_bool(gguf_find(d->w->gg, "mamba.ssm.dt_b_c_rms"), &rms) != 0)
		rms = 0;
	/* B and C: strided views of x_db (ggml_nbytes) */
	uint64_t bc = 4ull * (uint64_t)(d->d_state + (T - 1) * n_xdb);
	int dt = ga_view(g, xdb), B = ga_view_n(g, xdb, bc), C = ga_view_n(g, xdb, bc);
	if (wn)
		dt = gr_norm(g, d, dt, d->dt_rank, nst, ns, il, "ssm_dt_norm.weight");
	else if (rms)
		dt = ga_op(g, 1, F32, d->dt_rank, nst, ns, 1, S(dt));
	dt = mm3(g, d, il, "ssm_dt.weight", dt, d_inner, nst, ns);
	dt = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(dt, gr_weight(g, d, il, "ssm_dt.bias")));
	int A = gr_weight(g, d, il, "ssm_a");
	if (wn) {
		B = gr_norm(g, d, B, d->d_state, 1, T, il, "ssm_b_norm.weight");
		C = gr_norm(g, d, C, d->d_state, 1, T, il, "ssm_c_norm.weight");
	} else if (rms) {
		B = ga_op(g, 1, F32, d->d_state, 1, T, 1, S(B));
		C = ga_op(g, 1, F32, d->d_state, 1, T, 1, S(C));
	}
	const int xdabc[5] = {x4, dt, A, B, C};
	t->xz = xz;
	t->x = x;
	t->y_ssm = gr_ssm_scan(g, d, in, scache, s4, xdabc);
}

/* The mamba layer's tail: z made contiguous, y + x*D, the SiLU gate, the
 * output projection (reshaped to 2-d). */
static int jb_mamba_tail(struct ga_graph *g, const struct dims *d, const struct jb_layer *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int64_t d_inner = d->n_embd_s / d->d_state;
	/* z: the second half of each xz row (ggml_nbytes of the strided view:
	 * what a copy of it to another backend allocates) */
	int z = ga_op(g, 0, F32, d_inner, nst, ns, 1, S(ga_view_n(g, t->xz, 8ull * d_inner * T - 4ull * d_inner)));
	int y = ga_view_n(g, t->y_ssm, 4ull * (uint64_t)(d_inner * T)); /* y_ssm's first d_inner x T */
	int xd = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(t->x, gr_weight(g, d, t->il, "ssm_d")));
	y = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(y, xd));
	y = ga_op(g, 0, F32, d_inner, nst, ns, 1, S(z, y));
	return gr_cview(g, mm3(g, d, t->il, "ssm_out.weight", y, d->E, nst, ns), d->E, T, 1);
}

/* The mixer's tail, the last layer's output rows (the residual's first),
 * the residual add, the FFN norm and the FFN (experts or SwiGLU). */
static void jb_body(struct ga_graph *g, const struct dims *d, struct inputs *in, struct jb_layer *t, int last)
{
	int64_t T = d->T, Tn = T;
	int x = t->inx;
	if (t->bare) { /* mamba.cpp: the rows of the mixer's output first, then of the residual */
		int cur = jb_mamba_tail(g, d, t);
		if (last) {
			Tn = d->n_out < T ? d->n_out : T;
			int ids = gr_input_once(g, &in->out_ids, (uint64_t)Tn * 4);
			cur = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(cur, ids)), GA_OP_GET_ROWS);
			x = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(x, ids)), GA_OP_GET_ROWS);
		}
		t->res = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, x));
		t->body = 0;
		return;
	}
	if (last) {
		Tn = d->n_out < T ? d->n_out : T;
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)Tn * 4);
		x = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(x, ids)), GA_OP_GET_ROWS);
	}
	int cur;
	if (t->mamba) {
		cur = jb_mamba_tail(g, d, t);
	} else {
		int o = gr_rotate(g, ga_view(g, t->o), d->D * d->H * T, d->v_rot, &in->v_rot);
		cur = gr_mm(g, d, t->il, "attn_output.weight", ga_view(g, o), d->E, T);
	}
	if (last)
		cur = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(cur, in->out_ids)), GA_OP_GET_ROWS);
	int fi = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(x, cur));
	int fn = gr_norm(g, d, fi, d->E, Tn, 1, t->il, "ffn_norm.weight");
	if (t->moe) {
		struct dims de = *d;
		de.F_exp = d->F; /* the experts are feed_forward_length wide */
		struct gr_moe_opts o = {0};
		t->ffn = gr_moe_ex(g, &de, t->il, fn, Tn, &o);
	} else {
		t->ffn = gr_ffn(g, d, t->il, fn, Tn);
	}
	t->res = fi;
	t->body = 0;
}

/* What the next layer (or the output norm) reaches of layer t: its body if
 * no expand has, then the FFN's residual add. */
static int jb_flush(struct ga_graph *g, const struct dims *d, struct inputs *in, struct jb_layer *t, int last)
{
	if (t->body)
		jb_body(g, d, in, t, last);
	if (t->bare)
		return t->res;
	int64_t Tn = last ? (d->n_out < d->T ? d->n_out : d->T) : d->T;
	return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(t->res, t->ffn));
}

void gr_jamba(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	struct jb_layer prev = {0};
	prev.il = -1;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		struct jb_layer t = {0};
		t.il = L;
		t.mamba = m->has_rs[il];
		t.moe = gr_has_tensor(d, L, "ffn_gate_inp.weight");
		t.bare = m->pure_recurrent; /* mamba.cpp: no FFN */
		t.body = 1;
		t.inx = -1;
		int rcache = -1, states = -1;
		if (t.mamba) { /* build_rs expands the conv states' gather first */
			rcache = gr_cache(g, d, L);
			states = gr_mamba_rs(g, d, in, rcache, d->n_embd_r);
		} else if (d->k_rot) { /* expand(q) finds q's rotation first */
			gr_input_once(g, &in->k_rot, (uint64_t)d->k_rot * d->k_rot * 4);
		}
		if (prev.il >= 0)
			x = jb_flush(g, d, in, &prev, 0);
		t.inx = x;
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		if (t.mamba) {
			jb_mamba_head(g, d, in, L, an, rcache, states, &t);
		} else {
			int q = ga_view(g, gr_mm(g, d, L, "attn_q.weight", an, d->D * d->H, T));
			q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, &in->k_rot);
			int v = ga_view(g, gr_mm(g, d, L, "attn_v.weight", an, d->D * d->Hkv, T));
			v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, &in->v_rot);
			int k = ga_view(g, gr_mm(g, d, L, "attn_k.weight", an, d->D * d->Hkv, T));
			k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, &in->k_rot);
			t.o = gr_attend(g, d, in, L, q, k, v, 0);
		}
		/* build_moe_ffn expands the router's weights: the layer's body is
		 * visited now, only the residual add is left for later */
		if (t.moe)
			jb_body(g, d, in, &t, il == n_layer - 1);
		prev = t;
	}
	if (prev.il >= 0)
		x = jb_flush(g, d, in, &prev, 1);
	int rn = gr_result(g, d, x);
	g->t[rn].output = 1; /* result_norm is t_embd: llm_graph_result::set_outputs marks it */
}

/* Kimi-Linear (src/models/kimi-linear.cpp): Kimi delta attention layers and
 * MLA layers without RoPE, each followed by a dense FFN (the leading
 * layers) or sigmoid-gated biased experts and a shared one. Every layer
 * starts by expanding its input norm, so the builder's order is the
 * trunk's (gr_trunk_moe). */

/* causal_conv1d of q, k or v (c = 0, 1, 2): the projection, the gathered
 * conv state's slice of it concatenated before it, the last window back
 * into the cache. Returns the concatenation. */
static int kda_conv_in(struct ga_graph *g, const struct dims *d, int il, int an, int rcache, int states, int c,
		       int64_t inner)
{
	static const char *const proj[] = {"attn_q.weight", "attn_k.weight", "attn_v.weight"};
	int64_t T = d->T, ns = d->n_seq, nst = T / ns, dc = d->d_conv ? d->d_conv : 4;
	int cx = ga_view(g, states);
	int xp = gr_mm(g, d, il, proj[c], an, inner, T);
	int conv_x = ga_op(g, 0, F32, dc - 1 + nst, inner, ns, 1, S(cx, ga_view(g, ga_view(g, xp))));
	uint64_t win = 4ull * (dc - 1) + 4ull * (dc - 1 + nst) * (inner * ns - 1);
	ga_sink_to(g, rcache, S(ga_view_n(g, conv_x, win), ga_view(g, rcache)));
	return conv_x;
}

/* the depthwise conv and SiLU of q, k or v; q and k L2-normed */
static int kda_conv(struct ga_graph *g, const struct dims *d, int il, int conv_x, int c, int64_t hd, int64_t H)
{
	static const char *const w[] = {"ssm_conv1d_q.weight", "ssm_conv1d_k.weight", "ssm_conv1d_v.weight"};
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int x = ga_op(g, 0, F32, hd * H, nst, ns, 1, S(conv_x, ga_view(g, gr_weight(g, d, il, w[c]))));
	x = ga_op(g, 1, F32, hd * H, T, 1, 1, S(ga_view(g, x)));
	x = ga_view(g, x);
	if (c < 2)
		x = ga_op(g, 0, F32, hd, H, nst, ns, S(x));
	return x;
}

/* Kimi-K3's decay gate: kda.gate_lower_bound set (kimi-linear never
 * reads it) */
static int kda_lower_bound(const struct model *m, const struct dims *d)
{
	double lb;
	if (strcmp(m->arch, "kimi-k3") != 0 || !d->w->gg ||
	    gguf_kv_f64(gguf_findf(d->w->gg, "%s.kda.gate_lower_bound", m->arch), &lb) != 0)
		return 0;
	return lb > -INFINITY;
}

static int kda_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int64_t H = d->H, hd = m->kda_head_dim, inner = H * hd;
	gr_input_once(g, &in->s_copy, (uint64_t)ns * 4);
	int rcache = gr_cache(g, d, il), scache = gr_cache(g, d, il);
	int states = gr_rs_gather(g, d, in, rcache, d->n_embd_r);
	int cx[3];
	for (int c = 0; c < 3; c++)
		cx[c] = kda_conv_in(g, d, il, an, rcache, states, c, inner);
	int state = gr_rs_gather(g, d, in, scache, d->n_embd_s);
	/* the fused delta net, reached through its new state's copy */
	int q = kda_conv(g, d, il, cx[0], 0, hd, H);
	int k = kda_conv(g, d, il, cx[1], 1, hd, H);
	int v = kda_conv(g, d, il, cx[2], 2, hd, H);
	int g1 = gr_mm(g, d, il, "ssm_f_b.weight", gr_mm(g, d, il, "ssm_f_a.weight", an, hd, T), inner, T);
	g1 = ga_op(g, 1, F32, inner, T, 1, 1, S(g1, gr_weight(g, d, il, "ssm_dt.bias")));
	if (kda_lower_bound(m, d)) { /* kimi-k3: lower_bound * sigmoid(-(g1 * A)) */
		g1 = ga_op(g, 1, F32, hd, H, T, 1, S(ga_view(g, g1), ga_view(g, gr_weight(g, d, il, "ssm_a"))));
		for (int i = 0; i < 3; i++) /* scale, sigmoid, scale */
			g1 = ga_op(g, 1, F32, hd, H, T, 1, S(g1));
	} else {
		g1 = ga_op(g, 1, F32, inner, T, 1, 1, S(g1));
		g1 = ga_op(g, 1, F32, hd, H, T, 1, S(ga_view(g, g1), ga_view(g, gr_weight(g, d, il, "ssm_a"))));
	}
	g1 = ga_view(g, g1);
	int beta = ga_view(g, gr_mm(g, d, il, "ssm_beta.weight", an, H, T));
	beta = ga_op(g, 1, F32, 1, H, nst, ns, S(beta));
	int delta = ga_op(g, 0, F32, inner * T + d->n_embd_s * ns, 1, 1, 1, S(q, k, v, g1, beta, ga_view(g, state)));
	ga_sink_to(g, scache, S(ga_view(g, delta), ga_view(g, scache)));
	/* the tail: the output made contiguous, normed, gated by
	 * sigmoid(g_b(g_a(x))), made contiguous again, projected */
	int o = ga_op(g, 0, F32, hd, H, nst, ns, S(ga_view(g, delta)));
	o = gr_norm(g, d, ga_view(g, o), hd, H, T, il, "ssm_norm.weight");
	int g2;
	if (gr_has_tensor(d, il, "ssm_g.weight")) { /* kimi-k3: one full-rank gate */
		g2 = gr_mm(g, d, il, "ssm_g.weight", ga_view(g, ga_view(g, an)), inner, T);
	} else {
		g2 = gr_mm(g, d, il, "ssm_g_a.weight", ga_view(g, ga_view(g, an)), hd, T);
		g2 = gr_mm(g, d, il, "ssm_g_b.weight", g2, inner, T);
	}
	g2 = ga_op(g, 1, F32, hd, H, T, 1, S(ga_view(g, g2)));
	o = ga_op(g, 1, F32, hd, H, T, 1, S(o, g2));
	o = ga_op(g, 0, F32, inner, T, 1, 1, S(o));
	return gr_mm(g, d, il, "attn_output.weight", o, d->E, T);
}

/* Kimi's MLA: deepseek2's latent attention (graph_deepseek2.c) without
 * RoPE and with one attn_q: q's no-rope part absorbed by attn_k_b beside
 * its rope part, the normed latent as V, K the latent and k_pe; a K-only
 * cache; attn_v_b decompressing the output per head. */
static int kimi_mla_to(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
		       int an, int kqv)
{
	int64_t T = d->T, H = d->H;
	int64_t rope = m->rope_dims, lora = m->kv_lora_rank;
	int64_t dk = m->head_k_mla, dv = m->head_v_mla, nope = dk - rope, row = lora + rope;
	int q = gr_mm(g, d, il, "attn_q.weight", an, H * dk, T);
	int qnp = ga_view(g, ga_view_n(g, q, (uint64_t)(nope + (H * T - 1) * dk) * 4));
	int qabs = gr_op_kind(g, ga_op(g, 0, F32, lora, T, H, 1, S(gr_weight(g, d, il, "attn_k_b.weight"), qnp)),
			      GA_OP_MUL_MAT);
	int qpe = ga_view_n(g, q, (uint64_t)(rope + (H * T - 1) * dk) * 4);
	int qcur = ga_op(g, 0, F32, row, H, T, 1, S(ga_view(g, qabs), qpe));
	int kvpe = gr_mm(g, d, il, "attn_kv_a_mqa.weight", an, row, T);
	int kvc = ga_view_n(g, kvpe, (uint64_t)(lora + (T - 1) * row) * 4);
	int vcur = ga_view(g, gr_norm(g, d, kvc, lora, T, 1, il, "attn_kv_a_norm.weight"));
	int kpe = ga_view_n(g, kvpe, (uint64_t)(rope + (T - 1) * row) * 4);
	int kcur = ga_op(g, 0, F32, row, 1, T, 1, S(vcur, kpe));
	if (kqv)
		return gr_attend_mla_kqv(g, d, in, il, qcur, kcur, lora, dv, NULL);
	return gr_attend_mla(g, d, in, il, qcur, kcur, lora, dv, NULL);
}

static int kimi_mla(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an)
{
	return kimi_mla_to(g, m, d, in, il, an, 0);
}

static int kimi_attn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an)
{
	return m->has_rs[il] ? kda_layer(g, m, d, in, il, an) : kimi_mla(g, m, d, in, il, an);
}

int gr_kimi_kda(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an)
{
	return kda_layer(g, m, d, in, il, an);
}

int gr_kimi_mla_kqv(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an)
{
	return kimi_mla_to(g, m, d, in, il, an, 1);
}

/* dense in the leading layers; else the routed experts (gated as the
 * payload says, biased, their weights always normalised and scaled by
 * expert_weights_scale) and the shared ones, added */
static int kimi_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	if ((uint32_t)il < m->n_lead_dense)
		return gr_ffn(g, d, il, x, T);
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.probs_b = 1;
	o.norm_w = 1; /* kimi-linear.cpp passes true */
	return gr_moe_shared(g, d, il, x, T, &o, (int64_t)d->F_exp * (m->n_expert_shared ? m->n_expert_shared : 1));
}

void gr_kimi_linear(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	gr_trunk_moe(g, m, d, in, kimi_attn, "ffn_norm.weight", kimi_ffn);
}

/* Kimi's delta attention steps for a kin that builds the rest itself
 * (graph_bailing3.c) */
int gr_kda_conv_in(struct ga_graph *g, const struct dims *d, int il, int an, int rcache, int states, int c,
		   int64_t inner)
{
	return kda_conv_in(g, d, il, an, rcache, states, c, inner);
}

int gr_kda_conv(struct ga_graph *g, const struct dims *d, int il, int conv_x, int c, int64_t hd, int64_t H)
{
	return kda_conv(g, d, il, conv_x, c, hd, H);
}
