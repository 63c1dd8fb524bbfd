/* gguf_write: build a GGUF header in memory and write it as a sparse file.
 *
 * Tensor data is never written: the file is extended with ftruncate to the
 * size its tensors need, so the data reads back as zeros and costs no disk.
 * That is how `zealot synth` makes a 9B geometry in a few megabytes.
 */
#ifndef ZEALOT_GGUF_WRITE_H
#define ZEALOT_GGUF_WRITE_H

#include <stdint.h>

#include "../base/util.h"
#include "gguf.h"

struct gguf_writer {
	struct sb kv;
	uint64_t n_kv;
	struct sb ti;
	uint64_t n_tensors;
	uint64_t data_size;
	uint32_t alignment;
	/* an open array: elements still owed */
	uint64_t arr_left;
	/* bytes written into the data section (gw_poke), else it stays sparse
	 * zeros: offsets into the data section and their bytes, in order */
	struct sb pokes;
};

void gw_init(struct gguf_writer *w);
void gw_release(struct gguf_writer *w);

void gw_str(struct gguf_writer *w, const char *key, const char *value);
void gw_u32(struct gguf_writer *w, const char *key, uint32_t v);
void gw_i32(struct gguf_writer *w, const char *key, int32_t v);
void gw_u64(struct gguf_writer *w, const char *key, uint64_t v);
void gw_f32(struct gguf_writer *w, const char *key, float v);
void gw_bool(struct gguf_writer *w, const char *key, int v);

/* Arrays: begin with the element type and count, then add exactly that
 * many elements with the matching adder. */
void gw_arr_begin(struct gguf_writer *w, const char *key, enum gguf_vtype type, uint64_t n);
void gw_arr_str(struct gguf_writer *w, const char *s, uint64_t n);
void gw_arr_i32(struct gguf_writer *w, int32_t v);
void gw_arr_f32(struct gguf_writer *w, float v);
void gw_arr_bool(struct gguf_writer *w, int v);
void gw_arr_u64(struct gguf_writer *w, uint64_t v);

/* Append a tensor info. bytes is its data size (padded to the alignment in
 * the layout, as the engine's writer does). */
void gw_tensor(struct gguf_writer *w, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
	       uint64_t bytes);

/* Write the file (created or truncated, mode 0644) and extend it sparsely
 * to hold the tensor data. Returns 0, or -1 with *err. */
int gw_write(struct gguf_writer *w, const char *path, char **err);

/* The offset in the data section gw_tensor gives the next tensor. */
uint64_t gw_data_at(const struct gguf_writer *w);
/* Write n bytes at data-section offset off (a tensor's gw_data_at plus the
 * byte within it) when the file is written; the rest of the data stays
 * sparse zeros. n is at most 64 KiB a call. */
void gw_poke(struct gguf_writer *w, uint64_t off, const void *bytes, uint32_t n);
/* The header bytes the writer would put before the data section. */
char *gw_header(struct gguf_writer *w, uint64_t *len);

#endif
