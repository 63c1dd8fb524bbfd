/* graph_t5: src/models/t5.cpp's graph<true> of the pinned engine, T5's
 * encoder, which t5encoder (src/models/t5encoder.cpp) builds for every
 * graph. The token embedding, then per layer an RMS norm, q, k and v
 * (enc.blk.N.*), attention over the ubatch (build_attn_inp_no_cache: a
 * mask of n_tokens x n_tokens, f16 under flash attention) with a relative
 * position bias: build_pos_bias gathers attn_rel_b (layer 0's where the
 * layer has none) by the n_tokens x n_tokens bucket input and makes it
 * contiguous, and that KQ bias keeps the attention off flash attention
 * whatever the context says (build_attn_mha: kq, kq + bias, softmax, V's
 * transposed copy first in the graph); attn_o, the residual, an RMS norm,
 * the FFN (GELU-gated where ffn_gate is, else ReLU after up), the
 * residual. The last layer keeps the output rows; the final RMS norm
 * enc.output_norm is t_embd. The engine gives t5encoder the default KV
 * cache (create_memory), unused by this graph; the plan prices it. With
 * EMBEDDINGS=on build_pooling follows (graph.c: gr_pooling). */
#include <stdio.h>

#include "../../payload/ggml_type.h"
#include "graph.h"

/* The stack the helpers read: "enc" (graph<true>) or "dec" (graph<false>) */
#define ENC "enc"
#define DEC "dec"

/* STACK.blk.IL.SUFFIX, held where layer il's weights are */
static int t5_weight(struct ga_graph *g, const struct dims *d, const char *stack, int il, const char *suffix)
{
	char name[96];
	snprintf(name, sizeof(name), "%s.blk.%d.%s", stack, il, suffix);
	return gr_weight_at(g, d, name, il);
}

static int t5_mm(struct ga_graph *g, const struct dims *d, const char *stack, int il, const char *w, int x, int64_t ne0,
		 int64_t T)
{
	return gr_op_kind(g, ga_op(g, 0, F32, ne0, T, 1, 1, S(t5_weight(g, d, stack, il, w), x)), GA_OP_MUL_MAT);
}

/* build_norm with LLM_NORM_RMS over a layer's enc.blk weight */
static int t5_norm(struct ga_graph *g, const struct dims *d, const char *stack, int x, int64_t T, int il, const char *w)
{
	int n = ga_gop(g, ga_op(g, 1, F32, d->E, T, 1, 1, S(x)), GA_G_RMS_NORM);
	if (d->w->force_norm)
		g->t[n].force = gr_backend_of(d->w, d->w->pl->layer ? d->w->pl->layer[il] : -1);
	return ga_gop(g, ga_op(g, 1, F32, d->E, T, 1, 1, S(n, t5_weight(g, d, stack, il, w))), GA_G_MUL);
}

/* build_attn_mha without flash attention, q, k, v as [D, H, T] views,
 * KQ biased by the relative positions (bucket: the n_tokens x n_tokens
 * input; rel_b: layer 0's attn_rel_b, f32 {heads, buckets}) */
static int t5_attend(struct ga_graph *g, const struct dims *d, int q, int k, int v, int mask, int bucket, int rel_b)
{
	int64_t T = d->T;
	int qp = ga_view(g, ga_view(g, q)), kp = ga_view(g, k), vp = ga_view(g, v);
	int vt = ga_op(g, 0, F32, T, d->D, d->Hkv, 1, S(ga_view(g, vp)));
	int kq = gr_op_kind(g, ga_op(g, 0, F32, T, T, d->H, 1, S(kp, qp)), GA_OP_MUL_MAT);
	int rows = gr_op_kind(g, ga_op(g, 0, F32, d->H, T * T, 1, 1, S(rel_b, ga_view(g, bucket))), GA_OP_GET_ROWS);
	int bias = ga_op(g, 0, F32, T, T, d->H, 1, S(ga_view(g, ga_view(g, rows))));
	kq = ga_gop(g, ga_op(g, 1, F32, T, T, d->H, 1, S(kq, bias)), GA_G_ADD);
	int sm = ga_gop(g, ga_op(g, 1, F32, T, T, d->H, 1, S(kq, mask)), GA_G_SOFT_MAX);
	int kqv = gr_op_kind(g, ga_op(g, 0, F32, d->D, T, d->H, 1, S(vt, sm)), GA_OP_MUL_MAT);
	int cont = ga_op(g, 0, F32, d->D * d->H, T, 1, 1, S(ga_view(g, kqv)));
	if (!d->w->pl->kv_offload)
		g->t[cont].force = d->w->cpu;
	return cont;
}

/* build_ffn as t5.cpp calls it: GELU-gated (PAR, the gate first in the
 * graph) where the layer has ffn_gate, else ReLU after up (SEQ) */
