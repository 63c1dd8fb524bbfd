#include "synth.h"

#include <endian.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/util.h"
#include "ggml_type.h"
#include "gguf_write.h"
#include "split.h"

/* Custom type ids (e.g. PrismML's PQ2_0 = 142) are written at the ternary
 * rate the seeds measured: 2.125 bits per weight, 34 bytes per 128. */
#define CUSTOM_BLCK 128
#define CUSTOM_SIZE 34

/* clang-format off */
static const char *const archs[] = {
    "llama", "qwen35", "gemma3", "qwen3moe",
    "lfm2moe", "nemotron_h_moe",
    "granitehybrid", "qwen2", "qwen3", "phi3", "lfm2", "mistral3", "mamba2", "falcon-h1", "nemotron_h", "jamba", "mamba",
    "gpt-oss", "gemma4", "seed_oss", "smollm3", "olmo2", "granite", "granitemoe", "qwen2moe", "olmoe", "ernie4_5-moe", "hunyuan-moe", "exaone", "ernie4_5", "deepseek", "exaone4", "glm4", "phimoe", "qwen3vl", "qwen3vlmoe", "hunyuan-dense", "xverse", "baichuan", "minicpm", "qwen2vl", "maincoder", "internlm2", "arcee", "apertus", "mellum", "orion", "gemma2", "gemma3n", "rwkv7", "rwkv6", "arwkv7", "rwkv6qwen2",
    "command-r", "cohere2", "minimax-m2", "llama4",
};
/* clang-format on */
static const char *const archs_moe[] = {"deepseek2",   "glm4moe",  "qwen35moe", "qwen3next",
					"kimi-linear", "mistral4", "deepseek32"}; /* synth_moe_defaults */
static void synth_moe_defaults(struct synth_spec *s);
static int validate_moe(const struct synth_spec *s, char **err);
static int is_ds2(const struct synth_spec *s);
/* deepseek32's lightning indexer as synth writes it: a key head of 64 (the
 * rotary part first), n_head query heads, the top 256 cells attended */
#define DS32_IDX_DIM   64
#define DS32_IDX_TOP_K 256

static void synth_defaults_oss(struct synth_spec *s);

/* 0 when synth writes arch; else -1 with *err naming the nearest, or all. */
static int known_arch(const char *arch, char **err)
{
	struct near nr = near_start(arch, 2);
	struct sb all = {0};
	for (size_t j = 0; j < ARRAY_SIZE(archs) + ARRAY_SIZE(archs_moe); j++) {
		const char *a = j < ARRAY_SIZE(archs) ? archs[j] : archs_moe[j - ARRAY_SIZE(archs)];
		if (strcmp(arch, a) == 0) {
			sb_release(&all);
			return 0;
		}
		sb_addf(&all, "%s%s", j ? ", " : "", a);
		near_try(&nr, a);
	}
	if (nr.best)
		errorf(err, "unknown architecture '%s' (did you mean %s?)", arch, nr.best);
	else
		errorf(err, "unknown architecture '%s' (synth knows %s)", arch, all.s);
	sb_release(&all);
	return -1;
}

/* The attention families' own defaults: hybrids with DeltaNet, windows, rwkv. */
static void defaults_attention(struct synth_spec *s, const char *arch)
{
	if (strncmp(arch, "qwen35", 6) == 0 || strcmp(arch, "qwen3next") == 0) { /* and qwen35moe */
		s->n_layer = 8;
		s->n_nextn = strcmp(arch, "qwen3next") != 0; /* qwen3next: no MTP head */
		s->mtp_tensors = s->n_nextn;
		s->head_dim = 128;
		s->rope_dims = 64;
		s->interval = 4;
		s->ssm_conv = 4;
		s->ssm_state = 32;
		s->ssm_groups = 2;
		s->ssm_dt_rank = 4;
	} else if (strcmp(arch, "gemma3") == 0) {
		s->n_layer = 6;
		s->n_swa = 512;
		s->swa_pattern = 6;
	} else if (strcmp(arch, "gemma3n") == 0) {
		/* past the engine's fixed 20 layers with a cache, one window
		 * and one full layer reading an earlier layer's KV */
		s->n_layer = 25;
		s->n_swa = 512;
		s->swa_pattern = 5;
	} else if (strstr(arch, "rwkv")) {
		s->n_layer = 6; /* head_dim: wkv.head_size */
	} else if (strcmp(arch, "gemma2") == 0) {
		s->n_layer = 6;
		s->n_swa = 512;
		s->swa_pattern = 2;
	} else if (strcmp(arch, "cohere2") == 0) {
		s->n_swa = 512; /* the engine requires the window; the period defaults to 4 */
		s->swa_pattern = 4;
	} else if (strcmp(arch, "llama4") == 0) {
		/* experts every 2nd layer beside a shared one, ff_exp wide; the
		 * window key written (the engine chunks by 8192 unless it is 0) */
		s->n_expert = 8;
		s->n_expert_used = 1;
		s->n_ff_exp = 256;
		s->interval = 2;
		s->n_swa = 8192;
		s->swa_pattern = 4;
	} else if (strcmp(arch, "minimax-m2") == 0) {
		s->n_expert = 8; /* experts ff wide, sigmoid-gated with a selection bias */
		s->n_expert_used = 2;
		s->gating = 2;
	} else if (strcmp(arch, "phi3") == 0) {
		/* a general.name with "phi3" in it makes the engine's vocab
		 * look for Phi-3's "</s>" token, which the byte tokenizer lacks */
		snprintf(s->name, sizeof(s->name), "zealot-synth-phi");
	}
}

/* The recurrent families' defaults: short conv, mamba (v1, v2) and their hybrids. */
static void defaults_recurrent(struct synth_spec *s, const char *arch)
{
	if (strncmp(arch, "lfm2", 4) == 0) { /* and lfm2moe */
		/* short-conv layers with an attention layer every `interval` */
		s->interval = 4;
		s->ssm_conv = 3;		    /* shortconv.l_cache */
		if (strcmp(arch, "lfm2moe") == 0) { /* LFM2-8B-A1B's rules: sigmoid, biased, a dense lead */
			s->n_expert = 8;
			s->n_expert_used = 2;
			s->n_ff_exp = 256;
			s->n_lead_dense = 1;
			s->gating = 2;
			s->probs_b = 1;
		}
	} else if (strncmp(arch, "nemotron_h", 10) == 0) { /* and nemotron_h_moe */
		/* attention every `interval`; between them mamba2 and FFN-only
		 * layers alternate */
		s->interval = 4;
		s->ssm_conv = 4;
		s->ssm_state = 64;
		s->ssm_groups = 1;
		s->ssm_dt_rank = 8;
		if (strcmp(arch, "nemotron_h_moe") == 0) { /* the FFN layers are MoE; ff: the shared expert */
			s->n_expert = 8;
			s->n_expert_used = 2;
			s->n_ff_exp = 256;
			s->w_norm = 1;
			s->w_scale10 = 25;
		}
	} else if (strcmp(arch, "falcon-h1") == 0) {
		s->interval = 1; /* attention and SSM side by side in every layer */
		s->ssm_conv = 4;
		s->ssm_state = 64;
		s->ssm_groups = 1;
		s->ssm_dt_rank = 8;
	} else if (strcmp(arch, "mamba") == 0) {
		/* Mamba (v1): its mixer alone in every layer, jamba's mamba layers */
		s->interval = 1000000; /* no attention layer */
		s->ssm_conv = 4;
		s->ssm_state = 16;
		s->ssm_dt_rank = 16;
	} else if (strcmp(arch, "jamba") == 0) {
		/* mamba (v1) layers, attention every `interval`, routed experts
		 * (softmax, ff wide) on every other layer */
		s->interval = 4;
		s->ssm_conv = 4;
		s->ssm_state = 16;
		s->ssm_dt_rank = 16;
		s->n_expert = 4;
		s->n_expert_used = 2;
	} else if (strcmp(arch, "mamba2") == 0) {
		s->interval = 1000000; /* no attention layer */
		s->ssm_conv = 4;
		s->ssm_state = 64;
		s->ssm_groups = 1;
		s->ssm_dt_rank = 8;
	} else if (strcmp(arch, "granitehybrid") == 0) {
		/* mamba2 layers with an attention layer every `interval` */
		s->interval = 4;
		s->ssm_conv = 4;
		s->ssm_state = 64;
		s->ssm_groups = 1;
		s->ssm_dt_rank = 8;
	}
}

/* The MoE families' defaults: experts, their width, shared and dense layers. */
static void defaults_experts(struct synth_spec *s, const char *arch)
{
	if (strcmp(arch, "qwen2moe") == 0) {
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_ff_exp = 256;
	} else if (strcmp(arch, "olmoe") == 0) {
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_head_kv = s->n_head; /* k's norm is n_embd wide */
	} else if (strcmp(arch, "ernie4_5-moe") == 0) {
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_ff_exp = 256;
		s->n_lead_dense = 1;
		s->probs_b = 1;
	} else if (strcmp(arch, "hunyuan-moe") == 0) {
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_ff_exp = 256; /* the shared expert's width; the routed ones are ff wide */
	} else if (strcmp(arch, "deepseek") == 0) {
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_ff_exp = 256;
		s->n_lead_dense = 1;
		s->n_shared = 2;
	} else if (strcmp(arch, "phimoe") == 0) {
		s->n_expert = 8;
		s->n_expert_used = 2;
	} else if (strcmp(arch, "granitemoe") == 0) {
		s->n_expert = 8;
		s->n_expert_used = 2;
	} else if (strcmp(arch, "qwen3moe") == 0 || strcmp(arch, "qwen3vlmoe") == 0 || strcmp(arch, "mellum") == 0) {
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_ff_exp = 256;
	} else if (strcmp(arch, "gpt-oss") == 0 || strcmp(arch, "gemma4") == 0) {
		synth_defaults_oss(s);
	}
}

int synth_defaults(struct synth_spec *s, const char *arch, char **err)
{
	memset(s, 0, sizeof(*s));
	if (known_arch(arch, err))
		return -1;
	snprintf(s->arch, sizeof(s->arch), "%s", arch);
	snprintf(s->name, sizeof(s->name), "zealot-synth-%s", arch);
	s->n_embd = 256;
	s->n_ff = 512;
	s->n_head = 4;
	s->n_head_kv = 2;
	s->head_dim = 64;
	s->n_ctx = 32768;
	s->n_vocab = 512;
	s->wtype = 1; /* f16 */
	s->n_layer = 4;
	s->efforts = 1;
	defaults_attention(s, arch);
	defaults_recurrent(s, arch);
	defaults_experts(s, arch);
	synth_moe_defaults(s);
	if (!s->rope_dims)
		s->rope_dims = s->head_dim;
	return 0;
}

static const char *const preset_help =
    "  bonsai-9b    qwen35, 32 trunk layers + 1 MTP block, 8 full-attention, 4 KV heads x 256,\n"
    "               ssm 4/128/16/32 (inner 4096), embd 4096, vocab 248,320, context 262,144\n"
    "  bonsai-27b   qwen35, 64 layers (16 full-attention), 4 KV heads x 256, embd 5120,\n"
    "               ssm inner 6144 (dt rank 48), vocab 248,320, context 262,144, no MTP\n"
    "  swift-27b    bonsai-27b geometry with 1 MTP block (65 blocks)\n"
    "  ghost-mtp    bonsai-9b declaring 1 MTP block with no nextn tensors (law S06)\n";

const char *synth_help_presets(void)
{
	return preset_help;
}

int synth_preset(struct synth_spec *s, const char *preset, char **err)
{
	int b9 = strcmp(preset, "bonsai-9b") == 0 || strcmp(preset, "ghost-mtp") == 0;
	int b27 = strcmp(preset, "bonsai-27b") == 0 || strcmp(preset, "swift-27b") == 0;
	if (!b9 && !b27)
		return errorf(err, "unknown preset '%s' (bonsai-9b, bonsai-27b, swift-27b, ghost-mtp)", preset);
	if (synth_defaults(s, "qwen35", err))
		return -1;
	s->head_dim = 256;
	s->rope_dims = 64;
	s->n_head_kv = 4;
	s->n_ctx = 262144;
	s->n_vocab = 248320;
	s->ssm_conv = 4;
	s->ssm_state = 128;
	s->ssm_groups = 16;
	s->interval = 4;
	if (b9) {
		s->n_layer = 32;
		s->n_nextn = 1;
		s->mtp_tensors = strcmp(preset, "ghost-mtp") != 0;
		s->n_embd = 4096;
		s->n_ff = 12288;
		s->n_head = 16;
		s->ssm_dt_rank = 32;
	} else {
		s->n_layer = 64;
		s->n_nextn = strcmp(preset, "swift-27b") == 0;
		s->mtp_tensors = s->n_nextn;
		s->n_embd = 5120;
		s->n_ff = 17408;
		s->n_head = 24;
		s->ssm_dt_rank = 48;
	}
	snprintf(s->name, sizeof(s->name), "zealot-synth-%s", preset);
	return 0;
}

struct key {
	const char *name;
	size_t off;
	int wide;
	const char *help;
};

static const struct key keys[] = {
    {"layers", offsetof(struct synth_spec, n_layer), 0, "trunk layers (block_count minus MTP blocks)"},
    {"nextn", offsetof(struct synth_spec, n_nextn), 0, "declared MTP blocks (nextn_predict_layers)"},
    {"embd", offsetof(struct synth_spec, n_embd), 0, "embedding width"},
    {"ff", offsetof(struct synth_spec, n_ff), 0, "feed-forward width"},
    {"heads", offsetof(struct synth_spec, n_head), 0, "attention heads"},
    {"kv_heads", offsetof(struct synth_spec, n_head_kv), 0, "KV heads"},
    {"head_dim", offsetof(struct synth_spec, head_dim), 0, "key/value head size"},
    {"ctx", offsetof(struct synth_spec, n_ctx), 1, "trained context (context_length)"},
    {"vocab", offsetof(struct synth_spec, n_vocab), 0, "vocabulary size (>= 300)"},
    {"embd_rows", offsetof(struct synth_spec, embd_rows), 0,
     "token_embd rows (0: vocab; another makes a file the engine's loader refuses, law S17)"},
    {"heads_meta", offsetof(struct synth_spec, heads_meta), 0,
     "head_count the header states (0: heads; another: a file the loader refuses, S17)"},
    {"kv_heads_meta", offsetof(struct synth_spec, kv_heads_meta), 0,
     "head_count_kv the header states (0: kv_heads; another: refused, S17)"},
    {"head_dim_meta", offsetof(struct synth_spec, head_dim_meta), 0,
     "key_length the header states (0: head_dim; another: refused, S17)"},
    {"head_dim_v_meta", offsetof(struct synth_spec, head_dim_v_meta), 0,
     "value_length the header states (0: head_dim; another: refused, S17)"},
    {"out_rows", offsetof(struct synth_spec, out_rows), 0,
     "llama's kin: attn_output rows (0: heads x head_dim; another: refused, S17)"},
    {"rope_dims", offsetof(struct synth_spec, rope_dims), 0, "rotary dimensions"},
    {"interval", offsetof(struct synth_spec, interval), 0, "qwen35, granitehybrid, lfm2: full-attention layer every N"},
    {"ssm_conv", offsetof(struct synth_spec, ssm_conv), 0,
     "qwen35, granitehybrid: conv kernel; lfm2: short conv l_cache"},
    {"ssm_state", offsetof(struct synth_spec, ssm_state), 0, "qwen35, granitehybrid: state size"},
    {"ssm_groups", offsetof(struct synth_spec, ssm_groups), 0, "qwen35, granitehybrid: group count"},
    {"ssm_dt_rank", offsetof(struct synth_spec, ssm_dt_rank), 0, "qwen35: value heads; granitehybrid: SSM heads"},
    {"swa", offsetof(struct synth_spec, n_swa), 0, "gemma3, phi3: sliding window (0 = none)"},
    {"swa_pattern", offsetof(struct synth_spec, swa_pattern), 0, "gemma3: every Nth layer is global"},
    {"experts", offsetof(struct synth_spec, n_expert), 0, "qwen3moe: experts per layer"},
    {"experts_used", offsetof(struct synth_spec, n_expert_used), 0, "qwen3moe: experts each token uses"},
    {"ff_exp", offsetof(struct synth_spec, n_ff_exp), 0, "qwen3moe: an expert's feed-forward width"},
    {"kv_lora", offsetof(struct synth_spec, kv_lora), 0,
     "deepseek2: kv_lora_rank (the MLA cache row is kv_lora + rope_dims)"},
    {"q_lora", offsetof(struct synth_spec, q_lora), 0, "deepseek2: q_lora_rank (0: one attn_q matrix)"},
    {"idx_heads", offsetof(struct synth_spec, idx_heads), 0, "deepseek32: the lightning indexer's heads (0: heads)"},
    {"idx_top_k", offsetof(struct synth_spec, idx_top_k), 0, "deepseek32: cells the indexer keeps a token (0: 256)"},
    {"head_dim_v", offsetof(struct synth_spec, head_dim_v), 0, "deepseek2: value head size (value_length_mla)"},
    {"lead_dense", offsetof(struct synth_spec, n_lead_dense), 0, "deepseek2, glm4moe: leading dense layers"},
    {"shared", offsetof(struct synth_spec, n_shared), 0, "deepseek2, glm4moe, qwen35moe: shared experts"},
    {"gating", offsetof(struct synth_spec, gating), 0,
     "deepseek2, glm4moe: gating 1 softmax, 2 sigmoid, 3 softmax-weight, 4 sqrt-softplus"},
    {"probs_b", offsetof(struct synth_spec, probs_b), 2, "deepseek2, glm4moe: 1 writes exp_probs_b (selection bias)"},
    {"w_norm", offsetof(struct synth_spec, w_norm), 2, "deepseek2, glm4moe: expert_weights_norm"},
    {"w_scale", offsetof(struct synth_spec, w_scale10), 0, "deepseek2, glm4moe: expert_weights_scale in tenths"},
    {"groups", offsetof(struct synth_spec, n_groups), 0, "deepseek2: expert_group_count (0: none)"},
    {"groups_used", offsetof(struct synth_spec, n_groups_used), 0, "deepseek2: expert_group_used_count"},
    {"qk_norm", offsetof(struct synth_spec, qk_norm), 0, "glm4moe: 1 writes attn_q_norm/attn_k_norm"},
    {"qkv_bias", offsetof(struct synth_spec, qkv_bias), 0, "glm4moe: 1 writes q/k/v biases"},
    {"mha", offsetof(struct synth_spec, mha), 0,
     "deepseek2: 1 writes the pre-MLA layout (attn_kv_b; K and V cached per head)"},
    {"temp_scale", offsetof(struct synth_spec, temp_scale10), 0,
     "deepseek2: attention.temperature_scale in tenths (mistral-large)"},
    {"gate_up", offsetof(struct synth_spec, gate_up), 0, "deepseek2, qwen35moe: 1 fuses gate and up experts"},
    {"latent", offsetof(struct synth_spec, moe_latent), 0,
     "nemotron_h_moe: moe_latent_size, experts over ffn_latent_down/up (0: none)"},
    {"mtp_tensors", offsetof(struct synth_spec, mtp_tensors), 2, "1: write blk.N.nextn.* tensors, 0: declare only"},
    {"efforts", offsetof(struct synth_spec, efforts), 2, "1: template accepts only reasoning_effort xhigh|medium|low"},
    {"split", offsetof(struct synth_spec, n_split), 0, "N > 1: N shards, -o X.gguf -> X-00001-of-0000N.gguf ..."},
    {"bytes", offsetof(struct synth_spec, target_bytes), 1,
     "N: the file's size in bytes (a real payload's), by sizing the custom-type (type=142) matrices but token_embd"},
    {"head_dim_swa", offsetof(struct synth_spec, head_dim_swa), 0, "gemma4: sliding-window head size (key_length_swa)"},
    {"kv_heads_swa", offsetof(struct synth_spec, kv_heads_swa), 0, "gemma4: sliding-window KV heads"},
    {"shared_kv", offsetof(struct synth_spec, shared_kv), 0, "gemma4: last N layers reuse earlier layers' KV"},
    {"kv_eq", offsetof(struct synth_spec, kv_eq), 2, "gemma4: 1: full layers have no attn_v (K equals V)"},
    {"per_layer", offsetof(struct synth_spec, per_layer), 0, "gemma4: per-layer embedding width (E2B/E4B), 0 = none"},
    {"temp_scale", offsetof(struct synth_spec, temp_scale), 2, "mistral3: 1: attention temperature scaling (0.1)"},
};

