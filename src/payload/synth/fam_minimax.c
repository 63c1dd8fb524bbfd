/* MiniMax-01 (src/models/minimax-01.cpp): lightning (linear) attention
 * layers, their state a head x head matrix per head, and softmax
 * attention every `interval`-th layer (full_attention_interval); in every
 * layer softmax-routed experts ff wide, and the residuals scaled by
 * residual_scale. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

void minimax01_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	/* three lightning layers, then softmax attention (the last) */
	s->interval = 4;
	moe_defaults(s, 4, 2, 0);
}

int minimax01_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (!s->interval || !s->n_expert || !s->n_expert_used || s->n_expert_used > s->n_expert)
		return errorf(err, "minimax-01 needs interval > 0 and experts >= experts_used > 0");
	return 0;
}

void minimax01_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	/* the engine's default interval is 8: the key is always written */
	akey_u32(w, s, "full_attention_interval", s->interval);
	akey_f32(w, s, "residual_scale", 1.0f); /* required */
	keys_experts(w, s, 0);			/* the experts are feed_forward_length wide */
}

/* A lightning layer's mixer: q, k and v in one projection, the output's
 * norm and its gate, the output projection. */
static void lightning(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t q = (uint64_t)s->head_dim * s->n_head;
	BM("attn_qkv.weight", s->n_embd, 3 * q);
	BV("attn_norm_2.weight", q);
	BM("attn_gate.weight", s->n_embd, q);
	BM("attn_output.weight", q, s->n_embd);
}

/* Every interval-th layer softmax attention (llama's q, k and v), the
 * others lightning; softmax-routed experts ff wide in each. */
void minimax01_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval)
			lightning(t, s, il);
		else
			qkv(t, s, il, 1);
		BV("ffn_norm.weight", s->n_embd);
		router(t, s, il);
		expert_ffn(t, s, il, s->n_ff);
	}
}
