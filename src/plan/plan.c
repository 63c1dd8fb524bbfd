#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "compute.h"

#define MIB	  (1024.0 * 1024.0)
#define PAD(x, n) (((x) + (n)-1) / (n) * (n))

double plan_mib(uint64_t bytes)
{
	return (double)bytes / MIB;
}

/* Engine facts that no metadata carries, each with its source:
 * - archs whose recurrent state supports partial rollback, so an armed
 *   drafter adds n_rs_seq planes (src/llama-arch.cpp
 *   llm_arch_supports_rs_rollback);
 * - dense archs whose main context filters the nextn layers out of its KV
 *   cache (src/llama-model.cpp create_memory: step35, hy-v3, glm-dsa,
 *   mimo2, deepseek32). Hybrid (recurrent) models always filter them. */
static const char *const rs_rollback_archs[] = {
    "qwen35", "qwen35moe", "qwen4exp", "deepseek4", "nemotron_h", "nemotron_h_moe", "lfm2", "lfm2moe", "bailingmoe3",
};
static const char *const nextn_filtered_archs[] = {"step35", "hy-v3", "glm-dsa", "mimo2", "deepseek32"};

static int in_list(const char *arch, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(arch, list[i]) == 0)
			return 1;
	return 0;
}

int plan_term_exact(const char *term)
{
	static const char *const exact[] = {"model", "kv", "kv_swa", "recurrent", "draft_kv", "output"};
	for (size_t i = 0; i < ARRAY_SIZE(exact); i++)
		if (strcmp(term, exact[i]) == 0)
			return 1;
	return 0;
}

/* The context the engine derives from --ctx-size and --parallel
 * (llama_context constructor). */
static void derive_context(const struct plan_shape *s, struct plan *p)
{
	p->n_seq = s->parallel ? s->parallel : 1;
	uint64_t n_ctx = PAD(s->ctx_size, 256);
	if (s->kv_unified) {
		p->n_ctx_seq = (uint32_t)n_ctx;
	} else {
		p->n_ctx_seq = (uint32_t)PAD(n_ctx / p->n_seq, 256);
		if (n_ctx != (uint64_t)p->n_ctx_seq * p->n_seq) {
			n_ctx = (uint64_t)p->n_ctx_seq * p->n_seq;
			p->ctx_rounded = 1;
		}
	}
	p->n_ctx = (uint32_t)n_ctx;
}

static void kv_add_layer(struct plan_kv *kv, const struct ggml_type_info *tk, const struct ggml_type_info *tv,
			 uint32_t k_width, uint32_t v_width, int has_v)
{
	kv->layers++;
	kv->k_bytes += ggml_row_bytes(tk, k_width) * (uint64_t)kv->cells * kv->streams;
	if (has_v)
		kv->v_bytes += ggml_row_bytes(tv, v_width) * (uint64_t)kv->cells * kv->streams;
}

static void kv_init(struct plan_kv *kv, uint32_t cells, const struct plan *p, int unified,
		    const struct ggml_type_info *tk, const struct ggml_type_info *tv)
{
	memset(kv, 0, sizeof(*kv));
	kv->cells = cells;
	kv->seqs = p->n_seq;
	kv->streams = unified ? 1 : p->n_seq;
	kv->k_type = tk->name;
	kv->v_type = tv->name;
}

static uint32_t v_width_max(const struct model *m)
{
	uint32_t w = 0;
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		uint32_t v = model_n_embd_v_gqa(m, il);
		if (v > w)
			w = v;
	}
	return w;
}

