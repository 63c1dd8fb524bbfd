/* compute: the compute buffers, by replaying the engine's graph allocator
 * (galloc.c) over the worst-case graph the engine reserves
 * (llama_context::sched_reserve): a prefill batch of T = min(n_ctx,
 * n_ubatch) tokens with min(T, n_outputs_max) outputs, and a decode batch
 * of one token per slot; the buffer is the larger of the two.
 *
 * The graphs mirror the engine's builders node for node for the layer
 * kinds zealot synthesises and the seeds serve: the dense attention block
 * with SwiGLU FFN (src/models/llama.cpp), Qwen3.5's gated attention, Gated
 * DeltaNet and MTP head (src/models/qwen35.cpp, delta-net-base.cpp), and
 * Gemma 3's normed, sliding-window block (src/models/gemma3.cpp). Other
 * architectures are priced with the dense block, which is what most of
 * them are; the live tests measure the error. Qwen3-MoE's block (q and k
 * normed before rope, build_moe_ffn with softmax gating and normalised
 * top-k weights, src/models/qwen3moe.cpp) prices the experts.
 *
 * Every weight and cache in the graph carries the backend whose buffer
 * holds it (place.h), and the graph goes through a replay of the engine's
 * scheduler (sched.c: backend assignment, splits, the copies of inputs
 * across backends) before one allocator per backend sizes each compute
 * buffer, as ggml_backend_sched_reserve does. With no device there is one
 * backend, the CPU, and the replay is the plain allocator's.
 */
#include "compute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "galloc.h"
#include "gaparam.h"
#include "memo.h"
#include "plan.h"
#include "sched.h"

/* ggml's CPU buffers align tensors to 32 bytes (TENSOR_ALIGNMENT); a CUDA
 * buffer to 128. */
#define CPU_ALIGN  32
#define CUDA_ALIGN 128
enum { F32 = 0, F16 = 1, I32 = 2, I64 = 3 };

/* Where weights and caches live, by backend (the devices in order, the CPU
 * last), and what the graph callback pins. */
struct where {
	const struct placement *pl;
	const struct gguf *gg;
	uint32_t n_layer_all;
	int cpu;	/* the CPU backend's index */
	int force_norm; /* n_tokens < 32 or every layer offloaded: norms go to their layer's device */
	int has_output; /* output.weight exists (else the output layer copies token_embd) */
};

struct dims {
	const struct where *w;
	int64_t T, n_out, n_seq;
	int64_t E, F, V;
	int64_t D, H, Hkv;	/* head size, heads, KV heads */
	int64_t n_kv, n_kv_swa; /* cells per stream the masks span */
	int64_t kv_size, kv_size_swa, n_stream;
	uint64_t k_row, v_row; /* bytes per cell of one layer's K and V (cache types) */
	int fa;
	int mrope;	      /* positions are 4 per token */
	int64_t k_rot, v_rot; /* Hadamard rotation sizes for quantized caches, 0 = none */
	/* Gated DeltaNet */
	int64_t d_state, n_group, dt_rank, d_conv;
	int64_t n_embd_r, n_embd_s;
	int64_t rs_k; /* state snapshots the delta net writes: n_rs_seq + 1 */
	/* experts */
	int64_t n_expert, n_expert_used, F_exp;
};

struct inputs {
	int tokens, pos, k_idx, v_idx, mask, k_idx_swa, v_idx_swa, mask_swa, out_ids, s_copy;
	int k_rot, v_rot, k_rot_swa, v_rot_swa; /* each KV cache has its own rotation inputs */
};

#define S(...) ((const int[]){__VA_ARGS__, -2})

static int op_kind(struct ga_graph *g, int t, int kind)
{
	g->t[t].op = (uint8_t)kind;
	return t;
}

/* llama_mul_mat_hadamard: a quantized cache stores rotated K or V, so the
 * graph multiplies Q and K (or V, and the attention output) by an n x n
 * rotation held as an input. */
static int rotate(struct ga_graph *g, int x, int64_t elems, int64_t n, int *slot)
{
	if (!n)
		return x;
	if (*slot < 0)
		*slot = ga_input(g, (uint64_t)n * n * 4);
	int r = op_kind(g, ga_op(g, 0, 0, n, elems / n, 1, 1, S(*slot, ga_view(g, x))), GA_OP_MUL_MAT);
	return ga_view(g, r);
}

static int backend_of(const struct where *w, int dev)
{
	return dev < 0 ? w->cpu : dev;
}

/* A weight of layer il (il < 0: the input or output layer), held where
 * the placement puts it. */
