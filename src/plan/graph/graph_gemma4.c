/* graph_gemma4: Gemma 4 (src/models/gemma4.cpp of the pinned engine):
 * an iSWA cache whose two halves differ in head size and KV heads (each
 * layer's own widths), q/k norms and a weightless v norm, K's projection
 * reused as V where a layer has no attn_v (K equals V), trailing layers
 * that hold no KV and attend over an earlier layer's cache (shared KV),
 * GELU FFNs with post norms and, on MoE layers, a router fed by its own
 * norm beside the dense FFN (build_moe_ffn with probs_in, softmax gating,
 * normalised weights), and the E2B/E4B variants' per-layer token
 * embeddings (build_inp_per_layer, project_per_layer_inputs). */
#include "graph.h"

#include <stdio.h>

#include "../../payload/gguf.h"

/* llama_kv_cache: a cache of a quantized type rotates when layer 0's head
 * size (hparams.n_embd_head_k(), whatever the cache) is a multiple of 64;
 * K by the largest power of two >= 64 dividing the cache's own head size
 * (64 when none does: build_input_k_rot's loop), V by 64. The cache type
 * is read from the row bytes a layer's K and V take: f32, f16 and bf16
 * rows are whole bytes per element. */
static int quantized(uint64_t row, int64_t n)
{
	return row != (uint64_t)n * 2 && row != (uint64_t)n * 4;
}

static int64_t rot_k(int64_t head)
{
	int64_t n = 64;
	do
		n *= 2;
	while (head % n == 0);
	return n / 2;
}

/* The widths of layer il: its head size and KV heads, its K and V row
 * bytes scaled from the first layer's (set_dims), and its cache's
 * rotations. */
static void layer_dims(struct dims *dl, const struct dims *d, const struct model *m, uint32_t il)
{
	gr_gemma4_dims(dl, d, m, il, m->kind[il] == LAYER_SWA);
}

void gr_gemma4_dims(struct dims *dl, const struct dims *d, const struct model *m, uint32_t il, int swa)
{
	int64_t n0 = d->D * d->Hkv;
	*dl = *d;
	dl->D = swa ? m->head_k_swa : m->head_k;
	dl->Hkv = m->n_head_kv[il];
	dl->H = m->n_head[il];
	int64_t n = dl->D * dl->Hkv;
	dl->k_row = d->k_row * (uint64_t)n / (uint64_t)n0;
	dl->v_row = d->v_row * (uint64_t)n / (uint64_t)n0;
	int64_t head0 = m->kind[0] == LAYER_SWA ? m->head_k_swa : m->head_k;
	dl->k_rot = quantized(d->k_row, n0) && head0 % 64 == 0 ? rot_k(dl->D) : 0;
	dl->v_rot = quantized(d->v_row, n0) && head0 % 64 == 0 ? 64 : 0;
}

/* the widest V row of any layer: a transposed V cache pads every layer
 * to it (TAG_V_CACHE_VARIABLE) */
static uint64_t v_row_max(const struct dims *d, const struct model *m)
{
	int64_t n0 = d->D * d->Hkv, vmax = 0;
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		int64_t w = (int64_t)model_n_embd_v_gqa(m, il);
		if (w > vmax)
			vmax = w;
	}
	return d->v_row * (uint64_t)vmax / (uint64_t)n0;
}

/* build_attn (kv_iswa): K and V into the cache of layer kv_il (when the
 * layer has them), then attention over that cache. */