static struct sb help_keys;

const char *synth_help_keys(void)
{
	if (!help_keys.len) {
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			sb_addf(&help_keys, "  %-12s %s\n", keys[i].name, keys[i].help);
		sb_addf(&help_keys, "  %-12s %s\n", "type",
			"weight type: f32, f16, bf16, q8_0, q4_0 ... or a custom id (142)");
		sb_addf(&help_keys, "  %-12s %s\n", "name", "general.name");
		sb_addf(&help_keys, "  %-12s %s\n", "exp_type", "gpt-oss: the expert stacks' type (mxfp4 as shipped)");
	}
	return help_keys.s;
}

int synth_set(struct synth_spec *s, const char *kv, char **err)
{
	const char *eq = strchr(kv, '=');
	if (!eq)
		return errorf(err, "--set '%s': expected key=value", kv);
	size_t kn = (size_t)(eq - kv);
	const char *v = eq + 1;
	if (kn == 4 && memcmp(kv, "name", 4) == 0) {
		if (strlen(v) >= sizeof(s->name))
			return errorf(err, "--set name: longer than %zu bytes", sizeof(s->name) - 1);
		snprintf(s->name, sizeof(s->name), "%s", v);
		return 0;
	}
	if ((kn == 6 && memcmp(kv, "answer", 6) == 0) || (kn == 3 && memcmp(kv, "alt", 3) == 0) ||
	    (kn == 12 && memcmp(kv, "image_answer", 12) == 0)) {
		char *dst = kn == 6 ? s->answer : kn == 3 ? s->alt : s->image_answer;
		if (!*v || strlen(v) >= sizeof(s->answer))
			return errorf(err, "--set %.*s: the text must be 1 to %zu bytes", (int)kn, kv,
				      sizeof(s->answer) - 1);
		snprintf(dst, sizeof(s->answer), "%s", v);
		return 0;
	}
	if (kn == 8 && memcmp(kv, "exp_type", 8) == 0) {
		const struct ggml_type_info *t = ggml_type_by_name(v);
		if (!t)
			return errorf(err, "--set exp_type=%s: not a ggml type name", v);
		s->exp_type = t->id;
		s->exp_typed = 1;
		return 0;
	}
	if (kn == 4 && memcmp(kv, "type", 4) == 0) {
		const struct ggml_type_info *t = ggml_type_by_name(v);
		uint64_t id;
		if (t) {
			s->wtype = t->id;
		} else if (parse_u64(v, &id) == 0 && id < 65536) {
			s->wtype = (uint32_t)id;
		} else {
			return errorf(err, "--set type=%s: not a ggml type name or id", v);
		}
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		if (strlen(keys[i].name) != kn || memcmp(keys[i].name, kv, kn) != 0)
			continue;
		uint64_t n;
		if (parse_u64(v, &n))
			return errorf(err, "--set %s=%s: not a whole number", keys[i].name, v);
		char *p = (char *)s + keys[i].off;
		if (keys[i].wide == 1) {
			*(uint64_t *)(void *)p = n;
		} else if (keys[i].wide == 2) {
			if (n > 1)
				return errorf(err, "--set %s=%s: expected 0 or 1", keys[i].name, v);
			*(int *)(void *)p = (int)n;
		} else {
			if (n > UINT32_MAX)
				return errorf(err, "--set %s=%s: out of range", keys[i].name, v);
			*(uint32_t *)(void *)p = (uint32_t)n;
		}
		return 0;
	}
	/* the nearest key, else every key once (a name may have two rows) */
	char want[64];
	snprintf(want, sizeof(want), "%.*s", (int)(kn < 63 ? kn : 63), kv);
	struct near nr = near_start(want, 2);
	struct sb names = {0};
	for (size_t i = 0; i <= ARRAY_SIZE(keys) + 1; i++) {
		const char *k = i < ARRAY_SIZE(keys) ? keys[i].name : i == ARRAY_SIZE(keys) ? "type" : "name";
		int dup = 0;
		for (size_t j = 0; j < i && j < ARRAY_SIZE(keys); j++)
			dup |= strcmp(keys[j].name, k) == 0;
		if (dup)
			continue;
		sb_addf(&names, "%s%s", i ? ", " : "", k);
		near_try(&nr, k);
	}
	if (nr.best)
		errorf(err, "--set: unknown key '%s' (did you mean %s?)", want, nr.best);
	else
		errorf(err, "--set: unknown key '%s' (known: %s)", want, names.s);
	sb_release(&names);
	return -1;
}

static int validate_oss(const struct synth_spec *s, char **err);
struct gguf_writer;
struct tw;
static void keys_oss(struct gguf_writer *w, const struct synth_spec *s);
static int tensors_oss(struct tw *t, const struct synth_spec *s);

/* --- answer=TEXT: a payload that answers ----------------------------------
 *
 * Every block's weights are zero, so every block adds nothing to the
 * residual stream: the last hidden state is the current token's embedding,
 * and the output matrix maps it to the next token. The payload is then a
 * table "this token is followed by that one", which greedy decoding (and
 * sampling: the margin is ~64 logits) follows exactly:
 *
 *   "\n" (the generation prompt's last token) -> "</think>" -> ANSWER -> <|im_end|>
 *
 * ANSWER is one vocabulary entry whose text is the whole answer, so any
 * text works. Each of the four tokens that carry a step has an embedding
 * of its own (a one-hot row, state 0..3); output_norm is ones; the rest of
 * token_embd and output stays zero. alt=TEXT2 is a fifth entry that only
 * an adapter on output.weight reaches (synth_lora_answer). */
#define TOK_EOT	      256 /* <|endoftext|> */
#define TOK_IM_END    258 /* <|im_end|>: the end of a turn */
#define ANS_NL	      10  /* the byte token "\n" */
#define ANS_THINK_END 260 /* "</think>" */
#define ANS_TOKEN     266 /* the first entry after the specials */
#define ANS_ALT	      267
#define ANS_IMG	      268 /* image_answer's entry */
#define ANS_WEIGHT    4.0f

/* --- image_answer=TEXT: an answer a red image turns ----------------------
 *
 * The blocks of a payload that answers are zero, so nothing an image adds
 * to the sequence reaches the last token. image_answer opens one path:
 *
 * - the projector (`synth clip --set red=1`): its patch embedding reads
 *   how red each patch is ((R - G) / 2 of the normalised pixels: 1 for red,
 *   0 for white, grey or black, -1 for green) into dimension 0, mm.0 passes
 *   it to hidden 0, GELU, and mm.2 writes it to dimension IMG_FLAG of the
 *   text model's embedding, beside a constant 1 in IMG_ONE (so the text
 *   model's RMS norm keeps the sign and the size: red 0.64, green -0.16 of
 *   the norm's scale);
 * - the text model's block 0: attn_norm reads IMG_FLAG only, attn_q and
 *   attn_k stay zero (every position attends to every earlier one alike),
 *   attn_v copies IMG_FLAG (x IMG_V) into head 0, attn_output writes it
 *   back to IMG_FLAG. The last token's state gains f x e_IMG_FLAG, f the
 *   image tokens' share of the context times ~1.3 for red;
 * - output: image_answer's row reads state 1 ("</think>") at
 *   ANS_WEIGHT - IMG_MARGIN and IMG_FLAG at IMG_B, so it beats the answer
 *   once f > IMG_MARGIN / IMG_B (a red image a fifth of the context or
 *   more) and loses by IMG_MARGIN x 16 logits without an image; the rows of
 *   "</think>" and <|im_end|> read IMG_FLAG alike, so the other steps keep
 *   their successor whatever f is. image_answer is state 4, followed by
 *   <|im_end|>. */
#define IMG_STATE  4
#define IMG_FLAG   5
#define IMG_ONE	   6
#define IMG_V	   0.125f
#define IMG_B	   4.0f
#define IMG_MARGIN 1.0f

static int answer_mode(const struct synth_spec *s)
{
	return s->answer[0] != '\0';
}

/* Command R and Cohere 2 (src/models/command-r.cpp, cohere2.cpp): layer
 * norms, the output tied to token_embd, logits scaled */
static int is_cohere(const struct synth_spec *s)
{
	return strcmp(s->arch, "command-r") == 0 || strcmp(s->arch, "cohere2") == 0;
}

static int validate_answer(const struct synth_spec *s, char **err)
{
	if (!answer_mode(s))
		return s->alt[0] || s->image_answer[0] ? errorf(err, "--set %s needs --set answer (the base answer)",
								s->alt[0] ? "alt" : "image_answer")
						       : 0;
	/* a plain final norm and an output matrix of its own: gemma's tie the
	 * output to the embedding and scale it, lfm2's norm is another */
	if (!strcmp(s->arch, "gemma3") || !strcmp(s->arch, "gemma4") || !strncmp(s->arch, "lfm2", 4) ||
	    !strcmp(s->arch, "gemma2") || !strcmp(s->arch, "gemma3n") || is_cohere(s))
		return errorf(err, "--set answer: %s ties or scales its output; use llama, qwen35, qwen3 or mistral3",
			      s->arch);
	if (s->n_embd < 4)
		return errorf(err, "--set answer needs embd >= 4 (one dimension per step of the answer)");
	if (s->alt[0] && strcmp(s->answer, s->alt) == 0)
		return errorf(err, "--set alt must differ from answer");
	if (s->image_answer[0]) {
		if (strcmp(s->arch, "llama") != 0)
			return errorf(err, "--set image_answer is written for llama only");
		if (s->wtype != 1)
			return errorf(err, "--set image_answer writes f16 weights: leave type at f16");
		if (s->n_embd < 8)
			return errorf(err, "--set image_answer needs embd >= 8");
		if (!strcmp(s->image_answer, s->answer) || (s->alt[0] && !strcmp(s->image_answer, s->alt)))
			return errorf(err, "--set image_answer must differ from answer and alt");
	}
	return 0;
}

/* f32 to IEEE half, for the few exact values written here (0, 1, 4). */
static uint16_t f16_bits(float f)
{
	uint32_t x;
	memcpy(&x, &f, sizeof(x));
	uint32_t sign = (x >> 16) & 0x8000, exp = (x >> 23) & 0xff, man = x & 0x7fffff;
	if (exp == 0)
		return (uint16_t)sign;
	return (uint16_t)(sign | ((exp - 127 + 15) << 10) | (man >> 13));
}

static void poke_f16(struct gguf_writer *w, uint64_t at, uint64_t elem, float v)
{
	uint16_t h = htole16(f16_bits(v));
	gw_poke(w, at + elem * 2, &h, 2);
}

static void poke_f32(struct gguf_writer *w, uint64_t at, uint64_t elem, float v)
{
	uint32_t bits;
	memcpy(&bits, &v, sizeof(bits));
	bits = htole32(bits);
	gw_poke(w, at + elem * 4, &bits, 4);
}

static void answer_table(const struct synth_spec *s, uint32_t tok[4], uint32_t next[4], unsigned *n);

/* token_embd: state i's token is the one-hot e_i; output_norm: ones;
 * output: the row of state i's successor holds ANS_WEIGHT at i. */
static void answer_weights(struct gguf_writer *w, const struct synth_spec *s, uint64_t embd_at, uint64_t norm_at,
			   uint64_t out_at)
{
	uint32_t tok[4], next[4];
	unsigned n;
	answer_table(s, tok, next, &n);
	for (uint32_t i = 0; i < s->n_embd; i++) {
		float one = 1.0f;
		uint32_t bits;
		memcpy(&bits, &one, sizeof(bits));
		bits = htole32(bits);
		gw_poke(w, norm_at + (uint64_t)i * 4, &bits, 4);
	}
	for (unsigned i = 0; i < n; i++) {
		poke_f16(w, embd_at, (uint64_t)tok[i] * s->n_embd + i, 1.0f);
		poke_f16(w, out_at, (uint64_t)next[i] * s->n_embd + i, ANS_WEIGHT);
	}
	if (s->image_answer[0]) {
		poke_f16(w, embd_at, (uint64_t)ANS_IMG * s->n_embd + IMG_STATE, 1.0f);
		poke_f16(w, out_at, (uint64_t)TOK_IM_END * s->n_embd + IMG_STATE, ANS_WEIGHT);
		poke_f16(w, out_at, (uint64_t)ANS_IMG * s->n_embd + 1, ANS_WEIGHT - IMG_MARGIN);
		static const uint32_t reads_flag[] = {ANS_IMG, ANS_THINK_END, TOK_IM_END};
		for (size_t i = 0; i < ARRAY_SIZE(reads_flag); i++)
			poke_f16(w, out_at, (uint64_t)reads_flag[i] * s->n_embd + IMG_FLAG, IMG_B);
	}
}

/* image_answer's block 0 (see IMG_FLAG): norm_at, v_at and o_at are
 * blk.0's attn_norm, attn_v and attn_output. */
static void image_weights(struct gguf_writer *w, const struct synth_spec *s, uint64_t norm_at, uint64_t v_at,
			  uint64_t o_at)
{
	uint64_t q = (uint64_t)s->head_dim * s->n_head;
	poke_f32(w, norm_at, IMG_FLAG, 1.0f);
	poke_f16(w, v_at, IMG_FLAG, IMG_V);    /* v row 0 (kv head 0) reads IMG_FLAG */
	poke_f16(w, o_at, IMG_FLAG * q, 1.0f); /* IMG_FLAG reads head 0's element 0 */
}

/* The step table: state i's token and the token it is followed by. */
static void answer_table(const struct synth_spec *s, uint32_t tok[4], uint32_t next[4], unsigned *n)
{
	static const uint32_t t[4] = {ANS_NL, ANS_THINK_END, ANS_TOKEN, ANS_ALT};
	static const uint32_t f[4] = {ANS_THINK_END, ANS_TOKEN, TOK_IM_END, TOK_IM_END};
	*n = s->alt[0] ? 4 : 3;
	memcpy(tok, t, sizeof(t));
	memcpy(next, f, sizeof(f));
}

/* The families written with llama's tensors (tensors_llama), dense. */
static int is_llama_like(const struct synth_spec *s)
{
	static const char *const like[] = {"seed_oss",	    "smollm3", "granite",  "exaone",  "ernie4_5",
					   "hunyuan-dense", "xverse",  "baichuan", "minicpm", "maincoder",
					   "internlm2",	    "arcee",   "apertus",  "orion"};
	for (size_t i = 0; i < ARRAY_SIZE(like); i++)
		if (strcmp(s->arch, like[i]) == 0)
			return 1;
	return 0;
}

/* The recurrent families' geometry: DeltaNet, mamba (v1, v2), short conv. */
static int validate_recurrent(const struct synth_spec *s, char **err)
{
	if (strncmp(s->arch, "qwen35", 6) == 0) {
		if (!s->interval || !s->ssm_conv || !s->ssm_state || !s->ssm_groups || !s->ssm_dt_rank)
			return errorf(err, "qwen35 needs interval, ssm_conv, ssm_state, ssm_groups, ssm_dt_rank > 0");
		if (s->ssm_dt_rank % s->ssm_groups)
			return errorf(err, "ssm_dt_rank (%u) must be a multiple of ssm_groups (%u)", s->ssm_dt_rank,
				      s->ssm_groups);
		if (s->rope_dims < 64)
			return errorf(err, "qwen35's rope sections [11,11,10,0] need rope_dims >= 64");
	} else if (strcmp(s->arch, "qwen3next") == 0) {
		if (!s->interval || !s->ssm_conv || !s->ssm_state || !s->ssm_groups || !s->ssm_dt_rank)
			return errorf(err,
				      "qwen3next needs interval, ssm_conv, ssm_state, ssm_groups, ssm_dt_rank > 0");
		if (s->ssm_dt_rank % s->ssm_groups)
			return errorf(err, "ssm_dt_rank (%u) must be a multiple of ssm_groups (%u)", s->ssm_dt_rank,
				      s->ssm_groups);
		if (s->n_nextn)
			return errorf(err, "qwen3next's MTP head is not synthesised (nextn=0)");
	} else if (strcmp(s->arch, "granitehybrid") == 0 || strcmp(s->arch, "mamba2") == 0 ||
		   strcmp(s->arch, "falcon-h1") == 0 || strncmp(s->arch, "nemotron_h", 10) == 0) {
		if (!s->interval || !s->ssm_conv || !s->ssm_state || !s->ssm_groups || !s->ssm_dt_rank)
			return errorf(err,
				      "granitehybrid needs interval, ssm_conv, ssm_state, ssm_groups, ssm_dt_rank > 0");
		if ((2 * s->n_embd) % s->ssm_dt_rank || (2 * s->n_embd) % s->ssm_groups)
			return errorf(
			    err, "the SSM inner size 2 x embd (%u) must be a multiple of ssm_dt_rank and ssm_groups",
			    2 * s->n_embd);
	}
	if (strcmp(s->arch, "mamba") == 0 && (!s->ssm_conv || !s->ssm_state || !s->ssm_dt_rank))
		return errorf(err, "mamba needs ssm_conv, ssm_state and ssm_dt_rank > 0");
	if (strcmp(s->arch, "jamba") == 0 &&
	    (!s->interval || !s->ssm_conv || !s->ssm_state || !s->ssm_dt_rank || s->n_expert_used > s->n_expert ||
	     (s->n_expert && !s->n_expert_used) || s->n_head * s->head_dim != s->n_embd))
		return errorf(err,
			      "jamba needs interval, ssm_conv, ssm_state, ssm_dt_rank > 0, experts >= experts_used "
			      "(both 0: dense FFNs) and heads x head_dim = embd");
	if (strncmp(s->arch, "lfm2", 4) == 0 && (!s->interval || s->ssm_conv < 2))
		return errorf(err, "lfm2 needs interval > 0 and ssm_conv (the short conv's l_cache) >= 2");
	return 0;
}

