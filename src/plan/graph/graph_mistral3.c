/* graph_mistral3: Mistral 3 (src/models/mistral3.cpp of the pinned
 * engine): the llama block (one KV cache, q, v, k expanded in that order)
 * with optional biases on q/k/v/o, the optional llama-4 attention
 * temperature (an input of 1 x 1 x T the query is multiplied by, when
 * `attention.temperature_scale` is set) and, on layers with a router, the
 * softmax-gated MoE with normalised weights (no q/k norms, unlike
 * qwen3moe).
 *
 * exaone.cpp and ernie4-5.cpp build it as it is (no temperature, dense).
 * seed_oss.cpp and smollm3.cpp build the same block without the
 * temperature and the experts: seed_oss names its FFN norm
 * post_attention_norm; smollm3 skips RoPE on every 4th layer (the
 * engine's load_arch_hparams sets n_no_rope_layer_step = 4 for it).
 *
 * granite.cpp (granite and granitemoe) builds it with Granite's scales,
 * each a ggml_scale node: the embeddings by embedding_scale, the
 * attention's and the FFN's outputs by residual_scale before their
 * residual adds (when the keys are set), the logits by 1/logit_scale
 * (always); RoPE unless rope.scaling.finetuned is false.
 *
 * qwen2moe.cpp: the same attention (q, k, v biases) and, in every layer,
 * routed experts beside a gated shared expert (qwen2moe_ffn).
 *
 * olmoe.cpp: q and k normed over their whole width before the reshape,
 * softmax experts ff wide, weights not normalised. ernie4-5-moe.cpp:
 * routed experts (selection bias, normalised) and the optional shared
 * expert on the layers its keys make MoE (ernie_moe_layer), dense FFNs
 * elsewhere. hunyuan-moe.cpp: q and k normed per head after RoPE;
 * normalised experts ff wide, then the shared expert, added. deepseek.cpp:
 * dense leading layers, then unnormalised experts and the shared ones.
 * glm4.cpp: the attention's output normed (post_attention_norm) before
 * its residual; the FFN's up projection 2 x ff wide, split by swiglu, its
 * output normed (post_ffw_norm). hunyuan-dense (hunyuan-vl's graph): q
 * and k normed after RoPE (M-RoPE with sections), a dense FFN. xverse.cpp:
 * the block as it is; baichuan.cpp: RoPE only at 32 layers. maincoder.cpp:
 * hunyuan-dense's q/k norms after RoPE. internlm2.cpp: the block as it
 * is. arcee.cpp: a squared-ReLU FFN without gate. apertus.cpp: q and k
 * normed per head before RoPE (biases when present), an xIELU FFN.
 * orion.cpp: layer norms with biases (norm_opt_b). minimax-m2.cpp:
 * olmoe's q/k norms, experts ff wide with a selection bias, normalised. */
#include "graph.h"

#include <stdio.h>
#include <string.h>

/* qwen2moe.cpp's FFN: softmax-routed experts, their weights not
 * normalised (scaled when expert_weights_scale says), then the shared
 * expert gated by silu(g)/g = sigmoid(g) of its own router row, added. */
static int qwen2moe_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	struct gr_moe_opts o = gr_moe_opts_softmax(m, 0);
	int moe = gr_moe_ex(g, d, il, x, T, &o);
	char nm[64];
	snprintf(nm, sizeof(nm), "blk.%d.ffn_up_shexp.weight", il);
	const struct gguf_tensor *up = d->w->gg ? gguf_tensor_find(d->w->gg, nm) : NULL;
	int64_t F = up && up->n_dims >= 2 ? (int64_t)up->ne[1] : d->F;
	int sh = gr_ffn_shexp(g, d, il, x, T, F);
	int gi = gr_mm(g, d, il, "ffn_gate_inp_shexp.weight", x, 1, T);
	int gate = ga_op(g, 1, F32, 1, T, 1, 1, S(ga_op(g, 1, F32, 1, T, 1, 1, S(gi)), gi));
	sh = ga_op(g, 1, F32, d->E, T, 1, 1, S(sh, gate));
	return ga_op(g, 1, F32, d->E, T, 1, 1, S(moe, sh));
}

/* ernie4-5-moe.cpp: the layer's FFN is routed on layers at or after
 * leading_dense_block_count that interleave_moe_layer_step divides (il + 1
 * by), dense on the others */
