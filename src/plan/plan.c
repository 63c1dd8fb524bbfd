#include "plan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "graph/compute.h"
#include "memo.h"
#include "vulkan.h"

#define MIB	  (1024.0 * 1024.0)
#define PAD(x, n) (((x) + (n)-1) / (n) * (n))

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
static const char *const nextn_filtered_archs[] = {"step35", "hy-v3", "glm-dsa", "mimo2", "deepseek32", "dots3note"};
/* - hybrids whose create_memory passes the hybrid memory no filter: its
 *   default keeps every layer that is not recurrent in the attention cache,
 *   the nextn blocks too (src/llama-memory-hybrid.cpp); their MTP draft
 *   context caches the nextn blocks alone, as the filtered hybrids'. */
static const char *const nextn_kept_hybrids[] = {"bailingmoe3"};
/* - archs that load an MTP block's expert selection bias (exp_probs_b)
 *   even without a drafter: their load_arch_tensors creates it with
 *   TENSOR_NOT_REQUIRED alone, not with the block's TENSOR_SKIP
 *   (src/models/deepseek32.cpp, glm-dsa.cpp, step35.cpp, hy-v3.cpp), so
 *   it is mapped and stretches the mapped range over the block. */
static const char *const nextn_probs_b_archs[] = {"deepseek32", "glm-dsa", "step35", "hy-v3"};
/* - archs for which llama_model::create_memory makes no memory at all
 *   (src/llama-model.cpp): the encoders and the diffusion models attend
 *   over the ubatch alone, with no KV cache to allocate. */
static const char *const memoryless_archs[] = {
    "bert",	"jina-bert-v2", "jina-bert-v3",	    "nomic-bert",  "nomic-bert-moe",
    "neo-bert", "eurobert",	"wavtokenizer-dec", "modern-bert", "gemma-embedding",
    "dream",	"llada",	"llada-moe",	    "rnd1"};

static int in_list(const char *arch, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(arch, list[i]) == 0)
			return 1;
	return 0;
}

/* - archs whose load_arch_tensors creates no output layer at all (not
 *   even token_embd's tied copy): bert.cpp's encoders, eurobert and
 *   neo-bert, modern-bert, whose graph ends at the hidden states the pooling reads;
 *   bitnet.cpp, whose logits multiply by tok_embd itself (the input
 *   layer's). */
static const char *const no_output_archs[] = {"bert",	"jina-bert-v2", "jina-bert-v3", "nomic-bert", "nomic-bert-moe",
					      "bitnet", "eurobert",	"neo-bert",	"modern-bert"};
/* - the drafters of a target's hidden states: output.weight when the file
 *   has one (TENSOR_NOT_REQUIRED), else the target's (src/models/eagle3.cpp,
 *   dflash.cpp); never a tied copy */
static const char *const borrowed_output_archs[] = {"eagle3", "dflash"};

int plan_arch_memoryless(const char *arch)
{
	return in_list(arch, memoryless_archs, ARRAY_SIZE(memoryless_archs));
}

