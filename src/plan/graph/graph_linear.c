/* graph_linear: hybrids of attention and a linear-time recurrent mixer
 * beyond Granite's and Qwen3.5's. Falcon-H1 (src/models/falcon-h1.cpp):
 * attention and a mamba2 mixer side by side in every layer, over the same
 * input, their outputs added, then a SwiGLU FFN. */
#include "graph.h"

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
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

/* Jamba (src/models/jamba.cpp): mamba (v1) layers (build_mamba_layer of
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
	uint64_t win = 4ull * (d->d_conv - 1) + 4ull * (d->d_conv - 1 + nst) * (d_inner * ns - 1);
	ga_sink_to(g, rcache, S(ga_view_n(g, conv_x, win), ga_view(g, rcache)));
	int sc = gr_input_once(g, &in->s_copy, (uint64_t)ns * 4);
	uint64_t s_full = (uint64_t)d->n_embd_s * 4 * ns * d->rs_k;
	ga_view(g, scache);
	int s4 = ga_view_n(g, scache, s_full);
	int x = ga_op(g, 0, F32, d_inner, nst, ns, 1, S(conv_x, gr_weight(g, d, il, "ssm_conv1d.weight")));
	x = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(x, gr_weight(g, d, il, "ssm_conv1d.bias")));
	x = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(x));
	int x4 = ga_view(g, x);
	int64_t n_xdb = d->dt_rank + 2 * d->d_state;
	int xdb = mm3(g, d, il, "ssm_x.weight", x, n_xdb, nst, ns);
	int dt = gr_norm(g, d, ga_view(g, xdb), d->dt_rank, nst, ns, il, "ssm_dt_norm.weight");
	dt = mm3(g, d, il, "ssm_dt.weight", dt, d_inner, nst, ns);
	dt = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(dt, gr_weight(g, d, il, "ssm_dt.bias")));
	int A = gr_weight(g, d, il, "ssm_a");
	int B = gr_norm(g, d, ga_view(g, xdb), d->d_state, 1, T, il, "ssm_b_norm.weight");
	int C = gr_norm(g, d, ga_view(g, xdb), d->d_state, 1, T, il, "ssm_c_norm.weight");
	int y_ssm = ga_op(g, 0, F32, d_inner * T + d->n_embd_s * ns, 1, 1, 1, S(s4, x4, dt, A, B, C, ga_view(g, sc)));
	int extra = ga_op(g, 0, F32, d->n_embd_s, 0, 1, 1, S(ga_view_n(g, scache, s_full), ga_view(g, sc)));
	ga_sink_to(g, scache, S(extra, ga_view(g, scache)));
	ga_sink_to(g, scache, S(ga_view_n(g, y_ssm, (uint64_t)d->n_embd_s * 4 * ns), ga_view(g, scache)));
	t->xz = xz;
	t->x = x;
	t->y_ssm = y_ssm;
}

/* The mamba layer's tail: z made contiguous, y + x*D, the SiLU gate, the
 * output projection (reshaped to 2-d). */
static int jb_mamba_tail(struct ga_graph *g, const struct dims *d, const struct jb_layer *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int64_t d_inner = d->n_embd_s / d->d_state;
	int z = ga_op(g, 0, F32, d_inner, nst, ns, 1, S(ga_view(g, t->xz)));
	int y = ga_view(g, t->y_ssm);
	int xd = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(t->x, gr_weight(g, d, t->il, "ssm_d")));
	y = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(y, xd));
	y = ga_op(g, 0, F32, d_inner, nst, ns, 1, S(z, y));
	return ga_view(g, mm3(g, d, t->il, "ssm_out.weight", y, d->E, nst, ns));
}

/* The mixer's tail, the last layer's output rows (the residual's first),
 * the residual add, the FFN norm and the FFN (experts or SwiGLU). */
static void jb_body(struct ga_graph *g, const struct dims *d, struct inputs *in, struct jb_layer *t, int last)
{
	int64_t T = d->T, Tn = T;
	int x = t->inx;
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
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}