static int validate(const struct synth_spec *s, char **err)
{
	if (!s->n_layer || !s->n_embd || !s->n_ff || !s->n_head || !s->n_head_kv || !s->head_dim)
		return errorf(err, "layers, embd, ff, heads, kv_heads and head_dim must all be positive");
	if (s->n_head % s->n_head_kv)
		return errorf(err, "heads (%u) must be a multiple of kv_heads (%u)", s->n_head, s->n_head_kv);
	if (s->n_vocab < 300)
		return errorf(err, "vocab %u is too small: the byte-level tokenizer needs 300 tokens", s->n_vocab);
	if (validate_answer(s, err))
		return -1;
	if (s->n_layer + s->n_nextn > 512)
		return errorf(err, "%u blocks exceed the engine's 512", s->n_layer + s->n_nextn);
	if (s->rope_dims > s->head_dim || s->rope_dims % 2)
		return errorf(err, "rope_dims %u must be even and at most head_dim %u", s->rope_dims, s->head_dim);
	if (validate_recurrent(s, err))
		return -1;
	if (strcmp(s->arch, "nemotron_h_moe") == 0 &&
	    (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert))
		return errorf(err, "nemotron_h_moe needs experts >= experts_used > 0 and ff_exp > 0");
	if (strcmp(s->arch, "lfm2moe") == 0 &&
	    (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert ||
	     s->n_lead_dense > s->n_layer || s->gating < 1 || s->gating > 4))
		return errorf(err, "lfm2moe needs experts >= experts_used > 0, ff_exp > 0, lead_dense <= layers and "
				   "gating 1..4");
	if (s->n_nextn && strncmp(s->arch, "qwen35", 6) != 0 && strcmp(s->arch, "glm4moe") != 0 && !is_ds2(s)) {
		return errorf(err, "nextn (MTP) blocks are only synthesised for qwen35(moe), glm4moe and deepseek2");
	}
	if (validate_moe(s, err))
		return -1;
	if ((strncmp(s->arch, "qwen3vl", 7) == 0 || strcmp(s->arch, "qwen2vl") == 0) &&
	    (s->rope_dims != s->head_dim || s->rope_dims < 64))
		return errorf(err, "%s's rope sections [11,11,10,0] need rope_dims == head_dim >= 64", s->arch);
	if ((strcmp(s->arch, "llama") == 0 || strcmp(s->arch, "qwen3moe") == 0 || strcmp(s->arch, "qwen2") == 0 ||
	     strcmp(s->arch, "mistral3") == 0 || is_llama_like(s) || strcmp(s->arch, "olmo2") == 0 ||
	     strcmp(s->arch, "granitemoe") == 0 || strcmp(s->arch, "olmoe") == 0 ||
	     strcmp(s->arch, "ernie4_5-moe") == 0 || strcmp(s->arch, "hunyuan-moe") == 0 ||
	     strcmp(s->arch, "deepseek") == 0) &&
	    s->rope_dims != s->head_dim)
		return errorf(err, "%s requires rope_dims == head_dim", s->arch);
	if ((strcmp(s->arch, "qwen2") == 0 || strcmp(s->arch, "phi3") == 0 || strncmp(s->arch, "lfm2", 4) == 0 ||
	     strcmp(s->arch, "olmo2") == 0 || strcmp(s->arch, "qwen2moe") == 0 || strcmp(s->arch, "deepseek") == 0 ||
	     strcmp(s->arch, "qwen2vl") == 0 || strcmp(s->arch, "internlm2") == 0 || strcmp(s->arch, "orion") == 0 ||
	     strcmp(s->arch, "exaone4") == 0 || strcmp(s->arch, "glm4") == 0 || strcmp(s->arch, "phimoe") == 0 ||
	     is_cohere(s)) &&
	    s->n_head * s->head_dim != s->n_embd)
		return errorf(err, "%s requires heads x head_dim (%u) == embd (%u)", s->arch, s->n_head * s->head_dim,
			      s->n_embd);
	if ((strcmp(s->arch, "qwen3moe") == 0 || strcmp(s->arch, "qwen2moe") == 0 ||
	     strcmp(s->arch, "qwen3vlmoe") == 0 || strcmp(s->arch, "mellum") == 0) &&
	    (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert))
		return errorf(err, "qwen3moe needs experts >= experts_used > 0 and ff_exp > 0");
	if (validate_oss(s, err))
		return -1;
	if (strcmp(s->arch, "minimax-m2") == 0 &&
	    (!s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert || s->gating < 1 || s->gating > 4))
		return errorf(err, "minimax-m2 needs experts >= experts_used > 0 and gating 1 to 4");
	if (strcmp(s->arch, "llama4") == 0 && (!s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert ||
					       !s->n_ff_exp || !s->interval || s->rope_dims != s->head_dim))
		return errorf(err,
			      "llama4 needs experts >= experts_used > 0, ff_exp > 0, interval (the MoE layer step) > 0 "
			      "and rope_dims == head_dim");
	if (strcmp(s->arch, "cohere2") == 0 && !s->n_swa)
		return errorf(err, "cohere2 needs swa > 0 (the engine requires attention.sliding_window)");
	if (strstr(s->arch, "rwkv") && (!s->head_dim || s->n_embd % s->head_dim))
		return errorf(err, "%s: embd (%u) must be a multiple of head_dim (the wkv head size, %u)", s->arch,
			      s->n_embd, s->head_dim);
	if (strcmp(s->arch, "gemma3n") == 0 && (!s->n_swa || s->swa_pattern < 2))
		return errorf(err, "gemma3n needs a sliding window (swa > 0) and swa_pattern >= 2");
	/* the engine's reuse map past its 20 cached layers: layer 19 (full)
	 * or 18 (window) */
	if (strcmp(s->arch, "gemma3n") == 0 && s->n_layer > 20 &&
	    (19 % s->swa_pattern != s->swa_pattern - 1 || 18 % s->swa_pattern == s->swa_pattern - 1))
		return errorf(err,
			      "gemma3n: layers past 20 read layer 19 (full) or 18 (window); swa_pattern=%u makes "
			      "layer 19 a window layer or 18 a full one",
			      s->swa_pattern);
	if (strcmp(s->arch, "mistral3") == 0 && s->n_expert && (!s->n_expert_used || s->n_expert_used > s->n_expert))
		return errorf(err, "mistral3 with experts needs experts >= experts_used > 0");
	if (strcmp(s->arch, "olmoe") == 0 && (s->n_head_kv != s->n_head || s->n_head * s->head_dim != s->n_embd))
		return errorf(err,
			      "olmoe's q and k norms are embd wide: heads == kv_heads and heads x head_dim == embd");
	if (strcmp(s->arch, "deepseek") == 0 &&
	    (!s->n_shared || !s->n_ff_exp || !s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert))
		return errorf(err, "deepseek needs shared > 0, ff_exp > 0 and experts >= experts_used > 0");
	if (((strcmp(s->arch, "ernie4_5-moe") == 0 || strcmp(s->arch, "hunyuan-moe") == 0) && !s->n_ff_exp) ||
	    ((strcmp(s->arch, "granitemoe") == 0 || strcmp(s->arch, "olmoe") == 0 ||
	      strcmp(s->arch, "hunyuan-moe") == 0 || strcmp(s->arch, "ernie4_5-moe") == 0) &&
	     (!s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert)))
		return errorf(err, "%s needs experts >= experts_used > 0 (and ff_exp > 0)", s->arch);
	if (strcmp(s->arch, "granitemoe") == 0 && (!s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert))
		return errorf(err, "granitemoe needs experts >= experts_used > 0");
	if ((strcmp(s->arch, "llama") == 0 || is_llama_like(s) || strcmp(s->arch, "olmo2") == 0) && s->n_expert)
		return errorf(err, "%s is written dense (experts: qwen3moe, gpt-oss, gemma4, mistral3)", s->arch);
	if (!ggml_type_get(s->wtype) && s->wtype < GGML_TYPE_COUNT)
		return errorf(err, "type=%u is a type ggml removed (block size 0): the engine refuses it", s->wtype);
	return 0;
}

/* Write the file, report its size, release the writer. */
static int write_out(struct gguf_writer *w, const char *path, uint64_t *bytes, char **err)
{
	uint64_t hlen;
	free(gw_header(w, &hlen));
	int rc = gw_write(w, path, err);
	if (rc == 0 && bytes)
		*bytes = hlen + w->data_size;
	gw_release(w);
	return rc;
}

/* A write's result, and its kind: a failure to write is ZE_IO. */
static int written(int rc, enum zerr *kind)
{
	zerr_set(kind, rc ? ZE_IO : ZE_OK);
	return rc;
}

/* Write the payload whole beside path, then cut it into n shards the
 * engine's way (split.c); path names the first shard or the whole. */
static int write_split(struct gguf_writer *w, const char *path, uint32_t n, uint64_t *bytes, char **err)
{
	struct sb whole = {0}, first = {0};
	sb_addf(&whole, "%s.whole.tmp", path);
	size_t plen, len = strlen(path);
	unsigned k, c;
	if (split_name_parse(path, &plen, &k, &c) == 0)
		sb_add(&first, path, plen);
	else
		sb_add(&first, path, len > 5 && strcmp(path + len - 5, ".gguf") == 0 ? len - 5 : len);
	sb_addf(&first, "-%05u-of-%05u.gguf", 1u, n);
	int rc = write_out(w, whole.s, bytes, err);
	if (rc == 0)
		rc = split_write(whole.s, n, first.s, err);
	unlink(whole.s);
	sb_release(&whole);
	sb_release(&first);
	return rc;
}

/* --- tensors ----------------------------------------------------------- */

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

static uint64_t bytes_of(uint32_t type, uint64_t n)
{
	const struct ggml_type_info *t = ggml_type_get(type);
	if (!t)
		return n / CUSTOM_BLCK * CUSTOM_SIZE;
	return n / t->blck * t->size;
}

/* A 1-D f32 vector (norms, biases, gates). */
static void vec(struct tw *t, const char *name, uint64_t n)
{
	uint64_t ne[1] = {n};
	gw_tensor(t->w, name, 1, ne, 0, n * 4);
}

/* Which keys make a matrix's row (its input width), by the tensor's
 * role in the shapes below; the key values are printed only when they
 * multiply out to the row, so a new tensor cannot be misattributed. */
static void row_keys(struct sb *b, const struct synth_spec *s, const char *name, uint64_t ne0)
{
	static const char *const roles[] = {"ffn_down.weight", "attn_output.weight", "ssm_out.weight",
					    "eh_proj.weight"};
	if (!s)
		return;
	size_t n = strlen(name), role = ARRAY_SIZE(roles);
	for (size_t i = 0; i < ARRAY_SIZE(roles); i++) {
		size_t m = strlen(roles[i]);
		if (n >= m && strcmp(name + n - m, roles[i]) == 0)
			role = i;
	}
	if (role == 0 && ne0 == s->n_ff)
		sb_addf(b, " (ff=%u)", s->n_ff);
	else if (role == 1 && ne0 == (uint64_t)s->head_dim * s->n_head)
		sb_addf(b, " (head_dim=%u x heads=%u)", s->head_dim, s->n_head);
	else if (role == 2 && ne0 == (uint64_t)s->ssm_state * s->ssm_dt_rank)
		sb_addf(b, " (ssm_state=%u x ssm_dt_rank=%u)", s->ssm_state, s->ssm_dt_rank);
	else if (role == 3 && ne0 == 2ull * s->n_embd)
		sb_addf(b, " (2 x embd=%u)", s->n_embd);
	else if (role == ARRAY_SIZE(roles) && ne0 == s->n_embd)
		sb_addf(b, " (embd=%u)", s->n_embd);
}

/* A weight matrix: ne0 is the input width, as the engine's shapes read.
 * The engine's reader refuses a tensor whose row is not a whole number of
 * its type's blocks (ggml/src/gguf.cpp: "has N elements per row, not a
 * multiple of block size"), so the first such tensor is remembered and
 * synth_write refuses the whole file. */
static void mat(struct tw *t, const char *name, uint64_t ne0, uint64_t ne1)
{
	uint64_t ne[2] = {ne0, ne1};
	const struct ggml_type_info *ti = ggml_type_get(t->wtype);
	uint32_t blck = ti ? ti->blck : CUSTOM_BLCK;
	if (ne0 % blck && !t->bad) {
		struct sb b = {0};
		if (ti)
			sb_addf(&b, "type=%s", ti->name);
		else
			sb_addf(&b, "type=%u (custom, written in blocks of %u)", t->wtype, blck);
		sb_addf(&b, ": tensor '%s' would have %llu elements per row", name, (unsigned long long)ne0);
		row_keys(&b, t->s, name, ne0);
		sb_addf(&b, ", not a multiple of the type's block size (%u): the engine refuses such a file", blck);
		t->bad = sb_detach(&b);
	}
	uint64_t bytes = bytes_of(t->wtype, ne0 * ne1);
	if (!ti && !t->fixed) {
		t->seen += ne0 * ne1;
		if (t->elems) {
			int64_t due = (int64_t)((double)t->extra * ((double)t->seen / (double)t->elems));
			bytes = (uint64_t)((int64_t)bytes + due - t->given);
			t->given = due;
		}
	}
	gw_tensor(t->w, name, 2, ne, t->wtype, bytes);
}

/* Refuse the file if a matrix broke the block rule; releases the writer. */
static int refused(struct tw *t, char **err)
{
	if (!t->bad)
		return 0;
	errorf(err, "%s", t->bad);
	free(t->bad);
	t->bad = NULL;
	gw_release(t->w);
	return -1;
}

static void blkname(char *buf, size_t n, uint32_t il, const char *suffix)
{
	snprintf(buf, n, "blk.%u.%s", il, suffix);
}

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

static void ffn(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	BM("ffn_gate.weight", s->n_embd, s->n_ff);
	BM("ffn_down.weight", s->n_ff, s->n_embd);
	BM("ffn_up.weight", s->n_embd, s->n_ff);
}

static void qkv(struct tw *t, const struct synth_spec *s, uint32_t il, uint32_t q_mult)
{
	char nm[64];
	uint64_t q = (uint64_t)s->head_dim * s->n_head;
	uint64_t kv = (uint64_t)s->head_dim * s->n_head_kv;
	BM("attn_q.weight", s->n_embd, q * q_mult);
	BM("attn_k.weight", s->n_embd, kv);
	if (il == 0)
		t->v0_at = gw_data_at(t->w);
	BM("attn_v.weight", s->n_embd, kv);
	if (il == 0)
		t->o0_at = gw_data_at(t->w);
	BM("attn_output.weight", s->out_rows ? s->out_rows : q, s->n_embd);
}

static void expert_stack(struct tw *t, uint32_t il, const char *suffix, uint64_t ne0, uint64_t ne1, uint64_t n);

static void tensors_llama(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		if (il == 0)
			t->norm0_at = gw_data_at(t->w);
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		/* seed_oss names its FFN norm post_attention_norm */
		BV(strcmp(s->arch, "seed_oss") == 0 ? "post_attention_norm.weight" : "ffn_norm.weight", s->n_embd);
		if (strcmp(s->arch, "hunyuan-dense") == 0 ||
		    strcmp(s->arch, "maincoder") == 0) { /* per-head q/k norms */
			BV("attn_k_norm.weight", s->head_dim);
			BV("attn_q_norm.weight", s->head_dim);
		}
		if (strcmp(s->arch, "orion") == 0) { /* layer norms with biases */
			BV("attn_norm.bias", s->n_embd);
			BV("ffn_norm.bias", s->n_embd);
		}
		if (strcmp(s->arch, "apertus") == 0) {
			BV("attn_q_norm.weight", s->head_dim);
			BV("attn_q_norm.bias", s->head_dim);
			BV("attn_k_norm.weight", s->head_dim);
			BV("attn_k_norm.bias", s->head_dim);
		}
		if (strcmp(s->arch, "arcee") == 0 || strcmp(s->arch, "apertus") == 0) { /* up and down, no gate */
			BM("ffn_down.weight", s->n_ff, s->n_embd);
			BM("ffn_up.weight", s->n_embd, s->n_ff);
			continue;
		}
		if (!s->n_expert) {
			ffn(t, s, il);
			continue;
		}
		/* mistral3's MoE layers: a router and stacks ff wide */
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff, s->n_expert);
	}
}

/* OLMo 2: no pre-norms; q and k normed over their whole width; post
 * norms after the attention and the FFN; an output matrix of its own. */
static void tensors_olmo2(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		qkv(t, s, il, 1);
		/* exaone4's are per head */
		int ex = strcmp(s->arch, "exaone4") == 0;
		BV("attn_q_norm.weight", ex ? s->head_dim : s->head_dim * s->n_head);
		BV("attn_k_norm.weight", ex ? s->head_dim : s->head_dim * s->n_head_kv);
		BV("post_attention_norm.weight", s->n_embd);
		ffn(t, s, il);
		BV("post_ffw_norm.weight", s->n_embd);
	}
}

static void tensors_gemma3(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("post_attention_norm.weight", s->n_embd);
		if (strcmp(s->arch, "gemma2") != 0) { /* gemma2 norms neither q nor k */
			BV("attn_k_norm.weight", s->head_dim);
			BV("attn_q_norm.weight", s->head_dim);
		}
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
		BV("post_ffw_norm.weight", s->n_embd);
	}
}

static void ffn_qwen35(struct tw *t, const struct synth_spec *s, uint32_t il);
static int is_arch(const struct synth_spec *s, const char *a);
static void tensors_gemma3n(struct tw *t, const struct synth_spec *s);
static void tensors_rwkv7(struct tw *t, const struct synth_spec *s);
static void tensors_rwkv6(struct tw *t, const struct synth_spec *s);
static void keys_rwkv7(struct gguf_writer *w, const struct synth_spec *s);

static void tensors_qwen35(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint64_t key_dim = (uint64_t)s->ssm_state * s->ssm_groups;
	uint64_t value_dim = (uint64_t)s->ssm_state * s->ssm_dt_rank;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			qkv(t, s, il, 2); /* gated query: q and gate in one matrix */
			BV("attn_q_norm.weight", s->head_dim);
			BV("attn_k_norm.weight", s->head_dim);
		} else {
			BM("attn_qkv.weight", s->n_embd, key_dim * 2 + value_dim);
			BM("attn_gate.weight", s->n_embd, value_dim);
			uint64_t ne[2] = {s->ssm_conv, key_dim * 2 + value_dim};
			blkname(nm, sizeof(nm), il, "ssm_conv1d.weight");
			gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
			BV("ssm_dt.bias", s->ssm_dt_rank);
			BV("ssm_a", s->ssm_dt_rank);
			if (is_arch(s, "qwen3next")) { /* beta and alpha in one matrix */
				BM("ssm_ba.weight", s->n_embd, 2ull * s->ssm_dt_rank);
			} else {
				BM("ssm_beta.weight", s->n_embd, s->ssm_dt_rank);
				BM("ssm_alpha.weight", s->n_embd, s->ssm_dt_rank);
			}
			BV("ssm_norm.weight", s->ssm_state);
			BM("ssm_out.weight", value_dim, s->n_embd);
		}
		ffn_qwen35(t, s, il);
	}
	if (!s->mtp_tensors)
		return;
	for (uint32_t il = s->n_layer; il < s->n_layer + s->n_nextn; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		qkv(t, s, il, 2);
		BV("attn_q_norm.weight", s->head_dim);
		BV("attn_k_norm.weight", s->head_dim);
		ffn_qwen35(t, s, il);
		BM("nextn.eh_proj.weight", 2ull * s->n_embd, s->n_embd);
		BV("nextn.enorm.weight", s->n_embd);
		BV("nextn.hnorm.weight", s->n_embd);
		BV("nextn.shared_head_norm.weight", s->n_embd);
	}
}

/* Qwen2 (src/models/qwen2.cpp): the llama block with q, k and v biases. */
static void tensors_qwen2(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("attn_q.bias", (uint64_t)s->head_dim * s->n_head);
		BV("attn_k.bias", (uint64_t)s->head_dim * s->n_head_kv);
		BV("attn_v.bias", (uint64_t)s->head_dim * s->n_head_kv);
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
	}
}

/* Qwen2-MoE (src/models/qwen2moe.cpp): qwen2's attention; in every layer
 * routed experts ff_exp wide and a shared expert ff wide with its own
 * router row. */
static void tensors_qwen2moe(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("attn_q.bias", (uint64_t)s->head_dim * s->n_head);
		BV("attn_k.bias", (uint64_t)s->head_dim * s->n_head_kv);
		BV("attn_v.bias", (uint64_t)s->head_dim * s->n_head_kv);
		BV("ffn_norm.weight", s->n_embd);
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
		BV("ffn_gate_inp_shexp.weight", s->n_embd);
		BM("ffn_gate_shexp.weight", s->n_embd, s->n_ff);
		BM("ffn_down_shexp.weight", s->n_ff, s->n_embd);
		BM("ffn_up_shexp.weight", s->n_embd, s->n_ff);
	}
}

/* OLMoE (src/models/olmoe.cpp): llama's tensors, q and k norms n_embd
 * wide, softmax experts ff wide in every layer. ERNIE 4.5 MoE
 * (src/models/ernie4-5-moe.cpp): dense leading layers, then routed
 * experts ff_exp wide with a selection bias and the optional shared
 * expert (shared x ff_exp wide). */
