/* compute: the compute buffers, by replaying the engine's graph allocator
 * (galloc.c) over the worst-case graph the engine reserves
 * (llama_context::sched_reserve): a prefill batch of T = min(n_ctx,
 * n_ubatch) tokens with min(T, n_outputs_max) outputs, and a decode batch
 * of one token per slot; the buffer is the larger of the two.
 *
 * The graphs are the engine's own, rebuilt node for node by the
 * builders of graph.h, one per mirrored family (graph.c's table). An
 * architecture without one is priced with the closest builder and the
 * plan notes it as not mirrored (plan_note_unmirrored): an estimate,
 * never a confident figure.
 *
 * Every weight and cache in the graph carries the backend whose buffer
 * holds it (place.h), and the graph goes through a replay of the engine's
 * scheduler (sched.c: backend assignment, splits, the copies of inputs
 * across backends) before one allocator per backend sizes each compute
 * buffer, as ggml_backend_sched_reserve does. With no device there is one
 * backend, the CPU, and the replay is the plain allocator's.
 */
#include "compute.h"

#include "../../base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../memo.h"
#include "../plan_base.h"
#include "../vulkan.h"
#include "galloc.h"
#include "gaparam.h"
#include "graph.h"
#include "sched.h"

/* ggml's CPU buffers align tensors to 32 bytes (TENSOR_ALIGNMENT); a CUDA
 * buffer to 128. */
#define CPU_ALIGN  32
#define CUDA_ALIGN 128

enum graph_kind { G_TARGET, G_DRAFT };

/* The backends the engine's scheduler gets: one per device, then the CPU;
 * a CUDA device with its build's rules (cuda.h), a Vulkan device with its
 * limits (vulkan.h). The CPU's buffer is the first card's pinned host
 * buffer: Vulkan_Host aligns to device 0's minMemoryMapAlignment. */
static void backends(const struct placement *pl, const struct cuda_build *cb, struct cuda_rules *cr,
		     struct vulkan_rules *vr, struct ga_sched *sc)
{
	memset(sc, 0, sizeof(*sc));
	memset(cr, 0, sizeof(*cr));
	memset(vr, 0, sizeof(*vr));
	cr->build = cb;
	sc->n_backends = (int)pl->n_dev + 1;
	int any = 0, any_vk = 0;
	sc->align[pl->n_dev] = CPU_ALIGN;
	for (unsigned i = 0; i < pl->n_dev; i++) {
		int cuda = pl->dev[i].profile->backend == DEVICE_CUDA;
		const struct vulkan_limits *vl =
		    pl->dev[i].profile->backend == DEVICE_VULKAN ? vulkan_limits_of(pl->dev[i].profile->name) : NULL;
		sc->align[i] = cuda ? CUDA_ALIGN : vl ? vl->ssbo_align : CPU_ALIGN;
		sc->offload[i] = (uint8_t)(cuda || vl);
		if (cuda && i < ARRAY_SIZE(cr->cc)) {
			int cc = cuda_cc(pl->dev[i].profile->name);
			cr->cc[i] = cc ? cc : 86;
			any = 1;
		}
		if (vl && i < ARRAY_SIZE(vr->lim)) {
			if (!any_vk && i == 0)
				sc->align[pl->n_dev] = vl->map_align;
			vr->lim[i] = vl;
			any_vk = 1;
		}
	}
	sc->n_copies = pl->pipeline ? 4 : 1;
	if (any_vk && !any) {
		sc->supports_op = vulkan_supports_op;
		/* ggml-vulkan reorders each split unless the engine's
		 * environment says GGML_VK_DISABLE_GRAPH_OPTIMIZE (read here as
		 * the engine reads it: set at all) */
		vr->reorder = !getenv("GGML_VK_DISABLE_GRAPH_OPTIMIZE");
		sc->optimize = vulkan_graph_optimize;
		sc->ctx = vr;
		return;
	}
	/* ZEALOT_NO_CUDA_RULES=1: the CPU's rules on the card too, to show
	 * what the CUDA rules move (tests/cli/cuda-seeds.sh) */
	if (any && !getenv("ZEALOT_NO_CUDA_RULES")) {
		/* ggml-cuda fuses a MoE weighted sum unless GGML_CUDA_DISABLE_FUSION */
		const char *nf = getenv("GGML_CUDA_DISABLE_FUSION");
		for (unsigned i = 0; i < pl->n_dev && i < GA_MAX_BACKENDS; i++)
			sc->fuse_moe[i] = (uint8_t)(cr->cc[i] && !(nf && strtol(nf, NULL, 10)));
		sc->supports_op = cuda_supports_op;
		sc->alloc_size = cuda_alloc_size;
		sc->fa_interval = cuda_fa_interval;
		sc->ctx = cr;
	}
}

