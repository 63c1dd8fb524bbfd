/* graph_deepseek2: DeepSeek-V2/V3 with multi-head latent attention
 * (src/models/deepseek2.cpp, llama-graph.cpp build_attn with the K-only
 * input and build_attn_mha's v_mla path). */
#include "graph.h"

/* The MLA attention of layer il: q through its latent (or one attn_q),
 * the no-rope part absorbed into the latent by attn_k_b, the compressed
 * KV and its rope part as one K row (kv_lora + rope) in a K-only cache,
 * V a view of K, and attn_v_b decompressing the output per head. The
 * nodes in the order build_attn expands them: q, v, k. */
/* q: through its latent (attn_q_a, normed, attn_q_b; the normed latent
 * into *qr when asked), or one attn_q; n wide per token. */
static int ds2_q(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int an, int64_t n, int *qr)
{
	if (!m->q_lora_rank)
		return gr_mm(g, d, il, "attn_q.weight", an, n, d->T);
	int q = gr_mm(g, d, il, "attn_q_a.weight", an, m->q_lora_rank, d->T);
	q = gr_norm(g, d, q, m->q_lora_rank, d->T, 1, il, "attn_q_a_norm.weight");
	if (qr)
		*qr = q;
	return gr_mm(g, d, il, "attn_q_b.weight", q, n, d->T);
}

/* build_attn with the K-only input and v_mla (llama-graph.cpp): the K
 * row (latent + rope part) into the cache of layer il, V a view of K,
 * attention over the latent, attn_v_b decompressing the output per head
 * (dv wide), attn_output. Kimi's MLA (graph_linear.c) calls it too. */
int gr_attend_mla(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int qcur, int kcur, int64_t lora,
		  int64_t dv, const struct gr_mla_mask *mk)
{
	int cur = gr_attend_mla_kqv(g, d, in, il, qcur, kcur, lora, dv, mk);
	return gr_mm(g, d, il, "attn_output.weight", cur, d->E, d->T);
}

int gr_attend_mla_kqv(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int qcur, int kcur,
		      int64_t lora, int64_t dv, const struct gr_mla_mask *mk)
{
	int64_t T = d->T, H = d->H;
	int kidx = gr_input_once(g, &in->k_idx, (uint64_t)T * 8);
	int kcache = gr_cache(g, d, il);
	ga_sink_to(g, kcache, S(ga_view(g, kcur), kidx, kcache));
	int mask = mk ? -1 : gr_input_once(g, &in->mask, (uint64_t)d->n_kv * T * (d->fa ? 2 : 4));
	uint64_t kspan = (uint64_t)(d->n_kv + (d->n_stream - 1) * d->kv_size) * d->k_row;
	int64_t elem = d->D ? (int64_t)(d->k_row / (uint64_t)d->D) : 2;
	int kc = ga_view_n(g, kcache, kspan);
	int vc = ga_view_n(g, kc, kspan);
	int cur;
	if (d->fa) {
		int qp = ga_view(g, ga_view(g, qcur));
		int kp = ga_view(g, kc), vp = ga_view(g, vc);
		if (mk)
			mask = mk->fn(g, mk->m, d, in, il, mk->an, mk->qr);
		int fa = gr_op_kind(g, ga_op(g, 0, F32, lora, H, T, 1, S(qp, kp, vp, mask)), GA_OP_FA);
		/* v_mla over the output permuted to [lora, T/streams, H, streams] */
		int64_t ns = d->n_stream > 0 ? d->n_stream : 1;
		int o = gr_op_kind(
		    g, ga_op(g, 0, F32, dv, T / ns, H, ns, S(gr_weight(g, d, il, "attn_v_b.weight"), ga_view(g, fa))),
		    GA_OP_MUL_MAT);
		cur = ga_view(g, ga_op(g, 0, F32, dv, H, T, 1, S(ga_view(g, o))));
	} else {
		/* v is K's view, not transposed: build_attn_mha copies it
		 * transposed (ggml_cont), before kq */
		int vt = ga_view(g, ga_view(g, vc));
		int vcont = ga_op(g, 0, elem == 4 ? F32 : F16, d->n_kv, lora, 1, d->n_stream, S(vt));
		int kp = ga_view(g, kc);
		int qp = ga_view(g, ga_view(g, qcur));
		int kq = gr_op_kind(g, ga_op(g, 0, F32, d->n_kv, T, H, 1, S(kp, qp)), GA_OP_MUL_MAT);
		gr_kq_strided(g, d, kq, 1); /* MLA: one KV head */
		if (mk)
			mask = mk->fn(g, mk->m, d, in, il, mk->an, mk->qr);
		int sm = ga_op(g, 1, F32, d->n_kv, T, H, 1, S(kq, mask));
		int kqv = gr_op_kind(g, ga_op(g, 0, F32, lora, T, H, 1, S(vcont, sm)), GA_OP_MUL_MAT);
		/* kqv is [lora, T/streams, H, streams]: so is v_mla's product */
		int64_t ns = d->n_stream > 0 ? d->n_stream : 1;
		int o =
		    gr_op_kind(g, ga_op(g, 0, F32, dv, T / ns, H, ns, S(gr_weight(g, d, il, "attn_v_b.weight"), kqv)),
			       GA_OP_MUL_MAT);
		cur = ga_op(g, 0, F32, dv * H, T, 1, 1, S(ga_view(g, o)));
		if (!d->w->pl->kv_offload)
			g->t[cur].force = d->w->cpu;
	}
	return cur;
}

