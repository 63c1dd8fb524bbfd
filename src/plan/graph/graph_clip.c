/* graph_clip: the projector's (mmproj) encoder graph, rebuilt node for
 * node from the pinned engine's tools/mtmd (clip.cpp's clip_graph helpers:
 * build_inp, build_vit, build_norm, build_ffn, build_attn; the builders
 * of models/NAME.cpp) for the allocator replay (galloc.h).
 *
 * The engine sizes the projector's compute buffer once, at load
 * (clip_model_loader::warmup): the graph of one image of the warmup size
 * (hparams.warmup_image_size: image_size, or a type's own token budget)
 * is reserved through the scheduler, flash attention tried first when the
 * endpoint leaves it on or auto (the CPU runs it, so it stays on there).
 * On the CPU the scheduler has one backend and the reservation is the
 * plain allocator's over the graph (compute.c's one_backend).
 *
 * A projector type without a builder here is estimated (K activations of
 * the tower's width per patch of the largest image, K = 24.5, calibrated
 * on one measured Qwen3-VL-class boot) and the plan says so.
 */
#include <stdio.h>
#include <string.h>

#include "../../payload/ggml_type.h"
#include "compute.h"
#include "galloc.h"
#include "graph.h"
#include "graph_clip_int.h"

/* ggml's CPU buffers align tensors to 32 bytes (TENSOR_ALIGNMENT) */
#define CLIP_ALIGN 32

int64_t u64_or(const struct gguf *gg, const char *key, int64_t dflt)
{
	uint64_t v;
	return gguf_kv_u64(gguf_find(gg, key), &v) ? dflt : (int64_t)v;
}

int has(const struct clip *c, const char *name)
{
	return gguf_tensor_find(c->gg, name) != NULL;
}

static int hasf(const struct clip *c, const char *fmt, int64_t il, const char *suffix)
{
	char nm[96];
	snprintf(nm, sizeof(nm), fmt, (int)il, suffix);
	return has(c, nm);
}

int blk_has(const struct clip *c, int64_t il, const char *suffix)
{
	return hasf(c, c->audio ? "a.blk.%d.%s" : "v.blk.%d.%s", il, suffix);
}

int w(const struct clip *c)
{
	return ga_external(c->g);
}

/* build_mm: w x, [ne0, ne1] */
int mm(const struct clip *c, int x, int64_t ne0, int64_t ne1)
{
	return gr_op_kind(c->g, ga_op(c->g, 0, F32, ne0, ne1, 1, 1, S(w(c), x)), GA_OP_MUL_MAT);
}

/* an in-place op of x and a weight (a bias add, a norm's scale) */
int with_w(const struct clip *c, int x, int64_t ne0, int64_t ne1)
{
	return ga_op(c->g, 1, F32, ne0, ne1, 1, 1, S(x, w(c)));
}

/* mm and its bias when the tower has it */
int mm_b(const struct clip *c, int x, int64_t ne0, int64_t ne1, int bias)
{
	int y = mm(c, x, ne0, ne1);
	return bias ? with_w(c, y, ne0, ne1) : y;
}

/* build_norm: ggml_norm (or rms_norm, in place) then the weight and bias
 * the tower has */
int norm(const struct clip *c, int x, int64_t ne0, int64_t ne1, int rms, int has_w, int has_b)
{
	int y = ga_op(c->g, rms, F32, ne0, ne1, 1, 1, S(x));
	if (has_w)
		y = with_w(c, y, ne0, ne1);
	if (has_b)
		y = with_w(c, y, ne0, ne1);
	return y;
}

static int blk_norm(const struct clip *c, int x, int64_t il, const char *name, int64_t T)
{
	char wn[32], bn[32];
	snprintf(wn, sizeof(wn), "%s.weight", name);
	snprintf(bn, sizeof(bn), "%s.bias", name);
	return norm(c, x, c->E, T, c->rms, blk_has(c, il, wn), blk_has(c, il, bn));
}

/* build_ffn without a gate: up (+ bias), the activation (in place), down
 * (+ bias); with a gate the GLU of gate and up */
static int ffn(const struct clip *c, int x, int64_t T, int64_t il, int64_t ne_out)
{
	int up = mm_b(c, x, c->F, T, blk_has(c, il, "ffn_up.bias"));
	int cur;
	if (blk_has(c, il, "ffn_gate.weight")) {
		int gate = mm_b(c, x, c->F, T, blk_has(c, il, "ffn_gate.bias"));
		cur = ga_op(c->g, 0, F32, c->F, T, 1, 1, S(gate, up));
	} else {
		cur = ga_op(c->g, 1, F32, c->F, T, 1, 1, S(up));
	}
	return mm_b(c, cur, ne_out, T, blk_has(c, il, "ffn_down.bias"));
}

static int mask_of(const struct clip *c, struct clip_mask *m)
{
	if (!m || !m->T)
		return -1;
	if (m->raw < 0)
		m->raw = ga_input(c->g, (uint64_t)m->T * m->T * 4);
	if (!c->fa)
		return m->raw;
	if (m->f16 < 0)
		m->f16 = ga_op(c->g, 0, F16, m->T, m->T, 1, 1, S(m->raw));
	return m->f16;
}

/* build_attn over q, k, v (views of their projections), before the
 * output projection: flash attention casts K and V to f16, else V is
 * copied transposed, KQ, the softmax in place, KQV, the merged heads'
 * cont. The nodes in the order ggml visits them. */