/* The builder of an architecture: its own when mirrored, else the
 * fallback compute_model has noted on the plan. */
static const struct graph_family *family(const struct model *m)
{
	const struct graph_family *f = gr_family(m->arch);
	return f ? f : gr_fallback(m);
}

/* The build of one graph, within the engine's node budget: -1 when it
 * went past it (the engine aborts there), -2 when a tensor's size left 64
 * bits (ga_bytes); either way nothing of g may be replayed. */
static int build_graph(struct ga_graph *g, const struct model *m, const struct dims *d, enum graph_kind kind,
		       int draft_il)
{
	struct inputs in;
	memset(&in, -1, sizeof(in));
	const struct graph_family *f = family(m);
	g->max_nodes = d->w ? d->w->max_nodes : 0;
	g->over = g->wrapped = 0;
	if (kind == G_DRAFT)
		(f->draft ? f->draft : gr_qwen35_mtp)(g, m, d, &in, draft_il);
	else
		f->build(g, m, d, &in);
	return g->wrapped ? -2 : ga_over(g) ? -1 : 0;
}

/* llama_context::graph_max_nodes (src/llama-context.cpp), at sched_reserve's
 * n_tokens = min(n_ctx, n_ubatch): the nodes every graph of the context
 * may hold, in the engine's 32-bit arithmetic. A LoRA's nodes and the
 * backend samplers' add to it and to the graph alike: neither is counted. */
static const char *const budget_x32[] = {"qwen3next", "kimi-linear", "bailingmoe3", "qwen35",	  "qwen35moe",
					 "qwen4exp",  "deepseek4",   "nanbeige",    "minimax-01", "minimax-m3"};

static uint32_t graph_max_nodes(const struct model *m, const struct gguf *gg, uint32_t n_tokens, const char **rule,
				uint64_t *tensors)
{
	uint64_t nt = gg->n_tensors, hc = 0, sel = 0, all = 0;
	/* a first shard read alone: split.tensors.count counts every shard's */
	if (gguf_kv_u64(gguf_find(gg, "split.tensors.count"), &all) == 0 && all > nt)
		nt = all;
	*tensors = nt;
	int dflash = strcmp(m->arch, "dflash") == 0;
	if (dflash) {
		gguf_kv_u64(gguf_findf(gg, "%s.hyper_connection.count", m->arch), &hc);
		gguf_kv_u64(gguf_findf(gg, "%s.selector_rank", m->arch), &sel);
	}
	int x32 = dflash && hc;
	for (size_t i = 0; i < ARRAY_SIZE(budget_x32); i++)
		x32 |= strcmp(m->arch, budget_x32[i]) == 0;
	uint32_t a, b;
	*rule = "max(1024, 8 x tensors)";
	a = 1024u, b = (uint32_t)(8u * nt);
	if (strcmp(m->arch, "kimi-k3") == 0) {
		*rule = "max(160 x tokens, 64 x tensors)";
		a = n_tokens * 160u, b = (uint32_t)(64u * nt);
	} else if (x32) {
		*rule = "max(40 x tokens, 32 x tensors)";
		a = n_tokens * 40u, b = (uint32_t)(32u * nt);
	} else if (dflash && sel) {
		*rule = "max(1024, 12 x tensors)";
		b = (uint32_t)(12u * nt);
	}
	return a > b ? a : b;
}

/* A memo key's dimensions: d's but where things live and the cells the
 * masks span (the window layers' too when they span as many: tied, the
 * return). */
