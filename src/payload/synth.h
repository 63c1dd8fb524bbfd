/* synth: synthetic payloads of a chosen geometry, zero weights, written as
 * sparse GGUF files that the real engine loads and serves. Tests and demos
 * use them instead of downloads.
 */
#ifndef ZEALOT_SYNTH_H
#define ZEALOT_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#include "../base/zerr.h"

struct synth_spec {
	char arch[32]; /* "llama", "qwen35", "gemma3", "qwen3moe", "granitehybrid", "mamba2", "lfm2", ... */
	char name[64];
	uint32_t n_layer; /* trunk layers (block_count minus nextn) */
	uint32_t n_nextn; /* declared MTP blocks (nextn_predict_layers) */
	int mtp_tensors;  /* write the blk.N.nextn.* tensors (0: declared only) */
	uint32_t n_embd, n_ff, n_head, n_head_kv, head_dim;
	uint64_t n_ctx;
	uint32_t n_vocab;
	uint32_t embd_rows; /* token_embd rows, 0: n_vocab (another: a file the loader refuses) */
	/* the header stating other head counts / sizes than the tensors have
	 * (0: the true ones), and attn_output's rows (0: heads x head_dim):
	 * files the loader refuses on an attention shape (law S17) */
	uint32_t heads_meta, kv_heads_meta, head_dim_meta, head_dim_v_meta, out_rows;
	uint32_t rope_dims;
	uint32_t interval; /* qwen35: a full-attention layer every N */
	uint32_t ssm_conv, ssm_state, ssm_groups, ssm_dt_rank;
	uint32_t n_swa, swa_pattern;		    /* gemma3 */
	uint32_t n_expert, n_expert_used, n_ff_exp; /* qwen3moe */
	uint32_t wtype;				    /* ggml type id of the weight matrices */
	char ftype_name[16];			    /* type=Q4_K_M ...: the file type asked for ("": none) */
	uint32_t ftype;				    /* its general.file_type (llama.h LLAMA_FTYPE_*) */
	int efforts;				    /* template restricts reasoning_effort */
	uint32_t n_split;			    /* > 1: write that many shards (NAME-00001-of-0000N.gguf) */
	uint64_t target_bytes;			    /* > 0: the file's size (custom weight types only) */
	uint32_t head_dim_swa, kv_heads_swa, shared_kv, kv_eq; /* gemma4 */
	uint32_t per_layer;				       /* gemma4: per-layer embedding width (E2B/E4B) */
	int exp_typed;					       /* exp_type set: the expert stacks' own type */
	uint32_t exp_type;
	/* deepseek2 (MLA) and glm4moe: latent ranks, V head, leading dense
	 * layers, shared experts, gating (1 softmax, 2 sigmoid), selection
	 * bias, weight normalisation and scale (tenths), expert groups */
	uint32_t kv_lora, q_lora, head_dim_v, n_lead_dense, n_shared, gating, probs_b, w_norm, w_scale10;
	uint32_t n_groups, n_groups_used;
	uint32_t qk_norm, qkv_bias;    /* glm4moe: q/k norms, q/k/v biases */
	uint32_t gate_up;	       /* deepseek2, qwen35moe: one fused ffn_gate_up_exps stack */
	uint32_t mha;		       /* deepseek2: the pre-MLA layout (attn_kv_b, full K and V caches) */
	uint32_t temp_scale10;	       /* deepseek2, mistral3: attention.temperature_scale in tenths (0: none) */
	uint32_t moe_latent;	       /* nemotron_h_moe: moe_latent_size, experts over a latent projection (0: none) */
	uint32_t idx_heads, idx_top_k; /* deepseek32: the indexer's query heads (0: heads) and top-k (0: 256) */
	/* deepseek4: the grouped output projection (groups, rank), the leading
	 * hash-routed layers, the leading uncompressed layers (the rest
	 * alternate CSA 4 and HCA 128) */
	uint32_t o_groups, o_lora, hash_layers, raw_layers;
	uint32_t attn_res; /* kimi-k3: attn_res.block_size (0: no cross-layer residual attention) */
	/* qwen4exp: hyper-connection streams and their low rank, the PLE
	 * head width on layer 0 (0: no PLE), the QSA block ratio (0: dense
	 * attention), the indexer's key length */
	uint32_t hc, hc_rank, ple, compress, idx_dim;
	uint32_t kv_lora_swa;		     /* dots3note: the window layers' kv_lora_rank (0: kv_lora) */
	uint32_t n_head_swa, head_dim_v_swa; /* dots3note: the window layers' heads and value head (0: the full's) */
	uint32_t embd_out;		     /* gemma4-assistant: its target's hidden size (embedding_length_out) */
	uint32_t tgt_layers, tgt_extract;    /* eagle3, dflash: the target's blocks, the target layers read */
	/* answer=TEXT: the payload answers every chat prompt with TEXT (greedy
	 * or sampled: the margin is ~64 logits); alt=TEXT2 puts a second answer
	 * in the vocabulary that only an adapter (synth lora answer=TEXT2)
	 * reaches. Empty: zero weights, no answer to speak of. */
	char answer[128], alt[128];
	/* image_answer=TEXT (llama, with answer=TEXT): a red image from a
	 * projector written with `synth clip --set red=1` turns the answer to
	 * TEXT; no image (or another colour) leaves it the answer */
	char image_answer[128];
};

