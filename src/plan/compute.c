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
 * them are; the live tests measure the error.
 */
#include "compute.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "galloc.h"
#include "gaparam.h"
#include "memo.h"
#include "plan.h"

/* ggml's CPU buffers align tensors to 32 bytes (TENSOR_ALIGNMENT). */
#define CPU_ALIGN 32
enum { F32 = 0, F16 = 1, I32 = 2, I64 = 3 };

struct dims {
	int64_t T, n_out, n_seq;
	int64_t E, F, V;
	int64_t D, H, Hkv;	/* head size, heads, KV heads */
	int64_t n_kv, n_kv_swa; /* cells per stream the masks span */
	int fa;
	int mrope;	      /* positions are 4 per token */
	int64_t k_rot, v_rot; /* Hadamard rotation sizes for quantized caches, 0 = none */
	/* Gated DeltaNet */
	int64_t d_state, n_group, dt_rank, d_conv;
	int64_t n_embd_r, n_embd_s;
	int64_t rs_k; /* state snapshots the delta net writes: n_rs_seq + 1 */
};

struct inputs {
	int tokens, pos, k_idx, v_idx, mask, k_idx_swa, v_idx_swa, mask_swa, out_ids, s_copy;
	int k_rot, v_rot, k_rot_swa, v_rot_swa; /* each KV cache has its own rotation inputs */
};

/* llama_mul_mat_hadamard: a quantized cache stores rotated K or V, so the
 * graph multiplies Q and K (or V, and the attention output) by an n x n
 * rotation held as an input. */
static int rotate(struct ga_graph *g, int x, int64_t elems, int64_t n, int *slot)
{
	if (!n)
		return x;
	if (*slot < 0)
		*slot = ga_input(g, (uint64_t)n * n * 4);
	int r = ga_op(g, 0, 0, n, elems / n, 1, 1, ((const int[]){*slot, ga_view(g, x), -2}));
	return ga_view(g, r);
}

#define S(...) ((const int[]){__VA_ARGS__, -2})

static int W(struct ga_graph *g)
{
	return ga_external(g);
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
	return ga_op(g, 0, F32, d->E, d->T, 1, 1, S(W(g), toks));
}

static int rms_norm_mul(struct ga_graph *g, int x, int64_t ne0, int64_t ne1, int64_t ne2)
{
	int n = ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(x));
	return ga_op(g, 1, F32, ne0, ne1, ne2, 1, S(n, W(g)));
}

/* FFN: gate, up, swiglu, down (build_ffn with LLM_FFN_SILU, PAR). */
static int ffn(struct ga_graph *g, const struct dims *d, int x, int64_t T)
{
	int gate = ga_op(g, 0, F32, d->F, T, 1, 1, S(W(g), x));
	int up = ga_op(g, 0, F32, d->F, T, 1, 1, S(W(g), x));
	int glu = ga_op(g, 0, F32, d->F, T, 1, 1, S(gate, up));
	return ga_op(g, 0, F32, d->E, T, 1, 1, S(W(g), glu));
}

/* K and V into the cache, then flash attention (or softmax attention). */
static int attend(struct ga_graph *g, const struct dims *d, struct inputs *in, int q, int k, int v, int swa)
{
	int64_t T = d->T;
	int64_t n_kv = swa ? d->n_kv_swa : d->n_kv;
	int *kslot = swa ? &in->k_idx_swa : &in->k_idx;
	int *vslot = swa ? &in->v_idx_swa : &in->v_idx;
	int *mslot = swa ? &in->mask_swa : &in->mask;
	int kidx = input_once(g, kslot, (uint64_t)T * 8);
	int vidx = input_once(g, vslot, (uint64_t)T * 8 * (d->fa ? 1 : (uint64_t)(d->Hkv * d->D)));
	ga_sink(g, S(ga_view(g, k), kidx, W(g)));
	ga_sink(g, S(ga_view(g, v), vidx, W(g)));
	int mask = input_once(g, mslot, (uint64_t)n_kv * T * (d->fa ? 2 : 4));
	int qp = ga_view(g, q);
	int kc = ga_view(g, W(g)), vc = ga_view(g, W(g));
	if (d->fa)
		return ga_op(g, 0, F32, d->D, d->H, T, 1, S(qp, kc, vc, mask));
	/* kq = k*q, softmax in place, kqv = v*kq, permute + cont */
	int kq = ga_op(g, 0, F32, n_kv, T, d->H, 1, S(kc, qp));
	int sm = ga_op(g, 1, F32, n_kv, T, d->H, 1, S(kq, mask));
	int kqv = ga_op(g, 0, F32, d->D, T, d->H, 1, S(vc, sm));
	return ga_op(g, 0, F32, d->D, d->H, T, 1, S(ga_view(g, kqv)));
}

