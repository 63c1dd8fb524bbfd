/* synth's projector (mmproj) headers: a small LLaVA-style tower the engine
 * runs, or a Qwen3-VL-class tower's sizes for planning. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* The clip.* keys both towers carry. */
static void clip_keys(struct gguf_writer *w, const char *name, const char *proj, uint32_t file_type, uint32_t image,
		      uint32_t patch, uint32_t embd, uint32_t ff, uint32_t blocks, uint32_t heads,
		      uint32_t projection_dim)
{
	gw_str(w, "general.architecture", "clip");
	gw_str(w, "general.type", "mmproj");
	gw_str(w, "general.name", name);
	gw_u32(w, "general.file_type", file_type);
	gw_bool(w, "clip.has_vision_encoder", 1);
	gw_str(w, "clip.projector_type", proj);
	gw_u32(w, "clip.vision.image_size", image);
	gw_u32(w, "clip.vision.patch_size", patch);
	gw_u32(w, "clip.vision.embedding_length", embd);
	gw_u32(w, "clip.vision.feed_forward_length", ff);
	gw_u32(w, "clip.vision.block_count", blocks);
	gw_u32(w, "clip.vision.attention.head_count", heads);
	gw_f32(w, "clip.vision.attention.layer_norm_epsilon", 1e-6f);
	gw_u32(w, "clip.vision.projection_dim", projection_dim);
}

/* The keys a tower the engine runs carries beside clip_keys: GELU blocks,
 * the image's mean and deviation. */
static void image_keys(struct gguf_writer *w)
{
	gw_bool(w, "clip.use_gelu", 1);
	gw_arr_begin(w, "clip.vision.image_mean", GGUF_F32, 3);
	for (int i = 0; i < 3; i++)
		gw_arr_f32(w, 0.5f);
	gw_arr_begin(w, "clip.vision.image_std", GGUF_F32, 3);
	for (int i = 0; i < 3; i++)
		gw_arr_f32(w, 0.5f);
}

/* The small tower is a LLaVA-style MLP projector the engine loads and runs
 * (2 ViT blocks of 64, 224 px / 14 px patches), so vision probes reach a
 * real encoder; the preset is header-level (sizes for planning). */
