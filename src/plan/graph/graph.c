/* graph: the steps every family's builder shares (graph.h), and the
 * table of mirrored families. */
#include "graph.h"

#include <stdio.h>
#include <string.h>

#include "../../payload/ggml_type.h"

int gr_op_kind(struct ga_graph *g, int t, int kind)
{
	g->t[t].op = (uint8_t)kind;
	return t;
}

/* llama_mul_mat_hadamard: a quantized cache stores rotated K or V, so the
 * graph multiplies Q and K (or V, and the attention output) by an n x n
 * rotation held as an input. */
int gr_rotate(struct ga_graph *g, int x, int64_t elems, int64_t n, int *slot)
{
	if (!n)
		return x;
	if (*slot < 0)
		*slot = ga_input(g, (uint64_t)n * n * 4);
	int r = gr_op_kind(g, ga_op(g, 0, 0, n, elems / n, 1, 1, S(*slot, ga_view(g, x))), GA_OP_MUL_MAT);
	return ga_view(g, r);
}

int gr_backend_of(const struct where *w, int dev)
{
	return dev < 0 ? w->cpu : dev;
}

/* "blk.IL.SUFFIX" into name (cut to fit, as snprintf would): a plan
 * names every weight of every layer of every graph it builds, and
 * snprintf's parsing of the format was a tenth of a solve. */
static void layer_name(char *name, size_t size, int il, const char *suffix)
{
	char digits[12];
	int nd = 0;
	unsigned v = (unsigned)il;
	do
		digits[nd++] = (char)('0' + v % 10);
	while ((v /= 10) && nd < (int)sizeof(digits));
	size_t k = 0;
	for (const char *p = "blk."; *p && k + 1 < size; p++)
		name[k++] = *p;
	while (nd > 0 && k + 1 < size)
		name[k++] = digits[--nd];
	if (k + 1 < size)
		name[k++] = '.';
	for (const char *p = suffix; *p && k + 1 < size; p++)
		name[k++] = *p;
	name[k] = '\0';
}

/* A weight of layer il (il < 0: the input or output layer), held where
 * the placement puts it. */
int gr_weight(struct ga_graph *g, const struct dims *d, int il, const char *suffix)
{
	const struct where *w = d->w;
	char name[96];
	int64_t layer;
	if (il >= 0) {
		layer_name(name, sizeof(name), il, suffix);
		layer = il;
	} else {
		snprintf(name, sizeof(name), "%s", suffix);
		layer = strncmp(suffix, "token_embd", 10) == 0 ? -1 : (int64_t)w->n_layer_all;
	}
	if (il < 0 && strcmp(suffix, "output.weight") == 0 && !w->has_output) {
		/* the output layer's copy of token_embd, under token_embd's name */
		snprintf(name, sizeof(name), "token_embd.weight");
		layer = w->n_layer_all;
	}
	return gr_weight_at(g, d, name, layer);
}

int gr_weight_at(struct ga_graph *g, const struct dims *d, const char *name, int64_t layer)
{
	const struct where *w = d->w;
	const struct gguf_tensor *t = w->gg ? gguf_tensor_find(w->gg, name) : NULL;
	int h = ga_held(g, gr_backend_of(w, place_weight(w->pl, name, layer)), 1, t ? t->bytes : 0);
	if (t && !t->custom) { /* a copy of it on a card pads its rows (cuda.c) */
		g->t[h].qtype = t->type + 1;
		g->t[h].ne[0] = (int64_t)t->ne[0];
	}
	return h;
}

/* A cache tensor of layer il (KV or recurrent state), on its layer's
 * device unless KV_OFFLOAD=0. */
int gr_cache(struct ga_graph *g, const struct dims *d, int il)
{
	return ga_held(g, gr_backend_of(d->w, place_cache(d->w->pl, (uint32_t)il)), 0, 0);
}

/* a matmul of a weight of layer il with x */
int gr_mm(struct ga_graph *g, const struct dims *d, int il, const char *w, int x, int64_t ne0, int64_t ne1)
{
	return gr_op_kind(g, ga_op(g, 0, F32, ne0, ne1, 1, 1, S(gr_weight(g, d, il, w), x)), GA_OP_MUL_MAT);
}

int gr_mm_b(struct ga_graph *g, const struct dims *d, int il, const char *w, const char *b, int x, int64_t ne0,
	    int64_t T)
{
	int y = gr_mm(g, d, il, w, x, ne0, T);
	if (gr_has_tensor(d, il, b))
		y = ga_op(g, 1, F32, ne0, T, 1, 1, S(y, gr_weight(g, d, il, b)));
	return y;
}

int gr_input_nd(struct ga_graph *g, int leaf, uint8_t type, int64_t ne0, int64_t ne1, int64_t ne2, int64_t ne3)
{
	static const uint64_t sz[4] = {4, 2, 4, 8};
	int z = ga_input(g, (uint64_t)ne0 * ne1 * ne2 * ne3 * sz[type]);
	struct ga_tensor *t = &g->t[z];
	t->input = !leaf;
	t->type = type;
	t->ne[0] = ne0;
	t->ne[1] = ne1;
	t->ne[2] = ne2;
	t->ne[3] = ne3;
	return z;
}