int attn_heads(const struct clip *c, int q, int k, int v, struct clip_mask *mk, struct heads h)
{
	struct ga_graph *g = c->g;
	int64_t hkv = h.Hkv ? h.Hkv : h.H;
	if (c->fa) {
		int qp = ga_view(g, q);
		int k16 = ga_op(g, 0, F16, h.D, h.Tkv, hkv, 1, S(ga_view(g, k)));
		int v16 = ga_op(g, 0, F16, h.D, h.Tkv, hkv, 1, S(ga_view(g, v)));
		int mask = mask_of(c, mk);
		int o = mask >= 0 ? ga_op(g, 0, F32, h.D, h.H, h.Tq, 1, S(qp, k16, v16, mask))
				  : ga_op(g, 0, F32, h.D, h.H, h.Tq, 1, S(qp, k16, v16));
		gr_op_kind(g, o, GA_OP_FA);
		return ga_view(g, o);
	}
	int vt = ga_op(g, 0, F32, h.Tkv, h.D, hkv, 1, S(ga_view(g, v)));
	int kp = ga_view(g, k), qp = ga_view(g, q);
	int kq = gr_op_kind(g, ga_op(g, 0, F32, h.Tkv, h.Tq, h.H, 1, S(kp, qp)), GA_OP_MUL_MAT);
	int mask = mask_of(c, mk);
	int sm = mask >= 0 ? ga_op(g, 1, F32, h.Tkv, h.Tq, h.H, 1, S(kq, mask))
			   : ga_op(g, 1, F32, h.Tkv, h.Tq, h.H, 1, S(kq));
	int kqv = gr_op_kind(g, ga_op(g, 0, F32, h.D, h.Tq, h.H, 1, S(vt, sm)), GA_OP_MUL_MAT);
	return ga_op(g, 0, F32, h.D * h.H, h.Tq, 1, 1, S(ga_view(g, kqv)));
}

/* build_attn over the block's q, k, v as [D, H, T], then attn_out (+
 * bias) */
static int attn(const struct clip *c, int q, int k, int v, struct clip_mask *mk, int64_t T, int64_t il)
{
	struct heads h = {c->D, c->H, T, T, 0};
	int cur = attn_heads(c, q, k, v, mk, h);
	return mm_b(c, cur, c->E, T, blk_has(c, il, "attn_out.bias"));
}

/* ggml_conv_2d of the image by a patch-embedding weight: im2col (f16),
 * the matmul over the reshaped columns and weight, the result's cont
 * [px, px, E] (its reshape and permute views) */
int conv2d(const struct clip *c, int raw)
{
	struct ga_graph *g = c->g;
	int64_t k = c->patch * c->patch * 3;
	int col = ga_op(g, 0, F16, k, c->px, c->px, 1, S(w(c), raw));
	int r = gr_op_kind(g, ga_op(g, 0, F32, c->np, c->E, 1, 1, S(ga_view(g, col), ga_view(g, w(c)))), GA_OP_MUL_MAT);
	return ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, ga_view(g, r))));
}

static int inp_raw(const struct clip *c)
{
	return ga_input(c->g, (uint64_t)c->img * c->img * 3 * 4);
}

/* build_inp: the image (an input), its conv2d, transposed to [E, np]
 * (a cont), the patch bias */
int build_inp(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int x = conv2d(c, inp_raw(c));
	x = ga_op(g, 0, F32, c->E, c->np, 1, 1, S(ga_view(g, ga_view(g, x))));
	if (has(c, "v.patch_embd.bias"))
		x = with_w(c, x, c->E, c->np);
	return x;
}

/* build_rope_2d: two ropes over halves of the head, the second in place
 * of the first; each positions input made where first reached */
int rope2d(const struct clip *c, int x, int *pos, int64_t T)
{
	for (int i = 0; i < 2 && pos[i] != CLIP_ONE_ROPE; i++) {
		if (pos[i] < 0)
			pos[i] = ga_input(c->g, (uint64_t)T * 4);
		x = gr_op_kind(c->g, ga_op(c->g, 1, F32, c->D, c->H, T, 1, S(x, pos[i])), GA_OP_ROPE);
	}
	return x;
}

/* q or k turned as the block's options say */
static int turn(const struct clip *c, int x, const struct vit_opts *o, int64_t T);

static int mrope(const struct clip *c, int x, int *pos, int64_t T)
{
	if (*pos < 0)
		*pos = ga_input(c->g, (uint64_t)T * 4 * 4);
	return gr_op_kind(c->g, ga_op(c->g, 1, F32, c->D, c->H, T, 1, S(x, *pos)), GA_OP_ROPE);
}

static int turn(const struct clip *c, int x, const struct vit_opts *o, int64_t T)
{
	if (o && o->pos)
		return mrope(c, x, o->pos, T);
	if (o && o->pos2)
		return rope2d(c, x, o->pos2, T);
	return x;
}

/* One block of build_vit (llava's and qwen-vl's are the same nodes) over
 * x (T rows): ln1, q, k and v (fused or apart), the attention, the
 * residual, ln2, the FFN, the residual. */
int vit_block(const struct clip *c, int x, int64_t il, int64_t T, const struct vit_opts *o)
{
	struct ga_graph *g = c->g;
	int cur = blk_norm(c, x, il, "ln1", T), q, k, v;
	if (blk_has(c, il, "attn_qkv.weight")) {
		int qkv = mm_b(c, cur, 3 * c->E, T, blk_has(c, il, "attn_qkv.bias"));
		uint64_t span = (uint64_t)c->E * 4 + (uint64_t)(T - 1) * 3 * c->E * 4;
		q = turn(c, ga_view_n(g, qkv, span), o, T);
		k = turn(c, ga_view_n(g, qkv, span), o, T);
		v = ga_view_n(g, qkv, span);
	} else {
		q = turn(c, ga_view(g, mm_b(c, cur, c->E, T, blk_has(c, il, "attn_q.bias"))), o, T);
		k = turn(c, ga_view(g, mm_b(c, cur, c->E, T, blk_has(c, il, "attn_k.bias"))), o, T);
		v = ga_view(g, mm_b(c, cur, c->E, T, blk_has(c, il, "attn_v.bias")));
	}
	if (o && o->hook)
		o->hook(c, o->hook_ctx);
	cur = attn(c, q, k, v, o ? o->mask : NULL, T, il);
	if (blk_has(c, il, "ls1.weight"))
		cur = with_w(c, cur, c->E, T);
	cur = ga_op(g, 1, F32, c->E, T, 1, 1, S(cur, x));
	x = cur;
	cur = blk_norm(c, cur, il, "ln2", T);
	cur = ffn(c, cur, T, il, c->E);
	if (blk_has(c, il, "ls2.weight"))
		cur = with_w(c, cur, c->E, T);
	return ga_op(g, 1, F32, c->E, T, 1, 1, S(x, cur));
}

