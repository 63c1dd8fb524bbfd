/* graph_mamba: the mamba2 layer (src/models/mamba-base.cpp
 * build_mamba2_layer) and Granite 4.0's hybrid of it with attention
 * (src/models/granite-hybrid.cpp); PLaMo-2's hybrid (src/models/plamo2.cpp:
 * its own mixer, fused attention with per-head norms, post norms). */
#include "graph.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/util.h"

/* build_rs's first node: ggml_scale_inplace over a view of the cache (the
 * cleared state, zero-sized when none is). It allocates nothing, but it is
 * an op (SCALE), not a view op: the scheduler assigns it to the cache's
 * backend and carries that backend down to the gather after it, which a
 * layer following one on another device decides by. */
int gr_rs_zero(struct ga_graph *g, int cache)
{
	return ga_sink_to(g, cache, S(ga_view(g, cache)));
}

/* build_rs: a scale_inplace zeroing a cleared state (a view: allocates
 * nothing), the sequences' states gathered through views of the cache
 * SPAN bytes wide (0: ga_view's), the untouched extra states copied back
 * into the cache. Returns the gathered states. s_copy must exist. */
static int rs_gather(struct ga_graph *g, const struct dims *d, struct inputs *in, int cache, int64_t size,
		     uint64_t span)
{
	gr_rs_zero(g, cache);
	int states = ga_op(g, 0, F32, size, d->n_seq, 1, 1,
			   S(span ? ga_view_n(g, cache, span) : ga_view(g, cache), gr_s_view(g, in, 0)));
	/* the cells outside the ubatch: none but in a one-sequence reserve */
	int64_t n_extra = d->n_rs > d->n_seq ? d->n_rs - d->n_seq : 0;
	int extra = ga_op(g, 0, F32, size, n_extra, 1, 1,
			  S(span ? ga_view_n(g, cache, span) : ga_view(g, cache), gr_s_view(g, in, 1)));
	ga_sink_to(g, cache, S(extra, ga_view(g, cache)));
	return states;
}

int gr_mamba_rs(struct ga_graph *g, const struct dims *d, struct inputs *in, int cache, int64_t size)
{
	gr_input_once(g, &in->s_copy, (uint64_t)d->n_seq * 4);
	/* the whole cache (a copy of it, across backends) */
	return rs_gather(g, d, in, cache, size, (uint64_t)size * 4 * d->n_seq * d->rs_k);
}

int gr_rs_gather(struct ga_graph *g, const struct dims *d, struct inputs *in, int cache, int64_t size)
{
	return rs_gather(g, d, in, cache, size, 0);
}

/* What a layer leaves for later: the nodes no ggml_build_forward_expand
 * reaches while the layer is built. The next layer's explicit expands
 * (a mamba2 layer's conv states) come first; the tail is visited after,
 * through the next layer's input norm. */
struct tail {
	int kind;  /* 0 none, 1 mamba2, 2 attention, 3 short conv, 4 FFN alone (nemotron-h) */
	int nemo;  /* Nemotron-H: no rope, the mixer's residual only, output rows after the final norm */
	int lfm2;  /* LFM2's residual adds (the residual first, then the FFN's) */
	int plamo; /* PLaMo-2: its mixer (kind 7), fused qkv, post norms, the output rows last */
	int mamba; /* Mamba-2 alone: the mixer and its residual, no FFN */
	int il, res;
	int bx, bcx;		  /* short conv */
	int x;			  /* Nemotron-H's FFN width */
	struct gr_mamba2 m2;	  /* mamba2 */
	int q, kcache, vcache, o; /* attention */
	/* 5: LFM2-MoE's residual after the experts (lfm2moe_ffn); 6:
	 * Nemotron-H's shared expert and residual after the routed ones
	 * (nemo_moe_ffn) */
	int fi, fn, moe;
	int64_t Tn, latent; /* latent: the experts' width when not n_embd (6) */
};

int gr_ssm_conv(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int rcache, int scache, int conv_x,
		int64_t w, int64_t sinks, int *s4)
{
	int64_t ns = d->n_seq, nst = d->T / ns;
	*s4 = gr_conv_window(g, d, in, conv_x, w, rcache, scache, sinks);
	int x = ga_op(g, 0, F32, w, nst, ns, 1, S(conv_x, gr_weight(g, d, il, "ssm_conv1d.weight")));
	x = ga_op(g, 1, F32, w, nst, ns, 1, S(x, gr_weight(g, d, il, "ssm_conv1d.bias")));
	return ga_op(g, 1, F32, w, nst, ns, 1, S(x));
}

