/* graph_rwkv: RWKV-6 and RWKV-7 (src/models/rwkv6.cpp, rwkv6-base.cpp,
 * rwkv7.cpp, rwkv7-base.cpp, arwkv7.cpp of the pinned engine): no attention; per
 * layer the token-shift and wkv states gathered from the recurrent cache
 * (build_rs), a time mix over lerped views of the normed input into
 * ggml_rwkv_wkv6 or ggml_rwkv_wkv7, a grouped norm, and a channel mix
 * (relu squared; rwkv6's gated by a receptance). Nodes in the order
 * ggml_build_forward_expand visits them: each layer expands its two state
 * gathers, then the wkv op's state write (which reaches the time mix and,
 * through the layer's input, the previous layer's channel mix), then the
 * token-shift write (the rest of the time mix, the FFN norm). */
#include "graph.h"

#include <stdio.h>

#include "../../payload/gguf.h"

/* a low-rank width: ne[1] of blk.IL.SUFFIX (the engine's shapes), else def */
static int64_t rank_of(const struct dims *d, int il, const char *suffix, int64_t def)
{
	char name[96];
	snprintf(name, sizeof(name), "blk.%d.%s", il, suffix);
	const struct gguf_tensor *t = d->w->gg ? gguf_tensor_find(d->w->gg, name) : NULL;
	return t && t->n_dims >= 2 ? (int64_t)t->ne[1] : def;
}

/* build_norm with LLM_NORM: norm (never in place), the weight, the bias
 * (NAME.weight, NAME.bias of layer w_il, -1: outside the blocks, -2:
 * token_embd_norm, which the engine holds with layer 0); with
 * cb_il >= 0 the callback pins the norm like an rms_norm's */
static int layer_norm(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int64_t ne2, int cb_il,
		      int w_il, const char *name)
{
	int n = ga_op(g, 0, F32, ne0, ne1, ne2, 1, S(x));
	if (cb_il >= 0 && d->w->force_norm)
		g->t[n].force = gr_backend_of(d->w, d->w->pl->layer ? d->w->pl->layer[cb_il] : -1);
	char wn[64], bn[64];
	snprintf(wn, sizeof(wn), "%s.weight", name);
	snprintf(bn, sizeof(bn), "%s.bias", name);
	int wt, bt;
	if (w_il == -2) { /* token_embd_norm: held with layer 0 (LLM_TENSOR_TOKEN_EMBD_NORM is repeating) */
		wt = ga_held(g, gr_backend_of(d->w, place_weight(d->w->pl, wn, 0)), 1, 0);
		bt = ga_held(g, gr_backend_of(d->w, place_weight(d->w->pl, bn, 0)), 1, 0);
	} else {
		wt = gr_weight(g, d, w_il, wn);
		bt = gr_weight(g, d, w_il, bn);
	}
	int m = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(n, wt));
	return ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(m, bt));
}

/* A view_3d of x (E wide, per_seq rows a sequence, ns sequences) of n
 * rows of each sequence: the token-shift states' halves, a norm's rows
 * but the last, or its last. It spans ggml_nbytes of its strides, which
 * is what its copy on another backend allocates. */
static int seq_rows(struct ga_graph *g, int x, int64_t E, int64_t n, int64_t per_seq, int64_t ns)
{
	return ga_view_n(g, x, n > 0 && ns > 0 ? 4ull * (uint64_t)E * (uint64_t)(n + (ns - 1) * per_seq) : 0);
}

/* A layer's two recurrent states, gathered from the cache (build_rs):
 * the token shift (r) and the wkv state (s), with their cache views. */
struct states {
	int rcache, ts;
	int scache, wkv;
};

static struct states gather_states(struct ga_graph *g, const struct dims *d, struct inputs *in, int L)
{
	struct states s;
	s.rcache = gr_cache(g, d, L);
	s.ts = gr_mamba_rs(g, d, in, s.rcache, d->n_embd_r);
	s.scache = gr_cache(g, d, L);
	s.wkv = gr_mamba_rs(g, d, in, s.scache, d->n_embd_s);
	return s;
}

/* The model's head: the final norm RN is t_embd, then the output
 * projection to the vocabulary (To rows). */
