/* graph_qwen4: qwen4exp (src/models/qwen4exp.cpp): qwen35moe's hybrid of
 * gated attention and Gated DeltaNet (graph_qwen35.c) with hc parallel
 * residual streams in place of the norms: a mixer before every token
 * mixer, FFN and the LM head, a combine after every block; the n-gram
 * PLE on its layer; QSA attention (an indexer scoring blocks of cells,
 * the mask rebuilt from its top-k cells) on layers with a compress
 * ratio. In-place reuse never crosses a reshape: ggml-alloc owns no
 * view, so a view is passed wherever the engine reshapes. */
#include "graph.h"

#include <stdio.h>

#include "../../payload/ggml_type.h"

/* The hyper-connection weights of one mixer: blk.IL.hc_KIND_* (il < 0:
 * the head's output_hc_*). */
struct hc_w {
	int il;
	const char *kind;
};

static int hc_weight(struct ga_graph *g, const struct dims *d, const struct hc_w *w, const char *part)
{
	char name[48];
	if (w->il < 0)
		snprintf(name, sizeof(name), "output_hc_%s.weight", part);
	else
		snprintf(name, sizeof(name), "hc_%s_%s.weight", w->kind, part);
	return gr_weight(g, d, w->il, name);
}

/* build_hc_mix over the streams x [E, hc, T]: the grouped RMS norm, its
 * low-rank sigmoid gate, the streams' mean (a cont of stream 0, the rest
 * added, scaled). *xn: the normed streams, which the inject reads. */
static int hc_mix(struct ga_graph *g, const struct dims *d, const struct model *m, int x, int64_t T,
		  const struct hc_w *w, int *xn)
{
	int64_t E = d->E, hc = m->hc_mult, W = hc * E, lr = m->hc_low_rank;
	int n = ga_gop(g, ga_op(g, 1, F32, E, hc, T, 1, S(x)), GA_G_RMS_NORM);
	/* through a reshape: a view, never reused in place (ggml-alloc owns
	 * no view) */
	*xn = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(ga_view(g, n), hc_weight(g, d, w, "norm"))), GA_G_MUL);
	int lo = gr_op_kind(g, ga_op(g, 0, F32, lr, T, 1, 1, S(hc_weight(g, d, w, "down"), *xn)), GA_OP_MUL_MAT);
	lo = ga_op(g, 1, F32, lr, T, 1, 1, S(lo));
	lo = ga_gop(g, ga_op(g, 1, F32, lr, T, 1, 1, S(lo)), GA_G_UNARY);
	int gate = gr_op_kind(g, ga_op(g, 0, F32, W, T, 1, 1, S(hc_weight(g, d, w, "up"), lo)), GA_OP_MUL_MAT);
	gate = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(gate)), GA_G_UNARY);
	int gated = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(*xn, gate)), GA_G_MUL);
	int g3 = ga_view(g, gated);
	int mixed = ga_op(g, 0, F32, E, T, 1, 1, S(ga_view(g, g3)));
	for (int64_t c = 1; c < hc && !ga_over(g); c++)
		mixed = ga_gop(g, ga_op(g, 1, F32, E, T, 1, 1, S(mixed, ga_view(g, g3))), GA_G_ADD);
	return ga_op(g, 1, F32, E, T, 1, 1, S(mixed));
}

static int hc_rows(struct ga_graph *g, int x, int64_t ne0, int64_t To, int ids)
{
	return gr_op_kind(g, ga_op(g, 0, F32, ne0, To, 1, 1, S(x, ids)), GA_OP_GET_ROWS);
}

/* build_hc_combine, in the order its add visits it: the block's output
 * blk repeated over the streams, then the inject (the mixer's normed
 * streams xn times hc_KIND_inject, its output rows when ids >= 0),
 * 2 sigmoid(inject / hc), their product added to the residual */
