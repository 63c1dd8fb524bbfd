/* graph_bert: src/models/bert.cpp of the pinned engine, the graph of
 * bert, nomic-bert(-moe), jina-bert-v2 and jina-bert-v3 (their load_arch_tensors
 * differ; the graph is bert's, by arch): non-causal encoders with no
 * memory. The token embedding and the first token type's row added (bert:
 * and the position embedding), a layer norm (named for layer 0); per layer
 * q, k and v (with biases where the payload has them; roped for nomic and
 * jina-bert-v3, ALiBi for jina-bert-v2, which builds no positions) attend
 * over the ubatch alone (build_attn_inp_no_cache: a mask of n_tokens x
 * n_tokens; with flash attention K and V are cast to f16), the output
 * projection and its bias, the residual and a layer norm, the FFN (bert,
 * jina-bert-v3: GELU after up and its bias; nomic-bert: SiLU-gated, no
 * biases; jina-bert-v2: GELU-gated, biased; nomic-bert-moe: bert's, or
 * routed GELU experts where the layer has a router), the residual and a
 * layer norm. The last layer keeps the output rows. With EMBEDDINGS=on
 * build_pooling follows (graph.c: gr_pooling). */
#include <string.h>

#include "graph.h"

/* build_norm with LLM_NORM, a weight and a bias: ggml_norm (not in
 * place), named "norm" and pinned like a layer's, then the weight and
 * the bias in place */
static int lnorm_b(struct ga_graph *g, const struct dims *d, int x, int64_t T, int il, const char *w, const char *b)
{
	int n = ga_op(g, 0, F32, d->E, T, 1, 1, S(x));
	if (il >= 0 && d->w->force_norm)
		g->t[n].force = gr_backend_of(d->w, d->w->pl->layer ? d->w->pl->layer[il] : -1);
	n = ga_op(g, 1, F32, d->E, T, 1, 1, S(n, gr_weight(g, d, il, w)));
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(n, gr_weight(g, d, il, b)));
}

/* a projection, its bias where the payload has one, reshaped */
static int proj_b(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x, int64_t n,
		  int64_t T)
{
	return ga_view(g, gr_mm_b(g, d, il, w, b, x, n, T));
}

/* a bias added where the payload has one */
static int bias(struct ga_graph *g, const struct dims *d, int il, const char *b, int x, int64_t n, int64_t T)
{
	return gr_has_tensor(d, il, b) ? ga_op(g, 1, F32, n, T, 1, 1, S(x, gr_weight(g, d, il, b))) : x;
}

static void fused_qkv(struct ga_graph *g, const struct dims *d, int L, int an, int pos, int *q, int *k, int *v);

/* What bert.cpp's graph does by arch. */
struct bert_kind {
	int pos_embd; /* bert: the position embedding added */
	int rope;     /* nomic-bert(-moe), jina-bert-v3: q and k roped */
	int no_pos;   /* jina-bert-v2: no positions at all (ALiBi) */
	char ffn;     /* 'g' GELU after up (SEQ), 's' SiLU-gated, 'p' GELU-gated (PAR) */
};

static struct bert_kind bert_kind_of(const char *arch)
{
	struct bert_kind k = {0, 0, 0, 'g'};
	if (strcmp(arch, "bert") == 0)
		k.pos_embd = 1;
	else if (strcmp(arch, "jina-bert-v2") == 0)
		k.no_pos = 1, k.ffn = 'p';
	else
		k.rope = 1, k.ffn = strcmp(arch, "nomic-bert") == 0 ? 's' : 'g';
	return k;
}

/* nomic-bert-moe's layer L with a router (il % moe_every_n_layers == 1):
 * build_moe_ffn with softmax gating, the weights neither normalised nor
 * scaled, up alone and GELU (no gate), the stacks feed_forward_length
 * wide */
static int bert_moe_ffn(struct ga_graph *g, const struct dims *d, int L, int x, int64_t Tn)
{
	struct dims de = *d;
	struct gr_moe_opts o = {0};
	struct gr_moe_routed r;
	de.F_exp = d->F;
	gr_moe_route(g, &de, L, x, Tn, &o, &r);
	int out = gr_moe_experts(g, &de, L, x, Tn, &r, 4);
	return d->n_expert_used <= 1 ? ga_op(g, 0, F32, d->E, Tn, 1, 1, S(out)) : out;
}