static void lm_head(struct ga_graph *g, const struct dims *d, int rn, int64_t To)
{
	g->t[rn].output = 1; /* t_embd */
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

/* The llama FFN that ARWKV-7 and RWKV6-Qwen2 end a layer with, from FI
 * (the time mix's residual, [E, T]): the last layer's rows kept first
 * (inp_out_ids), the FFN's RMS norm, a SiLU FFN (build_ffn: gate, up,
 * swiglu, down), the residual. */
static int llama_ffn(struct ga_graph *g, const struct dims *d, struct inputs *in, int L, int fi, int last)
{
	int64_t T = d->T, E = d->E, To = T;
	if (last) {
		To = d->n_out < T ? d->n_out : T;
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
		fi = gr_op_kind(g, ga_op(g, 0, F32, E, To, 1, 1, S(fi, ids)), GA_OP_GET_ROWS);
	}
	int fn = gr_norm(g, d, fi, E, To, 1, L, "ffn_norm.weight");
	int ffn = gr_ffn(g, d, L, fn, To);
	return ga_op(g, 1, F32, E, To, 1, 1, S(ffn, fi));
}

/* What a layer leaves for the next one to reach: its channel mix. */
struct tail {
	int il;
	int ts;	      /* the gathered token-shift states */
	int ffn_inp;  /* [E, nst, ns] */
	int ffn_norm; /* [E, nst, ns] */
	int v6;	      /* rwkv6: a receptance gates the channel mix */
	int rescale;  /* rwkv6: rescale_every_n_layers */
};

/* The channel mix and the residual: the layer's output [E, To]; on the
 * last layer the rows kept first (inp_out_ids). */
static int channel_mix(struct ga_graph *g, const struct dims *d, struct inputs *in, const struct tail *t, int last)
{
	int64_t T = d->T, E = d->E, F = d->F, To = T, ns = d->n_seq, nst = T / ns;
	int L = t->il;
	/* x_prev: the FFN's shift state, then every token's FFN norm but the
	 * last */
	int shift = seq_rows(g, ga_view(g, t->ts), E, 1, 2, ns);
	int xp = ga_op(g, 0, F32, E, nst, ns, 1, S(shift, seq_rows(g, t->ffn_norm, E, nst - 1, nst, ns)));
	int xp2 = ga_view(g, xp), fn2 = ga_view(g, t->ffn_norm);
	int sx;
	if (last) {
		To = d->n_out < T ? d->n_out : T;
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
		int xr = gr_op_kind(g, ga_op(g, 0, F32, E, To, 1, 1, S(xp2, ids)), GA_OP_GET_ROWS);
		fn2 = gr_op_kind(g, ga_op(g, 0, F32, E, To, 1, 1, S(fn2, ids)), GA_OP_GET_ROWS);
		sx = ga_op(g, 1, F32, E, To, 1, 1, S(xr, fn2));
	} else {
		sx = ga_op(g, 1, F32, E, To, 1, 1, S(xp2, fn2));
	}
	int r = -1;
	if (t->v6) { /* r = sigmoid(receptance(sx * lerp_r + x)), reached first */
		int xr = ga_op(g, 1, F32, E, To, 1, 1, S(sx, gr_weight(g, d, L, "channel_mix_lerp_r.weight")));
		xr = ga_op(g, 1, F32, E, To, 1, 1, S(xr, fn2));
		r = gr_mm(g, d, L, "channel_mix_receptance.weight", xr, E, To);
		r = ga_op(g, 1, F32, E, To, 1, 1, S(r));
	}
	int xk = ga_op(g, 1, F32, E, To, 1, 1, S(sx, gr_weight(g, d, L, "channel_mix_lerp_k.weight")));
	xk = ga_op(g, 1, F32, E, To, 1, 1, S(xk, fn2));
	int k = gr_mm(g, d, L, "channel_mix_key.weight", xk, F, To);
	k = ga_op(g, 1, F32, F, To, 1, 1, S(k)); /* relu */
	k = ga_op(g, 1, F32, F, To, 1, 1, S(k)); /* sqr */
	int cm = gr_mm(g, d, L, "channel_mix_value.weight", k, E, To);
	if (r >= 0)
		cm = ga_op(g, 1, F32, E, To, 1, 1, S(r, cm));
	int res = ga_view(g, t->ffn_inp);
	if (last) {
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
		res = gr_op_kind(g, ga_op(g, 0, F32, E, To, 1, 1, S(res, ids)), GA_OP_GET_ROWS);
	}
	int out = ga_op(g, 1, F32, E, To, 1, 1, S(cm, res));
	if (t->rescale && (L + 1) % t->rescale == 0)
		out = ga_op(g, 1, F32, E, To, 1, 1, S(out));
	return out;
}

/* a low-rank pair: x through blk.IL.A ([E, rank]) then the op's chain */
static int lora_mm(struct ga_graph *g, const struct dims *d, int il, const char *a, int x, int64_t r)
{
	return gr_mm(g, d, il, a, x, r, d->T);
}

/* rwkv7-base's time mix: the outputs the tail reads again */
struct tm7 {
	int r, k, v, xxx, gate; /* gate: the time mix has g1/g2 (has_gating) */
};

/* build_rwkv7_time_mix up to the wkv7's state write (its sources depth
 * first: r through the lerps, w, k, v, -kk, kk*a, the state); x_prev is
 * built here from the shift state's view and the norm an. */
static int rwkv7_wkv(struct ga_graph *g, const struct dims *d, int L, int an, int shift, int wkv_state, int scache,
		     int *v_first, struct tm7 *o)
{
	int64_t T = d->T, E = d->E, ns = d->n_seq, nst = T / ns;
	int64_t hs = d->n_embd_s / E, hc = E / hs;
	o->gate = gr_has_tensor(d, L, "time_mix_g1.weight") && gr_has_tensor(d, L, "time_mix_g2.weight");
	int n_lerp = o->gate ? 6 : 5;
	int xp = ga_op(g, 0, F32, E, nst, ns, 1, S(shift, seq_rows(g, an, E, nst - 1, nst, ns)));
	int sx = ga_op(g, 1, F32, E, nst, ns, 1, S(xp, an));
	/* ggml_repeat takes the dummy's shape only: not a source */
	int rep = ga_op(g, 0, F32, E, nst, ns, n_lerp, S(sx));
	int xxx = ga_op(g, 1, F32, E, nst, ns, n_lerp, S(rep, gr_weight(g, d, L, "time_mix_lerp_fused.weight")));
	xxx = ga_op(g, 1, F32, E, nst, ns, n_lerp, S(xxx, an));
	o->xxx = xxx;
	int r = gr_cview(g, gr_mm(g, d, L, "time_mix_receptance.weight", gr_cview(g, xxx, E, T, 1), E, T), hs, hc, T);
	/* w: the decay */
	int w =
	    lora_mm(g, d, L, "time_mix_w1.weight", gr_cview(g, xxx, E, T, 1), rank_of(d, L, "time_mix_w1.weight", 64));
	w = ga_op(g, 1, F32, g->t[w].ne[0], T, 1, 1, S(w));
	w = gr_mm(g, d, L, "time_mix_w2.weight", w, E, T);
	w = ga_op(g, 1, F32, E, T, 1, 1, S(w, gr_weight(g, d, L, "time_mix_w0.weight")));
	for (int i = 0; i < 3; i++) /* sigmoid, scale, exp */
		w = ga_op(g, 1, F32, E, T, 1, 1, S(w));
	w = gr_cview(g, w, hs, hc, T);
	/* k, corrected by the in-context learning rate a */
	int km = gr_mm(g, d, L, "time_mix_key.weight", gr_cview(g, xxx, E, T, 1), E, T);
	int xa = gr_cview(g, xxx, E, T, 1);
	int a = lora_mm(g, d, L, "time_mix_a1.weight", xa, rank_of(d, L, "time_mix_a1.weight", 64));
	a = gr_mm(g, d, L, "time_mix_a2.weight", a, E, T);
	a = ga_op(g, 1, F32, E, T, 1, 1, S(a, gr_weight(g, d, L, "time_mix_a0.weight")));
	a = ga_op(g, 1, F32, E, T, 1, 1, S(a));
	int ka = ga_op(g, 1, F32, E, T, 1, 1, S(km, gr_weight(g, d, L, "time_mix_k_a.weight")));
	int aka = ga_op(g, 1, F32, E, T, 1, 1, S(a, ka));
	aka = ga_op(g, 1, F32, E, T, 1, 1, S(aka, ka));
	int k = gr_cview(g, ga_op(g, 1, F32, E, T, 1, 1, S(km, aka)), hs, hc, T);
	/* v, past layer 0 mixed with the first layer's */
	int xv = gr_cview(g, xxx, E, T, 1);
	int vm = gr_mm(g, d, L, "time_mix_value.weight", xv, E, T);
	int v = vm;
	if (*v_first < 0) {
		*v_first = vm;
	} else {
		int dv = ga_op(g, 1, F32, E, T, 1, 1, S(*v_first, vm));
		int mix = lora_mm(g, d, L, "time_mix_v1.weight", xv, rank_of(d, L, "time_mix_v1.weight", 32));
		mix = gr_mm(g, d, L, "time_mix_v2.weight", mix, E, T);
		mix = ga_op(g, 1, F32, E, T, 1, 1, S(mix, gr_weight(g, d, L, "time_mix_v0.weight")));
		mix = ga_op(g, 1, F32, E, T, 1, 1, S(mix));
		dv = ga_op(g, 1, F32, E, T, 1, 1, S(dv, mix));
		v = ga_op(g, 1, F32, E, T, 1, 1, S(vm, dv));
	}
	v = gr_cview(g, v, hs, hc, T);
	/* kk = l2_norm(k * k_k) per head: -kk and kk * a */
	int kk = ga_op(g, 1, F32, E, T, 1, 1, S(km, gr_weight(g, d, L, "time_mix_k_k.weight")));
	kk = ga_op(g, 0, F32, hs, hc, T, 1, S(gr_cview(g, kk, hs, hc, T)));
	int neg = ga_op(g, 1, F32, hs, hc, T, 1, S(kk));
	int kka = ga_op(g, 1, F32, hs, hc, T, 1, S(kk, gr_cview(g, a, hs, hc, T)));
	int wkv = ga_op(g, 0, F32, E, T + hs * ns, 1, 1, S(r, w, k, v, neg, kka, wkv_state));
	ga_sink_to(g, scache, S(ga_view(g, wkv), ga_view(g, scache)));
	o->r = r;
	o->k = k;
	o->v = v;
	return wkv;
}

/* The time mix after the wkv7: the grouped norm (when the layer has
 * time_mix_ln), the r*k bonus, the gate (when it has one), the output
 * projection. */
static int rwkv7_tail(struct ga_graph *g, const struct dims *d, int L, int wkv, const struct tm7 *o)
{
	int64_t T = d->T, E = d->E;
	int64_t hs = d->n_embd_s / E, hc = E / hs;
	int cur = gr_cview(g, wkv, E * T, 1, 1);
	if (gr_has_tensor(d, L, "time_mix_ln.weight") && gr_has_tensor(d, L, "time_mix_ln.bias")) {
		cur = ga_op(g, 0, F32, hs, hc, T, 1, S(gr_cview(g, cur, hs, hc, T))); /* the grouped norm */
		cur = ga_op(g, 1, F32, E, T, 1, 1,
			    S(gr_cview(g, cur, E, T, 1), gr_weight(g, d, L, "time_mix_ln.weight")));
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gr_weight(g, d, L, "time_mix_ln.bias")));
	} else {
		cur = gr_cview(g, cur, E, T, 1);
	}
	int rk = ga_op(g, 1, F32, hs, hc, T, 1, S(o->k, o->r));
	rk = ga_op(g, 1, F32, hs, hc, T, 1, S(rk, ga_view(g, gr_weight(g, d, L, "time_mix_r_k.weight"))));
	rk = ga_op(g, 0, F32, 1, hc, T, 1, S(rk));
	int vrk = ga_op(g, 1, F32, hs, hc, T, 1, S(o->v, rk));
	cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gr_cview(g, vrk, E, T, 1)));
	if (o->gate) {
		int gate = lora_mm(g, d, L, "time_mix_g1.weight", gr_cview(g, o->xxx, E, T, 1),
				   rank_of(d, L, "time_mix_g1.weight", 128));
		gate = ga_op(g, 1, F32, g->t[gate].ne[0], T, 1, 1, S(gate));
		gate = gr_mm(g, d, L, "time_mix_g2.weight", gate, E, T);
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gate));
	}
	return gr_mm(g, d, L, "time_mix_output.weight", cur, E, T);
}

