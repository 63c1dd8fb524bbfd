/* The mamba families: mamba (v1) and jamba (v1 layers, attention every
 * `interval`, experts on odd layers), mamba2, granitehybrid (mamba2
 * layers, attention every `interval`), falcon-h1 (the mixer and attention
 * side by side), nemotron_h and nemotron_h_moe (mixer, attention and
 * FFN-only layers), plamo2 (its own mixer and fused attention, post
 * norms, attention every `interval`). */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

void ssm_defaults(struct synth_spec *s, const struct synth_family *f)
{
	/* the attention step; 1000000: no attention layer */
	s->interval = f->variant & V_ALONE ? 1000000 : f->variant & V_SIDE ? 1 : 4;
	s->ssm_conv = 4;
	if (f->variant & V_MAMBA1) {
		s->ssm_state = 16;
		s->ssm_dt_rank = 16;
		if (f->variant & V_EXPERTS) { /* jamba: softmax experts ff wide on every other layer */
			s->n_expert = 4;
			s->n_expert_used = 2;
		}
		return;
	}
	s->ssm_state = 64;
	s->ssm_groups = f->variant & V_PLAMO2 ? 0 : 1; /* plamo2.cpp asserts no groups */
	s->ssm_dt_rank = 8;
	if (f->variant & V_EXPERTS) { /* nemotron_h_moe: the FFN layers are MoE; ff: the shared expert */
		moe_defaults(s, 8, 2, 256);
		s->w_norm = 1;
		s->w_scale10 = 25;
	}
}

int ssm_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (f->variant & V_PLAMO2) {
		if (!s->interval || !s->ssm_conv || !s->ssm_state || s->ssm_groups || !s->ssm_dt_rank ||
		    (2 * s->n_embd) % s->ssm_dt_rank)
			return errorf(err,
				      "plamo2 needs interval, ssm_conv, ssm_state > 0, ssm_groups=0 and an SSM inner "
				      "size 2 x embd that is a multiple of ssm_dt_rank");
	} else if (!(f->variant & V_MAMBA1)) {
		if (!s->interval || !s->ssm_conv || !s->ssm_state || !s->ssm_groups || !s->ssm_dt_rank)
			return errorf(err,
				      "granitehybrid needs interval, ssm_conv, ssm_state, ssm_groups, ssm_dt_rank > 0");
		if ((2 * s->n_embd) % s->ssm_dt_rank || (2 * s->n_embd) % s->ssm_groups)
			return errorf(
			    err, "the SSM inner size 2 x embd (%u) must be a multiple of ssm_dt_rank and ssm_groups",
			    2 * s->n_embd);
	} else if (f->variant & V_ALONE) {
		if (!s->ssm_conv || !s->ssm_state || !s->ssm_dt_rank)
			return errorf(err, "mamba needs ssm_conv, ssm_state and ssm_dt_rank > 0");
	} else if (!s->interval || !s->ssm_conv || !s->ssm_state || !s->ssm_dt_rank || s->n_expert_used > s->n_expert ||
		   (s->n_expert && !s->n_expert_used) || s->n_head * s->head_dim != s->n_embd) {
		return errorf(err,
			      "jamba needs interval, ssm_conv, ssm_state, ssm_dt_rank > 0, experts >= experts_used "
			      "(both 0: dense FFNs) and heads x head_dim = embd");
	}
	if ((f->variant & V_NEMOTRON) && (f->variant & V_EXPERTS) &&
	    (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert))
		return errorf(err, "nemotron_h_moe needs experts >= experts_used > 0 and ff_exp > 0");
	return 0;
}

/* nemotron_h_moe's experts (nemotron-h.cpp load_arch_hparams; ff is the
 * shared expert's) */
static void nemotron_moe_keys(struct gguf_writer *w, const struct synth_spec *s)
{
	static const char *const ek[] = {"expert_count", "expert_used_count", "expert_feed_forward_length",
					 "expert_shared_feed_forward_length"};
	const uint32_t ev[] = {s->n_expert, s->n_expert_used, s->n_ff_exp, s->n_ff};
	for (size_t i = 0; i < ARRAY_SIZE(ek); i++)
		akey_u32(w, s, ek[i], ev[i]);
	akey_bool(w, s, "expert_weights_norm", s->w_norm != 0);
	if (s->w_scale10)
		akey_f32(w, s, "expert_weights_scale", (float)s->w_scale10 / 10.0f);
	if (s->moe_latent)
		akey_u32(w, s, "moe_latent_size", s->moe_latent);
}

