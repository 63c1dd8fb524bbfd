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

/* build_rs (llama-graph.cpp): a scale_inplace zeroing a cleared state (a
 * view), the sequences' states gathered, the extra states copied back. */
static int rwkv_rs(struct ga_graph *g, const struct dims *d, struct inputs *in, int cache, int64_t size)
{
	int sc = gr_input_once(g, &in->s_copy, (uint64_t)d->n_seq * 4);
	uint64_t full = (uint64_t)size * 4 * d->n_seq * d->rs_k;
	ga_view(g, cache);
	int states = ga_op(g, 0, F32, size, d->n_seq, 1, 1, S(ga_view_n(g, cache, full), ga_view(g, sc)));
	int extra = ga_op(g, 0, F32, size, 0, 1, 1, S(ga_view_n(g, cache, full), ga_view(g, sc)));
	ga_sink_to(g, cache, S(extra, ga_view(g, cache)));
	return states;
}

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
	int64_t T = d->T, E = d->E, F = d->F, To = T;
	int L = t->il;
	/* x_prev: the FFN's shift state, then every token's FFN norm but the
	 * last */
	int shift = ga_view(g, ga_view(g, t->ts));
	int xp = ga_op(g, 0, F32, E, T / d->n_seq, d->n_seq, 1, S(shift, ga_view(g, t->ffn_norm)));
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
	int xp = ga_op(g, 0, F32, E, nst, ns, 1, S(shift, ga_view(g, an)));
	int sx = ga_op(g, 1, F32, E, nst, ns, 1, S(xp, an));
	/* ggml_repeat takes the dummy's shape only: not a source */
	int rep = ga_op(g, 0, F32, E, nst, ns, n_lerp, S(sx));
	int xxx = ga_op(g, 1, F32, E, nst, ns, n_lerp, S(rep, gr_weight(g, d, L, "time_mix_lerp_fused.weight")));
	xxx = ga_op(g, 1, F32, E, nst, ns, n_lerp, S(xxx, an));
	o->xxx = xxx;
	int r =
	    gr_reshape(g, gr_mm(g, d, L, "time_mix_receptance.weight", gr_reshape(g, xxx, E, T, 1), E, T), hs, hc, T);
	/* w: the decay */
	int w = lora_mm(g, d, L, "time_mix_w1.weight", gr_reshape(g, xxx, E, T, 1),
			rank_of(d, L, "time_mix_w1.weight", 64));
	w = ga_op(g, 1, F32, g->t[w].ne[0], T, 1, 1, S(w));
	w = gr_mm(g, d, L, "time_mix_w2.weight", w, E, T);
	w = ga_op(g, 1, F32, E, T, 1, 1, S(w, gr_weight(g, d, L, "time_mix_w0.weight")));
	for (int i = 0; i < 3; i++) /* sigmoid, scale, exp */
		w = ga_op(g, 1, F32, E, T, 1, 1, S(w));
	w = gr_reshape(g, w, hs, hc, T);
	/* k, corrected by the in-context learning rate a */
	int km = gr_mm(g, d, L, "time_mix_key.weight", gr_reshape(g, xxx, E, T, 1), E, T);
	int xa = gr_reshape(g, xxx, E, T, 1);
	int a = lora_mm(g, d, L, "time_mix_a1.weight", xa, rank_of(d, L, "time_mix_a1.weight", 64));
	a = gr_mm(g, d, L, "time_mix_a2.weight", a, E, T);
	a = ga_op(g, 1, F32, E, T, 1, 1, S(a, gr_weight(g, d, L, "time_mix_a0.weight")));
	a = ga_op(g, 1, F32, E, T, 1, 1, S(a));
	int ka = ga_op(g, 1, F32, E, T, 1, 1, S(km, gr_weight(g, d, L, "time_mix_k_a.weight")));
	int aka = ga_op(g, 1, F32, E, T, 1, 1, S(a, ka));
	aka = ga_op(g, 1, F32, E, T, 1, 1, S(aka, ka));
	int k = gr_reshape(g, ga_op(g, 1, F32, E, T, 1, 1, S(km, aka)), hs, hc, T);
	/* v, past layer 0 mixed with the first layer's */
	int xv = gr_reshape(g, xxx, E, T, 1);
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
	v = gr_reshape(g, v, hs, hc, T);
	/* kk = l2_norm(k * k_k) per head: -kk and kk * a */
	int kk = ga_op(g, 1, F32, E, T, 1, 1, S(km, gr_weight(g, d, L, "time_mix_k_k.weight")));
	kk = ga_op(g, 0, F32, hs, hc, T, 1, S(gr_reshape(g, kk, hs, hc, T)));
	int neg = ga_op(g, 1, F32, hs, hc, T, 1, S(kk));
	int kka = ga_op(g, 1, F32, hs, hc, T, 1, S(kk, gr_reshape(g, a, hs, hc, T)));
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
	int cur = gr_reshape(g, wkv, E * T, 1, 1);
	if (gr_has_tensor(d, L, "time_mix_ln.weight") && gr_has_tensor(d, L, "time_mix_ln.bias")) {
		cur = ga_op(g, 0, F32, hs, hc, T, 1, S(gr_reshape(g, cur, hs, hc, T))); /* the grouped norm */
		cur = ga_op(g, 1, F32, E, T, 1, 1,
			    S(gr_reshape(g, cur, E, T, 1), gr_weight(g, d, L, "time_mix_ln.weight")));
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gr_weight(g, d, L, "time_mix_ln.bias")));
	} else {
		cur = gr_reshape(g, cur, E, T, 1);
	}
	int rk = ga_op(g, 1, F32, hs, hc, T, 1, S(o->k, o->r));
	rk = ga_op(g, 1, F32, hs, hc, T, 1, S(rk, ga_view(g, gr_weight(g, d, L, "time_mix_r_k.weight"))));
	rk = ga_op(g, 0, F32, 1, hc, T, 1, S(rk));
	int vrk = ga_op(g, 1, F32, hs, hc, T, 1, S(o->v, rk));
	cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gr_reshape(g, vrk, E, T, 1)));
	if (o->gate) {
		int gate = lora_mm(g, d, L, "time_mix_g1.weight", gr_reshape(g, o->xxx, E, T, 1),
				   rank_of(d, L, "time_mix_g1.weight", 128));
		gate = ga_op(g, 1, F32, g->t[gate].ne[0], T, 1, 1, S(gate));
		gate = gr_mm(g, d, L, "time_mix_g2.weight", gate, E, T);
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gate));
	}
	return gr_mm(g, d, L, "time_mix_output.weight", cur, E, T);
}

