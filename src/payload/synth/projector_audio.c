/* synth's audio projector towers: a small whisper encoder (two 1D
 * convolutions, learned positions, layer-normed blocks) with each audio
 * projector type's own head (clip.cpp load_tensors, models/whisper-enc.cpp),
 * qwen3a's (three 2D convolutions over 100-frame chunks, the same blocks)
 * and gemma4ua's (no encoder: one projection of raw 640-sample frames), so
 * the engine loads it as an audio encoder and warms it up. */
#include <stdio.h>
#include <string.h>

#include "../../base/util.h"
#include "../synth.h"
#include "synth_int.h"

/* The audio types synth writes, and each one's stack factor
 * (clip.audio.projector.stack_factor, 0: none) */
static const struct {
	uint32_t stack;
	const char *type;
} audio_kinds[] = {
    {8, "ultravox"}, {0, "qwen2a"},   {4, "voxtral"},	  {0, "musicflamingo"}, {4, "meralion"}, {4, "glma"},
    {0, "qwen3a"},   {0, "gemma4ua"}, {0, "dots3note_a"}, {0, "lfm2a"},		{0, "parakeet"}, {0, "gemma4a"},
};

int synth_audio_type(const char *type)
{
	for (size_t i = 0; i < ARRAY_SIZE(audio_kinds); i++)
		if (strcmp(audio_kinds[i].type, type) == 0)
			return (int)i;
	return -1;
}

/* mm.a.NAME.K.{weight,bias}: a matrix [in, out] and its bias */
static void audio_mm(struct tw *t, const char *name, int k, uint64_t in, uint64_t out, int bias)
{
	char nm[48];
	snprintf(nm, sizeof(nm), "mm.a.%s.%d.weight", name, k);
	mat(t, nm, in, out);
	snprintf(nm, sizeof(nm), "mm.a.%s.%d.bias", name, k);
	if (bias)
		vec(t, nm, out);
}

static void audio_norm(struct tw *t, const char *name, uint64_t n, int bias)
{
	char nm[48];
	snprintf(nm, sizeof(nm), "mm.a.%s.weight", name);
	vec(t, nm, n);
	snprintf(nm, sizeof(nm), "mm.a.%s.bias", name);
	if (bias)
		vec(t, nm, n);
}

/* One whisper block: layer norms with biases, q and v with biases, k
 * without, the GELU FFN with biases (a matrix's input and output: the
 * width, or the FFN's when the letter says f) */
static void audio_block(struct tw *t, uint32_t il, uint32_t embd, uint32_t ff)
{
	static const struct {
		const char *name;
		char in, out, bias;
	} m[] = {{"attn_q", 'e', 'e', 1},   {"attn_k", 'e', 'e', 0}, {"attn_v", 'e', 'e', 1},
		 {"attn_out", 'e', 'e', 1}, {"ffn_up", 'e', 'f', 1}, {"ffn_down", 'f', 'e', 1}};
	char nm[48];
	for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
		uint64_t out = m[i].out == 'f' ? ff : embd;
		snprintf(nm, sizeof(nm), "a.blk.%u.%s.weight", il, m[i].name);
		mat(t, nm, m[i].in == 'f' ? ff : embd, out);
		snprintf(nm, sizeof(nm), "a.blk.%u.%s.bias", il, m[i].name);
		if (m[i].bias)
			vec(t, nm, out);
	}
	for (int i = 1; i <= 2; i++) {
		snprintf(nm, sizeof(nm), "a.blk.%u.ln%d.weight", il, i);
		vec(t, nm, embd);
		snprintf(nm, sizeof(nm), "a.blk.%u.ln%d.bias", il, i);
		vec(t, nm, embd);
	}
}

/* Each type's head over the encoder's rows (E wide, stacked sf x) */
static void audio_head(struct tw *t, const char *type, uint64_t embd, uint64_t sf, uint64_t pd)
{
	uint64_t in = sf ? embd * sf : embd;
	if (strcmp(type, "ultravox") == 0) { /* RMS norm, mlp.1, SwiGLU, RMS norm, mlp.2 */
		audio_norm(t, "norm_pre", in, 0);
		audio_mm(t, "mlp", 1, in, 2 * pd, 0);
		audio_norm(t, "norm_mid", pd, 0);
		audio_mm(t, "mlp", 2, pd, pd, 0);
	} else if (strcmp(type, "qwen2a") == 0) {
		mat(t, "mm.a.fc.weight", embd, pd);
		vec(t, "mm.a.fc.bias", pd);
	} else if (strcmp(type, "meralion") == 0) { /* norm, mlp.0 + SiLU, the GLU of mlp.1 and mlp.2, mlp.3 */
		audio_norm(t, "norm_pre", in, 1);
		for (int k = 0; k < 3; k++)
			audio_mm(t, "mlp", k, k ? pd : in, pd, 1);
		audio_mm(t, "mlp", 3, pd, pd, 1);
	} else { /* voxtral (no biases), musicflamingo, glma (a norm first, BOI and EOI rows) */
		int bias = strcmp(type, "voxtral") != 0;
		if (type[0] == 'g') {
			audio_norm(t, "norm_pre", embd, 1);
			vec(t, "v.boi", pd);
			vec(t, "v.eoi", pd);
		}
		audio_mm(t, "mlp", 1, in, pd, bias);
		audio_mm(t, "mlp", 2, pd, pd, bias);
	}
}

