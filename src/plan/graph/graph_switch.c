/* graph_switch: src/models/granite-switch.cpp of the pinned engine.
 * Four inputs of n_tokens (the substituted ids, the router's K signal, V
 * value and Q), the embedding of the substituted ids (get_rows, no
 * build_inp_embd) and granite's embedding scale; first the router: one
 * head at the layer after the trunk (model.c counts it), its Q, K and V
 * the inputs padded to head_dim, attention over its own KV cells with no
 * output projection, whose row 0 is made contiguous, clamped, rounded and
 * cast to the adapter index of each token. Then granite's layers over a
 * fused attn_qkv whose q, k and v are made contiguous and each added a
 * switched LoRA delta (build_switched_lora_delta: lora_b x (lora_a x x),
 * two mul_mat_id over the adapter index); attn_output, ffn_gate, ffn_up
 * and ffn_down are switched (the matmul plus the delta); the residual
 * scale on both halves; the last layer's output rows take the adapter
 * index's rows too; result_norm, the output and the logit scale. Nodes
 * are built in the order ggml's expand visits them: the router at once,
 * the adapter index where layer 0's q delta first reads it. */
#include "graph.h"

#include <stdio.h>
#include <string.h>

struct sw {
	int router_out, ids, pos;
	int rope;	  /* rope.scaling.finetuned (default on) */
	double res_scale; /* residual_scale, 0: none */
};

static int64_t Tn_of(const struct dims *d)
{
	return d->n_out < d->T ? d->n_out : d->T;
}

/* the adapter index, built at its first reader (a view of it each time) */
static int sw_ids(struct ga_graph *g, const struct dims *d, struct sw *s)
{
	int64_t T = d->T;
	if (s->ids < 0) {
		int slot = ga_op(g, 0, F32, 1, T, 1, 1, S(ga_view(g, s->router_out)));
		slot = ga_gop(g, ga_op(g, 1, F32, T, 1, 1, 1, S(ga_view(g, slot))), GA_G_CLAMP);
		slot = ga_gop(g, ga_op(g, 1, F32, T, 1, 1, 1, S(slot)), GA_G_UNARY);
		s->ids = ga_op(g, 0, I32, T, 1, 1, 1, S(slot));
	}
	return ga_view(g, s->ids);
}

/* build_switched_lora_delta: x (n_in x T) through layer il's w.lora_a and
 * w.lora_b stacks, the slot per token, n_out rows; a view */
static int sw_delta(struct ga_graph *g, const struct dims *d, struct sw *s, int il, const char *a, const char *b, int x,
		    int64_t n_out, int64_t rank, int64_t T)
{
	int xv = ga_view(g, x);
	int ids = sw_ids(g, d, s);
	int lo = gr_mm_id(g, d, il, a, xv, ids, rank, 1, T);
	return ga_view(g, gr_mm_id(g, d, il, b, lo, ids, n_out, 1, T));
}

/* build_switched_lora_mm: the matmul, its delta, added */
static int sw_mm(struct ga_graph *g, const struct dims *d, struct sw *s, int il, const char *w, int x, int64_t n_out,
		 int64_t rank, int64_t T)
{
	char a[48], b[48];
	snprintf(a, sizeof(a), "%.*s.lora_a", (int)(strlen(w) - 7), w); /* w: "NAME.weight" */
	snprintf(b, sizeof(b), "%.*s.lora_b", (int)(strlen(w) - 7), w);
	int base = gr_mm(g, d, il, w, x, n_out, T);
	int delta = sw_delta(g, d, s, il, a, b, x, n_out, rank, T);
	return ga_gop(g, ga_op(g, 1, F32, n_out, T, 1, 1, S(base, delta)), GA_G_ADD);
}

/* one of q, k, v: its slice of the fused qkv made contiguous, its delta added */
static int sw_qkv_part(struct ga_graph *g, const struct dims *d, struct sw *s, int il, const char *name, int qkv,
		       int an, int64_t n, int64_t rank)
{
	char a[32], b[32];
	snprintf(a, sizeof(a), "%s.lora_a", name);
	snprintf(b, sizeof(b), "%s.lora_b", name);
	int c = ga_op(g, 0, F32, n, d->T, 1, 1, S(ga_view(g, qkv)));
	int delta = sw_delta(g, d, s, il, a, b, an, n, rank, d->T);
	return ga_view(g, ga_gop(g, ga_op(g, 1, F32, n, d->T, 1, 1, S(c, delta)), GA_G_ADD));
}

/* build_attn over the KV cache without an output projection (q, v and k
 * already built, rotated under a quantized cache in that order): stored
 * and attended; the heads concatenated (a view), rotated back */
static int sw_attend(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v)
{
	int o = gr_attend(g, d, in, il, q, k, v, 0);
	return gr_rotate(g, ga_view(g, o), d->D * d->H * d->T, d->v_rot, &in->v_rot);
}

/* The router: one head over its own cache layer R, Q, V and K one value
 * a token (sig: router_q, router_vval, router_ksig) padded to head_dim */
