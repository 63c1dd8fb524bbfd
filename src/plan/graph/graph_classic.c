/* graph_classic: the classic dense decoders of the pinned engine,
 * src/models/starcoder2.cpp, phi2.cpp, stablelm.cpp, olmo.cpp, qwen.cpp,
 * gpt2.cpp, gptneox.cpp, falcon.cpp, mpt.cpp, bloom.cpp, starcoder.cpp,
 * refact.cpp, codeshell.cpp, jais.cpp, jais2.cpp, nemotron.cpp, plamo.cpp,
 * chameleon.cpp, bitnet.cpp, chatglm.cpp, plamo3.cpp, talkie.cpp,
 * nanbeige.cpp, deci.cpp, openelm.cpp, cogvlm.cpp, pangu-embed.cpp and
 * pockettts.cpp. One block with their
 * differences as data (the table below):
 *
 *  - norms: layer norms (ggml_norm, never in place; its weight and bias
 *    when the payload has them, olmo's and talkie's have neither) or RMS
 *    norms; bloom layer-norms the embeddings too (token_embd_norm, its
 *    norm named in layer 0), talkie RMS-norms them and keeps them as a
 *    skip every layer scales and adds;
 *  - q, k and v through build_qkv: one attn_qkv and three strided views
 *    of it, or three projections, each bias (and build_lora_mm's W.scale)
 *    added when the payload has it (and clamped by attention.clamp_kqv
 *    where olmo and mpt read it); the per-head q/k norms the payload has
 *    (layer norms: stablelm, chameleon; RMS: plamo3, openelm; after RoPE:
 *    talkie); RoPE (partial or not: the same node) unless the family has
 *    none (gpt2 and starcoder add learned position embeddings to the
 *    input, mpt when the payload has them; bloom, refact, mpt and jais
 *    attend with ALiBi, which only the mask's values and the softmax's
 *    parameter carry); phi2 scales q after RoPE;
 *  - the FFN: up (its bias), GELU (mpt's act scales divided in) or ReLU
 *    squared, down (its bias); up 2 x ff split by SwiGLU (chatglm,
 *    plamo3); or llama's gate, up and SwiGLU (qwen's ff/2 wide, jais's
 *    biased, bitnet's normed before down);
 *  - the block's tail, in the order ggml's expand visits it: sequential
 *    (the attention's projection, the residual, the FFN norm, the FFN);
 *    phi2's parallel block (attention + FFN of the attention's norm +
 *    input); falcon's and plamo's (FFN first, then the attention, then
 *    the input); gptneox's use_parallel_residual (the FFN of its own norm
 *    of the input, the input, then the attention); stablelm's without an
 *    FFN norm (the FFN of the attention's norm, then attention + input);
 *    plamo3's post norms; openelm's input-first residual;
 *  - deci's and openelm's heads, KV heads and FFN widths per layer.
 * In the last layer each operand keeps the output rows where it is read,
 * but cogvlm's graph reads no output ids: every row to the logits (its
 * text tokens' weights; the image tokens' are payload alone). */
#include "graph.h"

#include <stdio.h>
#include <string.h>

enum {
	C_RMS = 1,	   /* RMS norms */
	C_ROPE = 2,	   /* RoPE on q and k */
	C_QSCALE = 4,	   /* q scaled after RoPE (phi2) */
	C_GELU = 8,	   /* up, GELU, down */
	C_HALF_FF = 16,	   /* the gated FFN ff/2 wide (qwen) */
	C_CLAMP = 32,	   /* attention.clamp_kqv read (olmo, mpt) */
	C_RELU2 = 64,	   /* up, ReLU, square, down (jais2, nemotron) */
	C_SUBNORM = 128,   /* bitnet: sub-norms before attn_output and ffn_down, the output is token_embd */
	C_IMG = 256,	   /* chameleon: the image tokens' logits set to -FLT_MAX */
	C_SWIGLU1 = 512,   /* up 2 x ff wide, SwiGLU of its halves, down (chatglm, plamo3) */
	C_QK_RMS = 1024,   /* q/k norms RMS (else layer norms) */
	C_TALKIE = 2048,   /* the input normed, q and k normed after RoPE, the logits scaled */
	C_DECI = 4096,	   /* per-layer heads and widths: no attention, attn_output alone, no FFN */
	C_LAYERS = 8192,   /* heads, KV heads and FFN width per layer (openelm) */
	C_ALLROWS = 16384, /* no output ids: every token's row to the logits (cogvlm) */
};
enum { T_SEQ, T_PHI2, T_FALCON, T_NEOX, T_STABLELM, T_POST, T_TALKIE, T_RESFIRST };