int plan_term_exact(const char *term)
{
	static const char *const exact[] = {"model", "kv", "kv_swa", "recurrent", "draft_kv", "output", "draft_model"};
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

/* The plan.devs index a placement device (or the host) bills. */
static int bill_index(const struct plan *p, int d)
{
	return d < 0 ? (int)p->n_cards : d;
}

static struct plan_buf *buf_get(struct plan_buf *bufs, unsigned *n, const char *buft, int dev);

/* One cache tensor (ne0 = width, the rest cells x streams) into the buffer
 * of the device holding layer il: its allocation size on that buffer type
 * (a CUDA buffer pads a quantized row to 512 elements once per tensor,
 * then to 128 bytes; CPU and an rpc-server's CPU backend to 32). */
/* A device buffer type's alignment: CUDA 128, a Vulkan device its
 * minStorageBufferOffsetAlignment (vulkan.h), a CPU backend's 32. */
static uint64_t dev_align(const struct device *d)
{
	if (d->backend == DEVICE_CUDA)
		return 128;
	const struct vulkan_limits *l = d->backend == DEVICE_VULKAN ? vulkan_limits_of(d->name) : NULL;
	return l ? l->ssbo_align : 32;
}

static void cache_tensor(struct plan_buf *bufs, unsigned *n, const struct plan *p, const struct placement *pl, int d,
			 const struct ggml_type_info *t, uint32_t width, uint64_t bytes)
{
	int cuda = d >= 0 && pl->dev[d].profile->backend == DEVICE_CUDA;
	if (cuda && t->blck > 1 && width % 512)
		bytes += ggml_row_bytes(t, 512 - width % 512);
	bytes = PAD(bytes, d >= 0 ? dev_align(pl->dev[d].profile) : 32);
	struct plan_buf *b = buf_get(bufs, n, d < 0 ? "CPU" : pl->dev[d].name, bill_index(p, d));
	b->bytes += bytes;
	b->on_device = d >= 0;
}

static void kv_add_layer(struct plan_kv *kv, const struct plan *p, const struct placement *pl, uint32_t il,
			 const struct ggml_type_info *tk, const struct ggml_type_info *tv, uint32_t k_width,
			 uint32_t v_width, int has_v)
{
	int d = place_cache(pl, il);
	uint64_t kb = ggml_row_bytes(tk, k_width) * (uint64_t)kv->cells * kv->streams;
	kv->layers++;
	kv->k_bytes += kb;
	cache_tensor(kv->bufs, &kv->n_bufs, p, pl, d, tk, k_width, kb);
	if (has_v) {
		uint64_t vb = ggml_row_bytes(tv, v_width) * (uint64_t)kv->cells * kv->streams;
		kv->v_bytes += vb;
		cache_tensor(kv->bufs, &kv->n_bufs, p, pl, d, tv, v_width, vb);
	}
}

/* The engine keeps one context per buffer type in a map ordered by name. */
static void sort_by_name(struct plan_buf *b, unsigned n)
{
	for (unsigned i = 1; i < n; i++)
		for (unsigned j = i; j > 0 && strcmp(b[j].buft, b[j - 1].buft) < 0; j--) {
			struct plan_buf t = b[j];
			b[j] = b[j - 1];
			b[j - 1] = t;
		}
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

/* The second cache of a pool (an indexer's) into kv: its figures summed
 * in (the engine prints them apart: the ledger comparison allows each
 * printed line its rounding). */
static void kv_add_second(struct plan_kv *kv, const struct plan_kv *idx)
{
	kv->layers += idx->layers;
	kv->k_bytes += idx->k_bytes;
	kv->v_bytes += idx->v_bytes;
	for (unsigned i = 0; i < idx->n_bufs; i++) {
		const struct plan_buf *b = &idx->bufs[i];
		struct plan_buf *t = buf_get(kv->bufs, &kv->n_bufs, b->buft, b->dev);
		t->bytes += b->bytes;
		t->on_device = b->on_device;
	}
}

static void plan_kv_caches(const struct model *m, const struct plan_shape *s, const struct placement *pl,
			   struct plan *p)
{
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int hybrid = m->n_kind[LAYER_RECURRENT] > 0;
	int nextn_in_main = !hybrid && !in_list(m->arch, nextn_filtered_archs, ARRAY_SIZE(nextn_filtered_archs));
	int is_mla = m->head_k_mla && m->head_v_mla;
	uint32_t vmax = v_width_max(m);
	int has_swa = m->n_kind[LAYER_SWA] > 0 && m->n_swa > 0 && !plan_arch_memoryless(m->arch);
	if (strcmp(m->arch, "gemma4-assistant") == 0) /* its blocks are nextn; its window cache sized as ever */
		has_swa = m->n_swa > 0;

	kv_init(&p->kv, p->n_ctx_seq, p, s->kv_unified, s->type_k, s->type_v);
	if (has_swa) {
		uint64_t want = (uint64_t)m->n_swa * (s->kv_unified ? p->n_seq : 1) + s->n_ubatch;
		uint64_t size = want < p->n_ctx_seq ? want : p->n_ctx_seq;
		kv_init(&p->kv_swa, s->swa_full ? p->n_ctx_seq : (uint32_t)PAD(size, 256), p, s->kv_unified, s->type_k,
			s->type_v);
		p->kv_swa.present = 1;
	}
	for (uint32_t il = 0; il < m->n_layer_all && !plan_arch_memoryless(m->arch); il++) {
		enum layer_kind k = m->kind[il];
		if (!m->has_kv[il]) /* create_memory's attention filter */
			continue;
		if (k == LAYER_NEXTN && !nextn_in_main &&
		    !in_list(m->arch, nextn_kept_hybrids, ARRAY_SIZE(nextn_kept_hybrids)))
			continue;
		/* deci's plain cache keeps a layer without KV heads too: empty
		 * K rows, V at the widest row when transposed */
		if (m->n_head_kv[il] == 0 && strcmp(m->arch, "deci") != 0)
			continue;
		if (il >= m->n_layer_all - m->n_kv_shared) /* has_kv(il): it reads an earlier layer's cache */
			continue;
		uint32_t kw = model_n_embd_k_gqa(m, il);
		uint32_t vw = s->flash_attn ? model_n_embd_v_gqa(m, il) : vmax;
		struct plan_kv *kv = (k == LAYER_SWA && has_swa) ? &p->kv_swa : &p->kv;
		kv_add_layer(kv, p, pl, il, s->type_k, s->type_v, kw, vw, !is_mla);
	}
	/* deepseek32's DSA cache (src/llama-kv-cache-dsa.cpp): beside the MLA
	 * cache a second llama_kv_cache holds the lightning indexer's keys,
	 * one head of attention.indexer.key_length per trunk layer at the K
	 * type, no V (the hparams it copies are MLA's); glm-dsa's on its full
	 * indexer layers alone (create_memory's filter_lid) */
	int dsa = strcmp(m->arch, "deepseek32") == 0 || strcmp(m->arch, "glm-dsa") == 0 ||
		  strcmp(m->arch, "dots3note") == 0; /* its DSA half, beside the window's cache */
	struct plan_kv idx;
	kv_init(&idx, p->n_ctx_seq, p, s->kv_unified, s->type_k, s->type_v);
	if (dsa && m->indexer_head_size)
		for (uint32_t il = 0; il < n_layer; il++)
			if (!m->indexer_shared || !m->indexer_shared[il])
				kv_add_layer(&idx, p, pl, il, s->type_k, s->type_v, m->indexer_head_size, 0, 0);
	/* qwen4exp's llama_memory_hybrid_idx (src/llama-memory-hybrid-idx.cpp):
	 * beside the attention cache a second llama_kv_cache on the same
	 * layers holds the QSA indexer's raw keys, one head of
	 * attention.indexer.key_length at the K type, and (its hparams are not
	 * MLA's) one head of the value size at the V type */
	if (strcmp(m->arch, "qwen4exp") == 0 && m->indexer_head_size)
		for (uint32_t il = 0; il < n_layer; il++)
			if (m->has_kv[il])
				kv_add_layer(&idx, p, pl, il, s->type_k, s->type_v, m->indexer_head_size, m->head_v, 1);
	/* minimax-m3's MSA cache (src/llama-kv-cache-msa.cpp): the same second
	 * cache on the layers past the dense lead, its hparams the model's with
	 * one KV head, so beside K's indexer head a V row of one value head */
	if (strcmp(m->arch, "minimax-m3") == 0 && m->indexer_head_size)
		for (uint32_t il = m->n_lead_dense; il < n_layer; il++)
			kv_add_layer(&idx, p, pl, il, s->type_k, s->type_v, m->indexer_head_size, m->head_v, 1);
	kv_add_second(&p->kv, &idx);
	p->kv.present = p->kv.layers > 0;
	sort_by_name(p->kv.bufs, p->kv.n_bufs);
	sort_by_name(p->kv_swa.bufs, p->kv_swa.n_bufs);
	(void)n_layer;

	/* The MTP draft context: the target's pool again, at the draft cache
	 * types (common_speculative_init_result); nextn layers only where
	 * create_memory filters them (hybrids, the filtered archs), else every
	 * layer (glm4moe, deepseek2: the plain cache has no filter). */
	if (s->spec_mtp && m->n_nextn && m->mtp_tensors) {
		p->has_draft = 1;
		kv_init(&p->draft_kv, p->n_ctx_seq, p, s->kv_unified, s->draft_k, s->draft_v);
		for (uint32_t il = nextn_in_main ? 0 : n_layer; il < m->n_layer_all; il++) {
			uint32_t vw = s->flash_attn ? model_n_embd_v_gqa(m, il) : vmax;
			kv_add_layer(&p->draft_kv, p, pl, il, s->draft_k, s->draft_v, model_n_embd_k_gqa(m, il), vw,
				     !is_mla);
		}
		p->draft_kv.present = 1;
		sort_by_name(p->draft_kv.bufs, p->draft_kv.n_bufs);
	}
}

static void plan_recurrent(const struct model *m, const struct plan_shape *s, const struct placement *pl,
			   struct plan *p)
{
	uint32_t n_recr = m->n_rs_layers;
	if (m->state_unmirrored)
		plan_note_unmirrored(p, "memory of '%s': %s", m->arch, m->state_unmirrored);
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
	/* per layer, on its layer's device (llama_memory_recurrent) */
	const struct ggml_type_info *f32 = ggml_type_by_name("f32");
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		if (!m->has_rs[il]) /* create_memory's recurrent filter */
			continue;
		int d = place_cache(pl, il);
		cache_tensor(rs->bufs, &rs->n_bufs, p, pl, d, f32, (uint32_t)m->n_embd_r, m->n_embd_r * 4 * rows);
		cache_tensor(rs->bufs, &rs->n_bufs, p, pl, d, f32, (uint32_t)m->n_embd_s, m->n_embd_s * 4 * rows);
		/* qwen4exp's PLE layer: its conv history in a row of its own
		 * (cache_ple_r_l, at R's type), counted with R */
		if ((int64_t)il == m->ple_layer && m->ple_conv_state) {
			rs->p_bytes += m->ple_conv_state * 4 * rows;
			rs->r_bytes += m->ple_conv_state * 4 * rows;
			cache_tensor(rs->bufs, &rs->n_bufs, p, pl, d, f32, (uint32_t)m->ple_conv_state,
				     m->ple_conv_state * 4 * rows);
		}
	}
	sort_by_name(rs->bufs, rs->n_bufs);
}

/* deepseek4's memory (src/llama-kv-cache-dsv4.cpp), its streams per
 * sequence whatever KV_UNIFIED says (unified_raw, unified_compressed):
 * - kv_swa: the raw cache, an iswa pair whose base half holds no layer
 *   (every trunk layer is SWA) and whose window half holds one K-only row
 *   of key_length per layer and cell;
 * - kv: the base half (n_ctx_seq cells, no layer), then three K-only
 *   caches of PAD(max(1, ceil(n_ctx_seq / ratio)), 256) cells each: CSA
 *   (ratio 4) and HCA (128) at key_length on their layers, the lightning
 *   indexer (ratio 4) at its key length on the CSA layers;
 * - rs: the compressor states, f32 kv and score tensors [width, rows,
 *   streams x (1 + n_rs_seq)] per layer: CSA 8 rows of 2 x key_length,
 *   HCA 128 of key_length, the indexer's 8 of 2 x its key length; a cell
 *   per sequence, as a recurrent state's (rate.c reads a sequence's state
 *   so). */
static void dsv4_comp(struct plan_kv *kv, const struct model *m, const struct plan_shape *s, const struct placement *pl,
		      struct plan *p, uint32_t ratio, uint32_t width)
{
	uint32_t cells = (p->n_ctx_seq + ratio - 1) / ratio;
	cells = PAD(cells ? cells : 1, 256);
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		if (m->compress_ratio[il] != ratio)
			continue;
		uint64_t kb = ggml_row_bytes(s->type_k, width) * (uint64_t)cells * kv->streams;
		kv->layers++;
		kv->k_bytes += kb;
		cache_tensor(kv->bufs, &kv->n_bufs, p, pl, place_cache(pl, il), s->type_k, width, kb);
	}
}

