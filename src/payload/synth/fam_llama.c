/* llama's block and the kin written with its tensors: llama, mistral3
 * (optional experts, attention temperature), granitemoe, and seed_oss,
 * smollm3, granite, exaone, ernie4_5, hunyuan-dense, xverse, baichuan,
 * minicpm, maincoder, internlm2, arcee, apertus, orion, whose differences
 * are the row's variant (synth_int.h V_*). */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

int llama_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if ((f->variant & V_MOE_OPT) && s->n_expert && (!s->n_expert_used || s->n_expert_used > s->n_expert))
		return errorf(err, "%s with experts needs experts >= experts_used > 0", s->arch);
	if ((f->variant & V_MOE_REQ) && (!s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert))
		return errorf(err, "%s needs experts >= experts_used > 0 (and ff_exp > 0)", s->arch);
	return 0;
}

void llama_defaults(struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & V_MOE_REQ) {
		s->n_expert = 8;
		s->n_expert_used = 2;
	}
}

void llama_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & V_ORION)
		akey_f32(w, s, "attention.layer_norm_epsilon", 1e-5f);
	if (f->variant & V_APERTUS) { /* xIELU's parameters per layer, keys without the arch */
		static const char *const xk[] = {"xielu.alpha_n", "xielu.alpha_p", "xielu.beta", "xielu.eps"};
		static const float xv[] = {0.8f, 0.8f, 0.5f, -1e-6f};
		for (size_t i = 0; i < ARRAY_SIZE(xk); i++) {
			gw_arr_begin(w, xk[i], GGUF_F32, s->n_layer);
			for (uint32_t il = 0; il < s->n_layer; il++)
				gw_arr_f32(w, xv[i]);
		}
	}
	if (f->variant & V_GRANITE) { /* Granite's scales: the logits' is required */
		akey_f32(w, s, "logit_scale", 8.0f);
		akey_f32(w, s, "residual_scale", 0.22f);
		akey_f32(w, s, "embedding_scale", 12.0f);
	}
	if ((f->variant & (V_MOE_OPT | V_MOE_REQ)) && s->n_expert) {
		akey_u32(w, s, "expert_count", s->n_expert);
		akey_u32(w, s, "expert_used_count", s->n_expert_used);
	}
	if ((f->variant & V_TEMP) && s->temp_scale10) /* llama-4 attention temperature (Ministral 3) */
		akey_f32(w, s, "attention.temperature_scale", (float)s->temp_scale10 / 10.0f);
}

/* A layer's norms beyond attn_norm and the FFN's: the kin's own. */
static void llama_norms(struct tw *t, const struct synth_spec *s, const struct synth_family *f, uint32_t il)
{
	char nm[64];
	/* seed_oss names its FFN norm post_attention_norm */
	BV(f->variant & V_SEED ? "post_attention_norm.weight" : "ffn_norm.weight", s->n_embd);
	if (f->variant & V_QK_NORM) { /* per-head q/k norms */
		BV("attn_k_norm.weight", s->head_dim);
		BV("attn_q_norm.weight", s->head_dim);
	}
	if (f->variant & V_ORION) { /* layer norms with biases */
		BV("attn_norm.bias", s->n_embd);
		BV("ffn_norm.bias", s->n_embd);
	}
	if (f->variant & V_APERTUS) {
		BV("attn_q_norm.weight", s->head_dim);
		BV("attn_q_norm.bias", s->head_dim);
		BV("attn_k_norm.weight", s->head_dim);
		BV("attn_k_norm.bias", s->head_dim);
	}
}

void llama_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		if (il == 0)
			t->norm0_at = gw_data_at(t->w);
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		llama_norms(t, s, f, il);
		if (f->variant & V_NO_GATE) { /* up and down, no gate */
			BM("ffn_down.weight", s->n_ff, s->n_embd);
			BM("ffn_up.weight", s->n_embd, s->n_ff);
			continue;
		}
		if (!s->n_expert) {
			ffn(t, s, il);
			continue;
		}
		/* mistral3's and granitemoe's MoE layers: a router and stacks ff wide */
		router(t, s, il);
		expert_ffn(t, s, il, s->n_ff);
	}
	if (s->image_answer[0])
		image_weights(t->w, s, t->norm0_at, t->v0_at, t->o0_at);
}