static int key_dims(struct dims *kd, const struct dims *d)
{
	memcpy(kd, d, sizeof(*d));
	kd->w = NULL;
	int tied = d->n_kv_swa == d->n_kv;
	kd->n_kv = 0;
	kd->kv_size = 0;
	kd->n_kv_swa = tied ? -1 : d->n_kv_swa;
	kd->kv_size_swa = tied ? -1 : d->kv_size_swa;
	return tied;
}

/* The two builds of a memo's replay: at d's cells and 256 more (the
 * window layers' too when tied); build_graph's -1 or -2 when one fails. */
static int two_builds(struct ga_graph *g0, struct ga_graph *g1, const struct model *m, const struct dims *d, int tied,
		      enum graph_kind kind, int draft_il)
{
	struct dims d1 = *d;
	d1.n_kv += 256;
	d1.kv_size += 256;
	if (tied) {
		d1.n_kv_swa += 256;
		d1.kv_size_swa += 256;
	}
	ga_init(g0);
	ga_init(g1);
	int rc = build_graph(g0, m, d, kind, draft_il);
	return rc ? rc : build_graph(g1, m, &d1, kind, draft_il);
}

/* With a memo, a graph's buffer is read from an affine piece over the
 * cells the masks span (n_kv, and n_kv_swa when the window layers span as
 * many): one replay, of two builds 256 cells apart, prices every window
 * over which galloc decides the same (gaparam.c). One backend (no
 * device); with devices, run_graph_memo_n. -1: past the node budget. */
static int run_graph_memo(struct memo *mm, const struct model *m, const struct dims *d, enum graph_kind kind,
			  int draft_il, uint64_t *out)
{
	struct {
		const struct model *m;
		int kind;
		struct dims d;
	} key;
	memset(&key, 0, sizeof(key));
	key.m = m;
	key.kind = kind;
	int tied = key_dims(&key.d, d); /* where things live is moot on one backend */
	uint64_t n = (uint64_t)d->n_kv;
	if (memo_piece_find(mm, &key, sizeof(key), n, out))
		return 0;
	struct ga_graph g0, g1;
	int rc = two_builds(&g0, &g1, m, d, tied, kind, draft_il);
	if (rc) {
		ga_release(&g0);
		ga_release(&g1);
		return rc;
	}
	struct ga_piece pc;
	if (ga_affine(&g0, &g1, n, 256, CPU_ALIGN, &pc) == 0) {
		memo_count_replay(mm, 1);
	} else {
		pc.lo = pc.hi = n;
		pc.a = (int64_t)ga_run(&g0, CPU_ALIGN);
		pc.b = 0;
		memo_count_replay(mm, 0);
	}
	*out = (uint64_t)(pc.a + pc.b * (int64_t)n);
	memo_piece_add(mm, &key, sizeof(key), &pc);
	ga_release(&g0);
	ga_release(&g1);
	return 0;
}

/* With a memo and devices: the scheduler's replay of two builds 256 cells
 * apart, each backend's buffer an affine piece over the cells (gaparam.c's
 * ga_affine_n), for every window over which the scheduler and the
 * allocators decide the same (ga_sched_interval, then the replay). The key
 * is what the graph and its placement are made of: the model, the graph's
 * dimensions but the cells, where things live (the placement comes from
 * the shape's placement keys, the device and the model: place_make; its
 * strings by their text) and the CUDA build's facts (the backends' rules).
 * Nothing else of the shape reaches the graph but through the dimensions.
 * 0, or -1 when it cannot price this graph (the caller replays it). */
