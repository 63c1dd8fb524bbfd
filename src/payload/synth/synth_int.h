/* synth_int: the inside of synth (payload/synth.h is its outside), shared
 * by its files the way SQLite's btree shares btreeInt.h.
 *
 * One table of families (families.c): a row per architecture, found once
 * by its name, holding what differs between architectures as data (SF_*
 * flags for the shared writers, a variant the family's own file reads)
 * and hooks (defaults, validate, keys, tensors, layer). The shared
 * writers (write.c: tensors, blocks, the general and geometry keys;
 * answer.c: the tokenizer and the answer rows) never ask for an
 * architecture by name. docs/hacking.md says how to add one.
 */
#ifndef ZEALOT_SYNTH_INT_H
#define ZEALOT_SYNTH_INT_H

#include <stdint.h>

#include "../../base/zerr.h"
#include "../gguf_write.h"

struct synth_spec;
struct synth_family;

/* Custom type ids (e.g. PrismML's PQ2_0 = 142) are written at the ternary
 * rate the seeds measured: 2.125 bits per weight, 34 bytes per 128. */
#define CUSTOM_BLCK 128
#define CUSTOM_SIZE 34

/* --- the family table ----------------------------------------------------- */

enum {
	SF_TIED = 1 << 0,	    /* no output.weight: the output is token_embd's */
	SF_NO_ANSWER = 1 << 1,	    /* the output is tied or scaled: answer= refused */
	SF_IMAGE = 1 << 2,	    /* image_answer= written (llama) */
	SF_MTP = 1 << 3,	    /* nextn (MTP) blocks synthesised */
	SF_ROPE_FULL = 1 << 4,	    /* rope_dims must equal head_dim */
	SF_HEADS_EMBD = 1 << 5,	    /* heads x head_dim must equal embd */
	SF_MROPE = 1 << 6,	    /* M-RoPE: rope.dimension_sections, rope_dims == head_dim >= 64 */
	SF_DENSE = 1 << 7,	    /* written dense: experts refused */
	SF_EMBD_NORM = 1 << 8,	    /* the final norm is token_embd_norm (lfm2) */
	SF_NORM_BIAS = 1 << 9,	    /* output_norm has a bias (orion) */
	SF_NO_HEADS = 1 << 10,	    /* attention.head_count 0 (rwkv, as converted) */
	SF_OWN_KV = 1 << 11,	    /* head_count_kv is the family's key, not the geometry's */
	SF_MLA = 1 << 12,	    /* MLA caches unless mha=1: one K-only head of kv_lora + rope */
	SF_MHA_V = 1 << 13,	    /* deepseek2's MHA layout: n_head KV heads, value_length head_dim_v */
	SF_EXPERTS_SIZED = 1 << 14, /* experts >= experts_used > 0 and ff_exp > 0 (qwen3moe's rule) */
	SF_NO_OUT_NORM = 1 << 15,   /* no final norm tensor (olmo's is a layer norm without weights) */
	SF_ENC_NORM = 1 << 16,	    /* the final norm is enc.output_norm (neo-bert) */
	SF_CODEC_OUT = 1 << 17,	    /* output.weight has SYNTH_CODEC_ROWS rows (qwen3tts's codec head) */
	SF_HEADS_SWA = 1 << 18,	    /* heads_swa: head_count per layer, heads_swa on the window's (keys_heads_swa) */
};
/* qwen3tts's codec head: the rows the loader creates output.weight with
 * (src/models/qwen3vl.cpp); a vocabulary past them is padded with -inf */
#define SYNTH_CODEC_ROWS 3072u