/* A time-mix projection of rwkv6-base: the matmul (n wide), its bias
 * when the layer has one, the heads repeated to hc when there are fewer
 * (GQA: a repeat, the shape tensor no source), the [hs, hc, T] view. */
static int rwkv6_proj(struct ga_graph *g, const struct dims *d, int L, const char *name, int x, int64_t n)
{
	int64_t T = d->T, E = d->E;
	int64_t hs = d->n_embd_s / E, hc = E / hs;
	char w[64], b[64];
	snprintf(w, sizeof(w), "%s.weight", name);
	snprintf(b, sizeof(b), "%s.bias", name);
	int y = gr_mm_b(g, d, L, w, b, x, n, T);
	/* n_head_kv heads of hs (a file's key narrower than one head is no
	 * shape the engine reshapes: no repeat, and no division by zero) */
	if (n != E && n >= hs)
		y = ga_op(g, 0, F32, hs, hc / (n / hs), n / hs, T, S(ga_view(g, y)));
	return ga_view(g, y);
}

/* rwkv6-base's time mix up to its wkv op: the 5-way token-shift pair, the
 * fused lerps; then ggml_rwkv_wkv6 (sources k, v, r, time_first, the
 * decay w, the state) or, where the layer has no time_first (QRWKV),
 * ggml_gated_linear_attn over k * (1 - w) (k, v, r, w, the state). *xg
 * receives the gate's view of the lerps. */