static void plan_kv_caches(const struct model *m, const struct plan_shape *s, struct plan *p)
{
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int hybrid = m->n_kind[LAYER_RECURRENT] > 0;
	int nextn_in_main = !hybrid && !in_list(m->arch, nextn_filtered_archs, ARRAY_SIZE(nextn_filtered_archs));
	int is_mla = m->head_k_mla && m->head_v_mla;
	uint32_t vmax = v_width_max(m);
	int has_swa = m->n_kind[LAYER_SWA] > 0 && m->n_swa > 0;

	kv_init(&p->kv, p->n_ctx_seq, p, s->kv_unified, s->type_k, s->type_v);
	if (has_swa) {
		uint64_t want = (uint64_t)m->n_swa * (s->kv_unified ? p->n_seq : 1) + s->n_ubatch;
		uint64_t size = want < p->n_ctx_seq ? want : p->n_ctx_seq;
		kv_init(&p->kv_swa, s->swa_full ? p->n_ctx_seq : (uint32_t)PAD(size, 256), p, s->kv_unified, s->type_k,
			s->type_v);
		p->kv_swa.present = 1;
	}
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		enum layer_kind k = m->kind[il];
		if (k == LAYER_RECURRENT)
			continue;
		if (k == LAYER_NEXTN && !nextn_in_main)
			continue;
		if (m->n_head_kv[il] == 0)
			continue;
		uint32_t kw = model_n_embd_k_gqa(m, il);
		uint32_t vw = s->flash_attn ? model_n_embd_v_gqa(m, il) : vmax;
		struct plan_kv *kv = (k == LAYER_SWA && has_swa) ? &p->kv_swa : &p->kv;
		kv_add_layer(kv, s->type_k, s->type_v, kw, vw, !is_mla);
	}
	p->kv.present = p->kv.layers > 0;
	(void)n_layer;

	/* The MTP draft context: the target's pool again, nextn layers only,
	 * at the draft cache types (common_speculative_init_result). */
	if (s->spec_mtp && m->n_nextn && m->mtp_tensors) {
		p->has_draft = 1;
		kv_init(&p->draft_kv, p->n_ctx_seq, p, s->kv_unified, s->draft_k, s->draft_v);
		for (uint32_t il = n_layer; il < m->n_layer_all; il++) {
			uint32_t vw = s->flash_attn ? model_n_embd_v_gqa(m, il) : vmax;
			kv_add_layer(&p->draft_kv, s->draft_k, s->draft_v, model_n_embd_k_gqa(m, il), vw, !is_mla);
		}
		p->draft_kv.present = 1;
	}
}

static void plan_recurrent(const struct model *m, const struct plan_shape *s, struct plan *p)
{
	uint32_t n_recr = m->n_kind[LAYER_RECURRENT];
	if (!n_recr)
		return;
	struct plan_rs *rs = &p->rs;
	rs->present = 1;
	rs->cells = p->n_seq; /* max(1, n_seq_max) */
	rs->seqs = p->n_seq;
	rs->layers = m->n_layer_all - m->n_nextn;
	rs->recurrent_layers = n_recr;
	rs->rs_seq =
	    s->spec_mtp && in_list(m->arch, rs_rollback_archs, ARRAY_SIZE(rs_rollback_archs)) ? s->spec_n_max : 0;
	uint64_t rows = (uint64_t)rs->cells * (1 + rs->rs_seq);
	rs->r_bytes = (uint64_t)n_recr * m->n_embd_r * 4 * rows;
	rs->s_bytes = (uint64_t)n_recr * m->n_embd_s * 4 * rows;
}

/* Which layer a tensor belongs to: 0..n-1 for blk.N, -1 input, n output. */
static int64_t tensor_layer(const char *name, uint32_t n_layer_all)
{
	if (strncmp(name, "blk.", 4) == 0) {
		char *end;
		unsigned long il = strtoul(name + 4, &end, 10);
		if (end != name + 4 && *end == '.' && il < n_layer_all)
			return (int64_t)il;
	}
	if (strncmp(name, "token_embd", 10) == 0)
		return -1;
	return n_layer_all;
}

static struct plan_buf *buf_get(struct plan_buf *bufs, unsigned *n, const char *buft, int on_device)
{
	for (unsigned i = 0; i < *n; i++)
		if (strcmp(bufs[i].buft, buft) == 0)
			return &bufs[i];
	if (*n == PLAN_MAX_BUFS)
		return &bufs[*n - 1];
	struct plan_buf *b = &bufs[(*n)++];
	memset(b, 0, sizeof(*b));
	snprintf(b->buft, sizeof(b->buft), "%s", buft);
	b->on_device = on_device;
	return b;
}

/* Whether the engine feeds a weight to a matrix multiply (the only op the
 * CPU_REPACK buffer type accepts). Mirrors the op column of the engine's
 * tensor table (LLM_TENSOR_INFOS): embeddings are gathered (GET_ROWS),
 * convolutions and the SSM decay go to their own ops, norms and biases are
 * elementwise. Everything else 2-D (or 3-D expert stacks) is a matmul. */