static int Wt(struct ga_graph *g, const struct dims *d, int il, const char *suffix)
{
	const struct where *w = d->w;
	char name[96];
	int64_t layer;
	if (il >= 0) {
		snprintf(name, sizeof(name), "blk.%d.%s", il, suffix);
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
	const struct gguf_tensor *t = w->gg ? gguf_tensor_find(w->gg, name) : NULL;
	return ga_held(g, backend_of(w, place_weight(w->pl, name, layer)), 1, t ? t->bytes : 0);
}

/* A cache tensor of layer il (KV or recurrent state), on its layer's
 * device unless KV_OFFLOAD=0. */
static int Cache(struct ga_graph *g, const struct dims *d, int il)
{
	return ga_held(g, backend_of(d->w, place_cache(d->w->pl, (uint32_t)il)), 0, 0);
}

/* a matmul of a weight of layer il with x */
static int mm(struct ga_graph *g, const struct dims *d, int il, const char *w, int x, int64_t ne0, int64_t ne1)
{
	return op_kind(g, ga_op(g, 0, F32, ne0, ne1, 1, 1, S(Wt(g, d, il, w), x)), GA_OP_MUL_MAT);
}

static int input_once(struct ga_graph *g, int *slot, uint64_t bytes)
{
	if (*slot < 0)
		*slot = ga_input(g, bytes);
	return *slot;
}

/* build_inp_embd: token ids and, beside them, an embeddings input of the
 * same shape that the graph selects between; the unused one stays
 * allocated for the whole graph. */
static int input_embd(struct ga_graph *g, const struct dims *d, struct inputs *in)
{
	int toks = input_once(g, &in->tokens, (uint64_t)d->T * 4);
	ga_input(g, (uint64_t)d->E * d->T * 4);
	return op_kind(g, ga_op(g, 0, F32, d->E, d->T, 1, 1, S(Wt(g, d, -1, "token_embd.weight"), toks)),
		       GA_OP_GET_ROWS);
}

/* build_norm: rms_norm, then the weight; inside a layer the graph callback
 * names the rms_norm "norm" and pins it to the layer's device when the
 * batch is small or every layer is offloaded (llama_context::graph_get_cb). */
static int norm(struct ga_graph *g, const struct dims *d, int x, int64_t ne0, int64_t ne1, int64_t ne2, int il,
		const char *w)
{
	int n = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(x));
	if (il >= 0 && d->w->force_norm)
		g->t[n].force = backend_of(d->w, d->w->pl->layer ? d->w->pl->layer[il] : -1);
	return ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(n, Wt(g, d, il, w)));
}

/* FFN: gate, up, swiglu, down (build_ffn with LLM_FFN_SILU, PAR). */
static int ffn(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T)
{
	int gate = mm(g, d, il, "ffn_gate.weight", x, d->F, T);
	int up = mm(g, d, il, "ffn_up.weight", x, d->F, T);
	int glu = ga_op(g, 0, F32, d->F, T, 1, 1, S(gate, up));
	return mm(g, d, il, "ffn_down.weight", glu, d->E, T);
}

/* build_moe_ffn with softmax gating, normalised top-k weights and a gated
 * SiLU (qwen3moe), in the order ggml_build_forward_expand visits it:
 * router, softmax, top-k, weights normalised; then per token and chosen
 * expert up, gate, swiglu, down, weighted; the experts' views added up. */
static int moe(struct ga_graph *g, const struct dims *d, int il, int x, int64_t T)
{
	int64_t ne = d->n_expert, k = d->n_expert_used;
	int logits = mm(g, d, il, "ffn_gate_inp.weight", x, ne, T);
	int probs = ga_op(g, 1, F32, ne, T, 1, 1, S(logits));
	int probs3 = ga_view(g, probs);
	int order = ga_op(g, 0, I32, ne, T, 1, 1, S(probs));
	int sel = ga_view_n(g, order, (uint64_t)((T - 1) * ne + k) * 4);
	int wts = op_kind(g, ga_op(g, 0, F32, 1, k, T, 1, S(probs3, sel)), GA_OP_GET_ROWS);
	int w2 = ga_view(g, wts);
	int sum = ga_op(g, 0, F32, 1, T, 1, 1, S(w2));
	sum = ga_op(g, 1, F32, 1, T, 1, 1, S(sum));
	int div = ga_op(g, 1, F32, k, T, 1, 1, S(w2, sum));
	int w3 = ga_view(g, div);
	int cur = ga_view(g, x);
	int up = op_kind(g, ga_op(g, 0, F32, d->F_exp, k, T, 1, S(Wt(g, d, il, "ffn_up_exps.weight"), cur, sel)),
			 GA_OP_MUL_MAT_ID);
	int gate = op_kind(g, ga_op(g, 0, F32, d->F_exp, k, T, 1, S(Wt(g, d, il, "ffn_gate_exps.weight"), cur, sel)),
			   GA_OP_MUL_MAT_ID);
	int glu = ga_op(g, 0, F32, d->F_exp, k, T, 1, S(gate, up));
	int down = op_kind(g, ga_op(g, 0, F32, d->E, k, T, 1, S(Wt(g, d, il, "ffn_down_exps.weight"), glu, sel)),
			   GA_OP_MUL_MAT_ID);
	int experts = ga_op(g, 1, F32, d->E, k, T, 1, S(down, w3));
	/* the views are built (and expanded) before the adds */
	int64_t span = d->E + (T - 1) * d->E * k;
	int views[64] = {0};
	int64_t n = k < 1 ? 1 : k < 64 ? k : 64;
	for (int64_t i = 0; i < n; i++)
		views[i] = ga_view_n(g, experts, (uint64_t)span * 4);
	int out = views[0];
	for (int64_t i = 1; i < n; i++)
		out = ga_op(g, 1, F32, d->E, T, 1, 1, S(out, views[i]));
	if (n == 1)
		out = ga_op(g, 0, F32, d->E, T, 1, 1, S(out));
	return out;
}