static void tensors_olmoe_ernie(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	int olmoe = strcmp(s->arch, "olmoe") == 0;
	uint64_t fe = olmoe ? s->n_ff : s->n_ff_exp;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		if (olmoe) {
			BV("attn_q_norm.weight", s->n_embd);
			BV("attn_k_norm.weight", s->n_embd);
		}
		BV("ffn_norm.weight", s->n_embd);
		if (!olmoe && il < s->n_lead_dense) {
			ffn(t, s, il);
			continue;
		}
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		if (!olmoe && s->probs_b)
			BV("exp_probs_b.bias", s->n_expert);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, fe, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", fe, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, fe, s->n_expert);
		if (!olmoe && s->n_shared) {
			uint64_t sh = (uint64_t)s->n_shared * s->n_ff_exp;
			BM("ffn_gate_shexp.weight", s->n_embd, sh);
			BM("ffn_down_shexp.weight", sh, s->n_embd);
			BM("ffn_up_shexp.weight", s->n_embd, sh);
		}
	}
}

/* Hunyuan-MoE (src/models/hunyuan-moe.cpp): per-head q and k norms,
 * routed experts ff wide and a shared expert ff_exp wide in every layer. */
static void tensors_hunyuan_moe(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("attn_k_norm.weight", s->head_dim);
		BV("attn_q_norm.weight", s->head_dim);
		BV("ffn_norm.weight", s->n_embd);
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff, s->n_expert);
		BM("ffn_gate_shexp.weight", s->n_embd, s->n_ff_exp);
		BM("ffn_up_shexp.weight", s->n_embd, s->n_ff_exp);
		BM("ffn_down_shexp.weight", s->n_ff_exp, s->n_embd);
	}
}

/* GLM-4 (src/models/glm4.cpp): post norms after the attention and the
 * FFN; the FFN's gate and up in one matrix 2 x ff wide. */
static void tensors_glm4(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("post_attention_norm.weight", s->n_embd);
		BV("ffn_norm.weight", s->n_embd);
		BM("ffn_up.weight", s->n_embd, 2ull * s->n_ff);
		BM("ffn_down.weight", s->n_ff, s->n_embd);
		BV("post_ffw_norm.weight", s->n_embd);
	}
}

/* Command R and Cohere 2: llama's tensors without an FFN norm (the FFN
 * reads the attention's normed input); command-r's q and k norms per
 * head at 64 layers or more (load_arch_tensors). */
static void tensors_cohere(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if (strcmp(s->arch, "command-r") == 0 && s->n_layer >= 64) {
			uint64_t qn[2] = {s->head_dim, s->n_head}, kn[2] = {s->head_dim, s->n_head_kv};
			blkname(nm, sizeof(nm), il, "attn_q_norm.weight");
			gw_tensor(t->w, nm, 2, qn, 0, qn[0] * qn[1] * 4);
			blkname(nm, sizeof(nm), il, "attn_k_norm.weight");
			gw_tensor(t->w, nm, 2, kn, 0, kn[0] * kn[1] * 4);
		}
		qkv(t, s, il, 1);
		ffn(t, s, il);
	}
}

/* MiniMax-M2 (src/models/minimax-m2.cpp): q and k normed over their
 * whole width; in every layer routed experts ff wide with a selection
 * bias. */
static void tensors_minimax_m2(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		qkv(t, s, il, 1);
		BV("attn_norm.weight", s->n_embd);
		BV("attn_q_norm.weight", (uint64_t)s->head_dim * s->n_head);
		BV("attn_k_norm.weight", (uint64_t)s->head_dim * s->n_head_kv);
		BV("ffn_norm.weight", s->n_embd);
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff, s->n_expert);
		BV("exp_probs_b.bias", s->n_expert);
	}
}

/* Llama 4 (src/models/llama4.cpp): llama's attention; on every
 * interval-th layer routed experts beside a shared expert, both ff_exp
 * wide; a dense FFN ff wide elsewhere. */
static void tensors_llama4(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("ffn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval != 0) {
			ffn(t, s, il);
			continue;
		}
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
		BM("ffn_gate_shexp.weight", s->n_embd, s->n_ff_exp);
		BM("ffn_down_shexp.weight", s->n_ff_exp, s->n_embd);
		BM("ffn_up_shexp.weight", s->n_embd, s->n_ff_exp);
	}
}

/* PhiMoE (src/models/phimoe.cpp): biased norms and output projection,
 * softmax experts ff wide; the output's norm and matrix biased. */
static void tensors_phimoe(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	vec(t, "output_norm.bias", s->n_embd);
	vec(t, "output.bias", s->n_vocab);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("attn_norm.bias", s->n_embd);
		qkv(t, s, il, 1);
		BV("attn_output.bias", s->n_embd);
		BV("ffn_norm.weight", s->n_embd);
		BV("ffn_norm.bias", s->n_embd);
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff, s->n_expert);
	}
}

/* Qwen3 (src/models/qwen3.cpp): the llama block with q and k normed. */
static void tensors_qwen3(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("attn_k_norm.weight", s->head_dim);
		BV("attn_q_norm.weight", s->head_dim);
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
	}
}

/* Phi-3 (src/models/phi3.cpp): q, k and v in one projection, gate and up
 * in one (2 x ff wide, a SwiGLU of its halves). */
static void tensors_phi3(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint64_t kv = (uint64_t)s->head_dim * s->n_head_kv;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		BM("attn_qkv.weight", s->n_embd, s->n_embd + 2 * kv);
		BM("attn_output.weight", s->n_embd, s->n_embd);
		BV("ffn_norm.weight", s->n_embd);
		BM("ffn_down.weight", s->n_ff, s->n_embd);
		BM("ffn_up.weight", s->n_embd, 2ull * s->n_ff);
	}
}

/* LFM2 (src/models/lfm2.cpp): gated short-convolution layers and q/k
 * normed attention every `interval` (head_count_kv 0 marks the others);
 * the conv kernel stays f32; the final norm is named token_embd_norm. */
static void tensors_lfm2(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			qkv(t, s, il, 1);
			BV("attn_q_norm.weight", s->head_dim);
			BV("attn_k_norm.weight", s->head_dim);
		} else {
			uint64_t ne[2] = {s->ssm_conv, s->n_embd};
			blkname(nm, sizeof(nm), il, "shortconv.conv.weight");
			gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
			BM("shortconv.in_proj.weight", s->n_embd, 3ull * s->n_embd);
			BM("shortconv.out_proj.weight", s->n_embd, s->n_embd);
		}
		BV("ffn_norm.weight", s->n_embd);
		if (strcmp(s->arch, "lfm2moe") != 0 || il < s->n_lead_dense) {
			ffn(t, s, il);
			continue;
		}
		/* LFM2-MoE (src/models/lfm2moe.cpp): past the dense lead, a
		 * router (f32), the selection bias (required) and the stacks */
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		BV("exp_probs_b.bias", s->n_expert);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
	}
}

/* A mamba2 mixer's tensors (build_mamba2_layer): the input projection,
 * the f32 conv and its bias, per-head dt bias, A and D, the grouped norm,
 * the output projection. The SSM inner size is 2 x embd. */
static void mamba2_mixer(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t d_inner = 2ull * s->n_embd;
	uint64_t bc = 2ull * s->ssm_groups * s->ssm_state;
	BM("ssm_in.weight", s->n_embd, 2 * d_inner + bc + s->ssm_dt_rank);
	uint64_t ne[2] = {s->ssm_conv, d_inner + bc};
	blkname(nm, sizeof(nm), il, "ssm_conv1d.weight");
	gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
	BV("ssm_conv1d.bias", d_inner + bc);
	BV("ssm_dt.bias", s->ssm_dt_rank);
	uint64_t hd[2] = {1, s->ssm_dt_rank};
	blkname(nm, sizeof(nm), il, "ssm_a");
	gw_tensor(t->w, nm, 2, hd, 0, hd[1] * 4);
	blkname(nm, sizeof(nm), il, "ssm_d");
	gw_tensor(t->w, nm, 2, hd, 0, hd[1] * 4);
	uint64_t gn[2] = {d_inner / s->ssm_groups, s->ssm_groups};
	blkname(nm, sizeof(nm), il, "ssm_norm.weight");
	gw_tensor(t->w, nm, 2, gn, 0, d_inner * 4);
	BM("ssm_out.weight", d_inner, s->n_embd);
}

/* Nemotron-H (src/models/nemotron-h.cpp): each layer is one of a mamba2
 * mixer (no KV heads, no FFN), attention (KV heads, no FFN) or an FFN alone
 * (up, squared ReLU, down); per-layer head_count_kv and
 * feed_forward_length arrays say which. */
static int nemotron_kind(const struct synth_spec *s, uint32_t il)
{
	if ((il + 1) % s->interval == 0)
		return 'A';
	return il % 2 == 0 ? 'M' : 'F';
}

static void tensors_nemotron_h(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		int k = nemotron_kind(s, il);
		BV("attn_norm.weight", s->n_embd);
		if (k == 'A') {
			qkv(t, s, il, 1);
		} else if (k == 'F' && strcmp(s->arch, "nemotron_h_moe") == 0) {
			/* a router (f32), the selection bias, up and down stacks
			 * (squared ReLU, no gate), a shared expert ff wide */
			uint64_t ne[2] = {s->n_embd, s->n_expert};
			blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
			gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
			BV("exp_probs_b.bias", s->n_expert);
			uint64_t me = s->moe_latent ? s->moe_latent : s->n_embd; /* the experts' width */
			if (s->moe_latent) {
				BM("ffn_latent_down.weight", s->n_embd, me);
				BM("ffn_latent_up.weight", me, s->n_embd);
			}
			expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, me, s->n_expert);
			expert_stack(t, il, "ffn_up_exps.weight", me, s->n_ff_exp, s->n_expert);
			BM("ffn_down_shexp.weight", s->n_ff, s->n_embd);
			BM("ffn_up_shexp.weight", s->n_embd, s->n_ff);
		} else if (k == 'F') {
			BM("ffn_down.weight", s->n_ff, s->n_embd);
			BM("ffn_up.weight", s->n_embd, s->n_ff);
		} else {
			mamba2_mixer(t, s, il);
		}
	}
}

/* Falcon-H1 (src/models/falcon-h1.cpp): a mamba2 mixer and attention
 * side by side in every layer, then a SwiGLU FFN; its FFN norm is written
 * without ".weight". */
static void tensors_falcon_h1(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		mamba2_mixer(t, s, il);
		BV("ffn_norm", s->n_embd);
		ffn(t, s, il);
	}
}

/* Jamba (src/models/jamba.cpp): mamba (v1) layers (x and z in one input
 * projection, dt/B/C from ssm_x, each RMS-normed; A and D per channel),
 * attention (no RoPE) every `interval` layers; routed experts ff wide on
 * odd layers when there are experts, a SwiGLU FFN elsewhere. */
static void tensors_jamba(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint64_t d_inner = 2ull * s->n_embd;
	int v1 = strcmp(s->arch, "mamba") == 0; /* the mixer alone, dt, B and C not normed */
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			qkv(t, s, il, 1);
		} else {
			BM("ssm_in.weight", s->n_embd, 2 * d_inner);
			uint64_t ne[2] = {s->ssm_conv, d_inner};
			blkname(nm, sizeof(nm), il, "ssm_conv1d.weight");
			gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
			BV("ssm_conv1d.bias", d_inner);
			BM("ssm_x.weight", d_inner, s->ssm_dt_rank + 2ull * s->ssm_state);
			if (!v1)
				BV("ssm_dt_norm.weight", s->ssm_dt_rank);
			BM("ssm_dt.weight", s->ssm_dt_rank, d_inner);
			BV("ssm_dt.bias", d_inner);
			if (!v1) {
				BV("ssm_b_norm.weight", s->ssm_state);
				BV("ssm_c_norm.weight", s->ssm_state);
			}
			uint64_t a[2] = {s->ssm_state, d_inner};
			blkname(nm, sizeof(nm), il, "ssm_a");
			gw_tensor(t->w, nm, 2, a, 0, a[0] * a[1] * 4);
			blkname(nm, sizeof(nm), il, "ssm_d");
			vec(t, nm, d_inner);
			BM("ssm_out.weight", d_inner, s->n_embd);
		}
		if (v1)
			continue;
		BV("ffn_norm.weight", s->n_embd);
		if (s->n_expert && il % 2 == 1) {
			uint64_t gi[2] = {s->n_embd, s->n_expert};
			blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
			gw_tensor(t->w, nm, 2, gi, 0, gi[0] * gi[1] * 4);
			expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff, s->n_expert);
			expert_stack(t, il, "ffn_down_exps.weight", s->n_ff, s->n_embd, s->n_expert);
			expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff, s->n_expert);
		} else {
			ffn(t, s, il);
		}
	}
}

/* Granite 4.0 hybrid (src/models/granite-hybrid.cpp): mamba2 layers, an
 * attention layer every `interval` (head_count_kv 0 marks the others), a
 * SwiGLU FFN on every layer. The SSM inner size is 2 x embd (the engine
 * asserts it); the conv weight and the per-head A, D and dt stay f32. */
static void tensors_granitehybrid(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			qkv(t, s, il, 1);
		} else {
			mamba2_mixer(t, s, il);
		}
		if (strcmp(s->arch, "mamba2") == 0) /* Mamba-2: the mixer alone, no FFN */
			continue;
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
	}
}

/* Qwen3-MoE (src/models/qwen3moe.cpp): q/k-normed attention and, in place
 * of the FFN, a router and three expert stacks [in, out, experts]. */
static void expert_stack(struct tw *t, uint32_t il, const char *suffix, uint64_t ne0, uint64_t ne1, uint64_t n)
{
	char nm[64];
	blkname(nm, sizeof(nm), il, suffix);
	const struct ggml_type_info *ti = ggml_type_get(t->wtype);
	uint32_t blck = ti ? ti->blck : CUSTOM_BLCK;
	if (ne0 % blck && !t->bad) {
		struct sb b = {0};
		sb_addf(&b,
			"type=%s: tensor '%s' would have %llu elements per row, not a multiple of its block of %u: "
			"the engine refuses such a file",
			ti ? ti->name : "custom", nm, (unsigned long long)ne0, blck);
		t->bad = sb_detach(&b);
	}
	uint64_t ne[3] = {ne0, ne1, n};
	gw_tensor(t->w, nm, 3, ne, t->wtype, bytes_of(t->wtype, ne0 * ne1) * n);
}

static void tensors_qwen3moe(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("attn_k_norm.weight", s->head_dim);
		BV("attn_q_norm.weight", s->head_dim);
		BV("ffn_norm.weight", s->n_embd);
		/* the router stays f32, as converted MoE payloads ship it */
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
	}
}

/* --- tokenizer and template ------------------------------------------- */

static const char *const specials[] = {
    "<|endoftext|>", "<|im_start|>", "<|im_end|>",	 "<think>",	   "</think>",
    "<tool_call>",   "</tool_call>", "<|vision_start|>", "<|vision_end|>", "<|image_pad|>",
};

/* GPT-2's byte-level alphabet: printable bytes stand for themselves, the
 * rest are shifted above 255 so every byte has a visible code point. */
static size_t byte_token(unsigned b, char out[4])
{
	unsigned cp;
	if ((b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255)) {
		cp = b;
	} else {
		unsigned k = 0;
		for (unsigned x = 0; x < b; x++)
			if (!((x >= 33 && x <= 126) || (x >= 161 && x <= 172) || (x >= 174 && x <= 255)))
				k++;
		cp = 256 + k;
	}
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	out[0] = (char)(0xC0 | (cp >> 6));
	out[1] = (char)(0x80 | (cp & 0x3F));
	return 2;
}

/* ChatML with thinking, tools and images; optionally restricting
 * reasoning_effort the way the seeds' template does (A08). */
static const char template_head[] =
    "{%- if reasoning_effort is defined and reasoning_effort not in ['xhigh', 'medium', 'low'] -%}"
    "{{ raise_exception('reasoning_effort must be one of xhigh, medium, low') }}"
    "{%- endif -%}\n";
static const char template_body[] =
    "{%- if tools %}{{ '<|im_start|>system\n# Tools\n<tools>' }}"
    "{%- for tool in tools %}{{ '\n' }}{{ tool | tojson }}{%- endfor %}"
    "{{ '\n</tools>\nTo call a function reply with <tool_call>\n<function=NAME>\n<parameter=KEY>\nVALUE\n"
    "</parameter>\n</function>\n</tool_call><|im_end|>\n' }}"
    "{%- endif %}"
    "{%- for message in messages %}"
    "{%- if message.role == 'tool' %}{{ '<|im_start|>user\n<tool_response>\n' }}{{ message.content }}"
    "{{ '\n</tool_response><|im_end|>\n' }}"
    "{%- else %}{{ '<|im_start|>' + message.role + '\n' }}"
    "{%- if message.content is string %}{{ message.content }}"
    "{%- elif message.content %}{%- for part in message.content %}"
    "{%- if part.type == 'text' %}{{ part.text }}"
    "{%- else %}{{ '<|vision_start|><|image_pad|><|vision_end|>' }}{%- endif %}"
    "{%- endfor %}{%- endif %}"
    "{%- if message.tool_calls %}{%- for call in message.tool_calls %}"
    "{{ '\n<tool_call>\n<function=' + call.function.name + '>\n' }}"
    "{%- if call.function.arguments is mapping %}{%- for k, v in call.function.arguments | items %}"
    "{{ '<parameter=' + k + '>\n' }}{{ v }}{{ '\n</parameter>\n' }}{%- endfor %}{%- endif %}"
    "{{ '</function>\n</tool_call>' }}{%- endfor %}{%- endif %}{{ '<|im_end|>\n' }}"
    "{%- endif %}"
    "{%- endfor %}"
    "{%- if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}"
    "{%- if enable_thinking is defined and not enable_thinking %}{{ '<think>\n\n</think>\n\n' }}"
    "{%- else %}{{ '<think>\n' }}{%- endif %}{%- endif %}";

static void tokenizer(struct gguf_writer *w, const struct synth_spec *s)
{
	gw_str(w, "tokenizer.ggml.model", "gpt2");
	gw_str(w, "tokenizer.ggml.pre", "qwen2");
	gw_arr_begin(w, "tokenizer.ggml.tokens", GGUF_STRING, s->n_vocab);
	char buf[32];
	for (unsigned b = 0; b < 256; b++) {
		size_t n = byte_token(b, buf);
		gw_arr_str(w, buf, n);
	}
	for (size_t i = 0; i < ARRAY_SIZE(specials); i++)
		gw_arr_str(w, specials[i], strlen(specials[i]));
	for (uint32_t id = 256 + ARRAY_SIZE(specials); id < s->n_vocab; id++) {
		const char *text = id == ANS_TOKEN && answer_mode(s)	 ? s->answer
				   : id == ANS_ALT && s->alt[0]		 ? s->alt
				   : id == ANS_IMG && s->image_answer[0] ? s->image_answer
									 : NULL;
		if (text) { /* the answer, one entry in the byte-level alphabet */
			struct sb t = {0};
			for (const char *p = text; *p; p++)
				sb_add(&t, buf, byte_token((unsigned char)*p, buf));
			gw_arr_str(w, t.s, t.len);
			sb_release(&t);
			continue;
		}
		int n = snprintf(buf, sizeof(buf), "[pad%u]", id);
		gw_arr_str(w, buf, (uint64_t)n);
	}
	gw_arr_begin(w, "tokenizer.ggml.token_type", GGUF_I32, s->n_vocab);
	for (uint32_t id = 0; id < s->n_vocab; id++) {
		int32_t type = 1; /* normal */
		if (id >= 256 && id < 256 + 3)
			type = 3; /* control: <|endoftext|>, <|im_start|>, <|im_end|> */
		else if (id >= 256 && id < 256 + ARRAY_SIZE(specials))
			type = 4; /* user-defined, as Qwen's <think>, <tool_call>: text the grammar can match */
		gw_arr_i32(w, type);
	}
	gw_arr_begin(w, "tokenizer.ggml.merges", GGUF_STRING, 0);
	gw_u32(w, "tokenizer.ggml.eos_token_id", TOK_IM_END);
	gw_u32(w, "tokenizer.ggml.padding_token_id", TOK_EOT);
	gw_u32(w, "tokenizer.ggml.bos_token_id", TOK_EOT);
	gw_bool(w, "tokenizer.ggml.add_bos_token", 0);
	struct sb tpl = {0};
	if (s->efforts)
		sb_adds(&tpl, template_head);
	sb_adds(&tpl, template_body);
	gw_str(w, "tokenizer.chat_template", tpl.s);
	sb_release(&tpl);
}

