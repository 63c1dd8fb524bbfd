/* graph_deepseek4: DeepSeek-V4 (src/models/deepseek4.cpp) over its memory
 * (src/llama-kv-cache-dsv4.cpp) and its inputs (llm_graph_input_dsv4 in
 * src/llama-graph.cpp, sized for a reserve by dsv4_build_reserve_comp_plan).
 *
 * Four hyper-connection streams carry the residual ([E, 4, T]); each half
 * layer mixes them (rms_norm, hc_fn, the fused ggml_dsv4_hc_pre and
 * ggml_dsv4_hc_comb the CPU takes) and writes them back (ggml_dsv4_hc_post).
 * A layer attends with one K-only head over its raw window cache; a CSA
 * layer (ratio 4) also over its compressed cache, masked to the lightning
 * indexer's top-k cells, an HCA layer (ratio 128) over its compressed cache
 * whole. Each compressed layer first folds the ubatch's rows and its
 * compressor state into compressed rows (a softmax-weighted sum per block,
 * overlapped for ratio 4), normed and roped, into its cache, and keeps the
 * last rows as the state. The attention's output is unroped (rope_back) and
 * projected by a grouped low-rank wo_a, then wo_b. The FFN: sqrt-softplus
 * experts (hash-routed by token on the first hash layers: the chosen
 * experts are given), a swiglu_clamp, beside a shared expert. The output
 * head mixes the streams unfused (il = -1).
 *
 * Nodes are made in the order ggml_build_forward_expand visits them: a
 * compressed layer's first expand is its cache store, so its compressor
 * comes before q; the attention's output, the streams' post and comb are
 * visited at the residual's expand, the routing at build_moe_ffn's expand
 * of the weights, the experts at the next layer's first expand.
 */
#include "graph.h"

#include <stdio.h>
#include <string.h>

#include "../../payload/ggml_type.h"
#include "../device.h"

#define DS4_HC 4

/* The graph's dsv4 inputs: one set per compressor (csa, hca, lid) */
struct ds4_comp_in {
	int pos, persist_src, persist_dst, read, write_idx, write_pos, mask, k_rot;
};

struct ds4 {
	int64_t T, ns, Tq, seqs;  /* tokens, graph streams, tokens per stream, state streams */
	int64_t n_raw, raw_size;  /* the raw window cache's cells (per stream) */
	int64_t n_csa, n_hca;	  /* the compressed caches' cells */
	int64_t G, o_lora, D_idx; /* output groups, their rank, the indexer's key */
	uint64_t k_row;		  /* a raw or compressed cache row of key_length */
	int raw_mask, k_idx, raw_rot, tokens;
	struct ds4_comp_in ci[3]; /* 0 csa, 1 hca, 2 lid */
};

static int64_t comp_cells(int64_t n_ctx_seq, int64_t ratio)
{
	int64_t c = (n_ctx_seq + ratio - 1) / ratio;
	c = c ? c : 1;
	return (c + 255) / 256 * 256;
}

/* build_hc_pre's mixing up to the fused ggml_dsv4_hc_pre: rms_norm of the
 * flattened streams, the mixes, pre = sigmoid(mixes * scale + base) + eps;
 * *mixes returned for post and comb. */
static int hc_pre(struct ga_graph *g, const struct dims *d, const struct ds4 *s, int il, int x, const char *half,
		  int *mixes)
{
	char w[40];
	int64_t T = s->T, E = d->E;
	int fl = ga_gop(g, ga_op(g, 1, F32, DS4_HC * E, T, 1, 1, S(ga_view(g, x))), GA_G_RMS_NORM);
	snprintf(w, sizeof(w), "%s_fn.weight", half);
	*mixes = gr_mm(g, d, il, w, fl, (2 + DS4_HC) * DS4_HC, T);
	snprintf(w, sizeof(w), "%s_scale.weight", half);
	int scale = gr_weight(g, d, il, w);
	snprintf(w, sizeof(w), "%s_base.weight", half);
	int base = gr_weight(g, d, il, w);
	int p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(ga_view(g, *mixes), ga_view(g, scale))), GA_G_MUL);
	p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(p, ga_view(g, base))), GA_G_ADD);
	p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(p)), GA_G_UNARY);
	p = ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(p));
	return ga_op(g, 0, F32, E, T, 1, 1, S(x, p));
}

/* post = 2 sigmoid(mixes * scale + base), then the fused comb; returns
 * hc_post of x over the residual res. */