/* K and V into the cache of layer il, then flash attention (or softmax
 * attention). The cache views span n_kv cells of each stream (what a copy
 * of them to another backend allocates). */
static int attend(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int q, int k, int v, int swa)
{
	int64_t T = d->T;
	int64_t n_kv = swa ? d->n_kv_swa : d->n_kv;
	int64_t size = swa ? d->kv_size_swa : d->kv_size;
	int *kslot = swa ? &in->k_idx_swa : &in->k_idx;
	int *vslot = swa ? &in->v_idx_swa : &in->v_idx;
	int *mslot = swa ? &in->mask_swa : &in->mask;
	int kidx = input_once(g, kslot, (uint64_t)T * 8);
	int vidx = input_once(g, vslot, (uint64_t)T * 8 * (d->fa ? 1 : (uint64_t)(d->Hkv * d->D)));
	int kcache = Cache(g, d, il), vcache = Cache(g, d, il);
	ga_sink_to(g, kcache, S(ga_view(g, k), kidx, kcache));
	ga_sink_to(g, vcache, S(ga_view(g, v), vidx, vcache));
	int mask = input_once(g, mslot, (uint64_t)n_kv * T * (d->fa ? 2 : 4));
	int qp = ga_view(g, q);
	uint64_t kspan = (uint64_t)(n_kv + (d->n_stream - 1) * size) * d->k_row;
	uint64_t vspan =
	    d->fa ? (uint64_t)(n_kv + (d->n_stream - 1) * size) * d->v_row : (uint64_t)(d->n_stream * size) * d->v_row;
	int kc = ga_view_n(g, kcache, kspan), vc = ga_view_n(g, vcache, vspan);
	if (d->fa)
		return op_kind(g, ga_op(g, 0, F32, d->D, d->H, T, 1, S(qp, kc, vc, mask)), GA_OP_FA);
	/* kq = k*q, softmax in place, kqv = v*kq, permute + cont; without KV
	 * offload the graph pins the cont to the CPU (build_attn_mha) */
	int kq = op_kind(g, ga_op(g, 0, F32, n_kv, T, d->H, 1, S(kc, qp)), GA_OP_MUL_MAT);
	int sm = ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq, mask));
	int kqv = op_kind(g, ga_op(g, 0, F32, d->D, T, d->H, 1, S(vc, sm)), GA_OP_MUL_MAT);
	int cont = ga_op(g, 0, F32, d->D, d->H, T, 1, S(ga_view(g, kqv)));
	if (!d->w->pl->kv_offload)
		g->t[cont].force = d->w->cpu;
	return cont;
}

static int rope(struct ga_graph *g, int x, int pos, int64_t ne0, int64_t ne1, int64_t ne2)
{
	return op_kind(g, ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(x, pos)), GA_OP_ROPE);
}

/* The dense llama block (src/models/llama.cpp); with experts, the
 * qwen3moe block (src/models/qwen3moe.cpp: q and k normed before rope). */