/* The tower's layer norm (pre_ln, post_ln) when it has one */
int tower_norm(const struct clip *c, int x, const char *name, int64_t T)
{
	char wn[32], bn[32];
	snprintf(wn, sizeof(wn), "%s.%s.weight", c->audio ? "a" : "v", name);
	snprintf(bn, sizeof(bn), "%s.%s.bias", c->audio ? "a" : "v", name);
	if (!has(c, wn))
		return x;
	return norm(c, x, c->E, T, c->rms, 1, has(c, bn));
}

/* clip_graph_llava (models/llava.cpp) up to its projector: the patches
 * (the class embedding concatenated), the learned positions' rows, the
 * blocks up to the second to last, the patches' rows [E, np]; EDGE
 * (glm_edge): every block, no patches' rows */
int llava_patches(const struct clip *c, int edge)
{
	struct ga_graph *g = c->g;
	int cls = has(c, "v.class_embd");
	int64_t T = c->np + (cls ? 1 : 0);
	int x = build_inp(c);
	if (cls)
		x = ga_op(g, 0, F32, c->E, T, 1, 1, S(x, w(c)));
	int pos = ga_input(g, (uint64_t)T * 4);
	int rows = gr_op_kind(g, ga_op(g, 0, F32, c->E, T, 1, 1, S(w(c), pos)), GA_OP_GET_ROWS);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, rows));
	x = tower_norm(c, x, "pre_ln", T);
	for (int64_t il = 0; il < c->L - !edge; il++)
		x = vit_block(c, x, il, T, NULL);
	x = tower_norm(c, x, "post_ln", T);
	if (edge)
		return x;
	int patches = ga_input(g, (uint64_t)c->np * 4);
	return gr_op_kind(g, ga_op(g, 0, F32, c->E, c->np, 1, 1, S(ga_view(g, x), patches)), GA_OP_GET_ROWS);
}

/* clip_graph_llava with the mlp projector: llava_patches, mm.0, GELU,
 * mm.2 */
static int build_llava(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int x = mm_b(c, llava_patches(c, 0), c->proj, c->np, 1);
	x = ga_op(g, 1, F32, c->proj, c->np, 1, 1, S(x));
	if (has(c, "mm.2.weight"))
		x = mm_b(c, x, c->proj, c->np, 1);
	return x;
}

/* gemma3's input projection, cont(transpose(mm.input_projection)) of the
 * weight's type: the final matmul's first source, so the graph visits it
 * right after the last block's q, k and v */
static void gemma3_proj_w(const struct clip *c, void *ctx)
{
	const struct gguf_tensor *t = gguf_tensor_find(c->gg, "mm.input_projection.weight");
	int *slot = ctx;
	*slot = ga_op(c->g, 0, F32, c->E, c->proj, 1, 1, S(ga_view(c->g, w(c))));
	c->g->t[*slot].bytes = ggml_row_bytes(ggml_type_get(t->type), (uint64_t)c->E) * (uint64_t)c->proj;
}

/* clip_graph_siglip (models/siglip.cpp) with gemma3's projector: the
 * patches plus the learned positions, build_vit, then the patches pooled
 * n_merge x n_merge (avg), RMS-normed, the input projection. */
static int build_gemma3(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, m = c->px / c->merge;
	int x = ga_op(g, 1, F32, c->E, T, 1, 1, S(build_inp(c), w(c)));
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	int pw = -1;
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {NULL, NULL, NULL, il == c->L - 1 ? gemma3_proj_w : NULL, &pw};
		x = vit_block(c, x, il, T, &o);
	}
	x = tower_norm(c, x, "post_ln", T);
	x = ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, ga_view(g, x))));
	x = ga_op(g, 0, F32, m, m, c->E, 1, S(x));
	x = ga_op(g, 0, F32, c->E, m * m, 1, 1, S(ga_view(g, ga_view(g, x))));
	x = ga_op(g, 1, F32, c->E, m * m, 1, 1, S(x));
	x = with_w(c, x, c->E, m * m);
	return gr_op_kind(g, ga_op(g, 0, F32, c->proj, m * m, 1, 1, S(pw, x)), GA_OP_MUL_MAT);
}

/* qwen-vl's patches: the two conv2d of the temporal merge added, then the
 * 2 x 2 spatial merge's conts to [E, np] */
int qwen_inp(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int raw = inp_raw(c);
	int a = conv2d(c, raw);
	int b = conv2d(c, raw);
	int x = ga_op(g, 1, F32, c->px, c->px, c->E, 1, S(a, b));
	x = ga_op(g, 0, F32, 2 * c->E, c->px / 2, c->px, 1, S(ga_view(g, x)));
	return ga_op(g, 0, F32, c->E, c->np, 1, 1, S(ga_view(g, ga_view(g, x))));
}

/* the output width of weight NAME (its ne[1]), 0 when absent */
int64_t rows_of(const struct clip *c, const char *name)
{
	const struct gguf_tensor *t = gguf_tensor_find(c->gg, name);
	return t ? (int64_t)t->ne[1] : 0;
}

/* build_ffn without a gate over x's rows [4E, np/4] (a reshape of x),
 * GELU between A and B (each with its bias) */
int merge_ffn(const struct clip *c, int x, const char *a, const char *b)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np / 4, na = rows_of(c, a);
	x = mm_b(c, ga_view(g, x), na, T, 1);
	x = ga_op(g, 1, F32, na, T, 1, 1, S(x));
	return mm_b(c, x, rows_of(c, b), T, 1);
}

/* qwen-vl's merger: the merged rows through mm.0, GELU, mm.2 */
static int qwen_merger(const struct clip *c, int x)
{
	return merge_ffn(c, x, "mm.0.weight", "mm.2.weight");
}

/* clip_graph_qwen2vl (models/qwen2vl.cpp), qwen2vl and qwen2.5-vl: M-RoPE
 * blocks, 2.5's window attention (the rows reordered by window before the
 * blocks and back after the merger, every n_wa_pattern-th block full) */
