/* PLM and MiniCPM3 (src/models/plm.cpp, minicpm3.cpp): deepseek2's K/V
 * latent decompressed into a plain cache, K head_dim and V head_dim_v
 * wide per head (n_head KV heads), RoPE on rope_dims of each head. */
#include <stdio.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

void plm_defaults(struct synth_spec *s, const struct synth_family *f)
{
	s->kv_lora = 64;
	s->rope_dims = 32;
	s->head_dim_v = 64;
	if (f->variant & V_MINICPM3)
		s->q_lora = 128;
}

int plm_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (!s->kv_lora || !s->head_dim_v || s->rope_dims >= s->head_dim || ((f->variant & V_MINICPM3) && !s->q_lora))
		return errorf(err, "%s needs kv_lora, head_dim_v%s > 0 and rope_dims < head_dim", s->arch,
			      f->variant & V_MINICPM3 ? ", q_lora" : "");
	return 0;
}

void plm_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	akey_u32(w, s, "attention.kv_lora_rank", s->kv_lora);
	if (f->variant & V_MINICPM3)
		akey_u32(w, s, "attention.q_lora_rank", s->q_lora);
}

void plm_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint64_t H = s->n_head, dk = s->head_dim, dv = s->head_dim_v, nope = dk - s->rope_dims;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if (f->variant & V_MINICPM3) {
			BV("attn_q_a_norm.weight", s->q_lora);
			BM("attn_q_a.weight", s->n_embd, s->q_lora);
			BM("attn_q_b.weight", s->q_lora, H * dk);
		} else {
			BM("attn_q.weight", s->n_embd, H * dk);
		}
		BM("attn_kv_a_mqa.weight", s->n_embd, (uint64_t)s->kv_lora + s->rope_dims);
		BV("attn_kv_a_norm.weight", s->kv_lora);
		BM("attn_kv_b.weight", s->kv_lora, H * (nope + dv));
		BM("attn_output.weight", H * dv, s->n_embd);
		BV("ffn_norm.weight", s->n_embd);
		if (f->variant & V_MINICPM3)
			BM("ffn_gate.weight", s->n_embd, s->n_ff);
		BM("ffn_down.weight", s->n_ff, s->n_embd);
		BM("ffn_up.weight", s->n_embd, s->n_ff);
	}
}