static void graph_llama(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int qk_norm = d->n_expert > 0;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		int pos = input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
		int swa = m->kind[il] == LAYER_SWA;
		int *krot = swa ? &in->k_rot_swa : &in->k_rot, *vrot = swa ? &in->v_rot_swa : &in->v_rot;
		int q = ga_view(g, mm(g, d, L, "attn_q.weight", an, d->D * d->H, T));
		if (qk_norm)
			q = norm(g, d, q, d->D, d->H, T, L, "attn_q_norm.weight");
		q = rope(g, q, pos, d->D, d->H, T);
		q = rotate(g, q, d->D * d->H * T, d->k_rot, krot);
		int k, vr;
		if (m->n_kind[LAYER_SWA]) { /* the iSWA builder expands q, k, v */
			k = mm(g, d, L, "attn_k.weight", an, d->D * d->Hkv, T);
			k = rope(g, ga_view(g, k), pos, d->D, d->Hkv, T);
			k = rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
			vr = ga_view(g, mm(g, d, L, "attn_v.weight", an, d->D * d->Hkv, T));
			vr = rotate(g, vr, d->D * d->Hkv * T, d->v_rot, vrot);
		} else { /* the plain builder expands q, v, k */
			vr = ga_view(g, mm(g, d, L, "attn_v.weight", an, d->D * d->Hkv, T));
			vr = rotate(g, vr, d->D * d->Hkv * T, d->v_rot, vrot);
			k = ga_view(g, mm(g, d, L, "attn_k.weight", an, d->D * d->Hkv, T));
			if (qk_norm)
				k = norm(g, d, k, d->D, d->Hkv, T, L, "attn_k_norm.weight");
			k = rope(g, k, pos, d->D, d->Hkv, T);
			k = rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
		}
		int o = attend(g, d, in, L, q, k, vr, swa);
		o = rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, vrot);
		int cur = mm(g, d, L, "attn_output.weight", ga_view(g, o), d->E, T);
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1 && d->n_out < T) {
			int ids = input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
			cur = op_kind(g, ga_op(g, 0, F32, d->E, d->n_out, 1, 1, S(cur, ids)), GA_OP_GET_ROWS);
			res = op_kind(g, ga_op(g, 0, F32, d->E, d->n_out, 1, 1, S(x, ids)), GA_OP_GET_ROWS);
			Tn = d->n_out;
		}
		int fi = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
		int fn = norm(g, d, fi, d->E, Tn, 1, L, "ffn_norm.weight");
		int fo = d->n_expert ? moe(g, d, L, fn, Tn) : ffn(g, d, L, fn, Tn);
		x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, fi));
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = norm(g, d, x, d->E, To, 1, -1, "output_norm.weight");
	int out = mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

/* Qwen3.5's gated attention block: q and its gate in one projection. */
static int qwen35_attention(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an, int swa)
{
	int64_t T = d->T;
	int *krot = swa ? &in->k_rot_swa : &in->k_rot, *vrot = swa ? &in->v_rot_swa : &in->v_rot;
	int pos = input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
	int qf = mm(g, d, il, "attn_q.weight", an, d->D * d->H * 2, T);
	uint64_t half = g->t[qf].bytes - (uint64_t)d->D * 4; /* a view of every other head */
	int q = norm(g, d, ga_view_n(g, qf, half), d->D, d->H, T, il, "attn_q_norm.weight");
	q = rope(g, q, pos, d->D, d->H, T);
	q = rotate(g, q, d->D * d->H * T, d->k_rot, krot);
	int v = mm(g, d, il, "attn_v.weight", an, d->D * d->Hkv, T);
	int vr = rotate(g, ga_view(g, v), d->D * d->Hkv * T, d->v_rot, vrot);
	int k = mm(g, d, il, "attn_k.weight", an, d->D * d->Hkv, T);
	k = norm(g, d, ga_view(g, k), d->D, d->Hkv, T, il, "attn_k_norm.weight");
	k = rope(g, k, pos, d->D, d->Hkv, T);
	k = rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
	int o = attend(g, d, in, il, q, k, vr, swa);
	o = rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, vrot);
	int gate = ga_op(g, 0, F32, d->D * d->H, T, 1, 1, S(ga_view_n(g, qf, half)));
	gate = ga_op(g, 1, F32, d->D * d->H, T, 1, 1, S(gate));
	int gated = ga_op(g, 1, F32, d->D * d->H, T, 1, 1, S(ga_view(g, o), gate));
	return mm(g, d, il, "attn_output.weight", gated, d->E, T);
}

/* Gated DeltaNet (src/models/qwen35.cpp build_layer_attn_linear with the
 * fused GATED_DELTA_NET op), states read from and written to the cache. */