int gr_attend_kv(struct ga_graph *g, const struct dims *dl, struct inputs *in, int kv_il, int q, int k, int v, int swa,
		 uint64_t vmax_row)
{
	int64_t T = dl->T;
	struct gr_kv c;
	gr_kv_of(dl, in, swa, &c);
	int kcache = gr_cache(g, dl, kv_il), vcache = gr_cache(g, dl, kv_il);
	if (k >= 0) {
		int kidx = gr_input_once(g, c.k_idx, (uint64_t)T * 8);
		ga_sink_to(g, kcache, S(ga_view(g, k), kidx, kcache));
	}
	if (v >= 0) {
		int64_t vw = dl->fa ? 1 : (int64_t)(vmax_row * (uint64_t)(dl->D * dl->Hkv) / dl->v_row);
		int vidx = gr_input_once(g, c.v_idx, (uint64_t)T * 8 * (uint64_t)vw);
		ga_sink_to(g, vcache, S(ga_view(g, v), vidx, vcache));
	}
	int mask = gr_input_once(g, c.mask, (uint64_t)c.n_kv * T * (dl->fa ? 2 : 4));
	int qp = ga_view(g, q);
	uint64_t kspan = (uint64_t)(c.n_kv + (dl->n_stream - 1) * c.size) * dl->k_row;
	uint64_t vspan = dl->fa ? (uint64_t)(c.n_kv + (dl->n_stream - 1) * c.size) * dl->v_row
				: (uint64_t)(dl->n_stream * c.size) * vmax_row;
	int kc = ga_view_n(g, kcache, kspan), vc = ga_view_n(g, vcache, vspan);
	if (dl->fa)
		return gr_op_kind(g, ga_op(g, 0, F32, dl->D, dl->H, T, 1, S(qp, kc, vc, mask)), GA_OP_FA);
	return gr_attn_kqv(g, dl, qp, kc, vc, mask, c.n_kv, -1);
}

/* build_moe_ffn from the router's logits (probs_in): softmax, top-k,
 * weights normalised, GELU experts, weighted and added up. The router
 * chain comes first in the graph (the weights are expanded early), the
 * experts' input norm after it. */
static int g4_moe(struct ga_graph *g, const struct dims *d, int il, int attn_out, int64_t T)
{
	int64_t ne = d->n_expert, k = d->n_expert_used;
	int r = ga_op(g, 1, F32, d->E, T, 1, 1, S(attn_out)); /* rms_norm, no weight */
	r = ga_op(g, 1, F32, d->E, T, 1, 1, S(r));	      /* scale */
	r = ga_op(g, 1, F32, d->E, T, 1, 1, S(r, gr_weight(g, d, il, "ffn_gate_inp.scale")));
	int logits = gr_mm(g, d, il, "ffn_gate_inp.weight", r, ne, T);
	int probs = ga_op(g, 1, F32, ne, T, 1, 1, S(logits));
	int probs3 = ga_view(g, probs);
	int order = ga_op(g, 0, I32, ne, T, 1, 1, S(probs));
	int sel = ga_view_n(g, order, (uint64_t)((T - 1) * ne + k) * 4);
	int wts = gr_op_kind(g, ga_op(g, 0, F32, 1, k, T, 1, S(probs3, sel)), GA_OP_GET_ROWS);
	int w3 = gr_moe_norm_w(g, wts, k, T);
	int x = gr_norm(g, d, attn_out, d->E, T, 1, il, "pre_ffw_norm_2.weight");
	int cur = ga_view(g, x);
	int gate = gr_mm_id(g, d, il, "ffn_gate_exps.weight", cur, sel, d->F_exp, k, T);
	int up = gr_mm_id(g, d, il, "ffn_up_exps.weight", cur, sel, d->F_exp, k, T);
	int glu = ga_op(g, 0, F32, d->F_exp, k, T, 1, S(gate, up));
	int down = gr_mm_id(g, d, il, "ffn_down_exps.weight", glu, sel, d->E, k, T);
	int experts = ga_op(g, 1, F32, d->E, k, T, 1, S(down, w3));
	int out = gr_moe_sum(g, d, experts, k, T);
	/* one expert: the caller conts the view, after the dense FFN (the
	 * cont is not expanded here; the layer's sum pulls it in last) */
	return out;
}

/* build_norm with il = -1: the graph callback pins nothing */
static int norm_free(struct ga_graph *g, const struct dims *d, int x, int il, const char *w, int64_t T)
{
	int n = ga_op(g, 1, F32, d->E, T, 1, 1, S(x));
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(n, gr_weight(g, d, il, w)));
}

int gr_named_weight(struct ga_graph *g, const struct dims *d, const char *name, int64_t layer)
{
	const struct gguf_tensor *t = d->w->gg ? gguf_tensor_find(d->w->gg, name) : NULL;
	return ga_held(g, gr_backend_of(d->w, place_weight(d->w->pl, name, layer)), 1, t ? t->bytes : 0);
}