static int rwkv6_wkv(struct ga_graph *g, const struct dims *d, int L, int an, int att_shift, int wkv_state, int *xg)
{
	int64_t T = d->T, E = d->E, ns = d->n_seq, nst = T / ns;
	int64_t hs = d->n_embd_s / E, hc = E / hs;
	int64_t tm = rank_of(d, L, "time_mix_w1.weight", 160) / 5;
	int64_t kv = rank_of(d, L, "time_mix_key.weight", E);
	int qrwkv = !gr_has_tensor(d, L, "time_mix_first.weight");
	int xp = ga_op(g, 0, F32, E, nst, ns, 1, S(att_shift, seq_rows(g, an, E, nst - 1, nst, ns)));
	int sx = ga_op(g, 1, F32, E, nst, ns, 1, S(xp, an));
	int sx2 = ga_view(g, sx);
	int xxx = ga_op(g, 1, F32, E, T, 1, 1, S(sx2, gr_weight(g, d, L, "time_mix_lerp_x.weight")));
	int cur2 = ga_view(g, an);
	xxx = ga_op(g, 1, F32, E, T, 1, 1, S(xxx, cur2));
	int w2 = ga_view(g, gr_weight(g, d, L, "time_mix_w2.weight"));
	xxx = gr_mm(g, d, L, "time_mix_w1.weight", xxx, tm * 5, T);
	xxx = ga_op(g, 1, F32, tm * 5, T, 1, 1, S(xxx)); /* tanh */
	xxx = ga_op(g, 0, F32, tm, 1, T, 5, S(ga_view(g, ga_view(g, xxx))));
	xxx = gr_op_kind(g, ga_op(g, 0, F32, E, 1, T, 5, S(w2, xxx)), GA_OP_MUL_MAT);
	xxx = ga_op(g, 1, F32, E, 1, T, 5, S(xxx, gr_weight(g, d, L, "time_mix_lerp_fused.weight")));
	xxx = ga_op(g, 1, F32, E, 1, T, 5, S(xxx, ga_view(g, sx2)));
	xxx = ga_op(g, 1, F32, E, 1, T, 5, S(xxx, ga_view(g, cur2)));
	int xw = ga_view(g, xxx), xk = ga_view(g, xxx), xv = ga_view(g, xxx), xr = ga_view(g, xxx);
	*xg = ga_view(g, xxx);
	int k = rwkv6_proj(g, d, L, "time_mix_key", xk, kv);
	int v = -1, r = -1;
	if (!qrwkv) {
		v = rwkv6_proj(g, d, L, "time_mix_value", xv, kv);
		r = rwkv6_proj(g, d, L, "time_mix_receptance", xr, E);
	}
	int w = gr_mm(g, d, L, "time_mix_decay_w1.weight", xw, rank_of(d, L, "time_mix_decay_w1.weight", 64), T);
	w = ga_op(g, 1, F32, g->t[w].ne[0], T, 1, 1, S(w)); /* tanh */
	w = gr_mm(g, d, L, "time_mix_decay_w2.weight", w, E, T);
	w = ga_op(g, 1, F32, E, T, 1, 1, S(w, gr_weight(g, d, L, "time_mix_decay.weight")));
	for (int i = 0; i < 3; i++) /* exp, neg, exp */
		w = ga_op(g, 1, F32, E, T, 1, 1, S(w));
	w = ga_view(g, w);
	if (!qrwkv)
		return ga_op(g, 0, F32, E, T + hs * ns, 1, 1,
			     S(k, v, r, gr_weight(g, d, L, "time_mix_first.weight"), w, wkv_state));
	/* k = k - k * w, then v and r */
	int kw = ga_op(g, 1, F32, hs, hc, T, 1, S(k, w));
	k = ga_op(g, 1, F32, hs, hc, T, 1, S(k, kw));
	v = rwkv6_proj(g, d, L, "time_mix_value", xv, kv);
	r = rwkv6_proj(g, d, L, "time_mix_receptance", xr, E);
	return ga_op(g, 0, F32, E, T + hs * ns, 1, 1, S(k, v, r, w, wkv_state));
}