/* qwen3a: three 3 x 3 convolutions of 8 channels (stride 2) over the
 * 128 mel bins, conv_out from the 16 bins x 8 channels left, learned
 * positions, whisper's blocks, a post norm, mlp.1 and mlp.2; dots3note_a:
 * the same stem and blocks without positions (a rope), its adapter's
 * norm, mlp.1 and mlp.3; gemma4ua: mm.a.input_projection over a
 * 640-sample frame */
static void stem_2d(struct tw *t, const char *type, uint32_t embd, uint32_t pd)
{
	const uint32_t ch = 8;
	int q3 = type[0] == 'q';
	if (type[0] == 'g') {
		mat(t, "mm.a.input_projection.weight", 640, pd);
		return;
	}
	char nm[32];
	uint64_t ne[4] = {3, 3, 1, ch};
	for (int k = 1; k <= 3; k++) {
		ne[2] = k == 1 ? 1 : ch;
		snprintf(nm, sizeof(nm), "a.conv2d.%d.weight", k);
		gw_tensor(t->w, nm, 4, ne, 0, 9ull * ne[2] * ch * 4);
		snprintf(nm, sizeof(nm), "a.conv2d.%d.bias", k);
		vec(t, nm, ch);
	}
	mat(t, "a.conv_out.weight", 16ull * ch, embd);
	if (q3)
		mat(t, "a.position_embd.weight", embd, 1500);
	for (uint32_t il = 0; il < 2; il++)
		audio_block(t, il, embd, 2 * embd);
	vec(t, "a.post_ln.weight", embd);
	vec(t, "a.post_ln.bias", embd);
	if (!q3)
		audio_norm(t, "norm_pre", embd, 1);
	audio_mm(t, "mlp", 1, embd, pd, 1);
	audio_mm(t, "mlp", q3 ? 2 : 3, pd, pd, 1);
}

/* lfm2a's conformer: the subsampling convolutions (0: 3 x 3 over the
 * mel bins, 2 and 5 depthwise, 3 and 6 pointwise; 8 channels), the
 * projection, blocks of two half FFNs, the relative-position attention
 * (its biases, linear_pos over the 512-wide positions' embedding) and the
 * convolution module (pw1, a depthwise 9-tap conv, its norm, pw2), the
 * adapter; parakeet's (pk) the same without the matrices' and conv_dw's
 * biases and the positions' table, with the conv norm's mean and
 * variance, its head an RMS norm, mlp.1 and mlp.2 (mm.model.mlp.0, 1 and
 * 3 loaded, not used) */