static int hc_post(struct ga_graph *g, const struct dims *d, const struct ds4 *s, int il, int x, int res, int mixes,
		   const char *half, int *post_out, int *comb_out)
{
	char w[40];
	int64_t T = s->T;
	int post = post_out ? *post_out : -1, comb = comb_out ? *comb_out : -1;
	if (post < 0) {
		snprintf(w, sizeof(w), "%s_scale.weight", half);
		int scale = gr_weight(g, d, il, w);
		snprintf(w, sizeof(w), "%s_base.weight", half);
		int base = gr_weight(g, d, il, w);
		post = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(ga_view(g, mixes), ga_view(g, scale))), GA_G_MUL);
		post = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(post, ga_view(g, base))), GA_G_ADD);
		post = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(post)), GA_G_UNARY);
		post = ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(post));
		comb = ga_op(g, 0, F32, DS4_HC, DS4_HC, T, 1, S(mixes, scale, base));
	}
	if (post_out) {
		*post_out = post;
		*comb_out = comb;
	}
	if (x < 0)
		return -1;
	return ga_op(g, 0, F32, d->E, DS4_HC, T, 1, S(x, res, post, comb));
}

/* The compressed rows of one compressor: the state's rows beside the
 * ubatch's (overlap: each block's previous rows too, a zero / -inf row
 * appended), a softmax over each block's rows, their weighted sum, normed
 * and roped; then stored into the cache (rotated where it has a rotation),
 * and the ubatch's last rows persisted into the state. */
struct comp_spec {
	const char *pre; /* attn_compressor or indexer_compressor */
	int64_t D, ratio, rows;
	int overlap;
	int64_t rot; /* the cache's rotation size, 0 none */
	int which;
};

static int comp_source(struct ga_graph *g, const struct dims *d, const struct ds4 *s, int il, int an,
		       const struct comp_spec *c, struct ds4_comp_in *ci, int score, int *state)
{
	char w[64];
	int64_t W = c->overlap ? 2 * c->D : c->D, T = s->T, n_rows = c->rows * s->seqs;
	snprintf(w, sizeof(w), "%s_%s.weight", c->pre, score ? "gate" : "kv");
	int st = gr_mm(g, d, il, w, an, W, T);
	if (score) {
		snprintf(w, sizeof(w), "%s_ape.weight", c->pre);
		int pos = gr_input_once(g, &ci->pos, (uint64_t)T * 4);
		int ape = gr_op_kind(g, ga_op(g, 0, F32, W, T, 1, 1, S(gr_weight(g, d, il, w), pos)), GA_OP_GET_ROWS);
		st = ga_gop(g, ga_op(g, 1, F32, W, T, 1, 1, S(st, ape)), GA_G_ADD);
	}
	*state = st;
	/* the state's first n_rows rows (a view of the state: what a copy of
	 * it to another backend allocates) */
	int base = ga_view_n(g, gr_cache(g, d, il), (uint64_t)W * n_rows * 4);
	int src = ga_op(g, 0, F32, W, n_rows + T, 1, 1, S(base, st));
	if (!c->overlap)
		return src;
	int row = ga_op(g, 1, F32, W, 1, 1, 1, S(ga_view_n(g, src, (uint64_t)W * 4)));
	return ga_op(g, 0, F32, W, n_rows + T + 1, 1, 1, S(src, ga_view(g, row)));
}

static int comp_blocks(struct ga_graph *g, const struct comp_spec *c, struct ds4_comp_in *ci, int src, int64_t nb)
{
	int64_t W = c->overlap ? 2 * c->D : c->D, n_read = (c->overlap ? 2 : 1) * c->ratio * nb;
	int read = gr_input_once(g, &ci->read, (uint64_t)n_read * 4);
	int rows = gr_op_kind(g, ga_op(g, 0, F32, W, n_read, 1, 1, S(src, read)), GA_OP_GET_ROWS);
	if (!c->overlap)
		return ga_op(g, 0, F32, c->ratio, c->D, nb, 1, S(ga_view(g, rows)));
	int prev = ga_op(g, 0, F32, c->D, c->ratio * nb, 1, 1, S(ga_view(g, rows)));
	int cur = ga_op(g, 0, F32, c->D, c->ratio * nb, 1, 1, S(ga_view(g, rows)));
	int cat = ga_op(g, 0, F32, c->D, 2 * c->ratio, nb, 1, S(ga_view(g, prev), ga_view(g, cur)));
	return ga_op(g, 0, F32, 2 * c->ratio, c->D, nb, 1, S(ga_view(g, cat)));
}