struct classic {
	const char *arch;
	unsigned how; /* C_* */
	int tail;     /* T_* */
};

static const struct classic classics[] = {
    {"starcoder2", C_ROPE | C_GELU, T_SEQ},
    {"phi2", C_ROPE | C_QSCALE | C_GELU, T_PHI2},
    {"stablelm", C_ROPE, T_STABLELM},
    {"olmo", C_ROPE | C_CLAMP, T_SEQ},
    {"qwen", C_RMS | C_ROPE | C_HALF_FF, T_SEQ},
    {"gpt2", C_GELU, T_SEQ},
    {"gptneox", C_ROPE | C_GELU, T_NEOX},
    {"falcon", C_ROPE | C_GELU, T_FALCON},
    {"mpt", C_GELU | C_CLAMP, T_SEQ},
    {"bloom", C_GELU, T_SEQ},
    {"starcoder", C_GELU, T_SEQ},
    {"refact", C_RMS, T_SEQ},
    {"codeshell", C_ROPE | C_GELU, T_SEQ},
    {"jais", 0, T_SEQ},
    {"jais2", C_ROPE | C_RELU2, T_SEQ},
    {"nemotron", C_ROPE | C_RELU2, T_SEQ},
    {"plamo", C_RMS | C_ROPE, T_FALCON},
    {"chameleon", C_RMS | C_ROPE | C_IMG, T_SEQ},
    {"bitnet", C_RMS | C_ROPE | C_SUBNORM, T_SEQ},
    {"chatglm", C_RMS | C_ROPE | C_SWIGLU1, T_SEQ},
    {"plamo3", C_RMS | C_ROPE | C_SWIGLU1 | C_QK_RMS, T_POST},
    {"talkie", C_RMS | C_ROPE | C_QK_RMS | C_TALKIE, T_TALKIE},
    {"nanbeige", C_RMS | C_ROPE, T_SEQ},
    {"deci", C_RMS | C_ROPE | C_DECI, T_SEQ},
    {"openelm", C_RMS | C_ROPE | C_QK_RMS | C_LAYERS, T_RESFIRST},
    {"cogvlm", C_RMS | C_ROPE | C_ALLROWS, T_SEQ},
    {"pangu-embedded", C_RMS | C_ROPE, T_SEQ},
    {"pockettts", C_ROPE | C_GELU, T_SEQ},
};

/* The payload holds NAME (il >= 0: blk.IL.NAME). */
static int cl_has(const struct dims *d, int il, const char *name)
{
	if (il >= 0)
		return gr_has_tensor(d, il, name);
	return d->w->gg && gguf_tensor_find(d->w->gg, name) != NULL;
}

/* a norm's weight: layer wl's, or a global one (the embeddings' norm is
 * layer 0's: LLM_TENSOR_TOKEN_EMBD_NORM, "do the norms on the first
 * layer") */
static int cl_weight(struct ga_graph *g, const struct dims *d, int wl, const char *name)
{
	if (wl < 0 && strncmp(name, "token_embd_norm.", 16) == 0)
		return gr_weight_at(g, d, name, 0);
	return gr_weight(g, d, wl, name);
}

