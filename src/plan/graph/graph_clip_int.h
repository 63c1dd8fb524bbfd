/* graph_clip_int: graph_clip's private header, shared by the files the
 * projector's graph splits along (graph_clip.c: the helpers of clip.cpp's
 * clip_graph and the first builders; graph_clip_vision2.c: the vision
 * builders of the second round; graph_clip_vision3.c: the third round's;
 * graph_clip_audio.c and graph_clip_audio2.c: the audio encoders).
 * Nothing outside src/plan/graph/ includes it.
 */
#ifndef ZEALOT_GRAPH_CLIP_INT_H
#define ZEALOT_GRAPH_CLIP_INT_H
#include <stddef.h>
#include <stdint.h>

#include "../../payload/gguf.h"
#include "galloc.h"

/* What a builder reads of the tower: clip_hparams' sizes and the optional
 * tensors the graph tests for. */
struct clip {
	struct ga_graph *g;
	const struct gguf *gg;
	int64_t E, H, D, F, L; /* width, heads, head size, FFN width, blocks */
	int64_t patch, img;    /* patch size, the warmup image's side */
	int64_t px, np;	       /* patches per side, patches */
	int64_t merge;	       /* n_merge (spatial merge / pooling kernel) */
	int64_t proj;	       /* projection_dim */
	int fa, rms;	       /* flash attention; RMS norms (else layer norms) */
	int audio;	       /* an audio tower (graph_clip_audio.c): a. tensors, clip.audio. keys */
	int64_t mel, stack;    /* audio: mel bins, the projector's stack factor */
	const char *type;
	int own_blocks; /* the builder replays the block tensors blocks_unmirrored names */
};

/* An attention mask input (qwen2.5-vl's window mask, [T, T] f32), made
 * where the graph first reaches it, and its f16 cast for flash attention
 * (made once, where the first attention over it reaches it); raw < 0 and
 * T 0: none. */
struct clip_mask {
	int raw, f16;
	int64_t T;
};

/* What a block does beside build_vit's plain one: q and k turned by
 * M-RoPE over the positions input (made where first reached), an
 * attention mask, and a hook the graph visits between the block's q, k
 * and v and its attention (ggml_build_forward_order puts them first). */
/* pos2[1] of a block turned by one rope over pos2[0]'s positions
 * (dots3note_a's over half of each head) */
#define CLIP_ONE_ROPE (-3)
struct vit_opts {
	int *pos;		/* M-RoPE positions' slot (NULL: no rope) */
	int *pos2;		/* build_rope_2d's two positions' slots (NULL: none), in the order it reads them */
	struct clip_mask *mask; /* NULL: none */
	void (*hook)(const struct clip *c, void *ctx);
	void *hook_ctx;
};

/* The attention's heads: q [D, H, Tq], k and v [D, H, Tkv] */
struct heads {
	int64_t D, H, Tq, Tkv;
	int64_t Hkv; /* K's and V's heads (GQA), 0: H */
};

/* graph_clip.c's helpers (clip_graph's build_inp, build_norm, build_vit's
 * block, build_attn, ...), each described there */
int64_t u64_or(const struct gguf *gg, const char *key, int64_t dflt);
int clip_tower_dims(struct clip *c, const struct gguf *gg, int fa, const char *kind);
int has(const struct clip *c, const char *name);
int blk_has(const struct clip *c, int64_t il, const char *suffix);
int w(const struct clip *c);
int mm(const struct clip *c, int x, int64_t ne0, int64_t ne1);
int with_w(const struct clip *c, int x, int64_t ne0, int64_t ne1);
int mm_b(const struct clip *c, int x, int64_t ne0, int64_t ne1, int bias);
int norm(const struct clip *c, int x, int64_t ne0, int64_t ne1, int rms, int has_w, int has_b);
int tower_norm(const struct clip *c, int x, const char *name, int64_t T);
int vit_block(const struct clip *c, int x, int64_t il, int64_t T, const struct vit_opts *o);
int attn_heads(const struct clip *c, int q, int k, int v, struct clip_mask *mk, struct heads h);
int qwen_inp(const struct clip *c);
int qwen3_pos(const struct clip *c);
int64_t rows_of(const struct clip *c, const char *name);
int build_inp(const struct clip *c);
int resize_pos(const struct clip *c);
int merge_ffn(const struct clip *c, int x, const char *a, const char *b);
int conv2d(const struct clip *c, int raw);
int pixtral_ffn(const struct clip *c, int x, int64_t T);
int rope2d(const struct clip *c, int x, int *pos, int64_t T);

int llava_patches(const struct clip *c, int edge);
int build_kimi_paddle(const struct clip *c);
int build_dotsocr(const struct clip *c);

/* A mirrored projector type: its builder, and what must hold for the
 * builder to be the engine's (NULL: the reason it is not). */
struct clip_type {
	const char *name;
	int (*build)(const struct clip *c);
	/* the type's hparams and warmup image (clip.cpp load_hparams); the
	 * reason the builder is not the engine's for this tower, or NULL */
	const char *(*init)(struct clip *c);
};

/* graph_clip_vision2.c: the second round's types (after graph_clip.c's
 * table), and kimik25's 3D position table (build_kimi_paddle reads it) */
extern const struct clip_type clip_types2[];
extern const size_t clip_types2_n;
int resize_pos3d(const struct clip *c);

/* A square convolution's kernel, stride and padding; graph_clip_vision2.c's
 * ggml_conv_2d of x [iw, iw, ic] by the next weight (f16) into [ow, ow, oc] */
struct kconv {
	int64_t k, st, pad;
};
int conv_k(const struct clip *c, int x, int64_t ic, int64_t iw, struct kconv kc, int64_t oc);

/* graph_clip_vision3.c: the third round's vision types */
extern const struct clip_type clip_types3[];
extern const size_t clip_types3_n;

/* graph_clip_audio.c: the audio projector types mirrored (NULL past the
 * end), and the one named (NULL: none); clip_audio_dims reads an audio
 * tower's sizes (-1: unread). */
const struct clip_type *clip_audio_type_at(size_t i);
const struct clip_type *clip_audio_type(const char *name);
int clip_audio_dims(struct clip *c, const struct gguf *gg, int fa);
/* graph_clip_audio2.c: the second round's audio types (after the table
 * of graph_clip_audio.c, which clip_audio_type_at reads on into) */
extern const struct clip_type clip_audio_types2[];
extern const size_t clip_audio_types2_n;
/* A tower with both a vision and an audio encoder (qwen2.5-omni's): the
 * engine reserves a buffer for each, which the builders do not add up;
 * the reason, or NULL for a tower of one encoder. */
const char *clip_two_encoders(const struct gguf *gg);

#endif