static int weight_is_matmul(const struct gguf_tensor *t)
{
	static const char *const not_matmul[] = {
	    "token_embd.",     "position_embd.", "token_types.",  "per_layer_token_embd.",
	    "embed_tokens.",   "ssm_conv1d.",	 ".ssm_a.",	  "conv1d.",
	    "shortconv.conv.", "rope_freqs.",	 "rope_factors_", "norm.",
	    "rel_b.",	       "_ape.",		 "tid2eid.",	  "d2t.",
	    "exp_probs_b.",    ".bias",		 "_lerp_",	  "time_mix_first.",
	};
	if (t->n_dims < 2 || t->n_dims > 3)
		return 0;
	size_t n = strlen(t->name);
	if (n >= 6 && strcmp(t->name + n - 6, ".ssm_a") == 0) /* the SSM decay, written without .weight */
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(not_matmul); i++)
		if (strstr(t->name, not_matmul[i]))
			return 0;
	return 1;
}

/* The CPU backend repacks a matmul weight whose type has a kernel on this
 * host and whose rows come in whole interleave groups (REPACK=1 only).
 * A CUDA build never does with mmap on: the host buffer the CPU layers
 * would get is swapped for the plain CPU type. */
static int cpu_repacks(const struct gguf_tensor *t, const struct plan_shape *s, const struct device *dev)
{
	if (!s->repack || dev->backend != DEVICE_CPU || !weight_is_matmul(t))
		return 0;
	unsigned rows = device_cpu_repack_rows(t->type);
	if (!rows || t->ne[1] % rows)
		return 0;
	/* A 3-D stack is repacked only as a MUL_MAT_ID expert tensor. */
	return t->n_dims == 2 || strstr(t->name, "_exps.") != NULL;
}

/* CUDA allocation size: quantized rows are padded to 512 elements
 * (MATRIX_ROW_PADDING), then every tensor to the buffer alignment (128). */
static uint64_t cuda_alloc(const struct gguf_tensor *t)
{
	uint64_t bytes = t->bytes;
	const struct ggml_type_info *ti = ggml_type_get(t->type);
	if (ti && ti->blck > 1 && t->ne[0] % 512)
		bytes += ggml_row_bytes(ti, 512 - t->ne[0] % 512);
	return PAD(bytes, 128);
}

static void plan_model(const struct model *m, const struct gguf *g, const struct plan_shape *s,
		       const struct device *dev, struct plan *p)
{
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int64_t n_all = m->n_layer_all;
	int64_t i_gpu_start = dev->backend == DEVICE_CPU ? n_all + 1 : n_all + 1 - (int64_t)s->ngl;
	if (i_gpu_start < 0)
		i_gpu_start = 0;
	uint64_t host_lo = UINT64_MAX, host_hi = 0, gpu = 0, repack = 0;
	int has_output = gguf_tensor_find(g, "output.weight") != NULL;
	const struct gguf_tensor *embd = gguf_tensor_find(g, "token_embd.weight");
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		int64_t il = tensor_layer(t->name, m->n_layer_all);
		/* MTP blocks are skipped unless a drafter loads them. */
		if (il >= (int64_t)n_layer && il < n_all && !s->spec_mtp)
			continue;
		int on_gpu = il >= 0 && il >= i_gpu_start;
		if (on_gpu) {
			gpu += cuda_alloc(t);
		} else if (cpu_repacks(t, s, dev)) {
			repack += PAD(t->bytes, 32); /* allocated, not mapped; TENSOR_ALIGNMENT */
		} else {
			if (t->offset < host_lo)
				host_lo = t->offset;
			if (t->offset + t->bytes > host_hi)
				host_hi = t->offset + t->bytes;
		}
	}
	/* A tied output layer gets its own copy of token_embd: on the card, or
	 * in CPU_REPACK when the matmul copy repacks. */
	if (!has_output && embd && n_all >= i_gpu_start)
		gpu += cuda_alloc(embd);
	if (!has_output && embd && n_all < i_gpu_start) {
		struct gguf_tensor out = *embd;
		out.name = (char *)"output.weight";
		if (cpu_repacks(&out, s, dev))
			repack += PAD(out.bytes, 32);
	}
	if (host_hi > host_lo)
		buf_get(p->model, &p->n_model, "CPU_Mapped", 0)->bytes = host_hi - host_lo;
	if (gpu)
		buf_get(p->model, &p->n_model, "CUDA0", 1)->bytes = gpu;
	if (repack)
		buf_get(p->model, &p->n_model, "CPU_REPACK", 0)->bytes = repack;
}