/* The dense llama block (src/models/llama.cpp). */
static void graph_llama(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int an = rms_norm_mul(g, x, d->E, T, 1);
		int pos = input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
		int swa = m->kind[il] == LAYER_SWA;
		int *krot = swa ? &in->k_rot_swa : &in->k_rot, *vrot = swa ? &in->v_rot_swa : &in->v_rot;
		int q = ga_op(g, 0, F32, d->D * d->H, T, 1, 1, S(W(g), an));
		q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(ga_view(g, q), pos));
		q = rotate(g, q, d->D * d->H * T, d->k_rot, krot);
		int k, vr;
		if (m->n_kind[LAYER_SWA]) { /* the iSWA builder expands q, k, v */
			k = ga_op(g, 0, F32, d->D * d->Hkv, T, 1, 1, S(W(g), an));
			k = ga_op(g, 1, F32, d->D, d->Hkv, T, 1, S(ga_view(g, k), pos));
			k = rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
			vr = ga_view(g, ga_op(g, 0, F32, d->D * d->Hkv, T, 1, 1, S(W(g), an)));
			vr = rotate(g, vr, d->D * d->Hkv * T, d->v_rot, vrot);
		} else { /* the plain builder expands q, v, k */
			vr = ga_view(g, ga_op(g, 0, F32, d->D * d->Hkv, T, 1, 1, S(W(g), an)));
			vr = rotate(g, vr, d->D * d->Hkv * T, d->v_rot, vrot);
			k = ga_op(g, 0, F32, d->D * d->Hkv, T, 1, 1, S(W(g), an));
			k = ga_op(g, 1, F32, d->D, d->Hkv, T, 1, S(ga_view(g, k), pos));
			k = rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
		}
		int o = attend(g, d, in, q, k, vr, swa);
		o = rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, vrot);
		int cur = ga_op(g, 0, F32, d->E, T, 1, 1, S(W(g), ga_view(g, o)));
		int64_t Tn = T;
		int res = x;
		if (il == n_layer - 1 && d->n_out < T) {
			int ids = input_once(g, &in->out_ids, (uint64_t)d->n_out * 4);
			cur = ga_op(g, 0, F32, d->E, d->n_out, 1, 1, S(cur, ids));
			res = ga_op(g, 0, F32, d->E, d->n_out, 1, 1, S(x, ids));
			Tn = d->n_out;
		}
		int fi = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(cur, res));
		int fn = rms_norm_mul(g, fi, d->E, Tn, 1);
		int fo = ffn(g, d, fn, Tn);
		x = ga_op(g, 1, F32, d->E, Tn, 1, 1, S(fo, fi));
	}
	int64_t To = d->n_out < T ? d->n_out : T;
	int rn = rms_norm_mul(g, x, d->E, To, 1);
	int out = ga_op(g, 0, F32, d->V, To, 1, 1, S(W(g), rn));
	g->t[out].output = 1;
}

/* Qwen3.5's gated attention block: q and its gate in one projection. */
static int qwen35_attention(struct ga_graph *g, const struct dims *d, struct inputs *in, int an, int swa)
{
	int64_t T = d->T;
	int *krot = swa ? &in->k_rot_swa : &in->k_rot, *vrot = swa ? &in->v_rot_swa : &in->v_rot;
	int pos = input_once(g, &in->pos, (uint64_t)T * 4 * (d->mrope ? 4 : 1));
	int qf = ga_op(g, 0, F32, d->D * d->H * 2, T, 1, 1, S(W(g), an));
	int q = rms_norm_mul(g, ga_view(g, qf), d->D, d->H, T);
	q = ga_op(g, 1, F32, d->D, d->H, T, 1, S(q, pos));
	q = rotate(g, q, d->D * d->H * T, d->k_rot, krot);
	int v = ga_op(g, 0, F32, d->D * d->Hkv, T, 1, 1, S(W(g), an));
	int vr = rotate(g, ga_view(g, v), d->D * d->Hkv * T, d->v_rot, vrot);
	int k = ga_op(g, 0, F32, d->D * d->Hkv, T, 1, 1, S(W(g), an));
	k = rms_norm_mul(g, ga_view(g, k), d->D, d->Hkv, T);
	k = ga_op(g, 1, F32, d->D, d->Hkv, T, 1, S(k, pos));
	k = rotate(g, k, d->D * d->Hkv * T, d->k_rot, krot);
	int o = attend(g, d, in, q, k, vr, swa);
	o = rotate(g, ga_view(g, o), d->D * d->H * T, d->v_rot, vrot);
	int gate = ga_op(g, 0, F32, d->D * d->H, T, 1, 1, S(ga_view(g, qf)));
	gate = ga_op(g, 1, F32, d->D * d->H, T, 1, 1, S(gate));
	int gated = ga_op(g, 1, F32, d->D * d->H, T, 1, 1, S(ga_view(g, o), gate));
	return ga_op(g, 0, F32, d->E, T, 1, 1, S(W(g), gated));
}