/* The defaults for an architecture: a tiny geometry that boots in a
 * second. Returns -1 with *err for an unknown architecture. */
int synth_defaults(struct synth_spec *s, const char *arch, char **err);
/* Apply a named preset (the seeds' payload geometries). */
int synth_preset(struct synth_spec *s, const char *preset, char **err);
/* Apply one `key=value` setting. */
int synth_set(struct synth_spec *s, const char *kv, char **err);
/* Write the payload. Returns 0 or -1 with *err and *kind (when not NULL):
 * ZE_USAGE for a spec the engine would refuse, ZE_IO when the file cannot be
 * written (also for synth_projector and synth_lora, whose base payload
 * may not be read: ZE_NOTFOUND, ZE_IO); *bytes gets the file size. */
int synth_write(const struct synth_spec *s, const char *path, uint64_t *bytes, enum zerr *kind, char **err);

/* One line per settable key, for --help, appended to b. */
struct sb;
void synth_help_keys(struct sb *b);
/* One line per preset, for --help. */
const char *synth_help_presets(void);
/* The --set key table's rows (the numeric keys), for tests. */
size_t synth_key_count(void);
const char *synth_key_name(size_t i);

/* 0 when writing path would replace no file: path itself, or with
 * n_split > 1 its shards; else -1 with *err naming the first that exists. */
int synth_out_free(const char *path, uint32_t n_split, char **err);

#endif

/* A projector (mmproj) header of a vision tower: clip.* metadata and
 * tensors of the tower's geometry, zero data. `preset` NULL is a small
 * tower; "bonsai-9b-mmproj" approximates the seeds' Q8_0 Qwen3-VL tower. */
/* red: the output embeddings carry how red the image is (see synth.c,
 * "image_answer"); 0: zero weights. */
/* type: the projector type of a small tower (NULL: mlp; gemma3,
 * qwen2vl_merger, qwen2.5vl_merger), image: its image_size (0: 224). */
struct synth_proj {
	const char *preset, *type;
	uint32_t projection_dim, image, embd; /* embd: the tower's width (0: 64) */
	int red;
};
int synth_projector(const struct synth_proj *ps, const char *path, uint64_t *bytes, enum zerr *kind, char **err);

/* A LoRA adapter fitted to the base payload at base_path: rank-r pairs on
 * every trunk layer's output projection and FFN down projection, f32,
 * zero data. touch_embd adds a pair on token_embd (law S12). base_name, if
 * not NULL, is recorded as the payload it was fitted against. */
/* An adapter on output.weight that turns a base written with answer= and
 * alt=ANSWER into one that answers ANSWER instead. */
int synth_lora_answer(const char *base_path, const char *answer, float alpha, const char *path, uint64_t *bytes,
		      enum zerr *kind, char **err);

int synth_lora(const char *base_path, uint32_t rank, float alpha, int touch_embd, const char *base_name,
	       const char *path, uint64_t *bytes, enum zerr *kind, char **err);
