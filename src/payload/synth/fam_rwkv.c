/* RWKV-7 (src/models/rwkv7.cpp): no attention and no KV cache; per layer
 * a time mix (receptance, key, value, output E x E, the decay, in-context
 * learning rate, value-residual and gate low-rank pairs, six fused lerp
 * rows) and a channel mix (key E x ff, value ff x E), layer norms with
 * biases, the token embeddings normed (token_embd_norm). The ranks are
 * the converter's for a small model; head_dim is wkv.head_size. arwkv7
 * and rwkv6qwen2 are their QRWKV kin: RMS norms and a llama FFN. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

#define RWKV7_DECAY 64
#define RWKV7_ICLR  64
#define RWKV7_VRES  32
#define RWKV7_GATE  128
#define RWKV6_MIX   32
#define RWKV6_DECAY 64

void rwkv_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->n_layer = 6; /* head_dim: wkv.head_size */
}

int rwkv_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (!s->head_dim || s->n_embd % s->head_dim)
		return errorf(err, "%s: embd (%u) must be a multiple of head_dim (the wkv head size, %u)", s->arch,
			      s->n_embd, s->head_dim);
	return 0;
}

void rwkv_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & V_RWKV_RMS) { /* one shift state */
		akey_u32(w, s, "token_shift_count", 1);
	}
	if ((f->variant & V_RWKV_RMS) && (f->variant & V_RWKV6)) { /* QRWKV: KV heads of head_dim (GQA) */
		akey_u32(w, s, "attention.head_count_kv", s->n_head_kv);
	}
	akey_f32(w, s, "attention.layer_norm_epsilon", 1e-5f);
	akey_u32(w, s, "wkv.head_size", s->head_dim);
	if (f->variant & V_RWKV6) { /* the converter's widths; rwkv6 halves every 6 layers */
		akey_u32(w, s, "time_mix_extra_dim", RWKV6_MIX);
		akey_u32(w, s, "time_decay_extra_dim", RWKV6_DECAY);
		if (!(f->variant & V_RWKV_RMS)) {
			akey_u32(w, s, "rescale_every_n_layers", 6);
		}
		return;
	}
	akey_u32(w, s, "attention.decay_lora_rank", RWKV7_DECAY);
	akey_u32(w, s, "attention.iclr_lora_rank", RWKV7_ICLR);
	akey_u32(w, s, "attention.value_residual_mix_lora_rank", RWKV7_VRES);
	akey_u32(w, s, "attention.gate_lora_rank", RWKV7_GATE);
}

/* The layer norms of rwkv6 and rwkv7 (the model's with biases, and the
 * embeddings' norm), unless rms (arwkv7, QRWKV: RMS norms, none of these). */
static void layer_norms(struct tw *t, uint64_t E)
{
	vec(t, "output_norm.bias", E);
	vec(t, "token_embd_norm.weight", E);
	vec(t, "token_embd_norm.bias", E);
}

/* arwkv7's and QRWKV's llama FFN, behind its RMS norm */
static void llama_ffn(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	BV("ffn_norm.weight", s->n_embd);
	ffn(t, s, il);
}

/* a block's attention norm, and unless rms its bias and the second norm */
static void block_norms(struct tw *t, uint32_t il, uint64_t E, int rms)
{
	char nm[64];
	BV("attn_norm.weight", E);
	if (!rms) {
		BV("attn_norm.bias", E);
		BV("attn_norm_2.weight", E);
		BV("attn_norm_2.bias", E);
	}
}