static int mha_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			 int an);

static int mla_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			 int an)
{
	if (!m->head_k_mla || !m->head_v_mla)
		return mha_attention(g, m, d, in, il, an);
	return gr_mla_attention(g, m, d, in, il, an, NULL);
}

int gr_mla_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int an,
		     gr_mla_mask_fn *mk)
{
	return gr_mla_attention_ex(g, m, d, in, il, an, mk, NULL);
}

int gr_mla_attention_kqv(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			 int an)
{
	static const struct gr_mla_opts no_wo = {NULL, 1};
	return gr_mla_attention_ex(g, m, d, in, il, an, NULL, &no_wo);
}

int gr_mla_attention_ex(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			int an, gr_mla_mask_fn *mk, const struct gr_mla_opts *o)
{
	int64_t T = d->T, H = d->H;
	int64_t rope = m->rope_dims, lora = m->kv_lora_rank;
	int64_t dk = m->head_k_mla, dv = m->head_v_mla, nope = dk - rope, row = lora + rope;
	int lat = -1;
	int q = ds2_q(g, m, d, il, an, H * dk, &lat);
	int qr = ga_view(g, q);
	int qn = ga_view_n(g, qr, (uint64_t)(nope + (H * T - 1) * dk) * 4);
	int qnp = ga_view(g, qn);
	int qabs = gr_op_kind(g, ga_op(g, 0, F32, lora, T, H, 1, S(gr_weight(g, d, il, "attn_k_b.weight"), qnp)),
			      GA_OP_MUL_MAT);
	int qabsp = ga_view(g, qabs);
	int qpe = ga_view_n(g, qr, (uint64_t)(rope + (H * T - 1) * dk) * 4);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	qpe = gr_rope(g, qpe, pos, rope, H, T);
	int qcur = ga_op(g, 0, F32, row, H, T, 1, S(qabsp, qpe));
	if (m->attn_temp_scale != 0.0) /* llama 4 temperature scaling, per token */
		qcur = ga_op(g, 1, F32, row, H, T, 1, S(qcur, gr_input_once(g, &in->attn_scale, (uint64_t)T * 4)));
	/* v: the normed latent */
	int kvpe = gr_mm(g, d, il, "attn_kv_a_mqa.weight", an, row, T);
	int kvc = ga_view_n(g, kvpe, (uint64_t)(lora + (T - 1) * row) * 4);
	int kvn = gr_norm(g, d, kvc, lora, T, 1, il, "attn_kv_a_norm.weight");
	int vcur = ga_view(g, kvn);
	/* k: the latent and the roped part, concatenated */
	int kpe = ga_view_n(g, kvpe, (uint64_t)(rope + (T - 1) * row) * 4);
	if (o && o->k_norm) /* normed before its rope */
		kpe = gr_norm(g, d, kpe, rope, 1, T, il, o->k_norm);
	kpe = gr_rope(g, kpe, pos, rope, 1, T);
	int kcur = ga_op(g, 0, F32, row, 1, T, 1, S(vcur, kpe));
	struct gr_mla_mask mask = {mk, m, an, lat};
	if (o && o->no_wo)
		return gr_attend_mla_kqv(g, d, in, il, qcur, kcur, lora, dv, mk ? &mask : NULL);
	return gr_attend_mla(g, d, in, il, qcur, kcur, lora, dv, mk ? &mask : NULL);
}

/* The pre-MLA layout (no key_length_mla): attn_kv_b decompresses the
 * latent into per-head K (no-rope part) and V, K gets the shared roped
 * part repeated per head, and the plain KV cache holds K and V per head
 * (build_attn with the KV input): q, v, k as build_attn expands them. */