/* What a layer holds from its start to its end (rwkv6.cpp, rwkv7.cpp) */
struct rwkv_layer {
	int rcache, ts, scache, wkv_state, att_shift, xin, an;
};

/* A layer's token-shift and wkv states gathered (build_rs of both
 * caches), as every RWKV builder starts a layer */
static void rwkv_states(struct ga_graph *g, const struct dims *d, struct inputs *in, int L, struct rwkv_layer *r)
{
	r->rcache = gr_cache(g, d, L);
	r->ts = rwkv_rs(g, d, in, r->rcache, d->n_embd_r);
	r->scache = gr_cache(g, d, L);
	r->wkv_state = rwkv_rs(g, d, in, r->scache, d->n_embd_s);
}

/* A layer's start, as rwkv6.cpp and rwkv7.cpp build it: the token-shift
 * and wkv states gathered (build_rwkv_token_shift_load, build_rs), the
 * layer's input (the embeddings' norm in the first layer, else the
 * previous layer's channel mix, reached now), the attention norm. */
static void rwkv_layer_in(struct ga_graph *g, const struct dims *d, struct inputs *in, int L, int rows,
			  const struct tail *prev, struct rwkv_layer *r)
{
	int64_t T = d->T, E = d->E, ns = d->n_seq, nst = T / ns;
	rwkv_states(g, d, in, L, r);
	r->att_shift = ga_view(g, ga_view(g, r->ts));
	int x = L == 0 ? layer_norm(g, d, rows, E, T, 1, 0, -2, "token_embd_norm") : channel_mix(g, d, in, prev, 0);
	r->xin = ga_view(g, x);
	r->an = layer_norm(g, d, r->xin, E, nst, ns, L, L, "attn_norm");
}