/* build_rwkv6_time_mix after its wkv op: the grouped norm and its
 * weight and bias (not for QRWKV, whose layers have no time_first), the
 * gate (SiLU; sigmoid for QRWKV: one op either way) over the lerps' view
 * XG, the output projection. */
static int rwkv6_tail(struct ga_graph *g, const struct dims *d, int L, int wkv, int xg)
{
	int64_t T = d->T, E = d->E;
	int64_t hs = d->n_embd_s / E, hc = E / hs;
	int cur = ga_view(g, ga_view(g, wkv));
	if (gr_has_tensor(d, L, "time_mix_first.weight")) {
		cur = ga_op(g, 0, F32, hs, hc, T, 1, S(cur)); /* the grouped norm */
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(ga_view(g, cur), gr_weight(g, d, L, "time_mix_ln.weight")));
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gr_weight(g, d, L, "time_mix_ln.bias")));
	} else {
		cur = ga_view(g, cur);
	}
	int gate = gr_mm(g, d, L, "time_mix_gate.weight", xg, E, T);
	gate = ga_op(g, 1, F32, E, T, 1, 1, S(gate));
	cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gate));
	return gr_mm(g, d, L, "time_mix_output.weight", cur, E, T);
}

/* The trunk of RWKV-6 and RWKV-7 (src/models/rwkv6.cpp, rwkv7.cpp): the
 * token embedding's layer norm, then per layer the two state gathers,
 * the attention norm, the time mix to its wkv op and its state write,
 * the token-shift write (the last token's attention norm, then the rest
 * of the time mix and the FFN norm), the channel mix reached by the next
 * layer; after the last, the output norm and the head. RESCALE: rwkv6's
 * rescale_every_n_layers. */