static int run_graph_memo_n(const struct compute_input *ci, const struct dims *d, enum graph_kind kind, int draft_il,
			    uint64_t *sizes)
{
	struct memo *mm = ci->memo;
	const struct placement *pl = d->w->pl;
	struct fixed {
		const struct model *m;
		const struct device *dev;
		const struct gguf *gg;
		int kind, draft_il, backend;
		struct dims d;
		struct where w;
		struct place_request place; /* but its strings */
		uint32_t ngl;
		struct cuda_build cuda;
	} * k;
	const struct place_request *rq = &ci->s->place;
	const char *strs[] = {rq->override_tensor, rq->tensor_split, rq->split_mode, rq->rpc, rq->devices};
	size_t len = sizeof(*k);
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++)
		len += (strs[i] ? strlen(strs[i]) : 0) + 2;
	char *key = xcalloc(1, len);
	k = (struct fixed *)(void *)key;
	k->m = ci->m;
	k->dev = ci->dev;
	k->gg = ci->gg;
	k->kind = kind;
	k->draft_il = draft_il;
	int tied = key_dims(&k->d, d);
	memcpy(&k->w, d->w, sizeof(*d->w));
	k->w.pl = NULL;
	k->place.ngl = rq->ngl;
	k->place.n_cpu_moe = rq->n_cpu_moe;
	k->place.kv_offload = rq->kv_offload;
	k->ngl = ci->s->ngl;
	memcpy(&k->cuda, &ci->s->cuda, sizeof(k->cuda));
	char *p = key + sizeof(*k);
	for (size_t i = 0; i < ARRAY_SIZE(strs); i++) {
		*p++ = strs[i] ? 1 : 0; /* NULL apart from "" */
		size_t n = strs[i] ? strlen(strs[i]) : 0;
		memcpy(p, strs[i] ? strs[i] : "", n);
		p += n + 1;
	}
	int nb = (int)pl->n_dev + 1, found = 1;
	uint64_t n = (uint64_t)d->n_kv;
	for (int b = 0; b < nb && found; b++) {
		k->backend = b;
		found = memo_piece_find(mm, key, len, n, &sizes[b]);
	}
	if (found) {
		free(key);
		return 0;
	}
	struct ga_graph g0, g1;
	if (two_builds(&g0, &g1, ci->m, d, tied, kind, draft_il)) { /* run_graph's replay says so */
		ga_release(&g0);
		ga_release(&g1);
		free(key);
		return -1;
	}
	struct ga_sched sc;
	struct cuda_rules cr;
	struct vulkan_rules vr;
	backends(pl, &ci->s->cuda, &cr, &vr, &sc);
	int64_t lo = 256, hi = INT64_MAX;
	struct ga_piece pc[PLACE_MAX_DEV + 1];
	int rc = -1;
	/* a Vulkan device's storage limit reads every size: replayed plainly */
	if (sc.supports_op != vulkan_supports_op && ga_sched_interval(&g0, &g1, &sc, (int64_t)n, 256, &lo, &hi) == 0 &&
	    lo <= (int64_t)n && hi >= (int64_t)n) {
		ga_schedule_graph(&g0, &sc);
		ga_schedule_graph(&g1, &sc);
		rc = ga_affine_n(&g0, &g1, nb, sc.align, sc.alloc_size, sc.ctx, n, 256, (uint64_t)lo, (uint64_t)hi, pc);
	}
	ga_release(&g0);
	ga_release(&g1);
	if (rc == 0) {
		memo_count_replay(mm, 1);
		for (int b = 0; b < nb; b++) {
			k->backend = b;
			memo_piece_add(mm, key, len, &pc[b]);
			sizes[b] = (uint64_t)(pc[b].a + pc[b].b * (int64_t)n);
		}
	}
	free(key);
	return rc;
}

/* Whether the scheduler's replay of g is the plain allocator's: no device
 * (the CPU is the one backend), no pipeline copies, and every weight,
 * cache and assignment on that backend. The scheduler then makes one
 * split, copies nothing and allocates every tensor in the CPU's buffer in
 * the graph's own order, as ga_run does, without its passes (a fifth of a
 * CPU plan). ZEALOT_FULL_REPLAY=1 takes the scheduler anyway (the tests
 * hold the two equal). */
static int one_backend(const struct ga_graph *g, const struct placement *pl)
{
	if (pl->n_dev || pl->pipeline || getenv("ZEALOT_FULL_REPLAY"))
		return 0;
	for (int i = 0; i < g->n; i++)
		if ((g->t[i].external && g->t[i].home != 0) || g->t[i].force > 0)
			return 0;
	return 1;
}

/* One graph through the scheduler and the allocators: each backend's
 * buffer into sizes[]; -1 when its build went past the node budget. */