static void compressor(struct ga_graph *g, const struct dims *d, struct ds4 *s, int il, int an,
		       const struct comp_spec *c)
{
	struct ds4_comp_in *ci = &s->ci[c->which];
	int64_t T = s->T, nb = T / c->ratio + s->ns, W = c->overlap ? 2 * c->D : c->D;
	int64_t n = c->overlap ? 2 * c->ratio : c->ratio;
	int kv_state, score_state;
	int kv_src = comp_source(g, d, s, il, an, c, ci, 0, &kv_state);
	int values = comp_blocks(g, c, ci, kv_src, nb);
	int sc_src = comp_source(g, d, s, il, an, c, ci, 1, &score_state);
	int scores = comp_blocks(g, c, ci, sc_src, nb);
	int wts = ga_gop(g, ga_op(g, 1, F32, n, c->D, nb, 1, S(scores)), GA_G_SOFT_MAX);
	int comp = ga_gop(g, ga_op(g, 1, F32, n, c->D, nb, 1, S(values, wts)), GA_G_MUL);
	comp = ga_gop(g, ga_op(g, 0, F32, 1, c->D, nb, 1, S(comp)), GA_G_SUM_ROWS);
	comp = ga_op(g, 0, F32, c->D, 1, nb, 1, S(ga_view(g, comp)));
	char w[64];
	snprintf(w, sizeof(w), "%s_norm.weight", c->pre);
	comp = gr_norm(g, d, comp, c->D, 1, nb, il, w);
	int wpos = gr_input_once(g, &ci->write_pos, (uint64_t)nb * 4);
	comp = gr_rope(g, comp, wpos, c->D, 1, nb);
	comp = gr_rotate(g, comp, c->D * nb, c->rot, &ci->k_rot);
	int widx = gr_input_once(g, &ci->write_idx, (uint64_t)nb * 8);
	int cache = gr_cache(g, d, il);
	ga_sink_to(g, cache, S(ga_view(g, comp), widx, cache));
	/* the persisted rows: the ubatch's last state_size rows per stream */
	int64_t n_persist = T < c->rows * s->seqs ? T : c->rows * s->seqs;
	int states[2] = {kv_state, score_state};
	for (int i = 0; i < 2; i++) {
		int psrc = gr_input_once(g, &ci->persist_src, (uint64_t)n_persist * 4);
		int rows = gr_op_kind(g, ga_op(g, 0, F32, W, n_persist, 1, 1, S(states[i], psrc)), GA_OP_GET_ROWS);
		int pdst = gr_input_once(g, &ci->persist_dst, (uint64_t)n_persist * 4);
		int st = gr_cache(g, d, il);
		ga_sink_to(g, st, S(rows, pdst, st));
	}
}

/* q (heads of key_length, normed, roped, rotated with a quantized raw
 * cache) and kv (one head, normed, roped, rotated), expanded in turn; kv
 * stored into the raw cache. *qr: the normed q latent (the indexer's). */
static int ds4_qkv(struct ga_graph *g, const struct model *m, const struct dims *d, struct ds4 *s, struct inputs *in,
		   int il, int an, int *qr)
{
	int64_t T = s->T, D = d->D, H = d->H;
	int r = gr_mm(g, d, il, "attn_q_a.weight", an, m->q_lora_rank, T);
	*qr = gr_norm(g, d, r, m->q_lora_rank, T, 1, il, "attn_q_a_norm.weight");
	int q = gr_mm(g, d, il, "attn_q_b.weight", *qr, H * D, T);
	q = ga_gop(g, ga_op(g, 1, F32, D, H, T, 1, S(ga_view(g, q))), GA_G_RMS_NORM);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	q = gr_rope(g, q, pos, D, H, T);
	q = gr_rotate(g, q, D * H * T, d->k_rot, &s->raw_rot);
	int kv = gr_mm(g, d, il, "attn_kv.weight", an, D, T);
	kv = gr_norm(g, d, kv, D, T, 1, il, "attn_kv_a_norm.weight");
	kv = gr_rope(g, ga_view(g, kv), pos, D, 1, T);
	kv = gr_rotate(g, kv, D * T, d->k_rot, &s->raw_rot);
	int kidx = gr_input_once(g, &s->k_idx, (uint64_t)T * 8);
	int cache = gr_cache(g, d, il);
	ga_sink_to(g, cache, S(ga_view(g, kv), kidx, cache));
	return q;
}