/* Gated DeltaNet (src/models/qwen35.cpp build_layer_attn_linear with the
 * fused GATED_DELTA_NET op), states read from and written to the cache. */
static int qwen35_deltanet(struct ga_graph *g, const struct dims *d, struct inputs *in, int an)
{
	int64_t T = d->T, ns = d->n_seq;
	int64_t key_dim = d->d_state * d->n_group, value_dim = d->d_state * d->dt_rank;
	int64_t conv_dim = 2 * key_dim + value_dim;
	int sc = input_once(g, &in->s_copy, (uint64_t)ns * 4);
	ga_view(g, W(g)); /* scale_inplace on a cache view: allocates nothing */
	int conv_states = ga_op(g, 0, F32, d->n_embd_r, ns, 1, 1, S(ga_view(g, W(g)), ga_view(g, sc)));
	int extra = ga_op(g, 0, F32, d->n_embd_r, 0, 1, 1, S(ga_view(g, W(g)), ga_view(g, sc)));
	ga_sink(g, S(extra, ga_view(g, W(g))));
	int qkv = ga_op(g, 0, F32, conv_dim, T, 1, 1, S(W(g), an));
	int conv_in =
	    ga_op(g, 0, F32, d->d_conv - 1 + T / ns, conv_dim, ns, 1, S(ga_view(g, conv_states), ga_view(g, qkv)));
	/* the last conv window into the cache: one per rollback snapshot */
	for (int64_t k = 0; k < d->rs_k; k++)
		ga_sink(g, S(ga_view(g, conv_in), ga_view(g, W(g))));
	ga_view(g, W(g));
	int state = ga_op(g, 0, F32, d->n_embd_s, ns, 1, 1, S(ga_view(g, W(g)), ga_view(g, sc)));
	int sextra = ga_op(g, 0, F32, d->n_embd_s, 0, 1, 1, S(ga_view(g, W(g)), ga_view(g, sc)));
	ga_sink(g, S(sextra, ga_view(g, W(g))));
	int conv = ga_op(g, 0, F32, conv_dim, T / ns, ns, 1, S(conv_in, W(g)));
	conv = ga_op(g, 1, F32, conv_dim, T / ns, ns, 1, S(conv));
	int qc = ga_op(g, 0, F32, d->d_state, d->n_group, T / ns, ns, S(ga_view(g, conv)));
	int kc = ga_op(g, 0, F32, d->d_state, d->n_group, T / ns, ns, S(ga_view(g, conv)));
	int vc = ga_view(g, conv);
	int alpha = ga_op(g, 0, F32, d->dt_rank, T, 1, 1, S(W(g), an));
	alpha = ga_op(g, 0, F32, d->dt_rank, T / ns, ns, 1, S(ga_view(g, alpha), W(g)));
	alpha = ga_op(g, 1, F32, d->dt_rank, T / ns, ns, 1, S(alpha));
	alpha = ga_op(g, 1, F32, d->dt_rank, T / ns, ns, 1, S(alpha, W(g)));
	int beta = ga_op(g, 0, F32, d->dt_rank, T, 1, 1, S(W(g), an));
	beta = ga_op(g, 1, F32, 1, d->dt_rank, T / ns, ns, S(ga_view(g, beta)));
	/* ggml_gated_delta_net: the attention scores, then K state snapshots */
	int delta = ga_op(g, 0, F32, value_dim * T + d->rs_k * d->n_embd_s * ns, 1, 1, 1,
			  S(qc, kc, ga_view(g, vc), ga_view(g, alpha), beta, ga_view(g, state)));
	ga_sink(g, S(ga_view(g, delta), ga_view(g, W(g))));
	int on = rms_norm_mul(g, ga_view(g, delta), d->d_state, d->dt_rank * T, 1);
	int z = ga_op(g, 0, F32, value_dim, T, 1, 1, S(W(g), an));
	z = ga_op(g, 1, F32, d->d_state, d->dt_rank * T, 1, 1, S(ga_view(g, z)));
	int gated = ga_op(g, 1, F32, d->d_state, d->dt_rank * T, 1, 1, S(on, z));
	return ga_op(g, 0, F32, d->E, T, 1, 1, S(W(g), ga_view(g, gated)));
}

