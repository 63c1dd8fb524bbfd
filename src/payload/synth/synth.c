/* synth's front: an architecture's defaults (its family row's), the
 * presets, the --set keys, the rules every payload keeps, and the write
 * (the header and the tensor infos, sized to bytes=N, whole or split). */
#include "../synth.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../base/util.h"
#include "../ggml_type.h"
#include "../split.h"
#include "synth_int.h"

int synth_defaults(struct synth_spec *s, const char *arch, char **err)
{
	memset(s, 0, sizeof(*s));
	if (synth_family_known(arch, err))
		return -1;
	const struct synth_family *f = synth_family_find(arch);
	snprintf(s->arch, sizeof(s->arch), "%s", arch);
	snprintf(s->name, sizeof(s->name), "zealot-synth-%s", arch);
	s->n_embd = 256;
	s->n_ff = 512;
	s->n_head = 4;
	s->n_head_kv = 2;
	s->head_dim = 64;
	s->n_ctx = 32768;
	s->n_vocab = 512;
	s->wtype = 1; /* f16 */
	s->n_layer = 4;
	s->efforts = 1;
	if (f->defaults)
		f->defaults(s, f);
	if (!s->rope_dims)
		s->rope_dims = s->head_dim;
	return 0;
}

static const char *const preset_help =
    "  bonsai-9b    qwen35, 32 trunk layers + 1 MTP block, 8 full-attention, 4 KV heads x 256,\n"
    "               ssm 4/128/16/32 (inner 4096), embd 4096, vocab 248,320, context 262,144\n"
    "  bonsai-27b   qwen35, 64 layers (16 full-attention), 4 KV heads x 256, embd 5120,\n"
    "               ssm inner 6144 (dt rank 48), vocab 248,320, context 262,144, no MTP\n"
    "  swift-27b    bonsai-27b geometry with 1 MTP block (65 blocks)\n"
    "  ghost-mtp    bonsai-9b declaring 1 MTP block with no nextn tensors (law S06)\n";

const char *synth_help_presets(void)
{
	return preset_help;
}

int synth_preset(struct synth_spec *s, const char *preset, char **err)
{
	int b9 = strcmp(preset, "bonsai-9b") == 0 || strcmp(preset, "ghost-mtp") == 0;
	int b27 = strcmp(preset, "bonsai-27b") == 0 || strcmp(preset, "swift-27b") == 0;
	if (!b9 && !b27)
		return errorf(err, "unknown preset '%s' (bonsai-9b, bonsai-27b, swift-27b, ghost-mtp)", preset);
	if (synth_defaults(s, "qwen35", err))
		return -1;
	s->head_dim = 256;
	s->rope_dims = 64;
	s->n_head_kv = 4;
	s->n_ctx = 262144;
	s->n_vocab = 248320;
	s->ssm_conv = 4;
	s->ssm_state = 128;
	s->ssm_groups = 16;
	s->interval = 4;
	if (b9) {
		s->n_layer = 32;
		s->n_nextn = 1;
		s->mtp_tensors = strcmp(preset, "ghost-mtp") != 0;
		s->n_embd = 4096;
		s->n_ff = 12288;
		s->n_head = 16;
		s->ssm_dt_rank = 32;
	} else {
		s->n_layer = 64;
		s->n_nextn = strcmp(preset, "swift-27b") == 0;
		s->mtp_tensors = s->n_nextn;
		s->n_embd = 5120;
		s->n_ff = 17408;
		s->n_head = 24;
		s->ssm_dt_rank = 48;
	}
	snprintf(s->name, sizeof(s->name), "zealot-synth-%s", preset);
	return 0;
}

/* --- the rules --------------------------------------------------------- */