static int build_qwen2vl(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np;
	int64_t wa = u64_or(c->gg, "clip.vision.n_wa_pattern", 0);
	int x = tower_norm(c, qwen_inp(c), "pre_ln", T);
	int pos = -1;
	struct clip_mask mk = {-1, -1, 0};
	if (wa > 0) {
		int idx = ga_input(g, (uint64_t)T / 4 * 4);
		x = gr_op_kind(g, ga_op(g, 0, F32, 4 * c->E, T / 4, 1, 1, S(ga_view(g, x), idx)), GA_OP_GET_ROWS);
		x = ga_view(g, x);
		mk.T = T;
	}
	for (int64_t il = 0; il < c->L; il++) {
		int full = wa > 0 ? (il + 1) % wa == 0 : 1;
		struct vit_opts o = {&pos, NULL, full ? NULL : &mk, NULL, NULL};
		x = vit_block(c, x, il, T, &o);
	}
	x = tower_norm(c, x, "post_ln", T);
	x = qwen_merger(c, x);
	if (wa > 0) {
		int idx = ga_input(g, (uint64_t)T / 4 * 4);
		x = gr_op_kind(g, ga_op(g, 0, F32, c->proj, T / 4, 1, 1, S(ga_view(g, x), idx)), GA_OP_GET_ROWS);
		x = ga_view(g, x);
	}
	return x;
}

/* qwen3-vl's learned positions resized to the image's patches
 * (resize_position_embeddings: interpolated unless the table is the
 * image's own size), then merged 2 x 2 like the patches */
/* resize_position_embeddings: the learned table itself when it is the
 * image's size, else interpolated to it [px, px, E] and its cont [E, np] */
int resize_pos(const struct clip *c)
{
	struct ga_graph *g = c->g;
	const struct gguf_tensor *t = gguf_tensor_find(c->gg, "v.position_embd.weight");
	int64_t side = 0;
	while ((side + 1) * (side + 1) <= (int64_t)t->ne[1])
		side++;
	int pe = w(c);
	if (side != c->px) {
		pe = ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, ga_view(g, pe))));
		pe = ga_op(g, 0, F32, c->E, c->np, 1, 1, S(ga_view(g, pe)));
	}
	return pe;
}

int qwen3_pos(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int pe = ga_op(g, 0, F32, 2 * c->E, c->px / 2, c->px, 1, S(resize_pos(c)));
	return ga_op(g, 0, F32, c->E, c->np, 1, 1, S(ga_view(g, ga_view(g, pe))));
}

/* One deepstack layer's features: the block's output merged [4E, np/4],
 * layer-normed, fc1, GELU, fc2 */
static int deepstack(const struct clip *c, int x, int64_t il)
{
	char a[48], b[48];
	snprintf(a, sizeof(a), "v.deepstack.%d.fc1.weight", (int)il);
	snprintf(b, sizeof(b), "v.deepstack.%d.fc2.weight", (int)il);
	x = norm(c, ga_view(c->g, x), 4 * c->E, c->np / 4, 0, 1, 1);
	return merge_ffn(c, x, a, b);
}

/* clip_graph_qwen3vl (models/qwen3vl.cpp): qwen2vl's patches with their
 * bias and resized learned positions, fused-qkv M-RoPE blocks, the
 * merger; the deepstack layers' features, which only the final concat
 * reaches, come after it in the graph, concatenated in layer order */
static int build_qwen3vl(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, Tm = c->np / 4;
	int x = with_w(c, qwen_inp(c), c->E, T);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, qwen3_pos(c)));
	x = tower_norm(c, x, "pre_ln", T);
	int pos = -1, n_ds = 0, outs[64];
	int64_t ds[64];
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {&pos, NULL, NULL, NULL, NULL};
		x = vit_block(c, x, il, T, &o);
		if (hasf(c, "v.deepstack.%d.%s", il, "fc1.weight") && n_ds < 64) {
			outs[n_ds] = x;
			ds[n_ds++] = il;
		}
	}
	x = tower_norm(c, x, "post_ln", T);
	x = qwen_merger(c, x);
	int feats = -1;
	int64_t fw = 0;
	for (int i = 0; i < n_ds; i++) {
		char nm[48];
		snprintf(nm, sizeof(nm), "v.deepstack.%d.fc2.weight", (int)ds[i]);
		int f = deepstack(c, outs[i], ds[i]);
		fw += rows_of(c, nm);
		feats = feats < 0 ? f : ga_op(g, 0, F32, fw, Tm, 1, 1, S(feats, f));
	}
	if (feats < 0)
		return x;
	return ga_op(g, 0, F32, rows_of(c, "mm.2.weight") + fw, Tm, 1, 1, S(x, feats));
}

/* build_patch_merge_permute (idefics3's pixel shuffle) over x [E, np]
 * by s: the conts of its two unshuffles, [E s s, np / (s s)] */
static int merge_permute(const struct clip *c, int x, int64_t s)
{
	struct ga_graph *g = c->g;
	int64_t m = c->px / s;
	x = ga_op(g, 0, F32, c->E * s * s, m, m, 1, S(ga_view(g, ga_view(g, ga_view(g, x)))));
	return ga_op(g, 0, F32, c->E * s * s, m * m, 1, 1, S(ga_view(g, x)));
}

/* clip_graph_siglip with idefics3's projector: build_vit, the pixel
 * shuffle, mm.model.fc */
static int build_idefics3(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, m = c->px / c->merge;
	int x = build_inp(c);
	if (has(c, "v.position_embd.weight"))
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, w(c)));
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	for (int64_t il = 0; il < c->L; il++)
		x = vit_block(c, x, il, T, NULL);
	x = tower_norm(c, x, "post_ln", T);
	x = merge_permute(c, x, c->merge);
	return mm(c, x, rows_of(c, "mm.model.fc.weight"), m * m);
}

/* clip_graph_internvl (models/internvl.cpp): the class embedding repeated
 * and concatenated, build_vit over np + 1 rows, the class row dropped (a
 * cont), the pixel shuffle's conts, the projector's layer norm, mlp.1,
 * GELU, mlp.3 */