/* build_inp_per_layer: a second token input, its rows of
 * per_layer_token_embd [P * n_layer, T], scaled; expanded at once */
static int per_layer_inputs(struct ga_graph *g, const struct dims *d, int64_t P, int64_t n_layer)
{
	int toks = ga_input(g, (uint64_t)d->T * 4);
	int rows = gr_op_kind(g,
			      ga_op(g, 0, F32, P * n_layer, d->T, 1, 1,
				    S(gr_named_weight(g, d, "per_layer_token_embd.weight", -1), toks)),
			      GA_OP_GET_ROWS);
	return ga_op(g, 1, F32, P, n_layer, d->T, 1, S(ga_view(g, rows)));
}

int gr_per_layer_project(struct ga_graph *g, const struct dims *d, int x0, int rows, int64_t P, int64_t NL, int cont)
{
	int64_t T = d->T;
	int pp = gr_op_kind(
	    g, ga_op(g, 0, F32, P * NL, T, 1, 1, S(gr_named_weight(g, d, "per_layer_model_proj.weight", 0), x0)),
	    GA_OP_MUL_MAT);
	pp = ga_op(g, 1, F32, P * NL, T, 1, 1, S(pp));
	int n = ga_op(g, 1, F32, P, NL, T, 1, S(cont ? gr_cview(g, pp, P, NL, T) : ga_view(g, pp)));
	n = ga_op(g, 1, F32, P, NL, T, 1, S(n, gr_named_weight(g, d, "per_layer_proj_norm.weight", 0)));
	int a = ga_op(g, 1, F32, P, NL, T, 1, S(n, rows));
	a = ga_op(g, 1, F32, P, NL, T, 1, S(a));
	return ga_op(g, 0, F32, P, T, NL, 1, S(ga_view(g, a)));
}

int gr_gemma4_q(struct ga_graph *g, const struct dims *d, const struct dims *dl, int L, int an, int pos, int freqs)
{
	int64_t D = dl->D, H = dl->H, T = d->T;
	int q = ga_view(g, gr_mm(g, d, L, "attn_q.weight", an, D * H, T));
	q = gr_norm(g, d, q, D, H, T, L, "attn_q_norm.weight");
	return gr_op_kind(
	    g, freqs < 0 ? ga_op(g, 1, F32, D, H, T, 1, S(q, pos)) : ga_op(g, 1, F32, D, H, T, 1, S(q, pos, freqs)),
	    GA_OP_ROPE);
}