/* The rules every payload keeps, then its family's, then the flags'. */
static int validate(const struct synth_spec *s, const struct synth_family *f, char **err)
{
	if (!s->n_layer || !s->n_embd || !s->n_ff || !s->n_head || !s->n_head_kv || !s->head_dim)
		return errorf(err, "layers, embd, ff, heads, kv_heads and head_dim must all be positive");
	if (s->n_head % s->n_head_kv)
		return errorf(err, "heads (%u) must be a multiple of kv_heads (%u)", s->n_head, s->n_head_kv);
	if (s->n_vocab < 300)
		return errorf(err, "vocab %u is too small: the byte-level tokenizer needs 300 tokens", s->n_vocab);
	if (validate_answer(s, f, err))
		return -1;
	if (s->n_layer + s->n_nextn > 512)
		return errorf(err, "%u blocks exceed the engine's 512", s->n_layer + s->n_nextn);
	if (s->rope_dims > s->head_dim || s->rope_dims % 2)
		return errorf(err,
			      "rope_dims %u must be even and at most head_dim %u (rope_dims does not follow a "
			      "head_dim set with --set: set rope_dims too)",
			      s->rope_dims, s->head_dim);
	if (f->validate && f->validate(s, f, err))
		return -1;
	if (s->n_nextn && !(f->flags & SF_MTP))
		return errorf(err, "nextn (MTP) blocks are only synthesised for qwen35(moe), glm4moe and deepseek2");
	if ((f->flags & SF_MROPE) && (s->rope_dims != s->head_dim || s->rope_dims < 64))
		return errorf(err, "%s's rope sections [11,11,10,0] need rope_dims == head_dim >= 64", s->arch);
	if ((f->flags & SF_ROPE_FULL) && s->rope_dims != s->head_dim)
		return errorf(err,
			      "%s requires rope_dims == head_dim (rope_dims=%u, head_dim=%u: rope_dims does not "
			      "follow a head_dim set with --set; set rope_dims=%u too)",
			      s->arch, s->rope_dims, s->head_dim, s->head_dim);
	if ((f->flags & SF_HEADS_EMBD) && s->n_head * s->head_dim != s->n_embd)
		return errorf(err, "%s requires heads x head_dim (%u) == embd (%u)", s->arch, s->n_head * s->head_dim,
			      s->n_embd);
	if ((f->flags & SF_EXPERTS_SIZED) &&
	    (!s->n_expert || !s->n_expert_used || !s->n_ff_exp || s->n_expert_used > s->n_expert))
		return errorf(err, "qwen3moe needs experts >= experts_used > 0 and ff_exp > 0");
	if ((f->flags & SF_CODEC_OUT) && s->n_vocab < SYNTH_CODEC_ROWS)
		return errorf(err, "%s's codec head has %u rows: the engine aborts on a vocab below them (vocab=%u)",
			      s->arch, SYNTH_CODEC_ROWS, s->n_vocab);
	if ((f->flags & SF_DENSE) && s->n_expert)
		return errorf(err, "%s is written dense (experts: qwen3moe, gpt-oss, gemma4, mistral3)", s->arch);
	if (!ggml_type_get(s->wtype) && s->wtype < GGML_TYPE_COUNT)
		return errorf(err, "type=%u is a type ggml removed (block size 0): the engine refuses it", s->wtype);
	return 0;
}

/* --- the write ------------------------------------------------------------ */

/* The tensor infos: the embeddings, the final norm and the output, then
 * the family's blocks. */