static int build_internvl(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np + 1, s = c->merge, m = c->px / s;
	int x = build_inp(c);
	int rep = ga_op(g, 0, F32, c->E, 1, 1, 1, S(w(c)));
	x = ga_op(g, 0, F32, c->E, T, 1, 1, S(x, rep));
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, w(c)));
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	for (int64_t il = 0; il < c->L; il++)
		x = vit_block(c, x, il, T, NULL);
	x = tower_norm(c, x, "post_ln", T);
	x = ga_op(g, 0, F32, c->E, c->np, 1, 1, S(ga_view(g, ga_view(g, x))));
	x = ga_op(g, 0, F32, c->E * s * s, m, m, 1, S(ga_view(g, ga_view(g, x))));
	x = ga_op(g, 0, F32, c->E * s * s, m * m, 1, 1, S(ga_view(g, x)));
	x = norm(c, x, c->E * s * s, m * m, 0, 1, 1);
	int64_t n1 = rows_of(c, "mm.model.mlp.1.weight");
	x = mm_b(c, x, n1, m * m, 1);
	x = ga_op(g, 1, F32, n1, m * m, 1, 1, S(x));
	return mm_b(c, x, rows_of(c, "mm.model.mlp.3.weight"), m * m, 1);
}

/* pixtral's mlp.1 (+ bias), GELU, mlp.2 (+ bias) over x (T rows) */
int pixtral_ffn(const struct clip *c, int x, int64_t T)
{
	int64_t n1 = rows_of(c, "mm.1.weight");
	x = mm_b(c, x, n1, T, has(c, "mm.1.bias"));
	x = ga_op(c->g, 1, F32, n1, T, 1, 1, S(x));
	return mm_b(c, x, rows_of(c, "mm.2.weight"), T, has(c, "mm.2.bias"));
}

/* clip_graph_pixtral (models/pixtral.cpp): RMS blocks turned by 2D RoPE,
 * mistral small 3.1's patch merger where the tower has one (the RMS
 * norm, the grid's cont, im2col by a view of it, mm.patch_merger), the
 * projector, then [IMG_BREAK] after each row: a zeroed leaf the graph
 * allocates with its leafs, scaled and added in place, concatenated */
static int build_pixtral(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, s = c->merge, m = c->px / s;
	int x = tower_norm(c, ga_view(g, build_inp(c)), "pre_ln", T);
	int pos[2] = {-1, -1};
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {NULL, pos, NULL, NULL, NULL};
		x = vit_block(c, x, il, T, &o);
	}
	x = tower_norm(c, x, "post_ln", T);
	if (has(c, "mm.patch_merger.weight")) {
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(ga_op(g, 1, F32, c->E, T, 1, 1, S(ga_view(g, x))), w(c)));
		x = ga_op(g, 0, F32, c->px, c->px, c->E, 1, S(ga_view(g, ga_view(g, x))));
		x = ga_op(g, 0, F32, c->E * s * s, m, m, 1, S(ga_view(g, x), x));
		x = mm(c, ga_view(g, x), rows_of(c, "mm.patch_merger.weight"), m * m);
	}
	x = pixtral_ffn(c, x, m * m);
	if (!has(c, "v.token_embd.img_break")) /* lightonocr */
		return x;
	int64_t nt = rows_of(c, "mm.2.weight");
	int tok = ga_input(g, (uint64_t)nt * m * 4);
	struct ga_tensor *tt = &g->t[tok];
	tt->input = 0;
	tt->type = F32;
	tt->ne[0] = nt;
	tt->ne[1] = 1;
	tt->ne[2] = m;
	tt->ne[3] = 1;
	tok = ga_op(g, 1, F32, nt, 1, m, 1, S(tok));
	tok = ga_op(g, 1, F32, nt, 1, m, 1, S(tok, w(c)));
	x = ga_op(g, 0, F32, nt, m + 1, m, 1, S(ga_view(g, x), tok));
	return ga_view(g, x);
}

/* clip_graph_llama4 (models/llama4.cpp): the unfold convolution (im2col
 * of f32, the patch weight's matmul), the class embedding concatenated,
 * build_vit over np + 1 rows with 2D RoPE, the class row dropped, the
 * pixel shuffle's conts, mlp.1, GELU, mlp.2, GELU, the projection */
static int build_llama4(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np + 1, s = c->merge, m = c->px / s;
	int64_t k = c->patch * c->patch * 3;
	int col = ga_op(g, 0, F32, k, c->px, c->px, 1, S(ga_view(g, w(c)), inp_raw(c)));
	int x = gr_op_kind(g, ga_op(g, 0, F32, c->E, c->px, c->px, 1, S(w(c), col)), GA_OP_MUL_MAT);
	x = ga_op(g, 0, F32, c->E, T, 1, 1, S(ga_view(g, x), w(c)));
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, w(c)));
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	int pos[2] = {-1, -1};
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {NULL, pos, NULL, NULL, NULL};
		x = vit_block(c, x, il, T, &o);
	}
	x = tower_norm(c, x, "post_ln", T);
	x = ga_op(g, 0, F32, c->E * s * s, m, m, 1, S(ga_view(g, ga_view(g, ga_view(g, ga_view(g, x))))));
	x = ga_op(g, 0, F32, c->E * s * s, m * m, 1, 1, S(x));
	int64_t n1 = rows_of(c, "mm.model.mlp.1.weight"), n2 = rows_of(c, "mm.model.mlp.2.weight");
	x = ga_op(g, 1, F32, n1, m * m, 1, 1, S(mm(c, x, n1, m * m)));
	x = ga_op(g, 1, F32, n2, m * m, 1, 1, S(mm(c, x, n2, m * m)));
	return mm(c, x, rows_of(c, "mm.model.fc.weight"), m * m);
}

/* clip_graph_siglip with janus_pro's, phi4's and lfm2's projectors: the
 * learned positions (phi4's and lfm2's resized to the image), build_vit;
 * lfm2 shuffles the patches and layer-norms them; then A, GELU, B (each
 * with its bias): janus mm.0/mm.1, phi4 mm.0/mm.2, lfm2 mm.1/mm.2 */