/* build_norm over x (ne0 x ne1 x ne2): the norm, named "norm" (pinned to
 * layer pin's device) when it has a weight or bias, then the weight and the
 * bias the payload has, of layer wl (-1: the global ones) */
static int cl_norm(struct ga_graph *g, const struct dims *d, int rms, int x, int64_t ne0, int64_t ne1, int64_t ne2,
		   int wl, int pin, const char *base)
{
	char w[64], b[64];
	snprintf(w, sizeof(w), "%s.weight", base);
	snprintf(b, sizeof(b), "%s.bias", base);
	int hw = cl_has(d, wl, w), hb = cl_has(d, wl, b);
	int n = ga_op(g, rms, F32, ne0, ne1, ne2, 1, S(x));
	if ((hw || hb) && pin >= 0 && d->w->force_norm)
		g->t[n].force = gr_backend_of(d->w, d->w->pl->layer ? d->w->pl->layer[pin] : -1);
	if (hw)
		n = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(n, cl_weight(g, d, wl, w)));
	if (hb)
		n = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(n, cl_weight(g, d, wl, b)));
	return n;
}

/* build_lora_mm (its scale, W.scale, when the payload has one), the bias
 * the payload has (in place), clamped when asked */
static int cl_mm(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x, int64_t ne0,
		 int64_t T, int clamp)
{
	int y = gr_mm(g, d, il, w, x, ne0, T);
	char sc[64];
	snprintf(sc, sizeof(sc), "%.*s.scale", (int)(strlen(w) - strlen(".weight")), w);
	if (gr_has_tensor(d, il, sc))
		y = ga_op(g, 1, F32, ne0, T, 1, 1, S(y, gr_weight(g, d, il, sc)));
	if (b && gr_has_tensor(d, il, b))
		y = ga_op(g, 1, F32, ne0, T, 1, 1, S(y, gr_weight(g, d, il, b)));
	if (clamp)
		y = ga_op(g, 1, F32, ne0, T, 1, 1, S(y));
	return y;
}

/* q or k after its projection: the per-head norm the payload has
 * (stablelm, chameleon, plamo3), RoPE; talkie's norms after RoPE, k's
 * without a weight */
static int cl_qk(struct ga_graph *g, const struct dims *d, const struct classic *c, int il, int x, int64_t H,
		 const char *base, int pos)
{
	char nm[48];
	snprintf(nm, sizeof(nm), "%s.weight", base);
	int late = (c->how & C_TALKIE) != 0, rms = (c->how & C_QK_RMS) != 0;
	if (!late && gr_has_tensor(d, il, nm))
		x = cl_norm(g, d, rms, x, d->D, H, d->T, il, il, base);
	if (pos >= 0)
		x = gr_rope(g, x, pos, d->D, H, d->T);
	return late ? cl_norm(g, d, rms, x, d->D, H, d->T, il, il, base) : x;
}

/* build_qkv, RoPE, build_attn up to the attention (q, v, k expanded in
 * that order, the cache stores, the attention) */
