/* graph_clip.h: what the projector's graph builders share (internal to
 * src/plan/graph: graph_clip.c's vision builders and helpers,
 * graph_clip_audio.c's audio encoders). */
#ifndef ZEALOT_GRAPH_CLIP_H
#define ZEALOT_GRAPH_CLIP_H
#include <stddef.h>
#include <stdint.h>

#include "galloc.h"
#include "graph.h"

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

/* A mirrored projector type: its builder, and what must hold for the
 * builder to be the engine's (NULL: the reason it is not). */
struct clip_type {
	const char *name;
	int (*build)(const struct clip *c);
	/* the type's hparams and warmup image (clip.cpp load_hparams); the
	 * reason the builder is not the engine's for this tower, or NULL */
	const char *(*init)(struct clip *c);
};

/* graph_clip.c's helpers (clip.cpp's clip_graph ones) for the builders
 * of other files: see their definitions there. */
struct clip_ops {
	int64_t (*u64_or)(const struct gguf *gg, const char *key, int64_t dflt);
	int (*has)(const struct clip *c, const char *name);
	int (*blk_has)(const struct clip *c, int64_t il, const char *suffix);
	int (*w)(const struct clip *c);
	int (*mm)(const struct clip *c, int x, int64_t ne0, int64_t ne1);
	int (*with_w)(const struct clip *c, int x, int64_t ne0, int64_t ne1);
	int (*mm_b)(const struct clip *c, int x, int64_t ne0, int64_t ne1, int bias);
	int (*norm)(const struct clip *c, int x, int64_t ne0, int64_t ne1, int rms, int has_w, int has_b);
	int (*vit_block)(const struct clip *c, int x, int64_t il, int64_t T, const struct vit_opts *o);
	int (*tower_norm)(const struct clip *c, int x, const char *name, int64_t T);
	int64_t (*rows_of)(const struct clip *c, const char *name);
};
extern const struct clip_ops clip_ops;

/* graph_clip_audio.c: the audio projector types mirrored (NULL past the
 * end), and the one named (NULL: none); clip_audio_dims reads an audio
 * tower's sizes (-1: unread). */
const struct clip_type *clip_audio_type_at(size_t i);
const struct clip_type *clip_audio_type(const char *name);
int clip_audio_dims(struct clip *c, const struct gguf *gg, int fa);
/* A tower with both a vision and an audio encoder (qwen2.5-omni's): the
 * engine reserves a buffer for each, which the builders do not add up;
 * the reason, or NULL for a tower of one encoder. */
const char *clip_two_encoders(const struct gguf *gg);

#endif