int gr_input_once(struct ga_graph *g, int *slot, uint64_t bytes)
{
	if (*slot < 0)
		*slot = ga_input(g, bytes);
	return *slot;
}

int gr_cview(struct ga_graph *g, int x, int64_t ne0, int64_t ne1, int64_t ne2)
{
	int v = ga_view_n(g, x, (uint64_t)(ne0 * ne1 * ne2 * 4));
	g->t[v].type = F32;
	g->t[v].ne[0] = ne0;
	g->t[v].ne[1] = ne1;
	g->t[v].ne[2] = ne2;
	g->t[v].ne[3] = 1;
	return v;
}

int gr_s_view(struct ga_graph *g, struct inputs *in, int extra)
{
	int *v = extra ? &in->s_extra : &in->s_main;
	/* a reserve has every cell's sequence in the ubatch (n_rs ==
	 * n_seqs): the main view spans s_copy, the extra one nothing */
	if (*v < 0)
		*v = ga_view_n(g, in->s_copy, extra ? 0 : g->t[in->s_copy].bytes);
	return *v;
}

/* build_inp_embd: token ids and, beside them, an embeddings input of the
 * same shape that the graph selects between; the unused one stays
 * allocated for the whole graph. */
int gr_input_embd(struct ga_graph *g, const struct dims *d, struct inputs *in)
{
	int toks = gr_input_once(g, &in->tokens, (uint64_t)d->T * 4);
	ga_input(g, (uint64_t)d->E * d->T * 4);
	return gr_op_kind(g, ga_op(g, 0, F32, d->E, d->T, 1, 1, S(gr_weight(g, d, -1, "token_embd.weight"), toks)),
			  GA_OP_GET_ROWS);
}

/* build_norm: rms_norm, then the weight; inside a layer the graph callback
 * names the rms_norm "norm" and pins it to the layer's device when the
 * batch is small or every layer is offloaded (llama_context::graph_get_cb). */
static int norm_op(struct ga_graph *g, const struct dims *d, int x, const int64_t *ne, int il, const char *w,
		   int inplace)
{
	int n = ga_gop(g, ga_op(g, inplace, F32, ne[0], ne[1], ne[2], 1, S(x)), inplace ? GA_G_RMS_NORM : GA_G_OTHER);
	if (il >= 0 && d->w->force_norm)
		g->t[n].force = gr_backend_of(d->w, d->w->pl->layer ? d->w->pl->layer[il] : -1);
	return ga_gop(g, ga_op(g, 1, F32, ne[0], ne[1], ne[2], 1, S(n, gr_weight(g, d, il, w))), GA_G_MUL);
}

int gr_norm(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int64_t ne2, int il,
	    const char *w)
{
	const int64_t ne[3] = {ne0, ne1, ne2};
	return norm_op(g, d, x, ne, il, w, 1);
}

int gr_lnorm(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int64_t ne2, int il,
	     const char *w)
{
	const int64_t ne[3] = {ne0, ne1, ne2};
	return norm_op(g, d, x, ne, il, w, 0);
}

/* FFN: gate, up, swiglu, down (build_ffn with LLM_FFN_SILU, PAR). */
int gr_ffn(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T)
{
	int gate = gr_mm(g, d, il, "ffn_gate.weight", x, d->F, T);
	int up = gr_mm(g, d, il, "ffn_up.weight", x, d->F, T);
	int glu = ga_op(g, 0, F32, d->F, T, 1, 1, S(gate, up));
	return gr_mm(g, d, il, "ffn_down.weight", glu, d->E, T);
}

int gr_ffn_dense(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int x, int64_t T)
{
	(void)m;
	return gr_ffn(g, d, il, x, T);
}

int gr_moe_norm_w(struct ga_graph *g, int w, int64_t k, int64_t T)
{
	int w2 = ga_view(g, w);
	int sum = ga_gop(g, ga_op(g, 0, F32, 1, T, 1, 1, S(w2)), GA_G_SUM_ROWS);
	sum = ga_gop(g, ga_op(g, 1, F32, 1, T, 1, 1, S(sum)), GA_G_CLAMP);
	int div = ga_gop(g, ga_op(g, 1, F32, k, T, 1, 1, S(w2, sum)), GA_G_DIV);
	return ga_view(g, div);
}

int gr_moe_sum(struct ga_graph *g, const struct dims *d, int experts, int64_t k, int64_t T)
{
	int64_t span = d->E + (T - 1) * d->E * k;
	int views[64] = {0};
	int64_t n = k < 1 ? 1 : k < 64 ? k : 64;
	for (int64_t i = 0; i < n; i++)
		views[i] = ga_view_n(g, experts, (uint64_t)span * 4);
	int out = views[0];
	for (int64_t i = 1; i < n; i++)
		out = ga_op(g, 1, F32, d->E, T, 1, 1, S(out, views[i]));
	return out;
}

void gr_kv_of(const struct dims *d, struct inputs *in, int swa, struct gr_kv *c)
{
	c->n_kv = swa ? d->n_kv_swa : d->n_kv;
	c->size = swa ? d->kv_size_swa : d->kv_size;
	c->k_idx = swa ? &in->k_idx_swa : &in->k_idx;
	c->v_idx = swa ? &in->v_idx_swa : &in->v_idx;
	c->mask = swa ? &in->mask_swa : &in->mask;
}