/* A layer's end: the time mix's residual, the FFN norm, the token-shift
 * write of the last token's attention and FFN norms
 * (build_rwkv_token_shift_store); the channel mix waits in *prev for the
 * next layer to reach it. */
static void rwkv_layer_out(struct ga_graph *g, const struct dims *d, int L, const struct rwkv_layer *r, int cur,
			   int last_an, struct tail *prev)
{
	int64_t E = d->E, ns = d->n_seq, nst = d->T / ns;
	int ffn_inp = ga_op(g, 1, F32, E, nst, ns, 1, S(ga_view(g, cur), r->xin));
	int fn = layer_norm(g, d, ffn_inp, E, nst, ns, L, L, "attn_norm_2");
	int ts_new = ga_op(g, 0, F32, E, 2, ns, 1, S(last_an, ga_view(g, fn)));
	ga_sink_to(g, r->rcache, S(ga_view(g, ts_new), ga_view(g, r->rcache)));
	prev->il = L;
	prev->ts = r->ts;
	prev->ffn_inp = ffn_inp;
	prev->ffn_norm = fn;
}

/* The last layer's channel mix, the output norm (t_embd) and the LM head */
static void rwkv_result(struct ga_graph *g, const struct dims *d, struct inputs *in, const struct tail *prev)
{
	int64_t T = d->T;
	int x = channel_mix(g, d, in, prev, 1);
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = layer_norm(g, d, x, d->E, To, 1, -1, -1, "output_norm");
	g->t[rn].output = 1; /* t_embd */
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

void gr_rwkv7(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	uint32_t n_layer = m->n_layer_all;
	int rows = gr_input_embd(g, d, in);
	int v_first = -1;
	struct tail prev = {-1, -1, -1, -1, 0, 0};
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		struct rwkv_layer r;
		rwkv_layer_in(g, d, in, L, rows, &prev, &r);
		struct tm7 o;
		int wkv = rwkv7_wkv(g, d, L, r.an, r.att_shift, r.wkv_state, r.scache, &v_first, &o);
		/* the token-shift write: the last token's attention norm, then
		 * the rest of the time mix and the FFN norm */
		int last_an = ga_view(g, r.an);
		int cur = rwkv7_tail(g, d, L, wkv, &o);
		rwkv_layer_out(g, d, L, &r, cur, last_an, &prev);
	}
	rwkv_result(g, d, in, &prev);
}

/* The llama FFN ARWKV-7 and RWKV6-Qwen2 end a layer with (arwkv7.cpp,
 * rwkv6qwen2.cpp alike): the last layer's output rows of the FFN's input
 * fi kept first, its RMS norm, a SiLU FFN (build_ffn: gate, up, swiglu,
 * down), the residual. */
static int llama_ffn_rows(struct ga_graph *g, const struct dims *d, struct inputs *in, int L, int fi, int last)
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

/* The previous layer's output (last: the trunk's end), from what it left */
typedef int mix_out_fn(struct ga_graph *g, const struct dims *d, struct inputs *in, const void *prev, int last);

/* A layer's start in the RWKV time mix + llama FFN hybrids (arwkv7.cpp,
 * rwkv6qwen2.cpp alike): the states gathered, the one shift state whole,
 * the previous layer's output reached (out over prev; the first layer
 * takes *x as it is), the attention's RMS norm. */