static int hc_combine(struct ga_graph *g, const struct dims *d, const struct model *m, int res, int blk,
		      const struct hc_w *w, int xn, int64_t T, int ids)
{
	int64_t E = d->E, hc = m->hc_mult, To = ids >= 0 ? (int64_t)(g->t[ids].bytes / 4) : T;
	int rep = ga_op(g, 0, F32, E, hc, To, 1, S(ga_view(g, blk)));
	int inj = gr_op_kind(g, ga_op(g, 0, F32, hc, T, 1, 1, S(hc_weight(g, d, w, "inject"), xn)), GA_OP_MUL_MAT);
	if (ids >= 0)
		inj = hc_rows(g, inj, hc, To, ids);
	inj = ga_op(g, 1, F32, hc, To, 1, 1, S(inj));
	inj = ga_gop(g, ga_op(g, 1, F32, hc, To, 1, 1, S(inj)), GA_G_UNARY);
	inj = ga_op(g, 1, F32, hc, To, 1, 1, S(inj));
	int mul = ga_gop(g, ga_op(g, 1, F32, E, hc, To, 1, S(rep, ga_view(g, inj))), GA_G_MUL);
	return ga_gop(g, ga_op(g, 1, F32, E, hc, To, 1, S(res, mul)), GA_G_ADD);
}

/* build_ple's grouped RMS norm (over one stream, the weight over all),
 * each step through a reshape (a view: never reused in place) */
static int ple_norm(struct ga_graph *g, const struct dims *d, int il, int x, int64_t W, int64_t T, const char *w)
{
	int n = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(ga_view(g, x))), GA_G_RMS_NORM);
	return ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(ga_view(g, n), gr_weight(g, d, il, w))), GA_G_MUL);
}

/* build_ple of layer il over the streams *res (made here, where the
 * query's norm visits them, when *res < 0: hc_init over x): the gated
 * n-gram value, its depthwise conv dilated by the n-gram size over the
 * history in the layer's P row (a cont and a copy per rollback slot),
 * both added to the streams. */
static int ple_block(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
		     int emb, int x, int res)
{
	int64_t E = d->E, hc = m->hc_mult, W = hc * E, T = d->T, ns = d->n_seq, Ts = T / ns;
	int64_t kern = m->ple_conv_kernel, dil = m->ple_ngram, hist = (kern - 1) * dil;
	gr_input_once(g, &in->s_copy, (uint64_t)ns * 4);
	int pcache = gr_cache(g, d, il);
	int rows = gr_rs_gather(g, d, in, pcache, hist * W);
	int value = gr_mm(g, d, il, "ple_value.weight", emb, E, T);
	int v3 = ga_op(g, 0, F32, W, T, 1, 1, S(ga_view(g, value)));
	int key = gr_mm(g, d, il, "ple_key.weight", emb, W, T);
	key = ple_norm(g, d, il, key, W, T, "ple_norm_key.weight");
	if (res < 0)
		res = ga_op(g, 0, F32, E, hc, T, 1, S(ga_view(g, x)));
	int query = ple_norm(g, d, il, res, W, T, "ple_norm_query.weight");
	int kq = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(ga_view(g, key), ga_view(g, query))), GA_G_MUL);
	int sc = ga_gop(g, ga_op(g, 0, F32, 1, hc, T, 1, S(kq)), GA_G_SUM_ROWS);
	sc = ga_op(g, 1, F32, 1, hc, T, 1, S(sc));
	int sgn = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(sc)), GA_G_UNARY);
	int mag = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(sc)), GA_G_UNARY);
	mag = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(mag)), GA_G_CLAMP);
	mag = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(mag)), GA_G_SQRT);
	int gate = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(sgn, mag)), GA_G_MUL);
	gate = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(gate)), GA_G_UNARY);
	int gated = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(v3, gate)), GA_G_MUL);
	int nv = ple_norm(g, d, il, ga_view(g, gated), W, T, "ple_norm_conv.weight");
	int conv_in = ga_op(g, 0, F32, hist + Ts, W, ns, 1, S(ga_view(g, rows), ga_view(g, ga_view(g, nv))));
	for (int64_t k = 0; k < d->rs_k; k++) {
		int tail = ga_op(g, 0, F32, hist, W, ns, 1, S(ga_view(g, conv_in)));
		ga_sink_to(g, pcache, S(tail, ga_view(g, pcache)));
	}
	int conv = -1;
	for (int64_t k = 0; k < kern && !ga_over(g); k++) {
		int sh = ga_op(g, 0, F32, W, Ts, ns, 1, S(ga_view(g, ga_view(g, conv_in))));
		int wk = ga_op(g, 0, F32, 1, W, 1, 1, S(ga_view(g, gr_weight(g, d, il, "ple_conv1d.weight"))));
		int term = ga_gop(g, ga_op(g, 1, F32, W, Ts, ns, 1, S(sh, ga_view(g, wk))), GA_G_MUL);
		conv = conv < 0 ? term : ga_gop(g, ga_op(g, 1, F32, W, Ts, ns, 1, S(conv, term)), GA_G_ADD);
	}
	conv = ga_gop(g, ga_op(g, 1, F32, W, Ts, ns, 1, S(conv)), GA_G_UNARY);
	conv = ga_op(g, 0, F32, W, Ts, ns, 1, S(conv));
	int sum = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(gated, ga_view(g, conv))), GA_G_ADD);
	return ga_gop(g, ga_op(g, 1, F32, E, hc, T, 1, S(res, sum)), GA_G_ADD);
}