static void conformer(struct tw *t, uint32_t embd, uint32_t pd, int pk)
{
	const uint32_t ch = 8, ff = 2 * embd, heads = 2;
	char nm[48];
	for (int k = 0; k <= 6; k++) {
		if (k == 1 || k == 4)
			continue;
		uint64_t ne[4] = {k == 3 || k == 6 ? 1 : 3, k == 3 || k == 6 ? 1 : 3, k == 3 || k == 6 ? ch : 1, ch};
		snprintf(nm, sizeof(nm), "a.conv1d.%d.weight", k);
		gw_tensor(t->w, nm, 4, ne, 0, ne[0] * ne[1] * ne[2] * ne[3] * 4);
		snprintf(nm, sizeof(nm), "a.conv1d.%d.bias", k);
		f32_tensor(t, nm, 3, 1, 1, ch);
	}
	mat(t, "a.pre_encode.out.weight", 16ull * ch, embd);
	vec(t, "a.pre_encode.out.bias", embd);
	if (!pk)
		mat(t, "a.position_embd.weight", pd, 1500); /* its width is the projector's (clip_n_mmproj_embd) */
	static const char *const norms[] = {"ffn_norm", "ffn_norm_1", "ln1", "ln2", "norm_conv", "conv_norm"};
	static const struct {
		const char *name;
		uint8_t in, out; /* 0: the width, 1: the FFN's, 2: twice the width, 3: 512 */
	} m[] = {{"ffn_up", 0, 1}, {"ffn_down", 1, 0}, {"ffn_up_1", 0, 1}, {"ffn_down_1", 1, 0}, {"attn_q", 0, 0},
		 {"attn_k", 0, 0}, {"attn_v", 0, 0},   {"attn_out", 0, 0}, {"conv_pw1", 0, 2},	 {"conv_pw2", 0, 0}};
	const uint64_t width[] = {embd, ff, 2ull * embd, 512};
	for (uint32_t il = 0; il < 2; il++) {
		for (size_t i = 0; i < ARRAY_SIZE(norms); i++) {
			snprintf(nm, sizeof(nm), "a.blk.%u.%s.weight", il, norms[i]);
			vec(t, nm, embd);
			snprintf(nm, sizeof(nm), "a.blk.%u.%s.bias", il, norms[i]);
			vec(t, nm, embd);
		}
		for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
			snprintf(nm, sizeof(nm), "a.blk.%u.%s.weight", il, m[i].name);
			mat(t, nm, width[m[i].in], width[m[i].out]);
			snprintf(nm, sizeof(nm), "a.blk.%u.%s.bias", il, m[i].name);
			if (!pk)
				vec(t, nm, width[m[i].out]);
		}
		snprintf(nm, sizeof(nm), "a.blk.%u.linear_pos.weight", il);
		mat(t, nm, pk ? embd : 512, embd);
		for (int k = 0; k < 2; k++) {
			snprintf(nm, sizeof(nm), "a.blk.%u.pos_bias_%c", il, k ? 'v' : 'u');
			f32_tensor(t, nm, 2, embd / heads, heads, 1);
		}
		snprintf(nm, sizeof(nm), "a.blk.%u.conv_dw.weight", il);
		f32_tensor(t, nm, 2, 9, embd, 1);
		snprintf(nm, sizeof(nm), "a.blk.%u.conv_%s", il, pk ? "norm_mean" : "dw.bias");
		vec(t, nm, embd);
		snprintf(nm, sizeof(nm), "a.blk.%u.conv_norm_var", il);
		if (pk)
			vec(t, nm, embd);
	}
	if (pk) { /* and its preprocessor's mel filters (n_fft 512) and window */
		f32_tensor(t, "a.mel_filters", 1, 128 * 257, 1, 1);
		f32_tensor(t, "a.window", 1, 400, 1, 1);
		for (int k = 0; k < 4; k++) {
			snprintf(nm, sizeof(nm), "mm.model.mlp.%d.weight", k);
			if (k != 2)
				mat(t, nm, embd, embd);
		}
		audio_norm(t, "norm_pre", embd, 0);
		audio_mm(t, "mlp", 1, embd, pd, 0);
		audio_mm(t, "mlp", 2, pd, pd, 0);
		return;
	}
	audio_norm(t, "mlp.0", embd, 1);
	audio_mm(t, "mlp", 1, embd, pd, 1);
	audio_mm(t, "mlp", 3, pd, pd, 1);
}

/* gemma4a's conformer: two 3 x 3 convolutions of 8 channels (stride 2,
 * each with its channel norm), the input projection, RMS-normed blocks
 * (half FFNs with post norms; chunked attention with per-dimension
 * scales and the positions' projection; a convolution module with a
 * 5-tap depthwise conv), the output projection, the embedder's norm and
 * projection; no biases */
static void gemma4a(struct tw *t, uint32_t embd, uint32_t pd)
{
	const uint32_t ch = 8, ff = 2 * embd, heads = 2;
	char nm[48];
	for (int k = 0; k < 2; k++) {
		uint64_t ne[4] = {3, 3, k ? ch : 1, ch};
		snprintf(nm, sizeof(nm), "a.conv1d.%d.weight", k);
		gw_tensor(t->w, nm, 4, ne, 0, 9ull * ne[2] * ch * 4);
		snprintf(nm, sizeof(nm), "a.conv1d.%d.norm.weight", k);
		vec(t, nm, ch);
	}
	mat(t, "a.input_projection.weight", 32ull * ch, embd);
	static const char *const norms[] = {"ffn_norm",	      "ffn_post_norm",	 "attn_pre_norm",
					    "attn_post_norm", "conv_norm",	 "norm_conv",
					    "ffn_norm_1",     "ffn_post_norm_1", "ln2"};
	static const struct {
		const char *name;
		uint8_t in, out; /* 0: the width, 1: the FFN's, 2: twice the width */
	} m[] = {{"ffn_up", 0, 1},     {"ffn_down", 1, 0}, {"ffn_up_1", 0, 1}, {"ffn_down_1", 1, 0},
		 {"attn_q", 0, 0},     {"attn_k", 0, 0},   {"attn_v", 0, 0},   {"attn_out", 0, 0},
		 {"attn_k_rel", 0, 0}, {"conv_pw1", 0, 2}, {"conv_pw2", 0, 0}};
	const uint64_t width[] = {embd, ff, 2ull * embd};
	for (uint32_t il = 0; il < 2; il++) {
		for (size_t i = 0; i < ARRAY_SIZE(norms); i++) {
			snprintf(nm, sizeof(nm), "a.blk.%u.%s.weight", il, norms[i]);
			vec(t, nm, embd);
		}
		for (size_t i = 0; i < ARRAY_SIZE(m); i++) {
			snprintf(nm, sizeof(nm), "a.blk.%u.%s.weight", il, m[i].name);
			mat(t, nm, width[m[i].in], width[m[i].out]);
		}
		for (int k = 0; k < 2; k++) {
			snprintf(nm, sizeof(nm), "a.blk.%u.per_dim_%sscale.weight", il, k ? "k_" : "");
			vec(t, nm, embd / heads);
		}
		snprintf(nm, sizeof(nm), "a.blk.%u.conv_dw.weight", il);
		f32_tensor(t, nm, 2, 5, embd, 1);
	}
	mat(t, "a.pre_encode.out.weight", embd, embd);
	vec(t, "mm.a.soft_emb_norm.weight", embd);
	mat(t, "mm.a.input_projection.weight", embd, pd);
}