static int cl_attn(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in,
		   const struct classic *c, int il, int an)
{
	int64_t T = d->T, nq = d->D * d->H, nkv = d->D * d->Hkv;
	double clampv = 0;
	if ((c->how & C_CLAMP) && d->w->gg)
		gguf_kv_f64(gguf_findf(d->w->gg, "%s.attention.clamp_kqv", m->arch), &clampv);
	int clamp = clampv > 0;
	if (d->k_rot)
		gr_input_once(g, &in->k_rot, (uint64_t)d->k_rot * d->k_rot * 4);
	int pos = c->how & C_ROPE ? gr_input_once(g, &in->pos, (uint64_t)T * 4) : -1;
	int fused = gr_has_tensor(d, il, "attn_qkv.weight"), qkv = -1;
	uint64_t row = (uint64_t)(nq + 2 * nkv) * 4;
	int q;
	if (fused) {
		qkv = cl_mm(g, d, il, "attn_qkv.weight", "attn_qkv.bias", an, nq + 2 * nkv, T, clamp);
		q = ga_view_n(g, qkv, (uint64_t)nq * 4 + (T - 1) * row);
	} else {
		q = ga_view(g, cl_mm(g, d, il, "attn_q.weight", "attn_q.bias", an, nq, T, clamp));
	}
	q = cl_qk(g, d, c, il, q, d->H, "attn_q_norm", pos);
	if (c->how & C_QSCALE)
		q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(q));
	q = gr_rotate(g, q, nq * T, d->k_rot, &in->k_rot);
	int v = fused ? ga_view_n(g, qkv, (uint64_t)nkv * 4 + (T - 1) * row)
		      : ga_view(g, cl_mm(g, d, il, "attn_v.weight", "attn_v.bias", an, nkv, T, clamp));
	v = gr_rotate(g, v, nkv * T, d->v_rot, &in->v_rot);
	int k = fused ? ga_view_n(g, qkv, (uint64_t)nkv * 4 + (T - 1) * row)
		      : ga_view(g, cl_mm(g, d, il, "attn_k.weight", "attn_k.bias", an, nkv, T, clamp));
	k = cl_qk(g, d, c, il, k, d->Hkv, "attn_k_norm", pos);
	k = gr_rotate(g, k, nkv * T, d->k_rot, &in->k_rot);
	return gr_attend(g, d, in, il, q, k, v, 0);
}

/* build_attn's end: the V rotation undone, (bitnet) the sub-norm,
 * attn_output and its bias */
static int cl_wo(struct ga_graph *g, const struct dims *d, const struct classic *c, struct inputs *in, int il, int o)
{
	o = gr_rotate(g, ga_view(g, o), d->D * d->H * d->T, d->v_rot, &in->v_rot);
	o = ga_view(g, o);
	if (c->how & C_SUBNORM)
		o = cl_norm(g, d, 1, o, d->D * d->H, d->T, 1, il, il, "attn_sub_norm");
	return cl_mm(g, d, il, "attn_output.weight", "attn_output.bias", o, d->E, d->T, 0);
}

/* build_ffn: GELU over up (SEQ), or SwiGLU of gate and up (PAR) */
static int cl_ffn(struct ga_graph *g, const struct dims *d, const struct classic *c, int il, int x, int64_t T)
{
	if (c->how & (C_GELU | C_RELU2)) {
		int up = cl_mm(g, d, il, "ffn_up.weight", "ffn_up.bias", x, d->F, T, 0);
		up = ga_op(g, 1, F32, d->F, T, 1, 1, S(up));
		if (c->how & C_RELU2) /* the square of the ReLU */
			up = ga_op(g, 1, F32, d->F, T, 1, 1, S(up));
		if (gr_has_tensor(d, il, "ffn_act.scales")) /* mpt's act scales */
			up = ga_op(g, 1, F32, d->F, T, 1, 1, S(up, gr_weight(g, d, il, "ffn_act.scales")));
		return cl_mm(g, d, il, "ffn_down.weight", "ffn_down.bias", up, d->E, T, 0);
	}
	if (c->how & C_SWIGLU1) { /* build_ffn SWIGLU, SEQ */
		int up = cl_mm(g, d, il, "ffn_up.weight", NULL, x, 2 * d->F, T, 0);
		int glu = ga_op(g, 0, F32, d->F, T, 1, 1, S(up));
		return cl_mm(g, d, il, "ffn_down.weight", NULL, glu, d->E, T, 0);
	}
	int64_t F = c->how & C_HALF_FF ? d->F / 2 : d->F;
	int gate = cl_mm(g, d, il, "ffn_gate.weight", "ffn_gate.bias", x, F, T, 0);
	int up = cl_mm(g, d, il, "ffn_up.weight", "ffn_up.bias", x, F, T, 0);
	int glu = ga_op(g, 0, F32, F, T, 1, 1, S(gate, up));
	if (c->how & C_SUBNORM)
		glu = cl_norm(g, d, 1, glu, F, T, 1, il, il, "ffn_sub_norm");
	return cl_mm(g, d, il, "ffn_down.weight", "ffn_down.bias", glu, d->E, T, 0);
}