/* A QSA layer's indexer: its layer, its mixed input, the ratio. */
struct qsa {
	const struct model *m;
	const struct dims *d;
	struct inputs *in;
	int il, cur;
	int64_t r;
};

/* build_qsa_top_k's first expand: the raw indexer keys into the indexer
 * cache (the inputs of a new ratio are new) */
static void qsa_keys(struct ga_graph *g, const struct qsa *q)
{
	const struct dims *d = q->d;
	struct inputs *in = q->in;
	if (in->qsa_ratio != q->r) {
		in->qsa_ratio = (int)q->r;
		in->qsa_kidx = in->qsa_cell_blk = in->qsa_blk_cells = in->qsa_blk_pos = in->qsa_bias = -1;
	}
	int k = gr_mm(g, d, q->il, "indexer.k_proj.weight", q->cur, q->m->indexer_head_size, d->T);
	int kidx = gr_input_once(g, &in->qsa_kidx, (uint64_t)d->T * 8);
	int cache = gr_cache(g, d, q->il);
	ga_sink_to(g, cache, S(ga_view(g, k), kidx, cache));
}

/* The rest of build_qsa_top_k, in the order the mask's set_rows visits
 * it: the block members' keys gathered and mean-pooled, normed and roped
 * at the blocks' positions; the indexer queries; the ReLU scores per
 * head summed, biased per block, expanded to cells, the attention mask
 * added (cast to f32 under flash attention); the top-k cells. */
