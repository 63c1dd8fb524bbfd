/* graph_qwen4: qwen4exp (src/models/qwen4exp.cpp): qwen35moe's hybrid of
 * gated attention and Gated DeltaNet (graph_qwen35.c) with hc parallel
 * residual streams in place of the norms: a mixer before every token
 * mixer, FFN and the LM head, a combine after every block. Mirrored for
 * dense attention without the n-gram PLE; the PLE and QSA are priced
 * with these nodes only, and compute.c names them unmirrored. */
#include "graph.h"

#include <stdio.h>

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
	/* the reshape's only consumer takes the norm's memory */
	*xn = ga_gop(g, ga_op(g, 1, F32, E, hc, T, 1, S(n, hc_weight(g, d, w, "norm"))), GA_G_MUL);
	int lo = gr_op_kind(g, ga_op(g, 0, F32, lr, T, 1, 1, S(hc_weight(g, d, w, "down"), *xn)), GA_OP_MUL_MAT);
	lo = ga_op(g, 1, F32, lr, T, 1, 1, S(lo));
	lo = ga_gop(g, ga_op(g, 1, F32, lr, T, 1, 1, S(lo)), GA_G_UNARY);
	int gate = gr_op_kind(g, ga_op(g, 0, F32, W, T, 1, 1, S(hc_weight(g, d, w, "up"), lo)), GA_OP_MUL_MAT);
	gate = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(gate)), GA_G_UNARY);
	int gated = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(*xn, gate)), GA_G_MUL);
	int g3 = ga_view(g, gated);
	int mixed = ga_op(g, 0, F32, E, T, 1, 1, S(ga_view(g, g3)));
	for (int64_t c = 1; c < hc; c++)
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

/* build_ple's grouped RMS norm (over one stream, the weight over all):
 * the norm takes its input's memory when it is x's only consumer */
static int ple_norm(struct ga_graph *g, const struct dims *d, int il, int x, int64_t W, int64_t T, const char *w)
{
	int n = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(x)), GA_G_RMS_NORM);
	return ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(n, gr_weight(g, d, il, w))), GA_G_MUL);
}

/* build_ple of layer il over the streams *res (made here, where the
 * query's norm visits them, when *res < 0: hc_init over x): the gated
 * n-gram value, its depthwise conv dilated by the n-gram size over the
 * history in the layer's P row (a cont and a copy per rollback slot),
 * both added to the streams. The [E, hc, T] tensors are laid [W, T]
 * where the engine reuses their memory through a reshape. */
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
	int query = ple_norm(g, d, il, ga_view(g, res), W, T, "ple_norm_query.weight");
	int kq = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(key, ga_view(g, query))), GA_G_MUL);
	int sc = ga_gop(g, ga_op(g, 0, F32, 1, hc, T, 1, S(kq)), GA_G_SUM_ROWS);
	sc = ga_op(g, 1, F32, 1, hc, T, 1, S(sc));
	int sgn = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(sc)), GA_G_UNARY);
	int mag = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(sc)), GA_G_UNARY);
	mag = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(mag)), GA_G_CLAMP);
	mag = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(mag)), GA_G_SQRT);
	int gate = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(sgn, mag)), GA_G_MUL);
	gate = ga_gop(g, ga_op(g, 1, F32, 1, hc, T, 1, S(gate)), GA_G_UNARY);
	int gated = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(v3, gate)), GA_G_MUL);
	int nv = ple_norm(g, d, il, ga_view(g, ga_view(g, gated)), W, T, "ple_norm_conv.weight");
	int conv_in = ga_op(g, 0, F32, hist + Ts, W, ns, 1, S(ga_view(g, rows), ga_view(g, ga_view(g, nv))));
	for (int64_t k = 0; k < d->rs_k; k++) {
		int tail = ga_op(g, 0, F32, hist, W, ns, 1, S(ga_view(g, conv_in)));
		ga_sink_to(g, pcache, S(tail, ga_view(g, pcache)));
	}
	int conv = -1;
	for (int64_t k = 0; k < kern; k++) {
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

/* One layer over the streams res: the mixer, the token mixer, the
 * combine; the mixer, the FFN, the combine. The last layer keeps the
 * output rows, visited as the combine's add reaches them: the
 * residual's, then the block's (its attention's tail between), then the
 * inject's. */
static int qwen4_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
		       int res, int last)
{
	int64_t T = d->T, To = last && d->n_out < T ? d->n_out : T;
	struct hc_w wa = {il, "attn"}, wf = {il, "ffn"};
	int xn, ids = -1, blk = -1;
	struct gr_q35_attn a;
	int cur = hc_mix(g, d, m, res, T, &wa, &xn);
	if (m->kind[il] == LAYER_RECURRENT)
		blk = ga_view(g, gr_qwen35_deltanet(g, d, in, il, cur, 1));
	else
		gr_qwen35_attn_in(g, d, in, il, cur, m->kind[il] == LAYER_SWA, &a);
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

/* What of qwen4exp's graph this builder does not replay yet, or NULL:
 * the n-gram PLE (a PLE layer) and QSA attention (an indexer cache and a
 * compress ratio on some layer). */
const char *gr_qwen4exp_unmirrored(const struct model *m)
{
	int qsa = 0;
	for (uint32_t il = 0; m->compress && m->indexer_head_size && il < m->n_layer_all; il++)
		qsa |= m->compress[il] > 0 && m->kind[il] != LAYER_RECURRENT;
	if (qsa)
		return "QSA attention (estimated as dense attention)";
	return NULL;
}