static int build_siglip_ffn(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int janus = strcmp(c->type, "janus_pro") == 0, lfm2 = strcmp(c->type, "lfm2") == 0;
	int64_t T = c->np, m = c->px / c->merge;
	int x = build_inp(c);
	if (has(c, "v.position_embd.weight"))
		x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, janus ? w(c) : resize_pos(c)));
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	for (int64_t il = 0; il < c->L; il++)
		x = vit_block(c, x, il, T, NULL);
	x = tower_norm(c, x, "post_ln", T);
	if (lfm2) {
		x = merge_permute(c, x, c->merge);
		x = norm(c, x, c->E * c->merge * c->merge, m * m, 0, has(c, "mm.input_norm.weight"),
			 has(c, "mm.input_norm.bias"));
	}
	const char *a = janus || !lfm2 ? "mm.0.weight" : "mm.1.weight";
	const char *b = janus ? "mm.1.weight" : "mm.2.weight";
	int64_t na = rows_of(c, a);
	x = mm_b(c, x, na, m * m, 1);
	x = ga_op(g, 1, F32, na, m * m, 1, 1, S(x));
	return mm_b(c, x, rows_of(c, b), m * m, 1);
}

/* clip_graph_kimivl (models/kimivl.cpp) and clip_graph_paddleocr
 * (models/paddleocr.cpp): the learned positions resized, build_vit turned
 * by 2D RoPE (kimivl) or M-RoPE (paddleocr); kimivl shuffles the patches
 * and layer-norms them per patch (views of the shuffle), paddleocr
 * layer-norms then shuffles; then mm.1, the activation, mm.2 */
int build_kimi_paddle(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int kimi = c->type[0] == 'k';
	int64_t T = c->np, m = c->px / c->merge;
	int x = build_inp(c);
	x = ga_op(g, 1, F32, c->E, T, 1, 1, S(x, strcmp(c->type, "kimik25") ? resize_pos(c) : resize_pos3d(c)));
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	int pos2[2] = {-1, -1}, pos = -1;
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {kimi ? NULL : &pos, kimi ? pos2 : NULL, NULL, NULL, NULL};
		x = vit_block(c, x, il, T, &o);
	}
	x = tower_norm(c, x, "post_ln", T);
	int nw = has(c, "mm.input_norm.weight"), nb = has(c, "mm.input_norm.bias");
	if (kimi) {
		x = merge_permute(c, x, c->merge);
		x = ga_view(g, norm(c, ga_view(g, x), c->E, T, 0, nw, nb));
	} else {
		x = merge_permute(c, norm(c, x, c->E, T, 0, nw, nb), c->merge);
	}
	return pixtral_ffn(c, x, m * m);
}

/* clip_graph_nemotron_v2_vl (models/nemotron-v2-vl.cpp): the learned
 * positions added, the register rows (v.class_embd) concatenated first,
 * build_vit, the patches' rows (a view), the shuffle, the RMS norm in
 * place, mlp.1, ReLU and its square (both in place), mlp.3 */
static int build_nemotron(const struct clip *c)
{
	struct ga_graph *g = c->g;
	const struct gguf_tensor *cls = gguf_tensor_find(c->gg, "v.class_embd");
	int64_t nreg = cls->n_dims > 1 ? (int64_t)cls->ne[1] : 1;
	int64_t T = c->np + nreg, m = c->px / c->merge;
	int x = ga_op(g, 1, F32, c->E, c->np, 1, 1, S(build_inp(c), w(c)));
	x = ga_op(g, 0, F32, c->E, T, 1, 1, S(w(c), x));
	x = tower_norm(c, ga_view(g, x), "pre_ln", T);
	for (int64_t il = 0; il < c->L; il++)
		x = vit_block(c, x, il, T, NULL);
	x = tower_norm(c, x, "post_ln", T);
	x = merge_permute(c, ga_view(g, x), c->merge);
	x = norm(c, x, c->E * c->merge * c->merge, m * m, 1, 1, 0);
	int64_t n1 = rows_of(c, "mm.model.mlp.1.weight");
	x = mm(c, x, n1, m * m);
	x = ga_op(g, 1, F32, n1, m * m, 1, 1, S(ga_op(g, 1, F32, n1, m * m, 1, 1, S(x))));
	return mm(c, x, rows_of(c, "mm.model.mlp.3.weight"), m * m);
}

/* clip_graph_dotsocr (models/dotsocr.cpp): RMS blocks turned by M-RoPE,
 * the tower's RMS post norm (mm.post_norm), the layer-normed patches
 * shuffled, mm.0, GELU, mm.2 */
int build_dotsocr(const struct clip *c)
{
	struct ga_graph *g = c->g;
	int64_t T = c->np, m = c->px / c->merge;
	int x = tower_norm(c, ga_view(g, build_inp(c)), "pre_ln", T);
	int pos = -1;
	for (int64_t il = 0; il < c->L; il++) {
		struct vit_opts o = {&pos, NULL, NULL, NULL, NULL};
		x = vit_block(c, x, il, T, &o);
	}
	x = norm(c, x, c->E, T, 1, 1, 0);
	x = norm(c, ga_view(g, x), c->E, T, 0, 1, has(c, "mm.input_norm.bias"));
	x = merge_permute(c, x, c->merge);
	int64_t n0 = rows_of(c, "mm.0.weight");
	x = mm_b(c, x, n0, m * m, 1);
	x = ga_op(g, 1, F32, n0, m * m, 1, 1, S(x));
	return mm_b(c, x, rows_of(c, "mm.2.weight"), m * m, 1);
}

/* llava's mlp: the stacked feature layers (granite) and the Yi-type
 * mm.3 (mlp_norm) are other graphs */
static const char *llava_init(struct clip *c)
{
	if (gguf_find(c->gg, "clip.vision.feature_layer"))
		return "feature layers";
	if (has(c, "mm.3.weight"))
		return "mm.3 (mlp_norm)";
	return has(c, "mm.0.weight") ? NULL : "no mm.0";
}

/* gemma3: the patches pooled n_merge x n_merge (4 unless the tower says) */
static const char *gemma3_init(struct clip *c)
{
	c->merge = u64_or(c->gg, "clip.vision.projector.scale_factor", 4);
	if (!c->merge || c->px % c->merge)
		return "patches not a multiple of the pooling";
	return has(c, "mm.input_projection.weight") ? NULL : "no input projection";
}