static void rwkv_trunk(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int v6,
		       int rescale)
{
	int64_t T = d->T, E = d->E, ns = d->n_seq, nst = T / ns;
	int rows = gr_input_embd(g, d, in);
	int v_first = -1;
	struct tail prev = {-1, -1, -1, -1, v6, rescale};
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		int L = (int)il;
		struct states st = gather_states(g, d, in, L);
		int att_shift = seq_rows(g, ga_view(g, st.ts), E, 1, 2, ns);
		int x = il == 0 ? layer_norm(g, d, rows, E, T, 1, 0, -2, "token_embd_norm")
				: channel_mix(g, d, in, &prev, 0);
		int xin = ga_view(g, x);
		int an = layer_norm(g, d, xin, E, nst, ns, L, L, "attn_norm");
		int last_an, cur;
		if (v6) {
			int xg;
			int wkv = rwkv6_wkv(g, d, L, an, att_shift, st.wkv, &xg);
			ga_sink_to(g, st.scache, S(ga_view(g, wkv), ga_view(g, st.scache)));
			last_an = seq_rows(g, an, E, 1, nst, ns);
			cur = rwkv6_tail(g, d, L, wkv, xg);
		} else {
			struct tm7 o;
			int wkv = rwkv7_wkv(g, d, L, an, att_shift, st.wkv, st.scache, &v_first, &o);
			last_an = seq_rows(g, an, E, 1, nst, ns);
			cur = rwkv7_tail(g, d, L, wkv, &o);
		}
		int ffn_inp = ga_op(g, 1, F32, E, nst, ns, 1, S(ga_view(g, cur), xin));
		int fn = layer_norm(g, d, ffn_inp, E, nst, ns, L, L, "attn_norm_2");
		int ts_new = ga_op(g, 0, F32, E, 2, ns, 1, S(last_an, seq_rows(g, fn, E, 1, nst, ns)));
		ga_sink_to(g, st.rcache, S(ga_view(g, ts_new), ga_view(g, st.rcache)));
		prev = (struct tail){L, st.ts, ffn_inp, fn, v6, rescale};
	}
	int x = channel_mix(g, d, in, &prev, 1);
	int64_t To = d->n_out < T ? d->n_out : T;
	lm_head(g, d, layer_norm(g, d, x, E, To, 1, -1, -1, "output_norm"), To);
}

