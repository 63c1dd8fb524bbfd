/* synth's --set keys: the table of the spec's numeric fields, the text
 * ones (name, answer, alt, image_answer), the weight types by ggml name,
 * id or llama.cpp file-type name, and their help. */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../ggml_type.h"
#include "../synth.h"
#include "synth_int.h"

struct synth_key {
	const char *name;
	size_t off;
	int wide;
	const char *help;
};

static const struct synth_key keys[] = {
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
    {"rope_dims", offsetof(struct synth_spec, rope_dims), 0,
     "rotary dimensions (default: the architecture's head_dim; it does not follow a head_dim set here)"},
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
    {"o_groups", offsetof(struct synth_spec, o_groups), 0, "deepseek4: output projection groups (divide heads)"},
    {"o_lora", offsetof(struct synth_spec, o_lora), 0, "deepseek4: output projection rank per group"},
    {"hash_layers", offsetof(struct synth_spec, hash_layers), 0, "deepseek4: leading hash-routed MoE layers"},
    {"raw_layers", offsetof(struct synth_spec, raw_layers), 0,
     "deepseek4: leading uncompressed layers; the rest alternate CSA (4) and HCA (128)"},
    {"kv_lora_swa", offsetof(struct synth_spec, kv_lora_swa), 0,
     "dots3note: the window layers' kv_lora_rank (0: kv_lora; head_dim_swa their key head)"},
    {"heads_swa", offsetof(struct synth_spec, n_head_swa), 0, "dots3note: the window layers' heads (0: heads)"},
    {"head_dim_v_swa", offsetof(struct synth_spec, head_dim_v_swa), 0,
     "dots3note: the window layers' value head (0: head_dim_v)"},
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
     "deepseek2, mistral4, deepseek32, mistral3: attention.temperature_scale in tenths (1: 0.1, as "
     "Mistral Large and Ministral 3 ship; 0: none)"},
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
    {"embd_out", offsetof(struct synth_spec, embd_out), 0, "gemma4-assistant, eagle3: its target's hidden size"},
    {"tgt_layers", offsetof(struct synth_spec, tgt_layers), 0,
     "eagle3, dflash: the target's blocks (target_layers spread over them)"},
    {"tgt_extract", offsetof(struct synth_spec, tgt_extract), 0, "dflash: the target layers it reads"},
    {"attn_res", offsetof(struct synth_spec, attn_res), 0,
     "kimi-k3: attn_res.block_size, cross-layer residual attention every N layers (0: none)"},
    {"hc", offsetof(struct synth_spec, hc), 0, "qwen4exp: hyper-connection streams (> 1)"},
    {"hc_rank", offsetof(struct synth_spec, hc_rank), 0, "qwen4exp: the hyper-connection mixers' low rank"},
    {"ple", offsetof(struct synth_spec, ple), 0, "qwen4exp: PLE head width on layer 0 (embd / 4), 0 = none"},
    {"compress", offsetof(struct synth_spec, compress), 0, "qwen4exp: QSA block ratio (0: dense attention)"},
    {"idx_dim", offsetof(struct synth_spec, idx_dim), 0, "qwen4exp: the QSA indexer's key length"},
};

/* llama.cpp's file types that are no tensor type (llama.h
 * LLAMA_FTYPE_MOSTLY_*): a mix of tensor types, written here as their
 * main one for every matrix */
static const struct synth_ftype {
	const char *name;
	uint32_t id;
	const char *tensors;
} ftypes[] = {
    {"Q2_K_S", 21, "q2_K"}, {"Q3_K_S", 11, "q3_K"},  {"Q3_K_M", 12, "q3_K"}, {"Q3_K_L", 13, "q3_K"},
    {"Q4_K_S", 14, "q4_K"}, {"Q4_K_M", 15, "q4_K"},  {"Q5_K_S", 16, "q5_K"}, {"Q5_K_M", 17, "q5_K"},
    {"IQ2_M", 29, "iq2_s"}, {"IQ3_XS", 22, "iq3_s"}, {"IQ3_M", 27, "iq3_s"}, {"MXFP4_MOE", 38, "mxfp4"},
};

static const char *const text_keys[] = {"type", "name"};

void synth_help_keys(struct sb *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		sb_addf(b, "  %-12s %s\n", keys[i].name, keys[i].help);
	sb_addf(b, "  %-12s %s\n", "type",
		"weight type: f32, f16, bf16, q8_0, q4_0 ... or a custom id (142); a file type (Q4_K_M ...) "
		"writes its main tensor type");
	sb_addf(b, "  %-12s %s\n", "name", "general.name");
	sb_addf(b, "  %-12s %s\n", "exp_type", "gpt-oss: the expert stacks' type (mxfp4 as shipped)");
}

