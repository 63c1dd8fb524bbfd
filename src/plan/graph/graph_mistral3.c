/* graph_mistral3: Mistral 3 (src/models/mistral3.cpp of the pinned
 * engine): the llama block (one KV cache, q, v, k expanded in that order)
 * with optional biases on q/k/v/o, the optional llama-4 attention
 * temperature (an input of 1 x 1 x T the query is multiplied by, when
 * `attention.temperature_scale` is set) and, on layers with a router, the
 * softmax-gated MoE with normalised weights (no q/k norms, unlike
 * qwen3moe). */
#include "graph.h"

#include <stdio.h>

/* a matmul and, when the file has it, its bias */
static int mm_opt_bias(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x,
		       int64_t ne0, int64_t T)
{
	int y = gr_mm(g, d, il, w, x, ne0, T);
	if (gr_has_tensor(d, il, b))
		y = ga_op(g, 1, F32, ne0, T, 1, 1, S(y, gr_weight(g, d, il, b)));
	return y;
}

/* The FFN of layer il: experts where the layer has a router (their stacks
 * feed_forward_length wide), else dense. */
static int mistral3_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)m;
	if (!gr_has_tensor(d, il, "ffn_gate_inp.weight"))
		return gr_ffn(g, d, il, x, T);
	struct dims de = *d;
	de.F_exp = d->F;
	return gr_moe(g, &de, il, x, T);
}

void gr_mistral3(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	double temp = 0;
	if (d->w->gg)
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.attention.temperature_scale", m->arch), &temp);
	int attn_scale = -1;
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = gr_norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		/* ggml finds the K rotation (src0 of q's rotation) before the
		 * positions */
		if (d->k_rot)
			gr_input_once(g, &in->k_rot, (uint64_t)d->k_rot * d->k_rot * 4);
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
		int q = ga_view(g, mm_opt_bias(g, d, L, "attn_q.weight", "attn_q.bias", an, d->D * d->H, T));
		q = gr_rope(g, q, pos, d->D, d->H, T);
		if (temp != 0) {
			int ts = gr_input_once(g, &attn_scale, (uint64_t)T * 4);
			q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(q, ts));
		}
		q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, &in->k_rot);
		int v = ga_view(g, mm_opt_bias(g, d, L, "attn_v.weight", "attn_v.bias", an, d->D * d->Hkv, T));
		v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, &in->v_rot);
		int k = ga_view(g, mm_opt_bias(g, d, L, "attn_k.weight", "attn_k.bias", an, d->D * d->Hkv, T));
		k = gr_rope(g, k, pos, d->D, d->Hkv, T);
		k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, &in->k_rot);
		int o = gr_attend(g, d, in, L, q, k, v, 0);
		o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, &in->v_rot);
		int cur = mm_opt_bias(g, d, L, "attn_output.weight", "attn_output.bias", ga_view(g, o), d->E, T);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1)
			Tn = gr_out_rows(g, d, in, &cur, &res, 1);
		x = gr_ffn_half(g, m, d, L, cur, res, Tn, "ffn_norm.weight", mistral3_ffn);
	}
	gr_result(g, d, x);
}
