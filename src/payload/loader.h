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

/* 0 when the engine's loader accepts every shape checked above, or -1 with
 * *err naming the first tensor it refuses, what it expects and from which
 * keys. m is the payload's model (model_from_gguf of g). */
int loader_check(const struct gguf *g, const struct model *m, char **err);

#endif