static int ernie_moe_layer(const struct dims *d, const struct model *m, uint32_t il)
{
	uint64_t lead = 0, step = 0;
	if (d->w->gg) {
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.leading_dense_block_count", m->arch), &lead);
		gguf_kv_u64(gguf_findf(d->w->gg, "%s.interleave_moe_layer_step", m->arch), &step);
	}
	return step > 0 && il >= lead && (il + 1) % step == 0;
}

/* the routed experts (build_moe_ffn, softmax) with the payload's
 * selection bias and the family's normalisation, then a shared expert
 * added when the layer has one */
static int moe_shexp(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T,
		     int norm_w)
{
	struct gr_moe_opts o = gr_moe_opts_softmax(m, norm_w);
	o.probs_b = gr_has_tensor(d, il, "exp_probs_b.bias");
	char nm[64];
	snprintf(nm, sizeof(nm), "blk.%d.ffn_up_shexp.weight", il);
	const struct gguf_tensor *sh = d->w->gg ? gguf_tensor_find(d->w->gg, nm) : NULL;
	return sh ? gr_moe_shared(g, d, il, x, T, &o, (int64_t)sh->ne[1]) : gr_moe_ex(g, d, il, x, T, &o);
}

/* a per-head norm of q or k before RoPE, with its bias when the payload
 * has one (apertus) */
static int qk_norm_b(struct ga_graph *g, const struct dims *d, int x, int64_t H, int64_t T, int il, const char *w)
{
	char nm[48];
	snprintf(nm, sizeof(nm), "%s.weight", w);
	int n = gr_norm(g, d, x, d->D, H, T, il, nm);
	snprintf(nm, sizeof(nm), "%s.bias", w);
	if (gr_has_tensor(d, il, nm))
		n = ga_op(g, 1, F32, d->D, H, T, 1, S(n, gr_weight(g, d, il, nm)));
	return n;
}

/* build_norm: the norm (rms or layer: the same sizes), the weight, and
 * the bias when the payload has one (orion's layer norms) */
static int norm_opt_b(struct ga_graph *g, const struct dims *d, int x, int64_t T, int il, const char *w)
{
	char nm[48];
	snprintf(nm, sizeof(nm), "%s.weight", w);
	int n = gr_norm(g, d, x, d->E, T, 1, il, nm);
	snprintf(nm, sizeof(nm), "%s.bias", w);
	const struct gguf_tensor *b = NULL;
	if (il >= 0 && gr_has_tensor(d, il, nm))
		n = ga_op(g, 1, F32, d->E, T, 1, 1, S(n, gr_weight(g, d, il, nm)));
	else if (il < 0 && d->w->gg && (b = gguf_tensor_find(d->w->gg, nm)) != NULL)
		n = ga_op(g, 1, F32, d->E, T, 1, 1, S(n, gr_weight(g, d, il, nm)));
	return n;
}

static uint32_t n_layer_all_trunk(const struct model *m)
{
	return m->n_layer_all - m->n_nextn;
}

/* How a family's q and k are made (llama's kin): a norm over the whole
 * row before the view (olmoe, minimax-m2), a biased norm per head after
 * it (apertus), rope (at pos), a norm per head after rope
 * (hunyuan-dense) */
struct qk_rules {
	int whole_norm, norm_b, rope, late_norm, pos;
};

/* q or k (c: 'q' or 'k', H heads) of layer L over the normed input an:
 * attn_c (biased when the payload has attn_c.bias), then as r says */
static int qk_proj(struct ga_graph *g, const struct dims *d, int L, char c, int an, int64_t H, const struct qk_rules *r)
{
	int64_t T = d->T;
	char w[32], b[32], nw[32], nb[32];
	snprintf(w, sizeof(w), "attn_%c.weight", c);
	snprintf(b, sizeof(b), "attn_%c.bias", c);
	snprintf(nb, sizeof(nb), "attn_%c_norm", c);
	snprintf(nw, sizeof(nw), "attn_%c_norm.weight", c);
	int x = gr_mm_b(g, d, L, w, b, an, d->D * H, T);
	if (r->whole_norm)
		x = gr_norm(g, d, x, d->D * H, T, 1, L, nw);
	x = ga_view(g, x);
	if (r->norm_b)
		x = qk_norm_b(g, d, x, H, T, L, nb);
	if (r->rope)
		x = gr_rope(g, x, r->pos, d->D, H, T);
	if (r->late_norm)
		x = gr_norm(g, d, x, d->D, H, T, L, nw);
	return x;
}

/* The feed-forward part of layer L of the families gr_mistral3 builds:
 * dense (SwiGLU; apertus' xIELU, arcee's squared ReLU, glm4's fused up
 * with its post norm) or experts (qwen2moe's, olmoe's and hunyuan's shared
 * expert, deepseek's after its dense lead, minimax-m2's biased gating,
 * ernie's interleave, granitemoe's optional shared expert). */
