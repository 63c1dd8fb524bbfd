/* Dense families of their own shapes: olmo2 and exaone4 (post norms),
 * glm4 (fused gate and up), phi3 (fused qkv, fused gate and up), and
 * command-r and cohere2 (a parallel block, layer norms, a tied and scaled
 * output). */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

void dense_defaults(struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & V_PHI3_NAME)
		/* a general.name with "phi3" in it makes the engine's vocab
		 * look for Phi-3's "</s>" token, which the byte tokenizer lacks */
		snprintf(s->name, sizeof(s->name), "zealot-synth-phi");
	if (f->variant & V_SWA_NEEDED) {
		s->n_swa = 512; /* the engine requires the window; the period defaults to 4 */
		s->swa_pattern = 4;
	}
}

int dense_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if ((f->variant & V_SWA_NEEDED) && !s->n_swa)
		return errorf(err, "%s needs swa > 0 (the engine requires attention.sliding_window)", s->arch);
	return 0;
}

void dense_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & V_COHERE) { /* both required by cohere2, the epsilon by command-r */
		akey_f32(w, s, "attention.layer_norm_epsilon", 1e-5f);
		akey_f32(w, s, "logit_scale", 0.0625f);
	}
	if ((f->variant & V_SWA) && s->n_swa)
		keys_window(w, s, 1);
	if ((f->variant & V_SWA_READ) && s->n_swa) /* phi3: the engine reads it and turns it off */
		keys_window(w, s, 0);
}

/* OLMo 2: no pre-norms; q and k normed over their whole width; post
 * norms after the attention and the FFN; an output matrix of its own. */
void olmo2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		qkv(t, s, il, 1);
		/* exaone4's are per head */
		int ex = (f->variant & V_EXAONE4) != 0;
		BV("attn_q_norm.weight", ex ? s->head_dim : s->head_dim * s->n_head);
		BV("attn_k_norm.weight", ex ? s->head_dim : s->head_dim * s->n_head_kv);
		BV("post_attention_norm.weight", s->n_embd);
		ffn(t, s, il);
		BV("post_ffw_norm.weight", s->n_embd);
	}
}

/* GLM-4 (src/models/glm4.cpp): post norms after the attention and the
 * FFN; the FFN's gate and up in one matrix 2 x ff wide. */
void glm4_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
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

/* Phi-3 (src/models/phi3.cpp): q, k and v in one projection, gate and up
 * in one (2 x ff wide, a SwiGLU of its halves). */
void phi3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
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

/* Command R and Cohere 2: llama's tensors without an FFN norm (the FFN
 * reads the attention's normed input); command-r's q and k norms per
 * head at 64 layers or more (load_arch_tensors). */
void cohere_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((f->variant & V_CMDR) && s->n_layer >= 64) {
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