/* build_ffn as bert.cpp calls it for the arch */
static int bert_ffn(struct ga_graph *g, const struct dims *d, const struct bert_kind *k, int L, int x, int64_t Tn)
{
	if (gr_has_tensor(d, L, "ffn_gate_inp.weight"))
		return bert_moe_ffn(g, d, L, x, Tn);
	if (k->ffn == 's') /* up, gate, no biases, SILU, PAR: the gate first in the graph */
		return gr_ffn(g, d, L, x, Tn);
	if (k->ffn == 'p') { /* up and its bias, gate, GELU, PAR; down and its bias */
		int gate = gr_mm(g, d, L, "ffn_gate.weight", x, d->F, Tn);
		int up = bias(g, d, L, "ffn_up.bias", gr_mm(g, d, L, "ffn_up.weight", x, d->F, Tn), d->F, Tn);
		int glu = ga_op(g, 0, F32, d->F, Tn, 1, 1, S(gate, up));
		return bias(g, d, L, "ffn_down.bias", gr_mm(g, d, L, "ffn_down.weight", glu, d->E, Tn), d->E, Tn);
	}
	/* up, its bias, GELU, down, its bias */
	int up = bias(g, d, L, "ffn_up.bias", gr_mm(g, d, L, "ffn_up.weight", x, d->F, Tn), d->F, Tn);
	up = ga_op(g, 1, F32, d->F, Tn, 1, 1, S(up));
	return bias(g, d, L, "ffn_down.bias", gr_mm(g, d, L, "ffn_down.weight", up, d->E, Tn), d->E, Tn);
}

/* build_attn_mha over the ubatch (T keys), q, k, v as [D, H, T] */
int gr_attend_rows(struct ga_graph *g, const struct dims *d, int qp, int kp, int vp, int mask, int64_t n_kv)
{
	int64_t T = d->T;
	if (d->fa) {
		int k16 = ga_op(g, 0, F16, d->D, n_kv, d->Hkv, 1, S(kp));
		int v16 = ga_op(g, 0, F16, d->D, n_kv, d->Hkv, 1, S(vp));
		int o = gr_op_kind(g, ga_op(g, 0, F32, d->D, d->H, T, 1, S(qp, k16, v16, mask)), GA_OP_FA);
		struct ga_fa *fa = &g->t[o].fa;
		fa->k_type = fa->v_type = 1;
		fa->dk = fa->dv = d->D;
		fa->n_kv = n_kv;
		fa->hkv = d->Hkv;
		fa->h = d->H;
		fa->n_stream = 1;
		fa->q_tok = T;
		fa->mask = 1;
		return ga_view(g, o);
	}
	/* V is not stored transposed: ggml_cont of its transpose, kqv's
	 * first source, so the graph computes it before KQ */
	int vt = ga_op(g, 0, F32, n_kv, d->D, d->Hkv, 1, S(ga_view(g, vp)));
	int kq = gr_op_kind(g, ga_op(g, 0, F32, n_kv, T, d->H, 1, S(kp, qp)), GA_OP_MUL_MAT);
	int sm = ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq, mask));
	int kqv = gr_op_kind(g, ga_op(g, 0, F32, d->D, T, d->H, 1, S(vt, sm)), GA_OP_MUL_MAT);
	int cont = ga_op(g, 0, F32, d->D * d->H, T, 1, 1, S(ga_view(g, kqv)));
	if (!d->w->pl->kv_offload)
		g->t[cont].force = d->w->cpu;
	return cont;
}

static int attend_nc(struct ga_graph *g, const struct dims *d, int q, int k, int v, int mask)
{
	int qp = ga_view(g, ga_view(g, q)), kp = ga_view(g, k), vp = ga_view(g, v);
	return gr_attend_rows(g, d, qp, kp, vp, mask, d->T);
}