static int qsa_top_k(struct ga_graph *g, const struct qsa *q)
{
	const struct model *m = q->m;
	const struct dims *d = q->d;
	struct inputs *in = q->in;
	int64_t T = d->T, ns = d->n_stream > 0 ? d->n_stream : 1, Tq = T / ns, n_kv = d->n_kv, r = q->r;
	int64_t D = m->indexer_head_size, H = m->indexer_n_head, nb = (n_kv + r - 1) / r;
	int64_t width = n_kv < (int64_t)m->indexer_top_k + r - 1 ? n_kv : (int64_t)m->indexer_top_k + r - 1;
	const struct ggml_type_info *tk = ggml_type_get(d->k_type);
	uint64_t span = (uint64_t)(n_kv + (ns - 1) * d->kv_size) * ggml_row_bytes(tk, (uint64_t)D);
	int keys = ga_view_n(g, gr_cache(g, d, q->il), span);
	int cells = gr_input_once(g, &in->qsa_blk_cells, (uint64_t)r * nb * ns * 4);
	int mem = gr_op_kind(g, ga_op(g, 0, F32, D, r * nb, ns, 1, S(keys, cells)), GA_OP_GET_ROWS);
	int pooled = -1;
	for (int64_t i = 0; i < r && !ga_over(g); i++) {
		int sl = ga_op(g, 0, F32, D, nb, ns, 1, S(ga_view(g, ga_view(g, mem))));
		pooled = pooled < 0 ? sl : ga_gop(g, ga_op(g, 1, F32, D, nb, ns, 1, S(pooled, sl)), GA_G_ADD);
	}
	pooled = ga_op(g, 1, F32, D, nb, ns, 1, S(pooled));
	pooled = gr_norm(g, d, ga_view(g, pooled), D, nb, ns, q->il, "indexer.k_norm.weight");
	int bpos = gr_input_once(g, &in->qsa_blk_pos, (uint64_t)4 * nb * ns * 4);
	pooled = gr_rope(g, ga_view(g, pooled), bpos, D, nb, ns);
	int iq = gr_mm(g, d, q->il, "indexer.q_proj.weight", q->cur, D * H, T);
	iq = gr_norm(g, d, ga_view(g, iq), D, H, T, q->il, "indexer.q_norm.weight");
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
	iq = gr_rope(g, iq, pos, D, H, T);
	int sc =
	    gr_op_kind(g, ga_op(g, 0, F32, nb, H * Tq, ns, 1, S(ga_view(g, pooled), ga_view(g, iq))), GA_OP_MUL_MAT);
	sc = ga_gop(g, ga_op(g, 1, F32, nb, H * Tq, ns, 1, S(ga_view(g, sc))), GA_G_UNARY);
	int sum = ga_op(g, 0, F32, nb, Tq, ns, 1, S(ga_view(g, sc)));
	for (int64_t h = 1; h < H && !ga_over(g); h++)
		sum = ga_gop(g, ga_op(g, 1, F32, nb, Tq, ns, 1, S(sum, ga_view(g, sc))), GA_G_ADD);
	int bias = gr_input_once(g, &in->qsa_bias, (uint64_t)nb * Tq * ns * 4);
	sum = ga_gop(g, ga_op(g, 1, F32, nb, Tq, ns, 1, S(sum, bias)), GA_G_ADD);
	int tr = ga_op(g, 0, F32, Tq, nb, ns, 1, S(ga_view(g, sum)));
	int cb = gr_input_once(g, &in->qsa_cell_blk, (uint64_t)n_kv * ns * 4);
	int ex = gr_op_kind(g, ga_op(g, 0, F32, Tq, n_kv, ns, 1, S(tr, cb)), GA_OP_GET_ROWS);
	ex = ga_op(g, 0, F32, n_kv, Tq, ns, 1, S(ga_view(g, ex)));
	int mask = gr_input_once(g, &in->mask, (uint64_t)n_kv * T * (d->fa ? 2 : 4));
	if (d->fa)
		mask = ga_op(g, 0, F32, n_kv, Tq, 1, ns, S(mask));
	ex = ga_gop(g, ga_op(g, 1, F32, n_kv, Tq, ns, 1, S(ex, ga_view(g, mask))), GA_G_ADD);
	int top = ga_gop(g, ga_op(g, 0, I32, width, Tq, ns, 1, S(ex)), GA_G_ARGSORT);
	return ga_op(g, 0, I32, width, Tq, ns, 1, S(top));
}

/* build_attn_qsa's mask, where the attention visits it: set_rows' zeros
 * (a leaf filled in place), the top-k cells, the mask filled with -inf;
 * the mask added to it (a view: never reused in place) */
