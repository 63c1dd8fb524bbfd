/* model_check: every value of a model's geometry that the planner divides
 * by, indexes with or sizes an allocation from, held once, where the model
 * is read, to what the pinned engine's loader accepts (src/llama-model.cpp
 * load_hparams, src/models/<arch>.cpp load_arch_hparams and their graph
 * asserts). A value outside it is a payload the engine cannot load (it
 * refuses it, asserts or divides by zero at boot): a refusal before boot,
 * never a signal in zealot and never a restart loop under the unit (law
 * C03). The message names the key and its value. */
#include <string.h>

#include "../base/util.h"
#include "model.h"

/* LLAMA_MAX_EXPERTS (src/llama-hparams.h) */
#define ENGINE_MAX_EXPERTS 1024

static int is_one_of(const char *arch, const char *const *list)
{
	for (; *list; list++)
		if (strcmp(arch, *list) == 0)
			return 1;
	return 0;
}

/* a x b, UINT64_MAX past it (no product the engine accepts comes near) */
static uint64_t mul_sat(uint64_t a, uint64_t b)
{
	uint64_t r;
	return __builtin_mul_overflow(a, b, &r) ? UINT64_MAX : r;
}

/* the refusal: KEY = VALUE: why */
static int refuse(char **err, const struct model *m, const char *key, uint64_t v, const char *why)
{
	return errorf(err, "%s.%s = %llu: %s (law C03)", m->arch, key, (unsigned long long)v, why);
}

/* The loader's own asserts on experts (load_hparams: at most
 * LLAMA_MAX_EXPERTS, at most that many used and at least one, groups that
 * cut them evenly). */
static int check_experts(const struct model *m, char **err)
{
	if (m->n_expert > ENGINE_MAX_EXPERTS)
		return refuse(err, m, "expert_count", m->n_expert, "the engine holds at most 1024 experts");
	if (m->n_expert_used > m->n_expert)
		return refuse(err, m, "expert_used_count", m->n_expert_used,
			      "more experts used per token than the expert_count");
	if (m->n_expert == 0) {
		if (m->n_expert_groups)
			return refuse(err, m, "expert_group_count", m->n_expert_groups,
				      "expert groups with no experts");
		return 0;
	}
	if (m->n_expert_used == 0)
		return refuse(err, m, "expert_used_count", 0, "experts that no token uses");
	if (m->n_expert_groups >= m->n_expert)
		return refuse(err, m, "expert_group_count", m->n_expert_groups,
			      "the engine needs fewer groups than experts");
	if (m->n_expert_groups > 1 && m->n_expert % m->n_expert_groups)
		return refuse(err, m, "expert_group_count", m->n_expert_groups,
			      "the groups must cut expert_count evenly");
	if (m->n_expert_groups > 1 && (m->n_group_used == 0 || m->n_group_used >= m->n_expert_groups))
		return refuse(err, m, "expert_group_used_count", m->n_group_used,
			      "the engine needs at least one group used and fewer than expert_group_count");
	return 0;
}

/* Every layer that holds attention: heads, KV heads that divide them (GQA
 * broadcasts each KV head over n_head / n_head_kv query heads), and head
 * sizes; the planner sizes each cache row and divides by them. */
static int check_attention(const struct model *m, char **err)
{
	if (m->n_embd == 0)
		return refuse(err, m, "embedding_length", 0, "a model needs a width");
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		if (!m->has_kv[il])
			continue;
		/* deci.cpp: a layer without KV heads has none (n_head 0) or
		 * attn_output alone; the cache keeps its (empty or, V
		 * transposed, widest) rows */
		if (strcmp(m->arch, "deci") == 0 && m->n_head_kv[il] == 0)
			continue;
		int swa = m->kind[il] == LAYER_SWA;
		if (m->n_head[il] == 0)
			return refuse(err, m, "attention.head_count", 0, "an attention layer needs heads");
		if (m->n_head_kv[il] == 0 || m->n_head[il] % m->n_head_kv[il])
			return refuse(err, m, "attention.head_count_kv", m->n_head_kv[il],
				      "an attention layer's KV heads must divide its heads");
		if ((swa ? m->head_k_swa : m->head_k) == 0)
			return refuse(err, m, swa ? "attention.key_length_swa" : "attention.key_length", 0,
				      "an attention layer needs a key size");
		if ((swa ? m->head_v_swa : m->head_v) == 0)
			return refuse(err, m, swa ? "attention.value_length_swa" : "attention.value_length", 0,
				      "an attention layer needs a value size");
	}
	return 0;
}

/* The SSM layers (mamba-base.cpp build_mamba2_layer: d_inner % n_head,
 * d_inner % n_group; qwen3next.cpp: num_v_heads % num_k_heads; mamba.cpp's
 * layer: a state and a rank). */
