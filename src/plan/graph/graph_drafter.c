/* graph_drafter: the drafters of a target's hidden states, as their draft
 * context reserves them (the decoder graph, graph<false>; a token batch).
 *
 * eagle3 (src/models/eagle3.cpp): the draft's token rows (its own
 * token_embd or the target's) normed beside the fused target features
 * (the embd input) normed, concatenated 2 x embd wide into one attention
 * layer (the plain builder: q, v, k), the raw features as its residual,
 * the FFN half; no output rows are picked: the pre-norm state (h_nextn)
 * and the logits of every token are outputs.
 *
 * dflash (src/models/dflash.cpp, the plain DFlash): the noise block's
 * token rows through blocks with q and k normed per head, non-causal
 * attention over the cache the fused features were injected into; every
 * token's normed state (t_embd) and logits are outputs. */
#include "graph.h"

#include <string.h>

#include "../../base/util.h"

/* q (projected, normed per head when qk_norm, roped), then v and k as the
 * plain builder expands them; the attention and its output projection */
static int drafter_attn(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int x, int qk_norm)
{
	int64_t T = d->T;
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, 0, &krot, &vrot);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int q = ga_view(g, gr_mm(g, d, il, "attn_q.weight", x, d->D * d->H, T));
	if (qk_norm)
		q = gr_norm(g, d, q, d->D, d->H, T, il, "attn_q_norm.weight");
	q = gr_rope(g, q, pos, d->D, d->H, T);
	q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, krot);
	int v = ga_view(g, gr_mm(g, d, il, "attn_v.weight", x, d->D * d->Hkv, T));
	v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, vrot);
	int k = ga_view(g, gr_mm(g, d, il, "attn_k.weight", x, d->D * d->Hkv, T));
	if (qk_norm)
		k = gr_norm(g, d, k, d->D, d->Hkv, T, il, "attn_k_norm.weight");
	k = gr_rope(g, k, pos, d->D, d->Hkv, T);
	k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
	return gr_attn_wo(g, d, in, il, q, k, v, 0, vrot);
}

/* the final norm of every token's state, the logits of every token */
static void drafter_head(struct ga_graph *g, const struct dims *d, int x)
{
	int rn = gr_norm(g, d, x, d->E, d->T, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, d->T);
	g->t[out].output = 1;
}

void gr_eagle3(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int toks = gr_input_once(g, &in->tokens, (uint64_t)T * 4);
	int feat = ga_input(g, (uint64_t)d->E * T * 4); /* g_embeddings: the fused target features */
	int te = gr_op_kind(g, ga_op(g, 0, F32, d->E, T, 1, 1, S(gr_weight(g, d, -1, "token_embd.weight"), toks)),
			    GA_OP_GET_ROWS);
	int en = gr_norm(g, d, te, d->E, T, 1, 0, "attn_norm.weight");
	int fn = gr_norm(g, d, feat, d->E, T, 1, -1, "blk.0.attn_norm_2.weight");
	int cat = ga_op(g, 0, F32, 2 * d->E, T, 1, 1, S(en, fn));
	int cur = drafter_attn(g, d, in, 0, cat, 0);
	int x = gr_ffn_half(g, m, d, 0, cur, feat, T, "ffn_norm.weight", gr_ffn_dense);
	g->t[x].output = 1; /* h_nextn: the pre-norm state */
	drafter_head(g, d, x);
}

void gr_dflash(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int toks = gr_input_once(g, &in->tokens, (uint64_t)T * 4);
	int x = gr_op_kind(g, ga_op(g, 0, F32, d->E, T, 1, 1, S(gr_weight(g, d, -1, "token_embd.weight"), toks)),
			   GA_OP_GET_ROWS);
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		int an = gr_norm(g, d, x, d->E, T, 1, (int)il, "attn_norm.weight");
		int cur = drafter_attn(g, d, in, (int)il, an, 1);
		x = gr_ffn_half(g, m, d, (int)il, cur, x, T, "ffn_norm.weight", gr_ffn_dense);
	}
	int rn = gr_norm(g, d, x, d->E, T, 1, -1, "output_norm.weight");
	g->t[rn].output = 1; /* t_embd */
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, T);
	g->t[out].output = 1;
}

/* The engine's graphs that record their layers' inputs (res->t_layer_inp,
 * which llama_set_embeddings_layer_inp marks as outputs); any other
 * target asserts "layer input tensor is null" once a drafter asks. */
int gr_records_layer_inp(const char *arch)
{
	static const char *const files[] = {
	    "bailingmoe3.cpp", "deepseek4.cpp",	   "gemma4.cpp",   "lfm2.cpp",	     "llama.cpp",      "minimax-01.cpp",
	    "minimax-m2.cpp",  "muse-glimmer.cpp", "nanbeige.cpp", "nemotron-h.cpp", "openai-moe.cpp", "qwen3.cpp",
	    "qwen35.cpp",      "qwen35moe.cpp",	   "qwen3moe.cpp", "qwen3next.cpp",  "qwen4exp.cpp"};
	const char *src = NULL;
	if (!gr_pricing(arch, &src) || !src || strncmp(src, "src/models/", 11) != 0)
		return -1; /* not mirrored: its builder is not known here */
	size_t n = strcspn(src + 11, " ");
	for (size_t i = 0; i < ARRAY_SIZE(files); i++)
		if (strlen(files[i]) == n && strncmp(src + 11, files[i], n) == 0)
			return 1;
	return 0;
}