void gr_bert(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	struct bert_kind k = bert_kind_of(m->arch);
	int pos = k.no_pos ? -1 : gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int x = gr_input_embd(g, d, in);
	if (d->w->gg && gguf_tensor_find(d->w->gg, "token_types.weight"))
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(x, ga_view(g, gr_weight(g, d, -1, "token_types.weight"))));
	if (k.pos_embd) {
		int pe =
		    gr_op_kind(g, ga_op(g, 0, F32, d->E, T, 1, 1, S(gr_weight(g, d, -1, "position_embd.weight"), pos)),
			       GA_OP_GET_ROWS);
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(pe, x));
	}
	x = lnorm_b(g, d, x, T, 0, "token_embd_norm.weight", "token_embd_norm.bias");
	/* the mask, f16 for flash attention */
	int mask = gr_input_once(g, &in->mask, (uint64_t)T * T * (d->fa ? 2 : 4));
	gr_input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
	uint32_t n_layer = m->n_layer_all;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il, q, kk, v;
		if (gr_has_tensor(d, L, "attn_qkv.weight")) { /* nomic-bert(-moe) as converted */
			fused_qkv(g, d, L, x, k.rope ? pos : -1, &q, &kk, &v);
		} else {
			q = proj_b(g, d, L, "attn_q.weight", "attn_q.bias", x, nq, T);
			if (k.rope)
				q = gr_rope(g, q, pos, d->D, d->H, T);
			kk = proj_b(g, d, L, "attn_k.weight", "attn_k.bias", x, nkv, T);
			if (k.rope)
				kk = gr_rope(g, kk, pos, d->D, d->Hkv, T);
			v = proj_b(g, d, L, "attn_v.weight", "attn_v.bias", x, nkv, T);
		}
		int o = attend_nc(g, d, q, kk, v, mask);
		int cur = bias(g, d, L, "attn_output.bias", gr_mm(g, d, L, "attn_output.weight", o, d->E, T), d->E, T);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1) /* build_inp_out_ids: always, even with every row out */
			Tn = gr_out_rows(g, d, in, &cur, &res, 0);
		cur = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
		int fi = lnorm_b(g, d, cur, Tn, L, "attn_output_norm.weight", "attn_output_norm.bias");
		int fo = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(bert_ffn(g, d, &k, L, fi, Tn), fi));
		x = lnorm_b(g, d, fo, Tn, L, "layer_output_norm.weight", "layer_output_norm.bias");
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	g->t[x].output = 1; /* result_embd: t_embd, a graph output */
	gr_pooling(g, d, x, To);
}

/* neo-bert's FFN: ffn_up holds the gate too (2 x ff rows), one SWIGLU
 * (LLM_FFN_SWIGLU, SEQ), down */
static int neo_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)m;
	int up = gr_mm(g, d, il, "ffn_up.weight", x, 2 * d->F, T);
	int glu = ga_op(g, 0, F32, d->F, T, 1, 1, S(up));
	return gr_mm(g, d, il, "ffn_down.weight", glu, d->E, T);
}

/* build_qkv's fused path: q, k and v strided views of one attn_qkv
 * (its bias added where the payload has one), q and k roped (pos < 0:
 * not roped) */
static void fused_qkv(struct ga_graph *g, const struct dims *d, int L, int an, int pos, int *q, int *k, int *v)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	uint64_t row = (uint64_t)(nq + 2 * nkv) * 4;
	int qkv =
	    bias(g, d, L, "attn_qkv.bias", gr_mm(g, d, L, "attn_qkv.weight", an, nq + 2 * nkv, T), nq + 2 * nkv, T);
	*q = ga_view_n(g, qkv, (uint64_t)nq * 4 + (T - 1) * row);
	if (pos >= 0)
		*q = gr_rope(g, *q, pos, d->D, d->H, T);
	*k = ga_view_n(g, qkv, (uint64_t)nkv * 4 + (T - 1) * row);
	if (pos >= 0)
		*k = gr_rope(g, *k, pos, d->D, d->Hkv, T);
	*v = ga_view_n(g, qkv, (uint64_t)nkv * 4 + (T - 1) * row);
}

/* q or k RMS-normed per head where the payload has the norm (llada-moe,
 * rnd1: before RoPE) */
static int qk_normed(struct ga_graph *g, const struct dims *d, int L, const char *w, int x, int64_t heads)
{
	return gr_has_tensor(d, L, w) ? gr_norm(g, d, x, d->D, heads, d->T, L, w) : x;
}

/* The diffusion decoders' experts (llada-moe, rnd1): qwen3moe's
 * build_moe_ffn, the chosen weights normalised by rnd1 alone */
static int nc_moe(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	return gr_moe_norm(g, d, il, x, T, strcmp(m->arch, "rnd1") == 0);
}

/* A layer of llama's block attending over the ubatch alone
 * (build_attn_inp_no_cache): q, k and v (their biases where the payload
 * has them: dream's build_qkv; neo-bert: strided views of one attn_qkv)
 * expanded in that order, q and k roped, the output projection (its bias
 * where there is one), then the FFN (neo-bert's, else the dense one). */
