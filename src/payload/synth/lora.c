/* synth's LoRA adapters: rank-r pairs fitted to a base payload's
 * projections, and the adapter that turns a base's answer to its alt. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/util.h"
#include "../gguf.h"
#include "../synth.h"
#include "synth_int.h"

static int lora_target(const char *name)
{
	static const char *const suffixes[] = {".attn_output.weight", ".ssm_out.weight", ".ffn_down.weight"};
	if (strncmp(name, "blk.", 4) != 0 || strstr(name, ".nextn."))
		return 0;
	size_t n = strlen(name);
	for (size_t i = 0; i < ARRAY_SIZE(suffixes); i++) {
		size_t m = strlen(suffixes[i]);
		if (n > m && strcmp(name + n - m, suffixes[i]) == 0)
			return 1;
	}
	return 0;
}

static void lora_pair(struct gguf_writer *w, const char *name, uint64_t in, uint64_t out, uint32_t rank, int embd)
{
	char nm[96];
	uint64_t a[2], b[2];
	if (embd) { /* token_embd: A and B flipped (llm_build_inp_embd) */
		a[0] = rank;
		a[1] = out;
		b[0] = in;
		b[1] = rank;
	} else {
		a[0] = in;
		a[1] = rank;
		b[0] = rank;
		b[1] = out;
	}
	snprintf(nm, sizeof(nm), "%s.lora_a", name);
	gw_tensor(w, nm, 2, a, 0, a[0] * a[1] * 4);
	snprintf(nm, sizeof(nm), "%s.lora_b", name);
	gw_tensor(w, nm, 2, b, 0, b[0] * b[1] * 4);
}

/* The base's vocabulary id whose text is the answer in the byte-level
 * alphabet, or -1. */
static int64_t answer_id(const struct gguf *g, const char *answer)
{
	struct sb want = {0};
	char buf[4];
	for (const char *p = answer; *p; p++)
		sb_add(&want, buf, byte_token((unsigned char)*p, buf));
	const struct gguf_kv *toks = gguf_find(g, "tokenizer.ggml.tokens");
	uint64_t idx = 0;
	const uint8_t *pos = NULL;
	struct gguf_str str;
	int64_t found = -1;
	while (found < 0 && gguf_arr_next_str(toks, &idx, &pos, &str) == 0)
		if (str.n == want.len && memcmp(str.p, want.s, want.len) == 0 && idx - 1 >= 256)
			found = (int64_t)(idx - 1);
	sb_release(&want);
	return found;
}

int synth_lora_answer(const char *base_path, const char *answer, float alpha, const char *path, uint64_t *bytes,
		      enum zerr *kind, char **err)
{
	struct gguf_file *base = gguf_open(base_path, kind, err);
	if (!base)
		return -1;
	zerr_set(kind, ZE_USAGE);
	const struct gguf *g = base->g;
	const struct gguf_kv *arch = gguf_find(g, "general.architecture");
	const struct gguf_tensor *out = gguf_tensor_find(g, "output.weight");
	int64_t to = answer_id(g, answer);
	int rc = 0;
	if (!gguf_find(g, "zealot.synth.answer") || !arch || arch->type != GGUF_STRING || !out || out->n_dims != 2)
		rc = errorf(err, "'%s' is not a payload synth wrote with --set answer=TEXT", base_path);
	else if (to < 0 || to == ANS_TOKEN)
		rc = errorf(err, "'%s' has no second answer '%s' in its vocabulary (write it with --set alt='%s')",
			    base_path, answer, answer);
	if (rc) {
		gguf_close(base);
		return rc;
	}
	struct gguf_writer w;
	gw_init(&w);
	char *arch_s = xstrndup(arch->v.s.p, (size_t)arch->v.s.n);
	gw_str(&w, "general.architecture", arch_s);
	free(arch_s);
	gw_str(&w, "general.type", "adapter");
	gw_str(&w, "general.name", "zealot-synth-lora-answer");
	gw_str(&w, "adapter.type", "lora");
	gw_f32(&w, "adapter.lora.alpha", alpha);
	gw_str(&w, "zealot.synth.answer", answer);
	/* rank 1 on output.weight: A reads state 1 ("</think>"), B moves its
	 * successor from the base answer to this one (scale alpha / rank) */
	uint64_t a_at = gw_data_at(&w);
	lora_pair(&w, "output.weight", out->ne[0], out->ne[1], 1, 0);
	uint64_t b_at = a_at + (out->ne[0] * 4 + w.alignment - 1) / w.alignment * w.alignment;
	poke_f32(&w, a_at, 1, 1.0f);
	poke_f32(&w, b_at, ANS_TOKEN, -2 * ANS_WEIGHT / alpha);
	poke_f32(&w, b_at, (uint64_t)to, 2 * ANS_WEIGHT / alpha);
	gguf_close(base);
	return written(write_out(&w, path, bytes, err), kind);
}

int synth_lora(const char *base_path, uint32_t rank, float alpha, int touch_embd, const char *base_name,
	       const char *path, uint64_t *bytes, enum zerr *kind, char **err)
{
	zerr_set(kind, ZE_USAGE);
	if (!rank)
		return errorf(err, "rank must be positive");
	struct gguf_file *base = gguf_open(base_path, kind, err);
	if (!base)
		return -1;
	zerr_set(kind, ZE_USAGE);
	const struct gguf_kv *arch = gguf_find(base->g, "general.architecture");
	if (!arch || arch->type != GGUF_STRING) {
		gguf_close(base);
		return errorf(err, "'%s' names no architecture", base_path);
	}
	char *arch_s = xstrndup(arch->v.s.p, (size_t)arch->v.s.n);
	/* MTP blocks are loaded only when a drafter is armed: an adapter on
	 * them would not apply to a plain boot, so the trunk only. */
	uint64_t blocks = 0, nextn = 0;
	char key[96];
	snprintf(key, sizeof(key), "%s.block_count", arch_s);
	gguf_kv_u64(gguf_find(base->g, key), &blocks);
	snprintf(key, sizeof(key), "%s.nextn_predict_layers", arch_s);
	gguf_kv_u64(gguf_find(base->g, key), &nextn);
	uint64_t n_trunk = blocks > nextn ? blocks - nextn : 0;
	struct gguf_writer w;
	gw_init(&w);
	gw_str(&w, "general.architecture", arch_s);
	gw_str(&w, "general.type", "adapter");
	gw_str(&w, "general.name", "zealot-synth-lora");
	gw_str(&w, "adapter.type", "lora");
	gw_f32(&w, "adapter.lora.alpha", alpha);
	if (base_name)
		gw_str(&w, "zealot.synth.base_gguf", base_name);
	for (uint64_t i = 0; i < base->g->n_tensors; i++) {
		const struct gguf_tensor *t = &base->g->tensors[i];
		if (t->n_dims == 2 && lora_target(t->name) && strtoull(t->name + 4, NULL, 10) < n_trunk)
			lora_pair(&w, t->name, t->ne[0], t->ne[1], rank, 0);
		if (touch_embd && strcmp(t->name, "token_embd.weight") == 0)
			lora_pair(&w, t->name, t->ne[0], t->ne[1], rank, 1);
	}
	free(arch_s);
	gguf_close(base);
	return written(write_out(&w, path, bytes, err), kind);
}
