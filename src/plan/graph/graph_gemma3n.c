/* graph_gemma3n: Gemma 3n (src/models/gemma3n.cpp of the pinned engine):
 * four altup streams of the residual [E, T, 4] predicted and corrected
 * around each layer by a tanh router, a laurel branch beside the
 * attention, gemma3's q/k norms and a weightless v norm, GELU FFNs whose
 * first 10 layers cut their gate at a gaussian top-k, per-layer token
 * embeddings gated into every layer, and the layers past the first 20
 * attending over an earlier layer's cache (shared KV).
 *
 * The nodes are emitted in the order ggml_build_forward_expand visits
 * them: the builder expands the token rows, then the per-layer rows, then
 * each layer's q, k, v and their cache writes (build_attn); everything
 * else is reached from there depth first, sources in order, so a layer's
 * tail (FFN, altup correction) is visited from the next layer's q. */
#include "graph.h"

#include "../../payload/gguf.h"

/* the engine's fixed widths (llama-hparams.h: no key sets them) */
#define N_ALTUP	      4
#define N_LAUREL      64
#define N_SPARSE      10 /* layers whose gate takes the gaussian top-k */
#define ALTUP_PLE_DEF 256

/* An in-place-capable op (rms_norm, scale) over a reshape of x. */
static int on_reshape(struct ga_graph *g, int64_t ne0, int64_t ne1, int64_t ne2, int x)
{
	return ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(gr_cview(g, x, ne0, ne1, ne2)));
}

/* build_norm with il = -1 over layer il's weight: rms_norm and the
 * weight, nothing pinned */
static int norm_free(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int il, const char *w)
{
	int n = ga_op(g, 1, F32, ne0, ne1, 1, 1, S(x));
	return ga_op(g, 1, F32, ne0, ne1, 1, 1, S(n, gr_weight(g, d, il, w)));
}

/* calc_magnitude: sqrt(sum_rows(sqr(x))) over rows of ne0 */
static int magnitude(struct ga_graph *g, int x, int64_t ne0, int64_t ne1, int64_t ne2)
{
	int sq = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(x));
	int sr = ga_op(g, 0, F32, 1, ne1, ne2, 1, S(sq));
	return ga_op(g, 1, F32, 1, ne1, ne2, 1, S(sr));
}

/* altup_compute_router_modalities over x [E, T]: the router's norm,
 * scaled, projected to the 4 streams, tanh */
static int modalities(struct ga_graph *g, const struct dims *d, int il, int x)
{
	int64_t T = d->T;
	int r = gr_norm(g, d, x, d->E, T, 1, il, "altup_router_norm.weight");
	r = ga_op(g, 1, F32, d->E, T, 1, 1, S(r));
	r = gr_mm(g, d, il, "altup_router.weight", r, N_ALTUP, T);
	return ga_op(g, 1, F32, N_ALTUP, T, 1, 1, S(r));
}

/* altup_predict over the stack x [E, T, 4]: the streams permuted, mixed by
 * the router's coefficients, permuted back and added to x */
static int altup_predict(struct ga_graph *g, const struct dims *d, int il, int x)
{
	int64_t T = d->T, E = d->E;
	int perm = ga_op(g, 0, F32, N_ALTUP, E, T, 1, S(ga_view(g, x)));
	int mod = modalities(g, d, il, gr_cview(g, x, E, T, 1));
	int coefs = gr_mm(g, d, il, "altup_predict_coef.weight", mod, N_ALTUP * N_ALTUP, T);
	int pred = gr_op_kind(g, ga_op(g, 0, F32, E, N_ALTUP, T, 1, S(perm, gr_cview(g, coefs, N_ALTUP, N_ALTUP, T))),
			      GA_OP_MUL_MAT);
	pred = ga_op(g, 0, F32, E, T, N_ALTUP, 1, S(ga_view(g, pred)));
	return ga_op(g, 1, F32, E, T, N_ALTUP, 1, S(pred, x));
}

