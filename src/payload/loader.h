/* loader: what the engine's model loader refuses that the header decides.
 *
 * llama-model.cpp builds every tensor with create_tensor(name, {ne...}):
 * the loader (llama-model-loader.cpp check_tensor_dims) compares each
 * dimension with the one the architecture expects from the hparams and
 * refuses the file ("tensor 'X' has wrong shape; expected A, got B"), and
 * refuses a file with a tensor it never creates ("wrong number of
 * tensors"). The checks here are the ones the metadata alone decides, for
 * every architecture alike:
 *
 *   token_embd.weight   {n_embd, n_vocab}  (n_vocab: tokenizer.ggml.tokens)
 *   output.weight       {n_embd, n_vocab}
 *   output_norm.weight  {n_embd}
 *   blk.N.attn_norm, ffn_norm, post_attention_norm, post_ffw_norm {n_embd}
 *   blk.N.attn_output, ffn_down {*, n_embd}
 *   blk.N.*             N below block_count
 *   blk.N.attn_q/k/v/qkv/output: the architecture's own (below)
 *
 * with the architectures whose expectation differs left out (eagle3 reads
 * its target vocabulary from the tensor; dflash and eagle3 size output by
 * the draft vocabulary, qwen3vl by n_vocab_out; wavtokenizer-dec is not a
 * text model). A check that the header cannot decide is skipped, never
 * guessed.
 */
#ifndef ZEALOT_LOADER_H
#define ZEALOT_LOADER_H

#include "gguf.h"
#include "model.h"

/* The attention projections, per architecture (loader_attn.c, generated
 * by scripts/gen-loader-attn.sh from the engine's load_arch_tensors):
 *
 *   blk.N.attn_q.weight    {n_embd, Q}      attn_q.bias {Q}
 *   blk.N.attn_k.weight    {n_embd, K}      attn_k.bias {K}
 *   blk.N.attn_v.weight    {n_embd, V}      attn_v.bias {V}
 *   blk.N.attn_qkv.weight  {n_embd, Q+K+V}  attn_qkv.bias {Q+K+V}
 *   blk.N.attn_output.weight {O, n_embd}
 *
 * each of Q, K, V, O an expression of the hparams the engine reads
 * (head_count, head_count_kv, key_length, value_length, rope
 * dimension_count, embedding_length), evaluated for layer 0 as the engine's
 * LLAMA_LOAD_LOCALS does, or for the layer (the _IL ones). An architecture
 * whose loader builds them any other way has file NULL and `unmirrored`
 * saying why: its attention shapes are not checked, and loader_unmirrored
 * says so. */
enum loader_expr {
	LX_NONE,
	LX_EMBD,    /* n_embd */
	LX_HK_H,    /* n_embd_head_k * n_head */
	LX_HK_H2,   /* n_embd_head_k * n_head * 2 (a gate beside Q) */
	LX_HV_H,    /* n_embd_head_v * n_head */
	LX_KGQA,    /* n_embd_k_gqa: n_embd_head_k * n_head_kv */
	LX_VGQA,    /* n_embd_v_gqa (and n_embd_gqa): n_embd_head_v * n_head_kv */
	LX_ROT_H,   /* n_head * n_rot */
	LX_ROT_HKV, /* n_head_kv * n_rot */
	LX_KGQA_IL, /* hparams.n_embd_k_gqa(i) */
	LX_VGQA_IL, /* hparams.n_embd_v_gqa(i) */
};

struct loader_attn_rule {
	const char *arch;
	const char *file; /* the engine source it was read from, NULL: not mirrored */
	enum loader_expr q, k, v, o;
	const char *unmirrored;
};

extern const struct loader_attn_rule loader_attn_rules[];
extern const size_t loader_attn_rules_count;
extern const char *const loader_attn_source;

/* NULL when the attention shapes of g's architecture are checked (or it
 * has no attention projections); else a sentence saying they are not, and
 * why (the payload has attn_* tensors but the engine builds them in a way
 * zealot does not mirror). */
const char *loader_unmirrored(const struct gguf *g, const struct model *m, char *buf, size_t len);

/* 0 when the engine's loader accepts every shape checked above, or -1 with
 * *err naming the first tensor it refuses, what it expects and from which
 * keys. m is the payload's model (model_from_gguf of g). */
int loader_check(const struct gguf *g, const struct model *m, char **err);

#endif