static void akey(char *buf, size_t n, const struct synth_spec *s, const char *suffix)
{
	snprintf(buf, n, "%s.%s", s->arch, suffix);
}

/* --- deepseek2 (MLA), glm4moe, qwen35moe ------------------------------ */

static int is_arch(const struct synth_spec *s, const char *a)
{
	return strcmp(s->arch, a) == 0;
}

/* DeepSeek-V2/V3's layout: deepseek2, mistral4, whose model class reuses
 * deepseek2's hparams, tensors and graph (src/models/models.h), and
 * deepseek32 (V3.2: the same with a lightning indexer per layer) */
static int is_ds2(const struct synth_spec *s)
{
	return is_arch(s, "deepseek2") || is_arch(s, "mistral4") || is_arch(s, "deepseek32");
}

static void synth_moe_defaults(struct synth_spec *s)
{
	if (is_ds2(s)) {
		s->head_dim = 48; /* key_length_mla: 32 without rope + 16 with */
		s->rope_dims = 16;
		s->head_dim_v = 32;
		s->kv_lora = 64;
		s->q_lora = 96;
		s->n_lead_dense = 1;
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_shared = 1;
		s->n_ff_exp = 128;
		s->gating = 2;
		s->probs_b = 1;
		s->w_norm = 1;
		s->w_scale10 = 25;
		s->mtp_tensors = 1; /* for nextn=1 */
	} else if (is_arch(s, "kimi-linear")) {
		/* Kimi delta attention (head size ssm_state, conv ssm_conv) with
		 * MLA (no RoPE, one attn_q) every `interval` layers; a dense lead
		 * layer, then sigmoid-gated biased experts and a shared one */
		s->interval = 4;
		s->ssm_conv = 4;
		s->ssm_state = 32;
		s->head_dim = 48; /* key_length_mla: 32 without rope + 16 with */
		s->rope_dims = 16;
		s->head_dim_v = 32;
		s->kv_lora = 64;
		s->n_lead_dense = 1;
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_shared = 1;
		s->n_ff_exp = 128;
		s->gating = 2;
		s->probs_b = 1;
		s->w_norm = 1;
		s->w_scale10 = 25;
	} else if (is_arch(s, "qwen35moe") || is_arch(s, "qwen3next")) {
		/* qwen35's hybrid; the FFN is routed experts + a gated shared one */
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_shared = 1;
		s->n_ff_exp = 128;
		s->w_norm = 1;
	} else if (is_arch(s, "glm4moe")) {
		/* GLM-4.5: partial rotary, biased qkv, one dense lead, one MTP block */
		s->rope_dims = 32;
		s->n_lead_dense = 1;
		s->n_nextn = 1;
		s->mtp_tensors = 1;
		s->n_expert = 8;
		s->n_expert_used = 2;
		s->n_shared = 1;
		s->n_ff_exp = 128;
		s->gating = 2;
		s->probs_b = 1;
		s->w_norm = 1;
		s->w_scale10 = 25;
		s->qkv_bias = 1;
	}
}

static int validate_moe(const struct synth_spec *s, char **err)
{
	if (!is_ds2(s) && !is_arch(s, "glm4moe") && !is_arch(s, "qwen35moe") && !is_arch(s, "qwen3next") &&
	    !is_arch(s, "kimi-linear"))
		return 0;
	if (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert || !s->n_shared)
		return errorf(err, "%s needs experts >= experts_used > 0, ff_exp > 0 and shared > 0", s->arch);
	if (s->n_lead_dense > s->n_layer)
		return errorf(err, "lead_dense (%u) exceeds layers (%u)", s->n_lead_dense, s->n_layer);
	if (!is_arch(s, "qwen35moe") && !is_arch(s, "qwen3next") && (s->gating < 1 || s->gating > 4))
		return errorf(err, "gating must be 1 (softmax), 2 (sigmoid), 3 (softmax over the chosen) or 4 "
				   "(sqrt softplus)");
	if (s->n_groups && (s->n_expert % s->n_groups || !s->n_groups_used || s->n_groups_used > s->n_groups ||
			    s->n_expert / s->n_groups < 2))
		return errorf(err, "groups must divide experts into groups of 2 or more, groups_used in 1..groups");
	if (s->gate_up && is_arch(s, "glm4moe"))
		return errorf(err, "glm4moe loads separate gate and up expert stacks only (gate_up=0)");
	if (is_arch(s, "kimi-linear") &&
	    (!s->interval || !s->ssm_conv || !s->ssm_state || !s->kv_lora || !s->head_dim_v ||
	     s->rope_dims >= s->head_dim || s->q_lora || s->mha || !s->probs_b || s->n_nextn))
		return errorf(err, "kimi-linear needs interval, ssm_conv, ssm_state (the KDA head size), kv_lora, "
				   "head_dim_v > 0, rope_dims < head_dim, probs_b=1, and q_lora=0, mha=0, nextn=0");
	if (is_arch(s, "deepseek32") && (s->mha || !s->q_lora || s->rope_dims > DS32_IDX_DIM))
		return errorf(err,
			      "deepseek32 requires MLA over a q latent (mha=0, q_lora > 0) and rope_dims <= %d "
			      "(the indexer's key length)",
			      DS32_IDX_DIM);
	if (is_ds2(s)) {
		if (!s->kv_lora || !s->head_dim_v || s->rope_dims >= s->head_dim)
			return errorf(err, "deepseek2 needs kv_lora, head_dim_v > 0 and rope_dims < head_dim");
		if (s->n_nextn && (s->n_nextn > 1 || !s->q_lora || s->mha))
			return errorf(
			    err, "deepseek2's MTP head is one MLA block over a q latent (nextn=1, q_lora > 0, mha=0)");
	}
	return 0;
}

static void keys_moe(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	if (!is_ds2(s) && !is_arch(s, "glm4moe") && !is_arch(s, "qwen35moe") && !is_arch(s, "qwen3next") &&
	    !is_arch(s, "kimi-linear"))
		return;
	akey(k, sizeof(k), s, "expert_count");
	gw_u32(w, k, s->n_expert);
	akey(k, sizeof(k), s, "expert_used_count");
	gw_u32(w, k, s->n_expert_used);
	akey(k, sizeof(k), s, "expert_feed_forward_length");
	gw_u32(w, k, s->n_ff_exp);
	akey(k, sizeof(k), s, "expert_shared_count");
	gw_u32(w, k, s->n_shared);
	if (is_arch(s, "qwen35moe") || is_arch(s, "qwen3next"))
		return;
	akey(k, sizeof(k), s, "leading_dense_block_count");
	gw_u32(w, k, s->n_lead_dense);
	akey(k, sizeof(k), s, "expert_gating_func");
	gw_u32(w, k, s->gating);
	akey(k, sizeof(k), s, "expert_weights_norm");
	gw_bool(w, k, s->w_norm != 0);
	if (s->n_nextn) {
		akey(k, sizeof(k), s, "nextn_predict_layers");
		gw_u32(w, k, s->n_nextn);
	}
	if (s->w_scale10) {
		akey(k, sizeof(k), s, "expert_weights_scale");
		gw_f32(w, k, (float)s->w_scale10 / 10.0f);
	}
	if (s->n_groups) {
		akey(k, sizeof(k), s, "expert_group_count");
		gw_u32(w, k, s->n_groups);
		akey(k, sizeof(k), s, "expert_group_used_count");
		gw_u32(w, k, s->n_groups_used);
	}
	if (is_arch(s, "kimi-linear")) {
		akey(k, sizeof(k), s, "kda.head_dim");
		gw_u32(w, k, s->ssm_state);
		akey(k, sizeof(k), s, "ssm.conv_kernel");
		gw_u32(w, k, s->ssm_conv);
	}
	if (is_ds2(s) || is_arch(s, "kimi-linear")) {
		akey(k, sizeof(k), s, "attention.q_lora_rank");
		gw_u32(w, k, s->q_lora);
		akey(k, sizeof(k), s, "attention.kv_lora_rank");
		gw_u32(w, k, s->kv_lora);
		if (is_arch(s, "deepseek32")) { /* the lightning indexer (deepseek32.cpp load_arch_hparams) */
			akey(k, sizeof(k), s, "attention.indexer.head_count");
			gw_u32(w, k, s->idx_heads ? s->idx_heads : s->n_head);
			akey(k, sizeof(k), s, "attention.indexer.key_length");
			gw_u32(w, k, DS32_IDX_DIM);
			akey(k, sizeof(k), s, "attention.indexer.top_k");
			gw_u32(w, k, s->idx_top_k ? s->idx_top_k : DS32_IDX_TOP_K);
		}
		if (s->temp_scale10) {
			akey(k, sizeof(k), s, "attention.temperature_scale");
			gw_f32(w, k, (float)s->temp_scale10 / 10.0f);
			akey(k, sizeof(k), s, "attention.temperature_length");
			gw_u32(w, k, 8192);
		}
		if (s->mha) /* the old layout: the MHA head sizes are the plain keys */
			return;
		akey(k, sizeof(k), s, "attention.key_length_mla");
		gw_u32(w, k, s->head_dim);
		akey(k, sizeof(k), s, "attention.value_length_mla");
		gw_u32(w, k, s->head_dim_v);
	}
}

/* gate, down, up expert stacks, or gate_up and down fused (gate_up=1:
 * create_tensor_gate_up_exps takes one {embd, 2 x ff_exp, experts}) */
static void expert_stacks(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	if (s->gate_up) {
		expert_stack(t, il, "ffn_gate_up_exps.weight", s->n_embd, 2ull * s->n_ff_exp, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, s->n_embd, s->n_expert);
		return;
	}
	expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
	expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, s->n_embd, s->n_expert);
	expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
}

/* The routed experts of layer il: router (f32), optional selection
 * bias, the three stacks; then the shared expert. */
static void moe_block(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t ne[2] = {s->n_embd, s->n_expert};
	blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
	gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
	if (s->probs_b)
		BV("exp_probs_b.bias", s->n_expert);
	expert_stacks(t, s, il);
	uint64_t sh = (uint64_t)s->n_ff_exp * s->n_shared;
	BM("ffn_gate_shexp.weight", s->n_embd, sh);
	BM("ffn_down_shexp.weight", sh, s->n_embd);
	BM("ffn_up_shexp.weight", s->n_embd, sh);
}

/* DeepSeek-V2/V3 (src/models/deepseek2.cpp) with MLA: latent q (or one
 * attn_q), the compressed KV projection with its rope part, K and V
 * decompression per head (attn_k_b, attn_v_b). */
static void tensors_deepseek2(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint64_t qk = (uint64_t)s->n_head * s->head_dim, nope = s->head_dim - s->rope_dims;
	uint32_t n = s->n_layer + (s->mtp_tensors ? s->n_nextn : 0);
	for (uint32_t il = 0; il < n; il++) {
		BV("attn_norm.weight", s->n_embd);
		if (s->q_lora) {
			BV("attn_q_a_norm.weight", s->q_lora);
			BM("attn_q_a.weight", s->n_embd, s->q_lora);
			BM("attn_q_b.weight", s->q_lora, qk);
		} else {
			BM("attn_q.weight", s->n_embd, qk);
		}
		BV("attn_kv_a_norm.weight", s->kv_lora);
		BM("attn_kv_a_mqa.weight", s->n_embd, s->kv_lora + s->rope_dims);
		if (s->mha) {
			BM("attn_kv_b.weight", s->kv_lora, (uint64_t)s->n_head * (nope + s->head_dim_v));
		} else {
			expert_stack(t, il, "attn_k_b.weight", nope, s->kv_lora, s->n_head);
			expert_stack(t, il, "attn_v_b.weight", s->kv_lora, s->head_dim_v, s->n_head);
		}
		BM("attn_output.weight", (uint64_t)s->n_head * s->head_dim_v, s->n_embd);
		if (is_arch(s, "deepseek32")) { /* the lightning indexer: one key head, n_head query heads */
			BV("indexer.k_norm.weight", DS32_IDX_DIM);
			BV("indexer.k_norm.bias", DS32_IDX_DIM);
			uint32_t ih = s->idx_heads ? s->idx_heads : s->n_head;
			BM("indexer.proj.weight", s->n_embd, ih);
			BM("indexer.attn_k.weight", s->n_embd, DS32_IDX_DIM);
			BM("indexer.attn_q_b.weight", s->q_lora, (uint64_t)ih * DS32_IDX_DIM);
		}
		BV("ffn_norm.weight", s->n_embd);
		if (il < s->n_lead_dense)
			ffn(t, s, il);
		else
			moe_block(t, s, il);
		if (il >= s->n_layer) { /* the MTP block (GLM-4.7-Flash's) */
			BM("nextn.eh_proj.weight", 2ull * s->n_embd, s->n_embd);
			BV("nextn.enorm.weight", s->n_embd);
			BV("nextn.hnorm.weight", s->n_embd);
			BV("nextn.shared_head_norm.weight", s->n_embd);
		}
	}
}

/* Kimi-Linear (src/models/kimi-linear.cpp): Kimi delta attention layers
 * (q, k, v each through a depthwise conv [conv, 1, inner], the gate's and
 * the output gate's low-rank pairs f_a/f_b and g_a/g_b, beta, A, a per-channel
 * dt bias, the output norm) and MLA layers without RoPE (one attn_q,
 * attn_k_b and attn_v_b per head) every `interval` layers; dense lead
 * layers, then biased experts and a shared one. */
static void tensors_kimi_linear(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint64_t hd = s->ssm_state, inner = (uint64_t)s->n_head * s->ssm_state;
	uint64_t nope = s->head_dim - s->rope_dims;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			BM("attn_q.weight", s->n_embd, (uint64_t)s->n_head * s->head_dim);
			BV("attn_kv_a_norm.weight", s->kv_lora);
			BM("attn_kv_a_mqa.weight", s->n_embd, s->kv_lora + s->rope_dims);
			expert_stack(t, il, "attn_k_b.weight", nope, s->kv_lora, s->n_head);
			expert_stack(t, il, "attn_v_b.weight", s->kv_lora, s->head_dim_v, s->n_head);
			BM("attn_output.weight", (uint64_t)s->n_head * s->head_dim_v, s->n_embd);
		} else {
			static const char *const convs[] = {"ssm_conv1d_q.weight", "ssm_conv1d_k.weight",
							    "ssm_conv1d_v.weight"};
			for (int c = 0; c < 3; c++) {
				uint64_t ne[3] = {s->ssm_conv, 1, inner};
				blkname(nm, sizeof(nm), il, convs[c]);
				gw_tensor(t->w, nm, 3, ne, 0, ne[0] * ne[2] * 4);
			}
			BM("attn_q.weight", s->n_embd, inner);
			BM("attn_k.weight", s->n_embd, inner);
			BM("attn_v.weight", s->n_embd, inner);
			BM("ssm_f_a.weight", s->n_embd, hd);
			BM("ssm_f_b.weight", hd, inner);
			BM("ssm_beta.weight", s->n_embd, s->n_head);
			uint64_t a[2] = {1, s->n_head};
			blkname(nm, sizeof(nm), il, "ssm_a");
			gw_tensor(t->w, nm, 2, a, 0, a[1] * 4);
			BV("ssm_dt.bias", inner);
			BM("ssm_g_a.weight", s->n_embd, hd);
			BM("ssm_g_b.weight", hd, inner);
			BV("ssm_norm.weight", hd);
			BM("attn_output.weight", inner, s->n_embd);
		}
		BV("ffn_norm.weight", s->n_embd);
		if (il < s->n_lead_dense)
			ffn(t, s, il);
		else
			moe_block(t, s, il);
	}
}

/* Qwen3.5-MoE (src/models/qwen35moe.cpp): qwen35's layers with the FFN
 * replaced by routed experts (softmax, normalised) and a shared expert of
 * feed_forward_length gated per token by sigmoid(ffn_gate_inp_shexp). */
static void ffn_qwen35(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	if (!is_arch(s, "qwen35moe") && !is_arch(s, "qwen3next")) {
		ffn(t, s, il);
		return;
	}
	uint64_t ne[2] = {s->n_embd, s->n_expert};
	blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
	gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
	expert_stacks(t, s, il);
	BV("ffn_gate_inp_shexp.weight", s->n_embd);
	BM("ffn_gate_shexp.weight", s->n_embd, s->n_ff);
	BM("ffn_down_shexp.weight", s->n_ff, s->n_embd);
	BM("ffn_up_shexp.weight", s->n_embd, s->n_ff);
}

/* GLM-4.5 (src/models/glm4-moe.cpp): biased q/k/v, optional q/k norms,
 * a post-attention norm, dense leading layers, routed experts with a
 * selection bias and a shared expert; the trailing nextn (MTP) blocks
 * carry a whole MoE layer and the eh_proj head. */
static void tensors_glm4moe(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint32_t n = s->n_layer + (s->mtp_tensors ? s->n_nextn : 0);
	for (uint32_t il = 0; il < n; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		if (s->qkv_bias) {
			BV("attn_q.bias", (uint64_t)s->head_dim * s->n_head);
			BV("attn_k.bias", (uint64_t)s->head_dim * s->n_head_kv);
			BV("attn_v.bias", (uint64_t)s->head_dim * s->n_head_kv);
		}
		if (s->qk_norm) {
			BV("attn_q_norm.weight", s->head_dim);
			BV("attn_k_norm.weight", s->head_dim);
		}
		BV("post_attention_norm.weight", s->n_embd);
		if (il < s->n_lead_dense)
			ffn(t, s, il);
		else
			moe_block(t, s, il);
		if (il >= s->n_layer) {
			BM("nextn.eh_proj.weight", 2ull * s->n_embd, s->n_embd);
			BV("nextn.enorm.weight", s->n_embd);
			BV("nextn.hnorm.weight", s->n_embd);
			BV("nextn.shared_head_norm.weight", s->n_embd);
		}
	}
}

/* The writers of this section; -1 when the architecture is not one of
 * them. */
static int tensors_moe(struct tw *t, const struct synth_spec *s)
{
	if (is_ds2(s))
		tensors_deepseek2(t, s);
	else if (is_arch(s, "glm4moe"))
		tensors_glm4moe(t, s);
	else if (is_arch(s, "qwen35moe") || is_arch(s, "qwen3next"))
		tensors_qwen35(t, s);
	else if (is_arch(s, "kimi-linear"))
		tensors_kimi_linear(t, s);
	else
		return -1;
	return 0;
}

static int64_t file_type(uint32_t wtype)
{
	switch (wtype) {
	case 0: return 0;				 /* ALL_F32 */
	case 1: return 1;				 /* MOSTLY_F16 */
	case 2: return 2;				 /* MOSTLY_Q4_0 */
	case 8: return 7;				 /* MOSTLY_Q8_0 */
	case 30: return 32;				 /* MOSTLY_BF16 */
	default: return ggml_type_get(wtype) ? -1 : 141; /* a fork's custom file type */
	}
}

/* general.*: architecture, type, name, file type, sampling defaults. */
static void keys_general(struct gguf_writer *w, const struct synth_spec *s)
{
	gw_str(w, "general.architecture", s->arch);
	gw_str(w, "general.type", "model");
	gw_str(w, "general.name", s->name);
	int64_t ft = file_type(s->wtype);
	if (ft >= 0)
		gw_u32(w, "general.file_type", (uint32_t)ft);
	gw_f32(w, "general.sampling.temp", 1.0f);
	gw_f32(w, "general.sampling.top_p", 0.95f);
	gw_i32(w, "general.sampling.top_k", 20);
	if (answer_mode(s))
		gw_str(w, "zealot.synth.answer", s->answer);
	if (s->alt[0])
		gw_str(w, "zealot.synth.alt", s->alt);
	if (s->image_answer[0])
		gw_str(w, "zealot.synth.image_answer", s->image_answer);
}