static int projector_mlp(uint32_t projection_dim, uint32_t image, int red, const char *path, uint64_t *bytes,
			 enum zerr *kind, char **err)
{
	const uint32_t blocks = 2, embd = 64, ff = 128, heads = 2, patch = 14;
	const uint64_t n_pos = (uint64_t)(image / patch) * (image / patch);
	struct gguf_writer w;
	gw_init(&w);
	clip_keys(&w, "zealot-synth-mmproj", "mlp", 0, image, patch, embd, ff, blocks, heads, projection_dim);
	image_keys(&w);
	struct tw t = {.w = &w};
	uint64_t pe[4] = {patch, patch, 3, embd};
	uint64_t pe_at = gw_data_at(&w);
	gw_tensor(&w, "v.patch_embd.weight", 4, pe, 0, (uint64_t)patch * patch * 3 * embd * 4);
	vec(&t, "v.patch_embd.bias", embd);
	mat(&t, "v.position_embd.weight", embd, n_pos);
	if (red) { /* output 0 = the patch's mean (R - G) / 2: channel 0 at +, 1 at - (image_answer) */
		if (projection_dim <= IMG_ONE)
			return errorf(err, "red=1 needs projection_dim > %d", IMG_ONE);
		for (uint64_t i = 0; i < (uint64_t)patch * patch; i++) {
			poke_f32(&w, pe_at, i, 0.5f / (float)(patch * patch));
			poke_f32(&w, pe_at, (uint64_t)patch * patch + i, -0.5f / (float)(patch * patch));
		}
	}
	char nm[64];
	static const char *const sq[] = {"attn_q", "attn_k", "attn_v", "attn_out"};
	for (uint32_t il = 0; il < blocks; il++) {
		for (size_t k = 0; k < 4; k++) {
			snprintf(nm, sizeof(nm), "v.blk.%u.%s.weight", il, sq[k]);
			mat(&t, nm, embd, embd);
			snprintf(nm, sizeof(nm), "v.blk.%u.%s.bias", il, sq[k]);
			vec(&t, nm, embd);
		}
		snprintf(nm, sizeof(nm), "v.blk.%u.ln1.weight", il);
		vec(&t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ln1.bias", il);
		vec(&t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ln2.weight", il);
		vec(&t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ln2.bias", il);
		vec(&t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ffn_up.weight", il);
		mat(&t, nm, embd, ff);
		snprintf(nm, sizeof(nm), "v.blk.%u.ffn_up.bias", il);
		vec(&t, nm, ff);
		snprintf(nm, sizeof(nm), "v.blk.%u.ffn_down.weight", il);
		mat(&t, nm, ff, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.ffn_down.bias", il);
		vec(&t, nm, embd);
	}
	uint64_t mm0_at = gw_data_at(&w);
	mat(&t, "mm.0.weight", embd, projection_dim);
	vec(&t, "mm.0.bias", projection_dim);
	uint64_t mm2_at = gw_data_at(&w);
	mat(&t, "mm.2.weight", projection_dim, projection_dim);
	uint64_t mm2b_at = gw_data_at(&w);
	vec(&t, "mm.2.bias", projection_dim);
	if (red) { /* hidden 0 = output 0; IMG_FLAG = GELU(hidden 0), IMG_ONE = 1 */
		poke_f32(&w, mm0_at, 0, 1.0f);
		poke_f32(&w, mm2_at, (uint64_t)IMG_FLAG * projection_dim, 1.0f);
		poke_f32(&w, mm2b_at, IMG_ONE, 1.0f);
		gw_str(&w, "zealot.synth.projector", "red");
	}
	if (refused(&t, err))
		return -1;
	return written(write_out(&w, path, bytes, err), kind);
}

/* The small towers of the other projector types the planner mirrors:
 * 2 blocks of 64 (2 heads), f32, each type's own tensors (clip.cpp
 * load_tensors) so the engine loads and runs them. */
struct tower_kind {
	const char *type;  /* clip.projector_type */
	uint8_t qwen;	   /* the qwen-vl merger: two patch embeddings, no bias */
	uint8_t rms, gate; /* RMS norms without bias; gated FFN */
	uint8_t post_ln;   /* v.post_ln */
	uint8_t wa;	   /* n_wa_pattern (qwen2.5-vl: window attention) */
	uint8_t q3;	   /* qwen3-vl: fused qkv, patch bias, learned positions, deepstack */
	uint8_t shuffle;   /* idefics3 (1), internvl (2, the class embedding, layer scales): the pixel shuffle */
	uint8_t rope2d;	   /* pixtral (1: no biases, a 2 x 2 patch merger, [IMG_BREAK]), llama4 (2), lightonocr (3) */
	uint8_t ffn; /* an MLP projector: janus_pro (1), phi4 (2), lfm2 (3: the shuffle, a norm), kimivl (4), paddleocr
			(5) */
	uint8_t v2;  /* a second-round vision tower (enum v2_kind), 0 none */
};

/* The vision towers of the second round (kinds2) */
enum v2_kind {
	V2_NONE,
	V2_GLM4V,
	V2_RESAMPLER,
	V2_STEP3VL,
	V2_KIMIK25,
	V2_HUNYUANVL,
	V2_COGVLM,
	V2_YOUTUVL,
	V2_EXAONE,
	V2_GEMMA4V,
	V2_GEMMA4UV,
	V2_MIMOVL,
	V2_MINIMAX,
	V2_DOTS3NOTE,
	V2_LDP,
	V2_LDPV2,
	V2_GLM_EDGE
};

/* Each type's traits as letters: Q qwen, R rms, G gate, P post_ln, W wa
 * (2), 3 q3, i/n shuffle 1/2, x/l/o rope2d 1/2/3, j/p/f/k/d/v/D ffn 1-7. */
static const char *const kinds[][2] = {
    {"gemma3", "P"},	       {"qwen2vl_merger", "QP"}, {"qwen2.5vl_merger", "QRGPW"},
    {"qwen3vl_merger", "QP3"}, {"idefics3", "Pi"},	 {"internvl", "n"},
    {"pixtral", "RGx"},	       {"llama4", "Pl"},	 {"lightonocr", "RGo"},
    {"janus_pro", "Pj"},       {"phi4", "Pp"},		 {"lfm2", "Pf"},
    {"kimivl", "Pk"},	       {"paddleocr", "Pd"},	 {"nemotron_v2_vl", "Pv"},
    {"dots_ocr", "RGD"},
};

/* The second round's towers: the type, its traits (letters, as kinds),
 * its own kind */
static const struct {
	const char *type, *traits;
	enum v2_kind v2;
} kinds2[] = {
    {"glm4v", "QRGP", V2_GLM4V},
    {"resampler", "P", V2_RESAMPLER},
    {"step3vl", "P", V2_STEP3VL},
    {"kimik25", "Pk", V2_KIMIK25},
    {"hunyuanvl", "", V2_HUNYUANVL},
    {"cogvlm", "3", V2_COGVLM},
    {"youtuvl", "P", V2_YOUTUVL},
    {"exaone4_5", "QRGPW", V2_EXAONE},
    {"gemma4v", "RG", V2_GEMMA4V},
    {"gemma4uv", "", V2_GEMMA4UV},
    {"mimovl", "QRGP", V2_MIMOVL},
    {"minimax_m3", "QP", V2_MINIMAX},
    {"dots3note_v", "RGD", V2_DOTS3NOTE},
    {"ldp", "", V2_LDP},
    {"ldpv2", "", V2_LDPV2},
    {"adapter", "P", V2_GLM_EDGE},
};

/* 0 and the traits of type, or -1 when synth writes no such tower */
static int kind_of(const char *type, struct tower_kind *k)
{
	memset(k, 0, sizeof(*k));
	for (size_t i = 0; i < ARRAY_SIZE(kinds) + ARRAY_SIZE(kinds2); i++) {
		size_t j = i - ARRAY_SIZE(kinds);
		const char *name = i < ARRAY_SIZE(kinds) ? kinds[i][0] : kinds2[j].type;
		if (strcmp(name, type) != 0)
			continue;
		const char *f = i < ARRAY_SIZE(kinds) ? kinds[i][1] : kinds2[j].traits;
		k->type = name;
		k->v2 = i < ARRAY_SIZE(kinds) ? V2_NONE : (uint8_t)kinds2[j].v2;
		k->qwen = strchr(f, 'Q') != NULL;
		k->rms = strchr(f, 'R') != NULL;
		k->gate = strchr(f, 'G') != NULL;
		k->post_ln = strchr(f, 'P') != NULL;
		k->wa = strchr(f, 'W') ? 2 : 0;
		k->q3 = strchr(f, '3') != NULL;
		k->shuffle = strchr(f, 'i') ? 1 : strchr(f, 'n') ? 2 : 0;
		k->rope2d = strchr(f, 'x') ? 1 : strchr(f, 'l') ? 2 : strchr(f, 'o') ? 3 : 0;
		for (const char *c = "jpfkdvD"; *c; c++)
			if (strchr(f, *c))
				k->ffn = (uint8_t)(c - "jpfkdvD" + 1);
		return 0;
	}
	return -1;
}

static void tower_block(struct tw *t, const struct tower_kind *k, uint32_t il, uint32_t embd, uint32_t ff)
{
	char nm[64];
	static const char *const sq[] = {"attn_q", "attn_k", "attn_v", "attn_out"}, *const fq[] = {"attn_qkv",
												   "attn_out"};
	int gqa = k->v2 == V2_EXAONE || k->v2 == V2_MIMOVL; /* one key/value head of two */
	int fused = k->q3 || gqa;
	for (size_t i = 0; i < (fused ? 2u : 4u); i++) {
		uint64_t n = fused && i == 0 ? (gqa ? 2ull : 3ull) * embd : embd;
		snprintf(nm, sizeof(nm), "v.blk.%u.%s.weight", il, fused ? fq[i] : sq[i]);
		mat(t, nm, embd, n);
		snprintf(nm, sizeof(nm), "v.blk.%u.%s.bias", il, fused ? fq[i] : sq[i]);
		if (k->rope2d != 1 && k->rope2d != 3)
			vec(t, nm, n);
	}
	static const char *const ln[] = {"ln1", "ln2"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(nm, sizeof(nm), "v.blk.%u.%s.weight", il, ln[i]);
		vec(t, nm, embd);
		snprintf(nm, sizeof(nm), "v.blk.%u.%s.bias", il, ln[i]);
		if (!k->rms)
			vec(t, nm, embd);
	}
	static const char *const fn[] = {"ffn_up", "ffn_gate"};
	for (size_t i = 0; i < (k->gate ? 2u : 1u); i++) {
		snprintf(nm, sizeof(nm), "v.blk.%u.%s.weight", il, fn[i]);
		mat(t, nm, embd, ff);
		snprintf(nm, sizeof(nm), "v.blk.%u.%s.bias", il, fn[i]);
		if (k->rope2d != 1 && k->rope2d != 3)
			vec(t, nm, ff);
	}
	snprintf(nm, sizeof(nm), "v.blk.%u.ffn_down.weight", il);
	mat(t, nm, ff, embd);
	snprintf(nm, sizeof(nm), "v.blk.%u.ffn_down.bias", il);
	if (k->rope2d != 1 && k->rope2d != 3)
		vec(t, nm, embd);
	for (int i = 1; k->shuffle == 2 && i <= 2; i++) {
		snprintf(nm, sizeof(nm), "v.blk.%u.ls%d.weight", il, i);
		vec(t, nm, embd);
	}
}

static void deepstack_tensors(struct tw *t, uint32_t embd, uint32_t out)
{
	vec(t, "v.deepstack.0.norm.weight", 4ull * embd);
	vec(t, "v.deepstack.0.norm.bias", 4ull * embd);
	mat(t, "v.deepstack.0.fc1.weight", 4ull * embd, 4ull * embd);
	vec(t, "v.deepstack.0.fc1.bias", 4ull * embd);
	mat(t, "v.deepstack.0.fc2.weight", 4ull * embd, out);
	vec(t, "v.deepstack.0.fc2.bias", out);
}

/* idefics3's mm.model.fc over 4 x 4 merged patches; internvl's layer
 * norm, mlp.1, mlp.3 over 2 x 2 */
static void shuffle_tensors(struct tw *t, unsigned shuffle, uint32_t embd, uint32_t pd)
{
	if (shuffle == 1) {
		mat(t, "mm.model.fc.weight", 16ull * embd, pd);
		return;
	}
	vec(t, "mm.model.mlp.0.weight", 4ull * embd);
	vec(t, "mm.model.mlp.0.bias", 4ull * embd);
	mat(t, "mm.model.mlp.1.weight", 4ull * embd, pd);
	vec(t, "mm.model.mlp.1.bias", pd);
	mat(t, "mm.model.mlp.3.weight", pd, pd);
	vec(t, "mm.model.mlp.3.bias", pd);
}

/* pixtral: mistral small 3.1's patch merger over 2 x 2 patches, mm.1,
 * mm.2 and [IMG_BREAK]; llama4: mlp.1, mlp.2 and the projection over
 * 2 x 2 patches */
static void rope2d_tensors(struct tw *t, unsigned kind, uint32_t embd, uint32_t pd)
{
	if (kind != 2) {
		vec(t, "mm.input_norm.weight", embd);
		mat(t, "mm.patch_merger.weight", 4ull * embd, embd);
		mat(t, "mm.1.weight", embd, pd);
		vec(t, "mm.1.bias", pd);
		mat(t, "mm.2.weight", pd, pd);
		vec(t, "mm.2.bias", pd);
		if (kind == 1)
			vec(t, "v.token_embd.img_break", pd);
		return;
	}
	mat(t, "mm.model.mlp.1.weight", 4ull * embd, pd);
	mat(t, "mm.model.mlp.2.weight", pd, pd);
	mat(t, "mm.model.fc.weight", pd, pd);
}

/* janus_pro's mm.0 and mm.1, phi4's mm.0 and mm.2, lfm2's input norm
 * over 2 x 2 merged patches, mm.1 and mm.2 (each with its bias) */
/* nemotron_v2_vl's RMS norm, mlp.1 and mlp.3 over 2 x 2 merged patches;
 * dots_ocr's post norm, the patches' layer norm, mm.0 and mm.2 */
static void nemotron_dots_tensors(struct tw *t, unsigned kind, uint32_t embd, uint32_t pd)
{
	if (kind == 6) {
		vec(t, "mm.model.mlp.0.weight", 4ull * embd);
		mat(t, "mm.model.mlp.1.weight", 4ull * embd, pd);
		mat(t, "mm.model.mlp.3.weight", pd, pd);
		return;
	}
	vec(t, "mm.post_norm.weight", embd);
	vec(t, "mm.input_norm.weight", embd);
	vec(t, "mm.input_norm.bias", embd);
	mat(t, "mm.0.weight", 4ull * embd, 4ull * embd);
	vec(t, "mm.0.bias", 4ull * embd);
	mat(t, "mm.2.weight", 4ull * embd, pd);
	vec(t, "mm.2.bias", pd);
}

static void siglip_ffn_tensors(struct tw *t, unsigned kind, uint32_t embd, uint32_t pd)
{
	uint64_t in = kind == 3 ? 4ull * embd : embd;
	char a[16], b[16];
	snprintf(a, sizeof(a), "mm.%d", kind >= 3 ? 1 : 0);
	snprintf(b, sizeof(b), "mm.%d", kind == 1 ? 1 : 2);
	if (kind >= 4) /* kimivl and paddleocr norm the patches before or after the 2 x 2 shuffle */
		in = 4ull * embd;
	if (kind >= 3) {
		vec(t, "mm.input_norm.weight", kind == 3 ? in : embd);
		vec(t, "mm.input_norm.bias", kind == 3 ? in : embd);
	}
	char nm[32];
	snprintf(nm, sizeof(nm), "%s.weight", a);
	mat(t, nm, in, pd);
	snprintf(nm, sizeof(nm), "%s.bias", a);
	vec(t, nm, pd);
	snprintf(nm, sizeof(nm), "%s.weight", b);
	mat(t, nm, pd, pd);
	snprintf(nm, sizeof(nm), "%s.bias", b);
	vec(t, nm, pd);
}

/* mm.model.fc from IN to pd, the layer norm NORM (weight and bias), the
 * gated FFN of mm.up, mm.gate (to 2 pd) and mm.down */
static void fc_norm_glu(struct tw *t, uint64_t in, uint32_t pd, const char *norm)
{
	char nm[48];
	mat(t, "mm.model.fc.weight", in, pd);
	snprintf(nm, sizeof(nm), "%s.weight", norm);
	vec(t, nm, pd);
	snprintf(nm, sizeof(nm), "%s.bias", norm);
	vec(t, nm, pd);
	mat(t, "mm.up.weight", pd, 2ull * pd);
	mat(t, "mm.gate.weight", pd, 2ull * pd);
	mat(t, "mm.down.weight", 2ull * pd, pd);
}

/* gemma4v's block norms: q and k per head, after the attention and the
 * FFN */
static void gemma4_norms(struct tw *t, uint32_t il, uint32_t embd, uint32_t heads)
{
	static const char *const nm4[] = {"attn_q_norm", "attn_k_norm", "attn_post_norm", "ffn_post_norm"};
	char nm[64];
	for (size_t i = 0; i < 4; i++) {
		snprintf(nm, sizeof(nm), "v.blk.%u.%s.weight", il, nm4[i]);
		vec(t, nm, i < 2 ? embd / heads : embd);
	}
}

/* MobileVLM's projectors (24 x 24 patches): ldp's mlp.1, mlp.3 and two
 * mb_blocks (a depthwise 3 x 3 kernel, its norm, the squeeze's fc1 and
 * fc2, the pointwise matrix, its norm); ldpv2's mlp.0, mlp.2, the peg's
 * depthwise kernel and bias; the depthwise kernels f16 (the CPU backend
 * multiplies their f16 im2col by no f32 kernel) */
static void mvlm_tensors(struct tw *t, int ldp, uint32_t embd, uint32_t pd)
{
	char nm[64];
	uint64_t dw[4] = {3, 3, pd, 1};
	snprintf(nm, sizeof(nm), "mm.model.mlp.%d.weight", ldp ? 1 : 0);
	mat(t, nm, embd, pd);
	snprintf(nm, sizeof(nm), "mm.model.mlp.%d.bias", ldp ? 1 : 0);
	vec(t, nm, pd);
	snprintf(nm, sizeof(nm), "mm.model.mlp.%d.weight", ldp ? 3 : 2);
	mat(t, nm, pd, pd);
	snprintf(nm, sizeof(nm), "mm.model.mlp.%d.bias", ldp ? 3 : 2);
	vec(t, nm, pd);
	if (!ldp) {
		gw_tensor(t->w, "mm.model.peg.0.weight", 4, dw, 1, 9ull * pd * 2);
		vec(t, "mm.model.peg.0.bias", pd);
		return;
	}
	for (int b = 1; b <= 2; b++) {
		static const char *const sfx[] = {"0.1", "2.1"};
		snprintf(nm, sizeof(nm), "mm.model.mb_block.%d.block.0.0.weight", b);
		gw_tensor(t->w, nm, 4, dw, 1, 9ull * pd * 2);
		for (size_t i = 0; i < 2; i++) {
			snprintf(nm, sizeof(nm), "mm.model.mb_block.%d.block.%s.weight", b, sfx[i]);
			vec(t, nm, pd);
			snprintf(nm, sizeof(nm), "mm.model.mb_block.%d.block.%s.bias", b, sfx[i]);
			vec(t, nm, pd);
		}
		snprintf(nm, sizeof(nm), "mm.model.mb_block.%d.block.1.fc1.weight", b);
		mat(t, nm, pd, pd / 4);
		snprintf(nm, sizeof(nm), "mm.model.mb_block.%d.block.1.fc1.bias", b);
		vec(t, nm, pd / 4);
		snprintf(nm, sizeof(nm), "mm.model.mb_block.%d.block.1.fc2.weight", b);
		mat(t, nm, pd / 4, pd);
		snprintf(nm, sizeof(nm), "mm.model.mb_block.%d.block.1.fc2.bias", b);
		vec(t, nm, pd);
		snprintf(nm, sizeof(nm), "mm.model.mb_block.%d.block.2.0.weight", b);
		mat(t, nm, pd, pd);
	}
}

/* The third round's projector tensors: MobileVLM's (mvlm_tensors);
 * glm_edge's 2 x 2 stride-2 conv (f16), the adapter's GLU, boi, eoi */
static void vision3_tensors(struct tw *t, enum v2_kind v2, uint32_t embd, uint32_t pd)
{
	if (v2 != V2_GLM_EDGE) {
		mvlm_tensors(t, v2 == V2_LDP, embd, pd);
		return;
	}
	uint64_t cv[4] = {2, 2, embd, embd};
	gw_tensor(t->w, "adapter.conv.weight", 4, cv, 1, 4ull * embd * embd * 2);
	vec(t, "adapter.conv.bias", embd);
	mat(t, "adapter.linear.linear.weight", embd, pd);
	vec(t, "adapter.linear.norm1.weight", pd);
	vec(t, "adapter.linear.norm1.bias", pd);
	mat(t, "adapter.linear.dense_h_to_4h.weight", pd, 2ull * pd);
	mat(t, "adapter.linear.gate.weight", pd, 2ull * pd);
	mat(t, "adapter.linear.dense_4h_to_h.weight", 2ull * pd, pd);
	vec(t, "adapter.boi", pd);
	vec(t, "adapter.eoi", pd);
}

/* The second round's projectors. glm4v's merger: a 2 x 2 conv2d to pd
 * (and its bias), mm.model.fc, the post norm, then mm.up, mm.gate (to
 * 2 pd) and mm.down */
static void vision2_tensors(struct tw *t, enum v2_kind v2, uint32_t embd, uint32_t pd)
{
	if (v2 == V2_GLM4V) {
		uint64_t ne[4] = {2, 2, embd, pd};
		gw_tensor(t->w, "mm.patch_merger.weight", 4, ne, 0, 4ull * embd * pd * 4);
		vec(t, "mm.patch_merger.bias", pd);
		fc_norm_glu(t, pd, pd, "mm.post_norm");
		return;
	}
	if (v2 == V2_HUNYUANVL) { /* the perceiver: 2 x 2 conv to 2 E, 1 x 1 to 4 E, mm.model.fc */
		uint64_t n0[4] = {2, 2, embd, 2ull * embd}, n2[4] = {1, 1, 2ull * embd, 4ull * embd};
		vec(t, "mm.pre_norm.weight", embd);
		gw_tensor(t->w, "mm.0.weight", 4, n0, 0, 4ull * embd * 2 * embd * 4);
		vec(t, "mm.0.bias", 2ull * embd);
		gw_tensor(t->w, "mm.2.weight", 4, n2, 0, 2ull * embd * 4 * embd * 4);
		vec(t, "mm.2.bias", 4ull * embd);
		vec(t, "v.image_newline", 4ull * embd);
		mat(t, "mm.model.fc.weight", 4ull * embd, pd);
		vec(t, "mm.model.fc.bias", pd);
		vec(t, "mm.post_norm.weight", pd);
		vec(t, "mm.image_begin", pd);
		vec(t, "mm.image_end", pd);
		return;
	}
	if (v2 == V2_GEMMA4V || v2 == V2_GEMMA4UV) { /* (gemma4uv's three patch norms,) the input projection */
		for (int i = 1; v2 == V2_GEMMA4UV && i <= 3; i++) {
			char nm[40];
			uint64_t n = i == 1 ? 27ull * 14 * 14 : embd;
			snprintf(nm, sizeof(nm), "v.patch_norm.%d.weight", i);
			vec(t, nm, n);
			snprintf(nm, sizeof(nm), "v.patch_norm.%d.bias", i);
			vec(t, nm, n);
		}
		mat(t, "mm.input_projection.weight", embd, pd);
		return;
	}
	if (v2 == V2_DOTS3NOTE) { /* dots_ocr's */
		nemotron_dots_tensors(t, 7, embd, pd);
		return;
	}
	if (v2 == V2_MINIMAX) { /* per patch mm.1 (2 E), mm.2 (E); the merger fc1, fc2 over 2 x 2 rows */
		static const char *const nm[] = {"mm.1", "mm.2", "mm.merger.fc1", "mm.merger.fc2"};
		const uint64_t in[] = {embd, 2ull * embd, 4ull * embd, 4ull * embd},
			       out[] = {2ull * embd, embd, 4ull * embd, pd};
		char b[40];
		for (size_t i = 0; i < 4; i++) {
			snprintf(b, sizeof(b), "%s.weight", nm[i]);
			mat(t, b, in[i], out[i]);
			snprintf(b, sizeof(b), "%s.bias", nm[i]);
			vec(t, b, out[i]);
		}
		return;
	}
	if (v2 >= V2_LDP) {
		vision3_tensors(t, v2, embd, pd);
		return;
	}
	if (v2 == V2_MIMOVL) { /* mm.0 and mm.2 over 2 x 2 rows, no biases */
		mat(t, "mm.0.weight", 4ull * embd, 4ull * embd);
		mat(t, "mm.2.weight", 4ull * embd, pd);
		return;
	}
	if (v2 == V2_YOUTUVL || v2 == V2_EXAONE) { /* (youtuvl's RMS input norm,) mm.0 and mm.2 over 2 x 2 rows */
		if (v2 == V2_YOUTUVL)
			vec(t, "mm.input_norm.weight", embd);
		mat(t, "mm.0.weight", 4ull * embd, 4ull * embd);
		vec(t, "mm.0.bias", 4ull * embd);
		mat(t, "mm.2.weight", 4ull * embd, pd);
		vec(t, "mm.2.bias", pd);
		return;
	}
	if (v2 == V2_COGVLM) { /* mm.model.fc, its norm, the gated FFN (2 pd), boi, eoi */
		fc_norm_glu(t, embd, pd, "mm.post_fc_norm");
		vec(t, "v.boi", pd);
		vec(t, "v.eoi", pd);
		return;
	}
	if (v2 == V2_KIMIK25) { /* kimivl's projector */
		siglip_ffn_tensors(t, 4, embd, pd);
		return;
	}
	if (v2 == V2_STEP3VL) { /* two 3 x 3 stride-2 downsamplers (2 E, 4 E), mm.model.fc */
		uint64_t n0[4] = {3, 3, embd, 2ull * embd}, n1[4] = {3, 3, 2ull * embd, 4ull * embd};
		gw_tensor(t->w, "mm.0.weight", 4, n0, 0, 9ull * embd * 2 * embd * 4);
		vec(t, "mm.0.bias", 2ull * embd);
		gw_tensor(t->w, "mm.1.weight", 4, n1, 0, 9ull * 2 * embd * 4 * embd * 4);
		vec(t, "mm.1.bias", 4ull * embd);
		mat(t, "mm.model.fc.weight", 4ull * embd, pd);
		return;
	}
	/* minicpmv's resampler: 64 queries of pd (heads of 128) over the
	 * patches through resampler.kv, its q, k, v, out and three norms */
	static const char *const rs[] = {"q", "k", "v", "out"}, *const ln[] = {"q", "kv", "post"};
	char nm[48];
	mat(t, "resampler.pos_embed_k", pd, 64);
	mat(t, "resampler.query", pd, 64);
	mat(t, "resampler.kv.weight", embd, pd);
	for (size_t i = 0; i < 4; i++) {
		snprintf(nm, sizeof(nm), "resampler.attn.%s.weight", rs[i]);
		mat(t, nm, pd, pd);
		snprintf(nm, sizeof(nm), "resampler.attn.%s.bias", rs[i]);
		vec(t, nm, pd);
	}
	for (size_t i = 0; i < 3; i++) {
		snprintf(nm, sizeof(nm), "resampler.ln_%s.weight", ln[i]);
		vec(t, nm, pd);
		snprintf(nm, sizeof(nm), "resampler.ln_%s.bias", ln[i]);
		vec(t, nm, pd);
	}
	mat(t, "resampler.proj.weight", pd, pd);
}

/* The second round's own keys */
static void vision2_keys(struct gguf_writer *w, enum v2_kind v2)
{
	if (v2 == V2_RESAMPLER)
		gw_u32(w, "clip.minicpmv_query_num", 64);
	if (v2 == V2_EXAONE || v2 == V2_MIMOVL)
		gw_u32(w, "clip.vision.attention.head_count_kv", 1);
	if (v2 == V2_DOTS3NOTE) { /* dense blocks: the expert count the engine requires, unused */
		gw_u32(w, "clip.vision.spatial_merge_size", 2);
		gw_u32(w, "clip.vision.expert_used_count", 1);
	}
	if (v2 == V2_MIMOVL) { /* block 0 column windows, block 1 row windows */
		gw_u32(w, "clip.vision.window_size", 64);
		gw_arr_begin(w, "clip.vision.wa_pattern_mode", GGUF_I32, 2);
		gw_arr_i32(w, 1);
		gw_arr_i32(w, 0);
	}
	if (v2 == V2_YOUTUVL) { /* block 1 full, block 0 windowed */
		gw_u32(w, "clip.vision.window_size", 112);
		gw_arr_begin(w, "clip.vision.wa_layer_indexes", GGUF_I32, 1);
		gw_arr_i32(w, 1);
	}
}

static int projector_tower(const struct synth_proj *ps, const char *path, uint64_t *bytes, enum zerr *kind, char **err)
{
	struct tower_kind kd, *k = &kd;
	if (kind_of(ps->type, k))
		return errorf(
		    err,
		    "type=%s: written are mlp, gemma3, qwen2vl_merger, qwen2.5vl_merger, qwen3vl_merger, "
		    "idefics3, internvl, pixtral, llama4, lightonocr, janus_pro, phi4, lfm2, kimivl, paddleocr, "
		    "nemotron_v2_vl, dots_ocr, glm4v, resampler, step3vl, kimik25, hunyuanvl, cogvlm, youtuvl, "
		    "exaone4_5, gemma4v, gemma4uv, mimovl, minimax_m3, dots3note_v, ldp, ldpv2, adapter",
		    ps->type);
	const uint32_t blocks = 2, embd = ps->embd ? ps->embd : 64, ff = 2 * embd, heads = 2, patch = 14;
	const uint32_t pd = ps->projection_dim;
	const uint32_t image = ps->image ? ps->image : k->v2 == V2_LDP || k->v2 == V2_LDPV2 ? 336 : 224;
	if (k->v2 == V2_RESAMPLER && pd % 128)
		return errorf(err, "type=resampler: projection_dim=%u is not a multiple of 128 (its heads)", pd);
	struct gguf_writer w;
	gw_init(&w);
	clip_keys(&w, "zealot-synth-mmproj", k->type, 0, image, patch, embd, ff, blocks, heads, pd);
	image_keys(&w);
	if (k->qwen)
		gw_u32(&w, "clip.vision.spatial_merge_size", 2);
	if (k->wa)
		gw_u32(&w, "clip.vision.n_wa_pattern", k->wa);
	vision2_keys(&w, k->v2);
	if (k->shuffle || k->rope2d == 2 || k->ffn == 3 || k->ffn == 4 || k->ffn >= 6)
		gw_u32(&w, "clip.vision.projector.scale_factor", k->shuffle == 1 ? 4 : 2);
	if (k->rope2d == 1 || k->rope2d == 3)
		gw_u32(&w, "clip.vision.spatial_merge_size", 2);
	if (k->ffn == 2 || k->ffn == 5 || k->ffn == 7 || k->v2 == V2_KIMIK25 || k->v2 == V2_EXAONE ||
	    k->v2 == V2_MIMOVL) { /* phi4, paddleocr and dots_ocr read both */
		gw_u32(&w, "clip.vision.image_min_pixels", patch * patch * 16);
		gw_u32(&w, "clip.vision.image_max_pixels", patch * patch * 256);
	}
	struct tw t = {.w = &w};
	uint64_t pe[4] = {patch, patch, 3, embd};
	if (k->rope2d == 2 || k->v2 == V2_YOUTUVL) /* llama4's unfold convolution, youtuvl's: a [3 p p, E] matrix */
		mat(&t, "v.patch_embd.weight", 3ull * patch * patch, embd);
	else if (k->v2 == V2_GEMMA4UV) /* gemma4uv's patches merged 3 x 3 */
		mat(&t, "v.patch_embd.weight", 27ull * patch * patch, embd);
	else
		gw_tensor(&w, "v.patch_embd.weight", 4, pe, 0, (uint64_t)patch * patch * 3 * embd * 4);
	if (k->qwen)
		gw_tensor(&w, "v.patch_embd.weight.1", 4, pe, 0, (uint64_t)patch * patch * 3 * embd * 4);
	int cls = k->shuffle == 2 || k->rope2d == 2 || k->v2 == V2_COGVLM;
	if (k->rope2d == 1 || k->rope2d == 3) {
		vec(&t, "v.pre_ln.weight", embd);
	} else if (!k->qwen || k->q3 || k->v2 == V2_GLM4V) {
		if (!k->rope2d && k->v2 != V2_GEMMA4V)
			vec(&t, "v.patch_embd.bias", embd);
		if (k->v2 == V2_KIMIK25) /* kimik25's table: [E, W, H] */
			f32_tensor(&t, "v.position_embd.weight", 3, embd, image / patch, image / patch);
		else if (k->v2 == V2_GEMMA4V || k->v2 == V2_GEMMA4UV) /* gemma4's x and y tables of 64 */
			f32_tensor(&t, "v.position_embd.weight", 3, embd, 64, 2);
		else
			mat(&t, "v.position_embd.weight", embd,
			    (uint64_t)(image / patch) * (image / patch) + (uint64_t)cls);
	}
	if (cls)
		vec(&t, "v.class_embd", embd);
	if (k->v2 == V2_GLM4V) /* glm4v's RMS norm of the patches */
		vec(&t, "v.norm_embd.weight", embd);
	if (k->ffn == 6) /* nemotron's two register rows */
		f32_tensor(&t, "v.class_embd", 2, embd, 2, 1);
	for (uint32_t il = 0; il < blocks; il++) {
		tower_block(&t, k, il, embd, ff);
		if (k->v2 == V2_GEMMA4V)
			gemma4_norms(&t, il, embd, heads);
		if (k->v2 == V2_MIMOVL) { /* the windowed blocks' sinks, one a head */
			char nm[40];
			snprintf(nm, sizeof(nm), "v.blk.%u.attn_sinks", il);
			vec(&t, nm, heads);
		}
	}
	if (k->post_ln) {
		vec(&t, "v.post_ln.weight", embd);
		if (!k->rms)
			vec(&t, "v.post_ln.bias", embd);
	}
	if (k->v2) {
		vision2_tensors(&t, k->v2, embd, pd);
	} else if (k->qwen) { /* qwen3-vl: block 0's deepstack features fill half the text width */
		uint32_t out = k->q3 ? pd / 2 : pd;
		mat(&t, "mm.0.weight", 4ull * embd, 4ull * embd);
		vec(&t, "mm.0.bias", 4ull * embd);
		mat(&t, "mm.2.weight", 4ull * embd, out);
		vec(&t, "mm.2.bias", out);
		if (k->q3)
			deepstack_tensors(&t, embd, out);
	} else if (k->shuffle) {
		shuffle_tensors(&t, k->shuffle, embd, pd);
	} else if (k->rope2d) {
		rope2d_tensors(&t, k->rope2d, embd, pd);
	} else if (k->ffn >= 6) {
		nemotron_dots_tensors(&t, k->ffn, embd, pd);
	} else if (k->ffn) {
		siglip_ffn_tensors(&t, k->ffn, embd, pd);
	} else {
		vec(&t, "mm.soft_emb_norm.weight", embd);
		mat(&t, "mm.input_projection.weight", pd, embd);
	}
	if (refused(&t, err))
		return -1;
	return written(write_out(&w, path, bytes, err), kind);
}

int synth_projector(const struct synth_proj *ps, const char *path, uint64_t *bytes, enum zerr *kind, char **err)
{
	zerr_set(kind, ZE_USAGE);
	const char *preset = ps->preset;
	uint32_t projection_dim = ps->projection_dim;
	if (!projection_dim)
		return errorf(err, "the projector needs the text model's embedding width");
	if (ps->image && (ps->image % 28 || ps->image > 2016))
		return errorf(err, "image=%u: a multiple of 28 up to 2016", ps->image);
	if (preset && (ps->type || ps->image || ps->embd))
		return errorf(err, "type=, image= and embd= are for the small towers (no --preset)");
	if (ps->embd && (ps->embd % 64 || ps->embd > 4096 || !ps->type || strcmp(ps->type, "mlp") == 0))
		return errorf(err, "embd=%u: a multiple of 64 up to 4096, for a type= other than mlp", ps->embd);
	if (ps->type && synth_audio_type(ps->type) >= 0 && !ps->red)
		return synth_projector_audio(ps, path, bytes, kind, err);
	if (ps->type && strcmp(ps->type, "mlp") != 0) {
		if (ps->red)
			return errorf(err, "red=1 is written for the mlp tower only");
		return projector_tower(ps, path, bytes, kind, err);
	}
	if (!preset)
		return projector_mlp(projection_dim, ps->image ? ps->image : 224, ps->red, path, bytes, kind, err);
	if (ps->red)
		return errorf(err, "red=1 is written for the default projector only (no --preset)");
	if (strcmp(preset, "bonsai-9b-mmproj") != 0)
		return errorf(err, "unknown projector preset '%s' (bonsai-9b-mmproj)", preset);
	/* a Qwen3-VL-class tower: 27 blocks of 1152, Q8_0 matrices (header-level) */
	const uint32_t blocks = 27, embd = 1152, ff = 4352, heads = 16, image = 768, patch = 16, wtype = 8;
	struct gguf_writer w;
	gw_init(&w);
	clip_keys(&w, preset, "qwen3vl_merger", 7, image, patch, embd, ff, blocks, heads, projection_dim);
	gw_u32(&w, "clip.vision.spatial_merge_size", 2);
	struct tw t = {.w = &w, .wtype = wtype};
	uint64_t pe[4] = {patch, patch, 3, embd};
	gw_tensor(&w, "v.patch_embd.weight", 4, pe, 1, (uint64_t)patch * patch * 3 * embd * 2);
	vec(&t, "v.patch_embd.bias", embd);
	uint64_t pos[2] = {embd, (uint64_t)(image / patch) * (image / patch)};
	gw_tensor(&w, "v.position_embd.weight", 2, pos, 0, pos[0] * pos[1] * 4);
	char nm[64];
	for (uint32_t il = 0; il < blocks; il++) {
#define VB(suffix) snprintf(nm, sizeof(nm), "v.blk.%u." suffix, il)
		VB("ln1.weight");
		vec(&t, nm, embd);
		VB("ln1.bias");
		vec(&t, nm, embd);
		VB("attn_qkv.weight");
		mat(&t, nm, embd, 3ull * embd);
		VB("attn_qkv.bias");
		vec(&t, nm, 3ull * embd);
		VB("attn_out.weight");
		mat(&t, nm, embd, embd);
		VB("attn_out.bias");
		vec(&t, nm, embd);
		VB("ln2.weight");
		vec(&t, nm, embd);
		VB("ln2.bias");
		vec(&t, nm, embd);
		VB("ffn_up.weight");
		mat(&t, nm, embd, ff);
		VB("ffn_up.bias");
		vec(&t, nm, ff);
		VB("ffn_down.weight");
		mat(&t, nm, ff, embd);
		VB("ffn_down.bias");
		vec(&t, nm, embd);
#undef VB
	}
	uint64_t merged = 4ull * embd;
	vec(&t, "v.post_ln.weight", embd);
	vec(&t, "v.post_ln.bias", embd);
	mat(&t, "mm.0.weight", merged, merged);
	vec(&t, "mm.0.bias", merged);
	mat(&t, "mm.2.weight", merged, projection_dim);
	vec(&t, "mm.2.bias", projection_dim);
	if (refused(&t, err))
		return -1;
	return written(write_out(&w, path, bytes, err), kind);
}