/* K and V into the cache of layer il, then flash attention (or softmax
 * attention). The cache views span n_kv cells of each stream (what a copy
 * of them to another backend allocates). */
int gr_attend(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v, int swa)
{
	return gr_attend_sinks(g, d, in, il, q, k, v, swa, -1);
}

void gr_attend_store(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int k, int v, int swa,
		     int *cache)
{
	int64_t T = d->T;
	struct gr_kv c;
	gr_kv_of(d, in, swa, &c);
	int kidx = gr_input_once(g, c.k_idx, (uint64_t)T * 8);
	int vidx = gr_input_once(g, c.v_idx, (uint64_t)T * 8 * (d->fa ? 1 : (uint64_t)(d->Hkv * d->D)));
	int kcache = gr_cache(g, d, il), vcache = gr_cache(g, d, il);
	ga_sink_to(g, kcache, S(ga_view(g, k), kidx, kcache));
	ga_sink_to(g, vcache, S(ga_view(g, v), vidx, vcache));
	cache[0] = kcache;
	cache[1] = vcache;
}

int gr_attend_core(struct ga_graph *g, const struct dims *d, struct inputs *in, int q, int swa, int sinks,
		   const int *cache)
{
	return gr_attend_core_fn(g, d, in, q, swa, sinks, cache, NULL);
}

int gr_attend_core_fn(struct ga_graph *g, const struct dims *d, struct inputs *in, int q, int swa, int sinks,
		      const int *cache, const struct gr_mask_fn *fn)
{
	int64_t T = d->T;
	struct gr_kv c;
	gr_kv_of(d, in, swa, &c);
	int mask = fn ? -1 : gr_input_once(g, c.mask, (uint64_t)c.n_kv * T * (d->fa ? 2 : 4));
	int qp = ga_view(g, q);
	uint64_t kspan = (uint64_t)(c.n_kv + (d->n_stream - 1) * c.size) * d->k_row;
	uint64_t vspan = d->fa ? (uint64_t)(c.n_kv + (d->n_stream - 1) * c.size) * d->v_row
			       : (uint64_t)(d->n_stream * c.size) * d->v_row;
	int kc = ga_view_n(g, cache[0], kspan), vc = ga_view_n(g, cache[1], vspan);
	if (fn && d->fa) /* FLASH_ATTN_EXT visits q, k and v, then the mask */
		mask = fn->build(g, fn->ctx);
	if (d->fa) {
		int o = sinks < 0 ? ga_op(g, 0, F32, d->D, d->H, T, 1, S(qp, kc, vc, mask))
				  : ga_op(g, 0, F32, d->D, d->H, T, 1, S(qp, kc, vc, mask, sinks));
		o = gr_op_kind(g, o, GA_OP_FA);
		struct ga_fa *fa = &g->t[o].fa;
		fa->k_type = d->k_type;
		fa->v_type = d->v_type;
		fa->dk = fa->dv = d->D;
		fa->n_kv = c.n_kv;
		fa->hkv = d->Hkv;
		fa->h = d->H;
		fa->n_stream = d->n_stream > 0 ? d->n_stream : 1;
		fa->q_tok = T / fa->n_stream;
		fa->mask = 1;
		return o;
	}
	return gr_attn_kqv_fn(g, d, qp, kc, vc, mask, c.n_kv, sinks, fn);
}

int gr_attend_sinks(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v, int swa,
		    int sinks)
{
	int cache[2];
	gr_attend_store(g, d, in, il, k, v, swa, cache);
	return gr_attend_core(g, d, in, q, swa, sinks, cache);
}

void gr_kq_strided(struct ga_graph *g, const struct dims *d, int kq, int64_t hkv)
{
	/* K's view strides by the KV heads (and streams): contiguous in dims
	 * 0-1 only with one head and one stream */
	const struct ggml_type_info *kt = ggml_type_get(d->k_type);
	g->t[kq].quant_strided = (uint8_t)(kt && kt->blck > 1 && (hkv > 1 || d->n_stream > 1));
}

int gr_attn_kqv(struct ga_graph *g, const struct dims *d, int qp, int kc, int vc, int mask, int64_t n_kv, int sinks)
{
	return gr_attn_kqv_fn(g, d, qp, kc, vc, mask, n_kv, sinks, NULL);
}

int gr_attn_kqv_fn(struct ga_graph *g, const struct dims *d, int qp, int kc, int vc, int mask, int64_t n_kv, int sinks,
		   const struct gr_mask_fn *fn)
{
	int64_t T = d->T;
	int kq = gr_op_kind(g, ga_op(g, 0, F32, n_kv, T, d->H, 1, S(kc, qp)), GA_OP_MUL_MAT);
	gr_kq_strided(g, d, kq, d->Hkv);
	for (int i = 0; i < d->kq_ops; i++) /* grok's scale, tanh, scale */
		kq = ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq));
	if (fn) /* the softmax visits KQ, then the mask */
		mask = fn->build(g, fn->ctx);
	int sm = sinks < 0 ? ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq, mask))
			   : ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq, mask, sinks));
	int kqv = gr_op_kind(g, ga_op(g, 0, F32, d->D, T, d->H, 1, S(vc, sm)), GA_OP_MUL_MAT);
	int cont = ga_op(g, 0, F32, d->D, d->H, T, 1, S(ga_view(g, kqv)));
	if (!d->w->pl->kv_offload)
		g->t[cont].force = d->w->cpu;
	return cont;
}