static void mix_layer_in(struct ga_graph *g, const struct dims *d, struct inputs *in, int L, mix_out_fn *out,
			 const void *prev, int *x, struct rwkv_layer *r)
{
	int64_t ns = d->n_seq, nst = d->T / ns;
	rwkv_states(g, d, in, L, r);
	r->att_shift = ga_view(g, r->ts); /* one shift state: the whole of it */
	if (L > 0)
		*x = out(g, d, in, prev, 0);
	r->xin = ga_view(g, *x);
	r->an = gr_norm(g, d, r->xin, d->E, nst, ns, L, "attn_norm.weight");
}

/* What an ARWKV-7 layer leaves for the next to reach: the rest of its
 * time mix, then its llama FFN. */
struct atail {
	int il, wkv, xin;
	struct tm7 o;
};

/* ARWKV-7's layer output (src/models/arwkv7.cpp): the time mix's tail,
 * its residual, the FFN's RMS norm (the last layer's rows kept first), a
 * SiLU FFN (build_ffn: gate, up, swiglu, down), the residual. */
static int arwkv7_out(struct ga_graph *g, const struct dims *d, struct inputs *in, const void *tv, int last)
{
	const struct atail *t = tv;
	int64_t T = d->T, E = d->E, ns = d->n_seq, nst = T / ns;
	int L = t->il;
	int tm = rwkv7_tail(g, d, L, t->wkv, &t->o);
	int ffn_inp = ga_op(g, 1, F32, E, nst, ns, 1, S(gr_reshape(g, tm, E, nst, ns), t->xin));
	int fi = gr_reshape(g, ffn_inp, E, T, 1);
	return llama_ffn_rows(g, d, in, L, fi, last);
}

void gr_arwkv7(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, E = d->E;
	uint32_t n_layer = m->n_layer_all;
	int x = gr_input_embd(g, d, in);
	int v_first = -1;
	struct atail prev;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		struct rwkv_layer r;
		mix_layer_in(g, d, in, L, arwkv7_out, &prev, &x, &r);
		int rcache = r.rcache, scache = r.scache, xin = r.xin, an = r.an;
		struct tm7 o;
		int wkv = rwkv7_wkv(g, d, L, an, r.att_shift, r.wkv_state, scache, &v_first, &o);
		/* the token-shift write: the last token's norm, a view */
		ga_sink_to(g, rcache, S(ga_view(g, ga_view(g, an)), ga_view(g, rcache)));
		prev = (struct atail){L, wkv, xin, o};
	}
	x = arwkv7_out(g, d, in, &prev, 1);
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_norm(g, d, x, E, To, 1, -1, "output_norm.weight");
	g->t[rn].output = 1; /* t_embd */
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
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
	int y = gr_mm(g, d, L, w, x, n, T);
	if (gr_has_tensor(d, L, b))
		y = ga_op(g, 1, F32, n, T, 1, 1, S(y, gr_weight(g, d, L, b)));
	if (n != E) /* n_head_kv heads of hs */
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
	int xp = ga_op(g, 0, F32, E, nst, ns, 1, S(att_shift, ga_view(g, an)));
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

/* What an RWKV6-Qwen2 layer leaves for the next to reach. */
struct qtail {
	int il, wkv, xin, xg;
};

/* RWKV6-Qwen2's layer output (src/models/rwkv6qwen2.cpp): the time mix's
 * tail (the grouped norm unless QRWKV, the gate: sigmoid for QRWKV, SiLU
 * otherwise), its residual, the FFN's RMS norm (the last layer's rows
 * kept first), a SiLU FFN, the residual. */