size_t synth_key_count(void)
{
	return ARRAY_SIZE(keys);
}

const char *synth_key_name(size_t i)
{
	return i < ARRAY_SIZE(keys) ? keys[i].name : NULL;
}

/* type=NAME: a ggml type, an id, or a file type's main tensor type. */
static int set_type(struct synth_spec *s, const char *v, char **err)
{
	const struct ggml_type_info *t = ggml_type_by_name(v);
	uint64_t id;
	s->ftype_name[0] = '\0';
	if (t) {
		s->wtype = t->id;
		return 0;
	}
	if (parse_u64(v, &id) == 0 && id < 65536) {
		s->wtype = (uint32_t)id;
		return 0;
	}
	for (size_t i = 0; i < ARRAY_SIZE(ftypes); i++) {
		if (strcasecmp(v, ftypes[i].name) != 0)
			continue;
		s->wtype = ggml_type_by_name(ftypes[i].tensors)->id;
		s->ftype = ftypes[i].id;
		snprintf(s->ftype_name, sizeof(s->ftype_name), "%s", ftypes[i].name);
		return 0;
	}
	struct sb names = {0};
	for (size_t i = 0; i < ARRAY_SIZE(ftypes); i++)
		sb_addf(&names, "%s%s", i ? ", " : "", ftypes[i].name);
	errorf(err,
	       "--set type=%s: not a ggml type name (f16, q8_0, q4_K ...), a file type name (%s) or an id; "
	       "a file type names its tensors' main type (Q4_K_M: q4_K)",
	       v, names.s);
	sb_release(&names);
	return -1;
}

/* name, answer, alt, image_answer, exp_type, type: 1 when kv is one of
 * them (set, or -1 with *err), 0 when it is not. */
static int set_text(struct synth_spec *s, const char *kv, size_t kn, const char *v, char **err)
{
	if (kn == 4 && memcmp(kv, "name", 4) == 0) {
		if (strlen(v) >= sizeof(s->name))
			return errorf(err, "--set name: longer than %zu bytes", sizeof(s->name) - 1);
		snprintf(s->name, sizeof(s->name), "%s", v);
		return 1;
	}
	if ((kn == 6 && memcmp(kv, "answer", 6) == 0) || (kn == 3 && memcmp(kv, "alt", 3) == 0) ||
	    (kn == 12 && memcmp(kv, "image_answer", 12) == 0)) {
		char *dst = kn == 6 ? s->answer : kn == 3 ? s->alt : s->image_answer;
		if (!*v || strlen(v) >= sizeof(s->answer))
			return errorf(err, "--set %.*s: the text must be 1 to %zu bytes", (int)kn, kv,
				      sizeof(s->answer) - 1);
		snprintf(dst, sizeof(s->answer), "%s", v);
		return 1;
	}
	if (kn == 8 && memcmp(kv, "exp_type", 8) == 0) {
		const struct ggml_type_info *t = ggml_type_by_name(v);
		if (!t)
			return errorf(err, "--set exp_type=%s: not a ggml type name", v);
		s->exp_type = t->id;
		s->exp_typed = 1;
		return 1;
	}
	if (kn == 4 && memcmp(kv, "type", 4) == 0)
		return set_type(s, v, err) ? -1 : 1;
	return 0;
}

/* An unknown key: the nearest, else every key. */
static int unknown_key(const char *kv, size_t kn, char **err)
{
	char want[64];
	snprintf(want, sizeof(want), "%.*s", (int)(kn < 63 ? kn : 63), kv);
	struct near nr = near_start(want, 2);
	struct sb names = {0};
	for (size_t i = 0; i < ARRAY_SIZE(keys) + ARRAY_SIZE(text_keys); i++) {
		const char *k = i < ARRAY_SIZE(keys) ? keys[i].name : text_keys[i - ARRAY_SIZE(keys)];
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

int synth_set(struct synth_spec *s, const char *kv, char **err)
{
	const char *eq = strchr(kv, '=');
	if (!eq)
		return errorf(err, "--set '%s': expected key=value", kv);
	size_t kn = (size_t)(eq - kv);
	const char *v = eq + 1;
	int text = set_text(s, kv, kn, v, err);
	if (text)
		return text < 0 ? -1 : 0;
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
	return unknown_key(kv, kn, err);
}