void ssm_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & V_NEMOTRON) {
		if (f->variant & V_EXPERTS)
			nemotron_moe_keys(w, s);
		/* the MTP head's final norm: the engine requires it */
		akey_f32(w, s, "attention.layer_norm_epsilon", 1e-5f);
	}
	keys_ssm(w, s, 2 * s->n_embd, !(f->variant & V_MAMBA1));
	if ((f->variant & V_MAMBA1) && (f->variant & V_EXPERTS) && s->n_expert)
		keys_experts(w, s, 0);
}

/* attention every `interval`, a recurrent mixer elsewhere */
int ssm_layer(const struct synth_spec *s, uint32_t il)
{
	return (il + 1) % s->interval == 0 ? 'A' : 'M';
}

/* A mamba2 mixer's tensors (build_mamba2_layer): the input projection,
 * the f32 conv and its bias, per-head dt bias, A and D, the grouped norm,
 * the output projection. The SSM inner size is 2 x embd. */
static void mamba2_mixer(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t d_inner = 2ull * s->n_embd;
	uint64_t bc = 2ull * s->ssm_groups * s->ssm_state;
	BM("ssm_in.weight", s->n_embd, 2 * d_inner + bc + s->ssm_dt_rank);
	uint64_t ne[2] = {s->ssm_conv, d_inner + bc};
	blkname(nm, sizeof(nm), il, "ssm_conv1d.weight");
	gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
	BV("ssm_conv1d.bias", d_inner + bc);
	BV("ssm_dt.bias", s->ssm_dt_rank);
	uint64_t hd[2] = {1, s->ssm_dt_rank};
	blkname(nm, sizeof(nm), il, "ssm_a");
	gw_tensor(t->w, nm, 2, hd, 0, hd[1] * 4);
	blkname(nm, sizeof(nm), il, "ssm_d");
	gw_tensor(t->w, nm, 2, hd, 0, hd[1] * 4);
	uint64_t gn[2] = {d_inner / s->ssm_groups, s->ssm_groups};
	blkname(nm, sizeof(nm), il, "ssm_norm.weight");
	gw_tensor(t->w, nm, 2, gn, 0, d_inner * 4);
	BM("ssm_out.weight", d_inner, s->n_embd);
}

/* Nemotron-H (src/models/nemotron-h.cpp): each layer is one of a mamba2
 * mixer (no KV heads, no FFN), attention (KV heads, no FFN) or an FFN alone
 * (up, squared ReLU, down); per-layer head_count_kv and
 * feed_forward_length arrays say which. */
int nemotron_layer(const struct synth_spec *s, uint32_t il)
{
	if ((il + 1) % s->interval == 0)
		return 'A';
	return il % 2 == 0 ? 'M' : 'F';
}

void nemotron_h_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		int k = nemotron_layer(s, il);
		BV("attn_norm.weight", s->n_embd);
		if (k == 'A') {
			qkv(t, s, il, 1);
		} else if (k == 'F' && (f->variant & V_EXPERTS)) {
			/* a router (f32), the selection bias, up and down stacks
			 * (squared ReLU, no gate), a shared expert ff wide */
			router(t, s, il);
			BV("exp_probs_b.bias", s->n_expert);
			uint64_t me = s->moe_latent ? s->moe_latent : s->n_embd; /* the experts' width */
			if (s->moe_latent) {
				BM("ffn_latent_down.weight", s->n_embd, me);
				BM("ffn_latent_up.weight", me, s->n_embd);
			}
			expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, me, s->n_expert);
			expert_stack(t, il, "ffn_up_exps.weight", me, s->n_ff_exp, s->n_expert);
			BM("ffn_down_shexp.weight", s->n_ff, s->n_embd);
			BM("ffn_up_shexp.weight", s->n_embd, s->n_ff);
		} else if (k == 'F') {
			BM("ffn_down.weight", s->n_ff, s->n_embd);
			BM("ffn_up.weight", s->n_embd, s->n_ff);
		} else {
			mamba2_mixer(t, s, il);
		}
	}
}

/* Falcon-H1 (src/models/falcon-h1.cpp): a mamba2 mixer and attention
 * side by side in every layer, then a SwiGLU FFN; its FFN norm is written
 * without ".weight". */
void falcon_h1_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		mamba2_mixer(t, s, il);
		BV("ffn_norm", s->n_embd);
		ffn(t, s, il);
	}
}

/* Jamba (src/models/jamba.cpp): mamba (v1) layers (x and z in one input
 * projection, dt/B/C from ssm_x, each RMS-normed; A and D per channel),
 * attention (no RoPE) every `interval` layers; routed experts ff wide on
 * odd layers when there are experts, a SwiGLU FFN elsewhere. */