struct tw;
struct synth_family {
	const char *arch;
	unsigned flags;	  /* SF_* */
	unsigned variant; /* the family file's own switches (its V_* values) */
	/* after the common defaults (synth.c); NULL: none */
	void (*defaults)(struct synth_spec *s, const struct synth_family *f);
	/* the family's own rules, before the flags' (synth.c validate) */
	int (*validate)(const struct synth_spec *s, const struct synth_family *f, char **err);
	/* the family's keys, after general.* and the geometry's */
	void (*keys)(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
	/* the blocks' tensors, after token_embd, the final norm and output */
	void (*tensors)(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
	/* a layer's kind where they differ ('A' attention, 'F' FFN only, 'M'
	 * a recurrent mixer): head_count_kv (and with ff_per_layer
	 * feed_forward_length) become per-layer arrays; NULL: all alike */
	int (*layer)(const struct synth_spec *s, uint32_t il);
	int ff_per_layer;
	float rope_base; /* rope.freq_base, 0: 10000 */
};

/* The row of arch, or NULL. */
const struct synth_family *synth_family_find(const char *arch);
/* 0 when synth writes arch; else -1 with *err naming the nearest, or all. */
int synth_family_known(const char *arch, char **err);
/* The table's rows in order (synth_family_at: NULL past the end). */
size_t synth_family_count(void);
const struct synth_family *synth_family_at(size_t i);

/* --- writing tensors (write.c) ------------------------------------------- */

struct tw {
	struct gguf_writer *w;
	uint32_t wtype;
	const struct synth_spec *s; /* NULL: widths not from the spec's keys */
	char *bad;		    /* the first tensor the engine would refuse */
	/* bytes=N: the custom-type matrices share `extra` bytes beyond their
	 * default size in proportion to their elements (elems in all) */
	int64_t extra;
	uint64_t elems, seen;
	int64_t given;
	int fixed; /* this matrix keeps its default size (the input embedding) */
	/* where blk.0's attn_norm, attn_v and attn_output begin (image_answer) */
	uint64_t norm0_at, v0_at, o0_at;
};

uint64_t synth_bytes_of(uint32_t type, uint64_t n);
/* A 1-D f32 vector (norms, biases, gates). */
void vec(struct tw *t, const char *name, uint64_t n);
/* A weight matrix of the weight type: ne0 is the input width. A row that is
 * not a whole number of the type's blocks is remembered (t->bad). */
void mat(struct tw *t, const char *name, uint64_t ne0, uint64_t ne1);
/* An f32 tensor of up to 3 dimensions (conv kernels, routers, coefficients). */
void f32_tensor(struct tw *t, const char *name, uint32_t n_dims, uint64_t ne0, uint64_t ne1, uint64_t ne2);
/* blk.IL.SUFFIX */
void blkname(char *buf, size_t n, uint32_t il, const char *suffix);
/* A layer's [in, out, n] stack of the weight type (experts, per-head). */
void expert_stack(struct tw *t, uint32_t il, const char *suffix, uint64_t ne0, uint64_t ne1, uint64_t n);
/* Refuse the file if a matrix broke the block rule; releases the writer. */
int refused(struct tw *t, char **err);

/* projector_audio.c: the audio towers (whisper encoders: ultravox, qwen2a,
 * voxtral, musicflamingo, meralion, glma; qwen3a, gemma4ua, dots3note_a, lfm2a); synth_audio_type is the
 * type's index, -1 when synth writes no such audio tower. */
struct synth_proj;
int synth_audio_type(const char *type);
int synth_projector_audio(const struct synth_proj *ps, const char *path, uint64_t *bytes, enum zerr *kind, char **err);

#define BV(suffix, n)                                                                                                  \
	do {                                                                                                           \
		blkname(nm, sizeof(nm), il, suffix);                                                                   \
		vec(t, nm, n);                                                                                         \
	} while (0)
#define BM(suffix, a, b)                                                                                               \
	do {                                                                                                           \
		blkname(nm, sizeof(nm), il, suffix);                                                                   \
		mat(t, nm, a, b);                                                                                      \
	} while (0)

/* The blocks many families share. */
void ffn(struct tw *t, const struct synth_spec *s, uint32_t il);		  /* gate, down, up: ff wide */
void qkv(struct tw *t, const struct synth_spec *s, uint32_t il, uint32_t q_mult); /* q (x q_mult), k, v, output */
void qkv_bias(struct tw *t, const struct synth_spec *s, uint32_t il);		  /* q, k, v biases */
/* A layer's attention half as most families write it: the attention norm,
 * qkv, then (ATTN_BIAS) q, k and v biases, (ATTN_QK_NORM) k and q normed per
 * head, in that order; then the FFN norm. */
enum { ATTN_BIAS = 1, ATTN_QK_NORM = 2 };
void attn_block(struct tw *t, const struct synth_spec *s, uint32_t il, unsigned how);
void router(struct tw *t, const struct synth_spec *s, uint32_t il); /* ffn_gate_inp, f32 */
/* gate, down, up stacks [.., fe, experts] */
void expert_ffn(struct tw *t, const struct synth_spec *s, uint32_t il, uint64_t fe);
/* the defaults of a MoE payload: n experts, used of them a token, each
 * ff_exp wide (0: the width is left as it is) */
void moe_defaults(struct synth_spec *s, uint32_t n, uint32_t used, uint32_t ff_exp);
/* a MoE layer: attn_block (how), the router and expert_ffn (fe) */
void moe_layer(struct tw *t, const struct synth_spec *s, uint32_t il, unsigned how, uint64_t fe);
/* expert_ffn of ff_exp, or gate_up and down fused (gate_up=1) */
void expert_stacks(struct tw *t, const struct synth_spec *s, uint32_t il);
/* router, optional selection bias, expert_stacks, a shared expert of shared x ff_exp */
void moe_block(struct tw *t, const struct synth_spec *s, uint32_t il);
/* gate, down, up of a shared expert fe wide */
void shexp(struct tw *t, const struct synth_spec *s, uint32_t il, uint64_t fe);
/* an MTP block's head: eh_proj and its three norms */
void nextn_head(struct tw *t, const struct synth_spec *s, uint32_t il);

/* --- writing keys (write.c) ---------------------------------------------- */

/* ARCH.SUFFIX */
void akey(char *buf, size_t n, const struct synth_spec *s, const char *suffix);
void akey_u32(struct gguf_writer *w, const struct synth_spec *s, const char *suffix, uint32_t v);
void akey_f32(struct gguf_writer *w, const struct synth_spec *s, const char *suffix, float v);
void akey_bool(struct gguf_writer *w, const struct synth_spec *s, const char *suffix, int v);
/* general.* */
void keys_general(struct gguf_writer *w, const struct synth_spec *s);
/* blocks, context, widths, heads, head sizes, epsilon, rope */
void keys_geometry(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
/* the SSM mixer's keys (groups: 0 for mamba v1, which has none) */
void keys_ssm(struct gguf_writer *w, const struct synth_spec *s, uint32_t inner, int groups);
/* expert_count, expert_used_count, and expert_feed_forward_length when ff > 0 */
void keys_experts(struct gguf_writer *w, const struct synth_spec *s, uint32_t ff);
/* attention.sliding_window (and its pattern when pattern) */
void keys_window(struct gguf_writer *w, const struct synth_spec *s, int pattern);
/* rope.dimension_sections [11, 11, 10, 0] */
void keys_rope_sections(struct gguf_writer *w, const struct synth_spec *s);

/* --- the answer and the tokenizer (answer.c) ------------------------------ */

#define TOK_EOT	      256 /* <|endoftext|> */
#define TOK_IM_END    258 /* <|im_end|>: the end of a turn */
#define ANS_NL	      10  /* the byte token "\n" */
#define ANS_THINK_END 260 /* "</think>" */
#define ANS_TOKEN     266 /* the first entry after the specials */
#define ANS_ALT	      267
#define ANS_IMG	      268 /* image_answer's entry */
#define ANS_WEIGHT    4.0f
#define IMG_STATE     4
#define IMG_FLAG      5
#define IMG_ONE	      6
#define IMG_V	      0.125f
#define IMG_B	      4.0f
#define IMG_MARGIN    1.0f

int answer_mode(const struct synth_spec *s);
int validate_answer(const struct synth_spec *s, const struct synth_family *f, char **err);
void poke_f32(struct gguf_writer *w, uint64_t at, uint64_t elem, float v);
void answer_weights(struct gguf_writer *w, const struct synth_spec *s, uint64_t embd_at, uint64_t norm_at,
		    uint64_t out_at);
void image_weights(struct gguf_writer *w, const struct synth_spec *s, uint64_t norm_at, uint64_t v_at, uint64_t o_at);
size_t byte_token(unsigned b, char out[4]);
void tokenizer(struct gguf_writer *w, const struct synth_spec *s);

/* --- files (write.c) ------------------------------------------------------ */

int write_out(struct gguf_writer *w, const char *path, uint64_t *bytes, char **err);
int write_split(struct gguf_writer *w, const char *path, uint32_t n, uint64_t *bytes, char **err);
/* A write's result, and its kind: a failure to write is ZE_IO. */
int written(int rc, enum zerr *kind);

/* --- the families' hooks (one block per family file) ---------------------- */

/* fam_llama.c: llama, mistral3 and the kin written with llama's tensors */
enum {
	V_SEED = 1 << 0,    /* the FFN norm named post_attention_norm */
	V_QK_NORM = 1 << 1, /* per-head q/k norms (hunyuan-dense, maincoder) */
	V_ORION = 1 << 2,   /* layer norms with biases, attention.layer_norm_epsilon */
	V_APERTUS = 1 << 3, /* q/k norms with biases, xIELU keys */
	V_NO_GATE = 1 << 4, /* up and down, no gate (arcee, apertus) */
	V_GRANITE = 1 << 5, /* logit, residual and embedding scales */
	V_MOE_OPT = 1 << 6, /* experts optional (mistral3) */
	V_MOE_REQ = 1 << 7, /* experts required (granitemoe) */
	V_TEMP = 1 << 8,    /* attention.temperature_scale (temp_scale) */
};
void llama_defaults(struct synth_spec *s, const struct synth_family *f);
int llama_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void llama_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void llama_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* fam_switch.c: graniteswitch (llama_keys with V_GRANITE, then the adapters) */
void switch_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void switch_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_qwen.c: qwen2(vl), qwen3(vl), qwen2moe, qwen3moe and its kin */
void qwen_moe_defaults(struct synth_spec *s, const struct synth_family *f);
void qwen3tts_defaults(struct synth_spec *s, const struct synth_family *f);
void qwen_moe_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void qwen2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void qwen3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void qwen2moe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void qwen3moe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_qwen35.c: qwen35, qwen35moe, qwen3next */
enum { V_Q35_MOE = 1 << 0 /* experts in place of the FFN */, V_NEXT = 1 << 1 /* qwen3next */ };
void qwen35_defaults(struct synth_spec *s, const struct synth_family *f);
int qwen35_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void qwen35_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void qwen35_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* a Gated DeltaNet layer's mixer and a layer's FFN (qwen4exp reuses them) */
void qwen35_delta_net(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il);
void qwen35_ffn(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il);

/* fam_qwen4.c: qwen4exp (variant V_Q35_MOE, qwen35moe's FFN) */
void qwen4_defaults(struct synth_spec *s, const struct synth_family *f);
int qwen4_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void qwen4_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void qwen4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_gemma.c: gemma2, gemma3, gemma3n */
enum {
	V_GEMMA2 = 1 << 0 /* a window every other layer, no q/k norms */,
	V_GEMMA3N = 1 << 1,
	V_GEMMA1 = 1 << 2 /* no window, no post norms, no q/k norms */
};
void gemma_defaults(struct synth_spec *s, const struct synth_family *f);
int gemma3n_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void gemma_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void gemma3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void gemma3n_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_gemma4.c */
void gemma4_defaults(struct synth_spec *s, const struct synth_family *f);
int gemma4_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void gemma4_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void gemma4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* fam_g4a.c */
void g4a_defaults(struct synth_spec *s, const struct synth_family *f);
int g4a_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void g4a_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void g4a_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* fam_drafter.c: eagle3 and dflash (V_DFLASH), the drafters of a target's hidden states */
enum { V_DFLASH = 1 };
void drafter_defaults(struct synth_spec *s, const struct synth_family *f);
int drafter_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void drafter_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void drafter_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_oss.c: gpt-oss */
void oss_defaults(struct synth_spec *s, const struct synth_family *f);
int oss_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void oss_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void oss_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_ssm.c: mamba, mamba2, granitehybrid, falcon-h1, jamba, nemotron_h(_moe), plamo2 */
enum {
	V_MAMBA1 = 1 << 0,   /* mamba (v1) layers: no groups (mamba, jamba) */
	V_ALONE = 1 << 1,    /* the mixer alone: no attention, no FFN (mamba, mamba2) */
	V_SIDE = 1 << 2,     /* attention beside the mixer in every layer (falcon-h1) */
	V_EXPERTS = 1 << 3,  /* experts (jamba, nemotron_h_moe; fam_lfm2.c: lfm2moe) */
	V_NEMOTRON = 1 << 4, /* mixer, attention and FFN-only layers */
	V_PLAMO2 = 1 << 5,   /* PLaMo-2's mixer (no groups, normed dt, B, C) and fused attention, post norms */
};
void ssm_defaults(struct synth_spec *s, const struct synth_family *f);
int ssm_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void ssm_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
int ssm_layer(const struct synth_spec *s, uint32_t il);
int nemotron_layer(const struct synth_spec *s, uint32_t il);
void granitehybrid_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void plamo2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void falcon_h1_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void jamba_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void nemotron_h_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_lfm2.c: lfm2, lfm2moe */
void lfm2_defaults(struct synth_spec *s, const struct synth_family *f);
int lfm2_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void lfm2_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void lfm2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* moe.c: the rules and keys of the MoE families with shared experts
 * (deepseek2's kin, glm4moe, qwen35moe, qwen3next, kimi-linear); what
 * says which of their extra rules apply */
enum { MV_GATING = 1 << 0, MV_NO_GATE_UP = 1 << 1, MV_KIMI = 1 << 2, MV_DS32 = 1 << 3, MV_DS2 = 1 << 4 };
int moe_validate(const struct synth_spec *s, unsigned what, char **err);
/* expert_count, expert_used_count, expert_feed_forward_length, expert_shared_count */
void keys_moe_experts(struct gguf_writer *w, const struct synth_spec *s);
/* leading dense blocks, gating, weight norm and scale, nextn, groups */
void keys_moe_routing(struct gguf_writer *w, const struct synth_spec *s);

/* fam_mla.c: deepseek2, mistral4, deepseek32, kimi-linear, glm-dsa; glm4moe */
enum {
	V_DS32 = 1 << 0, /* the lightning indexer */
	V_KIMI = 1 << 1,
	V_IDX_TYPES = 1 << 2, /* attention.indexer.types: GLM-5.2's full and shared indexer layers (glm-dsa) */
};
int mla_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void mla_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
int glm4moe_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void glm4moe_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void ds2_defaults(struct synth_spec *s, const struct synth_family *f);
void ds2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void kimi_defaults(struct synth_spec *s, const struct synth_family *f);
void kimi_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* fam_bailing3.c: bailingmoe3 (kimi-linear's keys under the V_KIMI variant) */
void bailing3_defaults(struct synth_spec *s, const struct synth_family *f);
int bailing3_layer(const struct synth_spec *s, uint32_t il);
int bailing3_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void bailing3_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void bailing3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* a Kimi delta attention layer's depthwise convs, q, k, v, the decay gate's
 * f_a/f_b pair and beta (kimi-linear's and kimi-k3's alike) */
void kda_inputs(struct tw *t, const struct synth_spec *s, uint32_t il);
void glm4moe_defaults(struct synth_spec *s, const struct synth_family *f);
void glm4moe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_kimik3.c: kimi-k3 (over fam_mla.c's kimi-linear) */
void kimik3_defaults(struct synth_spec *s, const struct synth_family *f);
int kimik3_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void kimik3_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void kimik3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_moe.c: olmoe, ernie4_5-moe, deepseek, hunyuan-moe, minimax-m2, phimoe, llama4 */
enum {
	V_FF_EXP = 1 << 0,   /* ff_exp 256 by default, and required with V_EXP_REQ */
	V_LEAD = 1 << 1,     /* one dense leading layer by default */
	V_BIAS = 1 << 2,     /* the selection bias by default */
	V_EXP_REQ = 1 << 3,  /* experts >= experts_used > 0 required */
	V_OLMOE = 1 << 4,    /* q/k norms embd wide, softmax experts ff wide */
	V_ERNIE = 1 << 5,    /* interleave step, dense lead, shared experts ff_exp wide */
	V_DEEPSEEK = 1 << 6, /* dense lead and shared experts (v1) */
	V_HUNYUAN = 1 << 7,  /* routed experts ff wide, a shared one ff_exp */
	V_MINIMAX = 1 << 8,  /* sigmoid gating and a selection bias */
	V_PHIMOE = 1 << 9,   /* expert counts only */
	V_LLAMA4 = 1 << 10,  /* experts every interval-th layer, chunked window */
};
void moe_kin_defaults(struct synth_spec *s, const struct synth_family *f);
int moe_kin_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void moe_kin_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void olmoe_ernie_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void hunyuan_moe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void minimax_m2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void phimoe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void llama4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_dense.c: olmo2, exaone4, glm4, phi3, command-r, cohere2 */
enum {
	V_EXAONE4 = 1 << 0,    /* q/k norms per head */
	V_COHERE = 1 << 1,     /* layer norm epsilon, logit scale */
	V_CMDR = 1 << 2,       /* q/k norms per head from 64 layers (command-r) */
	V_SWA = 1 << 3,	       /* the window and its pattern, when swa > 0 */
	V_SWA_READ = 1 << 4,   /* the window alone, when swa > 0 (phi3) */
	V_SWA_NEEDED = 1 << 5, /* a window of 512 every 4th layer, required (cohere2) */
	V_PHI3_NAME = 1 << 6,  /* general.name without "phi3" */
};
void dense_defaults(struct synth_spec *s, const struct synth_family *f);
int dense_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void dense_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void olmo2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void glm4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void phi3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void cohere_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_rwkv.c: rwkv7, arwkv7, rwkv6, rwkv6qwen2 */
enum { V_RWKV6 = 1 << 0 /* rwkv6's time mix */, V_RWKV_RMS = 1 << 1 /* QRWKV: RMS norms, a llama FFN */ };
void rwkv_defaults(struct synth_spec *s, const struct synth_family *f);
int rwkv_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void rwkv_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void rwkv7_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void rwkv6_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_bert.c: bert, jina-bert-v3, nomic-bert(-moe), jina-bert-v2
 * (non-causal encoders, served for embeddings, over bert.cpp's graph);
 * neo-bert, modern-bert; t5encoder */
enum {
	V_ROPE = 1 << 0,   /* q and k roped: no position_embd */
	V_SILU = 1 << 1,   /* nomic: a SiLU-gated FFN, no biases */
	V_ALIBI = 1 << 2,  /* jina-bert-v2: ALiBi, no positions; a GELU-gated FFN */
	V_MODERN = 1 << 3, /* modern-bert over neo_bert_tensors */
	V_BMOE = 1 << 4,   /* nomic-bert-moe: experts where il % interval == 1 */
};
void bert_defaults(struct synth_spec *s, const struct synth_family *f);
int bert_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void bert_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void bert_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void neo_bert_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
void bert_moe_defaults(struct synth_spec *s, const struct synth_family *f);
int bert_moe_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void bert_moe_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
/* fam_bert.c: t5encoder (T5's encoder alone) */
void t5encoder_defaults(struct synth_spec *s, const struct synth_family *f);
int t5encoder_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void t5encoder_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void t5encoder_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* fam_bert.c: t5 (the encoder-decoder: t5encoder's tensors and dec.blk.N.*) */
void t5_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_classic.c: starcoder2, phi2, stablelm, olmo, qwen, gpt2, gptneox,
 * falcon, mpt, bloom, starcoder, refact, codeshell, jais, jais2, nemotron,
 * plamo, chameleon, bitnet, chatglm, plamo3, talkie, nanbeige, deci, openelm,
 * cogvlm, pangu-embedded */
enum {
	VC_RMS = 1 << 0,	 /* RMS norms (else layer norms and attention.layer_norm_epsilon) */
	VC_NORM_B = 1 << 1,	 /* the layer norms' biases */
	VC_FUSED = 1 << 2,	 /* q, k and v in one attn_qkv */
	VC_QKV_B = 1 << 3,	 /* q, k and v biases (attn_qkv.bias when fused) */
	VC_WO_B = 1 << 4,	 /* attn_output.bias */
	VC_GELU = 1 << 5,	 /* an FFN of up and down, no gate (else gate, up, down) */
	VC_FFN_B = 1 << 6,	 /* the FFN's biases */
	VC_POS = 1 << 7,	 /* learned position embeddings (position_embd) */
	VC_NO_FFN_NORM = 1 << 8, /* the FFN reads the attention's norm (a parallel block) */
	VC_OUT_B = 1 << 9,	 /* output.bias */
	VC_TOK_NORM = 1 << 10,	 /* token_embd_norm with its bias (bloom) */
	VC_NO_NORM = 1 << 11,	 /* layer norms without weights (olmo) */
	VC_HALF_FF = 1 << 12,	 /* the FFN's matrices ff/2 wide (qwen) */
	VC_MHA = 1 << 13,	 /* kv_heads = heads (qwen's fused qkv is 3 x embd) */
	VC_PAR_RES = 1 << 14,	 /* use_parallel_residual (gptneox) */
	VC_PARTIAL = 1 << 15,	 /* rope_dims a quarter of head_dim by default */
	VC_ALIBI = 1 << 16,	 /* attention.max_alibi_bias (mpt, jais) */
	VC_QK_NORM2 = 1 << 17,	 /* per-head q/k norms {head_dim, heads}, vocab >= 8196 (chameleon) */
	VC_SUBNORM = 1 << 18,	 /* attn_sub_norm and ffn_sub_norm (bitnet) */
	VC_SWIGLU1 = 1 << 19,	 /* ffn_up 2 x ff wide (SwiGLU of its halves), no gate */
	VC_QK_NORM1 = 1 << 20,	 /* per-head q/k norms {head_dim} (plamo3, openelm) */
	VC_POST = 1 << 21,	 /* post_attention_norm and post_ffw_norm (plamo3) */
	VC_TALKIE = 1 << 22,	 /* q's norm {1, heads}, layer_output_scale, logit_scale */
	VC_VISEXP = 1 << 23,	 /* the image tokens' own qkv, output and FFN (cogvlm) */
};
void classic_defaults(struct synth_spec *s, const struct synth_family *f);
int classic_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void classic_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void classic_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
int deci_layer(const struct synth_spec *s, uint32_t il);
/* fam_moe2.c: dbrx, arctic, grok, dots1, bailingmoe, bailingmoe2, smallthinker,
 * deepseek2-ocr, exaone-moe, granite_swa, grovemoe, hy_v3, cohere2moe, laguna,
 * mimo2, step35, muse-glimmer, afmoe */
enum {
	V2_DBRX = 1 << 0,     /* layer norms, fused qkv clamped, experts ff wide */
	V2_ARCTIC = 1 << 1,   /* a dense FFN embd wide beside experts ff wide */
	V2_GROK = 1 << 2,     /* GELU experts, grok-2's dense FFN (shared=1), output norms */
	V2_SHARED = 1 << 3,   /* routed experts ff_exp wide beside shared ones */
	V2_GATED = 1 << 4,    /* a dense lead, gating and a selection bias */
	V2_QK_NORM = 1 << 5,  /* q and k normed per head */
	V2_KV_H = 1 << 6,     /* K and V heads wide (dots1) */
	V2_FUSED = 1 << 7,    /* one fused qkv projection (bailingmoe2) */
	V2_THINKER = 1 << 8,  /* experts ff_exp wide routed from the layer's input (smallthinker) */
	V2_GATE_UP = 1 << 9,  /* gate_up=1 allowed: one fused expert stack (deepseek2-ocr) */
	V2_SWA = 1 << 10,     /* a window every swa_pattern-th layer but the last, RoPE there only (exaone-moe) */
	V2_GRANITE = 1 << 11, /* granite_swa: a window per layer, sinks, scales, experts optional */
	V2_GROVE = 1 << 12,   /* grovemoe: chunk experts over the routed experts' output */
	V2_SH1 = 1 << 13,     /* one shared expert ff_exp wide whatever the count (hy_v3) */
	V2_COHERE = 1 << 14,  /* cohere2moe: a parallel block, a window per layer, logit scale */
	V2_AGATE = 1 << 15,   /* an attention gate one per head (laguna) */
	V2_MIMO = 1 << 16,    /* mimo2: sinks, a window per layer, sigmoid experts, no shared one */
	V2_STEP = 1 << 17,    /* step35: mimo2's layer gated per head, a shared expert */
	V2_MUSE = 1 << 18,    /* muse-glimmer: dense, gated per element, post norms */
	V2_AFMOE = 1 << 19,   /* afmoe: exaone-moe's layer gated per element, post norms */
};
void moe2_defaults(struct synth_spec *s, const struct synth_family *f);
int moe2_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void moe2_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void moe2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* fam_moe2.c: a window of swa and its per-layer pattern (the last of each
 * swa_pattern layers full), both written (fam_dots3.c writes it too) */
void window_per_layer(struct gguf_writer *w, const struct synth_spec *s);
/* write.c: attention.head_count per layer, heads_swa on window_per_layer's
 * window layers and the MTP blocks, heads on the others */
void keys_heads_swa(struct gguf_writer *w, const struct synth_spec *s);

/* fam_plm.c: plm, minicpm3 */
enum { V_MINICPM3 = 1 << 0 /* q through its latent, a gated FFN */ };
void plm_defaults(struct synth_spec *s, const struct synth_family *f);
int plm_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void plm_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void plm_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_ds4.c: deepseek4 */
uint32_t ds4_ratio(const struct synth_spec *s, uint32_t il);
void ds4_defaults(struct synth_spec *s, const struct synth_family *f);
int ds4_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void ds4_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void ds4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* fam_dots3.c: dots3note */
void dots3_defaults(struct synth_spec *s, const struct synth_family *f);
int dots3_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void dots3_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void dots3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);
/* fam_minimax.c: minimax-01, minimax-m3 */
enum { V_MM3 = 1 << 0 /* minimax-m3: MSA's indexer, a dense lead, shared experts */ };
void minimax_defaults(struct synth_spec *s, const struct synth_family *f);
int minimax_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void minimax_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void minimax_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

/* fam_wavtok.c: wavtokenizer-dec (a vocoder: conv stem, posnet, convnext) */
void wavtok_defaults(struct synth_spec *s, const struct synth_family *f);
int wavtok_validate(const struct synth_spec *s, const struct synth_family *f, char **err);
void wavtok_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f);
void wavtok_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f);

#endif