static int qsa_mask(struct ga_graph *g, void *ctx)
{
	const struct qsa *q = ctx;
	const struct dims *d = q->d;
	int64_t T = d->T, ns = d->n_stream > 0 ? d->n_stream : 1, Tq = T / ns, n_kv = d->n_kv;
	int64_t r = q->r, top_k = (int64_t)q->m->indexer_top_k;
	int64_t k = n_kv < top_k + r - 1 ? n_kv : top_k + r - 1;
	uint8_t mt = d->fa ? F16 : F32;
	int zeros = gr_topk_zeros(g, k, Tq, ns);
	int top = ga_view(g, qsa_top_k(g, q));
	int mask = gr_input_once(g, &q->in->mask, (uint64_t)n_kv * T * (d->fa ? 2 : 4));
	int all = ga_op(g, 1, mt, n_kv, Tq, 1, ns, S(mask));
	int set = ga_sink_to(g, all, S(zeros, top, ga_view(g, all)));
	return ga_op(g, 1, mt, n_kv, Tq, 1, ns, S(ga_view_n(g, set, g->t[all].bytes), mask));
}

/* One layer over the streams res: the mixer, the token mixer, the
 * combine; the mixer, the FFN, the combine. The last layer keeps the
 * output rows, visited as the combine's add reaches them: the
 * residual's, then the block's (the attention's gate and output between:
 * build_attn_mha expands the attention itself first), then the
 * inject's. */
static int qwen4_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
		       int res, int last)
{
	int64_t T = d->T, To = last && d->n_out < T ? d->n_out : T;
	struct hc_w wa = {il, "attn"}, wf = {il, "ffn"};
	int xn, ids = -1, blk = -1;
	struct gr_q35_attn a;
	int cur = hc_mix(g, d, m, res, T, &wa, &xn);
	struct qsa q = {m, d, in, il, cur, m->compress_ratio && m->indexer_head_size ? m->compress_ratio[il] : 0};
	struct gr_mask_fn qm = {qsa_mask, &q};
	if (m->kind[il] == LAYER_RECURRENT) {
		blk = ga_view(g, gr_qwen35_deltanet(g, d, in, il, cur, 1));
	} else {
		if (q.r > 0)
			qsa_keys(g, &q);
		gr_qwen35_attn_in(g, d, in, il, cur, m->kind[il] == LAYER_SWA, &a);
		if (q.r > 0)
			a.mask = &qm;
		gr_qwen35_attn_core(g, d, in, &a);
	}
	if (last) {
		ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
		res = ga_view(g, hc_rows(g, ga_view(g, res), d->E * m->hc_mult, To, ids));
	}
	if (blk < 0)
		blk = gr_qwen35_attn_out(g, d, in, il, &a);
	if (last)
		blk = hc_rows(g, blk, d->E, To, ids);
	res = hc_combine(g, d, m, res, blk, &wa, xn, T, ids);
	cur = hc_mix(g, d, m, res, To, &wf, &xn);
	int ffn = gr_qwen35moe_ffn(g, m, d, il, cur, To);
	return hc_combine(g, d, m, res, ffn, &wf, xn, To, -1);
}

void gr_qwen4exp(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, To = d->n_out < T ? d->n_out : T;
	int x = gr_input_embd(g, d, in), emb = -1, res = -1;
	if (m->ple_layer >= 0) { /* build_inp_ple: its rows' gather, expanded at once */
		int rows = ga_input(g, (uint64_t)m->ple_n_heads * T * 4);
		int tab = gr_named_weight(g, d, "per_layer_token_embd.weight", -1);
		emb = gr_op_kind(g, ga_op(g, 0, F32, m->ple_head_dim, m->ple_n_heads * T, 1, 1, S(tab, rows)),
				 GA_OP_GET_ROWS);
		emb = ga_view(g, emb);
	}
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		if ((int32_t)il == m->ple_layer)
			res = ple_block(g, m, d, in, (int)il, emb, x, res);
		if (res < 0) /* hc_init: hc copies of the embedding */
			res = ga_op(g, 0, F32, d->E, m->hc_mult, T, 1, S(ga_view(g, x)));
		res = qwen4_layer(g, m, d, in, (int)il, res, il == n_layer - 1);
	}
	struct hc_w wh = {-1, NULL};
	int xn;
	int h = hc_mix(g, d, m, res, To, &wh, &xn);
	g->t[h].output = 1; /* t_embd */
	int out = gr_mm(g, d, -1, "output.weight", h, d->V, To);
	g->t[out].output = 1;
}