static int m3_ffn(struct ga_graph *g, const struct model *m, const struct dims *d, int L, int fn, int64_t Tn)
{
	uint32_t il = (uint32_t)L;
	int apertus = strcmp(m->arch, "apertus") == 0, arcee = strcmp(m->arch, "arcee") == 0;
	int glm4 = strcmp(m->arch, "glm4") == 0, minimax = strcmp(m->arch, "minimax-m2") == 0;
	int hunyuan = strcmp(m->arch, "hunyuan-moe") == 0, deepseek = strcmp(m->arch, "deepseek") == 0;
	int olmoe = strcmp(m->arch, "olmoe") == 0, ernie = strcmp(m->arch, "ernie4_5-moe") == 0;
	if (strcmp(m->arch, "qwen2moe") == 0) {
		return qwen2moe_ffn(g, m, d, L, fn, Tn);
	} else if (olmoe || hunyuan) {
		struct dims de = *d; /* the expert stacks are feed_forward_length wide */
		de.F_exp = d->F;
		return moe_shexp(g, m, &de, L, fn, Tn, hunyuan);
	} else if (deepseek) { /* leading_dense_block_count dense layers, then experts */
		uint64_t lead = 0;
		if (d->w->gg)
			gguf_kv_u64(gguf_findf(d->w->gg, "%s.leading_dense_block_count", m->arch), &lead);
		return il < lead ? gr_ffn(g, d, L, fn, Tn) : moe_shexp(g, m, d, L, fn, Tn, 0);
	} else if (minimax) {
		struct dims de = *d;
		de.F_exp = d->F;
		/* minimax-m2.cpp: its loader reads no expert_weights_scale; the
		 * replay builds softmax's nodes whatever the gating (the engine
		 * builds sigmoid's for gating 2: ggml-vulkan orders them apart) */
		struct gr_moe_opts mo = gr_moe_opts_of(m);
		mo.sigmoid = 0;
		mo.probs_b = 1;
		mo.norm_w = 1;
		mo.scale = 0;
		return gr_moe_ex(g, &de, L, fn, Tn, &mo);
	} else if (ernie) {
		return ernie_moe_layer(d, m, il) ? moe_shexp(g, m, d, L, fn, Tn, 1) : gr_ffn(g, d, L, fn, Tn);
	} else if (gr_has_tensor(d, L, "ffn_gate_inp.weight")) {
		struct dims de = *d; /* the expert stacks are feed_forward_length wide */
		de.F_exp = d->F;
		int fo = gr_moe(g, &de, L, fn, Tn);
		char nm[64];
		snprintf(nm, sizeof(nm), "blk.%d.ffn_up_shexp.weight", L);
		const struct gguf_tensor *sh = d->w->gg ? gguf_tensor_find(d->w->gg, nm) : NULL;
		if (sh) /* Granite MoE Shared: the shared expert added after */
			return ga_op(g, 1, F32, d->E, Tn, 1, 1,
				     S(fo, gr_ffn_shexp(g, d, L, fn, Tn, (int64_t)sh->ne[1])));
		return fo;
	} else if (apertus) { /* up, xIELU, down */
		int up = gr_mm(g, d, L, "ffn_up.weight", fn, d->F, Tn);
		return gr_mm(g, d, L, "ffn_down.weight", ga_op(g, 1, F32, d->F, Tn, 1, 1, S(up)), d->E, Tn);
	} else if (arcee) { /* build_ffn RELU_SQR, SEQ: up, relu, sqr, down */
		int up = gr_mm(g, d, L, "ffn_up.weight", fn, d->F, Tn);
		up = ga_op(g, 1, F32, d->F, Tn, 1, 1, S(ga_op(g, 1, F32, d->F, Tn, 1, 1, S(up))));
		return gr_mm(g, d, L, "ffn_down.weight", up, d->E, Tn);
	} else if (glm4) { /* build_ffn SWIGLU, SEQ: up (2 x ff), swiglu, down; the post norm */
		int up = gr_mm(g, d, L, "ffn_up.weight", fn, 2 * d->F, Tn);
		int glu = ga_op(g, 0, F32, d->F, Tn, 1, 1, S(up));
		int fo = gr_mm(g, d, L, "ffn_down.weight", glu, d->E, Tn);
		return gr_norm(g, d, fo, d->E, Tn, 1, L, "post_ffw_norm.weight");
	}
	return gr_ffn(g, d, L, fn, Tn);
}