static const char *const ssm_heads[] = {"mamba2", "granitehybrid", "falcon-h1", "nemotron_h", "nemotron_h_moe", NULL};
static const char *const ssm_v1[] = {"mamba", "jamba", NULL};
static const char *const delta_net[] = {"qwen3next", "qwen35", "qwen35moe", NULL};
static const char *const short_conv[] = {"lfm2", "lfm2moe", NULL};
static const char *const rwkv_archs[] = {"rwkv6", "rwkv6qwen2", "rwkv7", "arwkv7", NULL};

/* plamo2.cpp's mamba layer: head_dim = d_inner / ssm.time_step_rank (a
 * zero divides at the engine's first graph), GGML_ASSERT(d_inner % n_heads
 * == 0) and GGML_ASSERT(n_group == 0); its state sizes the cache. */
static int check_plamo2(const struct model *m, char **err)
{
	if (m->ssm_d_state == 0)
		return refuse(err, m, "ssm.state_size", 0, "an SSM layer needs a state");
	if (m->ssm_dt_rank == 0)
		return refuse(err, m, "ssm.time_step_rank", 0,
			      "plamo2's mamba heads: the engine divides ssm.inner_size by them");
	if (m->ssm_d_inner % m->ssm_dt_rank)
		return refuse(err, m, "ssm.time_step_rank", m->ssm_dt_rank,
			      "the heads must cut ssm.inner_size evenly (the engine's graph asserts it)");
	if (m->ssm_n_group)
		return refuse(err, m, "ssm.group_count", m->ssm_n_group,
			      "plamo2's mamba layer has no groups (the engine's graph asserts 0)");
	return 0;
}

static int check_ssm(const struct model *m, char **err)
{
	if (strcmp(m->arch, "plamo2") == 0)
		return check_plamo2(m, err);
	int heads = is_one_of(m->arch, ssm_heads), v1 = is_one_of(m->arch, ssm_v1), dn = is_one_of(m->arch, delta_net);
	if (!heads && !v1 && !dn)
		return 0;
	if (m->ssm_d_state == 0)
		return refuse(err, m, "ssm.state_size", 0, "an SSM layer needs a state");
	if (m->ssm_d_inner == 0)
		return refuse(err, m, "ssm.inner_size", 0, "an SSM layer needs a width");
	if (m->ssm_dt_rank == 0)
		return refuse(err, m, "ssm.time_step_rank", 0,
			      dn ? "a delta-net layer needs value heads" : "an SSM layer needs a time-step rank");
	if (v1)
		return 0;
	if (m->ssm_n_group == 0)
		return refuse(err, m, "ssm.group_count", 0,
			      dn ? "a delta-net layer needs key heads" : "an SSM layer needs groups");
	if (m->ssm_d_inner % m->ssm_dt_rank)
		return refuse(err, m, "ssm.time_step_rank", m->ssm_dt_rank, "the heads must cut ssm.inner_size evenly");
	if (heads && m->ssm_d_inner % m->ssm_n_group)
		return refuse(err, m, "ssm.group_count", m->ssm_n_group, "the groups must cut ssm.inner_size evenly");
	if (m->ssm_dt_rank % m->ssm_n_group)
		return refuse(err, m, "ssm.group_count", m->ssm_n_group,
			      "the groups must cut ssm.time_step_rank evenly");
	return 0;
}

/* The other recurrent states: a short convolution (lfm2.cpp asserts a cache
 * of more than one token), RWKV's time mix (rwkv6-base.cpp, rwkv7-base.cpp:
 * heads of wkv.head_size cut embedding_length, a reshape ggml asserts; the
 * hparams require the key), Kimi delta attention's head. */
static int check_state(const struct gguf *g, const struct model *m, char **err)
{
	if (is_one_of(m->arch, short_conv) && m->shortconv_l_cache < 2)
		return refuse(err, m, "shortconv.l_cache", m->shortconv_l_cache,
			      "a short convolution caches more than one token");
	int rwkv = is_one_of(m->arch, rwkv_archs) || gguf_tensor_find(g, "blk.0.time_mix_key.weight") != NULL;
	if (m->wkv_head_size ? m->n_embd % m->wkv_head_size != 0 : rwkv)
		return refuse(err, m, "wkv.head_size", m->wkv_head_size,
			      "an RWKV time mix needs a head size that divides embedding_length");
	if (strcmp(m->arch, "kimi-linear") == 0 && m->kda_head_dim == 0)
		return refuse(err, m, "kda.head_dim", 0, "a delta attention layer needs a head size");
	return 0;
}