/* Tensors allocated into a backend buffer, each padded to its alignment. */
static uint64_t sum_tensors(const struct gguf *g, uint64_t align)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < g->n_tensors; i++)
		n += PAD(g->tensors[i].bytes, align);
	return n;
}

void plan_bill(struct plan *p)
{
	/* Bill each term to the device or the host. */
	uint64_t dev_b = 0, host_b = 0;
	int cuda = p->device->backend == DEVICE_CUDA;
#define BILL(bytes, on_dev)                                                                                            \
	do {                                                                                                           \
		if ((on_dev) && cuda)                                                                                  \
			dev_b += (bytes);                                                                              \
		else                                                                                                   \
			host_b += (bytes);                                                                             \
	} while (0)
	for (unsigned i = 0; i < p->n_model; i++)
		BILL(p->model[i].bytes, p->model[i].on_device);
	BILL(p->kv.k_bytes + p->kv.v_bytes, 1);
	BILL(p->kv_swa.k_bytes + p->kv_swa.v_bytes, 1);
	BILL(p->rs.r_bytes + p->rs.s_bytes, 1);
	BILL(p->draft_kv.k_bytes + p->draft_kv.v_bytes, 1);
	BILL(p->output_bytes + p->draft_output_bytes, 0);
	for (unsigned i = 0; i < p->n_compute; i++)
		BILL(p->compute[i].bytes, p->compute[i].on_device);
	for (unsigned i = 0; i < p->n_draft_compute; i++)
		BILL(p->draft_compute[i].bytes, p->draft_compute[i].on_device);
	BILL(p->projector_weights + p->projector_compute, 1);
	BILL(p->lora_bytes, 1);
	BILL(p->overhead_bytes, 1);
#undef BILL
	p->device_total = cuda ? dev_b : host_b;
	p->host_total = cuda ? host_b : 0;
	p->free_bytes = (int64_t)p->addressable - (int64_t)p->device_total;
	p->fits = p->free_bytes >= (int64_t)p->slack;
}

int plan_make(const struct model *m, const struct gguf *g, const struct plan_shape *s, const struct device *dev,
	      const struct plan_extras *x, struct plan *p, char **err)
{
	memset(p, 0, sizeof(*p));
	p->device = dev;
	if (!m->n_layer_all)
		return errorf(err, "the payload has no layers to serve (an adapter or projector?)");
	if (s->ctx_size == 0)
		return errorf(err, "CTX_SIZE is 0");
	if (s->parallel == 0)
		return errorf(err, "PARALLEL is 0");
	if (s->n_ubatch == 0 || s->n_batch == 0)
		return errorf(err, "BATCH_SIZE and UBATCH_SIZE must be positive");
	derive_context(s, p);
	plan_kv_caches(m, s, p);
	plan_recurrent(m, s, p);
	plan_model(m, g, s, dev, p);

	/* Output buffer: logits for n_seq outputs at construction
	 * (output_reserve(n_seq_max)); the draft context likewise. */
	p->output_bytes = m->n_vocab * (uint64_t)p->n_seq * 4;
	if (p->has_draft)
		p->draft_output_bytes = m->n_vocab * (uint64_t)p->n_seq * 4;

	struct compute_input ci = {m, s, p, dev};
	compute_model(&ci, p);

	if (x && x->projector) {
		p->projector_weights = sum_tensors(x->projector, 1);
		p->projector_compute = compute_projector(x->projector);
	}
	if (x && x->lora)
		p->lora_bytes = sum_tensors(x->lora, dev->backend == DEVICE_CUDA ? 128 : 32);
	p->overhead_bytes = dev->overhead_mib << 20;

	uint64_t addr_mib = x && x->addressable_mib ? x->addressable_mib : dev->addressable_mib;
	if (!addr_mib && dev->backend == DEVICE_CPU)
		addr_mib = device_host_available_mib();
	p->addressable = addr_mib << 20;
	p->slack = (x ? x->slack_mib : 1024) << 20;
	plan_bill(p);
	return 0;
}