static void graph_qwen35(struct ga_graph *g, const struct model *m, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int x = input_embd(g, d, in);
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	for (uint32_t il = 0; il < n_layer; il++) {
		int an = rms_norm_mul(g, x, d->E, T, 1);
		/* DeltaNet's output is reshaped (a view, never reused in place);
		 * attention's is the projection itself, which the residual add
		 * takes over */
		int recr = m->kind[il] == LAYER_RECURRENT;
		int cur = recr ? ga_view(g, qwen35_deltanet(g, d, in, an))
			       : qwen35_attention(g, d, in, an, m->kind[il] == LAYER_SWA);
		int res = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, x));
		int pn = rms_norm_mul(g, res, d->E, T, 1);
		int fo = ffn(g, d, pn, T);
		x = ga_op(g, 1, F32, d->E, T, 1, 1, S(fo, res));
	}
	int h = rms_norm_mul(g, x, d->E, T, 1);
	g->t[h].output = 1; /* h_nextn: always a graph output, for an MTP head to read */
	int64_t To = d->n_out < T ? d->n_out : T;
	int ids = input_once(g, &in->out_ids, (uint64_t)To * 4);
	int rn = ga_op(g, 0, F32, d->E, To, 1, 1, S(h, ids));
	int out = ga_op(g, 0, F32, d->V, To, 1, 1, S(W(g), rn));
	g->t[out].output = 1;
}

/* The Qwen3.5 MTP head as its own context's graph (qwen35.cpp graph_mtp). */
static void graph_qwen35_mtp(struct ga_graph *g, const struct dims *d, struct inputs *in)
{
	int64_t T = d->T;
	int toks = input_once(g, &in->tokens, (uint64_t)T * 4);
	int te = ga_op(g, 0, F32, d->E, T, 1, 1, S(W(g), toks));
	int en = rms_norm_mul(g, te, d->E, T, 1);
	/* the target's hidden states, an input the norm may overwrite in place */
	int hin = ga_input(g, (uint64_t)d->E * T * 4);
	g->t[hin].ne[0] = d->E;
	g->t[hin].ne[1] = T;
	g->t[hin].ne[2] = g->t[hin].ne[3] = 1;
	g->t[hin].type = F32;
	int hn = rms_norm_mul(g, hin, d->E, T, 1);
	int cat = ga_op(g, 0, F32, 2 * d->E, T, 1, 1, S(en, hn));
	int x = ga_op(g, 0, F32, d->E, T, 1, 1, S(W(g), cat));
	int an = rms_norm_mul(g, x, d->E, T, 1);
	int cur = qwen35_attention(g, d, in, an, 0);
	int res = ga_op(g, 1, F32, d->E, T, 1, 1, S(cur, x));
	int pn = rms_norm_mul(g, res, d->E, T, 1);
	int fo = ffn(g, d, pn, T);
	x = ga_op(g, 1, F32, d->E, T, 1, 1, S(fo, res));
	int h = rms_norm_mul(g, x, d->E, T, 1);
	g->t[h].output = 1; /* h_nextn, as in the target graph */
	int64_t To = d->n_out < T ? d->n_out : T;
	int ids = input_once(g, &in->out_ids, (uint64_t)To * 4);
	int rn = ga_op(g, 0, F32, d->E, To, 1, 1, S(h, ids));
	int out = ga_op(g, 0, F32, d->V, To, 1, 1, S(W(g), rn));
	g->t[out].output = 1;
}

static int is_qwen35_family(const struct model *m)
{
	/* the gated-attention hybrid: metadata says recurrent layers with
	 * ssm.* keys and a full-attention interval */
	return m->n_kind[LAYER_RECURRENT] > 0 && m->ssm_d_state && m->ssm_dt_rank;
}

enum graph_kind { G_TARGET, G_DRAFT };

static void build_graph(struct ga_graph *g, const struct model *m, const struct dims *d, enum graph_kind kind)
{
	struct inputs in;
	memset(&in, -1, sizeof(in));
	if (kind == G_DRAFT)
		graph_qwen35_mtp(g, d, &in);
	else if (is_qwen35_family(m))
		graph_qwen35(g, m, d, &in);
	else
		graph_llama(g, m, d, &in);
}