static int rwkv6q_out(struct ga_graph *g, const struct dims *d, struct inputs *in, const void *tv, int last)
{
	const struct qtail *t = tv;
	int64_t T = d->T, E = d->E, ns = d->n_seq, nst = T / ns;
	int64_t hs = d->n_embd_s / E, hc = E / hs;
	int L = t->il;
	int cur = ga_view(g, ga_view(g, t->wkv));
	if (gr_has_tensor(d, L, "time_mix_first.weight")) {
		cur = ga_op(g, 0, F32, hs, hc, T, 1, S(cur)); /* the grouped norm */
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(ga_view(g, cur), gr_weight(g, d, L, "time_mix_ln.weight")));
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gr_weight(g, d, L, "time_mix_ln.bias")));
	} else {
		cur = ga_view(g, cur);
	}
	int gate = gr_mm(g, d, L, "time_mix_gate.weight", t->xg, E, T);
	gate = ga_op(g, 1, F32, E, T, 1, 1, S(gate));
	cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gate));
	cur = gr_mm(g, d, L, "time_mix_output.weight", cur, E, T);
	int ffn_inp = ga_op(g, 1, F32, E, nst, ns, 1, S(ga_view(g, cur), t->xin));
	int fi = ga_view(g, ffn_inp);
	return llama_ffn_rows(g, d, in, L, fi, last);
}

void gr_rwkv6qwen2(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, E = d->E;
	uint32_t n_layer = m->n_layer_all;
	int x = gr_input_embd(g, d, in);
	struct qtail prev = {-1, -1, -1, -1};
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		struct rwkv_layer r;
		mix_layer_in(g, d, in, L, rwkv6q_out, &prev, &x, &r);
		int rcache = r.rcache, scache = r.scache, xin = r.xin, an = r.an;
		int xg;
		int wkv = rwkv6_wkv(g, d, L, an, r.att_shift, r.wkv_state, &xg);
		ga_sink_to(g, scache, S(ga_view(g, wkv), ga_view(g, scache)));
		/* the token-shift write: the last token's norm, a view */
		ga_sink_to(g, rcache, S(ga_view(g, ga_view(g, an)), ga_view(g, rcache)));
		prev = (struct qtail){L, wkv, xin, xg};
	}
	x = rwkv6q_out(g, d, in, &prev, 1);
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_norm(g, d, x, E, To, 1, -1, "output_norm.weight");
	if (d->w->gg && gguf_tensor_find(d->w->gg, "output_norm.bias"))
		rn = ga_op(g, 1, F32, E, To, 1, 1, S(rn, gr_weight(g, d, -1, "output_norm.bias")));
	g->t[rn].output = 1; /* t_embd */
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

void gr_rwkv6(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, E = d->E;
	int64_t hs = d->n_embd_s / (E ? E : 1), hc = hs ? E / hs : 0;
	uint32_t n_layer = m->n_layer_all;
	uint64_t rescale = 0;
	if (d->w->gg)
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.rescale_every_n_layers", m->arch), &rescale);
	int rows = gr_input_embd(g, d, in);
	struct tail prev = {-1, -1, -1, -1, 1, (int)rescale};
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		struct rwkv_layer r;
		rwkv_layer_in(g, d, in, L, rows, &prev, &r);
		int xg;
		int wkv = rwkv6_wkv(g, d, L, r.an, r.att_shift, r.wkv_state, &xg);
		ga_sink_to(g, r.scache, S(ga_view(g, wkv), ga_view(g, r.scache)));
		/* the token-shift write: the grouped norm, the SiLU gate, the
		 * output, the FFN norm */
		int last_an = ga_view(g, r.an);
		int cur = ga_view(g, ga_view(g, wkv));
		cur = ga_op(g, 0, F32, hs, hc, T, 1, S(cur));
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(ga_view(g, cur), gr_weight(g, d, L, "time_mix_ln.weight")));
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gr_weight(g, d, L, "time_mix_ln.bias")));
		int gate = gr_mm(g, d, L, "time_mix_gate.weight", xg, E, T);
		gate = ga_op(g, 1, F32, E, T, 1, 1, S(gate));
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gate));
		cur = gr_mm(g, d, L, "time_mix_output.weight", cur, E, T);
		rwkv_layer_out(g, d, L, &r, cur, last_an, &prev);
	}
	rwkv_result(g, d, in, &prev);
}