/* build_lid_top_k: the indexer's q from qr (roped, rotated), its heads'
 * weights from an (scaled), the fused lightning indexer over the lid
 * cache under its mask (f16: fused_lid), the top-k cells, made
 * contiguous. */
static int lid_top_k(struct ga_graph *g, const struct model *m, const struct dims *d, struct ds4 *s, struct inputs *in,
		     int il, int an, int qr, int64_t k)
{
	int64_t T = s->T, Hi = m->indexer_n_head, Di = s->D_idx, n_lid = s->n_csa;
	struct ds4_comp_in *ci = &s->ci[2];
	int q = gr_mm(g, d, il, "indexer.attn_q_b.weight", qr, Hi * Di, T);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	q = gr_rope(g, ga_view(g, q), pos, Di, Hi, T);
	q = gr_rotate(g, q, Di * Hi * T, Di, &ci->k_rot);
	int w = gr_mm(g, d, il, "indexer.proj.weight", an, Hi, T);
	w = ga_op(g, 1, F32, Hi, T, 1, 1, S(w));
	int keys = ga_view_n(g, gr_cache(g, d, il),
			     (uint64_t)(n_lid * s->ns) * ggml_row_bytes(ggml_type_get(d->k_type), (uint64_t)Di));
	int mask = gr_input_once(g, &ci->mask, (uint64_t)n_lid * T * 2);
	int score = ga_op(g, 0, F32, n_lid, s->Tq, 1, s->ns, S(ga_view(g, q), keys, ga_view(g, w), mask));
	int top = ga_op(g, 0, I32, k, s->Tq, 1, s->ns, S(score));
	return ga_op(g, 0, I32, k, s->Tq, 1, s->ns, S(top));
}

/* build_top_k_mask over the CSA mask: filled with -inf, the top-k cells
 * set to zero (set_rows of a zero-filled leaf), the mask added; in the
 * order set_rows' sources are visited (the zeros, the cells, the filled
 * mask). */
static int csa_mask(struct ga_graph *g, const struct model *m, const struct dims *d, struct ds4 *s, struct inputs *in,
		    int il, int an, int qr)
{
	int64_t n = s->n_csa, k = n < (int64_t)m->indexer_top_k ? n : (int64_t)m->indexer_top_k;
	uint8_t mt = d->fa ? F16 : F32;
	int z = gr_input_nd(g, 1, mt, 1, k, s->Tq, s->ns);
	int zeros = ga_op(g, 1, mt, 1, k, s->Tq, s->ns, S(z));
	int top = lid_top_k(g, m, d, s, in, il, an, qr, k);
	int mask = gr_input_once(g, &s->ci[0].mask, (uint64_t)n * s->T * (d->fa ? 2 : 4));
	int all = ga_op(g, 1, mt, n, s->Tq, 1, s->ns, S(mask));
	int set = ga_sink_to(g, all, S(zeros, ga_view(g, top), ga_view(g, all)));
	return ga_op(g, 1, mt, n, s->Tq, 1, s->ns, S(ga_view_n(g, set, g->t[all].bytes), mask));
}

/* the attention over the raw cache (with a compressed layer's cache
 * concatenated, its mask beside the raw one), with the sinks: flash
 * attention, or the softmax over K*Q and V = cont(K^T); in the order the
 * op's sources are visited */