/* gaussian_topk over the gate [F, T]: the rows' mean plus 1.645 standard
 * deviations cut off, relu */
static int gaussian_topk(struct ga_graph *g, int x, int64_t F, int64_t T)
{
	int mean = ga_op(g, 0, F32, 1, T, 1, 1, S(x));
	int dev = ga_op(g, 1, F32, F, T, 1, 1, S(x, mean));
	dev = ga_op(g, 1, F32, F, T, 1, 1, S(dev));
	dev = ga_op(g, 0, F32, 1, T, 1, 1, S(dev));
	dev = ga_op(g, 1, F32, 1, T, 1, 1, S(dev));
	dev = ga_op(g, 1, F32, 1, T, 1, 1, S(dev));
	dev = ga_op(g, 1, F32, 1, T, 1, 1, S(dev));
	int cut = ga_op(g, 1, F32, 1, T, 1, 1, S(mean, dev));
	int sub = ga_op(g, 1, F32, F, T, 1, 1, S(x, cut));
	return ga_op(g, 1, F32, F, T, 1, 1, S(sub));
}

/* The per-layer inputs: rows of per_layer_token_embd for a second token
 * input, scaled (expanded at once) */
static int per_layer_rows(struct ga_graph *g, const struct dims *d, int64_t P, int64_t NL)
{
	int toks = ga_input(g, (uint64_t)d->T * 4);
	int rows = gr_op_kind(
	    g, ga_op(g, 0, F32, P * NL, d->T, 1, 1, S(gr_named_weight(g, d, "per_layer_token_embd.weight", -1), toks)),
	    GA_OP_GET_ROWS);
	return on_reshape(g, P, NL, d->T, rows);
}

/* A layer's tail after its attention output o (the wo projection):
 * post norm, the laurel branch of an, the FFN, the altup correction and
 * the per-layer input; returns the next stack [E, T, 4]. */
struct tail {
	int an, active, pred, il;
};