static int run_graph(const struct compute_input *ci, const struct dims *d, enum graph_kind kind, int draft_il,
		     struct memo *mm, struct ga_graph *scratch, uint64_t *sizes)
{
	const struct model *m = ci->m;
	const struct cuda_build *cb = &ci->s->cuda;
	const struct graph_family *f = family(m);
	if (f->affine_from && (uint64_t)d->n_kv < f->affine_from(m))
		mm = NULL;
	if (mm && d->w->pl->n_dev == 0)
		return run_graph_memo(mm, m, d, kind, draft_il, &sizes[0]);
	if (mm && run_graph_memo_n(ci, d, kind, draft_il, sizes) == 0)
		return 0;
	struct ga_graph *g = scratch;
	ga_clear(g);
	int rc = build_graph(g, m, d, kind, draft_il);
	if (rc)
		return rc;
	if (one_backend(g, d->w->pl)) {
		sizes[0] = ga_run(g, CPU_ALIGN);
	} else {
		struct ga_sched sc;
		struct cuda_rules cr;
		struct vulkan_rules vr;
		backends(d->w->pl, cb, &cr, &vr, &sc);
		ga_schedule(g, &sc, sizes);
	}
	return 0;
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
	d->k_type = tk ? tk->id : 1;
	d->v_type = tv ? tv->id : 1;
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
	d->pool = -1;
	if (s->embeddings) { /* POOLING, else the payload's pooling_type (unset: none) */
		uint64_t pt = 0;
		if (s->pooling)
			pt = (uint64_t)s->pooling - 1;
		else if (w->gg)
			gguf_kv_u64(gguf_findf(w->gg, "%s.pooling_type", m->arch), &pt);
		d->pool = pt <= 4 ? (int)pt : 0;
	}
}

/* The third reserve gr_one_seq_prefill names: the prefill's T tokens as
 * one sequence (not rounded), over every recurrent cell; each backend's
 * buffer in sizes keeps the larger. */
static int reserve_one_seq(const struct compute_input *ci, struct where *w, int64_t T, uint64_t n_outputs_max,
			   struct memo *mm, struct ga_graph *scratch, uint64_t *sizes)
{
	const struct plan *p = ci->p;
	const struct placement *pl = ci->pl;
	uint64_t one[PLACE_MAX_DEV + 1] = {0};
	struct dims d;
	w->force_norm = T < 32 || pl->ngl > ci->m->n_layer_all;
	set_dims(&d, w, ci->m, p, ci->s, T, (int64_t)n_outputs_max < T ? (int64_t)n_outputs_max : T, ci->s->type_k,
		 ci->s->type_v);
	memcpy(d.layer_out, ci->layer_out, sizeof(d.layer_out));
	d.n_seq = 1;
	d.n_rs = p->n_seq;
	int rc = run_graph(ci, &d, G_TARGET, (int)(ci->m->n_layer_all - ci->m->n_nextn), mm, scratch, one);
	if (rc)
		return rc;
	for (unsigned b = 0; b <= pl->n_dev; b++)
		if (one[b] > sizes[b])
			sizes[b] = one[b];
	return 0;
}

/* sched_reserve: prefill at T = min(n_ctx, n_ubatch), decode at one token
 * per sequence; each backend's buffer keeps the larger. */