/* qwen-vl: the warmup image is 46 x 46 merged tokens (set_warmup_n_tokens),
 * 46 x n_merge patches a side; qwen2.5-vl's norms are RMS */
static const char *qwen_init(struct clip *c)
{
	c->merge = u64_or(c->gg, "clip.vision.spatial_merge_size", 2);
	c->px = 46 * c->merge;
	c->img = c->px * c->patch;
	c->np = c->px * c->px;
	c->rms = strcmp(c->type, "qwen2.5vl_merger") == 0;
	if (c->merge != 2)
		return "a spatial merge other than 2";
	if (strcmp(c->type, "qwen3vl_merger") == 0 &&
	    (!has(c, "v.position_embd.weight") || !has(c, "v.patch_embd.bias")))
		return "no learned positions or patch bias";
	return has(c, "v.patch_embd.weight.1") ? NULL : "no second patch embedding";
}

/* idefics3: the pixel shuffle by n_merge (1 unless the tower says: the
 * engine asserts more); internvl: by n_merge too, the class embedding and
 * learned positions over np + 1 rows, RMS norms only in the 6B ViT */
static const char *shuffle_init(struct clip *c)
{
	c->merge = u64_or(c->gg, "clip.vision.projector.scale_factor", 1);
	if (c->merge < 2 || c->px % c->merge)
		return "a scale factor below 2 or not dividing the patches";
	if (strcmp(c->type, "internvl") == 0) {
		c->rms = c->E == 3200 && c->L == 45;
		if (!has(c, "v.class_embd") || !has(c, "v.position_embd.weight"))
			return "no class embedding or learned positions";
		return has(c, "mm.model.mlp.0.weight") ? NULL : "no mm.model.mlp";
	}
	return has(c, "mm.model.fc.weight") ? NULL : "no mm.model.fc";
}

/* pixtral: 16 x 16 merged tokens at warmup (set_warmup_n_tokens), the
 * merge 1 unless the tower says; RMS norms. llama4: the image size, the
 * shuffle by n_merge, layer norms */
static const char *rope2d_init(struct clip *c)
{
	if (strcmp(c->type, "pixtral") == 0 || strcmp(c->type, "lightonocr") == 0) {
		int pix = c->type[0] == 'p';
		c->merge = u64_or(c->gg, "clip.vision.spatial_merge_size", 1);
		c->px = 16 * c->merge;
		c->img = c->px * c->patch;
		c->np = c->px * c->px;
		c->rms = 1;
		if (c->merge > 1 && !has(c, "mm.patch_merger.weight"))
			return "a merge without mm.patch_merger";
		return !pix || has(c, "v.token_embd.img_break") ? NULL : "no [IMG_BREAK] embedding";
	}
	c->merge = u64_or(c->gg, "clip.vision.projector.scale_factor", 1);
	if (!c->merge || c->px % c->merge)
		return "a scale factor not dividing the patches";
	return has(c, "v.class_embd") && has(c, "v.position_embd.weight") ? NULL : "no class embedding or positions";
}

/* janus_pro: the image size; phi4: 16 x 16 patches at warmup, no merge;
 * lfm2: 16 x 16 merged tokens (set_limit_image_tokens(64, 256)), the
 * shuffle by n_merge */
static const char *siglip_init(struct clip *c)
{
	if (c->type[0] == 'j')
		return has(c, "mm.1.weight") ? NULL : "no mm.1";
	int lfm2 = c->type[0] == 'l';
	c->merge = lfm2 ? u64_or(c->gg, "clip.vision.projector.scale_factor", 1) : 1;
	c->px = 16 * c->merge;
	c->img = c->px * c->patch;
	c->np = c->px * c->px;
	if (lfm2 && c->merge < 2)
		return "a scale factor below 2";
	if (!has(c, "v.position_embd.weight"))
		return "no learned positions";
	return has(c, lfm2 ? "mm.1.weight" : "mm.0.weight") ? NULL : "no projector matrices";
}

/* kimivl: 16 x 16 merged tokens at warmup, the shuffle by scale_factor;
 * paddleocr: 28 x 28 merged tokens, merged 2 x 2 */
static const char *kimi_paddle_init(struct clip *c)
{
	int kimi = c->type[0] == 'k';
	c->merge = kimi ? u64_or(c->gg, "clip.vision.projector.scale_factor", 1) : 2;
	c->px = (kimi ? 16 : 28) * c->merge;
	c->img = c->px * c->patch;
	c->np = c->px * c->px;
	if (c->merge < 2)
		return "a scale factor below 2";
	if (!has(c, "v.position_embd.weight"))
		return "no learned positions";
	return has(c, "mm.1.weight") && has(c, "mm.2.weight") ? NULL : "no mm.1 or mm.2";
}

/* nemotron_v2_vl: the image size, the shuffle by scale_factor, layer
 * norms; dots_ocr: 46 x 46 merged tokens at warmup, RMS norms */
static const char *nemotron_dots_init(struct clip *c)
{
	c->merge = u64_or(c->gg, "clip.vision.projector.scale_factor", 1);
	if (c->type[0] == 'd') {
		c->px = 46 * c->merge;
		c->img = c->px * c->patch;
		c->np = c->px * c->px;
		c->rms = 1;
		if (!has(c, "mm.post_norm.weight") || has(c, "v.post_ln.weight") || has(c, "v.pre_ln.weight"))
			return "a post norm other than mm.post_norm";
	} else if (!has(c, "v.class_embd") || !has(c, "v.position_embd.weight")) {
		return "no registers or learned positions";
	}
	if (c->merge < 2 || c->px % c->merge)
		return "a scale factor below 2 or not dividing the patches";
	return NULL;
}