static int ds4_attend(struct ga_graph *g, const struct model *m, const struct dims *d, struct ds4 *s, struct inputs *in,
		      int il, int q, int an, int qr)
{
	int64_t D = d->D, H = d->H, ns = s->ns, Tq = s->Tq, T = s->T;
	uint32_t ratio = m->compress_ratio[il];
	int64_t n_comp = ratio == 4 ? s->n_csa : ratio == 128 ? s->n_hca : 0, n_all = s->n_raw + n_comp;
	uint8_t mt = d->fa ? F16 : F32;
	uint64_t row = s->k_row;
	int k = ga_view_n(g, gr_cache(g, d, il), (uint64_t)(s->n_raw + (ns - 1) * s->raw_size) * row);
	if (n_comp) {
		int comp = ga_view_n(g, gr_cache(g, d, il), (uint64_t)(n_comp * ns) * row);
		k = ga_op(g, 0, F16, D, 1, n_all, ns, S(k, comp));
		g->t[k].bytes = row * (uint64_t)n_all * ns;
	}
	int v = -1, kq = -1;
	if (!d->fa) {
		v = ga_op(g, 0, F16, n_all, D, 1, ns, S(ga_view(g, k)));
		g->t[v].bytes = row * (uint64_t)n_all * ns;
		kq = gr_op_kind(g, ga_op(g, 0, F32, n_all, Tq, H, ns, S(ga_view(g, k), ga_view(g, q))), GA_OP_MUL_MAT);
	}
	int mask = s->raw_mask;
	if (n_comp) {
		int cm = ratio == 4 ? csa_mask(g, m, d, s, in, il, an, qr)
				    : gr_input_once(g, &s->ci[1].mask, (uint64_t)n_comp * T * (d->fa ? 2 : 4));
		mask = ga_op(g, 0, mt, n_all, Tq, 1, ns, S(mask, cm));
	}
	int sinks = gr_weight(g, d, il, "attn_sinks.weight");
	int o;
	if (d->fa) {
		o = gr_op_kind(
		    g, ga_op(g, 0, F32, D, H, Tq, ns, S(ga_view(g, q), ga_view(g, k), ga_view(g, k), mask, sinks)),
		    GA_OP_FA);
		struct ga_fa *fa = &g->t[o].fa;
		fa->k_type = fa->v_type = d->k_type;
		fa->dk = fa->dv = D;
		fa->n_kv = n_all;
		fa->hkv = 1;
		fa->h = H;
		fa->n_stream = ns;
		fa->q_tok = Tq;
		fa->mask = 1;
		fa->v_is_k = 1;
	} else {
		int sm = ga_gop(g, ga_op(g, 1, F32, n_all, Tq, H, ns, S(kq, mask, sinks)), GA_G_SOFT_MAX);
		int kqv = gr_op_kind(g, ga_op(g, 0, F32, D, Tq, H, ns, S(v, sm)), GA_OP_MUL_MAT);
		o = ga_op(g, 0, F32, D, H, Tq, ns, S(ga_view(g, kqv)));
	}
	return gr_rotate(g, ga_view(g, o), D * H * T, d->k_rot, &s->raw_rot);
}

static const struct comp_spec *comp_of(const struct model *m, const struct dims *d, int which, struct comp_spec *c)
{
	c->which = which;
	c->overlap = which != 1;
	c->ratio = which == 1 ? 128 : 4;
	c->rows = which == 1 ? 128 : 8;
	c->pre = which == 2 ? "indexer_compressor" : "attn_compressor";
	c->D = which == 2 ? (int64_t)m->indexer_head_size : d->D;
	c->rot = which == 2 ? c->D : d->k_rot;
	return c;
}

/* build_attention_impl: a compressed layer's compressors (CSA: its own,
 * then the indexer's), q and kv, the attention, the inverse RoPE, the
 * grouped wo_a (a matmul per group over the permuted heads), wo_b */
static int ds4_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct ds4 *s,
			 struct inputs *in, int il, int an)
{
	int64_t T = s->T, D = d->D, H = d->H, G = s->G;
	uint32_t ratio = m->compress_ratio[il];
	struct comp_spec c;
	if (ratio == 4) {
		compressor(g, d, s, il, an, comp_of(m, d, 0, &c));
		compressor(g, d, s, il, an, comp_of(m, d, 2, &c));
	} else if (ratio == 128) {
		compressor(g, d, s, il, an, comp_of(m, d, 1, &c));
	}
	int qr;
	int q = ds4_qkv(g, m, d, s, in, il, an, &qr);
	int o = ds4_attend(g, m, d, s, in, il, q, an, qr);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	o = ga_op(g, 1, F32, D, H, T, 1, S(ga_view(g, o), pos));
	int oa = gr_op_kind(
	    g, ga_op(g, 0, F32, s->o_lora, T, G, 1, S(gr_weight(g, d, il, "attn_output_a.weight"), ga_view(g, o))),
	    GA_OP_MUL_MAT);
	oa = ga_op(g, 0, F32, s->o_lora * G, T, 1, 1, S(ga_view(g, oa)));
	return gr_mm(g, d, il, "attn_output_b.weight", oa, d->E, T);
}