void gr_gemma4(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	uint32_t n_kv_layers = m->n_layer_all - m->n_kv_shared;
	uint64_t vmax_row = v_row_max(d, m);
	int x = gr_input_embd(g, d, in);
	const struct gguf_tensor *ple = d->w->gg ? gguf_tensor_find(d->w->gg, "per_layer_token_embd.weight") : NULL;
	int64_t P = ple && n_layer ? ple->ne[0] / n_layer : 0;
	int pl_rows = P ? per_layer_inputs(g, d, P, n_layer) : -1, pl_all = -1;
	x = ga_op(g, 1, F32, d->E, T, 1, 1, S(x)); /* scaled by sqrt(n_embd) */
	int x0 = x;
	int moe = d->n_expert > 0;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		struct dims dl;
		layer_dims(&dl, d, m, il);
		int swa = m->kind[il] == LAYER_SWA;
		int has_kv = il < n_kv_layers;
		/* a shared layer reads the last full (or window) layer's cache */
		int kv_il = has_kv ? L : (int)n_kv_layers - (swa ? 2 : 1);
		int *krot = swa ? &in->k_rot_swa : &in->k_rot, *vrot = swa ? &in->v_rot_swa : &in->v_rot;
		int64_t D = dl.D, H = dl.H, Hkv = dl.Hkv;
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		/* ggml finds the K rotation (src0 of q's rotation) before the
		 * positions */
		if (dl.k_rot)
			gr_input_once(g, krot, (uint64_t)dl.k_rot * dl.k_rot * 4);
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
		int freqs = swa ? -1 : gr_weight(g, d, L, "rope_freqs.weight");
		int q = gr_gemma4_q(g, d, &dl, L, an, pos, freqs);
		q = gr_rotate(g, q, D * H * T, dl.k_rot, krot);
		int k = -1, v = -1;
		if (has_kv) {
			int km = gr_mm(g, d, L, "attn_k.weight", an, D * Hkv, T);
			k = gr_norm(g, d, ga_view(g, km), D, Hkv, T, L, "attn_k_norm.weight");
			k = gr_op_kind(g,
				       freqs < 0 ? ga_op(g, 1, F32, D, Hkv, T, 1, S(k, pos))
						 : ga_op(g, 1, F32, D, Hkv, T, 1, S(k, pos, freqs)),
				       GA_OP_ROPE);
			k = gr_rotate(g, k, D * Hkv * T, dl.k_rot, krot);
			/* K equals V: the same projection, viewed again */
			int vm =
			    gr_has_tensor(d, L, "attn_v.weight") ? gr_mm(g, d, L, "attn_v.weight", an, D * Hkv, T) : km;
			v = ga_op(g, 1, F32, D, Hkv, T, 1, S(ga_view(g, vm)));
			v = gr_rotate(g, v, D * Hkv * T, dl.v_rot, vrot);
		}
		int o = gr_attend_kv(g, &dl, in, kv_il, q, k, v, swa, vmax_row);
		o = gr_rotate(g, ga_view(g, o), D * H * T, dl.v_rot, vrot);
		int cur = gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
		cur = gr_norm(g, d, cur, d->E, T, 1, L, "post_attention_norm.weight");
		int attn_out = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, x));
		if (moe && gr_has_tensor(d, L, "ffn_gate_inp.weight")) {
			int mo = g4_moe(g, d, L, attn_out, T);
			int mlp = gr_norm(g, d, attn_out, d->E, T, 1, L, "ffn_norm.weight");
			mlp = gr_ffn(g, d, L, mlp, T);
			mlp = gr_norm(g, d, mlp, d->E, T, 1, L, "post_ffw_norm_1.weight");
			if (d->n_expert_used == 1)
				mo = ga_op(g, 0, F32, d->E, T, 1, 1, S(mo));
			mo = gr_norm(g, d, mo, d->E, T, 1, L, "post_ffw_norm_2.weight");
			cur = ga_op(g, 1, F32, d->E, T, 1, 1, S(mlp, mo));
		} else {
			cur = gr_norm(g, d, attn_out, d->E, T, 1, L, "ffn_norm.weight");
			cur = gr_ffn(g, d, L, cur, T);
		}
		cur = norm_free(g, d, cur, L, "post_ffw_norm.weight", T);
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, attn_out));
		if (P) { /* the layer's slice of the per-layer inputs, gated */
			int pg = gr_mm(g, d, L, "inp_gate.weight", x, P, T);
			pg = ga_op(g, 1, F32, P, T, 1, 1, S(pg));
			if (pl_all < 0)
				pl_all = gr_per_layer_project(g, d, x0, pl_rows, P, n_layer, 0);
			pg = ga_op(g, 1, F32, P, T, 1, 1, S(pg, ga_view_n(g, pl_all, (uint64_t)(P * T * 4))));
			int pr = gr_mm(g, d, L, "proj.weight", pg, d->E, T);
			pr = gr_norm(g, d, pr, d->E, T, 1, L, "post_norm.weight");
			x = ga_op(g, 1, F32, d->E, T, 1, 1, S(x, pr));
		}
		if (gr_has_tensor(d, L, "layer_output_scale.weight"))
			x = ga_op(g, 1, F32, d->E, T, 1, 1, S(x, gr_weight(g, d, L, "layer_output_scale.weight")));
	}
	/* the output norm runs over every row; the rows are picked after it */
	int rn = gr_norm(g, d, x, d->E, T, 1, -1, "output_norm.weight");
	int64_t To = T;
	if (d->n_out < T) {
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
		rn = gr_op_kind(g, ga_op(g, 0, F32, d->E, d->n_out, 1, 1, S(rn, ids)), GA_OP_GET_ROWS);
		To = d->n_out;
	}
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}
