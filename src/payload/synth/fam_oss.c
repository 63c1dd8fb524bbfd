/* gpt-oss (src/models/openai-moe.cpp): alternating sliding-window (128)
 * and full attention layers, biases on q/k/v/o, an attention sink per
 * head, and a router with a bias over expert stacks that carry biases;
 * the experts may take their own type (exp_type, MXFP4 in real files). */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../ggml_type.h"
#include "../synth.h"
#include "synth_int.h"

void oss_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	moe_defaults(s, 8, 2, 256);
	s->n_swa = 128;
}

int oss_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
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

void oss_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	keys_experts(w, s, s->n_ff_exp);
	keys_window(w, s, s->swa_pattern != 0);
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

void oss_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("post_attention_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		qkv_bias(t, s, il);
		BV("attn_output.bias", s->n_embd);
		BV("attn_sinks.weight", s->n_head);
		router(t, s, il);
		BV("ffn_gate_inp.bias", s->n_expert);
		expert_pair(t, s, il, "ffn_gate_exps", s->n_embd, s->n_ff_exp);
		expert_pair(t, s, il, "ffn_down_exps", s->n_ff_exp, s->n_embd);
		expert_pair(t, s, il, "ffn_up_exps", s->n_embd, s->n_ff_exp);
	}
}