/* build_moe_ffn's routing: sqrt(softplus(logits)); the chosen experts
 * given by the token (hash layers: ffn_gate_tid2eid's rows) or the top k
 * of the biased probabilities; their weights normalised and scaled */
static void ds4_route(struct ga_graph *g, const struct model *m, const struct dims *d, struct ds4 *s, int il, int x,
		      struct gr_moe_routed *r)
{
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.gating = 4;
	o.scale = 1;
	if (!gr_has_tensor(d, il, "ffn_gate_tid2eid.weight")) {
		o.probs_b = 1;
		gr_moe_route(g, d, il, x, s->T, &o, r);
		return;
	}
	int64_t ne = d->n_expert, k = d->n_expert_used, T = s->T;
	int logits = gr_mm(g, d, il, "ffn_gate_inp.weight", x, ne, T);
	int probs =
	    ga_gop(g, ga_op(g, 1, F32, ne, T, 1, 1, S(ga_gop(g, ga_op(g, 1, F32, ne, T, 1, 1, S(logits)), GA_G_UNARY))),
		   GA_G_SQRT);
	int sel =
	    gr_op_kind(g, ga_op(g, 0, I32, k, T, 1, 1, S(gr_weight(g, d, il, "ffn_gate_tid2eid.weight"), s->tokens)),
		       GA_OP_GET_ROWS);
	int w = gr_op_kind(g, ga_op(g, 0, F32, 1, k, T, 1, S(ga_view(g, probs), sel)), GA_OP_GET_ROWS);
	if (o.norm_w)
		w = gr_moe_norm_w(g, w, k, T);
	w = ga_op(g, 1, F32, 1, k, T, 1, S(w));
	r->w = w;
	r->sel = sel;
	r->chexps = 0;
}

static int ds4_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct ds4 *s, struct inputs *in,
		     int il, int x)
{
	int64_t T = s->T;
	int mixes;
	int cur = hc_pre(g, d, s, il, x, "hc_attn", &mixes);
	int an = gr_norm(g, d, cur, d->E, T, 1, il, "attn_norm.weight");
	int att = ds4_attention(g, m, d, s, in, il, an);
	int post = -1, comb = -1;
	int x2 = hc_post(g, d, s, il, att, x, mixes, "hc_attn", &post, &comb);
	/* the FFN half's expands: the residual (done), its post and comb */
	int fl = ga_gop(g, ga_op(g, 1, F32, DS4_HC * d->E, T, 1, 1, S(ga_view(g, x2))), GA_G_RMS_NORM);
	int fmix = gr_mm(g, d, il, "hc_ffn_fn.weight", fl, (2 + DS4_HC) * DS4_HC, T);
	int fpost = -1, fcomb = -1;
	hc_post(g, d, s, il, -1, -1, fmix, "hc_ffn", &fpost, &fcomb);
	int scale = gr_weight(g, d, il, "hc_ffn_scale.weight"), base = gr_weight(g, d, il, "hc_ffn_base.weight");
	int p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(ga_view(g, fmix), ga_view(g, scale))), GA_G_MUL);
	p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(p, ga_view(g, base))), GA_G_ADD);
	p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(p)), GA_G_UNARY);
	p = ga_op(g, 1, F32, DS4_HC, T, 1, 1, S(p));
	cur = ga_op(g, 0, F32, d->E, T, 1, 1, S(x2, p));
	int fn = gr_norm(g, d, cur, d->E, T, 1, il, "ffn_norm.weight");
	struct gr_moe_routed r;
	ds4_route(g, m, d, s, il, fn, &r);
	int moe = gr_moe_experts(g, d, il, fn, T, &r, 0);
	int sh = gr_ffn_shexp(g, d, il, fn, T, (int64_t)d->F_exp * (m->n_expert_shared ? m->n_expert_shared : 1));
	int out = ga_gop(g, ga_op(g, 1, F32, d->E, T, 1, 1, S(moe, sh)), GA_G_ADD);
	out = ga_op(g, 0, F32, d->E, DS4_HC, T, 1, S(out, x2, fpost, fcomb));
	if (d->w->force_norm) /* named l_last: pinned like a norm */
		g->t[out].force = gr_backend_of(d->w, d->w->pl->layer ? d->w->pl->layer[il] : -1);
	return out;
}

/* build_hc_head, unfused (il = -1): the mixes, pre, and the streams
 * weighted and summed one by one */