/* The mamba2 mixer up to what it expands (build_mamba2_layer): the conv
 * states were gathered by the caller; the input projection (reached
 * through the conv window's copies into the cache), the SSM states, the
 * conv and dt chains (reached through ggml_ssm_scan), the new state
 * written back. */
void gr_mamba2_head(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int rcache,
		    int conv_states, struct gr_mamba2 *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int64_t d_inner = d->n_embd_s / d->d_state;
	int64_t conv_dim = d_inner + 2 * d->n_group * d->d_state;
	int64_t d_in_proj = 2 * d_inner + 2 * d->n_group * d->d_state + d->dt_rank;
	int scache = gr_cache(g, d, il);
	int conv = ga_view(g, conv_states);
	int zxbcdt = ga_view(g, gr_mm(g, d, il, "ssm_in.weight", an, d_in_proj, T));
	int xbc_t = ga_view(g, ga_view(g, zxbcdt));
	int conv_x = ga_op(g, 0, F32, d->d_conv - 1 + nst, conv_dim, ns, 1, S(conv, xbc_t));
	int64_t n_written = nst < d->rs_k ? nst : d->rs_k;
	int s4;
	int xbc = gr_ssm_conv(g, d, in, il, rcache, scache, conv_x, conv_dim, n_written, &s4);
	/* x, B and C: strided views of xBC (ggml_nbytes: what a copy of
	 * them to the scan's backend allocates when it is not xBC's) */
	int x = ga_view_n(g, xbc, 4ull * (uint64_t)(d_inner + (T - 1) * conv_dim));
	int dt = ga_op(g, 0, F32, d->dt_rank, nst, ns, 1, S(ga_view(g, zxbcdt)));
	dt = ga_op(g, 1, F32, d->dt_rank, nst, ns, 1, S(dt, gr_weight(g, d, il, "ssm_dt.bias")));
	uint64_t bc = 4ull * (uint64_t)(d->n_group * d->d_state + (T - 1) * conv_dim);
	int B = ga_view_n(g, xbc, bc), C = ga_view_n(g, xbc, bc);
	int y_ssm = ga_op(g, 0, F32, d_inner * T + d->rs_k * d->n_embd_s * ns, 1, 1, 1,
			  S(s4, x, dt, gr_weight(g, d, il, "ssm_a"), B, C, gr_s_view(g, in, 0)));
	uint64_t s_full = (uint64_t)d->n_embd_s * 4 * ns * d->rs_k;
	int extra = ga_op(g, 0, F32, d->n_embd_s, 0, 1, 1, S(ga_view_n(g, scache, s_full), gr_s_view(g, in, 1)));
	ga_sink_to(g, scache, S(extra, ga_view(g, scache)));
	uint64_t written = (uint64_t)d->n_embd_s * 4 * ns * n_written;
	ga_sink_to(g, scache, S(ga_view_n(g, y_ssm, written), ga_view(g, scache)));
	t->y_ssm = y_ssm;
	t->x = x;
	t->zxbcdt = zxbcdt;
}

/* The mamba2 tail: the SiLU gate of z with y + x*D, the grouped RMS norm,
 * the output projection. */
int gr_mamba2_tail(struct ga_graph *g, const struct dims *d, int il, const struct gr_mamba2 *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int64_t d_inner = d->n_embd_s / d->d_state;
	int64_t head_dim = d_inner / d->dt_rank;
	int z = ga_op(g, 0, F32, head_dim, d->dt_rank, nst, ns, S(ga_view(g, t->zxbcdt)));
	int y = ga_view_n(g, t->y_ssm, 4ull * (uint64_t)(d_inner * T)); /* y_ssm's first d_inner x T */
	int xd = ga_op(g, 1, F32, head_dim, d->dt_rank, nst, ns, S(t->x, gr_weight(g, d, il, "ssm_d")));
	y = ga_op(g, 1, F32, head_dim, d->dt_rank, nst, ns, S(y, xd));
	y = ga_op(g, 0, F32, head_dim, d->dt_rank, nst, ns, S(z, y));
	y = gr_norm(g, d, ga_view(g, y), d_inner / d->n_group, d->n_group, T, il, "ssm_norm.weight");
	return gr_mm(g, d, il, "ssm_out.weight", ga_view(g, y), d->E, T);
}