static int layer_tail(struct ga_graph *g, const struct dims *d, const struct tail *tl, int o, int *pl_all, int x0,
		      int pl_rows, int64_t P, int64_t NL)
{
	int64_t T = d->T, E = d->E, F = d->F;
	int L = tl->il;
	int cur = gr_norm(g, d, o, E, T, 1, L, "post_attention_norm.weight");
	cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, tl->active));
	/* laurel: l, r, its norm, plus its input */
	int lr = gr_mm(g, d, L, "laurel_l.weight", tl->an, N_LAUREL, T);
	lr = gr_mm(g, d, L, "laurel_r.weight", lr, E, T);
	lr = gr_norm(g, d, lr, E, T, 1, L, "laurel_post_norm.weight");
	lr = ga_op(g, 1, F32, E, T, 1, 1, S(lr, tl->an));
	int al = ga_op(g, 1, F32, E, T, 1, 1, S(cur, lr));
	al = ga_op(g, 1, F32, E, T, 1, 1, S(al));
	/* the FFN: up first (mul's src0), then the gate */
	int fn = gr_norm(g, d, al, E, T, 1, L, "ffn_norm.weight");
	int up = gr_mm(g, d, L, "ffn_up.weight", fn, F, T);
	int gate = gr_mm(g, d, L, "ffn_gate.weight", fn, F, T);
	if (L < N_SPARSE)
		gate = gaussian_topk(g, gate, F, T);
	gate = ga_op(g, 1, F32, F, T, 1, 1, S(gate));
	int ff = ga_op(g, 1, F32, F, T, 1, 1, S(up, gate));
	ff = gr_mm(g, d, L, "ffn_down.weight", ff, E, T);
	ff = norm_free(g, d, ff, E, T, L, "post_ffw_norm.weight");
	int gated = ga_op(g, 1, F32, E, T, 1, 1, S(ff, al));
	/* altup_correct: the innovation repeated over the streams times the
	 * router's coefficients (+1, transposed to [1, T, 4]), plus the
	 * predictions */
	int innov = ga_op(g, 1, F32, E, T, 1, 1, S(gated, gr_cview(g, tl->pred, E, T, 1)));
	int rep = ga_op(g, 0, F32, E, T, N_ALTUP, 1, S(innov));
	int mod = modalities(g, d, L, gated);
	int cc = gr_mm(g, d, L, "altup_correct_coef.weight", mod, N_ALTUP, T);
	cc = ga_op(g, 1, F32, N_ALTUP, T, 1, 1, S(cc));
	cc = ga_op(g, 0, F32, 1, T, N_ALTUP, 1, S(ga_view(g, cc)));
	int corr = ga_op(g, 1, F32, E, T, N_ALTUP, 1, S(rep, cc));
	corr = ga_op(g, 1, F32, E, T, N_ALTUP, 1, S(corr, tl->pred));
	/* the new stack: stream 0, then the rest plus the gated per-layer
	 * input */
	int first = gr_cview(g, corr, E, T, 1);
	int rest = gr_cview(g, corr, E, T, N_ALTUP - 1);
	int fp = ga_op(g, 1, F32, E, T, 1, 1,
		       S(gr_cview(g, corr, E, T, 1), gr_weight(g, d, L, "altup_correct_scale.weight")));
	fp = gr_mm(g, d, L, "inp_gate.weight", fp, P, T);
	fp = ga_op(g, 1, F32, P, T, 1, 1, S(fp));
	if (*pl_all < 0)
		*pl_all = gr_per_layer_project(g, d, x0, pl_rows, P, NL, 1);
	fp = ga_op(g, 1, F32, P, T, 1, 1, S(fp, gr_cview(g, *pl_all, P, T, 1)));
	fp = gr_mm(g, d, L, "proj.weight", fp, E, T);
	fp = gr_norm(g, d, fp, E, T, 1, L, "post_norm.weight");
	int tmp = ga_op(g, 1, F32, E, T, N_ALTUP - 1, 1, S(rest, fp));
	return ga_op(g, 0, F32, E, T, N_ALTUP, 1, S(first, tmp));
}

