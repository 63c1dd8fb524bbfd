/* model: the geometry of a payload, derived from its GGUF metadata the way
 * the engine's llama_hparams derives it (src/llama-model.cpp load_hparams,
 * src/llama-hparams.cpp, src/models/<arch>.cpp of the pinned engine).
 *
 * Layer kinds come from metadata read by the engine's rule for the
 * architecture (a table of engine facts in model.c: which layers of
 * which `general.architecture` hold recurrent state and which hold KV):
 * `nextn_predict_layers` marks the trailing MTP blocks; recurrent layers come
 * from `attention.recurrent_layers`, else `full_attention_interval`, else a
 * zero in the per-layer `head_count_kv` array (and, for nemotron-h,
 * `feed_forward_length`), or every layer (mamba, rwkv, falcon-h1); an
 * architecture outside the table with recurrent-state keys is guessed from
 * them and named (`state_unmirrored`); sliding-window layers from
 * `attention.sliding_window` with `sliding_window_pattern`.
 * Where a key is absent and the engine falls back to a built-in default, the
 * default is used and said (`*_source`).
 */
#ifndef ZEALOT_MODEL_H
#define ZEALOT_MODEL_H

#include <stdint.h>

#include "gguf.h"

enum layer_kind { LAYER_ATTENTION = 0, LAYER_SWA, LAYER_RECURRENT, LAYER_NEXTN, LAYER_NKINDS };

const char *layer_kind_name(enum layer_kind k);

struct model {
	char *arch;
	char *name;
	int64_t file_type;  /* -1 when absent */
	char *general_type; /* "model", "adapter", "mmproj"... or NULL */

	uint32_t n_layer_all; /* block_count: trunk + nextn */
	uint32_t n_nextn;     /* nextn_predict_layers (declared) */
	uint32_t n_router;    /* graniteswitch: its adapter router, the one nextn layer (no MTP) */
	uint32_t n_embd;
	uint32_t n_ff;	      /* first layer's (0 when absent) */
	uint32_t *n_ff_layer; /* per layer, n_layer_all entries */
	uint64_t n_ctx_train;
	uint64_t n_vocab;

	uint32_t *n_head; /* per layer, n_layer_all entries */
	uint32_t *n_head_kv;
	uint32_t head_k, head_v;	 /* full-attention head sizes */
	uint32_t head_k_swa, head_v_swa; /* sliding-window head sizes */
	uint32_t kv_lora_rank;		 /* MLA: 0 when absent */
	uint32_t head_k_mla, head_v_mla;
	uint32_t kv_lora_rank_swa, head_k_mla_swa, head_v_mla_swa; /* dots3note: the window layers' MLA, 0 absent */
	uint32_t indexer_head_size; /* DSA lightning indexer's key length (deepseek32), 0 when absent */
	uint32_t indexer_n_head;    /* its query heads */
	uint32_t indexer_top_k;	    /* the cells each token's attention keeps */
	/* attention.compress_ratios per layer: deepseek4's 0, 4 (CSA) or 128
	 * (HCA); qwen4exp's QSA block ratio (0: dense); NULL for others */
	uint32_t *compress_ratio;
	uint8_t *indexer_shared; /* glm-dsa: per layer, 1 where it reuses the last full layer's top-k; else NULL */

	uint32_t n_swa;	      /* sliding window in tokens, 0 = none */
	uint32_t n_kv_shared; /* attention.shared_kv_layers: the last N layers hold no KV of their own */
	enum layer_kind *kind;
	const char *recurrent_source;
	const char *swa_source;

	/* recurrent state (Mamba / Gated DeltaNet / RWKV / short conv) */
	uint32_t ssm_d_conv, ssm_d_inner, ssm_d_state, ssm_n_group, ssm_dt_rank;
	uint32_t wkv_head_size, token_shift_count, shortconv_l_cache;
	uint32_t kda_head_dim;	     /* kda.head_dim (Kimi delta attention) */
	uint64_t n_embd_r, n_embd_s; /* floats per recurrent layer per cell */
	/* The engine's memory for the architecture (create_memory): which
	 * layers hold attention KV and which recurrent state. A layer of
	 * falcon-h1 holds both. `pure_recurrent`: llama_memory_recurrent
	 * alone, no KV cache at all (mamba, rwkv). `state_unmirrored` names
	 * what zealot does not mirror of this architecture's memory, or NULL. */
	uint8_t *has_kv, *has_rs;
	uint32_t n_rs_layers;
	int pure_recurrent;
	const char *state_unmirrored;

	/* rope */
	double rope_freq_base;
	double rope_scale;  /* factor, 0 when absent */
	char *rope_scaling; /* type string or NULL */
	uint64_t rope_orig_ctx;
	uint32_t rope_dims;
	uint32_t rope_sections[4];
	int has_rope_sections;

	/* mixture of experts (0 when dense): expert_count, expert_used_count,
	 * expert_feed_forward_length (0: the engine's n_ff / n_expert_used) */
	uint32_t n_expert, n_expert_used, n_ff_exp;

	/* MTP */
	uint32_t mtp_tensors; /* count of blk.N.nextn.* tensors */
	uint32_t mtp_blocks;  /* distinct N among them */

	uint32_t n_kind[LAYER_NKINDS];

	/* deepseek2 / glm4moe / qwen35moe: q_lora_rank, leading dense layers,
	 * shared experts, gating (expert_gating_func: 0 absent, 1 softmax, 2
	 * sigmoid), weight normalisation and scale, expert groups */
	uint32_t q_lora_rank, n_lead_dense, n_expert_shared, expert_gating;
	uint32_t expert_w_norm, n_expert_groups, n_group_used;
	double expert_w_scale;
	double attn_temp_scale; /* attention.temperature_scale (mistral-large's tuning), 0 absent */

	/* qwen4exp: hyper-connection streams (hyper_connection.count) and the
	 * mixers' low rank (its QSA block ratio is compress_ratio); the
	 * n-gram PLE (its layer, -1: none; heads, head width, conv kernel,
	 * n-gram size) and its conv row's floats (hparams.ple_conv_state) */
	uint32_t hc_mult, hc_low_rank;
	int32_t ple_layer;
	uint32_t ple_n_heads, ple_head_dim, ple_conv_kernel, ple_ngram;
	uint64_t ple_conv_state;
};

/* Derive the geometry. Returns NULL with *err set when a key the engine
 * requires is missing or a value is out of range (e.g. an array shorter than
 * block_count). A GGUF without general.architecture is an error. */
struct model *model_from_gguf(const struct gguf *g, char **err);
void model_free(struct model *m);

/* Hold m's geometry to what the engine's loader accepts: every value the
 * planner divides by, indexes with or sizes an allocation from, for every
 * family (model_check.c). model_from_gguf calls it; -1 with *err naming
 * the key, its value and the law (C03). */
int model_check(const struct gguf *g, const struct model *m, char **err);

/* Per-layer K and V widths (elements per token), as the engine's
 * n_embd_k_gqa(il) / n_embd_v_gqa(il). */
uint32_t model_n_embd_k_gqa(const struct model *m, uint32_t il);
uint32_t model_n_embd_v_gqa(const struct model *m, uint32_t il);

#endif