static int qwen35_deltanet(struct ga_graph *g, const struct dims *d, struct inputs *in, int il, int an)
{
	int64_t T = d->T, ns = d->n_seq;
	int64_t key_dim = d->d_state * d->n_group, value_dim = d->d_state * d->dt_rank;
	int64_t conv_dim = 2 * key_dim + value_dim;
	int sc = input_once(g, &in->s_copy, (uint64_t)ns * 4);
	int rcache = Cache(g, d, il), scache = Cache(g, d, il);
	ga_view(g, rcache); /* scale_inplace on a cache view: allocates nothing */
	int conv_states = ga_op(g, 0, F32, d->n_embd_r, ns, 1, 1, S(ga_view(g, rcache), ga_view(g, sc)));
	int extra = ga_op(g, 0, F32, d->n_embd_r, 0, 1, 1, S(ga_view(g, rcache), ga_view(g, sc)));
	ga_sink_to(g, rcache, S(extra, ga_view(g, rcache)));
	int qkv = mm(g, d, il, "attn_qkv.weight", an, conv_dim, T);
	int conv_in =
	    ga_op(g, 0, F32, d->d_conv - 1 + T / ns, conv_dim, ns, 1, S(ga_view(g, conv_states), ga_view(g, qkv)));
	/* the last conv window into the cache: one per rollback snapshot */
	for (int64_t k = 0; k < d->rs_k; k++)
		ga_sink_to(g, rcache, S(ga_view(g, conv_in), ga_view(g, rcache)));
	ga_view(g, scache);
	int state = ga_op(g, 0, F32, d->n_embd_s, ns, 1, 1, S(ga_view(g, scache), ga_view(g, sc)));
	int sextra = ga_op(g, 0, F32, d->n_embd_s, 0, 1, 1, S(ga_view(g, scache), ga_view(g, sc)));
	ga_sink_to(g, scache, S(sextra, ga_view(g, scache)));
	int conv = ga_op(g, 0, F32, conv_dim, T / ns, ns, 1, S(conv_in, Wt(g, d, il, "ssm_conv1d.weight")));
	conv = ga_op(g, 1, F32, conv_dim, T / ns, ns, 1, S(conv));
	int qc = ga_op(g, 0, F32, d->d_state, d->n_group, T / ns, ns, S(ga_view(g, conv)));
	int kc = ga_op(g, 0, F32, d->d_state, d->n_group, T / ns, ns, S(ga_view(g, conv)));
	int vc = ga_view(g, conv);
	int alpha = mm(g, d, il, "ssm_alpha.weight", an, d->dt_rank, T);
	alpha = ga_op(g, 0, F32, d->dt_rank, T / ns, ns, 1, S(ga_view(g, alpha), Wt(g, d, il, "ssm_dt.bias")));
	alpha = ga_op(g, 1, F32, d->dt_rank, T / ns, ns, 1, S(alpha));
	alpha = ga_op(g, 1, F32, d->dt_rank, T / ns, ns, 1, S(alpha, Wt(g, d, il, "ssm_a")));
	int beta = mm(g, d, il, "ssm_beta.weight", an, d->dt_rank, T);
	beta = ga_op(g, 1, F32, 1, d->dt_rank, T / ns, ns, S(ga_view(g, beta)));
	/* ggml_gated_delta_net: the attention scores, then K state snapshots */
	int delta = ga_op(g, 0, F32, value_dim * T + d->rs_k * d->n_embd_s * ns, 1, 1, 1,
			  S(qc, kc, ga_view(g, vc), ga_view(g, alpha), beta, ga_view(g, state)));
	ga_sink_to(g, scache, S(ga_view(g, delta), ga_view(g, scache)));
	int on = norm(g, d, ga_view(g, delta), d->d_state, d->dt_rank * T, 1, il, "ssm_norm.weight");
	int z = mm(g, d, il, "attn_gate.weight", an, value_dim, T);
	z = ga_op(g, 1, F32, d->d_state, d->dt_rank * T, 1, 1, S(ga_view(g, z)));
	int gated = ga_op(g, 1, F32, d->d_state, d->dt_rank * T, 1, 1, S(on, z));
	return mm(g, d, il, "ssm_out.weight", ga_view(g, gated), d->E, T);
}

static void graph_qwen35(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int L = (int)il;
		int an = norm(g, d, x, d->E, T, 1, L, "attn_norm.weight");
		/* DeltaNet's output is reshaped (a view, never reused in place);
		 * attention's is the projection itself, which the residual add
		 * takes over */
		int recr = m->kind[il] == LAYER_RECURRENT;
		int cur = recr ? ga_view(g, qwen35_deltanet(g, d, in, L, an))
			       : qwen35_attention(g, d, in, L, an, m->kind[il] == LAYER_SWA);
		int res = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, x));
		int pn = norm(g, d, res, d->E, T, 1, L, "post_attention_norm.weight");
		int fo = ffn(g, d, L, pn, T);
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(fo, res));
	}
	int h = norm(g, d, x, d->E, T, 1, -1, "output_norm.weight");
	g->t[h].output = 1; /* h_nextn: always a graph output, for an MTP head to read */
	int64_t To = d->n_out < T ? d->n_out : T;
	int ids = input_once(g, &in->out_ids, (uint64_t)To * 4);
	int rn = op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(h, ids)), GA_OP_GET_ROWS);
	int out = mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

/* The Qwen3.5 MTP head as its own context's graph (qwen35.cpp graph_mtp):
 * the nextn block il. */