void gr_gemma3n(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, E = d->E, D = d->D, H = d->H, Hkv = d->Hkv;
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	uint32_t n_kv_layers = m->n_layer_all - m->n_kv_shared;
	const struct gguf_tensor *ple = d->w->gg ? gguf_tensor_find(d->w->gg, "per_layer_token_embd.weight") : NULL;
	int64_t NL = n_layer, P = ple && n_layer ? (int64_t)ple->ne[0] / NL : ALTUP_PLE_DEF;
	int rows = gr_input_embd(g, d, in);
	int pl_rows = per_layer_rows(g, d, P, NL);
	/* the stem: the scaled rows, and the 3 streams altup_proj adds,
	 * rescaled to the rows' magnitude */
	int x0 = ga_op(g, 1, F32, E, T, 1, 1, S(rows));
	int rep = ga_op(g, 0, F32, E, T, N_ALTUP - 1, 1, S(x0));
	int added = gr_op_kind(
	    g, ga_op(g, 0, F32, E, T, N_ALTUP - 1, 1, S(gr_weight(g, d, -1, "altup_proj.weight"), rep)), GA_OP_MUL_MAT);
	int tmag = magnitude(g, x0, E, T, 1);
	int mul = ga_op(g, 1, F32, E, T, N_ALTUP - 1, 1, S(added, tmag));
	int nmag = magnitude(g, added, E, T, N_ALTUP - 1);
	mul = ga_op(g, 1, F32, E, T, N_ALTUP - 1, 1, S(mul, nmag));
	int x = ga_op(g, 0, F32, E, T, N_ALTUP, 1, S(x0, mul));
	int pl_all = -1;
	struct tail prev = {-1, -1, -1, -1};
	int prev_o = -1;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int swa = m->kind[il] == LAYER_SWA;
		int has_kv = il < n_kv_layers;
		int kv_il = has_kv ? L : (int)n_kv_layers - (swa ? 2 : 1);
		int *krot, *vrot;
		if (prev.il >= 0) /* the previous layer's tail, from this one's q */
			x = layer_tail(g, d, &prev, prev_o, &pl_all, x0, pl_rows, P, NL);
		int pred = altup_predict(g, d, L, x);
		int active = gr_cview(g, pred, E, T, 1);
		int an = gr_norm(g, d, active, E, T, 1, L, "attn_norm.weight");
		/* the rotation (src0 of q's) is found before the positions */
		gr_rot_inputs(g, d, in, swa, &krot, &vrot);
		int q = gr_mm(g, d, L, "attn_q.weight", an, D * H, T);
		q = gr_norm(g, d, gr_cview(g, q, D, H, T), D, H, T, L, "attn_q_norm.weight");
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
		q = gr_rope(g, q, pos, D, H, T);
		q = gr_rotate(g, q, D * H * T, d->k_rot, krot);
		int k = -1, v = -1;
		if (has_kv) {
			k = gr_mm(g, d, L, "attn_k.weight", an, D * Hkv, T);
			k = gr_norm(g, d, gr_cview(g, k, D, Hkv, T), D, Hkv, T, L, "attn_k_norm.weight");
			k = gr_rope(g, k, pos, D, Hkv, T);
			k = gr_rotate(g, k, D * Hkv * T, d->k_rot, krot);
			v = gr_mm(g, d, L, "attn_v.weight", an, D * Hkv, T);
			v = on_reshape(g, D, Hkv, T, v);
			v = gr_rotate(g, v, D * Hkv * T, d->v_rot, vrot);
		}
		int o = gr_attend_kv(g, d, in, kv_il, q, k, v, swa, d->v_row);
		o = gr_rotate(g, ga_view(g, o), D * H * T, d->v_rot, vrot);
		prev_o = gr_mm(g, d, L, "attn_output.weight", ga_view(g, o), E, T);
		prev = (struct tail){an, active, pred, L};
	}
	x = layer_tail(g, d, &prev, prev_o, &pl_all, x0, pl_rows, P, NL);
	/* the streams merged: the last three unembedded and rescaled to
	 * stream 0's magnitude, averaged with it */
	int alt = gr_cview(g, x, E, T, N_ALTUP - 1);
	int un = gr_op_kind(
	    g, ga_op(g, 0, F32, E, T, N_ALTUP - 1, 1, S(gr_weight(g, d, -1, "altup_unembd_proj.weight"), alt)),
	    GA_OP_MUL_MAT);
	tmag = magnitude(g, gr_cview(g, x, E, T, 1), E, T, 1);
	mul = ga_op(g, 1, F32, E, T, N_ALTUP - 1, 1, S(un, tmag));
	nmag = magnitude(g, un, E, T, N_ALTUP - 1);
	mul = ga_op(g, 1, F32, E, T, N_ALTUP - 1, 1, S(mul, nmag));
	int cur = gr_cview(g, x, E, T, 1);
	for (int i = 0; i < N_ALTUP - 1; i++)
		cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur, gr_cview(g, mul, E, T, 1)));
	cur = ga_op(g, 1, F32, E, T, 1, 1, S(cur));
	int64_t To = d->n_out < T ? d->n_out : T;
	int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
	cur = gr_op_kind(g, ga_op(g, 0, F32, E, To, 1, 1, S(cur, ids)), GA_OP_GET_ROWS);
	int rn = gr_norm(g, d, cur, E, To, 1, -1, "output_norm.weight");
	g->t[rn].output = 1; /* t_embd */
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	/* the final logit soft-capping: scale, tanh, scale */
	for (int i = 0; i < 3; i++)
		out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out));
	g->t[out].output = 1;
}