static int sw_router(struct ga_graph *g, const struct dims *d, struct inputs *in, int R)
{
	struct dims dr = *d;
	dr.H = dr.Hkv = 1;
	dr.k_row = d->k_row / (uint64_t)d->Hkv;
	if (d->fa) /* else V is transposed at the widest layer's row */
		dr.v_row = d->v_row / (uint64_t)d->Hkv;
	int64_t T = d->T;
	int lane[3];
	for (int i = 0; i < 3; i++) {
		int sig = ga_input(g, (uint64_t)T * 4);
		lane[i] = ga_op(g, 0, F32, d->D, 1, T, 1, S(ga_view(g, sig)));
		lane[i] =
		    gr_rotate(g, lane[i], d->D * T, i == 1 ? d->v_rot : d->k_rot, i == 1 ? &in->v_rot : &in->k_rot);
	}
	/* the index inputs span every layer's widest V (build_input_v_idxs) */
	gr_input_once(g, &in->k_idx, (uint64_t)T * 8);
	gr_input_once(g, &in->v_idx, (uint64_t)T * 8 * (d->fa ? 1 : (uint64_t)(d->Hkv * d->D)));
	return sw_attend(g, &dr, in, R, lane[0], lane[2], lane[1]);
}

/* build_attention_layer: the fused qkv, q (roped), v, k (roped) each with
 * its delta, the attention, attn_output switched */
static int sw_attn(struct ga_graph *g, const struct dims *d, struct inputs *in, struct sw *s, int il, int an,
		   int64_t rank)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	int qkv = gr_mm(g, d, il, "attn_qkv.weight", an, nq + 2 * nkv, T);
	if (s->rope && s->pos < 0)
		s->pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int q = sw_qkv_part(g, d, s, il, "attn_q", qkv, an, nq, rank);
	if (s->rope)
		q = gr_rope(g, q, s->pos, d->D, d->H, T);
	q = gr_rotate(g, q, nq * T, d->k_rot, &in->k_rot);
	int v = sw_qkv_part(g, d, s, il, "attn_v", qkv, an, nkv, rank);
	v = gr_rotate(g, v, nkv * T, d->v_rot, &in->v_rot);
	int k = sw_qkv_part(g, d, s, il, "attn_k", qkv, an, nkv, rank);
	if (s->rope)
		k = gr_rope(g, k, s->pos, d->D, d->Hkv, T);
	k = gr_rotate(g, k, nkv * T, d->k_rot, &in->k_rot);
	int o = sw_attend(g, d, in, il, q, k, v);
	return sw_mm(g, d, s, il, "attn_output.weight", o, d->E, rank, T);
}

/* build_layer_ffn over the attention's output cur and the residual res
 * (Tn rows): the residual scale, the add, the norm, a SwiGLU of switched
 * gate and up, switched down, the residual scale, the add */
static int sw_ffn(struct ga_graph *g, const struct dims *d, struct sw *s, int il, int cur, int res, int64_t Tn,
		  int64_t rank)
{
	if (s->res_scale != 0)
		cur = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur));
	int fi = ga_gop(g, ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res)), GA_G_ADD);
	int fn = gr_norm(g, d, fi, d->E, Tn, 1, il, "ffn_norm.weight");
	struct dims dn = *d;
	dn.T = Tn;
	int gate = sw_mm(g, &dn, s, il, "ffn_gate.weight", fn, d->F, rank, Tn);
	gate = ga_gop(g, ga_op(g, 1, F32, d->F, Tn, 1, 1, S(gate)), GA_G_UNARY);
	int up = sw_mm(g, &dn, s, il, "ffn_up.weight", fn, d->F, rank, Tn);
	int gu = ga_gop(g, ga_op(g, 1, F32, d->F, Tn, 1, 1, S(gate, up)), GA_G_MUL);
	int down = sw_mm(g, &dn, s, il, "ffn_down.weight", gu, d->E, rank, Tn);
	if (s->res_scale != 0)
		down = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(down));
	return ga_gop(g, ga_op(g, 1, F32, d->E, Tn, 1, 1, S(down, fi)), GA_G_ADD);
}

void gr_granite_switch(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	uint32_t n_layer = m->n_layer_all - m->n_nextn; /* the router is the last layer */
	uint64_t rank = 0;
	double emb_scale = 0;
	struct sw s = {-1, -1, -1, 1, 0};
	if (d->w->gg) {
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.adapters.lora_rank", m->arch), &rank);
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.embedding_scale", m->arch), &emb_scale);
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.residual_scale", m->arch), &s.res_scale);
		gguf_kv_bool(gguf_findf(d->w->gg, "%s.rope.scaling.finetuned", m->arch), &s.rope);
	}
	s.router_out = sw_router(g, d, in, (int)n_layer);
	int toks = ga_input(g, (uint64_t)T * 4); /* the substituted ids */
	int x = gr_op_kind(g, ga_op(g, 0, F32, d->E, T, 1, 1, S(gr_weight(g, d, -1, "token_embd.weight"), toks)),
			   GA_OP_GET_ROWS);
	if (emb_scale != 0)
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(x));
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int cur = sw_attn(g, d, in, &s, L, an, (int64_t)rank);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1) { /* the output rows, the adapter index's too */
			Tn = d->n_out < T ? d->n_out : T;
			int ids = gr_input_once(g, &in->out_ids, (uint64_t)Tn * 4);
			cur = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(cur, ids)), GA_OP_GET_ROWS);
			res = gr_op_kind(g, ga_op(g, 0, F32, d->E, Tn, 1, 1, S(res, ids)), GA_OP_GET_ROWS);
			int rows =
			    gr_op_kind(g, ga_op(g, 0, I32, 1, Tn, 1, 1, S(sw_ids(g, d, &s), ids)), GA_OP_GET_ROWS);
			s.ids = ga_view(g, rows);
		}
		x = sw_ffn(g, d, &s, L, cur, res, Tn, (int64_t)rank);
	}
	int rn = gr_norm(g, d, x, d->E, Tn_of(d), 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, Tn_of(d));
	out = ga_op(g, 1, F32, d->V, Tn_of(d), 1, 1, S(out)); /* the logits by 1/logit_scale */
	g->t[out].output = 1;
}