void gr_mistral3(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	double temp = 0;
	if (d->w->gg)
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.attention.temperature_scale", m->arch), &temp);
	int attn_scale = -1;
	/* minicpm.cpp builds granite.cpp's graph, its scales always set (the
	 * engine's defaults when the keys are absent: 12, 1.4/sqrt(n_layer),
	 * 256/n_embd) and RoPE always on */
	int minicpm = strcmp(m->arch, "minicpm") == 0;
	int granite = strncmp(m->arch, "granite", 7) == 0 || minicpm;
	int glm4 = strcmp(m->arch, "glm4") == 0;
	/* hunyuan-moe, hunyuan-dense and hunyuan-vl norm q and k after RoPE */
	int hy_norm = strncmp(m->arch, "hunyuan", 7) == 0 || strcmp(m->arch, "maincoder") == 0;
	int apertus = strcmp(m->arch, "apertus") == 0, olmoe = strcmp(m->arch, "olmoe") == 0;
	/* minimax-m2.cpp: olmoe's q/k norms; experts ff wide, gated as the
	 * payload says, a selection bias, weights normalised, never scaled
	 * (its load_arch_hparams reads no expert_weights_scale) */
	int minimax = strcmp(m->arch, "minimax-m2") == 0;
	double emb_scale = 0, res_scale = 0;
	int rope_on = 1;
	if (minicpm) {
		emb_scale = 1;
		res_scale = 1;
	} else if (granite && d->w->gg) {
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.embedding_scale", m->arch), &emb_scale);
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.residual_scale", m->arch), &res_scale);
		gguf_kv_bool(gguf_findf(d->w->gg, "%s.rope.scaling.finetuned", m->arch), &rope_on);
	}
	/* baichuan.cpp ropes only the 7B (its load_arch_hparams: 32 layers);
	 * the 13B and unknown sizes attend with ALiBi */
	if (strcmp(m->arch, "baichuan") == 0)
		rope_on = n_layer_all_trunk(m) == 32;
	const char *ffn_norm = strcmp(m->arch, "seed_oss") == 0 ? "post_attention_norm" : "ffn_norm";
	uint32_t no_rope_step = strcmp(m->arch, "smollm3") == 0 ? 4 : 0;
	int x = gr_input_embd(g, d, in);
	if (emb_scale != 0)
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(x));
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = norm_opt_b(g, d, x, T, L, "attn_norm");
		/* ggml finds the K rotation (src0 of q's rotation) before the
		 * positions */
		if (d->k_rot)
			gr_input_once(g, &in->k_rot, (uint64_t)d->k_rot * d->k_rot * 4);
		int pos = rope_on ? gr_input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1)) : -1;
		int rope = rope_on && (!no_rope_step || (il + 1) % no_rope_step != 0);
		const struct qk_rules qr = {olmoe || minimax, apertus, rope, hy_norm, pos};
		int q = qk_proj(g, d, L, 'q', an, d->H, &qr);
		if (temp != 0) {
			int ts = gr_input_once(g, &attn_scale, (uint64_t)T * 4);
			q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(q, ts));
		}
		q = gr_rotate(g, q, d->D * d->H * T, d->k_rot, &in->k_rot);
		int v = ga_view(g, gr_mm_b(g, d, L, "attn_v.weight", "attn_v.bias", an, d->D * d->Hkv, T));
		v = gr_rotate(g, v, d->D * d->Hkv * T, d->v_rot, &in->v_rot);
		int k = qk_proj(g, d, L, 'k', an, d->Hkv, &qr);
		k = gr_rotate(g, k, d->D * d->Hkv * T, d->k_rot, &in->k_rot);
		int o = gr_attend(g, d, in, L, q, k, v, 0);
		o = gr_rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, &in->v_rot);
		int cur = gr_mm_b(g, d, L, "attn_output.weight", "attn_output.bias", ga_view(g, o), d->E, T);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1)
			Tn = gr_out_rows(g, d, in, &cur, &res, 1);
		if (res_scale != 0)
			cur = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur));
		if (glm4)
			cur = gr_norm(g, d, cur, d->E, Tn, 1, L, "post_attention_norm.weight");
		int fi = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
		int fn = norm_opt_b(g, d, fi, Tn, L, ffn_norm);
		int fo = m3_ffn(g, m, d, L, fn, Tn);
		if (res_scale != 0)
			fo = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo));
		x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, fi));
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = norm_opt_b(g, d, x, To, -1, "output_norm");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	if (granite) /* the logits scaled by 1/logit_scale */
		out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out));
	g->t[out].output = 1;
}