int gr_conv_window(struct ga_graph *g, const struct dims *d, struct inputs *in, int conv_x, int64_t w, int rcache,
		   int scache, int64_t sinks)
{
	int64_t ns = d->n_seq, nst = d->T / ns;
	/* the last conv window: a strided view of conv_x (ggml_nbytes) */
	uint64_t win = 4ull * (d->d_conv - 1) + 4ull * (d->d_conv - 1 + nst) * (w * ns - 1);
	for (int64_t k = 0; k < sinks; k++)
		ga_sink_to(g, rcache, S(ga_view_n(g, conv_x, win), ga_view(g, rcache)));
	gr_input_once(g, &in->s_copy, (uint64_t)ns * 4);
	uint64_t s_full = (uint64_t)d->n_embd_s * 4 * ns * d->rs_k;
	gr_rs_zero(g, scache);
	return ga_view_n(g, scache, s_full);
}

int gr_ssm_scan(struct ga_graph *g, const struct dims *d, struct inputs *in, int scache, int s4, const int xdabc[5])
{
	int64_t ns = d->n_seq, d_inner = d->n_embd_s / d->d_state;
	int y_ssm = ga_op(g, 0, F32, d_inner * d->T + d->n_embd_s * ns, 1, 1, 1,
			  S(s4, xdabc[0], xdabc[1], xdabc[2], xdabc[3], xdabc[4], gr_s_view(g, in, 0)));
	int extra =
	    ga_op(g, 0, F32, d->n_embd_s, 0, 1, 1, S(ga_view_n(g, scache, g->t[s4].bytes), gr_s_view(g, in, 1)));
	ga_sink_to(g, scache, S(extra, ga_view(g, scache)));
	ga_sink_to(g, scache, S(ga_view_n(g, y_ssm, (uint64_t)d->n_embd_s * 4 * ns), ga_view(g, scache)));
	return y_ssm;
}

/* build_lora_mm of a weight of layer il over x {.., nst, ns}: the
 * product keeps x's batch dims {ne0, nst, ns} */
static int mm3(struct ga_graph *g, const struct dims *d, int il, const char *w, int x, int64_t ne0)
{
	int64_t ns = d->n_seq, nst = d->T / ns;
	return gr_op_kind(g, ga_op(g, 0, F32, ne0, nst, ns, 1, S(gr_weight(g, d, il, w), x)), GA_OP_MUL_MAT);
}

/* PLaMo-2's mixer up to what it expands (plamo2.cpp
 * build_plamo2_mamba_layer): z and x projected, permuted and made
 * contiguous per head, x contiguous, the conv window (one copy into the
 * cache); the SSM states' build_rs over ggml_ssm_scan (K = 1) of the
 * conv's SiLU, dt (x's projection, RMS-normed, projected, biased), A, B
 * and C (RMS-normed), the new state written back. */
static void plamo2_head(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int rcache,
			int conv_states, struct gr_mamba2 *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns;
	int64_t d_inner = d->n_embd_s / d->d_state, H = d->dt_rank, hd = d_inner / H;
	int64_t ds = d->d_state, dt_dim = d->E / 16 > 64 ? d->E / 16 : 64;
	int scache = gr_cache(g, d, il);
	int conv = ga_view(g, conv_states);
	int zx = mm3(g, d, il, "ssm_in.weight", ga_view(g, an), 2 * d_inner);
	zx = ga_op(g, 0, F32, 2 * hd, H, nst, ns, S(ga_view(g, zx)));
	int x = ga_op(g, 0, F32, d_inner, nst, ns, 1, S(ga_view(g, zx)));
	int conv_x = ga_op(g, 0, F32, d->d_conv - 1 + nst, d_inner, ns, 1, S(conv, ga_view(g, x)));
	int s4 = gr_conv_window(g, d, in, conv_x, d_inner, rcache, scache, 1);
	x = ga_op(g, 0, F32, d_inner, nst, ns, 1, S(conv_x, gr_weight(g, d, il, "ssm_conv1d.weight")));
	x = ga_op(g, 1, F32, d_inner, nst, ns, 1, S(x));
	int xv = ga_view(g, x);
	int bcdt = mm3(g, d, il, "ssm_x.weight", x, dt_dim + 2 * ds);
	int dt = gr_norm(g, d, ga_view(g, bcdt), dt_dim, nst, ns, il, "ssm_dt_norm");
	dt = mm3(g, d, il, "ssm_dt.weight", dt, H);
	dt = ga_op(g, 1, F32, H, nst, ns, 1, S(dt, gr_weight(g, d, il, "ssm_dt.bias")));
	int B = ga_view(g, gr_norm(g, d, ga_view(g, bcdt), ds, nst, ns, il, "ssm_b_norm"));
	int C = ga_view(g, gr_norm(g, d, ga_view(g, bcdt), ds, nst, ns, il, "ssm_c_norm"));
	const int xdabc[5] = {xv, dt, ga_view(g, gr_weight(g, d, il, "ssm_a")), B, C};
	t->y_ssm = gr_ssm_scan(g, d, in, scache, s4, xdabc);
	t->x = xv;
	t->zxbcdt = zx;
}