static void dsv4_state(struct plan_rs *rs, const struct model *m, const struct placement *pl, struct plan *p,
		       uint32_t ratio, uint32_t rows, uint32_t width)
{
	const struct ggml_type_info *f32 = ggml_type_by_name("f32");
	uint64_t bytes = (uint64_t)width * rows * 4 * p->n_seq * (1 + rs->rs_seq);
	for (uint32_t il = 0; il < m->n_layer_all - m->n_nextn; il++) {
		if (m->compress_ratio[il] != ratio)
			continue;
		int d = place_cache(pl, il);
		rs->layers++;
		rs->r_bytes += bytes;
		rs->s_bytes += bytes;
		cache_tensor(rs->bufs, &rs->n_bufs, p, pl, d, f32, width, bytes);
		cache_tensor(rs->bufs, &rs->n_bufs, p, pl, d, f32, width, bytes);
	}
}

static void plan_dsv4(const struct model *m, const struct plan_shape *s, const struct placement *pl, struct plan *p)
{
	uint64_t want = (uint64_t)m->n_swa + s->n_ubatch;
	uint64_t size = want < p->n_ctx_seq ? want : p->n_ctx_seq;
	kv_init(&p->kv_swa, s->swa_full ? p->n_ctx_seq : (uint32_t)PAD(size, 256), p, 0, s->type_k, s->type_v);
	p->kv_swa.present = 1;
	for (uint32_t il = 0; il < m->n_layer_all; il++)
		kv_add_layer(&p->kv_swa, p, pl, il, s->type_k, s->type_v, m->head_k, 0, 0);
	kv_init(&p->kv, p->n_ctx_seq, p, 0, s->type_k, s->type_v);
	p->kv.present = 1;
	dsv4_comp(&p->kv, m, s, pl, p, 4, m->head_k);
	dsv4_comp(&p->kv, m, s, pl, p, 128, m->head_k);
	dsv4_comp(&p->kv, m, s, pl, p, 4, m->indexer_head_size);
	sort_by_name(p->kv.bufs, p->kv.n_bufs);
	sort_by_name(p->kv_swa.bufs, p->kv_swa.n_bufs);

	struct plan_rs *rs = &p->rs;
	rs->present = 1;
	rs->cells = p->n_seq;
	rs->seqs = p->n_seq;
	rs->rs_seq = s->spec_mtp ? s->spec_n_max : 0;
	dsv4_state(rs, m, pl, p, 4, 8, 2 * m->head_k);
	dsv4_state(rs, m, pl, p, 128, 128, m->head_k);
	dsv4_state(rs, m, pl, p, 4, 8, 2 * m->indexer_head_size);
	rs->recurrent_layers = rs->layers;
	sort_by_name(rs->bufs, rs->n_bufs);
	/* the MTP draft context (create_memory: an iswa cache of the nextn
	 * layers) is not priced here */
	if (s->spec_mtp && m->n_nextn && m->mtp_tensors)
		plan_note_unmirrored(p, "the MTP draft context of '%s' (its nextn layers' cache and graph)", m->arch);
}