void rwkv7_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint64_t E = s->n_embd;
	int a7 = (f->variant & V_RWKV_RMS) != 0; /* arwkv7: RMS norms, a llama FFN, no grouped norm */
	if (!a7)
		layer_norms(t, E);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		block_norms(t, il, E, a7);
		BV("time_mix_w0.weight", E);
		BM("time_mix_w1.weight", E, RWKV7_DECAY);
		BM("time_mix_w2.weight", RWKV7_DECAY, E);
		BV("time_mix_a0.weight", E);
		BM("time_mix_a1.weight", E, RWKV7_ICLR);
		BM("time_mix_a2.weight", RWKV7_ICLR, E);
		uint64_t vr = il == 0 ? RWKV7_ICLR : RWKV7_VRES; /* layer 0's pair is iclr wide (unused) */
		BV("time_mix_v0.weight", E);
		BM("time_mix_v1.weight", E, vr);
		BM("time_mix_v2.weight", vr, E);
		BM("time_mix_g1.weight", E, RWKV7_GATE);
		BM("time_mix_g2.weight", RWKV7_GATE, E);
		uint64_t ne[4] = {E, 1, 1, 6};
		blkname(nm, sizeof(nm), il, "time_mix_lerp_fused.weight");
		gw_tensor(t->w, nm, 4, ne, 0, E * 6 * 4);
		BV("time_mix_k_k.weight", E);
		BV("time_mix_k_a.weight", E);
		BV("time_mix_r_k.weight", E);
		BM("time_mix_key.weight", E, E);
		BM("time_mix_value.weight", E, E);
		BM("time_mix_receptance.weight", E, E);
		BM("time_mix_output.weight", E, E);
		if (a7) {
			llama_ffn(t, s, il);
			continue;
		}
		BV("time_mix_ln.weight", E);
		BV("time_mix_ln.bias", E);
		BV("channel_mix_lerp_k.weight", E);
		BM("channel_mix_key.weight", E, s->n_ff);
		BM("channel_mix_value.weight", s->n_ff, E);
	}
}

/* RWKV-6 (src/models/rwkv6.cpp): the converter's fused lerps (x, then w,
 * k, v, r, g stacked), a 5-way token-shift low-rank pair, the decay's
 * pair, a per-head time_first, a SiLU gate; the channel mix with a
 * receptance. */
void rwkv6_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint64_t E = s->n_embd;
	/* RWKV6-Qwen2 (QRWKV): RMS norms, no time_first (gated linear
	 * attention), K and V n_head_kv heads wide with biases, a llama FFN */
	int q2 = (f->variant & V_RWKV_RMS) != 0;
	uint64_t kv = q2 ? (uint64_t)s->n_head_kv * s->head_dim : E;
	if (!q2)
		layer_norms(t, E);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		block_norms(t, il, E, q2);
		BM("time_mix_w1.weight", E, RWKV6_MIX * 5);
		blkname(nm, sizeof(nm), il, "time_mix_w2.weight");
		f32_tensor(t, nm, 3, RWKV6_MIX, E, 5);
		BV("time_mix_lerp_x.weight", E);
		uint64_t ne[4] = {E, 1, 1, 5};
		blkname(nm, sizeof(nm), il, "time_mix_lerp_fused.weight");
		gw_tensor(t->w, nm, 4, ne, 0, E * 5 * 4);
		if (!q2) {
			blkname(nm, sizeof(nm), il, "time_mix_first.weight");
			f32_tensor(t, nm, 2, s->head_dim, E / s->head_dim, 1);
		}
		BV("time_mix_decay.weight", E);
		BM("time_mix_decay_w1.weight", E, RWKV6_DECAY);
		BM("time_mix_decay_w2.weight", RWKV6_DECAY, E);
		BM("time_mix_key.weight", E, kv);
		BM("time_mix_value.weight", E, kv);
		BM("time_mix_receptance.weight", E, E);
		BM("time_mix_gate.weight", E, E);
		if (q2) {
			BV("time_mix_key.bias", kv);
			BV("time_mix_value.bias", kv);
			BV("time_mix_receptance.bias", E);
			BM("time_mix_output.weight", E, E);
			llama_ffn(t, s, il);
			continue;
		}
		BV("time_mix_ln.weight", E);
		BV("time_mix_ln.bias", E);
		BM("time_mix_output.weight", E, E);
		BV("channel_mix_lerp_k.weight", E);
		BV("channel_mix_lerp_r.weight", E);
		BM("channel_mix_key.weight", E, s->n_ff);
		BM("channel_mix_value.weight", s->n_ff, E);
		BM("channel_mix_receptance.weight", E, E);
	}
}