static void tensors(struct tw *t, const struct synth_spec *s, const struct synth_family *f)
{
	/* bytes=N resizes the offloaded matrices: the input embedding stays
	 * on the host at its type's size */
	t->fixed = 1;
	uint32_t wtype = t->wtype;
	if (answer_mode(s))
		t->wtype = 1; /* f16: the answer's rows are written, exactly */
	uint64_t embd_at = gw_data_at(t->w);
	mat(t, "token_embd.weight", s->n_embd, s->embd_rows ? s->embd_rows : s->n_vocab);
	t->wtype = wtype;
	t->fixed = 0;
	uint64_t norm_at = gw_data_at(t->w);
	if (!(f->flags & SF_NO_OUT_NORM))
		vec(t,
		    f->flags & SF_EMBD_NORM  ? "token_embd_norm.weight"
		    : f->flags & SF_ENC_NORM ? "enc.output_norm.weight"
					     : "output_norm.weight",
		    s->n_embd);
	if (f->flags & SF_NORM_BIAS)
		vec(t, "output_norm.bias", s->n_embd);
	uint64_t out_at = gw_data_at(t->w);
	if (answer_mode(s))
		t->wtype = 1;
	if (!(f->flags & SF_TIED))
		mat(t, "output.weight", s->n_embd, f->flags & SF_CODEC_OUT ? SYNTH_CODEC_ROWS : s->n_vocab);
	t->wtype = wtype;
	if (answer_mode(s))
		answer_weights(t->w, s, embd_at, norm_at, out_at);
	f->tensors(t, s, f);
}

/* The header and the tensor infos of the payload into w. */
static int fill(const struct synth_spec *s, const struct synth_family *f, struct gguf_writer *wp, struct tw *tp,
		char **err)
{
	struct gguf_writer w;
	gw_init(&w);
	keys_general(&w, s);
	keys_geometry(&w, s, f);
	if (f->flags & SF_MROPE) /* M-RoPE, required */
		keys_rope_sections(&w, s);
	if (f->keys)
		f->keys(&w, s, f);
	tokenizer(&w, s);

	struct tw t = *tp;
	t.w = &w;
	t.wtype = s->wtype;
	t.s = s;
	t.bad = NULL;
	t.seen = 0;
	t.given = 0;
	tensors(&t, s, f);
	if (refused(&t, err)) /* releases the writer */
		return -1;
	*tp = t;
	*wp = w;
	return 0;
}

static uint64_t file_bytes(struct gguf_writer *w)
{
	uint64_t hlen;
	free(gw_header(w, &hlen));
	return hlen + w->data_size;
}

/* bytes=N: size the custom matrices so the file has N bytes (to within
 * the data alignment, which pads every tensor); w and t are the first
 * fill's, refilled. */
static int fit_bytes(const struct synth_spec *s, const struct synth_family *f, struct gguf_writer *w, struct tw *t,
		     char **err)
{
	if (ggml_type_get(s->wtype)) {
		gw_release(w);
		return errorf(err,
			      "--set bytes=%llu needs a custom weight type (type=142): a stock type's "
			      "tensor sizes are fixed by its blocks",
			      (unsigned long long)s->target_bytes);
	}
	uint64_t elems = t->seen;
	for (int pass = 0; pass < 2; pass++) {
		int64_t off = (int64_t)s->target_bytes - (int64_t)file_bytes(w);
		gw_release(w);
		t->extra += off;
		t->elems = elems;
		if (t->extra < -(int64_t)(elems / CUSTOM_BLCK * CUSTOM_SIZE) / 2)
			return errorf(err,
				      "--set bytes=%llu: below what this geometry's tensors need at half "
				      "their size",
				      (unsigned long long)s->target_bytes);
		if (fill(s, f, w, t, err))
			return -1;
	}
	return 0;
}

int synth_write(const struct synth_spec *s, const char *path, uint64_t *bytes, enum zerr *kind, char **err)
{
	zerr_set(kind, ZE_USAGE);
	const struct synth_family *f = synth_family_find(s->arch);
	if (!f)
		return synth_family_known(s->arch, err);
	if (validate(s, f, err))
		return -1;
	struct gguf_writer w;
	struct tw t;
	memset(&t, 0, sizeof(t));
	if (fill(s, f, &w, &t, err))
		return -1;
	if (s->target_bytes && fit_bytes(s, f, &w, &t, err))
		return -1;
	if (s->n_split > 1)
		return written(write_split(&w, path, s->n_split, bytes, err), kind);
	return written(write_out(&w, path, bytes, err), kind);
}