/* The geometry every architecture states: blocks, context, widths,
 * heads, head sizes, norm epsilon, RoPE. */
static void keys_geometry(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	akey(k, sizeof(k), s, "block_count");
	gw_u32(w, k, s->n_layer + s->n_nextn);
	akey(k, sizeof(k), s, "context_length");
	gw_u32(w, k, (uint32_t)s->n_ctx); /* the engine insists on u32 */
	akey(k, sizeof(k), s, "embedding_length");
	gw_u32(w, k, s->n_embd);
	akey(k, sizeof(k), s, "feed_forward_length");
	if (strncmp(s->arch, "nemotron_h", 10) == 0) { /* the FFN width on FFN-only layers, 0 elsewhere */
		gw_arr_begin(w, k, GGUF_I32, s->n_layer);
		for (uint32_t il = 0; il < s->n_layer; il++)
			gw_arr_i32(w, nemotron_kind(s, il) == 'F' ? (int32_t)s->n_ff : 0);
	} else {
		gw_u32(w, k, s->n_ff);
	}
	akey(k, sizeof(k), s, "attention.head_count");
	gw_u32(w, k,
	       strstr(s->arch, "rwkv") ? 0
	       : s->heads_meta	       ? s->heads_meta
				       : s->n_head);					 /* rwkv: 0, as converted */
	int mla = (is_ds2(s) || strcmp(s->arch, "kimi-linear") == 0) && !s->mha; /* K-only rows of kv_lora + rope */
	akey(k, sizeof(k), s, "attention.head_count_kv");
	if (strncmp(s->arch, "nemotron_h", 10) == 0) { /* KV heads on attention layers only */
		gw_arr_begin(w, k, GGUF_I32, s->n_layer);
		for (uint32_t il = 0; il < s->n_layer; il++)
			gw_arr_i32(w, nemotron_kind(s, il) == 'A' ? (int32_t)s->n_head_kv : 0);
	} else if (strcmp(s->arch, "granitehybrid") == 0 || strncmp(s->arch, "lfm2", 4) == 0 ||
		   strcmp(s->arch, "jamba") == 0 ||
		   strcmp(s->arch, "kimi-linear") == 0) { /* 0 marks a recurrent layer */
		gw_arr_begin(w, k, GGUF_I32, s->n_layer);
		for (uint32_t il = 0; il < s->n_layer; il++)
			gw_arr_i32(w, (il + 1) % s->interval != 0 ? 0 : mla ? 1 : (int32_t)s->n_head_kv);
	} else if (strcmp(s->arch, "gemma4") != 0 && !strstr(s->arch, "rwkv")) { /* gemma4's: per layer, keys_oss */
		gw_u32(w, k, s->kv_heads_meta ? s->kv_heads_meta : mla ? 1 : is_ds2(s) ? s->n_head : s->n_head_kv);
	}
	akey(k, sizeof(k), s, "attention.key_length");
	gw_u32(w, k, s->head_dim_meta ? s->head_dim_meta : mla ? s->kv_lora + s->rope_dims : s->head_dim);
	akey(k, sizeof(k), s, "attention.value_length");
	gw_u32(w, k,
	       s->head_dim_v_meta ? s->head_dim_v_meta
	       : mla		  ? s->kv_lora
	       : is_ds2(s)	  ? s->head_dim_v
				  : s->head_dim);
	akey(k, sizeof(k), s, "attention.layer_norm_rms_epsilon");
	gw_f32(w, k, 1e-6f);
	akey(k, sizeof(k), s, "rope.freq_base");
	gw_f32(w, k, strncmp(s->arch, "qwen35", 6) == 0 || strcmp(s->arch, "qwen3next") == 0 ? 1e7f : 10000.0f);
	akey(k, sizeof(k), s, "rope.dimension_count");
	gw_u32(w, k, s->rope_dims);
}

/* The SSM mixer's keys (Gated DeltaNet and Mamba-2 alike), its inner
 * width as the family states it. */
static void keys_ssm(struct gguf_writer *w, const struct synth_spec *s, uint32_t inner)
{
	char k[96];
	akey(k, sizeof(k), s, "ssm.conv_kernel");
	gw_u32(w, k, s->ssm_conv);
	akey(k, sizeof(k), s, "ssm.state_size");
	gw_u32(w, k, s->ssm_state);
	if (strcmp(s->arch, "jamba") != 0 &&
	    strcmp(s->arch, "mamba") != 0) { /* mamba (v1) has no groups: the engine reads none */
		akey(k, sizeof(k), s, "ssm.group_count");
		gw_u32(w, k, s->ssm_groups);
	}
	akey(k, sizeof(k), s, "ssm.time_step_rank");
	gw_u32(w, k, s->ssm_dt_rank);
	akey(k, sizeof(k), s, "ssm.inner_size");
	gw_u32(w, k, inner);
}

/* The keys of the recurrent and hybrid families and of qwen3moe. */
/* expert_count and expert_used_count, then expert_feed_forward_length when
 * ff is not 0. */
static void keys_experts(struct gguf_writer *w, const struct synth_spec *s, uint32_t ff)
{
	char k[96];
	akey(k, sizeof(k), s, "expert_count");
	gw_u32(w, k, s->n_expert);
	akey(k, sizeof(k), s, "expert_used_count");
	gw_u32(w, k, s->n_expert_used);
	if (ff) {
		akey(k, sizeof(k), s, "expert_feed_forward_length");
		gw_u32(w, k, ff);
	}
}

/* The expert keys of the MoE families keys_family writes. */
static void keys_family_moe(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	if (strcmp(s->arch, "deepseek") == 0) {
		akey(k, sizeof(k), s, "leading_dense_block_count");
		gw_u32(w, k, s->n_lead_dense);
		akey(k, sizeof(k), s, "expert_shared_count");
		gw_u32(w, k, s->n_shared);
	}
	if (strcmp(s->arch, "ernie4_5-moe") == 0) {
		akey(k, sizeof(k), s, "interleave_moe_layer_step");
		gw_u32(w, k, 1);
		akey(k, sizeof(k), s, "leading_dense_block_count");
		gw_u32(w, k, s->n_lead_dense);
		if (s->n_shared) {
			akey(k, sizeof(k), s, "expert_shared_feed_forward_length");
			gw_u32(w, k, s->n_shared * s->n_ff_exp);
		}
	}
	if (strcmp(s->arch, "olmoe") == 0 || strcmp(s->arch, "phimoe") == 0)
		keys_experts(w, s, 0);
	if (is_cohere(s)) { /* both required by cohere2, the epsilon by command-r */
		akey(k, sizeof(k), s, "attention.layer_norm_epsilon");
		gw_f32(w, k, 1e-5f);
		akey(k, sizeof(k), s, "logit_scale");
		gw_f32(w, k, 0.0625f);
	}
	if (strcmp(s->arch, "llama4") == 0) { /* all required but the window keys */
		keys_experts(w, s, s->n_ff_exp);
		akey(k, sizeof(k), s, "interleave_moe_layer_step");
		gw_u32(w, k, s->interval);
		akey(k, sizeof(k), s, "attention.sliding_window");
		gw_u32(w, k, s->n_swa);
		if (s->swa_pattern) {
			akey(k, sizeof(k), s, "attention.sliding_window_pattern");
			gw_u32(w, k, s->swa_pattern);
		}
	}
	if (strcmp(s->arch, "minimax-m2") == 0) { /* the expert width is required, the stacks are ff wide */
		keys_experts(w, s, s->n_ff);
		akey(k, sizeof(k), s, "expert_gating_func");
		gw_u32(w, k, s->gating);
	}
	if (strcmp(s->arch, "orion") == 0) {
		akey(k, sizeof(k), s, "attention.layer_norm_epsilon");
		gw_f32(w, k, 1e-5f);
	}
	if (strcmp(s->arch, "apertus") == 0) { /* xIELU's parameters per layer, keys without the arch */
		static const char *const xk[] = {"xielu.alpha_n", "xielu.alpha_p", "xielu.beta", "xielu.eps"};
		static const float xv[] = {0.8f, 0.8f, 0.5f, -1e-6f};
		for (size_t i = 0; i < ARRAY_SIZE(xk); i++) {
			gw_arr_begin(w, xk[i], GGUF_F32, s->n_layer);
			for (uint32_t il = 0; il < s->n_layer; il++)
				gw_arr_f32(w, xv[i]);
		}
	}
	if (strcmp(s->arch, "hunyuan-moe") == 0) {
		/* the routed stacks are ff wide, as the key (required) says;
		 * the shared expert ff_exp */
		akey(k, sizeof(k), s, "expert_shared_feed_forward_length");
		gw_u32(w, k, s->n_ff_exp);
		akey(k, sizeof(k), s, "expert_feed_forward_length");
		gw_u32(w, k, s->n_ff);
		akey(k, sizeof(k), s, "expert_count");
		gw_u32(w, k, s->n_expert);
		akey(k, sizeof(k), s, "expert_used_count");
		gw_u32(w, k, s->n_expert_used);
	}
	if (strcmp(s->arch, "qwen3moe") == 0 || strcmp(s->arch, "qwen2moe") == 0 ||
	    strcmp(s->arch, "qwen3vlmoe") == 0 || strcmp(s->arch, "mellum") == 0 ||
	    strcmp(s->arch, "ernie4_5-moe") == 0 || strcmp(s->arch, "deepseek") == 0)
		keys_experts(w, s, s->n_ff_exp);
}

/* The experts of the hybrid MoE families: nemotron_h_moe's (nemotron-h.cpp
 * load_arch_hparams; ff is the shared expert's) and lfm2moe's. */
static void keys_hybrid_moe(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	if (strcmp(s->arch, "nemotron_h_moe") == 0) {
		static const char *const ek[] = {"expert_count", "expert_used_count", "expert_feed_forward_length",
						 "expert_shared_feed_forward_length"};
		const uint32_t ev[] = {s->n_expert, s->n_expert_used, s->n_ff_exp, s->n_ff};
		for (size_t i = 0; i < ARRAY_SIZE(ek); i++) {
			akey(k, sizeof(k), s, ek[i]);
			gw_u32(w, k, ev[i]);
		}
		akey(k, sizeof(k), s, "expert_weights_norm");
		gw_bool(w, k, s->w_norm != 0);
		if (s->w_scale10) {
			akey(k, sizeof(k), s, "expert_weights_scale");
			gw_f32(w, k, (float)s->w_scale10 / 10.0f);
		}
		if (s->moe_latent) {
			akey(k, sizeof(k), s, "moe_latent_size");
			gw_u32(w, k, s->moe_latent);
		}
	}
	if (strcmp(s->arch, "lfm2moe") == 0) { /* src/models/lfm2moe.cpp load_arch_hparams */
		static const char *const ek[] = {"expert_count", "expert_used_count", "expert_feed_forward_length",
						 "leading_dense_block_count", "expert_gating_func"};
		const uint32_t ev[] = {s->n_expert, s->n_expert_used, s->n_ff_exp, s->n_lead_dense, s->gating};
		for (size_t i = 0; i < ARRAY_SIZE(ek); i++) {
			akey(k, sizeof(k), s, ek[i]);
			gw_u32(w, k, ev[i]);
		}
	}
}

static void keys_family(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	if (strncmp(s->arch, "qwen3vl", 7) == 0 || strcmp(s->arch, "qwen2vl") == 0) { /* M-RoPE, required */
		static const int32_t sections[4] = {11, 11, 10, 0};
		akey(k, sizeof(k), s, "rope.dimension_sections");
		gw_arr_begin(w, k, GGUF_I32, 4);
		for (int i = 0; i < 4; i++)
			gw_arr_i32(w, sections[i]);
	}
	if (strncmp(s->arch, "qwen35", 6) == 0) {
		static const int32_t sections[4] = {11, 11, 10, 0};
		akey(k, sizeof(k), s, "rope.dimension_sections");
		gw_arr_begin(w, k, GGUF_I32, 4);
		for (int i = 0; i < 4; i++)
			gw_arr_i32(w, sections[i]);
		akey(k, sizeof(k), s, "full_attention_interval");
		gw_u32(w, k, s->interval);
		keys_ssm(w, s, s->ssm_state * s->ssm_dt_rank);
		if (s->n_nextn) {
			akey(k, sizeof(k), s, "nextn_predict_layers");
			gw_u32(w, k, s->n_nextn);
		}
	}
	if (strcmp(s->arch, "qwen3next") == 0) { /* no rope sections: plain NeoX rope */
		akey(k, sizeof(k), s, "full_attention_interval");
		gw_u32(w, k, s->interval);
		keys_ssm(w, s, s->ssm_state * s->ssm_dt_rank);
	}
	if (strncmp(s->arch, "lfm2", 4) == 0) {
		akey(k, sizeof(k), s, "shortconv.l_cache");
		gw_u32(w, k, s->ssm_conv);
	}
	keys_hybrid_moe(w, s);
	if (strncmp(s->arch, "nemotron_h", 10) == 0) { /* the MTP head's final norm: the engine requires it */
		akey(k, sizeof(k), s, "attention.layer_norm_epsilon");
		gw_f32(w, k, 1e-5f);
	}
	if (strcmp(s->arch, "granitehybrid") == 0 || strcmp(s->arch, "mamba2") == 0 ||
	    strcmp(s->arch, "falcon-h1") == 0 || strncmp(s->arch, "nemotron_h", 10) == 0 ||
	    strcmp(s->arch, "jamba") == 0 || strcmp(s->arch, "mamba") == 0)
		keys_ssm(w, s, 2 * s->n_embd);
	if (strcmp(s->arch, "jamba") == 0 && s->n_expert)
		keys_experts(w, s, 0);
	keys_family_moe(w, s);
}

/* The sliding window of gemma3 and phi3. */
static void keys_swa(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	if ((strcmp(s->arch, "gemma3") == 0 || strcmp(s->arch, "gemma2") == 0 || strcmp(s->arch, "exaone4") == 0 ||
	     strcmp(s->arch, "cohere2") == 0 || strcmp(s->arch, "gemma3n") == 0) &&
	    s->n_swa) {
		akey(k, sizeof(k), s, "attention.sliding_window");
		gw_u32(w, k, s->n_swa);
		akey(k, sizeof(k), s, "attention.sliding_window_pattern");
		gw_u32(w, k, s->swa_pattern);
	}
	if (strcmp(s->arch, "phi3") == 0 && s->n_swa) { /* the engine reads it and turns it off */
		akey(k, sizeof(k), s, "attention.sliding_window");
		gw_u32(w, k, s->n_swa);
	}
}

/* The tensor infos: the embeddings and the output, then the family's
 * blocks. */
static void tensors(struct tw *t, const struct synth_spec *s)
{
	/* bytes=N resizes the offloaded matrices: the input embedding stays
	 * on the host at its type's size */
	t->fixed = 1;
	uint32_t wtype = t->wtype;
	if (answer_mode(s))
		t->wtype = 1; /* f16: the answer's rows are written, exactly */
	uint64_t embd_at = gw_data_at(t->w);
	mat(t, "token_embd.weight", s->n_embd, s->embd_rows ? s->embd_rows : s->n_vocab);
	t->wtype = wtype;
	t->fixed = 0;
	uint64_t norm_at = gw_data_at(t->w);
	vec(t, strncmp(s->arch, "lfm2", 4) == 0 ? "token_embd_norm.weight" : "output_norm.weight", s->n_embd);
	if (strcmp(s->arch, "orion") == 0)
		vec(t, "output_norm.bias", s->n_embd);
	uint64_t out_at = gw_data_at(t->w);
	if (answer_mode(s))
		t->wtype = 1;
	if (strcmp(s->arch, "gemma3") != 0 && strcmp(s->arch, "gemma4") != 0 && strcmp(s->arch, "gemma2") != 0 &&
	    strcmp(s->arch, "gemma3n") != 0 && !is_cohere(s))
		mat(t, "output.weight", s->n_embd, s->n_vocab);
	t->wtype = wtype;
	if (answer_mode(s))
		answer_weights(t->w, s, embd_at, norm_at, out_at);
	if (strcmp(s->arch, "llama") == 0 || strcmp(s->arch, "mistral3") == 0 || is_llama_like(s) ||
	    strcmp(s->arch, "granitemoe") == 0) {
		tensors_llama(t, s);
		if (s->image_answer[0])
			image_weights(t->w, s, t->norm0_at, t->v0_at, t->o0_at);
	} else if (strcmp(s->arch, "gemma3") == 0 || strcmp(s->arch, "gemma2") == 0)
		tensors_gemma3(t, s);
	else if (strcmp(s->arch, "gemma3n") == 0)
		tensors_gemma3n(t, s);
	else if (strcmp(s->arch, "rwkv7") == 0)
		tensors_rwkv7(t, s);
	else if (strncmp(s->arch, "rwkv6", 5) == 0)
		tensors_rwkv6(t, s);
	else if (strcmp(s->arch, "arwkv7") == 0)
		tensors_rwkv7(t, s);
	else if (strcmp(s->arch, "olmo2") == 0 || strcmp(s->arch, "exaone4") == 0)
		tensors_olmo2(t, s);
	else if (strcmp(s->arch, "qwen3moe") == 0 || strcmp(s->arch, "qwen3vlmoe") == 0 ||
		 strcmp(s->arch, "mellum") == 0)
		tensors_qwen3moe(t, s);
	else if (strcmp(s->arch, "granitehybrid") == 0 || strcmp(s->arch, "mamba2") == 0)
		tensors_granitehybrid(t, s);
	else if (strcmp(s->arch, "falcon-h1") == 0)
		tensors_falcon_h1(t, s);
	else if (strcmp(s->arch, "jamba") == 0 || strcmp(s->arch, "mamba") == 0)
		tensors_jamba(t, s);
	else if (strncmp(s->arch, "nemotron_h", 10) == 0)
		tensors_nemotron_h(t, s);
	else if (strcmp(s->arch, "qwen2") == 0 || strcmp(s->arch, "qwen2vl") == 0)
		tensors_qwen2(t, s);
	else if (strcmp(s->arch, "qwen3") == 0 || strcmp(s->arch, "qwen3vl") == 0)
		tensors_qwen3(t, s);
	else if (strcmp(s->arch, "qwen2moe") == 0)
		tensors_qwen2moe(t, s);
	else if (strcmp(s->arch, "hunyuan-moe") == 0)
		tensors_hunyuan_moe(t, s);
	else if (strcmp(s->arch, "glm4") == 0)
		tensors_glm4(t, s);
	else if (strcmp(s->arch, "phimoe") == 0)
		tensors_phimoe(t, s);
	else if (is_cohere(s))
		tensors_cohere(t, s);
	else if (strcmp(s->arch, "minimax-m2") == 0)
		tensors_minimax_m2(t, s);
	else if (strcmp(s->arch, "llama4") == 0)
		tensors_llama4(t, s);
	else if (strcmp(s->arch, "olmoe") == 0 || strcmp(s->arch, "ernie4_5-moe") == 0 ||
		 strcmp(s->arch, "deepseek") == 0)
		tensors_olmoe_ernie(t, s);
	else if (strcmp(s->arch, "phi3") == 0)
		tensors_phi3(t, s);
	else if (strncmp(s->arch, "lfm2", 4) == 0)
		tensors_lfm2(t, s);
	else if (tensors_moe(t, s) == 0)
		;
	else if (!tensors_oss(t, s)) /* gpt-oss, gemma4 */
		tensors_qwen35(t, s);
}