void gr_rot_inputs(struct ga_graph *g, const struct dims *d, struct inputs *in, int swa, int **krot, int **vrot)
{
	*krot = swa ? &in->k_rot_swa : &in->k_rot;
	*vrot = swa ? &in->v_rot_swa : &in->v_rot;
	if (d->k_rot)
		gr_input_once(g, *krot, (uint64_t)d->k_rot * d->k_rot * 4);
}

int gr_attn_wo(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v, int swa,
	       int *vrot)
{
	int o = gr_attend(g, d, in, il, q, k, v, swa);
	o = gr_rotate(g, ga_view(g, o), d->D * d->H * d->T, d->v_rot, vrot);
	return gr_mm(g, d, il, "attn_output.weight", ga_view(g, o), d->E, d->T);
}

int gr_layer_end(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il, int last,
		 int cur, int x, int when_fewer, const char *ffn_norm, gr_ffn_fn *ffn)
{
	int64_t Tn = d->T;
	int res = x;
	if (last)
		Tn = gr_out_rows(g, d, in, &cur, &res, when_fewer);
	return gr_ffn_half(g, m, d, il, cur, res, Tn, ffn_norm, ffn);
}

int gr_rope(struct ga_graph *g, int x, int pos, int64_t ne0, int64_t ne1, int64_t ne2)
{
	return gr_op_kind(g, ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(x, pos)), GA_OP_ROPE);
}

void gr_pooling(struct ga_graph *g, const struct dims *d, int x, int64_t T)
{
	int64_t n_seq = d->n_seq;
	int out = -1;
	if (d->pool == 1) { /* mean: cont(transpose(x)) times the mean input */
		int mean = ga_input(g, (uint64_t)T * n_seq * 4);
		int xt = ga_op(g, 0, F32, T, d->E, 1, 1, S(ga_view(g, x)));
		out = gr_op_kind(g, ga_op(g, 0, F32, d->E, n_seq, 1, 1, S(xt, mean)), GA_OP_MUL_MAT);
	} else if (d->pool >= 2) { /* cls, last, rank: the rows of the cls input */
		int cls = ga_input(g, (uint64_t)n_seq * 4);
		out = gr_op_kind(g, ga_op(g, 0, F32, d->E, n_seq, 1, 1, S(x, cls)), GA_OP_GET_ROWS);
	}
	if (out >= 0)
		g->t[out].output = 1; /* t_embd_pooled */
}