void gr_rwkv7(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	rwkv_trunk(g, m, d, in, 0, 0);
}

void gr_rwkv6(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	uint64_t rescale = 0;
	if (d->w->gg)
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.rescale_every_n_layers", m->arch), &rescale);
	rwkv_trunk(g, m, d, in, 1, (int)rescale);
}

/* What a layer of the llama-FFN hybrids leaves for the next to reach: the
 * rest of its time mix (ARWKV-7's outputs O, or RWKV6-Qwen2's lerps' view
 * XG), then its llama FFN. */
struct htail {
	int il, wkv, xin, xg;
	struct tm7 o;
};

/* A hybrid layer's output (src/models/arwkv7.cpp, rwkv6qwen2.cpp): the
 * time mix's tail, its residual, then the llama FFN. */
static int hybrid_out(struct ga_graph *g, const struct dims *d, struct inputs *in, const struct htail *t, int v6,
		      int last)
{
	int64_t T = d->T, E = d->E, ns = d->n_seq, nst = T / ns;
	if (v6) {
		int cur = rwkv6_tail(g, d, t->il, t->wkv, t->xg);
		int ffn_inp = ga_op(g, 1, F32, E, nst, ns, 1, S(ga_view(g, cur), t->xin));
		return llama_ffn(g, d, in, t->il, ga_view(g, ffn_inp), last);
	}
	int tm = rwkv7_tail(g, d, t->il, t->wkv, &t->o);
	int ffn_inp = ga_op(g, 1, F32, E, nst, ns, 1, S(gr_cview(g, tm, E, nst, ns), t->xin));
	return llama_ffn(g, d, in, t->il, gr_cview(g, ffn_inp, E, T, 1), last);
}

/* The trunk of ARWKV-7 and RWKV6-Qwen2: RMS norms, one token-shift state
 * (the whole of it; its write is a view of the last token's norm), the
 * time mix to its wkv op and state write, the hybrid output reached by
 * the next layer; after the last, the output norm (RWKV6-Qwen2's with
 * its bias when the file has one) and the head. */
static void hybrid_trunk(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int v6)
{
	int64_t T = d->T, E = d->E, ns = d->n_seq, nst = T / ns;
	int x = gr_input_embd(g, d, in);
	int v_first = -1;
	struct htail prev = {-1, -1, -1, -1, {0}};
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		int L = (int)il;
		struct states st = gather_states(g, d, in, L);
		int shift = ga_view(g, st.ts);
		if (il > 0)
			x = hybrid_out(g, d, in, &prev, v6, 0);
		int xin = ga_view(g, x);
		int an = gr_norm(g, d, xin, E, nst, ns, L, "attn_norm.weight");
		prev = (struct htail){L, -1, xin, -1, {0}};
		if (v6) {
			prev.wkv = rwkv6_wkv(g, d, L, an, shift, st.wkv, &prev.xg);
			ga_sink_to(g, st.scache, S(ga_view(g, prev.wkv), ga_view(g, st.scache)));
		} else {
			prev.wkv = rwkv7_wkv(g, d, L, an, shift, st.wkv, st.scache, &v_first, &prev.o);
		}
		ga_sink_to(g, st.rcache, S(ga_view(g, ga_view(g, an)), ga_view(g, st.rcache)));
	}
	x = hybrid_out(g, d, in, &prev, v6, 1);
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_norm(g, d, x, E, To, 1, -1, "output_norm.weight");
	if (v6 && d->w->gg && gguf_tensor_find(d->w->gg, "output_norm.bias"))
		rn = ga_op(g, 1, F32, E, To, 1, 1, S(rn, gr_weight(g, d, -1, "output_norm.bias")));
	lm_head(g, d, rn, To);
}

void gr_arwkv7(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	hybrid_trunk(g, m, d, in, 0);
}

void gr_rwkv6qwen2(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	hybrid_trunk(g, m, d, in, 1);
}