int synth_projector_audio(const struct synth_proj *ps, const char *path, uint64_t *bytes, enum zerr *kind, char **err)
{
	int i = synth_audio_type(ps->type);
	if (i < 0)
		return errorf(err, "type=%s: not an audio projector synth writes", ps->type);
	if (ps->image)
		return errorf(err, "image= is for the vision towers");
	const char *type = audio_kinds[i].type;
	const int q3 = strcmp(type, "qwen3a") == 0 || strcmp(type, "dots3note_a") == 0;
	const int g4 = strcmp(type, "gemma4ua") == 0;
	const uint32_t blocks = g4 ? 0 : 2, embd = ps->embd ? ps->embd : 64, ff = 2 * embd, heads = 2;
	const uint32_t mel = g4 ? 640 : 128;
	const uint32_t pd = ps->projection_dim, sf = audio_kinds[i].stack, n_pos = 1500;
	struct gguf_writer w;
	gw_init(&w);
	gw_str(&w, "general.architecture", "clip");
	gw_str(&w, "general.type", "mmproj");
	gw_str(&w, "general.name", "zealot-synth-mmproj-audio");
	gw_u32(&w, "general.file_type", 0);
	gw_bool(&w, "clip.has_audio_encoder", 1);
	gw_str(&w, "clip.projector_type", type);
	gw_u32(&w, "clip.audio.embedding_length", embd);
	gw_u32(&w, "clip.audio.feed_forward_length", ff);
	gw_u32(&w, "clip.audio.block_count", blocks);
	gw_u32(&w, "clip.audio.attention.head_count", heads);
	gw_f32(&w, "clip.audio.attention.layer_norm_epsilon", 1e-5f);
	gw_u32(&w, "clip.audio.projection_dim", pd);
	gw_u32(&w, "clip.audio.num_mel_bins", mel);
	if (sf)
		gw_u32(&w, "clip.audio.projector.stack_factor", sf);
	struct tw t = {.w = &w};
	if (strcmp(type, "parakeet") == 0) {
		gw_u32(&w, "clip.audio.subsampling_factor", 8);
		gw_u32(&w, "clip.audio.conv_kernel_size", 9);
	}
	if (strcmp(type, "gemma4a") == 0) {
		gemma4a(&t, embd, pd);
	} else if (strcmp(type, "lfm2a") == 0 || strcmp(type, "parakeet") == 0) {
		conformer(&t, embd, pd, type[0] == 'p');
	} else if (q3 || g4) {
		stem_2d(&t, type, embd, pd);
	} else {
		f32_tensor(&t, "a.conv1d.1.weight", 3, 3, mel, embd);
		f32_tensor(&t, "a.conv1d.1.bias", 2, 1, embd, 1);
		f32_tensor(&t, "a.conv1d.2.weight", 3, 3, embd, embd);
		f32_tensor(&t, "a.conv1d.2.bias", 2, 1, embd, 1);
		mat(&t, "a.position_embd.weight", embd, n_pos);
		for (uint32_t il = 0; il < blocks; il++)
			audio_block(&t, il, embd, ff);
		vec(&t, "a.post_ln.weight", embd);
		vec(&t, "a.post_ln.bias", embd);
		audio_head(&t, type, embd, sf, pd);
	}
	if (refused(&t, err))
		return -1;
	return written(write_out(&w, path, bytes, err), kind);
}
