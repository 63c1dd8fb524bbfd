/* graph_oss: gpt-oss (src/models/openai-moe.cpp of the pinned engine):
 * alternating sliding-window and full attention over an iSWA cache,
 * biases on q, k, v and the output, an attention sink per head (a source
 * of the flash-attention op, or of the softmax), and a MoE whose router
 * carries a bias and whose top-k weights are softmaxed after selection
 * (LLAMA_EXPERT_GATING_FUNC_TYPE_SOFTMAX_WEIGHT), with expert biases
 * (ggml_add_id) around the swiglu_oai activation. */
#include "graph.h"

/* a matmul and its bias (ggml_add, in place) */
static int mm_bias(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x, int64_t ne0,
		   int64_t T)
{
	int y = gr_mm(g, d, il, w, x, ne0, T);
	return ga_op(g, 1, F32, ne0, T, 1, 1, S(y, gr_weight(g, d, il, b)));
}

/* an expert matmul (mul_mat_id) and its bias (ggml_add_id, in place) */
static int mm_id_bias(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x, int sel,
		      int64_t ne0, int64_t T)
{
	int64_t k = d->n_expert_used;
	int y = gr_mm_id(g, d, il, w, x, sel, ne0, k, T);
	return ga_op(g, 1, F32, ne0, k, T, 1, S(y, gr_weight(g, d, il, b), sel));
}

/* build_moe_ffn with a router bias, SOFTMAX_WEIGHT gating (top-k of the
 * raw logits, softmax over the chosen k), expert biases and swiglu_oai,
 * in the order ggml_build_forward_expand visits it. */
static int oss_moe(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T)
{
	int64_t ne = d->n_expert, k = d->n_expert_used;
	int logits = mm_bias(g, d, il, "ffn_gate_inp.weight", "ffn_gate_inp.bias", x, ne, T);
	int probs3 = ga_view(g, logits);
	int order = ga_op(g, 0, I32, ne, T, 1, 1, S(logits));
	int sel = ga_view_n(g, order, (uint64_t)((T - 1) * ne + k) * 4);
	int wts = gr_op_kind(g, ga_op(g, 0, F32, 1, k, T, 1, S(probs3, sel)), GA_OP_GET_ROWS);
	int sm = ga_op(g, 1, F32, k, T, 1, 1, S(ga_view(g, wts)));
	int w3 = ga_view(g, sm);
	int cur = ga_view(g, x);
	int gate = mm_id_bias(g, d, il, "ffn_gate_exps.weight", "ffn_gate_exps.bias", cur, sel, d->F_exp, T);
	int up = mm_id_bias(g, d, il, "ffn_up_exps.weight", "ffn_up_exps.bias", cur, sel, d->F_exp, T);
	int glu = ga_op(g, 0, F32, d->F_exp, k, T, 1, S(gate, up));
	int down = mm_id_bias(g, d, il, "ffn_down_exps.weight", "ffn_down_exps.bias", glu, sel, d->E, T);
	int experts = ga_op(g, 1, F32, d->E, k, T, 1, S(down, w3));
	int out = gr_moe_sum(g, d, experts, k, T);
	if (k <= 1)
		out = ga_op(g, 0, F32, d->E, T, 1, 1, S(out));
	return out;
}

static int oss_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)m;
	return oss_moe(g, d, il, x, T);
}

/* One layer: attention with sinks, biased projections, the MoE FFN */
static int oss_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int L, int x,
		     int an, int last, const void *ctx)
{
	(void)last;
	(void)ctx;
	int64_t T = d->T;
	int swa = m->kind[L] == LAYER_SWA;
	int *krot, *vrot;
	gr_rot_inputs(g, d, in, swa, &krot, &vrot);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	/* build_attn (kv_iswa) expands q, k, v */
	int q = mm_bias(g, d, L, "attn_q.weight", "attn_q.bias", an, d->D * d->H, T);
	q = gr_rope(g, ga_view(g, q), pos, d->D, d->H, T);
	q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, krot);
	int k = mm_bias(g, d, L, "attn_k.weight", "attn_k.bias", an, d->D * d->Hkv, T);
	k = gr_rope(g, ga_view(g, k), pos, d->D, d->Hkv, T);
	k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
	int v = ga_view(g, mm_bias(g, d, L, "attn_v.weight", "attn_v.bias", an, d->D * d->Hkv, T));
	v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, vrot);
	int o = gr_attend_sinks(g, d, in, L, q, k, v, swa, gr_weight(g, d, L, "attn_sinks.weight"));
	o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, vrot);
	int cur = mm_bias(g, d, L, "attn_output.weight", "attn_output.bias", ga_view(g, o), d->E, T);
	return gr_ffn_half(g, m, d, L, cur, x, T, "post_attention_norm.weight", oss_ffn);
}

void gr_oss(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = gr_layers(g, m, d, in, oss_layer, NULL);
	/* the output rows are picked after the last layer (not inside it) */
	int64_t To = T;
	if (d->n_out < T) {
		int ids = gr_input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
		x = gr_op_kind(g, ga_op(g, 0, F32, d->E, d->n_out, 1, 1, S(x, ids)), GA_OP_GET_ROWS);
		To = d->n_out;
	}
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}