void jamba_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint64_t d_inner = 2ull * s->n_embd;
	int v1 = (f->variant & V_ALONE) != 0; /* mamba: the mixer alone, dt, B and C not normed */
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			qkv(t, s, il, 1);
		} else {
			BM("ssm_in.weight", s->n_embd, 2 * d_inner);
			uint64_t ne[2] = {s->ssm_conv, d_inner};
			blkname(nm, sizeof(nm), il, "ssm_conv1d.weight");
			gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
			BV("ssm_conv1d.bias", d_inner);
			BM("ssm_x.weight", d_inner, s->ssm_dt_rank + 2ull * s->ssm_state);
			if (!v1)
				BV("ssm_dt_norm.weight", s->ssm_dt_rank);
			BM("ssm_dt.weight", s->ssm_dt_rank, d_inner);
			BV("ssm_dt.bias", d_inner);
			if (!v1) {
				BV("ssm_b_norm.weight", s->ssm_state);
				BV("ssm_c_norm.weight", s->ssm_state);
			}
			uint64_t a[2] = {s->ssm_state, d_inner};
			blkname(nm, sizeof(nm), il, "ssm_a");
			gw_tensor(t->w, nm, 2, a, 0, a[0] * a[1] * 4);
			blkname(nm, sizeof(nm), il, "ssm_d");
			vec(t, nm, d_inner);
			BM("ssm_out.weight", d_inner, s->n_embd);
		}
		if (v1)
			continue;
		BV("ffn_norm.weight", s->n_embd);
		if (s->n_expert && il % 2 == 1) {
			router(t, s, il);
			expert_ffn(t, s, il, s->n_ff);
		} else {
			ffn(t, s, il);
		}
	}
}

/* Granite 4.0 hybrid (src/models/granite-hybrid.cpp): mamba2 layers, an
 * attention layer every `interval` (head_count_kv 0 marks the others), a
 * SwiGLU FFN on every layer. The SSM inner size is 2 x embd (the engine
 * asserts it); the conv weight and the per-head A, D and dt stay f32. */
void granitehybrid_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if ((il + 1) % s->interval == 0) {
			qkv(t, s, il, 1);
		} else {
			mamba2_mixer(t, s, il);
		}
		if (f->variant & V_ALONE) /* Mamba-2: the mixer alone, no FFN */
			continue;
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
	}
}

/* PLaMo-2 (src/models/plamo2.cpp load_arch_tensors): a mixer of its own
 * (the input projection to z and x, the conv without bias, x's
 * projection to dt, B and C, each RMS-normed, dt's projection and bias,
 * A and D per head), or attention through one attn_qkv with per-head q
 * and k norms; every layer's post norms and an FFN of up (2 x ff,
 * SwiGLU of its halves) and down. The SSM inner size is 2 x embd. */
void plamo2_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint64_t d_inner = 2ull * s->n_embd, dt_dim = s->n_embd / 16 > 64 ? s->n_embd / 16 : 64;
	uint64_t q = (uint64_t)s->n_head * s->head_dim, kv = (uint64_t)s->n_head_kv * s->head_dim;
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		if (f->layer(s, il) == 'A') {
			BM("attn_qkv.weight", s->n_embd, q + 2 * kv);
			f32_tensor(t, (blkname(nm, sizeof(nm), il, "attn_q_norm.weight"), nm), 2, s->head_dim,
				   s->n_head, 1);
			f32_tensor(t, (blkname(nm, sizeof(nm), il, "attn_k_norm.weight"), nm), 2, s->head_dim,
				   s->n_head_kv, 1);
			BM("attn_output.weight", q, s->n_embd);
		} else {
			BM("ssm_in.weight", s->n_embd, 2 * d_inner);
			uint64_t ne[2] = {s->ssm_conv, d_inner};
			blkname(nm, sizeof(nm), il, "ssm_conv1d.weight");
			gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
			BM("ssm_x.weight", d_inner, dt_dim + 2ull * s->ssm_state);
			BM("ssm_dt.weight", dt_dim, s->ssm_dt_rank);
			BV("ssm_dt.bias", s->ssm_dt_rank);
			BV("ssm_a", s->ssm_dt_rank);
			BV("ssm_d", s->ssm_dt_rank);
			BM("ssm_out.weight", d_inner, s->n_embd);
			BV("ssm_dt_norm", dt_dim);
			BV("ssm_b_norm", s->ssm_state);
			BV("ssm_c_norm", s->ssm_state);
		}
		BV("post_attention_norm", s->n_embd);
		BV("ffn_norm.weight", s->n_embd);
		BM("ffn_down.weight", s->n_ff, s->n_embd);
		BM("ffn_up.weight", s->n_embd, 2ull * s->n_ff);
		BV("post_ffw_norm", s->n_embd);
	}
}