/* deepseek32 (deepseek32.cpp load_arch_hparams and its tensors): queries
 * through attn_q_a/attn_q_b of q_lora_rank (a required key), and a
 * lightning indexer (blk.0.indexer.attn_k: [n_embd, key_length]) whose key
 * row is the tensor's, with heads and a top-k. */
static int check_mla(const struct gguf *g, const struct model *m, char **err)
{
	/* minimax-m3.cpp creates its indexer's q projection with
	 * indexer.head_count x key_length rows: zero heads is a shape the
	 * payload cannot have, and its graph divides the heads by them */
	if (strcmp(m->arch, "minimax-m3") == 0 && m->indexer_n_head == 0)
		return refuse(
		    err, m, "attention.indexer.head_count", 0,
		    "minimax-m3's indexer has one head per GQA group (its q projection is heads x key_length)");
	/* deepseek32.cpp, glm-dsa.cpp and dots3note.cpp create attn_q_a as
	 * [n_embd, q_lora_rank] unconditionally */
	if ((strcmp(m->arch, "deepseek32") == 0 || strcmp(m->arch, "glm-dsa") == 0 ||
	     strcmp(m->arch, "dots3note") == 0) &&
	    m->q_lora_rank == 0)
		return refuse(
		    err, m, "attention.q_lora_rank", 0,
		    "the architecture builds its queries through a rank-q_lora_rank pair (attn_q_a, attn_q_b)");
	const struct gguf_tensor *ik = gguf_tensor_find(g, "blk.0.indexer.attn_k.weight");
	if (!ik)
		return 0;
	if (ik->n_dims < 2 || ik->ne[1] != m->indexer_head_size)
		return refuse(err, m, "attention.indexer.key_length", m->indexer_head_size,
			      "blk.0.indexer.attn_k.weight's rows are the indexer's key length");
	if (!m->indexer_n_head)
		return refuse(err, m, "attention.indexer.head_count", 0, "the lightning indexer needs heads");
	if (!m->indexer_top_k)
		return refuse(err, m, "attention.indexer.top_k", 0, "the lightning indexer keeps at least one cell");
	return 0;
}

/* deepseek4's grouped output projection (deepseek4.cpp load_arch_tensors:
 * attn_output_a is created {head_count x key_length / output_group_count,
 * output_lora_rank, output_group_count}, reshaped, so the loader compares
 * element counts; the graph asserts head_count % groups == 0). The loader
 * divides by the group count before any check: a zero is a division by
 * zero at load. */
static int check_ds4_output(const struct gguf *g, const struct model *m, char **err)
{
	if (strcmp(m->arch, "deepseek4") != 0 || !g)
		return 0;
	uint64_t groups = 0, rank = 0;
	if (gguf_kv_u64(gguf_findf(g, "%s.attention.output_group_count", m->arch), &groups) || groups == 0)
		return refuse(err, m, "attention.output_group_count", groups,
			      "the engine's loader divides head_count x key_length by it (a zero or missing key "
			      "is a division by zero or a refusal at load)");
	uint64_t heads = m->n_head[0], d = m->head_k;
	if (heads % groups)
		return errorf(err,
			      "%s.attention.head_count = %llu: attention.output_group_count (%llu) must cut it evenly "
			      "(the engine's graph asserts it) (law C03)",
			      m->arch, (unsigned long long)heads, (unsigned long long)groups);
	const struct gguf_tensor *oa = gguf_tensor_find(g, "blk.0.attn_output_a.weight");
	gguf_kv_u64(gguf_findf(g, "%s.attention.output_lora_rank", m->arch), &rank);
	uint64_t have = 1, want;
	for (unsigned i = 0; oa && i < oa->n_dims; i++)
		have = mul_sat(have, oa->ne[i]);
	want = mul_sat(mul_sat(heads * d / groups, rank), groups);
	if (oa && (want == 0 || have != want))
		return errorf(err,
			      "%s: blk.0.attn_output_a.weight holds %llu values, the engine's loader expects "
			      "head_count x key_length / output_group_count x output_lora_rank x output_group_count "
			      "= %llu x %llu / %llu x %llu x %llu: it refuses the file (\"wrong shape\") (law C03)",
			      m->arch, (unsigned long long)have, (unsigned long long)heads, (unsigned long long)d,
			      (unsigned long long)groups, (unsigned long long)rank, (unsigned long long)groups);
	return 0;
}

int model_check(const struct gguf *g, const struct model *m, char **err)
{
	return check_experts(m, err) || check_attention(m, err) || check_ssm(m, err) || check_state(g, m, err) ||
		       check_mla(g, m, err) || check_ds4_output(g, m, err)
		   ? -1
		   : 0;
}