/* PLaMo-2's mixer tail: y + x*D, SwiGLU of z (made contiguous) and y,
 * the output projection. */
static int plamo2_tail(struct ga_graph *g, const struct dims *d, int il, const struct gr_mamba2 *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns, H = d->dt_rank, hd = d->n_embd_s / d->d_state / H;
	int z = ga_op(g, 0, F32, hd, H, nst, ns, S(ga_view(g, t->zxbcdt)));
	int y = ga_view(g, t->y_ssm);
	int xd = ga_op(g, 1, F32, hd, H, nst, ns, S(t->x, ga_view(g, gr_weight(g, d, il, "ssm_d"))));
	y = ga_op(g, 1, F32, hd, H, nst, ns, S(y, xd));
	y = ga_op(g, 0, F32, hd, H, nst, ns, S(z, y));
	return ga_view(g, mm3(g, d, il, "ssm_out.weight", ga_view(g, y), d->E));
}

/* PLaMo-2's layer after its mixer: the post-mixer norm, the residual,
 * the FFN norm, up (2 x ff, SwiGLU of its halves) and down, the post-FFN
 * norm; the output rows on the last layer, the residual. */
static int plamo2_rest(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int cur, int res, int last)
{
	int64_t T = d->T;
	cur = gr_norm(g, d, cur, d->E, T, 1, il, "post_attention_norm");
	res = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, res));
	int fn = gr_norm(g, d, res, d->E, T, 1, il, "ffn_norm.weight");
	int up = gr_mm(g, d, il, "ffn_up.weight", fn, 2 * d->F, T);
	int glu = ga_op(g, 0, F32, d->F, T, 1, 1, S(up));
	cur = gr_mm(g, d, il, "ffn_down.weight", glu, d->E, T);
	cur = gr_norm(g, d, cur, d->E, T, 1, il, "post_ffw_norm");
	int64_t Tn = last ? gr_out_rows(g, d, in, &cur, &res, 1) : T;
	return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
}

static int attend(struct ga_graph *g, const struct dims *d, struct inputs *in, const struct tail *t);
static void attention_store(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v,
			    struct tail *t);

/* PLaMo-2's q, k and v (expanded in that order): views of one attn_qkv,
 * q and k RMS-normed per head, then roped */
static void plamo2_qkv(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int pos, int *q,
		       int *k, int *v)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	uint64_t row = (uint64_t)(nq + 2 * nkv) * 4;
	int qkv = gr_mm(g, d, il, "attn_qkv.weight", an, nq + 2 * nkv, T);
	*q =
	    gr_norm(g, d, ga_view_n(g, qkv, (uint64_t)nq * 4 + (T - 1) * row), d->D, d->H, T, il, "attn_q_norm.weight");
	*q = gr_rotate(g, gr_rope(g, *q, pos, d->D, d->H, T), nq * T, d->k_rot, &in->k_rot);
	*v = gr_rotate(g, ga_view_n(g, qkv, (uint64_t)nkv * 4 + (T - 1) * row), nkv * T, d->v_rot, &in->v_rot);
	*k = gr_norm(g, d, ga_view_n(g, qkv, (uint64_t)nkv * 4 + (T - 1) * row), d->D, d->Hkv, T, il,
		     "attn_k_norm.weight");
	*k = gr_rotate(g, gr_rope(g, *k, pos, d->D, d->Hkv, T), nkv * T, d->k_rot, &in->k_rot);
}

/* Granite's attention layer up to what build_attn expands: q, v, k (the
 * llama block's), K and V into the cache. */