static void graph_qwen35_mtp(struct ga_graph *g, const struct dims *d, struct inputs *in, int il)
{
	int64_t T = d->T;
	int toks = input_once(g, &in->tokens, (uint64_t)T * 4);
	int te =
	    op_kind(g, ga_op(g, 0, F32, d->E, T, 1, 1, S(Wt(g, d, -1, "token_embd.weight"), toks)), GA_OP_GET_ROWS);
	int en = norm(g, d, te, d->E, T, 1, il, "nextn.enorm.weight");
	/* the target's hidden states, an input the norm may overwrite in place */
	int hin = ga_input(g, (uint64_t)d->E * T * 4);
	g->t[hin].ne[0] = d->E;
	g->t[hin].ne[1] = T;
	g->t[hin].ne[2] = g->t[hin].ne[3] = 1;
	g->t[hin].type = F32;
	int hn = norm(g, d, hin, d->E, T, 1, il, "nextn.hnorm.weight");
	int cat = ga_op(g, 0, F32, 2 * d->E, T, 1, 1, S(en, hn));
	int x = mm(g, d, il, "nextn.eh_proj.weight", cat, d->E, T);
	int an = norm(g, d, x, d->E, T, 1, il, "attn_norm.weight");
	int cur = qwen35_attention(g, d, in, il, an, 0);
	int res = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, x));
	int pn = norm(g, d, res, d->E, T, 1, il, "post_attention_norm.weight");
	int fo = ffn(g, d, il, pn, T);
	x = ga_op(g, 1, F32, d->E, T, 1, 1, S(fo, res));
	int h = norm(g, d, x, d->E, T, 1, il, "nextn.shared_head_norm.weight");
	g->t[h].output = 1; /* h_nextn, as in the target graph */
	int64_t To = d->n_out < T ? d->n_out : T;
	int ids = input_once(g, &in->out_ids, (uint64_t)To * 4);
	int rn = op_kind(g, ga_op(g, 0, F32, d->E, To, 1, 1, S(h, ids)), GA_OP_GET_ROWS);
	int out = mm(g, d, -1, "output.weight", rn, d->V, To);
	g->t[out].output = 1;
}

static int is_qwen35_family(const struct model *m)
{
	/* the gated-attention hybrid: metadata says recurrent layers with
	 * ssm.* keys and a full-attention interval */
	return m->n_kind[LAYER_RECURRENT] > 0 && m->ssm_d_state && m->ssm_dt_rank;
}

enum graph_kind { G_TARGET, G_DRAFT };

/* The backends the engine's scheduler gets: one per device, then the CPU. */
static void backends(const struct placement *pl, struct ga_sched *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->n_backends = (int)pl->n_dev + 1;
	for (unsigned i = 0; i < pl->n_dev; i++) {
		int cuda = pl->dev[i].profile->backend == DEVICE_CUDA;
		sc->align[i] = cuda ? CUDA_ALIGN : CPU_ALIGN;
		sc->offload[i] = (uint8_t)cuda;
	}
	sc->align[pl->n_dev] = CPU_ALIGN;
	sc->n_copies = pl->pipeline ? 4 : 1;
}

static void build_graph(struct ga_graph *g, const struct model *m, const struct dims *d, enum graph_kind kind,
			int draft_il)
{
	struct inputs in;
	memset(&in, -1, sizeof(in));
	if (kind == G_DRAFT)
		graph_qwen35_mtp(g, d, &in, draft_il);
	else if (is_qwen35_family(m))
		graph_qwen35(g, m, d, &in);
	else
		graph_llama(g, m, d, &in);
}

/* With a memo, a graph's buffer is read from an affine piece over the
 * cells the masks span (n_kv, and n_kv_swa when the window layers span as
 * many): one replay, of two builds 256 cells apart, prices every window
 * over which galloc decides the same (gaparam.c). One backend only: with
 * devices the scheduler decides per graph. */
static uint64_t run_graph_memo(struct memo *mm, const struct model *m, const struct dims *d, enum graph_kind kind,
			       int draft_il)
{
	struct {
		const struct model *m;
		int kind;
		struct dims d;
	} key;
	memset(&key, 0, sizeof(key));
	key.m = m;
	key.kind = kind;
	memcpy(&key.d, d, sizeof(*d));
	key.d.w = NULL; /* where things live is moot on one backend */
	int tied = d->n_kv_swa == d->n_kv;
	key.d.n_kv = 0;
	key.d.kv_size = 0;
	key.d.n_kv_swa = tied ? -1 : d->n_kv_swa;
	key.d.kv_size_swa = tied ? -1 : d->kv_size_swa;
	uint64_t n = (uint64_t)d->n_kv, bytes;
	if (memo_piece_find(mm, &key, sizeof(key), n, &bytes))
		return bytes;
	struct dims d1 = *d;
	d1.n_kv += 256;
	d1.kv_size += 256;
	if (tied) {
		d1.n_kv_swa += 256;
		d1.kv_size_swa += 256;
	}
	struct ga_graph g0, g1;
	ga_init(&g0);
	ga_init(&g1);
	build_graph(&g0, m, d, kind, draft_il);
	build_graph(&g1, m, &d1, kind, draft_il);
	struct ga_piece pc;
	if (ga_affine(&g0, &g1, n, 256, CPU_ALIGN, &pc) == 0) {
		memo_count_replay(mm, 1);
	} else {
		pc.lo = pc.hi = n;
		pc.a = (int64_t)ga_run(&g0, CPU_ALIGN);
		pc.b = 0;
		memo_count_replay(mm, 0);
	}
	bytes = (uint64_t)(pc.a + pc.b * (int64_t)n);
	memo_piece_add(mm, &key, sizeof(key), &pc);
	ga_release(&g0);
	ga_release(&g1);
	return bytes;
}