static const struct graph_family families[] = {
    {"llama", gr_llama, NULL, "src/models/llama.cpp", NULL},
    {"gemma3", gr_llama, NULL, "src/models/gemma3.cpp", NULL},
    {"qwen3moe", gr_llama, NULL, "src/models/qwen3moe.cpp", NULL},
    {"qwen35", gr_qwen35, gr_qwen35_mtp, "src/models/qwen35.cpp", NULL},
    {"deepseek2", gr_deepseek2, gr_deepseek2_mtp, "src/models/deepseek2.cpp", NULL},
    {"glm4moe", gr_glm4moe, gr_glm4moe_mtp, "src/models/glm4-moe.cpp", NULL},
    {"qwen35moe", gr_qwen35, gr_qwen35_mtp, "src/models/qwen35moe.cpp", NULL},
    {"qwen4exp", gr_qwen4exp, NULL, "src/models/qwen4exp.cpp", NULL},
    {"granitehybrid", gr_granite_hybrid, NULL, "src/models/granite-hybrid.cpp", NULL},
    {"qwen2", gr_dense, NULL, "src/models/qwen2.cpp", NULL},
    {"qwen3", gr_dense, NULL, "src/models/qwen3.cpp", NULL},
    {"phi3", gr_dense, NULL, "src/models/phi3.cpp", NULL},
    {"lfm2", gr_granite_hybrid, NULL, "src/models/lfm2.cpp", NULL},
    {"mamba2", gr_granite_hybrid, NULL, "src/models/mamba.cpp", NULL},
    {"nemotron_h", gr_granite_hybrid, NULL, "src/models/nemotron-h.cpp", NULL},
    {"gpt-oss", gr_oss, NULL, "src/models/openai-moe.cpp", NULL},
    {"gemma4", gr_gemma4, NULL, "src/models/gemma4.cpp", NULL},
    {"gemma4-assistant", gr_gemma4_assistant, NULL, "src/models/gemma4-assistant.cpp", NULL},
    {"eagle3", gr_eagle3, NULL, "src/models/eagle3.cpp", NULL},
    {"dflash", gr_dflash, NULL, "src/models/dflash.cpp", NULL},
    {"mistral3", gr_mistral3, NULL, "src/models/mistral3.cpp", NULL},
    {"seed_oss", gr_mistral3, NULL, "src/models/seed-oss.cpp", NULL},
    {"smollm3", gr_mistral3, NULL, "src/models/smollm3.cpp", NULL},
    {"olmo2", gr_olmo2, NULL, "src/models/olmo2.cpp", NULL},
    {"granite", gr_mistral3, NULL, "src/models/granite.cpp", NULL},
    {"qwen2moe", gr_mistral3, NULL, "src/models/qwen2moe.cpp", NULL},
    {"olmoe", gr_mistral3, NULL, "src/models/olmoe.cpp", NULL},
    {"ernie4_5-moe", gr_mistral3, NULL, "src/models/ernie4-5-moe.cpp", NULL},
    {"hunyuan-moe", gr_mistral3, NULL, "src/models/hunyuan-moe.cpp", NULL},
    {"exaone", gr_mistral3, NULL, "src/models/exaone.cpp", NULL},
    {"ernie4_5", gr_mistral3, NULL, "src/models/ernie4-5.cpp", NULL},
    {"deepseek", gr_mistral3, NULL, "src/models/deepseek.cpp", NULL},
    {"exaone4", gr_olmo2, NULL, "src/models/exaone4.cpp", NULL},
    {"glm4", gr_mistral3, NULL, "src/models/glm4.cpp", NULL},
    {"phimoe", gr_dense, NULL, "src/models/phi3.cpp (phimoe's graph)", NULL},
    {"qwen3vl", gr_dense, NULL, "src/models/qwen3vl.cpp", NULL},
    {"qwen3tts", gr_dense, NULL, "src/models/qwen3vl.cpp (qwen3tts.cpp reuses it)", NULL},
    {"qwen3vlmoe", gr_llama, NULL, "src/models/qwen3vlmoe.cpp", NULL},
    {"hunyuan-dense", gr_mistral3, NULL, "src/models/hunyuan-vl.cpp (hunyuan-dense's graph)", NULL},
    {"xverse", gr_mistral3, NULL, "src/models/xverse.cpp", NULL},
    {"baichuan", gr_mistral3, NULL, "src/models/baichuan.cpp", NULL},
    {"minicpm", gr_mistral3, NULL, "src/models/granite.cpp (minicpm's graph)", NULL},
    {"qwen2vl", gr_dense, NULL, "src/models/qwen2vl.cpp", NULL},
    {"maincoder", gr_mistral3, NULL, "src/models/maincoder.cpp", NULL},
    {"internlm2", gr_mistral3, NULL, "src/models/internlm2.cpp", NULL},
    {"arcee", gr_mistral3, NULL, "src/models/arcee.cpp", NULL},
    {"apertus", gr_mistral3, NULL, "src/models/apertus.cpp", NULL},
    {"mellum", gr_llama, NULL, "src/models/mellum.cpp", NULL},
    {"orion", gr_mistral3, NULL, "src/models/orion.cpp", NULL},
    {"gemma2", gr_llama, NULL, "src/models/gemma2.cpp", NULL},
    {"gemma", gr_llama, NULL, "src/models/gemma.cpp", NULL},
    {"gemma3n", gr_gemma3n, NULL, "src/models/gemma3n.cpp", NULL},
    {"rwkv7", gr_rwkv7, NULL, "src/models/rwkv7.cpp", NULL},
    {"rwkv6", gr_rwkv6, NULL, "src/models/rwkv6.cpp", NULL},
    {"arwkv7", gr_arwkv7, NULL, "src/models/arwkv7.cpp", NULL},
    {"rwkv6qwen2", gr_rwkv6qwen2, NULL, "src/models/rwkv6qwen2.cpp", NULL},
    {"granitemoe", gr_mistral3, NULL, "src/models/granite.cpp (granite-moe.cpp's graph)", NULL},
    {"graniteswitch", gr_granite_switch, NULL, "src/models/granite-switch.cpp", NULL},
    {"command-r", gr_cohere, NULL, "src/models/command-r.cpp", NULL},
    {"cohere2", gr_cohere, NULL, "src/models/cohere2.cpp", NULL},
    {"minimax-m2", gr_mistral3, NULL, "src/models/minimax-m2.cpp", NULL},
    {"llama4", gr_llama4, NULL, "src/models/llama4.cpp", NULL},
    {"falcon-h1", gr_falcon_h1, NULL, "src/models/falcon-h1.cpp", NULL},
    {"qwen3next", gr_qwen35, NULL, "src/models/qwen3next.cpp", NULL},
    {"jamba", gr_jamba, NULL, "src/models/jamba.cpp", NULL},
    {"mamba", gr_jamba, NULL, "src/models/mamba.cpp (build_mamba_layer)", NULL},
    {"kimi-linear", gr_kimi_linear, NULL, "src/models/kimi-linear.cpp", NULL},
    {"kimi-k3", gr_kimi_k3, NULL, "src/models/kimi-k3.cpp", NULL},
    {"lfm2moe", gr_granite_hybrid, NULL, "src/models/lfm2.cpp (lfm2moe.cpp's graph)", NULL},
    {"nemotron_h_moe", gr_granite_hybrid, NULL, "src/models/nemotron-h.cpp (nemotron-h-moe.cpp's graph)", NULL},
    {"bert", gr_bert, NULL, "src/models/bert.cpp", NULL},
    {"nomic-bert", gr_bert, NULL, "src/models/bert.cpp (nomic-bert.cpp's tensors)", NULL},
    {"jina-bert-v2", gr_bert, NULL, "src/models/bert.cpp (jina-bert-v2.cpp's tensors)", NULL},
    {"jina-bert-v3", gr_bert, NULL, "src/models/bert.cpp (jina-bert-v3.cpp's tensors)", NULL},
    {"nomic-bert-moe", gr_bert, NULL, "src/models/bert.cpp (nomic-bert-moe.cpp's tensors)", NULL},
    {"t5encoder", gr_t5encoder, NULL, "src/models/t5.cpp (graph<true>: t5encoder.cpp)", NULL},
    {"t5", gr_t5, NULL, "src/models/t5.cpp (graph<false>, the decoder the context reserves)", NULL},
    {"llama-embed", gr_llama_nc, NULL, "src/models/llama.cpp (graph<true>: llama-embed.cpp)", NULL},
    {"dream", gr_llama_nc, NULL, "src/models/dream.cpp", NULL},
    {"eurobert", gr_llama_nc, NULL, "src/models/eurobert.cpp", NULL},
    {"neo-bert", gr_llama_nc, NULL, "src/models/neo-bert.cpp", NULL},
    {"modern-bert", gr_modern_bert, NULL, "src/models/modern-bert.cpp", NULL},
    {"llada", gr_llama_nc, NULL, "src/models/llada.cpp", NULL},
    {"llada-moe", gr_llama_nc, NULL, "src/models/llada-moe.cpp", NULL},
    {"rnd1", gr_llama_nc, NULL, "src/models/rnd1.cpp", NULL},
    {"gemma-embedding", gr_llama_nc, NULL, "src/models/gemma-embedding.cpp", NULL},
    {"deepseek32", gr_deepseek32, gr_deepseek2_mtp, "src/models/deepseek32.cpp", gr_deepseek32_affine_from},
    {"dbrx", gr_moe_kin, NULL, "src/models/dbrx.cpp", NULL},
    {"arctic", gr_moe_kin, NULL, "src/models/arctic.cpp", NULL},
    {"grok", gr_moe_kin, NULL, "src/models/grok.cpp", NULL},
    {"dots1", gr_moe_kin, NULL, "src/models/dots1.cpp", NULL},
    {"bailingmoe", gr_moe_kin, NULL, "src/models/bailingmoe.cpp", NULL},
    {"bailingmoe2", gr_moe_kin, NULL, "src/models/bailingmoe2.cpp", NULL},
    {"bailingmoe3", gr_bailing3, gr_bailing3_mtp, "src/models/bailingmoe3.cpp", NULL},
    {"smallthinker", gr_moe_kin, NULL, "src/models/smallthinker.cpp (no sliding window)", NULL},
    {"hunyuan_vl", gr_mistral3, NULL, "src/models/hunyuan-vl.cpp", NULL},
    {"deepseek2-ocr", gr_deepseek2_ocr, NULL, "src/models/deepseek2.cpp (deepseek2ocr.cpp's graph)", NULL},
    {"plm", gr_plm, NULL, "src/models/plm.cpp", NULL},
    {"exaone-moe", gr_moe_kin, NULL, "src/models/exaone-moe.cpp", NULL},
    {"granite_swa", gr_moe_kin, NULL, "src/models/granite-swa.cpp", NULL},
    {"grovemoe", gr_moe_kin, NULL, "src/models/grovemoe.cpp", NULL},
    {"cohere2moe", gr_moe_kin, NULL, "src/models/cohere2moe.cpp (no MTP draft)", NULL},
    {"laguna", gr_moe_kin, NULL, "src/models/laguna.cpp (no sliding window)", NULL},
    {"mimo2", gr_moe_kin, NULL, "src/models/mimo2.cpp (no MTP draft)", NULL},
    {"step35", gr_moe_kin, NULL, "src/models/step35.cpp (no MTP draft)", NULL},
    {"muse-glimmer", gr_moe_kin, NULL, "src/models/muse-glimmer.cpp", NULL},
    {"afmoe", gr_moe_kin, NULL, "src/models/afmoe.cpp", NULL},
    {"hy_v3", gr_moe_kin, NULL, "src/models/hy-v3.cpp (no MTP draft)", NULL},
    {"minicpm3", gr_plm, NULL, "src/models/minicpm3.cpp", NULL},
    {"mistral4", gr_deepseek2, gr_mistral4_mtp,
     "src/models/deepseek2.cpp (mistral4.cpp's graph; its MTP draft is the trunk again; f16 MLA stacks abort an AMX "
     "host's boot: law S16)",
     NULL},
    {"starcoder2", gr_classic, NULL, "src/models/starcoder2.cpp", NULL},
    {"phi2", gr_classic, NULL, "src/models/phi2.cpp", NULL},
    {"stablelm", gr_classic, NULL, "src/models/stablelm.cpp", NULL},
    {"olmo", gr_classic, NULL, "src/models/olmo.cpp", NULL},
    {"qwen", gr_classic, NULL, "src/models/qwen.cpp", NULL},
    {"gpt2", gr_classic, NULL, "src/models/gpt2.cpp", NULL},
    {"gptneox", gr_classic, NULL, "src/models/gptneox.cpp", NULL},
    {"falcon", gr_classic, NULL, "src/models/falcon.cpp", NULL},
    {"mpt", gr_classic, NULL, "src/models/mpt.cpp", NULL},
    {"bloom", gr_classic, NULL, "src/models/bloom.cpp", NULL},
    {"starcoder", gr_classic, NULL, "src/models/starcoder.cpp", NULL},
    {"refact", gr_classic, NULL, "src/models/refact.cpp", NULL},
    {"codeshell", gr_classic, NULL, "src/models/codeshell.cpp", NULL},
    {"jais", gr_classic, NULL, "src/models/jais.cpp", NULL},
    {"jais2", gr_classic, NULL, "src/models/jais2.cpp", NULL},
    {"nemotron", gr_classic, NULL, "src/models/nemotron.cpp", NULL},
    {"plamo", gr_classic, NULL, "src/models/plamo.cpp", NULL},
    {"chameleon", gr_classic, NULL, "src/models/chameleon.cpp", NULL},
    {"bitnet", gr_classic, NULL, "src/models/bitnet.cpp", NULL},
    {"chatglm", gr_classic, NULL, "src/models/chatglm.cpp", NULL},
    {"pockettts", gr_classic, NULL, "src/models/pockettts.cpp", NULL},
    {"plamo3", gr_classic, NULL, "src/models/plamo3.cpp", NULL},
    {"talkie", gr_classic, NULL, "src/models/talkie.cpp", NULL},
    {"nanbeige", gr_classic, NULL, "src/models/nanbeige.cpp", NULL},
    {"deci", gr_classic, NULL, "src/models/deci.cpp", NULL},
    {"openelm", gr_classic, NULL, "src/models/openelm.cpp", NULL},
    {"pangu-embedded", gr_classic, NULL, "src/models/pangu-embed.cpp", NULL},
    {"plamo2", gr_granite_hybrid, NULL, "src/models/plamo2.cpp", NULL},
    {"glm-dsa", gr_deepseek32, gr_deepseek2_mtp, "src/models/glm-dsa.cpp (deepseek32's with shared indexer layers)",
     gr_deepseek32_affine_from},
    {"cogvlm", gr_classic, NULL, "src/models/cogvlm.cpp (text tokens; no output ids)", NULL},
    {"paddleocr", gr_mistral3, NULL, "src/models/paddleocr.cpp (ernie4_5's tensors, M-RoPE)", NULL},
    {"dots3note", gr_dots3note, NULL, "src/models/dots3note.cpp (no MTP draft)", gr_deepseek32_affine_from},
    {"minimax-01", gr_minimax01, NULL, "src/models/minimax-01.cpp", NULL},
    {"minimax-m3", gr_minimax_m3, NULL, "src/models/minimax-m3.cpp", NULL},
    {"deepseek4", gr_deepseek4, NULL, "src/models/deepseek4.cpp (src/llama-kv-cache-dsv4.cpp's caches and states)",
     gr_deepseek4_affine_from},
    {"wavtokenizer-dec", gr_wavtok, NULL, "src/models/wavtokenizer-dec.cpp", NULL},
};

