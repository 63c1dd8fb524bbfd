/* gguf_diff: two GGUF headers compared (`zealot inspect --diff A B`): the
 * metadata keys only one has or whose values differ, and the tensors only
 * one has or whose type or shape differ. A re-export is a drop-in when
 * nothing differs but provenance (general.* keys other than
 * general.architecture and general.alignment, and split.*): the same
 * geometry, the same census, the same memory at every shape. The tensors'
 * bytes are not read (the pins hold them).
 */
#ifndef ZEALOT_GGUF_DIFF_H
#define ZEALOT_GGUF_DIFF_H

#include <stddef.h>

#include "gguf.h"

enum gguf_diff_kind {
	GGUF_DIFF_KEY,
	GGUF_DIFF_TENSOR,
};

struct gguf_diff_row {
	enum gguf_diff_kind kind;
	char *name;
	char *a, *b;	/* the value (a key) or "type [ne0, ne1, ...]" (a tensor); "(absent)" */
	int provenance; /* a key that changes nothing the engine loads */
};

struct gguf_diff {
	struct gguf_diff_row *v;
	size_t n;
	size_t keys_same, tensors_same;
	size_t keys_differ, tensors_differ; /* provenance keys not counted */
	int drop_in;			    /* nothing differs but provenance */
};

/* Compare a with b. Never fails. */
void gguf_diff(const struct gguf *a, const struct gguf *b, struct gguf_diff *out);
void gguf_diff_release(struct gguf_diff *d);

/* A key's value in one short line ("qwen35", "4096", "[151,936 strings]"),
 * allocated. */
char *gguf_kv_text(const struct gguf_kv *kv);

/* Whether the engine refuses dft as a drafter of tgt: its
 * common_speculative_are_compatible (common/speculative.cpp) throws "draft
 * model vocab type must match target model" at load. 1 with *why, else 0. */
int gguf_vocab_incompatible(const struct gguf *tgt, const struct gguf *dft, char *why, size_t n);

#endif