static int t5_ffn(struct ga_graph *g, const struct dims *d, const char *stack, int il, int x, int64_t T)
{
	char name[96];
	snprintf(name, sizeof(name), "%s.blk.%d.ffn_gate.weight", stack, il);
	int h;
	if (d->w->gg && gguf_tensor_find(d->w->gg, name)) {
		int gate = t5_mm(g, d, stack, il, "ffn_gate.weight", x, d->F, T);
		int up = t5_mm(g, d, stack, il, "ffn_up.weight", x, d->F, T);
		h = ga_op(g, 0, F32, d->F, T, 1, 1, S(gate, up));
	} else {
		h = ga_op(g, 1, F32, d->F, T, 1, 1, S(t5_mm(g, d, stack, il, "ffn_up.weight", x, d->F, T)));
	}
	return t5_mm(g, d, stack, il, "ffn_down.weight", h, d->E, T);
}

/* A layer's end: the last layer's output rows of cur and of the
 * residual res, their sum, the FFN half (ffn_norm, t5_ffn), the residual */
static int t5_layer_end(struct ga_graph *g, const struct dims *d, struct inputs *in, const char *stack, int il,
			int last, int cur, int res)
{
	int64_t Tn = d->T;
	if (last)
		Tn = gr_out_rows(g, d, in, &cur, &res, 0);
	int fi = ga_gop(g, ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res)), GA_G_ADD);
	int fo = t5_ffn(g, d, stack, il, t5_norm(g, d, stack, fi, Tn, il, "ffn_norm.weight"), Tn);
	return ga_gop(g, ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, fi)), GA_G_ADD);
}

/* result_norm over the output rows: t_embd, a graph output */
static int t5_result_norm(struct ga_graph *g, const struct dims *d, int x, const char *w)
{
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, w);
	g->t[rn].output = 1;
	return rn;
}

void gr_t5encoder(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	int x = gr_input_embd(g, d, in);
	int bucket = gr_input_once(g, &in->pos, (uint64_t)T * T * 4);
	int mask = gr_input_once(g, &in->mask, (uint64_t)T * T * (d->fa ? 2 : 4));
	gr_input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
	uint32_t n_layer = m->n_layer_all;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = t5_norm(g, d, ENC, x, T, L, "attn_norm.weight");
		int q = ga_view(g, t5_mm(g, d, ENC, L, "attn_q.weight", an, nq, T));
		int k = ga_view(g, t5_mm(g, d, ENC, L, "attn_k.weight", an, nkv, T));
		int v = ga_view(g, t5_mm(g, d, ENC, L, "attn_v.weight", an, nkv, T));
		int rel_b = gr_weight_at(g, d, "enc.blk.0.attn_rel_b.weight", 0);
		int o = t5_attend(g, d, q, k, v, mask, bucket, rel_b);
		int cur = t5_mm(g, d, ENC, L, "attn_o.weight", o, d->E, T);
		x = t5_layer_end(g, d, in, ENC, L, il == n_layer - 1, cur, x);
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	gr_pooling(g, d, t5_result_norm(g, d, x, "enc.output_norm.weight"), To);
}

/* T5's decoder, graph<false> of src/models/t5.cpp: the graph the context
 * reserves (LLM_GRAPH_TYPE_DEFAULT) and the one llama-server decodes
 * with. Its inputs: the token embedding, the encoder's output
 * (build_inp_cross_embd: n_embd x n_enc f32, n_enc the context's
 * n_ctx_train while nothing was encoded, as at reserve), the relative
 * position buckets over the KV cells (n_kv x n_tokens i32), the KV
 * cache's indices and mask, the cross mask (n_enc x n_tokens, f16 under
 * flash attention). Per layer: the RMS norm, q, k, v, the position bias
 * (dec.blk.0.attn_rel_b), q, v and k rotated for a quantized cache, K
 * and V into the cache, then attention that the bias keeps off flash
 * attention (a V cache that flash attention left untransposed is copied
 * transposed first, in the cache's type), its rotation undone; attn_o, the
 * residual; the cross norm, q over the layer, k and v over the encoder's
 * output, attention over all n_enc rows (flash attention casts k and v
 * to f16; without it V is copied transposed), cross_attn_o; the last
 * layer's output rows, the residual, the FFN half; then dec.output_norm
 * (t_embd) and the LM head (t_logits). */

/* K and V of layer il into the cache, then softmax attention over the
 * n_kv cells with the relative position bias added to KQ */