const struct graph_family *gr_family(const char *arch)
{
	for (size_t i = 0; arch && i < sizeof(families) / sizeof(families[0]); i++)
		if (strcmp(families[i].arch, arch) == 0)
			return &families[i];
	return NULL;
}

const char *gr_refused(const char *arch)
{
	/* names llm_arch_name knows that llama_model_mapping (src/llama-model.cpp)
	 * has no case for: its default throws on loading */
	static const char *const refused[] = {"gptj"};
	for (size_t i = 0; arch && i < sizeof(refused) / sizeof(refused[0]); i++)
		if (strcmp(refused[i], arch) == 0)
			return "no builder: the pinned engine names it (src/llama-arch.cpp) but llama_model_mapping "
			       "(src/llama-model.cpp) has no case for it and throws \"unsupported model architecture\" "
			       "on loading";
	return NULL;
}

int gr_pricing(const char *arch, const char **source)
{
	const struct graph_family *f = gr_family(arch);
	const char *why = f ? NULL : gr_refused(arch);
	*source =
	    f	  ? f->source
	    : why ? why
		  : "estimated with llama's block (qwen35's where the payload has recurrent layers with ssm.* keys)";
	return f != NULL;
}

const struct graph_family *gr_fallback(const struct model *m)
{
	/* the gated-attention hybrid: recurrent layers with ssm.* keys */
	int deltanet = m->n_kind[LAYER_RECURRENT] > 0 && m->ssm_d_state && m->ssm_dt_rank;
	return gr_family(deltanet ? "qwen35" : "llama");
}