/* the rows a layer's operand keeps: all, or (the last layer, fewer
 * outputs than tokens) the output rows */
struct cl_rows {
	int fewer;
	int64_t Tn;
	int *ids;
};

static int cl_row(struct ga_graph *g, const struct dims *d, const struct cl_rows *r, int t)
{
	if (!r->fewer)
		return t;
	int ids = gr_input_once(g, r->ids, (uint64_t)r->Tn * 4);
	return gr_op_kind(g, ga_op(g, 0, F32, d->E, r->Tn, 1, 1, S(t, ids)), GA_OP_GET_ROWS);
}

/* the tails of plamo3 (post norms) and talkie (the normed input, scaled,
 * added after the FFN): the output rows of the attention (o), the input
 * x and talkie's skip, in the order ggml's expand visits them */
static int cl_tail_post(struct ga_graph *g, const struct dims *d, const struct classic *c, struct inputs *in, int il,
			int o, int x, int skip, const struct cl_rows *r)
{
	int64_t Tn = r->Tn;
	int cur = cl_row(g, d, r, cl_wo(g, d, c, in, il, o));
	if (c->tail == T_POST) /* tn(LLM_TENSOR_ATTN_POST_NORM, il): no ".weight" */
		cur = gr_norm(g, d, cur, d->E, Tn, 1, il, "post_attention_norm");
	int s = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, cl_row(g, d, r, x)));
	int fo = cl_ffn(g, d, c, il, cl_norm(g, d, 1, s, d->E, Tn, 1, il, il, "ffn_norm"), Tn);
	if (c->tail == T_POST)
		fo = gr_norm(g, d, fo, d->E, Tn, 1, il, "post_ffw_norm");
	s = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, s));
	if (c->tail != T_TALKIE)
		return s;
	int sk = ga_op(g, 1, F32, d->E, Tn, 1, 1,
		       S(cl_row(g, d, r, skip), gr_weight(g, d, il, "layer_output_scale.weight")));
	return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(s, sk));
}