/* The header and the tensor infos of the payload into w. */
static int fill(const struct synth_spec *s, struct gguf_writer *wp, struct tw *tp, char **err)
{
	struct gguf_writer w;
	gw_init(&w);
	keys_general(&w, s);
	keys_geometry(&w, s);
	keys_family(&w, s);
	keys_moe(&w, s);
	keys_swa(&w, s);
	keys_oss(&w, s);
	keys_rwkv7(&w, s);
	tokenizer(&w, s);

	struct tw t = *tp;
	t.w = &w;
	t.wtype = s->wtype;
	t.s = s;
	t.bad = NULL;
	t.seen = 0;
	t.given = 0;
	tensors(&t, s);
	if (refused(&t, err)) /* releases the writer */
		return -1;
	*tp = t;
	*wp = w;
	return 0;
}

static uint64_t file_bytes(struct gguf_writer *w)
{
	uint64_t hlen;
	free(gw_header(w, &hlen));
	return hlen + w->data_size;
}

int synth_write(const struct synth_spec *s, const char *path, uint64_t *bytes, enum zerr *kind, char **err)
{
	zerr_set(kind, ZE_USAGE);
	if (validate(s, err))
		return -1;
	struct gguf_writer w;
	struct tw t;
	memset(&t, 0, sizeof(t));
	if (fill(s, &w, &t, err))
		return -1;
	if (s->target_bytes) {
		/* bytes=N: size the custom matrices so the file has N bytes
		 * (to within the data alignment, which pads every tensor) */
		if (ggml_type_get(s->wtype)) {
			gw_release(&w);
			return errorf(err,
				      "--set bytes=%llu needs a custom weight type (type=142): a stock type's "
				      "tensor sizes are fixed by its blocks",
				      (unsigned long long)s->target_bytes);
		}
		uint64_t elems = t.seen;
		for (int pass = 0; pass < 2; pass++) {
			int64_t off = (int64_t)s->target_bytes - (int64_t)file_bytes(&w);
			gw_release(&w);
			t.extra += off;
			t.elems = elems;
			if (t.extra < -(int64_t)(elems / CUSTOM_BLCK * CUSTOM_SIZE) / 2)
				return errorf(err,
					      "--set bytes=%llu: below what this geometry's tensors need at half "
					      "their size",
					      (unsigned long long)s->target_bytes);
			if (fill(s, &w, &t, err))
				return -1;
		}
	}
	if (s->n_split > 1)
		return written(write_split(&w, path, s->n_split, bytes, err), kind);
	return written(write_out(&w, path, bytes, err), kind);
}

/* --- projector ------------------------------------------------------- */

/* The clip.* keys both towers carry. */
static void clip_keys(struct gguf_writer *w, const char *name, const char *proj, uint32_t file_type, uint32_t image,
		      uint32_t patch, uint32_t embd, uint32_t ff, uint32_t blocks, uint32_t heads,
		      uint32_t projection_dim)
{
	gw_str(w, "general.architecture", "clip");
	gw_str(w, "general.type", "mmproj");
	gw_str(w, "general.name", name);
	gw_u32(w, "general.file_type", file_type);
	gw_bool(w, "clip.has_vision_encoder", 1);
	gw_str(w, "clip.projector_type", proj);
	gw_u32(w, "clip.vision.image_size", image);
	gw_u32(w, "clip.vision.patch_size", patch);
	gw_u32(w, "clip.vision.embedding_length", embd);
	gw_u32(w, "clip.vision.feed_forward_length", ff);
	gw_u32(w, "clip.vision.block_count", blocks);
	gw_u32(w, "clip.vision.attention.head_count", heads);
	gw_f32(w, "clip.vision.attention.layer_norm_epsilon", 1e-6f);
	gw_u32(w, "clip.vision.projection_dim", projection_dim);
}

/* The small tower is a LLaVA-style MLP projector the engine loads and runs
 * (2 ViT blocks of 64, 224 px / 14 px patches), so vision probes reach a
 * real encoder; the preset is header-level (sizes for planning). */
