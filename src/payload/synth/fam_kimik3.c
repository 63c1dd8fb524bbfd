/* Kimi-K3 (src/models/kimi-k3.cpp): kimi-linear's hybrid of Kimi delta
 * attention and MLA layers (fam_mla.c), with what kimi-linear lacks: the
 * cross-layer residual attention (attn_res.block_size, a score vector per
 * layer half and one for the output), routed experts in a latent space
 * (expert_latent_length: ffn_routed_down/up/norm), the situ activation,
 * the MLA's sigmoid output gate (attn_gate) and one full-rank KDA gate
 * (ssm_g) with the sigmoid decay of kda.gate_lower_bound. */
#include <stdio.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* kimi-linear's geometry, then the residual attention every 2 layers and
 * experts 128 wide in the latent space */
void kimik3_defaults(struct synth_spec *s, const struct synth_family *f)
{
	kimi_defaults(s, f);
	s->attn_res = 2;
	s->moe_latent = 128;
}

int kimik3_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (moe_validate(s, MV_GATING, err) != 0)
		return -1;
	if (!s->interval || !s->ssm_conv || !s->ssm_state || !s->kv_lora || !s->head_dim_v ||
	    s->rope_dims >= s->head_dim || s->q_lora || s->mha || !s->probs_b)
		return errorf(err, "kimi-k3 needs interval, ssm_conv, ssm_state (the KDA head size), kv_lora, "
				   "head_dim_v > 0, rope_dims < head_dim, probs_b=1, and q_lora=0, mha=0, nextn=0");
	return 0;
}

void kimik3_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	mla_keys(w, s, f);
	akey_f32(w, s, "kda.gate_lower_bound", -5.0f);
	akey_u32(w, s, "attn_res.block_size", s->attn_res);
	akey_f32(w, s, "activation.situ_beta", 4.0f);
	akey_f32(w, s, "activation.situ_linear_beta", 8.0f);
	if (s->moe_latent)
		akey_u32(w, s, "expert_latent_length", s->moe_latent);
}

/* A KDA layer: kimi-linear's, with one [embd, inner] gate ssm_g and a
 * plain [heads] A */
static void k3_kda(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t inner = (uint64_t)s->n_head * s->ssm_state;
	kda_inputs(t, s, il);
	BV("ssm_a", s->n_head);
	BV("ssm_dt.bias", inner);
	BM("ssm_g.weight", s->n_embd, inner);
	BV("ssm_norm.weight", s->ssm_state);
	BM("attn_output.weight", inner, s->n_embd);
}

/* An MLA layer: kimi-linear's, with the output gate */
static void k3_mla(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t nope = s->head_dim - s->rope_dims, hv = (uint64_t)s->n_head * s->head_dim_v;
	BM("attn_q.weight", s->n_embd, (uint64_t)s->n_head * s->head_dim);
	BV("attn_kv_a_norm.weight", s->kv_lora);
	BM("attn_kv_a_mqa.weight", s->n_embd, s->kv_lora + s->rope_dims);
	expert_stack(t, il, "attn_k_b.weight", nope, s->kv_lora, s->n_head);
	expert_stack(t, il, "attn_v_b.weight", s->kv_lora, s->head_dim_v, s->n_head);
	BM("attn_gate.weight", s->n_embd, hv);
	BM("attn_output.weight", hv, s->n_embd);
}

/* The MoE half: the router and its bias, the experts latent wide (with
 * their down and up projections and norm), the shared experts embd wide */
static void k3_moe(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t me = s->moe_latent ? s->moe_latent : s->n_embd;
	router(t, s, il);
	BV("exp_probs_b.bias", s->n_expert);
	expert_stack(t, il, "ffn_gate_exps.weight", me, s->n_ff_exp, s->n_expert);
	expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, me, s->n_expert);
	expert_stack(t, il, "ffn_up_exps.weight", me, s->n_ff_exp, s->n_expert);
	if (s->moe_latent) {
		BM("ffn_routed_down.weight", s->n_embd, me);
		BM("ffn_routed_up.weight", me, s->n_embd);
		BV("ffn_routed_norm.weight", me);
	}
	shexp(t, s, il, (uint64_t)s->n_ff_exp * s->n_shared);
}

void kimik3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	if (s->attn_res)
		vec(t, "output_res_score.weight", s->n_embd);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		BV("ffn_norm.weight", s->n_embd);
		if (s->attn_res) {
			BV("attn_res_score.weight", s->n_embd);
			BV("ffn_res_score.weight", s->n_embd);
		}
		if (ssm_layer(s, il) == 'A')
			k3_mla(t, s, il);
		else
			k3_kda(t, s, il);
		if (il < s->n_lead_dense)
			ffn(t, s, il);
		else
			k3_moe(t, s, il);
	}
}