static int reserve(const struct compute_input *ci, enum graph_kind kind, uint64_t n_outputs_max, struct memo *mm,
		   struct ga_graph *scratch, uint64_t *sizes, char **err)
{
	const struct model *m = ci->m;
	const struct plan *p = ci->p;
	const struct plan_shape *s = ci->s;
	const struct placement *pl = ci->pl;
	int64_t T0 = s->n_ubatch < p->n_ctx ? s->n_ubatch : p->n_ctx, T = T0;
	/* graph_reserve rounds the batch up to a whole number per sequence */
	if (T % p->n_seq)
		T = (T + p->n_seq - 1) / p->n_seq * p->n_seq;
	int64_t n_out = (int64_t)n_outputs_max < T ? (int64_t)n_outputs_max : T;
	struct where w = {pl, ci->gg, m->n_layer_all, (int)pl->n_dev, 0, 0, 0};
	w.has_output = !ci->gg || gguf_tensor_find(ci->gg, "output.weight") != NULL;
	const char *rule = NULL;
	uint64_t tensors = 0;
	if (ci->gg)
		w.max_nodes = graph_max_nodes(m, ci->gg, (uint32_t)T0, &rule, &tensors);
	int full = pl->ngl > m->n_layer_all; /* n_gpu_layers() > n_layer_all */
	const struct ggml_type_info *tk = kind == G_DRAFT ? s->draft_k : s->type_k;
	const struct ggml_type_info *tv = kind == G_DRAFT ? s->draft_v : s->type_v;
	int draft_il = (int)(m->n_layer_all - m->n_nextn);
	struct dims d;
	uint64_t pp[PLACE_MAX_DEV + 1] = {0}, tg[PLACE_MAX_DEV + 1] = {0};
	w.force_norm = T < 32 || full;
	set_dims(&d, &w, m, p, s, T, n_out, tk, tv);
	if (kind == G_TARGET)
		memcpy(d.layer_out, ci->layer_out, sizeof(d.layer_out));
	int rc = run_graph(ci, &d, kind, draft_il, mm, scratch, pp);
	w.force_norm = p->n_seq < 32 || full;
	set_dims(&d, &w, m, p, s, p->n_seq, p->n_seq, tk, tv);
	if (kind == G_TARGET)
		memcpy(d.layer_out, ci->layer_out, sizeof(d.layer_out));
	if (!rc)
		rc = run_graph(ci, &d, kind, draft_il, mm, scratch, tg);
	for (unsigned b = 0; b <= pl->n_dev; b++)
		sizes[b] = pp[b] > tg[b] ? pp[b] : tg[b];
	if (!rc && kind == G_TARGET && p->n_seq > 1 && gr_one_seq_prefill(m->arch))
		rc = reserve_one_seq(ci, &w, T0, n_outputs_max, mm, scratch, sizes);
	if (rc == -2)
		return errorf(err,
			      "the %s compute graph of '%s' holds a tensor past 2^64 bytes (a size of the header "
			      "multiplied out): no machine holds it",
			      kind == G_DRAFT ? "draft" : "target", m->arch);
	if (rc)
		return errorf(err,
			      "the %s compute graph of '%s' holds more than %lld nodes, the engine's graph budget "
			      "(llama_context::graph_max_nodes: %s, at %lld tokens and %llu tensors): the engine "
			      "aborts building it too (ggml_visit_parents asserts)",
			      kind == G_DRAFT ? "draft" : "target", m->arch, (long long)w.max_nodes, rule,
			      (long long)T0, (unsigned long long)tensors);
	return 0;
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

/* The engine compute.c mirrors, for the plan's CUDA note. */
#define ENGINE_PINNED "llama.cpp of 2026-09-12 (node-llama-cpp 3.21.1)"

/* With a Vulkan device: where the target's attention runs and the device
 * limits' source. */
static void vulkan_note(const struct compute_input *in, struct plan *p)
{
	const struct plan_shape *s = in->s;
	const struct placement *pl = in->pl;
	const struct vulkan_limits *l = NULL;
	for (unsigned i = 0; i < pl->n_dev && !l; i++)
		if (pl->dev[i].profile->backend == DEVICE_VULKAN)
			l = vulkan_limits_of(pl->dev[i].profile->name);
	if (!l)
		return;
	int fa_ok = vulkan_fa_ok(l, s->type_k->id, s->type_v->id, in->m->head_k, in->m->head_v);
	const struct ggml_type_info *kt = s->type_k;
	char where[200];
	if (s->flash_attn)
		snprintf(where, sizeof(where), "flash attention %s K + %s V %s", s->type_k->name, s->type_v->name,
			 fa_ok ? "on the device"
			       : "has no Vulkan path: it runs on the CPU, its K/V copied into Vulkan_Host");
	else if (kt->blck > 1)
		snprintf(where, sizeof(where),
			 "flash attention off: KQ over a %s K cache (a strided quantized view) runs on the CPU, "
			 "one split per layer",
			 kt->name);
	else
		snprintf(where, sizeof(where), "flash attention off: attention on the device");
	p->cuda_fa_on_card = s->flash_attn && fa_ok;
	snprintf(p->cuda_note, sizeof(p->cuda_note),
		 "Vulkan compute mirrored from ggml-vulkan (%s); device limits of '%s': %s; %s; %s", ENGINE_PINNED,
		 l->profile, l->source, where,
		 getenv("GGML_VK_DISABLE_GRAPH_OPTIMIZE") ? "nodes in graph order (GGML_VK_DISABLE_GRAPH_OPTIMIZE set)"
							  : "nodes reordered as graph_optimize does");
}

/* With a CUDA device: where the target's flash attention runs (the
 * prefill graph's kernel on the first card) and the build's facts. */
static void cuda_note(const struct compute_input *in, struct plan *p)
{
	const struct plan_shape *s = in->s;
	const struct placement *pl = in->pl;
	p->cuda_note[0] = '\0';
	p->cuda_fa_on_card = 0;
	int dev = -1;
	for (unsigned i = 0; i < pl->n_dev && dev < 0; i++)
		if (pl->dev[i].profile->backend == DEVICE_CUDA)
			dev = (int)i;
	if (dev < 0) {
		vulkan_note(in, p);
		return;
	}
	const struct cuda_build *b = &s->cuda;
	int cc = cuda_cc(pl->dev[dev].profile->name);
	struct ga_fa fa = {s->type_k->id,
			   s->type_v->id,
			   in->m->head_k,
			   in->m->head_v,
			   p->kv.present ? p->kv.cells : p->n_ctx_seq,
			   1,
			   1,
			   s->n_ubatch,
			   1,
			   1,
			   0};
	for (uint32_t il = 0; il < in->m->n_layer_all; il++)
		if (in->m->kind[il] != LAYER_RECURRENT && in->m->n_head_kv[il]) {
			fa.hkv = in->m->n_head_kv[il];
			fa.h = in->m->n_head[il];
			break;
		}
	enum cuda_fa_kernel k = s->flash_attn ? cuda_fa_kernel(b, cc, &fa) : CUDA_FA_NONE;
	static const char *const kname[] = {"none", "vector", "tile", "MMA"};
	p->cuda_fa_on_card = k != CUDA_FA_NONE;
	char where[200];
	if (!s->flash_attn)
		snprintf(where, sizeof(where), "flash attention off");
	else if (k == CUDA_FA_NONE)
		snprintf(where, sizeof(where),
			 "no flash-attention kernel for %s K + %s V: it runs on the CPU, its K/V copied into %s",
			 s->type_k->name, s->type_v->name, place_cpu_buft(pl));
	else
		snprintf(where, sizeof(where), "flash attention %s K + %s V on the card (%s kernel at prefill%s)",
			 s->type_k->name, s->type_v->name, kname[k],
			 (k == CUDA_FA_MMA || k == CUDA_FA_TILE) && (fa.k_type != 1 || fa.v_type != 1)
			     ? (b->no_scratch ? ", its f16 copies of the cache outside the buffer"
					      : ", reserving f16 copies of the quantized cache")
			     : "");
	struct sb t = {0};
	sb_addf(&t, "CUDA compute modelled from source, not measured on a GPU here (%s; sm_%d); build: %s%s%s; %s",
		ENGINE_PINNED, cc ? cc : 86, *b->source ? b->source : "the pinned defaults",
		b->fa_all			  ? ", every FA pair"
		: strstr(b->source, "FA_QUANTS=") ? ""
						  : ", FA pairs ",
		b->fa_all || strstr(b->source, "FA_QUANTS=") ? ""
							     : (*b->fa_pairs ? b->fa_pairs : CUDA_FA_DEFAULT_PAIRS),
		where);
	snprintf(p->cuda_note, sizeof(p->cuda_note), "%s", t.s);
	sb_release(&t);
}

/* What an estimated architecture's graph has that its fallback block
 * lacks, and how far the estimate fell short of booted ledgers
 * (docs/planner.md); "" when not measured. */
static const char *estimate_lacks(const char *arch)
{
	(void)arch; /* none measured now: qwen4exp's is mirrored (graph_qwen4.c) */
	return "";
}

int compute_model(const struct compute_input *in, struct plan *p, char **err)
{
	const struct plan_shape *s = in->s;
	p->n_compute = p->n_draft_compute = 0;
	cuda_note(in, p);
	const struct graph_family *f = gr_family(in->m->arch);
	if (!f)
		plan_note_unmirrored(p, "compute graph of '%s' (estimated with the %s block%s)", in->m->arch,
				     gr_fallback(in->m)->arch, estimate_lacks(in->m->arch));
	else if (p->has_draft && !f->draft)
		plan_note_unmirrored(p, "MTP head graph of '%s' (estimated with qwen35's)", in->m->arch);
	if (f && f->build == gr_deepseek4 && gr_deepseek4_unmirrored(in->pl))
		plan_note_unmirrored(p, "%s", gr_deepseek4_unmirrored(in->pl));
	/* ggml-cuda takes TOP_K over at most 1024 cells (without CUB) and the
	 * lightning indexer on its own conditions; the scheduler's fallback
	 * for them is not replayed (cuda.c knows neither op) */
	for (unsigned i = 0; f && in->m->indexer_top_k && i < in->pl->n_dev; i++)
		if (in->pl->dev[i].profile->backend == DEVICE_CUDA) {
			plan_note_unmirrored(p, "top-k and lightning indexer of '%s' on a CUDA device", in->m->arch);
			break;
		}
	if (f && f->build != gr_gemma4 && f->build != gr_gemma3n && f->build != gr_qwen4exp && in->gg &&
	    gguf_tensor_find(in->gg, "per_layer_token_embd.weight"))
		plan_note_unmirrored(p, "per-layer token embeddings of '%s' in the compute graph", in->m->arch);
	const char *k3 = f && f->build == gr_kimi_k3 ? gr_kimi_k3_unmirrored(in->gg, in->m) : NULL;
	if (k3)
		plan_note_unmirrored(p, "compute graph of '%s' with %s", in->m->arch, k3);
	const char *wt = f && f->build == gr_wavtok ? gr_wavtok_unmirrored(in->pl) : NULL;
	if (wt)
		plan_note_unmirrored(p, "compute graph of '%s' %s", in->m->arch, wt);
	/* a scan a Vulkan device refuses runs on the CPU (place_refusals):
	 * the exact terms hold, but the compute of such a split graph was
	 * measured off by up to 3.75 % on lavapipe (docs/planner.md) */
	for (unsigned i = 0; in->pl->n_refused && i < in->pl->n_dev; i++)
		if (in->pl->dev[i].profile->backend == DEVICE_VULKAN) {
			plan_note_unmirrored(p,
					     "compute of '%s' with its SSM scans on the CPU beside a Vulkan device "
					     "(measured 0-3.75 %% off on lavapipe, graph_optimize's order around them "
					     "not mirrored)",
					     in->m->arch);
			break;
		}
	/* server_output_limits: n_parallel * (1 + draft depth), within n_batch */
	uint64_t per_seq = 1 + (s->spec_mtp || s->spec_model || s->spec_hidden ? s->spec_n_max : 0);
	uint64_t n_outputs_max = (uint64_t)p->n_seq * per_seq;
	if (s->embeddings || s->pooling > 1) /* an embedding server outputs the whole batch */
		n_outputs_max = s->n_batch;
	if (n_outputs_max > s->n_batch)
		n_outputs_max = s->n_batch;
	p->n_outputs_max = (uint32_t)n_outputs_max;
	/* a trace (ZEALOT_GA_TRACE) is of the plain replay; ZEALOT_FULL_REPLAY=1
	 * prices every graph by the scheduler's full replay, the memo unread
	 * (the tests hold the two equal) */
	struct memo *mm = getenv("ZEALOT_GA_TRACE") || getenv("ZEALOT_FULL_REPLAY") ? NULL : in->memo;
	uint64_t sizes[PLACE_MAX_DEV + 1];
	struct ga_graph scratch; /* one graph's arrays for every plain replay */
	ga_init(&scratch);
	int rc = reserve(in, G_TARGET, n_outputs_max, mm, &scratch, sizes, err);
	put_all(p->compute, &p->n_compute, in->pl, sizes);
	if (!rc && p->has_draft) {
		/* the draft context outputs one token per slot */
		rc = reserve(in, G_DRAFT, p->n_seq, mm, &scratch, sizes, err);
		put_all(p->draft_compute, &p->n_draft_compute, in->pl, sizes);
	}
	ga_release(&scratch);
	return rc;
}