static void attention_head(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, struct tail *t)
{
	int64_t T = d->T;
	int pos = t->nemo ? -1 : gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int q, k, v;
	if (t->plamo) {
		plamo2_qkv(g, d, in, il, an, pos, &q, &k, &v);
		attention_store(g, d, in, il, q, k, v, t);
		return;
	}
	q = ga_view(g, gr_mm(g, d, il, "attn_q.weight", an, d->D * d->H, T));
	if (t->lfm2) /* q and k normed before rope */
		q = gr_norm(g, d, q, d->D, d->H, T, il, "attn_q_norm.weight");
	if (!t->nemo)
		q = gr_rope(g, q, pos, d->D, d->H, T);
	q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, &in->k_rot);
	v = ga_view(g, gr_mm(g, d, il, "attn_v.weight", an, d->D * d->Hkv, T));
	v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, &in->v_rot);
	k = ga_view(g, gr_mm(g, d, il, "attn_k.weight", an, d->D * d->Hkv, T));
	if (t->lfm2)
		k = gr_norm(g, d, k, d->D, d->Hkv, T, il, "attn_k_norm.weight");
	if (!t->nemo)
		k = gr_rope(g, k, pos, d->D, d->Hkv, T);
	k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, &in->k_rot);
	attention_store(g, d, in, il, q, k, v, t);
}

/* build_attn's stores: K and V into the cache; flash attention expanded
 * with the layer */
static void attention_store(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v,
			    struct tail *t)
{
	int64_t T = d->T;
	int kidx = gr_input_once(g, &in->k_idx, (uint64_t)T * 8);
	int vidx = gr_input_once(g, &in->v_idx, (uint64_t)T * 8 * (d->fa ? 1 : (uint64_t)(d->Hkv * d->D)));
	t->kcache = gr_cache(g, d, il);
	t->vcache = gr_cache(g, d, il);
	ga_sink_to(g, t->kcache, S(ga_view(g, k), kidx, t->kcache));
	ga_sink_to(g, t->vcache, S(ga_view(g, v), vidx, t->vcache));
	t->kind = 2;
	t->q = q;
	t->o = -1;
	if (d->fa) /* the flash-attention node is expanded with the layer (a fused node) */
		t->o = attend(g, d, in, t);
}

/* gr_attend's second half: the mask, flash attention or softmax
 * attention over the cache views. */
static int attend(struct ga_graph *g, const struct dims *d, struct inputs *in, const struct tail *t)
{
	int64_t T = d->T, n_kv = d->n_kv, size = d->kv_size;
	int mask = gr_input_once(g, &in->mask, (uint64_t)n_kv * T * (d->fa ? 2 : 4));
	int qp = ga_view(g, t->q);
	uint64_t kspan = (uint64_t)(n_kv + (d->n_stream - 1) * size) * d->k_row;
	uint64_t vspan =
	    d->fa ? (uint64_t)(n_kv + (d->n_stream - 1) * size) * d->v_row : (uint64_t)(d->n_stream * size) * d->v_row;
	int kc = ga_view_n(g, t->kcache, kspan), vc = ga_view_n(g, t->vcache, vspan);
	int o;
	if (d->fa) {
		o = gr_op_kind(g, ga_op(g, 0, F32, d->D, d->H, T, 1, S(qp, kc, vc, mask)), GA_OP_FA);
	} else {
		int kq = gr_op_kind(g, ga_op(g, 0, F32, n_kv, T, d->H, 1, S(kc, qp)), GA_OP_MUL_MAT);
		gr_kq_strided(g, d, kq, d->Hkv);
		int sm = ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq, mask));
		int kqv = gr_op_kind(g, ga_op(g, 0, F32, d->D, T, d->H, 1, S(vc, sm)), GA_OP_MUL_MAT);
		o = ga_op(g, 0, F32, d->D, d->H, T, 1, S(ga_view(g, kqv)));
		if (!d->w->pl->kv_offload)
			g->t[o].force = d->w->cpu;
	}
	return o;
}

/* The attention tail: softmax attention (flash attention was expanded
 * with the layer), the output projection. */
static int attention_tail(struct ga_graph *g, const struct dims *d, struct inputs *in, const struct tail *t)
{
	int64_t T = d->T;
	int o = t->o >= 0 ? t->o : attend(g, d, in, t);
	o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, &in->v_rot);
	return gr_mm(g, d, t->il, "attn_output.weight", ga_view(g, o), d->E, T);
}

/* LFM2's gated short convolution up to what it expands (lfm2.cpp
 * build_shortconv_block): the conv states were gathered by the caller;
 * the input projection and b*x (reached through the conv window's copies
 * into the cache), the window concatenated after the states. */