static const struct clip_type types[] = {
    {"mlp", build_llava, llava_init},
    {"gemma3", build_gemma3, gemma3_init},
    {"qwen2vl_merger", build_qwen2vl, qwen_init},
    {"qwen2.5vl_merger", build_qwen2vl, qwen_init},
    {"qwen3vl_merger", build_qwen3vl, qwen_init},
    {"idefics3", build_idefics3, shuffle_init},
    {"internvl", build_internvl, shuffle_init},
    {"pixtral", build_pixtral, rope2d_init},
    {"llama4", build_llama4, rope2d_init},
    {"lightonocr", build_pixtral, rope2d_init},
    {"janus_pro", build_siglip_ffn, siglip_init},
    {"phi4", build_siglip_ffn, siglip_init},
    {"lfm2", build_siglip_ffn, siglip_init},
    {"kimivl", build_kimi_paddle, kimi_paddle_init},
    {"paddleocr", build_kimi_paddle, kimi_paddle_init},
    {"nemotron_v2_vl", build_nemotron, nemotron_dots_init},
    {"dots_ocr", build_dotsocr, nemotron_dots_init},
};

/* The estimate of a type not mirrored */
static uint64_t estimate(const struct gguf *gg)
{
	uint64_t image = 0, patch = 0, embd = 0;
	if (gguf_kv_u64(gguf_find(gg, "clip.vision.image_size"), &image) ||
	    gguf_kv_u64(gguf_find(gg, "clip.vision.patch_size"), &patch) ||
	    gguf_kv_u64(gguf_find(gg, "clip.vision.embedding_length"), &embd) || patch == 0)
		return 0;
	uint64_t side = image / patch;
	return side * side * embd * 4 * 245 / 10;
}

/* A block tensor build_vit uses that the builders here do not replay */
static const char *blocks_unmirrored(const struct clip *c)
{
	static const char *const not_replayed[] = {"attn_q_norm.weight",
						   "attn_k_norm.weight",
						   "attn_post_norm.weight",
						   "ffn_post_norm.weight",
						   "out_scale.weight",
						   "ffn_gate_exps.weight",
						   "attn_sinks"};
	for (int64_t il = 0; il < c->L; il++)
		for (size_t k = 0; k < sizeof(not_replayed) / sizeof(not_replayed[0]); k++)
			if (blk_has(c, il, not_replayed[k]))
				return "a block's norms, scales, sinks or experts";
	return NULL;
}

static void read_type(const struct gguf *gg, char *type, size_t n)
{
	const struct gguf_kv *kv = gguf_find(gg, "clip.projector_type");
	if (!kv || kv->type != GGUF_STRING)
		kv = gguf_find(gg, "clip.vision.projector_type");
	if (!kv || kv->type != GGUF_STRING)
		kv = gguf_find(gg, "clip.audio.projector_type");
	if (kv && kv->type == GGUF_STRING)
		snprintf(type, n, "%.*s", (int)kv->v.s.n, kv->v.s.p);
	else
		snprintf(type, n, "?");
}

/* clip.<kind>.<name> (kind: vision or audio), 0 when absent */
static int64_t tower_key(const struct gguf *gg, const char *kind, const char *name)
{
	char k[96];
	snprintf(k, sizeof(k), "clip.%s.%s", kind, name);
	return u64_or(gg, k, 0);
}

/* The sizes every tower states under its kind's keys (clip.cpp
 * load_hparams): -1 when the width, heads or blocks are unread or the
 * heads do not divide the width. */
int clip_tower_dims(struct clip *c, const struct gguf *gg, int fa, const char *kind)
{
	memset(c, 0, sizeof(*c));
	c->gg = gg;
	c->fa = fa;
	c->audio = strcmp(kind, "audio") == 0;
	c->E = tower_key(gg, kind, "embedding_length");
	c->H = tower_key(gg, kind, "attention.head_count");
	c->F = tower_key(gg, kind, "feed_forward_length");
	c->L = tower_key(gg, kind, "block_count");
	c->proj = tower_key(gg, kind, "projection_dim");
	c->merge = 1;
	if (!c->E || !c->H || c->E % c->H)
		return -1;
	c->D = c->E / c->H;
	return 0;
}

static int clip_dims(struct clip *c, const struct gguf *gg, int fa)
{
	if (clip_tower_dims(c, gg, fa, "vision") || !c->L)
		return -1;
	c->patch = u64_or(gg, "clip.vision.patch_size", 0);
	c->img = u64_or(gg, "clip.vision.image_size", 0);
	if (!c->patch || !c->img)
		return -1;
	c->px = c->img / c->patch;
	c->np = c->px * c->px;
	return 0;
}

void compute_projector(const struct gguf *projector, int fa, struct projector_compute *out)
{
	memset(out, 0, sizeof(*out));
	read_type(projector, out->type, sizeof(out->type));
	const struct clip_type *t = NULL;
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(types[i].name, out->type) == 0)
			t = &types[i];
	for (size_t i = 0; !t && i < clip_types2_n; i++)
		if (strcmp(clip_types2[i].name, out->type) == 0)
			t = &clip_types2[i];
	for (size_t i = 0; !t && i < clip_types3_n; i++)
		if (strcmp(clip_types3[i].name, out->type) == 0)
			t = &clip_types3[i];
	int audio = !t && (t = clip_audio_type(out->type)) != NULL;
	struct clip c;
	if (t && (audio ? clip_audio_dims(&c, projector, fa) : clip_dims(&c, projector, fa)))
		out->why = "its sizes unread";
	else if (t)
		out->why = (c.type = t->name, t->init(&c));
	if (t && !out->why && !c.own_blocks)
		out->why = blocks_unmirrored(&c);
	if (t && !out->why)
		out->why = clip_two_encoders(projector);
	if (!t || out->why) {
		out->bytes = estimate(projector);
		return;
	}
	struct ga_graph g;
	ga_init(&g);
	c.g = &g;
	t->build(&c);
	out->bytes = ga_run(&g, CLIP_ALIGN);
	out->mirrored = 1;
	ga_release(&g);
}

const char *compute_projector_type_at(size_t i)
{
	size_t n = sizeof(types) / sizeof(types[0]);
	if (i < n)
		return types[i].name;
	if (i - n < clip_types2_n)
		return clip_types2[i - n].name;
	if (i - n - clip_types2_n < clip_types3_n)
		return clip_types3[i - n - clip_types2_n].name;
	const struct clip_type *a = clip_audio_type_at(i - n - clip_types2_n - clip_types3_n);
	return a ? a->name : NULL;
}