static int t5_self(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int rel_b)
{
	int64_t T = d->T, n_kv = d->n_kv, nq = d->D * d->H, nkv = d->D * d->Hkv;
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, 0, &krot, &vrot);
	/* build_attn expands q, v, k (each rotated for a quantized cache) */
	int q = gr_rotate(g, ga_view(g, t5_mm(g, d, DEC, il, "attn_q.weight", an, nq, T)), nq * T, d->k_rot, krot);
	int v = gr_rotate(g, ga_view(g, t5_mm(g, d, DEC, il, "attn_v.weight", an, nkv, T)), nkv * T, d->v_rot, vrot);
	int k = gr_rotate(g, ga_view(g, t5_mm(g, d, DEC, il, "attn_k.weight", an, nkv, T)), nkv * T, d->k_rot, krot);
	int cache[2];
	gr_attend_store(g, d, in, il, k, v, 0, cache);
	int qp = ga_view(g, q);
	uint64_t kspan = (uint64_t)n_kv * d->k_row;
	uint64_t vspan = d->fa ? (uint64_t)n_kv * d->v_row : (uint64_t)d->kv_size * d->v_row;
	int kc = ga_view_n(g, cache[0], kspan), vc = ga_view_n(g, cache[1], vspan);
	if (d->fa) { /* V untransposed: ggml_cont(ggml_transpose(v)), the cache's type */
		vc = ga_op(g, 0, F16, n_kv, d->D, d->Hkv, 1, S(ga_view(g, vc)));
		const struct ggml_type_info *vt = ggml_type_get(d->v_type);
		if (vt && vt->blck)
			g->t[vc].bytes = (uint64_t)n_kv * d->D * d->Hkv / vt->blck * vt->size;
	}
	int kq = gr_op_kind(g, ga_op(g, 0, F32, n_kv, T, d->H, 1, S(kc, qp)), GA_OP_MUL_MAT);
	int rows = gr_op_kind(g, ga_op(g, 0, F32, d->H, n_kv * T, 1, 1, S(rel_b, ga_view(g, in->pos))), GA_OP_GET_ROWS);
	int bias = ga_op(g, 0, F32, n_kv, T, d->H, 1, S(ga_view(g, ga_view(g, rows))));
	kq = ga_gop(g, ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq, bias)), GA_G_ADD);
	int sm = ga_gop(g, ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq, in->mask)), GA_G_SOFT_MAX);
	int kqv = gr_op_kind(g, ga_op(g, 0, F32, d->D, T, d->H, 1, S(vc, sm)), GA_OP_MUL_MAT);
	int cont = ga_op(g, 0, F32, d->D * d->H, T, 1, 1, S(ga_view(g, kqv)));
	if (!d->w->pl->kv_offload)
		g->t[cont].force = d->w->cpu;
	return gr_rotate(g, ga_view(g, cont), nq * T, d->v_rot, vrot); /* the V rotation undone */
}

void gr_t5(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv, n_enc = (int64_t)m->n_ctx_train;
	int x = gr_input_embd(g, d, in);
	int embd_enc = ga_input(g, (uint64_t)d->E * n_enc * 4);
	gr_input_once(g, &in->pos, (uint64_t)d->n_kv * T * 4);
	gr_input_once(g, &in->mask, (uint64_t)d->n_kv * T * (d->fa ? 2 : 4));
	int xmask = ga_input(g, (uint64_t)n_enc * T * (d->fa ? 2 : 4));
	gr_input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
	int rel_b = gr_weight_at(g, d, "dec.blk.0.attn_rel_b.weight", 0);
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		int L = (int)il;
		int an = t5_norm(g, d, DEC, x, T, L, "attn_norm.weight");
		int o = t5_self(g, d, in, L, an, rel_b);
		int ca =
		    ga_gop(g, ga_op(g, 1, F32, d->E, T, 1, 1, S(t5_mm(g, d, DEC, L, "attn_o.weight", o, d->E, T), x)),
			   GA_G_ADD);
		int cn = t5_norm(g, d, DEC, ca, T, L, "cross_attn_norm.weight");
		int cq = t5_mm(g, d, DEC, L, "cross_attn_q.weight", cn, nq, T);
		int ck = t5_mm(g, d, DEC, L, "cross_attn_k.weight", embd_enc, nkv, n_enc);
		int cv = t5_mm(g, d, DEC, L, "cross_attn_v.weight", embd_enc, nkv, n_enc);
		int co = gr_attend_rows(g, d, ga_view(g, cq), ga_view(g, ck), ga_view(g, cv), xmask, n_enc);
		int cur = t5_mm(g, d, DEC, L, "cross_attn_o.weight", co, d->E, T);
		x = t5_layer_end(g, d, in, DEC, L, il == m->n_layer_all - 1, cur, ca);
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = t5_result_norm(g, d, x, "dec.output_norm.weight");
	g->t[gr_mm(g, d, -1, "output.weight", rn, d->V, To)].output = 1; /* result_output: t_logits */
}