static void shortconv_head(struct ga_graph *g, const struct dims *d, int il, int an, int rcache, int conv_states,
			   struct tail *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns, E = d->E;
	int64_t d_conv = d->n_embd_r / E;
	int conv = ga_view(g, conv_states);
	int bcx = gr_mm(g, d, il, "shortconv.in_proj.weight", ga_view(g, an), 3 * E, T);
	int bx = ga_op(g, 1, F32, E, nst, ns, 1, S(ga_view(g, bcx), ga_view(g, bcx)));
	bx = ga_op(g, 0, F32, d_conv + nst, E, ns, 1, S(conv, ga_view(g, bx)));
	int64_t n_written = nst < d->rs_k ? nst : d->rs_k;
	uint64_t win = 4ull * d_conv + 4ull * (d_conv + nst) * (E * ns - 1);
	for (int64_t k = 0; k < n_written; k++)
		ga_sink_to(g, rcache, S(ga_view_n(g, bx, win), ga_view(g, rcache)));
	t->kind = 3;
	t->bx = bx;
	t->bcx = bcx;
}

/* The short conv's tail: the convolution, gated by c, the output
 * projection. */
static int shortconv_tail(struct ga_graph *g, const struct dims *d, const struct tail *t)
{
	int64_t T = d->T, ns = d->n_seq, nst = T / ns, E = d->E;
	int c = ga_view(g, t->bcx);
	int conv = ga_op(g, 0, F32, E, nst, ns, 1, S(t->bx, gr_weight(g, d, t->il, "shortconv.conv.weight")));
	int y = ga_op(g, 1, F32, E, nst, ns, 1, S(c, conv));
	return ga_view(g, gr_mm(g, d, t->il, "shortconv.out_proj.weight", y, E, T));
}

/* A layer's tail and what follows the mixer (granite-hybrid.cpp
 * build_layer_ffn): the rows kept on the last layer, the residual, the
 * FFN, the residual again. Returns the layer's output. */
static int flush(struct ga_graph *g, const struct dims *d, struct inputs *in, struct tail *t, int last, int x)
{
	if (!t->kind)
		return t->res;
	if (t->kind == 5 || t->kind == 6) {
		int fo = t->moe;
		int64_t W = t->kind == 6 && t->latent ? t->latent : d->E;
		if (d->n_expert_used <= 1) /* build_moe_ffn's cont of the one expert */
			fo = ga_op(g, 0, F32, W, t->Tn, 1, 1, S(fo));
		if (t->kind == 6 && t->latent) /* back to n_embd: ffn_latent_up */
			fo = gr_mm(g, d, t->il, "ffn_latent_up.weight", fo, d->E, t->Tn);
		int kind = t->kind;
		t->kind = 0;
		if (kind == 5) /* lfm2.cpp's residual: add(cur, ffn_out) */
			return ga_op(g, 1, F32, d->E, t->Tn, 1, 1, S(t->fi, fo));
		/* the shared expert (up, squared ReLU, down) added; the residual */
		char nm[64];
		snprintf(nm, sizeof(nm), "blk.%d.ffn_up_shexp.weight", t->il);
		const struct gguf_tensor *sw = d->w->gg ? gguf_tensor_find(d->w->gg, nm) : NULL;
		int64_t F = sw ? (int64_t)sw->ne[1] : d->F;
		int up = gr_mm(g, d, t->il, "ffn_up_shexp.weight", t->fn, F, d->T);
		up = ga_op(g, 1, F32, F, d->T, 1, 1, S(up));
		up = ga_op(g, 1, F32, F, d->T, 1, 1, S(up));
		int sh = gr_mm(g, d, t->il, "ffn_down_shexp.weight", up, d->E, d->T);
		int out = ga_op(g, 1, F32, d->E, d->T, 1, 1, S(fo, sh));
		return ga_op(g, 1, F32, d->E, d->T, 1, 1, S(out, t->res));
	}
	int cur;
	if (t->kind == 4) {
		/* Nemotron-H's FFN layer, reached whole through a later expand:
		 * the norm, up, squared ReLU, down (build_ffn LLM_FFN_RELU_SQR) */
		int64_t F = t->x;
		t->res = x;
		int an = gr_norm(g, d, x, d->E, d->T, 1, t->il, "attn_norm.weight");
		int up = gr_mm(g, d, t->il, "ffn_up.weight", an, F, d->T);
		up = ga_op(g, 1, F32, F, d->T, 1, 1, S(up));
		up = ga_op(g, 1, F32, F, d->T, 1, 1, S(up));
		cur = gr_mm(g, d, t->il, "ffn_down.weight", up, d->E, d->T);
	} else {
		cur = t->kind == 1   ? gr_mamba2_tail(g, d, t->il, &t->m2)
		      : t->kind == 3 ? shortconv_tail(g, d, t)
		      : t->kind == 7 ? plamo2_tail(g, d, t->il, &t->m2)
				     : attention_tail(g, d, in, t);
	}
	if (t->plamo) {
		t->kind = 0;
		return plamo2_rest(g, d, in, t->il, cur, t->res, last);
	}
	int64_t Tn = d->T;
	int res = t->res;
	if (last && !t->nemo)
		Tn = gr_out_rows(g, d, in, &cur, &res, 1);
	if (t->mamba || t->nemo) {
		t->kind = 0;
		return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
	}
	int fi =
	    t->lfm2 ? ga_op(g, 1, F32, d->E, Tn, 1, 1, S(res, cur)) : ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
	int fn = gr_norm(g, d, fi, d->E, Tn, 1, t->il, "ffn_norm.weight");
	int fo = gr_ffn(g, d, t->il, fn, Tn);
	t->kind = 0;
	return t->lfm2 ? ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fi, fo)) : ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, fi));
}