/* bufs holds PLAN_MAX_BUFS (model, compute) or PLAN_MAX_DEVS (caches)
 * entries; there are never more buffer types than devices + 4. */
static struct plan_buf *buf_get(struct plan_buf *bufs, unsigned *n, const char *buft, int dev)
{
	for (unsigned i = 0; i < *n; i++)
		if (strcmp(bufs[i].buft, buft) == 0)
			return &bufs[i];
	struct plan_buf *b = &bufs[(*n)++];
	memset(b, 0, sizeof(*b));
	snprintf(b->buft, sizeof(b->buft), "%s", buft);
	b->dev = dev;
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

/* The CPU backend's extra buffer for a weight the engine keeps on the CPU
 * (REPACK=1 only; see cpu.h), or NULL: it stays in the mapping. With a
 * CUDA device the CPU list offers the card's pinned host buffer first,
 * which takes every weight and, with mmap on, is swapped for the plain
 * CPU type (the mapping); an RPC device has no host buffer. */
static const char *cpu_extra_buft(const struct gguf_tensor *t, const struct plan_shape *s, const struct placement *pl,
				  uint64_t *bytes)
{
	if (!s->repack || pl->host_buft)
		return NULL;
	return cpu_weight_buft(&s->cpu, t, weight_is_matmul(t), bytes);
}

/* A weight's allocation on a device's buffer type: CUDA pads quantized
 * rows to 512 elements (MATRIX_ROW_PADDING) and aligns to 128; an
 * rpc-server's CPU backend allocates ggml_nbytes aligned to 32. */
static uint64_t cuda_alloc(const struct gguf_tensor *t);
static uint64_t dev_alloc(const struct placement *pl, int d, const struct gguf_tensor *t)
{
	if (pl->dev[d].profile->backend == DEVICE_CUDA)
		return cuda_alloc(t);
	return PAD(t->bytes, dev_align(pl->dev[d].profile)); /* Vulkan: ggml_nbytes, no row padding */
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

/* The order the engine prints "model buffer size" lines in: its context
 * map is ordered by buffer type name, and the mapped buffer's type is
 * "CPU" (AMX, CPU_Mapped, CPU_REPACK, CUDA0, RPC0[...]). */
static const char *buft_key(const char *b)
{
	return strcmp(b, "CPU_Mapped") == 0 ? "CPU" : b;
}

static void sort_model_bufs(struct plan *p)
{
	for (unsigned i = 1; i < p->n_model; i++)
		for (unsigned j = i; j > 0 && strcmp(buft_key(p->model[j].buft), buft_key(p->model[j - 1].buft)) < 0;
		     j--) {
			struct plan_buf t = p->model[j];
			p->model[j] = p->model[j - 1];
			p->model[j - 1] = t;
		}
}

static void plan_model(const struct model *m, const struct gguf *g, const struct plan_shape *s,
		       const struct placement *pl, struct plan *p)
{
	uint32_t n_layer = m->n_layer_all - m->n_nextn;
	int64_t n_all = m->n_layer_all;
	/* the engine maps each shard of a split payload on its own: one
	 * CPU_Mapped range per file */
	uint32_t n_files = 1;
	for (uint64_t i = 0; i < g->n_tensors; i++)
		if (g->tensors[i].shard >= n_files)
			n_files = g->tensors[i].shard + 1;
	uint64_t *host_lo = xcalloc(n_files, sizeof(*host_lo)), *host_hi = xcalloc(n_files, sizeof(*host_hi));
	for (uint32_t f = 0; f < n_files; f++)
		host_lo[f] = UINT64_MAX;
	int has_output = gguf_tensor_find(g, "output.weight") != NULL;
	const struct gguf_tensor *embd = gguf_tensor_find(g, "token_embd.weight");
	int host = (int)p->n_cards;
	for (uint64_t i = 0; i <= g->n_tensors; i++) {
		const struct gguf_tensor *t;
		struct gguf_tensor out;
		int64_t il;
		if (i < g->n_tensors) {
			t = &g->tensors[i];
			il = place_tensor_layer(t->name, m);
			/* MTP blocks are skipped unless a drafter loads them (but
			 * for nextn_probs_b_archs' selection bias). */
			if (il >= (int64_t)n_layer && il < n_all && !s->spec_mtp &&
			    !(strstr(t->name, ".exp_probs_b") &&
			      in_list(m->arch, nextn_probs_b_archs, ARRAY_SIZE(nextn_probs_b_archs))))
				continue;
		} else {
			/* A tied output layer gets its own copy of token_embd (created
			 * under token_embd's name, so an override sees that name): on
			 * the output layer's device, or on the CPU list, where an extra
			 * buffer may take the matmul copy. */
			if (has_output || !embd || in_list(m->arch, no_output_archs, ARRAY_SIZE(no_output_archs)) ||
			    in_list(m->arch, borrowed_output_archs, ARRAY_SIZE(borrowed_output_archs)))
				break;
			out = *embd;
			out.name = (char *)"output.weight";
			t = &out;
			il = n_all;
		}
		int d = place_weight(pl, i < g->n_tensors ? t->name : "token_embd.weight", il);
		uint64_t extra_bytes = 0;
		const char *extra = d >= 0 ? NULL : cpu_extra_buft(t, s, pl, &extra_bytes);
		if (d >= 0) {
			buf_get(p->model, &p->n_model, pl->dev[d].name, d)->bytes += dev_alloc(pl, d, t);
		} else if (extra) {
			/* allocated and filled at load, not mapped; TENSOR_ALIGNMENT */
			buf_get(p->model, &p->n_model, extra, host)->bytes += PAD(extra_bytes, 32);
		} else {
			if (t->offset < host_lo[t->shard])
				host_lo[t->shard] = t->offset;
			if (t->offset + t->bytes > host_hi[t->shard])
				host_hi[t->shard] = t->offset + t->bytes;
		}
	}
	/* A split payload's buffers are printed one per shard, each rounded
	 * to 0.01 MiB; the sum of those figures is what a ledger holds, so
	 * each shard's range is rounded the same way (a few KiB at most). */
	uint64_t mapped = 0;
	for (uint32_t f = 0; f < n_files; f++) {
		if (host_hi[f] <= host_lo[f])
			continue;
		uint64_t b = host_hi[f] - host_lo[f];
		if (n_files > 1)
			b = (uint64_t)(round((double)b / 10485.76) * 10485.76 + 0.5);
		mapped += b;
	}
	free(host_lo);
	free(host_hi);
	if (mapped)
		buf_get(p->model, &p->n_model, "CPU_Mapped", host)->bytes = mapped;
	for (unsigned i = 0; i < p->n_model; i++)
		p->model[i].on_device = p->model[i].dev != host;
	/* The engine prints its model buffers in this order. */
	sort_model_bufs(p);
}

/* Tensors allocated into a backend buffer, each padded to its alignment. */
static uint64_t sum_tensors(const struct gguf *g, uint64_t align)
{
	uint64_t n = 0;
	for (uint64_t i = 0; i < g->n_tensors; i++)
		n += PAD(g->tensors[i].bytes, align);
	return n;
}

/* The devices the plan holds: each card or RPC server, then the host. */
static void setup_devs(const struct placement *pl, const struct device *dev, struct plan *p)
{
	p->n_cards = pl->n_dev;
	for (unsigned i = 0; i < pl->n_dev; i++) {
		struct plan_dev *d = &p->devs[i];
		snprintf(d->name, sizeof(d->name), "%s", pl->dev[i].name);
		d->profile = pl->dev[i].profile->name;
	}
	struct plan_dev *h = &p->devs[pl->n_dev];
	snprintf(h->name, sizeof(h->name), "host");
	h->profile = dev->backend == DEVICE_CPU ? dev->name : "cpu";
	p->n_devs = pl->n_dev + 1;
	for (uint32_t il = 0; pl->layer && il < pl->n_layer_all; il++)
		p->devs[bill_index(p, pl->layer[il])].layers++;
	if (pl->layer)
		p->devs[bill_index(p, pl->layer[pl->n_layer_all])].output = 1;
	p->offloaded = pl->offloaded;
	p->offloadable = pl->n_layer_all + 1;
	p->kv_offload = pl->kv_offload;
	p->pipeline = pl->pipeline;
	p->n_overrides = pl->n_over;
}

/* The card that takes what is not placed per layer (the projector, an
 * adapter): the first CUDA card, else the first RPC server, else the host. */
static int main_card(const struct plan *p, const struct placement *pl)
{
	for (unsigned i = 0; i < pl->n_dev; i++)
		if (device_is_card(pl->dev[i].profile))
			return (int)i;
	return pl->n_dev ? 0 : (int)p->n_cards;
}

/* The device a buffer bills: a buffer not on a device is the host's
 * (plan_calibrate adds measured buffers by that flag). */
static void bill_bufs(struct plan *p, const struct plan_buf *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		p->devs[b[i].on_device ? b[i].dev : (int)p->n_cards].total += b[i].bytes;
}

/* Every card to its own addressable memory and slack (law M09); the host
 * to its memory (with ADDRESSABLE_MIB and the slack when DEVICE is cpu,
 * where it is the device). */
static void gate_memory(struct plan *p, const struct placement *pl, const struct device *dev,
			const struct plan_extras *x)
{
	uint64_t host_mib = device_host_available_mib();
	for (unsigned i = 0; i < p->n_devs; i++) {
		struct plan_dev *d = &p->devs[i];
		uint64_t mib;
		if (i == p->n_cards) {
			/* DEVICE=cpu: the host is the device ADDRESSABLE_MIB and the slack name */
			int host_dev = dev->backend == DEVICE_CPU;
			mib = host_dev && x && x->addressable_mib ? x->addressable_mib : host_mib;
			d->slack = host_dev ? p->slack : 0;
		} else {
			mib = pl->dev[i].addressable_mib ? pl->dev[i].addressable_mib
							 : pl->dev[i].profile->addressable_mib;
			/* ADDRESSABLE_MIB corrects DEVICE's card */
			if (x && x->addressable_mib && pl->dev[i].profile == dev && !pl->dev[i].addressable_mib)
				mib = x->addressable_mib;
			if (!mib)
				mib = host_mib; /* an rpc-server: its host's memory */
			d->slack = p->slack;
		}
		d->addressable = mib << 20;
	}
	/* the single-device figures: the card DEVICE names (or the first);
	 * on cpu, the host is the device */
	p->main_dev = p->n_cards ? 0 : p->n_cards;
	for (unsigned i = p->n_cards; i-- > 0;)
		if (pl->dev[i].profile == dev)
			p->main_dev = i;
}

/* A plan made without plan_make (a test's, a calibration's fixture): one
 * device from p->device, its figures from the single-device fields. */
static void legacy_devs(struct plan *p)
{
	int card = device_is_card(p->device);
	p->n_cards = card ? 1 : 0;
	p->n_devs = p->n_cards + 1;
	for (unsigned i = 0; i < p->n_devs; i++) {
		memset(&p->devs[i], 0, sizeof(p->devs[i]));
		if (i < p->n_cards)
			device_card_name(p->device, 0, p->devs[i].name, sizeof(p->devs[i].name));
		else
			snprintf(p->devs[i].name, sizeof(p->devs[i].name), "host");
		p->devs[i].profile = i < p->n_cards ? p->device->name : "cpu";
	}
	p->devs[0].addressable = p->addressable;
	p->devs[0].slack = p->slack;
	if (card)
		p->devs[0].overhead = p->overhead_bytes;
	p->main_dev = p->side_dev = 0;
	for (unsigned i = 0; i < p->n_model; i++)
		p->model[i].dev = 0;
	for (unsigned i = 0; i < p->n_compute; i++)
		p->compute[i].dev = 0;
	for (unsigned i = 0; i < p->n_draft_compute; i++)
		p->draft_compute[i].dev = 0;
}

/* A cache term with no per-device buffers (a hand-made plan) bills the
 * main device whole. */
static void bill_cache(struct plan *p, const struct plan_buf *b, unsigned n, uint64_t bytes)
{
	if (n)
		bill_bufs(p, b, n);
	else
		p->devs[p->main_dev].total += bytes;
}

void plan_bill(struct plan *p)
{
	if (!p->n_devs)
		legacy_devs(p);
	unsigned host = p->n_cards;
	for (unsigned i = 0; i < p->n_devs; i++)
		p->devs[i].total = 0;
	/* a calibrated runtime context replaces a single card's */
	unsigned n_cuda = 0, cuda = 0;
	for (unsigned i = 0; i < p->n_cards; i++)
		if (p->devs[i].overhead) {
			n_cuda++;
			cuda = i;
		}
	if (n_cuda == 1)
		p->devs[cuda].overhead = p->overhead_bytes;
	bill_bufs(p, p->model, p->n_model);
	bill_bufs(p, p->draft_model, p->n_draft_model);
	bill_cache(p, p->kv.bufs, p->kv.n_bufs, p->kv.k_bytes + p->kv.v_bytes);
	bill_cache(p, p->kv_swa.bufs, p->kv_swa.n_bufs, p->kv_swa.k_bytes + p->kv_swa.v_bytes);
	bill_cache(p, p->rs.bufs, p->rs.n_bufs, p->rs.r_bytes + p->rs.s_bytes);
	bill_cache(p, p->draft_kv.bufs, p->draft_kv.n_bufs, p->draft_kv.k_bytes + p->draft_kv.v_bytes);
	p->devs[host].total += p->output_bytes + p->draft_output_bytes + p->extract_bytes;
	bill_bufs(p, p->compute, p->n_compute);
	bill_bufs(p, p->draft_compute, p->n_draft_compute);
	p->devs[p->side_dev].total += p->projector_weights + p->projector_compute + p->lora_bytes;
	for (unsigned i = 0; i < p->n_cards; i++)
		p->devs[i].total += p->devs[i].overhead;
	p->fits = 1;
	for (unsigned i = 0; i < p->n_devs; i++) {
		struct plan_dev *d = &p->devs[i];
		d->free_bytes = (int64_t)d->addressable - (int64_t)d->total;
		/* an unknown host memory (no /proc/meminfo) gates nothing beside cards */
		d->fits = (i == host && p->n_cards && !d->addressable) || d->free_bytes >= (int64_t)d->slack;
		p->fits &= d->fits;
	}
	p->device_total = p->devs[p->main_dev].total;
	p->host_total = p->n_cards ? p->devs[host].total : 0;
	p->addressable = p->devs[p->main_dev].addressable;
	p->free_bytes = p->devs[p->main_dev].free_bytes;
}

/* A separate drafter (SPEC_TYPE=draft-simple, SPEC_DRAFT_MODEL_FILE):
 * common_speculative_init_result loads it as an ordinary model and makes
 * its context from the target's parameters (common_base_params_to_speculative):
 * n_ctx = the target's llama_n_ctx, the same slots, n_batch, n_ubatch and
 * flash attention, the draft cache types, n_outputs_max = n_parallel (one
 * output per slot), no embeddings. It is priced as a plan of its own and
 * folded in as the draft terms. */
static int plan_drafter(const struct plan_shape *s, const struct device *dev, const struct plan_extras *x,
			struct plan *p, char **err)
{
	struct plan_shape ds = *s;
	ds.ctx_size = p->n_ctx;
	ds.type_k = s->draft_k ? s->draft_k : s->type_k;
	ds.type_v = s->draft_v ? s->draft_v : s->type_v;
	ds.spec_mtp = ds.spec_model = ds.spec_assist = ds.spec_hidden = 0;
	/* a gemma4-assistant (draft-mtp): its blocks are all nextn blocks,
	 * loaded; it attends over the target's cache, at the target's types */
	if (s->spec_assist) {
		ds.spec_mtp = 1;
		ds.type_k = s->type_k;
		ds.type_v = s->type_v;
	}
	ds.spec_n_max = 0;
	ds.embeddings = ds.pooling = 0;
	/* the drafter's own placement flags (-otd, -ncmoed, -devd) are the
	 * SPEC_TYPE key's and never rendered: none of the target's apply */
	ds.place.override_tensor = NULL;
	ds.place.tensor_split = NULL;
	ds.place.n_cpu_moe = 0;
	struct plan_extras dx = {.addressable_mib = x->addressable_mib, .slack_mib = x->slack_mib};
	struct plan *dp = xcalloc(1, sizeof(*dp));
	char *e = NULL;
	if (plan_make(x->draft_m, x->draft_g, &ds, dev, &dx, dp, &e)) {
		errorf(err, "the drafter (SPEC_DRAFT_MODEL_FILE): %s", e);
		free(e);
		free(dp);
		return -1;
	}
	memcpy(p->draft_model, dp->model, sizeof(p->draft_model));
	p->n_draft_model = dp->n_model;
	if (!s->spec_assist) /* the assistant's layers share the target's cache: none of its own */
		p->draft_kv = dp->kv;
	memcpy(p->draft_compute, dp->compute, sizeof(p->draft_compute));
	p->n_draft_compute = dp->n_compute;
	p->draft_output_bytes = dp->output_bytes;
	p->has_draft = 1;
	if ((dp->kv_swa.present && !s->spec_assist) || dp->rs.present)
		plan_note_unmirrored(p, "the drafter's %s memory ('%s')",
				     dp->kv_swa.present ? "sliding-window" : "recurrent", x->draft_m->arch);
	if (p->n_cards)
		plan_note_unmirrored(p, "the drafter's placement on a card (-ngld, -devd): priced as the target's");
	for (unsigned i = 0; i < dp->n_unmirrored; i++)
		plan_note_unmirrored(p, "drafter: %.110s", dp->unmirrored[i]);
	free(dp);
	return 0;
}

/* The target layers a draft-eagle3 or draft-dflash drafter reads
 * (target_layers): common/speculative.cpp turns on each one's input as an
 * output of the target's graph (llama_set_embeddings_layer_inp); eagle3's
 * id n_layer is the target's nextn output instead. */
static unsigned extracted_layers(const struct plan_extras *x, const struct model *m, uint64_t *mask)
{
	const struct gguf_kv *kv = gguf_findf(x->draft_g, "%s.target_layers", x->draft_m->arch);
	unsigned n = 0, last = 0;
	for (uint64_t i = 0; kv && i < kv->arr_n; i++) {
		uint64_t id = 0;
		if (gguf_arr_u64(kv, i, &id) || id > m->n_layer_all || id >= 256)
			continue;
		if (id == m->n_layer_all) /* the output's hidden state: one buffer too */
			n += !last++;
		else if (!(mask[id / 64] >> (id % 64) & 1)) {
			mask[id / 64] |= 1ull << (id % 64);
			n++;
		}
	}
	return n;
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
	struct place_request rq = s->place;
	rq.ngl = s->ngl;
	struct placement pl;
	if (place_make(&rq, dev, m, &pl, err))
		return -1;
	place_refusals(&pl, g, m);
	setup_devs(&pl, dev, p);
	int host = (int)p->n_cards;
	derive_context(s, p);
	if (strcmp(m->arch, "deepseek4") == 0) {
		plan_dsv4(m, s, &pl, p);
	} else {
		plan_kv_caches(m, s, &pl, p);
		plan_recurrent(m, s, &pl, p);
	}
	struct memo *mm = x ? x->memo : NULL;
	if (!memo_model_get(mm, s, dev, p)) {
		plan_model(m, g, s, &pl, p);
		memo_model_put(mm, s, dev, p);
	}

	/* Output buffer: logits for n_seq outputs at construction
	 * (output_reserve(n_seq_max)), in the pinned host buffer of the output
	 * layer's device when it has one; the draft context likewise. */
	p->output_bytes = m->n_vocab * (uint64_t)p->n_seq * 4;
	/* t5: logits and embeddings both, whatever EMBEDDINGS says
	 * (llama-context.cpp output_reserve, "hacky enc-dec support") */
	if (s->embeddings ||
	    strcmp(m->arch, "t5") == 0) /* and an embedding per output (n_embd_out: n_embd, qwen4exp's hc x n_embd) */
		p->output_bytes += (m->hc_mult ? m->hc_mult : 1) * m->n_embd * (uint64_t)p->n_seq * 4;
	if (p->has_draft)
		p->draft_output_bytes = m->n_vocab * (uint64_t)p->n_seq * 4;
	int od = pl.layer[pl.n_layer_all];
	snprintf(p->output_buft, sizeof(p->output_buft), "%s", od >= 0 ? device_host_buft(pl.dev[od].profile) : "CPU");

	struct compute_input ci = {.m = m, .s = s, .p = p, .dev = dev, .pl = &pl, .gg = g, .memo = mm};
	unsigned n_extract = s->spec_hidden && x && x->draft_m ? extracted_layers(x, m, ci.layer_out) : 0;
	if (compute_model(&ci, p, err)) {
		place_release(&pl);
		return -1;
	}
	if ((s->spec_model || s->spec_assist || s->spec_hidden) && x && x->draft_m && plan_drafter(s, dev, x, p, err)) {
		place_release(&pl);
		return -1;
	}
	p->extract_bytes = (uint64_t)n_extract * m->n_embd * s->n_batch * 4;
	/* draft-eagle3 / draft-dflash: llama_set_embeddings_layer_inp on the
	 * target grows its output buffer (extract_bytes) and re-reserves its
	 * graph with those layer inputs as outputs, which gr_layers marks:
	 * llama's; the other graphs that record them are not marked yet */
	if (n_extract && strcmp(m->arch, "llama") != 0 && strcmp(m->arch, "qwen3moe") != 0)
		plan_note_unmirrored(p, "the inputs of the layers of '%s' the drafter reads, as outputs of its graph",
				     m->arch);

	int card = main_card(p, &pl);
	if (x && x->projector) {
		p->projector_weights = sum_tensors(x->projector, 1);
		struct projector_compute pc;
		compute_projector(x->projector, s->flash_attn, &pc);
		p->projector_compute = pc.bytes;
		if (!pc.mirrored)
			plan_note_unmirrored(p, "projector compute estimated (type %s not mirrored%s%s)", pc.type,
					     pc.why ? ": " : "", pc.why ? pc.why : "");
		else if (card != host && device_is_card(pl.dev[card].profile)) /* the replay is the CPU's */
			plan_note_unmirrored(p, "projector compute on %s (type %s mirrored on the CPU only)",
					     pl.dev[card].profile->name, pc.type);
	}
	if (x && x->lora)
		p->lora_bytes = sum_tensors(x->lora, card != host && device_is_card(pl.dev[card].profile)
							 ? dev_align(pl.dev[card].profile)
							 : 32);

	/* a CUDA card carries its runtime context (the profile's overhead) */
	for (unsigned i = 0; i < pl.n_dev; i++) {
		uint64_t o = pl.dev[i].profile->overhead_mib << 20;
		p->overhead_bytes += o;
		p->devs[i].overhead = o;
	}
	p->side_dev = (unsigned)card;
	p->slack = (x ? x->slack_mib : 1024) << 20;
	gate_memory(p, &pl, dev, x);
	plan_bill(p);
	place_release(&pl);
	return 0;
}

int plan_weight_is_matmul(const struct gguf_tensor *t)
{
	return weight_is_matmul(t);
}