static int cl_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in,
		    const struct classic *c, int il, int x, int skip, int last)
{
	int rms = (c->how & C_RMS) != 0;
	int tail = c->tail;
	if (tail == T_NEOX && d->w->gg) { /* use_parallel_residual, else sequential */
		int par = 0;
		gguf_kv_bool(gguf_findf(d->w->gg, "%s.use_parallel_residual", m->arch), &par);
		tail = par ? T_NEOX : T_SEQ;
	}
	if (tail == T_STABLELM && gr_has_tensor(d, il, "ffn_norm.weight"))
		tail = T_SEQ;
	/* falcon-40b's second attention norm feeds q, k and v; the first is
	 * then reached only from the FFN */
	int n2 = tail == T_FALCON && gr_has_tensor(d, il, "attn_norm_2.weight");
	int an = n2 ? -1 : cl_norm(g, d, rms, x, d->E, d->T, 1, il, il, "attn_norm");
	int o = cl_attn(g, m, d, in, c, il, n2 ? cl_norm(g, d, rms, x, d->E, d->T, 1, il, il, "attn_norm_2") : an);
	struct cl_rows r = {last && d->n_out < d->T, last && d->n_out < d->T ? d->n_out : d->T, &in->out_ids};
	int64_t Tn = r.Tn;
	int cur, fo, s, xr;
	switch (tail) {
	case T_POST:
	case T_TALKIE: return cl_tail_post(g, d, c, in, il, o, x, skip, &r);
	case T_PHI2: /* (attention + FFN(attn norm)) + input */
		cur = cl_row(g, d, &r, cl_wo(g, d, c, in, il, o));
		fo = cl_ffn(g, d, c, il, cl_row(g, d, &r, an), Tn);
		s = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, fo));
		return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(s, cl_row(g, d, &r, x)));
	case T_FALCON: /* (FFN(attn norm) + attention) + input */
		if (an < 0)
			an = cl_norm(g, d, rms, x, d->E, d->T, 1, il, il, "attn_norm");
		fo = cl_ffn(g, d, c, il, cl_row(g, d, &r, an), Tn);
		cur = cl_row(g, d, &r, cl_wo(g, d, c, in, il, o));
		s = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, cur));
		return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(s, cl_row(g, d, &r, x)));
	case T_NEOX: /* (FFN(ffn norm(input)) + input) + attention */
		xr = cl_row(g, d, &r, x);
		fo = cl_ffn(g, d, c, il, cl_norm(g, d, rms, xr, d->E, Tn, 1, il, il, "ffn_norm"), Tn);
		s = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, xr));
		cur = cl_row(g, d, &r, cl_wo(g, d, c, in, il, o));
		return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(s, cur));
	case T_RESFIRST: /* openelm: input + attention, the FFN norm, the FFN */
		xr = cl_row(g, d, &r, x);
		s = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(xr, cl_row(g, d, &r, cl_wo(g, d, c, in, il, o))));
		fo = cl_ffn(g, d, c, il, cl_norm(g, d, rms, s, d->E, Tn, 1, il, il, "ffn_norm"), Tn);
		return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, s));
	case T_STABLELM: /* FFN(attn norm) + (attention + input) */
		fo = cl_ffn(g, d, c, il, cl_row(g, d, &r, an), Tn);
		cur = cl_row(g, d, &r, cl_wo(g, d, c, in, il, o));
		s = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, cl_row(g, d, &r, x)));
		return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, s));
	default: /* the residual, the FFN norm, the FFN, the residual */
		cur = cl_row(g, d, &r, cl_wo(g, d, c, in, il, o));
		s = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, cl_row(g, d, &r, x)));
		fo = cl_ffn(g, d, c, il, cl_norm(g, d, rms, s, d->E, Tn, 1, il, il, "ffn_norm"), Tn);
		return ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, s));
	}
}

/* deci.cpp's layer il, its heads and FFN width its own (dl): no attention
 * (no heads: the input as it is), attn_output alone over the norm (no KV
 * heads), or the attention; no FFN (width 0: the layer's output is
 * dropped, its input goes on, *rows not cut); else the residual, the FFN
 * norm and the FFN. */
/* layer il's own dims: its heads, KV heads (the cache rows scaled to
 * them) and FFN width */
static struct dims cl_dims(const struct model *m, const struct dims *d, int il)
{
	struct dims dl = *d;
	dl.H = m->n_head[il];
	dl.Hkv = m->n_head_kv[il];
	dl.F = m->n_ff_layer ? m->n_ff_layer[il] : d->F;
	if (dl.Hkv && d->Hkv) {
		dl.k_row = d->k_row / (uint64_t)d->Hkv * (uint64_t)dl.Hkv;
		dl.v_row = d->v_row / (uint64_t)d->Hkv * (uint64_t)dl.Hkv;
	}
	return dl;
}