/* A shared expert (build_ffn, SILU, PAR) of width F over the *_shexp
 * weights. */
int gr_ffn_shexp(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T, int64_t F)
{
	int gate = gr_mm(g, d, il, "ffn_gate_shexp.weight", x, F, T);
	int up = gr_mm(g, d, il, "ffn_up_shexp.weight", x, F, T);
	int glu = ga_op(g, 0, F32, F, T, 1, 1, S(gate, up));
	return gr_mm(g, d, il, "ffn_down_shexp.weight", glu, d->E, T);
}

int gr_has_tensor(const struct dims *d, int il, const char *suffix)
{
	char name[96];
	snprintf(name, sizeof(name), "blk.%d.%s", il, suffix);
	return d->w->gg && gguf_tensor_find(d->w->gg, name) != NULL;
}

int64_t gr_out_rows(struct ga_graph *g, const struct dims *d, struct inputs *in, int *cur, int *res, int when_fewer)
{
	int64_t T = d->T, To = d->n_out < T ? d->n_out : T;
	if (when_fewer && d->n_out >= T)
		return T;
	int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
	*cur = gr_op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(*cur, ids)), GA_OP_GET_ROWS);
	*res = gr_op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(*res, ids)), GA_OP_GET_ROWS);
	return To;
}

int gr_ffn_half(struct ga_graph *g, const struct model *m, const struct dims *d, int il, int cur, int res, int64_t T,
		const char *norm, gr_ffn_fn *ffn)
{
	int fi = ga_gop(g, ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, res)), GA_G_ADD);
	int fn = gr_norm(g, d, fi, d->E, T, 1, il, norm);
	int fo = ffn(g, m, d, il, fn, T);
	return ga_gop(g, ga_op(g, 1, F32, d->E, T, 1, 1, S(fo, fi)), GA_G_ADD);
}