static int projector_mlp(uint32_t projection_dim, int red, const char *path, uint64_t *bytes, enum zerr *kind,
			 char **err)
{
	const uint32_t blocks = 2, embd = 64, ff = 128, heads = 2, image = 224, patch = 14;
	const uint64_t n_pos = (uint64_t)(image / patch) * (image / patch);
	struct gguf_writer w;
	gw_init(&w);
	clip_keys(&w, "zealot-synth-mmproj", "mlp", 0, image, patch, embd, ff, blocks, heads, projection_dim);
	gw_bool(&w, "clip.use_gelu", 1);
	gw_arr_begin(&w, "clip.vision.image_mean", GGUF_F32, 3);
	for (int i = 0; i < 3; i++)
		gw_arr_f32(&w, 0.5f);
	gw_arr_begin(&w, "clip.vision.image_std", GGUF_F32, 3);
	for (int i = 0; i < 3; i++)
		gw_arr_f32(&w, 0.5f);
	struct tw t = {.w = &w};
	uint64_t pe[4] = {patch, patch, 3, embd};
	uint64_t pe_at = gw_data_at(&w);
	gw_tensor(&w, "v.patch_embd.weight", 4, pe, 0, (uint64_t)patch * patch * 3 * embd * 4);
	vec(&t, "v.patch_embd.bias", embd);
	mat(&t, "v.position_embd.weight", embd, n_pos);
	if (red) { /* output 0 = the patch's mean (R - G) / 2: channel 0 at +, 1 at - (image_answer) */
		if (projection_dim <= IMG_ONE)
			return errorf(err, "red=1 needs projection_dim > %d", IMG_ONE);
		for (uint64_t i = 0; i < (uint64_t)patch * patch; i++) {
			poke_f32(&w, pe_at, i, 0.5f / (float)(patch * patch));
			poke_f32(&w, pe_at, (uint64_t)patch * patch + i, -0.5f / (float)(patch * patch));
		}
	}
	char nm[64];
	static const char *const sq[] = {"attn_q", "attn_k", "attn_v", "attn_out"};
	for (uint32_t il = 0; il < blocks; il++) {
		for (size_t k = 0; k < 4; k++) {
			snprintf(nm, sizeof(nm), "v.blk.%u.%s.weight", il, sq[k]);
			mat(&t, nm, embd, embd);
			snprintf(nm, sizeof(nm), "v.blk.%u.%s.bias", il, sq[k]);
			vec(&t, nm, embd);
		}
		snprintf(nm, sizeof(nm), "v.blk.%u.ln1.weight", il);
		vec(&t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ln1.bias", il);
		vec(&t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ln2.weight", il);
		vec(&t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ln2.bias", il);
		vec(&t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ffn_up.weight", il);
		mat(&t, nm, embd, ff);
		snprintf(nm, sizeof(nm), "v.blk.%u.ffn_up.bias", il);
		vec(&t, nm, ff);
		snprintf(nm, sizeof(nm), "v.blk.%u.ffn_down.weight", il);
		mat(&t, nm, ff, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ffn_down.bias", il);
		vec(&t, nm, embd);
	}
	uint64_t mm0_at = gw_data_at(&w);
	mat(&t, "mm.0.weight", embd, projection_dim);
	vec(&t, "mm.0.bias", projection_dim);
	uint64_t mm2_at = gw_data_at(&w);
	mat(&t, "mm.2.weight", projection_dim, projection_dim);
	uint64_t mm2b_at = gw_data_at(&w);
	vec(&t, "mm.2.bias", projection_dim);
	if (red) { /* hidden 0 = output 0; IMG_FLAG = GELU(hidden 0), IMG_ONE = 1 */
		poke_f32(&w, mm0_at, 0, 1.0f);
		poke_f32(&w, mm2_at, (uint64_t)IMG_FLAG * projection_dim, 1.0f);
		poke_f32(&w, mm2b_at, IMG_ONE, 1.0f);
		gw_str(&w, "zealot.synth.projector", "red");
	}
	if (refused(&t, err))
		return -1;
	return written(write_out(&w, path, bytes, err), kind);
}

int synth_projector(const char *preset, uint32_t projection_dim, int red, const char *path, uint64_t *bytes,
		    enum zerr *kind, char **err)
{
	zerr_set(kind, ZE_USAGE);
	if (!projection_dim)
		return errorf(err, "the projector needs the text model's embedding width");
	if (!preset)
		return projector_mlp(projection_dim, red, path, bytes, kind, err);
	if (red)
		return errorf(err, "red=1 is written for the default projector only (no --preset)");
	if (strcmp(preset, "bonsai-9b-mmproj") != 0)
		return errorf(err, "unknown projector preset '%s' (bonsai-9b-mmproj)", preset);
	/* a Qwen3-VL-class tower: 27 blocks of 1152, Q8_0 matrices (header-level) */
	const uint32_t blocks = 27, embd = 1152, ff = 4352, heads = 16, image = 768, patch = 16, wtype = 8;
	struct gguf_writer w;
	gw_init(&w);
	clip_keys(&w, preset, "qwen3vl_merger", 7, image, patch, embd, ff, blocks, heads, projection_dim);
	gw_u32(&w, "clip.vision.spatial_merge_size", 2);
	struct tw t = {.w = &w, .wtype = wtype};
	uint64_t pe[4] = {patch, patch, 3, embd};
	gw_tensor(&w, "v.patch_embd.weight", 4, pe, 1, (uint64_t)patch * patch * 3 * embd * 2);
	vec(&t, "v.patch_embd.bias", embd);
	uint64_t pos[2] = {embd, (uint64_t)(image / patch) * (image / patch)};
	gw_tensor(&w, "v.position_embd.weight", 2, pos, 0, pos[0] * pos[1] * 4);
	char nm[64];
	for (uint32_t il = 0; il < blocks; il++) {
#define VB(suffix) snprintf(nm, sizeof(nm), "v.blk.%u." suffix, il)
		VB("ln1.weight");
		vec(&t, nm, embd);
		VB("ln1.bias");
		vec(&t, nm, embd);
		VB("attn_qkv.weight");
		mat(&t, nm, embd, 3ull * embd);
		VB("attn_qkv.bias");
		vec(&t, nm, 3ull * embd);
		VB("attn_out.weight");
		mat(&t, nm, embd, embd);
		VB("attn_out.bias");
		vec(&t, nm, embd);
		VB("ln2.weight");
		vec(&t, nm, embd);
		VB("ln2.bias");
		vec(&t, nm, embd);
		VB("ffn_up.weight");
		mat(&t, nm, embd, ff);
		VB("ffn_up.bias");
		vec(&t, nm, ff);
		VB("ffn_down.weight");
		mat(&t, nm, ff, embd);
		VB("ffn_down.bias");
		vec(&t, nm, embd);
#undef VB
	}
	uint64_t merged = 4ull * embd;
	vec(&t, "v.post_ln.weight", embd);
	vec(&t, "v.post_ln.bias", embd);
	mat(&t, "mm.0.weight", merged, merged);
	vec(&t, "mm.0.bias", merged);
	mat(&t, "mm.2.weight", merged, projection_dim);
	vec(&t, "mm.2.bias", projection_dim);
	if (refused(&t, err))
		return -1;
	return written(write_out(&w, path, bytes, err), kind);
}

/* --- adapter --------------------------------------------------------- */

static int lora_target(const char *name)
{
	static const char *const suffixes[] = {".attn_output.weight", ".ssm_out.weight", ".ffn_down.weight"};
	if (strncmp(name, "blk.", 4) != 0 || strstr(name, ".nextn."))
		return 0;
	size_t n = strlen(name);
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t m = strlen(suffixes[i]);
		if (n > m && strcmp(name + n - m, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

static void lora_pair(struct gguf_writer *w, const char *name, uint64_t in, uint64_t out, uint32_t rank, int embd)
{
	char nm[96];
	uint64_t a[2], b[2];
	if (embd) { /* token_embd: A and B flipped (llm_build_inp_embd) */
		a[0] = rank;
		a[1] = out;
		b[0] = in;
		b[1] = rank;
	} else {
		a[0] = in;
		a[1] = rank;
		b[0] = rank;
		b[1] = out;
	}
	snprintf(nm, sizeof(nm), "%s.lora_a", name);
	gw_tensor(w, nm, 2, a, 0, a[0] * a[1] * 4);
	snprintf(nm, sizeof(nm), "%s.lora_b", name);
	gw_tensor(w, nm, 2, b, 0, b[0] * b[1] * 4);
}

/* The base's vocabulary id whose text is the answer in the byte-level
 * alphabet, or -1. */
static int64_t answer_id(const struct gguf *g, const char *answer)
{
	struct sb want = {0};
	char buf[4];
	for (const char *p = answer; *p; p++)
		sb_add(&want, buf, byte_token((unsigned char)*p, buf));
	const struct gguf_kv *toks = gguf_find(g, "tokenizer.ggml.tokens");
	uint64_t idx = 0;
	const uint8_t *pos = NULL;
	struct gguf_str str;
	int64_t found = -1;
	while (found < 0 && gguf_arr_next_str(toks, &idx, &pos, &str) == 0)
		if (str.n == want.len && memcmp(str.p, want.s, want.len) == 0 && idx - 1 >= 256)
			found = (int64_t)(idx - 1);
	sb_release(&want);
	return found;
}

int synth_lora_answer(const char *base_path, const char *answer, float alpha, const char *path, uint64_t *bytes,
		      enum zerr *kind, char **err)
{
	struct gguf_file *base = gguf_open(base_path, kind, err);
	if (!base)
		return -1;
	zerr_set(kind, ZE_USAGE);
	const struct gguf *g = base->g;
	const struct gguf_kv *arch = gguf_find(g, "general.architecture");
	const struct gguf_tensor *out = gguf_tensor_find(g, "output.weight");
	int64_t to = answer_id(g, answer);
	int rc = 0;
	if (!gguf_find(g, "zealot.synth.answer") || !arch || arch->type != GGUF_STRING || !out || out->n_dims != 2)
		rc = errorf(err, "'%s' is not a payload synth wrote with --set answer=TEXT", base_path);
	else if (to < 0 || to == ANS_TOKEN)
		rc = errorf(err, "'%s' has no second answer '%s' in its vocabulary (write it with --set alt='%s')",
			    base_path, answer, answer);
	if (rc) {
		gguf_close(base);
		return rc;
	}
	struct gguf_writer w;
	gw_init(&w);
	char *arch_s = xstrndup(arch->v.s.p, (size_t)arch->v.s.n);
	gw_str(&w, "general.architecture", arch_s);
	free(arch_s);
	gw_str(&w, "general.type", "adapter");
	gw_str(&w, "general.name", "zealot-synth-lora-answer");
	gw_str(&w, "adapter.type", "lora");
	gw_f32(&w, "adapter.lora.alpha", alpha);
	gw_str(&w, "zealot.synth.answer", answer);
	/* rank 1 on output.weight: A reads state 1 ("</think>"), B moves its
	 * successor from the base answer to this one (scale alpha / rank) */
	uint64_t a_at = gw_data_at(&w);
	lora_pair(&w, "output.weight", out->ne[0], out->ne[1], 1, 0);
	uint64_t b_at = a_at + (out->ne[0] * 4 + w.alignment - 1) / w.alignment * w.alignment;
	poke_f32(&w, a_at, 1, 1.0f);
	poke_f32(&w, b_at, ANS_TOKEN, -2 * ANS_WEIGHT / alpha);
	poke_f32(&w, b_at, (uint64_t)to, 2 * ANS_WEIGHT / alpha);
	gguf_close(base);
	return written(write_out(&w, path, bytes, err), kind);
}

int synth_lora(const char *base_path, uint32_t rank, float alpha, int touch_embd, const char *base_name,
	       const char *path, uint64_t *bytes, enum zerr *kind, char **err)
{
	zerr_set(kind, ZE_USAGE);
	if (!rank)
		return errorf(err, "rank must be positive");
	struct gguf_file *base = gguf_open(base_path, kind, err);
	if (!base)
		return -1;
	zerr_set(kind, ZE_USAGE);
	const struct gguf_kv *arch = gguf_find(base->g, "general.architecture");
	if (!arch || arch->type != GGUF_STRING) {
		gguf_close(base);
		return errorf(err, "'%s' names no architecture", base_path);
	}
	char *arch_s = xstrndup(arch->v.s.p, (size_t)arch->v.s.n);
	/* MTP blocks are loaded only when a drafter is armed: an adapter on
	 * them would not apply to a plain boot, so the trunk only. */
	uint64_t blocks = 0, nextn = 0;
	char key[96];
	snprintf(key, sizeof(key), "%s.block_count", arch_s);
	gguf_kv_u64(gguf_find(base->g, key), &blocks);
	snprintf(key, sizeof(key), "%s.nextn_predict_layers", arch_s);
	gguf_kv_u64(gguf_find(base->g, key), &nextn);
	uint64_t n_trunk = blocks > nextn ? blocks - nextn : 0;
	struct gguf_writer w;
	gw_init(&w);
	gw_str(&w, "general.architecture", arch_s);
	gw_str(&w, "general.type", "adapter");
	gw_str(&w, "general.name", "zealot-synth-lora");
	gw_str(&w, "adapter.type", "lora");
	gw_f32(&w, "adapter.lora.alpha", alpha);
	if (base_name)
		gw_str(&w, "zealot.synth.base_gguf", base_name);
	for (uint64_t i = 0; i < base->g->n_tensors; i++) {
		const struct gguf_tensor *t = &base->g->tensors[i];
		if (t->n_dims == 2 && lora_target(t->name) && strtoull(t->name + 4, NULL, 10) < n_trunk)
			lora_pair(&w, t->name, t->ne[0], t->ne[1], rank, 0);
		if (touch_embd && strcmp(t->name, "token_embd.weight") == 0)
			lora_pair(&w, t->name, t->ne[0], t->ne[1], rank, 1);
	}
	free(arch_s);
	gguf_close(base);
	return written(write_out(&w, path, bytes, err), kind);
}

/* --- gpt-oss, gemma4, mistral3 ------------------------------------------
 * synth_defaults_oss, validate_oss, keys_oss and tensors_oss are the
 * hooks synth_write calls for these three; each does nothing for an
 * architecture that is not its own. */

/* gpt-oss (src/models/openai-moe.cpp): alternating sliding-window (128)
 * and full attention layers, biases on q/k/v/o, an attention sink per
 * head, and a router with a bias over expert stacks that carry biases;
 * the experts may take their own type (exp_type, MXFP4 in real files). */
static void synth_defaults_oss(struct synth_spec *s)
{
	s->n_expert = 8;
	s->n_expert_used = 2;
	s->n_ff_exp = 256;
	s->n_swa = 128;
	if (strcmp(s->arch, "gemma4") != 0)
		return;
	/* Gemma4-26B-A4B's shape in small: 5 window layers to 1 full, the
	 * full layers with wider heads, fewer KV heads and K equal to V */
	s->n_layer = 6;
	s->n_swa = 512;
	s->swa_pattern = 3;
	s->head_dim = 128;
	s->n_head_kv = 1;
	s->head_dim_swa = 64;
	s->kv_heads_swa = 2;
	s->kv_eq = 1;
}

static int validate_gemma4(const struct synth_spec *s, char **err);
static void keys_gemma4(struct gguf_writer *w, const struct synth_spec *s);
static int tensors_gemma4(struct tw *t, const struct synth_spec *s);

static int validate_oss(const struct synth_spec *s, char **err)
{
	if (strcmp(s->arch, "gemma4") == 0)
		return validate_gemma4(s, err);
	if (strcmp(s->arch, "gpt-oss") != 0)
		return 0;
	if (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert)
		return errorf(err, "gpt-oss needs experts >= experts_used > 0 and ff_exp > 0");
	if (s->rope_dims != s->head_dim)
		return errorf(err, "gpt-oss requires rope_dims == head_dim");
	if (!s->n_swa)
		return errorf(err, "gpt-oss needs a sliding window (swa > 0)");
	if (s->exp_typed && !ggml_type_get(s->exp_type))
		return errorf(err, "exp_type=%u is not a type ggml knows", s->exp_type);
	return 0;
}

static void keys_oss(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	if (strcmp(s->arch, "gemma4") == 0)
		keys_gemma4(w, s);
	if (strncmp(s->arch, "granite", 7) == 0 && strcmp(s->arch, "granitehybrid") != 0) {
		/* Granite's scales: the logits' is required */
		akey(k, sizeof(k), s, "logit_scale");
		gw_f32(w, k, 8.0f);
		akey(k, sizeof(k), s, "residual_scale");
		gw_f32(w, k, 0.22f);
		akey(k, sizeof(k), s, "embedding_scale");
		gw_f32(w, k, 12.0f);
	}
	if ((strcmp(s->arch, "mistral3") == 0 || strcmp(s->arch, "granitemoe") == 0) && s->n_expert) {
		akey(k, sizeof(k), s, "expert_count");
		gw_u32(w, k, s->n_expert);
		akey(k, sizeof(k), s, "expert_used_count");
		gw_u32(w, k, s->n_expert_used);
	}
	if (strcmp(s->arch, "mistral3") == 0 && s->temp_scale) {
		/* llama-4 attention temperature (Ministral 3) */
		akey(k, sizeof(k), s, "attention.temperature_scale");
		gw_f32(w, k, 0.1f);
	}
	if (strcmp(s->arch, "gpt-oss") != 0)
		return;
	akey(k, sizeof(k), s, "expert_count");
	gw_u32(w, k, s->n_expert);
	akey(k, sizeof(k), s, "expert_used_count");
	gw_u32(w, k, s->n_expert_used);
	akey(k, sizeof(k), s, "expert_feed_forward_length");
	gw_u32(w, k, s->n_ff_exp);
	akey(k, sizeof(k), s, "attention.sliding_window");
	gw_u32(w, k, s->n_swa);
	if (s->swa_pattern) {
		akey(k, sizeof(k), s, "attention.sliding_window_pattern");
		gw_u32(w, k, s->swa_pattern);
	}
}

/* An expert stack of the experts' type, and its bias [out, experts]. */
static void expert_pair(struct tw *t, const struct synth_spec *s, uint32_t il, const char *name, uint64_t ne0,
			uint64_t ne1)
{
	char nm[64];
	uint32_t keep = t->wtype;
	if (s->exp_typed)
		t->wtype = s->exp_type;
	snprintf(nm, sizeof(nm), "%s.weight", name);
	expert_stack(t, il, nm, ne0, ne1, s->n_expert);
	t->wtype = keep;
	uint64_t ne[2] = {ne1, s->n_expert};
	blkname(nm, sizeof(nm), il, name);
	size_t n = strlen(nm);
	snprintf(nm + n, sizeof(nm) - n, ".bias");
	gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
}

static int tensors_oss(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	if (strcmp(s->arch, "gemma4") == 0)
		return tensors_gemma4(t, s);
	if (strcmp(s->arch, "gpt-oss") != 0)
		return 0;
	uint64_t q = (uint64_t)s->head_dim * s->n_head, kv = (uint64_t)s->head_dim * s->n_head_kv;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		BV("attn_q.bias", q);
		BV("attn_k.bias", kv);
		BV("attn_v.bias", kv);
		BV("attn_output.bias", s->n_embd);
		BV("attn_sinks.weight", s->n_head);
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		BV("ffn_gate_inp.bias", s->n_expert);
		expert_pair(t, s, il, "ffn_gate_exps", s->n_embd, s->n_ff_exp);
		expert_pair(t, s, il, "ffn_down_exps", s->n_ff_exp, s->n_embd);
		expert_pair(t, s, il, "ffn_up_exps", s->n_embd, s->n_ff_exp);
	}
	return 1;
}

/* --- gemma4 ------------------------------------------------------------ */

/* Gemma 4 (src/models/gemma4.cpp): a per-layer window pattern (every
 * swa_pattern-th layer full), full layers with their own head size and KV
 * heads, K equal to V on the full layers (no attn_v: the engine stores K's
 * projection as V too, law M11), the last shared_kv layers without K or V
 * of their own (they read the cache of the last full and window layers
 * before them), and with experts > 0 a MoE beside the dense FFN. */
static int swa_layer_g4(const struct synth_spec *s, uint32_t il)
{
	return il % s->swa_pattern < s->swa_pattern - 1;
}

static int validate_gemma4(const struct synth_spec *s, char **err)
{
	if (!s->n_swa || s->swa_pattern < 2)
		return errorf(err, "gemma4 needs a sliding window (swa > 0) and swa_pattern >= 2");
	if (!s->head_dim_swa || !s->kv_heads_swa || s->n_head % s->kv_heads_swa)
		return errorf(err, "gemma4: heads (%u) must be a multiple of kv_heads_swa (%u)", s->n_head,
			      s->kv_heads_swa);
	if (s->rope_dims != s->head_dim)
		return errorf(err, "gemma4 requires rope_dims == head_dim");
	if (s->n_expert && (!s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert))
		return errorf(err, "gemma4 with experts needs experts >= experts_used > 0 and ff_exp > 0");
	if (s->shared_kv) {
		/* the engine's reuse map: a shared layer reads layer
		 * n_kv - 1 (full) or n_kv - 2 (window) */
		uint32_t n_kv = s->n_layer > s->shared_kv ? s->n_layer - s->shared_kv : 0;
		if (n_kv < 2 || swa_layer_g4(s, n_kv - 1) || !swa_layer_g4(s, n_kv - 2))
			return errorf(
			    err,
			    "gemma4: shared_kv=%u leaves layer %u as the last with a cache; it must be a full "
			    "layer after a window layer",
			    s->shared_kv, n_kv ? n_kv - 1 : 0);
	}
	return 0;
}

static void keys_gemma4(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	akey(k, sizeof(k), s, "attention.head_count_kv");
	gw_arr_begin(w, k, GGUF_I32, s->n_layer);
	for (uint32_t il = 0; il < s->n_layer; il++)
		gw_arr_i32(w, (int32_t)(swa_layer_g4(s, il) ? s->kv_heads_swa : s->n_head_kv));
	akey(k, sizeof(k), s, "attention.sliding_window");
	gw_u32(w, k, s->n_swa);
	akey(k, sizeof(k), s, "attention.sliding_window_pattern");
	gw_arr_begin(w, k, GGUF_BOOL, s->n_layer);
	for (uint32_t il = 0; il < s->n_layer; il++)
		gw_arr_bool(w, swa_layer_g4(s, il));
	akey(k, sizeof(k), s, "attention.key_length_swa");
	gw_u32(w, k, s->head_dim_swa);
	akey(k, sizeof(k), s, "attention.value_length_swa");
	gw_u32(w, k, s->head_dim_swa);
	akey(k, sizeof(k), s, "rope.dimension_count_swa");
	gw_u32(w, k, s->head_dim_swa);
	akey(k, sizeof(k), s, "embedding_length_per_layer_input");
	gw_u32(w, k, s->per_layer);
	if (s->shared_kv) {
		akey(k, sizeof(k), s, "attention.shared_kv_layers");
		gw_u32(w, k, s->shared_kv);
	}
	if (s->n_expert) {
		akey(k, sizeof(k), s, "expert_count");
		gw_u32(w, k, s->n_expert);
		akey(k, sizeof(k), s, "expert_used_count");
		gw_u32(w, k, s->n_expert_used);
		akey(k, sizeof(k), s, "expert_feed_forward_length");
		gw_u32(w, k, s->n_ff_exp);
	}
}

static int tensors_gemma4(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint32_t n_kv = s->n_layer - s->shared_kv;
	int freqs = 0;
	if (s->per_layer) {
		mat(t, "per_layer_token_embd.weight", (uint64_t)s->per_layer * s->n_layer, s->n_vocab);
		mat(t, "per_layer_model_proj.weight", s->n_embd, (uint64_t)s->per_layer * s->n_layer);
		vec(t, "per_layer_proj_norm.weight", s->per_layer);
	}
	for (uint32_t il = 0; il < s->n_layer; il++) {
		int swa = swa_layer_g4(s, il);
		uint64_t hd = swa ? s->head_dim_swa : s->head_dim;
		uint64_t kv = hd * (swa ? s->kv_heads_swa : s->n_head_kv);
		BV("attn_norm.weight", s->n_embd);
		BM("attn_q.weight", s->n_embd, hd * s->n_head);
		BV("attn_q_norm.weight", hd);
		if (il < n_kv) {
			BM("attn_k.weight", s->n_embd, kv);
			BV("attn_k_norm.weight", hd);
			if (swa || !s->kv_eq)
				BM("attn_v.weight", s->n_embd, kv);
		}
		BM("attn_output.weight", hd * s->n_head, s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		if (!swa && !freqs) { /* one proportional-rope table, shared */
			vec(t, "rope_freqs.weight", hd / 2);
			freqs = 1;
		}
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
		BV("post_ffw_norm.weight", s->n_embd);
		if (s->per_layer) {
			BM("inp_gate.weight", s->n_embd, s->per_layer);
			BM("proj.weight", s->per_layer, s->n_embd);
			BV("post_norm.weight", s->n_embd);
		}
		if (!s->n_expert)
			continue;
		uint64_t ne[2] = {s->n_embd, s->n_expert};
		blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
		gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
		BV("ffn_gate_inp.scale", s->n_embd);
		BV("pre_ffw_norm_2.weight", s->n_embd);
		BV("post_ffw_norm_1.weight", s->n_embd);
		BV("post_ffw_norm_2.weight", s->n_embd);
		expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, s->n_embd, s->n_expert);
		expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, s->n_ff_exp, s->n_expert);
	}
	return 1;
}

/* --- gemma3n ------------------------------------------------------------ */

/* Gemma 3n (src/models/gemma3n.cpp): gemma3's attention (q/k norms, a
 * window on 4 layers of 5) with the engine's fixed widths for the rest,
 * which no key sets (llama-hparams.h): 4 altup streams, a laurel rank of
 * 64 and per-layer inputs 256 wide. Every layer carries q, k and v; the
 * layers past the first 20 read an earlier layer's cache all the same
 * (load_arch_hparams: n_layer_kv_from_start = 20). */
#define G3N_ALTUP  4
#define G3N_LAUREL 64
#define G3N_PLE	   256

/* an f32 tensor of n dimensions (the altup coefficients are 4 wide:
 * no quantized block fits them) */
static void f32_tensor(struct tw *t, const char *name, uint32_t n_dims, uint64_t ne0, uint64_t ne1, uint64_t ne2)
{
	uint64_t ne[3] = {ne0, ne1, ne2};
	gw_tensor(t->w, name, n_dims, ne, 0, ne0 * ne1 * ne2 * 4);
}

static void tensors_gemma3n(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint64_t E = s->n_embd;
	f32_tensor(t, "altup_proj.weight", 3, E, E, G3N_ALTUP - 1);
	f32_tensor(t, "altup_unembd_proj.weight", 3, E, E, G3N_ALTUP - 1);
	mat(t, "per_layer_token_embd.weight", (uint64_t)G3N_PLE * s->n_layer, s->n_vocab);
	mat(t, "per_layer_model_proj.weight", E, (uint64_t)G3N_PLE * s->n_layer);
	vec(t, "per_layer_proj_norm.weight", G3N_PLE);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", E);
		qkv(t, s, il, 1);
		BV("attn_q_norm.weight", s->head_dim);
		BV("attn_k_norm.weight", s->head_dim);
		BV("post_attention_norm.weight", E);
		BV("ffn_norm.weight", E);
		ffn(t, s, il);
		BV("post_ffw_norm.weight", E);
		BM("inp_gate.weight", E, G3N_PLE);
		BM("proj.weight", G3N_PLE, E);
		BV("post_norm.weight", E);
		blkname(nm, sizeof(nm), il, "altup_correct_coef.weight");
		f32_tensor(t, nm, 2, G3N_ALTUP, G3N_ALTUP, 1);
		BV("altup_correct_scale.weight", E);
		blkname(nm, sizeof(nm), il, "altup_predict_coef.weight");
		f32_tensor(t, nm, 2, G3N_ALTUP, G3N_ALTUP * G3N_ALTUP, 1);
		blkname(nm, sizeof(nm), il, "altup_router.weight");
		f32_tensor(t, nm, 2, E, G3N_ALTUP, 1);
		BV("altup_router_norm.weight", E);
		BM("laurel_l.weight", E, G3N_LAUREL);
		BM("laurel_r.weight", G3N_LAUREL, E);
		BV("laurel_post_norm.weight", E);
	}
}

/* --- rwkv7 -------------------------------------------------------------- */

/* RWKV-7 (src/models/rwkv7.cpp): no attention and no KV cache; per layer
 * a time mix (receptance, key, value, output E x E, the decay, in-context
 * learning rate, value-residual and gate low-rank pairs, six fused lerp
 * rows) and a channel mix (key E x ff, value ff x E), layer norms with
 * biases, the token embeddings normed (token_embd_norm). The ranks are
 * the converter's for a small model; head_dim is wkv.head_size. */
#define RWKV7_DECAY 64
#define RWKV7_ICLR  64
#define RWKV7_VRES  32
#define RWKV7_GATE  128
#define RWKV6_MIX   32
#define RWKV6_DECAY 64

static void keys_rwkv7(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	if (!strstr(s->arch, "rwkv"))
		return;
	if (strcmp(s->arch, "arwkv7") == 0 || strcmp(s->arch, "rwkv6qwen2") == 0) { /* one shift state */
		akey(k, sizeof(k), s, "token_shift_count");
		gw_u32(w, k, 1);
	}
	if (strcmp(s->arch, "rwkv6qwen2") == 0) { /* QRWKV: KV heads of head_dim (GQA) */
		akey(k, sizeof(k), s, "attention.head_count_kv");
		gw_u32(w, k, s->n_head_kv);
	}
	akey(k, sizeof(k), s, "attention.layer_norm_epsilon");
	gw_f32(w, k, 1e-5f);
	akey(k, sizeof(k), s, "wkv.head_size");
	gw_u32(w, k, s->head_dim);
	if (strncmp(s->arch, "rwkv6", 5) == 0) { /* the converter's widths; rwkv6 halves every 6 layers */
		akey(k, sizeof(k), s, "time_mix_extra_dim");
		gw_u32(w, k, RWKV6_MIX);
		akey(k, sizeof(k), s, "time_decay_extra_dim");
		gw_u32(w, k, RWKV6_DECAY);
		if (strcmp(s->arch, "rwkv6") == 0) {
			akey(k, sizeof(k), s, "rescale_every_n_layers");
			gw_u32(w, k, 6);
		}
		return;
	}
	akey(k, sizeof(k), s, "attention.decay_lora_rank");
	gw_u32(w, k, RWKV7_DECAY);
	akey(k, sizeof(k), s, "attention.iclr_lora_rank");
	gw_u32(w, k, RWKV7_ICLR);
	akey(k, sizeof(k), s, "attention.value_residual_mix_lora_rank");
	gw_u32(w, k, RWKV7_VRES);
	akey(k, sizeof(k), s, "attention.gate_lora_rank");
	gw_u32(w, k, RWKV7_GATE);
}

static void tensors_rwkv7(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint64_t E = s->n_embd;
	int a7 = strcmp(s->arch, "arwkv7") == 0; /* RMS norms, a llama FFN, no grouped norm */
	if (!a7) {
		vec(t, "output_norm.bias", E);
		vec(t, "token_embd_norm.weight", E);
		vec(t, "token_embd_norm.bias", E);
	}
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", E);
		if (!a7) {
			BV("attn_norm.bias", E);
			BV("attn_norm_2.weight", E);
			BV("attn_norm_2.bias", E);
		}
		BV("time_mix_w0.weight", E);
		BM("time_mix_w1.weight", E, RWKV7_DECAY);
		BM("time_mix_w2.weight", RWKV7_DECAY, E);
		BV("time_mix_a0.weight", E);
		BM("time_mix_a1.weight", E, RWKV7_ICLR);
		BM("time_mix_a2.weight", RWKV7_ICLR, E);
		uint64_t vr = il == 0 ? RWKV7_ICLR : RWKV7_VRES; /* layer 0's pair is iclr wide (unused) */
		BV("time_mix_v0.weight", E);
		BM("time_mix_v1.weight", E, vr);
		BM("time_mix_v2.weight", vr, E);
		BM("time_mix_g1.weight", E, RWKV7_GATE);
		BM("time_mix_g2.weight", RWKV7_GATE, E);
		uint64_t ne[4] = {E, 1, 1, 6};
		blkname(nm, sizeof(nm), il, "time_mix_lerp_fused.weight");
		gw_tensor(t->w, nm, 4, ne, 0, E * 6 * 4);
		BV("time_mix_k_k.weight", E);
		BV("time_mix_k_a.weight", E);
		BV("time_mix_r_k.weight", E);
		BM("time_mix_key.weight", E, E);
		BM("time_mix_value.weight", E, E);
		BM("time_mix_receptance.weight", E, E);
		BM("time_mix_output.weight", E, E);
		if (a7) {
			BV("ffn_norm.weight", E);
			ffn(t, s, il);
			continue;
		}
		BV("time_mix_ln.weight", E);
		BV("time_mix_ln.bias", E);
		BV("channel_mix_lerp_k.weight", E);
		BM("channel_mix_key.weight", E, s->n_ff);
		BM("channel_mix_value.weight", s->n_ff, E);
	}
}

/* RWKV-6 (src/models/rwkv6.cpp): the converter's fused lerps (x, then w,
 * k, v, r, g stacked), a 5-way token-shift low-rank pair, the decay's
 * pair, a per-head time_first, a SiLU gate; the channel mix with a
 * receptance. */
static void tensors_rwkv6(struct tw *t, const struct synth_spec *s)
{
	char nm[64];
	uint64_t E = s->n_embd;
	/* RWKV6-Qwen2 (QRWKV): RMS norms, no time_first (gated linear
	 * attention), K and V n_head_kv heads wide with biases, a llama FFN */
	int q2 = strcmp(s->arch, "rwkv6qwen2") == 0;
	uint64_t kv = q2 ? (uint64_t)s->n_head_kv * s->head_dim : E;
	if (!q2) {
		vec(t, "output_norm.bias", E);
		vec(t, "token_embd_norm.weight", E);
		vec(t, "token_embd_norm.bias", E);
	}
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", E);
		if (!q2) {
			BV("attn_norm.bias", E);
			BV("attn_norm_2.weight", E);
			BV("attn_norm_2.bias", E);
		}
		BM("time_mix_w1.weight", E, RWKV6_MIX * 5);
		blkname(nm, sizeof(nm), il, "time_mix_w2.weight");
		f32_tensor(t, nm, 3, RWKV6_MIX, E, 5);
		BV("time_mix_lerp_x.weight", E);
		uint64_t ne[4] = {E, 1, 1, 5};
		blkname(nm, sizeof(nm), il, "time_mix_lerp_fused.weight");
		gw_tensor(t->w, nm, 4, ne, 0, E * 5 * 4);
		if (!q2) {
			blkname(nm, sizeof(nm), il, "time_mix_first.weight");
			f32_tensor(t, nm, 2, s->head_dim, E / s->head_dim, 1);
		}
		BV("time_mix_decay.weight", E);
		BM("time_mix_decay_w1.weight", E, RWKV6_DECAY);
		BM("time_mix_decay_w2.weight", RWKV6_DECAY, E);
		BM("time_mix_key.weight", E, kv);
		BM("time_mix_value.weight", E, kv);
		BM("time_mix_receptance.weight", E, E);
		BM("time_mix_gate.weight", E, E);
		if (q2) {
			BV("time_mix_key.bias", kv);
			BV("time_mix_value.bias", kv);
			BV("time_mix_receptance.bias", E);
			BM("time_mix_output.weight", E, E);
			BV("ffn_norm.weight", E);
			ffn(t, s, il);
			continue;
		}
		BV("time_mix_ln.weight", E);
		BV("time_mix_ln.bias", E);
		BM("time_mix_output.weight", E, E);
		BV("channel_mix_lerp_k.weight", E);
		BV("channel_mix_lerp_r.weight", E);
		BM("channel_mix_key.weight", E, s->n_ff);
		BM("channel_mix_value.weight", s->n_ff, E);
		BM("channel_mix_receptance.weight", E, E);
	}
}
