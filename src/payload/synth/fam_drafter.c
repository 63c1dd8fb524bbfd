/* The drafters of a target's hidden states (common/speculative.cpp's
 * draft-eagle3 and draft-dflash): models that run only in a draft context
 * beside their target, fed the inputs of the target layers they name.
 *
 * eagle3 (src/models/eagle3.cpp): one decoder layer over the draft's token
 * row beside fc's fusion of three target layers (target_layers,
 * target_hidden_size: the target's width, embd_out here); attention reads
 * 2 x embd; its own token_embd, the target's output (none of its own).
 *
 * dflash (src/models/dflash.cpp, the plain DFlash: no hyper-connections,
 * no DFlash2 selector, no DSpark head): fc fuses tgt_extract target layers
 * of the draft's own width (the target's: n_embd_inp_enc = layers x embd),
 * enc.output_norm after it; blocks with q/k norms attend non-causally over
 * a cache the fused features are injected into; the target's output. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* the target layers a drafter reads: spread over a target of
 * tgt_layers blocks (synth llama's 4 by default), first to last */
static void target_layers(struct gguf_writer *w, const struct synth_spec *s, uint32_t n)
{
	char k[96];
	akey(k, sizeof(k), s, "target_layers");
	gw_arr_begin(w, k, GGUF_I32, n);
	for (uint32_t i = 0; i < n; i++)
		gw_arr_i32(w, (int32_t)(n > 1 ? i * (s->tgt_layers - 1) / (n - 1) : s->tgt_layers - 1));
}

/* eagle3 beside synth llama (embd 256, 4 layers, 2 KV heads of 128):
 * its width and one layer; dflash: two blocks reading three layers */
void drafter_defaults(struct synth_spec *s, const struct synth_family *f)
{
	s->n_layer = f->variant == V_DFLASH ? 2 : 1;
	s->embd_out = f->variant == V_DFLASH ? 0 : s->n_embd; /* the target's output reads the draft's rows */
	s->tgt_layers = 4;
	s->tgt_extract = f->variant == V_DFLASH ? 3 : 0;
}

int drafter_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (f->variant == V_DFLASH)
		return s->tgt_layers && s->tgt_extract
			   ? 0
			   : errorf(err, "dflash needs tgt_layers (its target's blocks) and tgt_extract (the layers "
					 "it reads)");
	if (s->n_layer != 1)
		return errorf(err, "eagle3 has exactly one decoder layer (the engine asserts n_layer == 1)");
	if (!s->embd_out || !s->tgt_layers)
		return errorf(err, "eagle3 needs embd_out (its target's width) and tgt_layers (its target's blocks)");
	return 0;
}

void drafter_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant != V_DFLASH) {
		target_layers(w, s, 3);
		akey_u32(w, s, "target_hidden_size", s->embd_out);
		return;
	}
	target_layers(w, s, s->tgt_extract);
	akey_u32(w, s, "block_size", 16);
	/* the noise block's filler: the engine reads it as the vocabulary's mask */
	gw_u32(w, "tokenizer.ggml.mask_token_id", s->n_vocab - 1);
}

void drafter_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	uint32_t il = 0;
	if (f->variant == V_DFLASH) {
		mat(t, "fc.weight", (uint64_t)s->tgt_extract * s->n_embd, s->n_embd);
		vec(t, "enc.output_norm.weight", s->n_embd);
		for (il = 0; il < s->n_layer; il++) {
			attn_block(t, s, il, ATTN_QK_NORM);
			ffn(t, s, il);
		}
		return;
	}
	uint64_t in = 2 * (uint64_t)s->n_embd, q = (uint64_t)s->head_dim * s->n_head,
		 kv = (uint64_t)s->head_dim * s->n_head_kv;
	mat(t, "fc.weight", 3 * (uint64_t)s->embd_out, s->n_embd);
	BV("attn_norm.weight", s->n_embd);
	BV("attn_norm_2.weight", s->n_embd);
	BM("attn_q.weight", in, q);
	BM("attn_k.weight", in, kv);
	BM("attn_v.weight", in, kv);
	BM("attn_output.weight", q, s->n_embd);
	BV("ffn_norm.weight", s->n_embd);
	ffn(t, s, il);
}