/* One graph through the scheduler and the allocators: each backend's
 * buffer into sizes[]. */
static void run_graph(const struct model *m, const struct dims *d, enum graph_kind kind, int draft_il, struct memo *mm,
		      uint64_t *sizes)
{
	if (mm && d->w->pl->n_dev == 0) {
		sizes[0] = run_graph_memo(mm, m, d, kind, draft_il);
		return;
	}
	struct ga_graph g;
	ga_init(&g);
	build_graph(&g, m, d, kind, draft_il);
	struct ga_sched sc;
	backends(d->w->pl, &sc);
	ga_schedule(&g, &sc, sizes);
	ga_release(&g);
}

/* llama_kv_cache: attn_rot_k / attn_rot_v for quantized cache types when
 * every layer shares the head size and it is a multiple of 64; K rotates
 * by the largest power of two dividing the head, V by 64. */
static int64_t rot_size(const struct ggml_type_info *t, int64_t head, int is_k)
{
	if (!t || t->blck == 1 || head <= 0 || head % 64)
		return 0;
	if (!is_k)
		return 64;
	int64_t n = 64;
	do
		n *= 2;
	while (head % n == 0);
	return n / 2;
}

static void set_dims(struct dims *d, const struct where *w, const struct model *m, const struct plan *p,
		     const struct plan_shape *s, int64_t T, int64_t n_out, const struct ggml_type_info *tk,
		     const struct ggml_type_info *tv)
{
	memset(d, 0, sizeof(*d));
	d->w = w;
	d->T = T;
	d->n_out = n_out;
	d->n_seq = p->n_seq;
	d->E = m->n_embd;
	d->F = m->n_ff;
	d->V = (int64_t)m->n_vocab;
	d->D = m->head_k;
	d->H = m->n_head[0];
	d->Hkv = m->n_head_kv[0];
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		if (m->kind[il] != LAYER_RECURRENT && m->n_head_kv[il]) {
			d->Hkv = m->n_head_kv[il];
			break;
		}
	}
	d->n_kv = p->kv.present ? p->kv.cells : p->n_ctx_seq;
	d->n_kv_swa = p->kv_swa.present ? p->kv_swa.cells : d->n_kv;
	d->kv_size = d->n_kv;
	d->kv_size_swa = d->n_kv_swa;
	d->n_stream = s->kv_unified ? 1 : p->n_seq;
	d->k_row = ggml_row_bytes(tk, (uint64_t)d->D * d->Hkv);
	d->v_row = ggml_row_bytes(tv, (uint64_t)d->D * d->Hkv);
	d->fa = s->flash_attn;
	int uniform = m->head_k == m->head_k_swa && m->head_v == m->head_v_swa;
	d->k_rot = uniform ? rot_size(tk, m->head_k, 1) : 0;
	d->v_rot = uniform ? rot_size(tv, m->head_v, 0) : 0;
	d->mrope = m->has_rope_sections;
	d->d_state = m->ssm_d_state;
	d->n_group = m->ssm_n_group;
	d->dt_rank = m->ssm_dt_rank;
	d->d_conv = m->ssm_d_conv;
	d->n_embd_r = (int64_t)m->n_embd_r;
	d->n_embd_s = (int64_t)m->n_embd_s;
	d->rs_k = 1 + (int64_t)p->rs.rs_seq;
	d->n_expert = m->n_expert;
	d->n_expert_used = m->n_expert_used;
	d->F_exp = m->n_ff_exp ? m->n_ff_exp : (m->n_expert_used ? m->n_ff / m->n_expert_used : 0);
}

/* sched_reserve: prefill at T = min(n_ctx, n_ubatch), decode at one token
 * per sequence; each backend's buffer keeps the larger. */