static int mha_attention(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			 int an)
{
	int64_t T = d->T, H = d->H;
	int64_t rope = m->rope_dims, lora = m->kv_lora_rank;
	int64_t dk = m->head_k, dv = m->head_v, nope = dk - rope, row = lora + rope;
	int q = ds2_q(g, m, d, il, an, H * dk, NULL);
	int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
	int qcur = gr_rope(g, ga_view(g, q), pos, dk, H, T);
	if (m->attn_temp_scale != 0.0)
		qcur = ga_op(g, 1, F32, dk, H, T, 1, S(qcur, gr_input_once(g, &in->attn_scale, (uint64_t)T * 4)));
	qcur = gr_rotate(g, qcur, dk * H * T, d->k_rot, &in->k_rot); /* quantized caches rotate */
	/* v: the latent normed, decompressed, V's part copied out */
	int kvpe = gr_mm(g, d, il, "attn_kv_a_mqa.weight", an, row, T);
	int kvc = ga_view_n(g, kvpe, (uint64_t)(lora + (T - 1) * row) * 4);
	int kvn = gr_norm(g, d, kvc, lora, T, 1, il, "attn_kv_a_norm.weight");
	int kv = gr_mm(g, d, il, "attn_kv_b.weight", kvn, H * (nope + dv), T);
	uint64_t vspan = (uint64_t)(dv + (H * T - 1) * (nope + dv)) * 4;
	int vcur = ga_op(g, 0, F32, dv, H, T, 1, S(ga_view_n(g, kv, vspan)));
	vcur = gr_rotate(g, vcur, dv * H * T, d->v_rot, &in->v_rot);
	/* k: the no-rope part beside the roped part repeated over the heads */
	int knope = ga_view_n(g, kv, (uint64_t)(nope + (H * T - 1) * (nope + dv)) * 4);
	int kpe = ga_view_n(g, kvpe, (uint64_t)(rope + (T - 1) * row) * 4);
	kpe = gr_rope(g, kpe, pos, rope, 1, T);
	int rep = ga_op(g, 0, F32, rope, H, T, 1, S(kpe));
	int kcur = ga_op(g, 0, F32, dk, H, T, 1, S(knope, rep));
	kcur = gr_rotate(g, kcur, dk * H * T, d->k_rot, &in->k_rot);
	/* into the K and V caches, then attention over them */
	int64_t n_kv = d->n_kv;
	/* per cell: H x dk of K, H x dv of V (dims price V at K's head size) */
	uint64_t k_row = d->k_row, v_row = dk ? d->v_row * (uint64_t)dv / (uint64_t)dk : d->v_row;
	int kidx = gr_input_once(g, &in->k_idx, (uint64_t)T * 8);
	int vidx = gr_input_once(g, &in->v_idx, (uint64_t)T * 8 * (d->fa ? 1 : (uint64_t)(H * dv)));
	int kcache = gr_cache(g, d, il), vcache = gr_cache(g, d, il);
	ga_sink_to(g, kcache, S(ga_view(g, kcur), kidx, kcache));
	ga_sink_to(g, vcache, S(ga_view(g, vcur), vidx, vcache));
	int mask = gr_input_once(g, &in->mask, (uint64_t)n_kv * T * (d->fa ? 2 : 4));
	int qp = ga_view(g, ga_view(g, qcur));
	uint64_t kspan = (uint64_t)(n_kv + (d->n_stream - 1) * d->kv_size) * k_row;
	uint64_t vsp = d->fa ? (uint64_t)(n_kv + (d->n_stream - 1) * d->kv_size) * v_row
			     : (uint64_t)(d->n_stream * d->kv_size) * v_row;
	int kc = ga_view(g, ga_view_n(g, kcache, kspan)), vc = ga_view(g, ga_view_n(g, vcache, vsp));
	int cur;
	if (d->fa) {
		int fa = gr_op_kind(g, ga_op(g, 0, F32, dv, H, T, 1, S(qp, kc, vc, mask)), GA_OP_FA);
		cur = ga_view(g, gr_rotate(g, ga_view(g, fa), dv * H * T, d->v_rot, &in->v_rot));
	} else {
		int kq = gr_op_kind(g, ga_op(g, 0, F32, n_kv, T, H, 1, S(kc, qp)), GA_OP_MUL_MAT);
		gr_kq_strided(g, d, kq, d->Hkv);
		int sm = ga_op(g, 1, F32, n_kv, T, H, 1, S(kq, mask));
		int kqv = gr_op_kind(g, ga_op(g, 0, F32, dv, T, H, 1, S(vc, sm)), GA_OP_MUL_MAT);
		cur = ga_op(g, 0, F32, dv * H, T, 1, 1, S(ga_view(g, kqv)));
		if (!d->w->pl->kv_offload)
			g->t[cur].force = d->w->cpu;
		cur = gr_rotate(g, cur, dv * H * T, d->v_rot, &in->v_rot);
	}
	return gr_mm(g, d, il, "attn_output.weight", cur, d->E, T);
}

/* The FFN of layer il: dense in the leading layers, else the routed
 * experts (as the payload gates them) and the shared ones, added. */
int gr_ds2_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	if ((uint32_t)il < m->n_lead_dense)
		return gr_ffn(g, d, il, x, T);
	struct gr_moe_opts o = gr_moe_opts_of(m);
	o.probs_b = gr_has_tensor(d, il, "exp_probs_b.bias"); /* optional, per layer */
	o.n_groups = m->n_expert_groups;
	o.n_group_used = m->n_group_used;
	return gr_moe_shared(g, d, il, x, T, &o, (int64_t)d->F_exp * (m->n_expert_shared ? m->n_expert_shared : 1));
}

void gr_deepseek2(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	gr_trunk_moe(g, m, d, in, mla_attention, "ffn_norm.weight", gr_ds2_ffn);
}

/* The MTP head (GLM-4.7-Flash's, deepseek2.cpp graph_mtp): the nextn
 * block il as an MLA layer with routed and shared experts. */
void gr_deepseek2_mtp(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il)
{
	gr_mtp_block(g, m, d, in, il, mla_attention, "ffn_norm.weight", gr_ds2_ffn);
}