static int nc_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int x,
		    int an, int last, const void *ctx)
{
	int neo = ctx != NULL; /* neo-bert's layer */
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int q, k, v;
	if (neo) {
		fused_qkv(g, d, L, an, pos, &q, &k, &v);
	} else {
		q = qk_normed(g, d, L, "attn_q_norm.weight", proj_b(g, d, L, "attn_q.weight", "attn_q.bias", an, nq, T),
			      d->H);
		q = gr_rope(g, q, pos, d->D, d->H, T);
		k = qk_normed(g, d, L, "attn_k_norm.weight",
			      proj_b(g, d, L, "attn_k.weight", "attn_k.bias", an, nkv, T), d->Hkv);
		k = gr_rope(g, k, pos, d->D, d->Hkv, T);
		v = proj_b(g, d, L, "attn_v.weight", "attn_v.bias", an, nkv, T);
	}
	uint64_t mb = (uint64_t)T * T * (d->fa ? 2 : 4);
	int mask = gr_input_once(g, &in->mask, mb);
	if (m->n_kind[LAYER_SWA]) /* gemma-embedding's symmetric window: a second mask */
		mask = m->kind[L] == LAYER_SWA ? gr_input_once(g, &in->mask_swa, mb) : mask;
	int o = attend_nc(g, d, q, k, v, mask);
	int cur = bias(g, d, L, "attn_output.bias", gr_mm(g, d, L, "attn_output.weight", o, d->E, T), d->E, T);
	return gr_layer_end(g, m, d, in, L, last, cur, x, 0, "ffn_norm.weight",
			    neo		  ? neo_ffn
			    : d->n_expert ? nc_moe
					  : gr_ffn_dense);
}

/* llama's graph over the ubatch alone: llama-embed (src/models/llama.cpp
 * built with embed = true: no lm_head, the final norm is t_embd; the
 * engine still makes it the default KV cache, which the plan prices),
 * eurobert (src/models/eurobert.cpp: the same, no output matrix at all, no
 * memory), neo-bert (src/models/neo-bert.cpp: a fused attn_qkv, a SwiGLU
 * from one ffn_up, the final norm enc.output_norm), gemma-embedding
 * (src/models/gemma-embedding.cpp: gemma3's block, a second mask for its
 * symmetric window; no memory) and the diffusion
 * decoders dream and llada (src/models/dream.cpp, llada.cpp: the lm_head
 * after the final norm; no memory). With EMBEDDINGS=on build_pooling
 * follows (graph.c: gr_pooling). */
void gr_llama_nc(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int neo = strcmp(m->arch, "neo-bert") == 0;
	static const int neo_layer = 1;
	int x = gr_layers(g, m, d, in, nc_layer, neo ? &neo_layer : NULL);
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int rn;
	if (neo || strcmp(m->arch, "llama-embed") == 0 || strcmp(m->arch, "eurobert") == 0 ||
	    strcmp(m->arch, "gemma-embedding") == 0) {
		rn = gr_norm(g, d, x, d->E, To, 1, -1, neo ? "enc.output_norm.weight" : "output_norm.weight");
		g->t[rn].output = 1; /* result_norm: t_embd, a graph output */
	} else
		rn = gr_result(g, d, x);
	gr_pooling(g, d, rn, To);
}

/* src/models/modern-bert.cpp: the token embedding and a layer norm
 * (token_embd_norm, no bias), then pre-norm blocks of layer norms without
 * biases (layer 0 has no attn_norm: the identity), one attn_qkv roped,
 * attention over the ubatch, the output projection, the residual, a
 * GEGLU from one ffn_up of 2 x ff rows (SEQ), the residual; the final
 * layer norm output_norm is t_embd. No memory, no output matrix. */
void gr_modern_bert(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int x = gr_lnorm(g, d, gr_input_embd(g, d, in), d->E, T, 1, 0, "token_embd_norm.weight");
	gr_input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
	int mask = gr_input_once(g, &in->mask, (uint64_t)T * T * (d->fa ? 2 : 4));
	uint32_t n_layer = m->n_layer_all;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il, q, k, v;
		int an =
		    gr_has_tensor(d, L, "attn_norm.weight") ? gr_lnorm(g, d, x, d->E, T, 1, L, "attn_norm.weight") : x;
		fused_qkv(g, d, L, an, pos, &q, &k, &v);
		int cur = gr_mm(g, d, L, "attn_output.weight", attend_nc(g, d, q, k, v, mask), d->E, T);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1)
			Tn = gr_out_rows(g, d, in, &cur, &res, 0);
		int fi = ga_gop(g, ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res)), GA_G_ADD);
		int fo = neo_ffn(g, m, d, L, gr_lnorm(g, d, fi, d->E, Tn, 1, L, "ffn_norm.weight"), Tn);
		x = ga_gop(g, ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, fi)), GA_G_ADD);
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = gr_lnorm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	g->t[rn].output = 1; /* final_norm_out: t_embd, a graph output */
	gr_pooling(g, d, rn, To);
}