int gr_mtp_input(struct ga_graph *g, const struct dims *d, struct inputs *in, int il)
{
	int64_t T = d->T;
	int toks = gr_input_once(g, &in->tokens, (uint64_t)T * 4);
	int te = gr_op_kind(g, ga_op(g, 0, F32, d->E, T, 1, 1, S(gr_weight(g, d, -1, "token_embd.weight"), toks)),
			    GA_OP_GET_ROWS);
	int en = gr_norm(g, d, te, d->E, T, 1, il, "nextn.enorm.weight");
	/* the target's hidden states, an input the norm may overwrite in place */
	int hin = ga_input(g, (uint64_t)d->E * T * 4);
	g->t[hin].ne[0] = d->E;
	g->t[hin].ne[1] = T;
	g->t[hin].ne[2] = g->t[hin].ne[3] = 1;
	g->t[hin].type = F32;
	int hn = gr_norm(g, d, hin, d->E, T, 1, il, "nextn.hnorm.weight");
	int cat = ga_op(g, 0, F32, 2 * d->E, T, 1, 1, S(en, hn));
	return gr_mm(g, d, il, "nextn.eh_proj.weight", cat, d->E, T);
}

void gr_lm_rows(struct ga_graph *g, const struct dims *d, struct inputs *in, int h)
{
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int ids = gr_input_once(g, &in->out_ids, (uint64_t)To * 4);
	int rn = gr_op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(h, ids)), GA_OP_GET_ROWS);
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

void gr_mtp_output(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int x)
{
	int64_t T = d->T;
	int h = gr_has_tensor(d, il, "nextn.shared_head_norm.weight")
		    ? gr_norm(g, d, x, d->E, T, 1, il, "nextn.shared_head_norm.weight")
		    : gr_norm(g, d, x, d->E, T, 1, -1, "output_norm.weight");
	g->t[h].output = 1; /* h_nextn */
	gr_lm_rows(g, d, in, h);
}

int gr_layers(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, gr_layer_fn *layer,
	      const void *ctx)
{
	int x = gr_input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		if (il < 256 && (d->layer_out[il / 64] >> (il % 64) & 1)) /* t_layer_inp[il], set as output */
			g->t[x].output = 1;
		int an = gr_norm(g, d, x, d->E, d->T, 1, (int)il, "attn_norm.weight");
		x = layer(g, m, d, in, (int)il, x, an, il == n_layer - 1, ctx);
	}
	return x;
}

struct trunk_moe {
	gr_attn_fn *attn;
	const char *ffn_norm;
	gr_ffn_fn *ffn;
};

static int trunk_moe_layer(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
			   int x, int an, int last, const void *ctx)
{
	const struct trunk_moe *t = ctx;
	int cur = t->attn(g, m, d, in, il, an);
	return gr_layer_end(g, m, d, in, il, last, cur, x, 0, t->ffn_norm, t->ffn);
}

void gr_trunk_moe(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, gr_attn_fn *attn,
		  const char *ffn_norm, gr_ffn_fn *ffn)
{
	const struct trunk_moe t = {attn, ffn_norm, ffn};
	int rn = gr_result(g, d, gr_layers(g, m, d, in, trunk_moe_layer, &t));
	g->t[rn].output = 1; /* h_nextn and result_norm: graph outputs */
}

void gr_mtp_block(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in, int il,
		  gr_attn_fn *attn, const char *ffn_norm, gr_ffn_fn *ffn)
{
	int x = gr_mtp_input(g, d, in, il);
	int an = gr_norm(g, d, x, d->E, d->T, 1, il, "attn_norm.weight");
	int cur = attn(g, m, d, in, il, an);
	x = gr_ffn_half(g, m, d, il, cur, x, d->T, ffn_norm, ffn);
	gr_mtp_output(g, d, in, il, x);
}

int gr_result(struct ga_graph *g, const struct dims *d, int x)
{
	int64_t To = d->n_out < d->T ? d->n_out : d->T;
	int rn = gr_norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	int out = gr_mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
	return rn;
}
