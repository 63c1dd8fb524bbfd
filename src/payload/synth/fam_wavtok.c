/* WavTokenizer's decoder (src/models/wavtokenizer-dec.cpp): a vocoder.
 * A conv1d stem (kernel 7), a posnet of six blocks (resnet, resnet,
 * attention, resnet, resnet, group norm; kernels 3 and 1), token_embd_norm,
 * then `layers` convnext blocks (a depthwise kernel of 7, a layer norm, a
 * GELU FFN, a gamma), output_norm and output {embd, embd_out}. One width
 * for all (features_length, posnet, convnext and embedding_length, which
 * the engine reads as embd_out); the kernels are f32. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

#define WT_POSNET 6 /* the posnet's blocks: the loader knows kinds 0..5 */

void wavtok_defaults(struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	s->n_layer = WT_POSNET;
}

int wavtok_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (s->n_layer < WT_POSNET || s->n_embd % 32)
		return errorf(err,
			      "wavtokenizer-dec needs layers >= %d (the posnet's blocks) and embd a multiple of 32 "
			      "(its group norm's groups)",
			      WT_POSNET);
	return 0;
}

void wavtok_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	akey_u32(w, s, "features_length", s->n_embd);
	akey_u32(w, s, "posnet.embedding_length", s->n_embd);
	akey_u32(w, s, "posnet.block_count", WT_POSNET);
	akey_u32(w, s, "convnext.embedding_length", s->n_embd);
	akey_u32(w, s, "convnext.block_count", s->n_layer);
	akey_f32(w, s, "attention.layer_norm_epsilon", 1e-6f);
	akey_f32(w, s, "attention.group_norm_epsilon", 1e-6f);
	akey_u32(w, s, "attention.group_norm_groups", 32);
}

/* a [1, n] bias, as the loader creates them */
static void bias2(struct tw *t, const char *name, uint64_t n)
{
	f32_tensor(t, name, 2, 1, n, 1);
}

/* posnet block il: resnet (0, 1, 3, 4), attention (2), a norm (5) */
static void posnet_block(struct tw *t, uint64_t E, uint32_t il)
{
	static const char *const res[] = {"norm1", "conv1", "norm2", "conv2"};
	static const char *const att[] = {"attn_norm", "attn_q", "attn_k", "attn_v", "attn_output"};
	char nm[64];
	int is_res = il != 2 && il != 5;
	size_t n = il == 5 ? 1 : is_res ? ARRAY_SIZE(res) : ARRAY_SIZE(att);
	for (size_t i = 0; i < n; i++) {
		const char *part = is_res ? res[i] : att[i];
		snprintf(nm, sizeof(nm), "posnet.%u.%s.weight", il, part);
		if (strstr(part, "norm"))
			bias2(t, nm, E);
		else
			f32_tensor(t, nm, 3, is_res ? 3 : 1, E, E);
		snprintf(nm, sizeof(nm), "posnet.%u.%s.bias", il, part);
		bias2(t, nm, E);
	}
}

void wavtok_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	uint64_t E = s->n_embd;
	mat(t, "output.weight", E, E);
	vec(t, "output.bias", E);
	f32_tensor(t, "conv1d.weight", 3, 7, E, E);
	bias2(t, "conv1d.bias", E);
	for (uint32_t il = 0; il < WT_POSNET; il++)
		posnet_block(t, E, il);
	vec(t, "token_embd_norm.weight", E);
	vec(t, "token_embd_norm.bias", E);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		snprintf(nm, sizeof(nm), "convnext.%u.dw.weight", il);
		f32_tensor(t, nm, 3, 7, 1, E);
		snprintf(nm, sizeof(nm), "convnext.%u.dw.bias", il);
		bias2(t, nm, E);
		snprintf(nm, sizeof(nm), "convnext.%u.norm.weight", il);
		vec(t, nm, E);
		snprintf(nm, sizeof(nm), "convnext.%u.norm.bias", il);
		vec(t, nm, E);
		snprintf(nm, sizeof(nm), "convnext.%u.pw1.weight", il);
		mat(t, nm, E, s->n_ff);
		snprintf(nm, sizeof(nm), "convnext.%u.pw1.bias", il);
		vec(t, nm, s->n_ff);
		snprintf(nm, sizeof(nm), "convnext.%u.pw2.weight", il);
		mat(t, nm, s->n_ff, E);
		snprintf(nm, sizeof(nm), "convnext.%u.pw2.bias", il);
		vec(t, nm, E);
		snprintf(nm, sizeof(nm), "convnext.%u.gamma.weight", il);
		vec(t, nm, E);
	}
}