/* LFM2-MoE (lfm2moe.cpp builds lfm2.cpp's graph): past the dense lead,
 * build_moe_ffn expands its routing weights and its experts with the
 * layer, which reaches the mixer's tail, the rows kept on the last layer,
 * the residual and the FFN norm now; the residual add waits (kind 5).
 * The engine reads no expert_weights_scale for lfm2moe and always
 * normalises the weights. */
static void lfm2moe_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in,
			struct tail *t, int last)
{
	/* add(prev_cur, cur) is reached first through the residual's rows */
	int64_t To = d->n_out < d->T ? d->n_out : d->T, Tn = d->T;
	int res = t->res, ids = -1;
	if (last && To < d->T) {
		ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
		res = gr_op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(res, ids)), GA_OP_GET_ROWS);
		Tn = To;
	}
	int cur = t->kind == 3 ? shortconv_tail(g, d, t) : attention_tail(g, d, in, t);
	if (ids >= 0)
		cur = gr_op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(cur, ids)), GA_OP_GET_ROWS);
	t->fi = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(res, cur));
	t->fn = gr_norm(g, d, t->fi, d->E, Tn, 1, t->il, "ffn_norm.weight");
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.probs_b = 1; /* exp_probs_b is required */
	o.norm_w = 1;
	o.scale = 0;
	struct gr_moe_routed r;
	gr_moe_route(g, d, t->il, t->fn, Tn, &o, &r);
	t->moe = gr_moe_experts(g, d, t->il, t->fn, Tn, &r, 0);
	t->Tn = Tn;
	t->kind = 5;
}

/* Nemotron-H's MoE layer (nemotron-h.cpp build_ffn_layer with
 * ffn_gate_inp): build_moe_ffn over the router's logits (sigmoid, the
 * selection bias, the payload's normalisation and scale) expands the
 * routing and the squared-ReLU experts with the layer, which reaches
 * every pending layer and the layer's norm now; the shared expert and the
 * residual wait (kind 6). */
static void nemo_moe_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, struct tail *t, int x)
{
	t->res = x;
	t->fn = gr_norm(g, d, x, d->E, d->T, 1, t->il, "attn_norm.weight");
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.gating = 2; /* nemotron-h.cpp passes sigmoid */
	o.sigmoid = 1;
	o.probs_b = 1;
	struct gr_moe_routed r;
	gr_moe_route(g, d, t->il, t->fn, d->T, &o, &r);
	/* latent MoE (Nemotron 3 Super): the experts run moe_latent_size wide
	 * over ffn_latent_down's projection, reached through the up stack */
	char nm[64];
	snprintf(nm, sizeof(nm), "blk.%d.ffn_latent_down.weight", t->il);
	const struct gguf_tensor *ld = d->w->gg ? gguf_tensor_find(d->w->gg, nm) : NULL;
	struct dims dl = *d;
	int xin = t->fn;
	if (ld) {
		dl.E = (int64_t)ld->ne[1];
		xin = gr_mm(g, d, t->il, "ffn_latent_down.weight", t->fn, dl.E, d->T);
	}
	t->moe = gr_moe_experts(g, &dl, t->il, xin, d->T, &r, 1);
	t->latent = ld ? dl.E : 0;
	t->Tn = d->T;
	t->kind = 6;
}

