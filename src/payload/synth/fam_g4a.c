/* Gemma 4's assistant (src/models/gemma4-assistant.cpp): the drafter
 * that runs as SPEC_TYPE=draft-mtp beside a gemma4 target. Its blocks are
 * all nextn blocks (nextn_predict_layers = block_count) with Q-only
 * attention over the target's cache; its input is the target's token
 * embedding beside the target's hidden state (embedding_length_out, the
 * target's width, projected down by nextn.pre_projection and back up by
 * nextn.post_projection); a dense GELU FFN and a per-layer output scale. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* beside synth gemma4's defaults (embd 256, heads 4, full head 128,
 * window head 64): half the width, one window layer and one full */
void g4a_defaults(struct synth_spec *s, const struct synth_family *f)
{
	gemma4_defaults(s, f);
	s->n_expert = s->n_expert_used = s->n_ff_exp = 0;
	s->n_layer = s->swa_pattern = 2;
	s->n_embd = 128;
	s->n_ff = s->embd_out = 256;
}

int g4a_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (!s->embd_out || s->embd_out == s->n_embd)
		return errorf(err,
			      "gemma4-assistant: embd_out (its target's width, %u) must be set and differ "
			      "from embd (%u)",
			      s->embd_out, s->n_embd);
	if (s->n_expert || s->shared_kv || s->per_layer)
		return errorf(err, "gemma4-assistant has no experts, shared_kv or per_layer");
	return gemma4_validate(s, f, err);
}

void g4a_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	gemma4_keys(w, s, f);
	akey_u32(w, s, "nextn_predict_layers", s->n_layer);
	akey_u32(w, s, "embedding_length_out", s->embd_out);
}

void g4a_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	int freqs = 0;
	mat(t, "nextn.pre_projection.weight", 2 * (uint64_t)s->embd_out, s->n_embd);
	mat(t, "nextn.post_projection.weight", s->n_embd, s->embd_out);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		int swa = il % s->swa_pattern < s->swa_pattern - 1;
		uint64_t hd = swa ? s->head_dim_swa : s->head_dim;
		if (!swa && !freqs++) /* one proportional-rope table, shared */
			vec(t, "rope_freqs.weight", hd / 2);
		/* Q alone: the keys and values are the target's */
		BV("attn_norm.weight", s->n_embd);
		BM("attn_q.weight", s->n_embd, hd * s->n_head);
		BV("attn_q_norm.weight", hd);
		BM("attn_output.weight", hd * s->n_head, s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
		BV("post_ffw_norm.weight", s->n_embd);
		BV("layer_output_scale.weight", 1);
	}
}
