/* DeepSeek-V2/V3's layout (deepseek2; mistral4, whose model class reuses
 * deepseek2's hparams, tensors and graph, src/models/models.h; deepseek32,
 * V3.2: the same with a lightning indexer per layer), kimi-linear (Kimi
 * delta attention with MLA layers) and glm4moe: latent attention or
 * shared experts, dense leading layers, MTP blocks. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* deepseek32's lightning indexer as synth writes it: a key head of 64 (the
 * rotary part first), n_head query heads, the top 256 cells attended */
#define DS32_IDX_DIM   64
#define DS32_IDX_TOP_K 256

/* The shared experts' defaults: sigmoid-gated, biased, one dense lead. */
static void shared_experts(struct synth_spec *s)
{
	s->n_lead_dense = 1;
	s->n_expert = 8;
	s->n_expert_used = 2;
	s->n_shared = 1;
	s->n_ff_exp = 128;
	s->gating = 2;
	s->probs_b = 1;
	s->w_norm = 1;
	s->w_scale10 = 25;
}

void ds2_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->head_dim = 48; /* key_length_mla: 32 without rope + 16 with */
	s->rope_dims = 16;
	s->head_dim_v = 32;
	s->kv_lora = 64;
	s->q_lora = 96;
	shared_experts(s);
	s->mtp_tensors = 1; /* for nextn=1 */
}

/* Kimi delta attention (head size ssm_state, conv ssm_conv) with MLA (no
 * RoPE, one attn_q) every `interval` layers; a dense lead layer, then
 * sigmoid-gated biased experts and a shared one */
void kimi_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->interval = 4;
	s->ssm_conv = 4;
	s->ssm_state = 32;
	s->head_dim = 48; /* key_length_mla: 32 without rope + 16 with */
	s->rope_dims = 16;
	s->head_dim_v = 32;
	s->kv_lora = 64;
	shared_experts(s);
}

/* GLM-4.5: partial rotary, biased qkv, one dense lead, one MTP block */
void glm4moe_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->rope_dims = 32;
	s->n_nextn = 1;
	s->mtp_tensors = 1;
	shared_experts(s);
	s->qkv_bias = 1;
}

int mla_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	unsigned what = f->variant & V_KIMI ? MV_KIMI : MV_DS2 | (f->variant & V_DS32 ? MV_DS32 : 0);
	return moe_validate(s, MV_GATING | what, err);
}

int glm4moe_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	return moe_validate(s, MV_GATING | MV_NO_GATE_UP, err);
}

void glm4moe_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	keys_moe_experts(w, s);
	keys_moe_routing(w, s);
}

void mla_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	keys_moe_experts(w, s);
	keys_moe_routing(w, s);
	if (f->variant & V_KIMI) {
		akey_u32(w, s, "kda.head_dim", s->ssm_state);
		akey_u32(w, s, "ssm.conv_kernel", s->ssm_conv);
	}
	akey_u32(w, s, "attention.q_lora_rank", s->q_lora);
	akey_u32(w, s, "attention.kv_lora_rank", s->kv_lora);
	if (f->variant & V_DS32) { /* the lightning indexer (deepseek32.cpp load_arch_hparams) */
		akey_u32(w, s, "attention.indexer.head_count", s->idx_heads ? s->idx_heads : s->n_head);
		akey_u32(w, s, "attention.indexer.key_length", DS32_IDX_DIM);
		akey_u32(w, s, "attention.indexer.top_k", s->idx_top_k ? s->idx_top_k : DS32_IDX_TOP_K);
	}
	if (f->variant & V_IDX_TYPES) { /* glm-dsa.cpp's GLM-5.2 default: layers 0, 1, then every 4th from 2 */
		char k[96];
		akey(k, sizeof(k), s, "attention.indexer.types");
		gw_arr_begin(w, k, GGUF_I32, s->n_layer);
		for (uint32_t il = 0; il < s->n_layer; il++)
			gw_arr_i32(w, il < 2 || (il - 2) % 4 == 0);
	}
	if (s->temp_scale10) {
		akey_f32(w, s, "attention.temperature_scale", (float)s->temp_scale10 / 10.0f);
		akey_u32(w, s, "attention.temperature_length", 8192);
	}
	if (s->mha) /* the old layout: the MHA head sizes are the plain keys */
		return;
	akey_u32(w, s, "attention.key_length_mla", s->head_dim);
	akey_u32(w, s, "attention.value_length_mla", s->head_dim_v);
}

/* DeepSeek-V2/V3 (src/models/deepseek2.cpp) with MLA: latent q (or one
 * attn_q), the compressed KV projection with its rope part, K and V
 * decompression per head (attn_k_b, attn_v_b). */
void ds2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
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
		if (f->variant & V_DS32) { /* the lightning indexer: one key head, n_head query heads */
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
		if (il >= s->n_layer) /* the MTP block (GLM-4.7-Flash's) */
			nextn_head(t, s, il);
	}
}

void kda_inputs(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	static const char *const convs[] = {"ssm_conv1d_q.weight", "ssm_conv1d_k.weight", "ssm_conv1d_v.weight"};
	char nm[64];
	uint64_t hd = s->ssm_state, inner = (uint64_t)s->n_head * s->ssm_state;
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
}

/* Kimi-Linear (src/models/kimi-linear.cpp): Kimi delta attention layers
 * (q, k, v each through a depthwise conv [conv, 1, inner], the gate's and
 * the output gate's low-rank pairs f_a/f_b and g_a/g_b, beta, A, a per-channel
 * dt bias, the output norm) and MLA layers without RoPE (one attn_q,
 * attn_k_b and attn_v_b per head) every `interval` layers; dense lead
 * layers, then biased experts and a shared one. */
void kimi_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
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
			kda_inputs(t, s, il);
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

/* GLM-4.5 (src/models/glm4-moe.cpp): biased q/k/v, optional q/k norms,
 * a post-attention norm, dense leading layers, routed experts with a
 * selection bias and a shared expert; the trailing nextn (MTP) blocks
 * carry a whole MoE layer and the eh_proj head. */
void glm4moe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	uint32_t n = s->n_layer + (s->mtp_tensors ? s->n_nextn : 0);
	for (uint32_t il = 0; il < n; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		if (s->qkv_bias)
			qkv_bias(t, s, il);
		if (s->qk_norm) {
			BV("attn_q_norm.weight", s->head_dim);
			BV("attn_k_norm.weight", s->head_dim);
		}
		BV("post_attention_norm.weight", s->n_embd);
		if (il < s->n_lead_dense)
			ffn(t, s, il);
		else
			moe_block(t, s, il);
		if (il >= s->n_layer)
			nextn_head(t, s, il);
	}
}
