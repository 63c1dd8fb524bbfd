/* Gemma 1 (src/models/gemma.cpp: every layer full, no post norms), 2 and 3 (src/models/gemma2.cpp, gemma3.cpp):
 * sliding-window layers with a global one every swa_pattern, post norms, the output tied to the embedding; Gemma 3n
 * (src/models/gemma3n.cpp): gemma3's attention (q/k norms, a window on 4 layers of 5) with the engine's fixed widths
 * for the rest, which no key sets (llama-hparams.h): 4 altup streams, a
 * laurel rank of 64 and per-layer inputs 256 wide. Every layer carries q,
 * k and v; the layers past the first 20 read an earlier layer's cache all
 * the same (load_arch_hparams: n_layer_kv_from_start = 20). */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

#define G3N_ALTUP  4
#define G3N_LAUREL 64
#define G3N_PLE	   256

void gemma_defaults(struct synth_spec *s, const struct synth_family *f)
{
	if (f->variant & V_GEMMA1) { /* src/models/gemma.cpp: every layer full */
		s->n_layer = 6;
		return;
	}
	s->n_swa = 512;
	if (f->variant & V_GEMMA3N) {
		/* past the engine's fixed 20 layers with a cache, one window
		 * and one full layer reading an earlier layer's KV */
		s->n_layer = 25;
		s->swa_pattern = 5;
		return;
	}
	s->n_layer = 6;
	s->swa_pattern = f->variant & V_GEMMA2 ? 2 : 6;
}

int gemma3n_validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	(void)f;
	if (!s->n_swa || s->swa_pattern < 2)
		return errorf(err, "gemma3n needs a sliding window (swa > 0) and swa_pattern >= 2");
	/* the engine's reuse map past its 20 cached layers: layer 19 (full)
	 * or 18 (window) */
	if (s->n_layer > 20 && (19 % s->swa_pattern != s->swa_pattern - 1 || 18 % s->swa_pattern == s->swa_pattern - 1))
		return errorf(err,
			      "gemma3n: layers past 20 read layer 19 (full) or 18 (window); swa_pattern=%u makes "
			      "layer 19 a window layer or 18 a full one",
			      s->swa_pattern);
	return 0;
}

void gemma_keys(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	if (s->n_swa)
		keys_window(w, s, 1);
}

void gemma3_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	char nm[64];
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", s->n_embd);
		qkv(t, s, il, 1);
		if (!(f->variant & V_GEMMA1))
			BV("post_attention_norm.weight", s->n_embd);
		if (!(f->variant & (V_GEMMA1 | V_GEMMA2))) { /* gemma2 norms neither q nor k */
			BV("attn_k_norm.weight", s->head_dim);
			BV("attn_q_norm.weight", s->head_dim);
		}
		BV("ffn_norm.weight", s->n_embd);
		ffn(t, s, il);
		if (!(f->variant & V_GEMMA1))
			BV("post_ffw_norm.weight", s->n_embd);
	}
}

void gemma3n_tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	(void)f;
	char nm[64];
	uint64_t E = s->n_embd;
	f32_tensor(t, "altup_proj.weight", 3, E, E, G3N_ALTUP - 1);
	f32_tensor(t, "altup_unembd_proj.weight", 3, E, E, G3N_ALTUP - 1);
	mat(t, "per_layer_token_embd.weight", (uint64_t)G3N_PLE * s->n_layer, s->n_vocab);
	mat(t, "per_layer_model_proj.weight", E, (uint64_t)G3N_PLE * s->n_layer);
	vec(t, "per_layer_proj_norm.weight", G3N_PLE);
	for (uint32_t il = 0; il < s->n_layer; il++) {
		BV("attn_norm.weight", E);
		qkv(t, s, il, 1);
		BV("attn_q_norm.weight", s->head_dim);
		BV("attn_k_norm.weight", s->head_dim);
		BV("post_attention_norm.weight", E);
		BV("ffn_norm.weight", E);
		ffn(t, s, il);
		BV("post_ffw_norm.weight", E);
		BM("inp_gate.weight", E, G3N_PLE);
		BM("proj.weight", G3N_PLE, E);
		BV("post_norm.weight", E);
		blkname(nm, sizeof(nm), il, "altup_correct_coef.weight");
		f32_tensor(t, nm, 2, G3N_ALTUP, G3N_ALTUP, 1);
		BV("altup_correct_scale.weight", E);
		blkname(nm, sizeof(nm), il, "altup_predict_coef.weight");
		f32_tensor(t, nm, 2, G3N_ALTUP, G3N_ALTUP * G3N_ALTUP, 1);
		blkname(nm, sizeof(nm), il, "altup_router.weight");
		f32_tensor(t, nm, 2, E, G3N_ALTUP, 1);
		BV("altup_router_norm.weight", E);
		BM("laurel_l.weight", E, G3N_LAUREL);
		BM("laurel_r.weight", G3N_LAUREL, E);
		BV("laurel_post_norm.weight", E);
	}
}