/* Granite 4.0 hybrid (granite-hybrid.cpp) and LFM2 (lfm2.cpp): recurrent
 * mixers (mamba2, short conv) and attention, each followed by a SwiGLU FFN;
 * Mamba-2 (mamba.cpp): the mamba2 mixer alone in every layer. */
void gr_granite_hybrid(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int lfm2 = m->shortconv_l_cache > 0;
	int nemo = strncmp(m->arch, "nemotron_h", 10) == 0; /* and nemotron_h_moe */
	/* the layers whose last nodes no expand has reached yet, oldest first */
	struct tail *pend = xcalloc(n_layer + 1, sizeof(*pend));
	int n_pend = 0;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		struct tail t = {0};
		t.lfm2 = lfm2;
		t.mamba = m->pure_recurrent;
		t.nemo = nemo;
		t.plamo = strcmp(m->arch, "plamo2") == 0;
		t.il = L;
		if (nemo && !m->has_rs[il] && m->n_ff_layer && m->n_ff_layer[il]) {
			if (m->n_expert && gr_has_tensor(d, L, "ffn_gate_inp.weight")) {
				for (int k = 0; k < n_pend; k++)
					x = flush(g, d, in, &pend[k], 0, x);
				n_pend = 0;
				nemo_moe_ffn(g, m, d, &t, x);
				pend[n_pend++] = t;
				continue;
			}
			t.kind = 4;
			t.x = (int)m->n_ff_layer[il]; /* the layer's FFN width */
			pend[n_pend++] = t;
			continue;
		}
		int rcache = -1, states = -1;
		if (m->has_rs[il]) { /* build_rs expands the conv states' gather first */
			rcache = gr_cache(g, d, L);
			states = gr_mamba_rs(g, d, in, rcache, d->n_embd_r);
		}
		for (int k = 0; k < n_pend; k++)
			x = flush(g, d, in, &pend[k], 0, x);
		n_pend = 0;
		int an = gr_norm(g, d, x, d->E, d->T, 1, L, "attn_norm.weight");
		t.res = x;
		if (m->has_rs[il] && lfm2)
			shortconv_head(g, d, L, an, rcache, states, &t);
		else if (m->has_rs[il] && t.plamo) {
			plamo2_head(g, d, in, L, an, rcache, states, &t.m2);
			t.kind = 7;
		} else if (m->has_rs[il]) {
			gr_mamba2_head(g, d, in, L, an, rcache, states, &t.m2);
			t.kind = 1;
		} else
			attention_head(g, d, in, L, an, &t);
		if (lfm2 && m->n_expert && il >= m->n_lead_dense)
			lfm2moe_ffn(g, m, d, in, &t, il == n_layer - 1);
		pend[n_pend++] = t;
	}
	for (int k = 0; k < n_pend; k++)
		x = flush(g, d, in, &pend[k], k == n_pend - 1, x);
	free(pend);
	if (nemo) {
		/* h_nextn: the final norm over every token, then the output rows */
		int h = gr_norm(g, d, x, d->E, d->T, 1, -1, "output_norm.weight");
		int64_t No = d->n_out < d->T ? d->n_out : d->T;
		if (No < d->T) {
			int ids = gr_input_once(g, &in->out_ids, (uint64_t)No * 4);
			h = gr_op_kind(g, ga_op(g, 0, F32, d->E, No, 1, 1, S(h, ids)), GA_OP_GET_ROWS);
		}
		int out = gr_mm(g, d, -1, "output.weight", h, d->V, No);
		g->t[out].output = 1;
		return;
	}
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int rn;
	if (lfm2) {
		/* token_embd_norm is LFM2's output norm, held with the output layer */
		const struct where *w = d->w;
		const struct gguf_tensor *nt = w->gg ? gguf_tensor_find(w->gg, "token_embd_norm.weight") : NULL;
		int wt = ga_held(g, gr_backend_of(w, place_weight(w->pl, "token_embd_norm.weight", w->n_layer_all)), 1,
				 nt ? nt->bytes : 0);
		rn = ga_op(g, 1, F32, d->E, To, 1, 1, S(ga_op(g, 1, F32, d->E, To, 1, 1, S(x)), wt));
	} else {
		rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	}
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}
