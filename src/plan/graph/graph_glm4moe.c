/* graph_glm4moe: GLM-4.5 (src/models/glm4-moe.cpp): biased q/k/v, q/k
 * norms when the payload has them, partial rotary, a post-attention norm,
 * leading dense layers, then routed experts (sigmoid gating with a
 * selection bias) beside a shared expert. The nextn (MTP) blocks are the
 * draft context's graph; the main graph skips them. */
#include "graph.h"

/* build_qkv with the separate q/k/v path: a matmul, its bias, a reshape. */
static int projection(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x, int64_t n,
		      int64_t T)
{
	return ga_view(g, gr_mm_b(g, d, il, w, b, x, n, T));
}

/* The attention of layer il, as build_attn expands it: q, v, k. */
static int glm4moe_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			     int an)
{
	(void)m;
	int64_t T = d->T;
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
	int q = projection(g, d, il, "attn_q.weight", "attn_q.bias", an, d->D * d->H, T);
	if (gr_has_tensor(d, il, "attn_q_norm.weight"))
		q = gr_norm(g, d, q, d->D, d->H, T, il, "attn_q_norm.weight");
	q = gr_rope(g, q, pos, d->D, d->H, T);
	q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, &in->k_rot);
	int v = projection(g, d, il, "attn_v.weight", "attn_v.bias", an, d->D * d->Hkv, T);
	v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, &in->v_rot);
	int k = projection(g, d, il, "attn_k.weight", "attn_k.bias", an, d->D * d->Hkv, T);
	if (gr_has_tensor(d, il, "attn_k_norm.weight"))
		k = gr_norm(g, d, k, d->D, d->Hkv, T, il, "attn_k_norm.weight");
	k = gr_rope(g, k, pos, d->D, d->Hkv, T);
	k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, &in->k_rot);
	int o = gr_attend(g, d, in, il, q, k, v, 0);
	o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, &in->v_rot);
	return gr_mm(g, d, il, "attn_output.weight", ga_view(g, o), d->E, T);
}

/* The FFN of layer il: dense in the leading layers, else routed experts
 * and the shared expert, added. */
static int glm4moe_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	if ((uint32_t)il < m->n_lead_dense)
		return gr_ffn(g, d, il, x, T);
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.sigmoid = o.gating != 1; /* the loader's default: sigmoid */
	o.probs_b = 1;		   /* exp_probs_b is required */
	if (!m->n_expert_shared)
		return gr_moe_ex(g, d, il, x, T, &o);
	return gr_moe_shared(g, d, il, x, T, &o, d->F_exp * m->n_expert_shared);
}

void gr_glm4moe(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	gr_trunk_moe(g, m, d, in, glm4moe_attention, "post_attention_norm.weight", glm4moe_ffn);
}

/* The GLM-4.5 MTP head (glm4-moe.cpp graph_mtp): the nextn block il as an
 * MoE layer. */
void gr_glm4moe_mtp(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il)
{
	gr_mtp_block(g, m, d, in, il, glm4moe_attention, "post_attention_norm.weight", glm4moe_ffn);
}