static int cl_deci_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in,
			 const struct classic *c, int il, int x, int last, int64_t *rows)
{
	struct dims dl = cl_dims(m, d, il);
	/* build_attn expands the attention whatever follows; attn_output
	 * (and the norm, without KV heads) only a later add reaches */
	int an = dl.H && (dl.Hkv || dl.F) ? cl_norm(g, d, 1, x, d->E, d->T, 1, il, il, "attn_norm") : -1;
	int o = dl.H && dl.Hkv ? cl_attn(g, m, &dl, in, c, il, an) : -1;
	if (!dl.F)
		return x;
	int cur = !dl.H	   ? x
		  : dl.Hkv ? cl_wo(g, &dl, c, in, il, o)
			   : gr_mm(g, d, il, "attn_output.weight", an, d->E, d->T);
	struct cl_rows r = {last && d->n_out < d->T, last && d->n_out < d->T ? d->n_out : d->T, &in->out_ids};
	*rows = r.Tn;
	cur = cl_row(g, d, &r, cur);
	int fi = dl.H ? ga_op(g, 1, F32, d->E, r.Tn, 1, 1, S(cur, cl_row(g, d, &r, x))) : cur;
	int fo = cl_ffn(g, &dl, c, il, cl_norm(g, d, 1, fi, d->E, r.Tn, 1, il, il, "ffn_norm"), r.Tn);
	return ga_op(g, 1, F32, d->E, r.Tn, 1, 1, S(fo, fi));
}

void gr_classic(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	const struct classic *c = &classics[0];
	for (size_t i = 0; i < sizeof(classics) / sizeof(classics[0]); i++)
		if (strcmp(classics[i].arch, m->arch) == 0)
			c = &classics[i];
	int64_t T = d->T;
	int x = gr_input_embd(g, d, in);
	if (cl_has(d, -1, "position_embd.weight")) { /* learned positions, added */
		int pos = gr_input_once(g, &in->pos, (uint64_t)T * 4);
		int pe = gr_op_kind(
		    g, ga_op(g, 0, F32, d->E, T, 1, 1, S(gr_weight_at(g, d, "position_embd.weight", -1), pos)),
		    GA_OP_GET_ROWS);
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(x, pe));
	}
	if (cl_has(d, -1, "token_embd_norm.weight")) /* bloom: named in layer 0 */
		x = cl_norm(g, d, 0, x, d->E, T, 1, -1, 0, "token_embd_norm");
	if (c->how & C_TALKIE) /* talkie: the embeddings RMS-normed, no weight */
		x = cl_norm(g, d, 1, x, d->E, T, 1, -1, -1, "token_embd_norm");
	int skip = x;
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int64_t To = d->n_out < T && !(c->how & C_ALLROWS) ? d->n_out : T, rows = T;
	for (uint32_t il = 0; il < n_layer; il++)
		if (c->how & C_DECI)
			x = cl_deci_layer(g, m, d, in, c, (int)il, x, il == n_layer - 1, &rows);
		else if (c->how & C_LAYERS) {
			struct dims dl = cl_dims(m, d, (int)il);
			x = cl_layer(g, m, &dl, in, c, (int)il, x, skip, il == n_layer - 1);
		} else {
			x = cl_layer(g, m, d, in, c, (int)il, x, skip, il == n_layer - 1 && !(c->how & C_ALLROWS));
		}
	if (c->how & C_DECI) /* the rows the last layer with an FFN kept */
		To = rows;
	int rn = cl_norm(g, d, (c->how & C_RMS) != 0, x, d->E, To, 1, -1, -1, "output_norm");
	/* bitnet's logits are token_embd's itself */
	int out = gr_mm(g, d, -1, c->how & C_SUBNORM ? "token_embd.weight" : "output.weight", rn, d->V, To);
	if (cl_has(d, -1, "output.bias"))
		out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out, gr_weight(g, d, -1, "output.bias")));
	if (c->how & C_TALKIE) /* logit_scale */
		out = ga_op(g, 1, F32, d->V, To, 1, 1, S(out));
	if (c->how & C_IMG) {
		/* ggml_set_1d of the clamped image logits: a leaf of 8192
		 * floats (no input: its backend its consumer's) the allocator
		 * places with the leafs, first */
		int img = ga_input(g, 8192 * 4);
		g->t[img].input = 0;
		img = ga_op(g, 1, F32, 8192, 1, 1, 1, S(img));
		out = ga_op(g, 0, F32, d->V, To, 1, 1, S(out, img));
	}
	g->t[out].output = 1;
}
