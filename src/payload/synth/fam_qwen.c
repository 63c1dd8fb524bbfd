/* Qwen's plain families: qwen2 (and qwen2vl, M-RoPE), qwen3 (and qwen3vl),
 * qwen2moe, qwen3moe (and qwen3vlmoe, mellum), qwen3tts. */
#include <stdio.h>
#include <string.h>

#include "../synth.h"
#include "synth_int.h"

/* Qwen3-TTS's talker (src/models/qwen3vl.cpp): qwen3vl with a codec head
 * of SYNTH_CODEC_ROWS rows under a larger vocabulary */
void qwen3tts_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->n_vocab = 4096;
}

void qwen_moe_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	moe_defaults(s, 8, 2, 256);
}

void qwen_moe_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	keys_experts(w, s, s->n_ff_exp);
}

/* Qwen2 (src/models/qwen2.cpp): the llama block with q, k and v biases. */
void qwen2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		attn_block(t, s, il, ATTN_BIAS);
		ffn(t, s, il);
	}
}

/* Qwen3 (src/models/qwen3.cpp): the llama block with q and k normed. */
void qwen3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		attn_block(t, s, il, ATTN_QK_NORM);
		ffn(t, s, il);
	}
}

/* Qwen2-MoE (src/models/qwen2moe.cpp): qwen2's attention; in every layer
 * routed experts ff_exp wide and a shared expert ff wide with its own
 * router row. */
void qwen2moe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		moe_layer(t, s, il, ATTN_BIAS, s->n_ff_exp);
		BV("ffn_gate_inp_shexp.weight", s->n_embd);
		shexp(t, s, il, s->n_ff);
	}
}

/* Qwen3-MoE (src/models/qwen3moe.cpp): q/k-normed attention and, in place
 * of the FFN, a router and three expert stacks [in, out, experts]. */
void qwen3moe_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		moe_layer(t, s, il, ATTN_QK_NORM, s->n_ff_exp);
	}
}