/* With a memo, a graph's buffer is read from an affine piece over the
 * cells the masks span (n_kv, and n_kv_swa when the window layers span as
 * many): one replay, of two builds 256 cells apart, prices every window
 * over which galloc decides the same (gaparam.c). */
static uint64_t run_graph_memo(struct memo *mm, const struct model *m, const struct dims *d, enum graph_kind kind)
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
	int tied = d->n_kv_swa == d->n_kv;
	key.d.n_kv = 0;
	key.d.n_kv_swa = tied ? -1 : d->n_kv_swa;
	uint64_t n = (uint64_t)d->n_kv, bytes;
	if (memo_piece_find(mm, &key, sizeof(key), n, &bytes))
		return bytes;
	struct dims d1 = *d;
	d1.n_kv += 256;
	if (tied)
		d1.n_kv_swa += 256;
	struct ga_graph g0, g1;
	ga_init(&g0);
	ga_init(&g1);
	build_graph(&g0, m, d, kind);
	build_graph(&g1, m, &d1, kind);
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

static uint64_t run_graph(const struct model *m, const struct dims *d, enum graph_kind kind, struct memo *mm)
{
	if (mm)
		return run_graph_memo(mm, m, d, kind);
	struct ga_graph g;
	ga_init(&g);
	build_graph(&g, m, d, kind);
	uint64_t bytes = ga_run(&g, CPU_ALIGN);
	ga_release(&g);
	return bytes;
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

static void set_dims(struct dims *d, const struct model *m, const struct plan *p, const struct plan_shape *s, int64_t T,
		     int64_t n_out, const struct ggml_type_info *tk, const struct ggml_type_info *tv)
{
	memset(d, 0, sizeof(*d));
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
}

static uint64_t reserve(const struct model *m, const struct plan *p, const struct plan_shape *s, enum graph_kind kind,
			uint64_t n_outputs_max, struct memo *mm)
{
	/* sched_reserve: prefill at T = min(n_ctx, n_ubatch), decode at one
	 * token per sequence; the buffer keeps the larger. */
	int64_t T = s->n_ubatch < p->n_ctx ? s->n_ubatch : p->n_ctx;
	/* graph_reserve rounds the batch up to a whole number per sequence */
	if (T % p->n_seq)
		T = (T + p->n_seq - 1) / p->n_seq * p->n_seq;
	int64_t n_out = (int64_t)n_outputs_max < T ? (int64_t)n_outputs_max : T;
	struct dims d;
	const struct ggml_type_info *tk = kind == G_DRAFT ? s->draft_k : s->type_k;
	const struct ggml_type_info *tv = kind == G_DRAFT ? s->draft_v : s->type_v;
	set_dims(&d, m, p, s, T, n_out, tk, tv);
	uint64_t pp = run_graph(m, &d, kind, mm);
	set_dims(&d, m, p, s, p->n_seq, p->n_seq, tk, tv);
	uint64_t tg = run_graph(m, &d, kind, mm);
	return pp > tg ? pp : tg;
}

static void put(struct plan_buf *b, unsigned *n, const char *buft, uint64_t bytes, int on_device)
{
	struct plan_buf *x = &b[(*n)++];
	memset(x, 0, sizeof(*x));
	snprintf(x->buft, sizeof(x->buft), "%s", buft);
	x->bytes = bytes;
	x->on_device = on_device;
}

void compute_model(const struct compute_input *in, struct plan *p)
{
	const struct model *m = in->m;
	const struct plan_shape *s = in->s;
	int cuda = in->dev->backend == DEVICE_CUDA;
	p->n_compute = p->n_draft_compute = 0;
	/* server_output_limits: n_parallel * (1 + draft depth), within n_batch */
	uint64_t per_seq = 1 + (s->spec_mtp ? s->spec_n_max : 0);
	uint64_t n_outputs_max = (uint64_t)p->n_seq * per_seq;
	if (n_outputs_max > s->n_batch)
		n_outputs_max = s->n_batch;
	p->n_outputs_max = (uint32_t)n_outputs_max;
	/* a trace (ZEALOT_GA_TRACE) is of the plain replay */
	struct memo *mm = getenv("ZEALOT_GA_TRACE") ? NULL : in->memo;
	uint64_t target = reserve(m, p, s, G_TARGET, n_outputs_max, mm);
	put(p->compute, &p->n_compute, cuda ? "CUDA0" : "CPU", target, 1);
	if (p->has_draft) {
		/* the draft context outputs one token per slot */
		uint64_t draft = reserve(m, p, s, G_DRAFT, p->n_seq, mm);
		put(p->draft_compute, &p->n_draft_compute, cuda ? "CUDA0" : "CPU", draft, 1);
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