static int hc_head(struct ga_graph *g, const struct dims *d, int x, int64_t To)
{
	int64_t E = d->E;
	int fl = ga_gop(g, ga_op(g, 1, F32, DS4_HC * E, To, 1, 1, S(ga_view(g, x))), GA_G_RMS_NORM);
	int mixes = gr_mm(g, d, -1, "output_hc_fn.weight", fl, DS4_HC, To);
	int p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, To, 1, 1, S(mixes, gr_weight(g, d, -1, "output_hc_scale.weight"))),
		       GA_G_MUL);
	p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, To, 1, 1, S(p, gr_weight(g, d, -1, "output_hc_base.weight"))), GA_G_ADD);
	p = ga_gop(g, ga_op(g, 1, F32, DS4_HC, To, 1, 1, S(p)), GA_G_UNARY);
	p = ga_op(g, 1, F32, DS4_HC, To, 1, 1, S(p));
	int acc = -1;
	for (int h = 0; h < DS4_HC; h++) {
		int c = ga_gop(g, ga_op(g, 1, F32, E, To, 1, 1, S(ga_view(g, x), ga_view(g, p))), GA_G_MUL);
		acc = acc < 0 ? c : ga_gop(g, ga_op(g, 1, F32, E, To, 1, 1, S(acc, c)), GA_G_ADD);
	}
	return acc;
}

void gr_deepseek4(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	struct ds4 s;
	memset(&s, 0, sizeof(s));
	memset(s.ci, -1, sizeof(s.ci));
	s.raw_rot = s.k_idx = -1;
	s.T = d->T;
	/* the reserve's ubatch holds n_seq_max sequences whatever KV_UNIFIED
	 * says (sched_reserve), and the caches keep a stream per sequence:
	 * the graph has a stream per sequence (dsv4_comp_graph_n_stream) */
	s.ns = d->n_seq > 0 ? d->n_seq : 1;
	s.Tq = s.T / s.ns;
	s.seqs = d->n_seq > 0 ? d->n_seq : 1;
	s.n_raw = d->n_kv_swa;
	s.raw_size = d->kv_size_swa;
	s.n_csa = comp_cells(d->n_kv, 4);
	s.n_hca = comp_cells(d->n_kv, 128);
	s.D_idx = m->indexer_head_size;
	s.k_row = ggml_row_bytes(ggml_type_get(d->k_type), (uint64_t)d->D);
	const struct gguf_tensor *oa = d->w->gg ? gguf_tensor_find(d->w->gg, "blk.0.attn_output_a.weight") : NULL;
	/* the groups and rank the loader reads (model_check.c holds them to
	 * the weight's element count; the file's shape is reshaped to them) */
	uint64_t og = 0, ol = 0;
	if (d->w->gg) {
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.attention.output_group_count", m->arch), &og);
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.attention.output_lora_rank", m->arch), &ol);
	}
	s.G = og						     ? (int64_t)og
	      : oa && oa->ne[0] && d->H * d->D >= (int64_t)oa->ne[0] ? d->H * d->D / (int64_t)oa->ne[0]
								     : 1;
	s.o_lora = og && ol ? (int64_t)ol : oa ? (int64_t)oa->ne[1] / s.G : 1;
	/* the raw mask: the graph's first expand, its first leaf */
	s.raw_mask = ga_input(g, (uint64_t)s.n_raw * s.T * (d->fa ? 2 : 4));
	int e = gr_input_embd(g, d, in);
	s.tokens = in->tokens;
	int x = ga_op(g, 0, F32, d->E, DS4_HC, s.T, 1, S(ga_view(g, e)));
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++)
		x = ds4_layer(g, m, d, &s, in, (int)il, x);
	int64_t To = d->n_out < s.T ? d->n_out : s.T;
	int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
	int rows = gr_op_kind(g, ga_op(g, 0, F32, DS4_HC * d->E, To, 1, 1, S(ga_view(g, x), ids)), GA_OP_GET_ROWS);
	int h = hc_head(g, d, rows, To);
	int rn = gr_norm(g, d, h, d->E, To, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

const char *gr_deepseek4_unmirrored(const struct placement *pl)
{
	for (unsigned i = 0; i < pl->n_dev; i++)
		if (pl->dev[i].profile->backend != DEVICE_RPC)
			return "compute of 'deepseek4' on a CUDA or Vulkan device (not booted)";
	return NULL;
}

uint64_t gr_deepseek4_affine_from(const struct model *m)
{
	(void)m;
	return UINT64_MAX;
}