static void reserve(const struct compute_input *ci, enum graph_kind kind, uint64_t n_outputs_max, struct memo *mm,
		    uint64_t *sizes)
{
	const struct model *m = ci->m;
	const struct plan *p = ci->p;
	const struct plan_shape *s = ci->s;
	const struct placement *pl = ci->pl;
	int64_t T = s->n_ubatch < p->n_ctx ? s->n_ubatch : p->n_ctx;
	/* graph_reserve rounds the batch up to a whole number per sequence */
	if (T % p->n_seq)
		T = (T + p->n_seq - 1) / p->n_seq * p->n_seq;
	int64_t n_out = (int64_t)n_outputs_max < T ? (int64_t)n_outputs_max : T;
	struct where w = {pl, ci->gg, m->n_layer_all, (int)pl->n_dev, 0, 0};
	w.has_output = !ci->gg || gguf_tensor_find(ci->gg, "output.weight") != NULL;
	int full = pl->ngl > m->n_layer_all; /* n_gpu_layers() > n_layer_all */
	const struct ggml_type_info *tk = kind == G_DRAFT ? s->draft_k : s->type_k;
	const struct ggml_type_info *tv = kind == G_DRAFT ? s->draft_v : s->type_v;
	int draft_il = (int)(m->n_layer_all - m->n_nextn);
	struct dims d;
	uint64_t pp[PLACE_MAX_DEV + 1] = {0}, tg[PLACE_MAX_DEV + 1] = {0};
	w.force_norm = T < 32 || full;
	set_dims(&d, &w, m, p, s, T, n_out, tk, tv);
	run_graph(m, &d, kind, draft_il, mm, pp);
	w.force_norm = p->n_seq < 32 || full;
	set_dims(&d, &w, m, p, s, p->n_seq, p->n_seq, tk, tv);
	run_graph(m, &d, kind, draft_il, mm, tg);
	for (unsigned b = 0; b <= pl->n_dev; b++)
		sizes[b] = pp[b] > tg[b] ? pp[b] : tg[b];
}

/* The buffers in the engine's order (the devices, then the CPU's, named
 * after the first device's pinned host type when it has one); a backend
 * that allocates nothing prints no line. */
static void put_all(struct plan_buf *b, unsigned *n, const struct placement *pl, const uint64_t *sizes)
{
	*n = 0;
	for (unsigned i = 0; i <= pl->n_dev; i++) {
		if (sizes[i] <= 1 && (pl->n_dev || i != pl->n_dev))
			continue;
		struct plan_buf *x = &b[(*n)++];
		memset(x, 0, sizeof(*x));
		snprintf(x->buft, sizeof(x->buft), "%s", i < pl->n_dev ? pl->dev[i].name : place_cpu_buft(pl));
		x->bytes = sizes[i];
		x->dev = (int)i; /* plan.devs: the devices, then the host */
		x->on_device = i < pl->n_dev;
	}
}

void compute_model(const struct compute_input *in, struct plan *p)
{
	const struct plan_shape *s = in->s;
	p->n_compute = p->n_draft_compute = 0;
	/* server_output_limits: n_parallel * (1 + draft depth), within n_batch */
	uint64_t per_seq = 1 + (s->spec_mtp ? s->spec_n_max : 0);
	uint64_t n_outputs_max = (uint64_t)p->n_seq * per_seq;
	if (n_outputs_max > s->n_batch)
		n_outputs_max = s->n_batch;
	p->n_outputs_max = (uint32_t)n_outputs_max;
	/* a trace (ZEALOT_GA_TRACE) is of the plain replay */
	struct memo *mm = getenv("ZEALOT_GA_TRACE") ? NULL : in->memo;
	uint64_t sizes[PLACE_MAX_DEV + 1];
	reserve(in, G_TARGET, n_outputs_max, mm, sizes);
	put_all(p->compute, &p->n_compute, in->pl, sizes);
	if (p->has_draft) {
		/* the draft context outputs one token per slot */
		reserve(in, G_DRAFT, p->n_seq, mm, sizes);
		put_all(p->draft_compute, &p->n_draft_compute, in->pl, sizes);
	}
}

/* The projector's worst-case encoder compute is printed by the engine
 * only after its own fit check (law M06) and zealot has no replay of the
 * vision graphs yet: it is estimated as K activations of the tower's width
 * per patch of the largest image, with K = 24.5 calibrated on the one
 * measured boot in the seeds (a Qwen3-VL-class Q8_0 tower, 1152 wide,
 * 768 px / 16 px patches: 248.10 MiB). */
uint64_t compute_projector(const struct gguf *projector)
{
	uint64_t image = 0, patch = 0, embd = 0;
	if (gguf_kv_u64(gguf_find(projector, "clip.vision.image_size"), &image) ||
	    gguf_kv_u64(gguf_find(projector, "clip.vision.patch_size"), &patch) ||
	    gguf_kv_u64(gguf_find(projector, "clip.vision.embedding_length"), &embd) || patch == 0)
		return 0;
	uint64_t side = image / patch;
	return side * side * embd * 4 * 245 / 10;
}
