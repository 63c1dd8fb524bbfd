/* gguf: a reader for the header of a GGUF file (versions 2 and 3).
 *
 * The parser works on a memory buffer holding at least the header (the
 * key/value section and the tensor infos); tensor data is never read. Every
 * count and length is checked against the bytes left before anything is
 * allocated, so a truncated or hostile header costs at most a clear error
 * naming the offset and the field.
 *
 * Strings and array payloads are borrowed from the buffer: the struct gguf
 * is valid only while the buffer is. Keys and tensor names are copied
 * (NUL-terminated) because callers look them up by name.
 */
#ifndef ZEALOT_GGUF_H
#define ZEALOT_GGUF_H

#include <stddef.h>
#include <stdint.h>

#include "../base/zerr.h"

enum gguf_vtype {
	GGUF_U8 = 0,
	GGUF_I8 = 1,
	GGUF_U16 = 2,
	GGUF_I16 = 3,
	GGUF_U32 = 4,
	GGUF_I32 = 5,
	GGUF_F32 = 6,
	GGUF_BOOL = 7,
	GGUF_STRING = 8,
	GGUF_ARRAY = 9,
	GGUF_U64 = 10,
	GGUF_I64 = 11,
	GGUF_F64 = 12,
	GGUF_NTYPES
};

/* Why a bound exists: the engine's own limits (GGML_MAX_DIMS, GGML_MAX_NAME)
 * and a cap on key length so a hostile file cannot make us copy megabytes. */
#define GGUF_MAX_DIMS 4
#define GGUF_MAX_NAME 64
#define GGUF_MAX_KEY  65536
/* The header (key/values and tensor infos) must end before 1 GiB. Real
 * payloads' headers are a few MiB (a 262k-token vocabulary with scores,
 * types and merges is ~20 MiB); a hostile count over a sparse file would
 * otherwise walk gigabytes of page cache before any verdict. */
#define GGUF_MAX_HEADER (1ull << 30)

struct gguf_str {
	const char *p; /* borrowed, not NUL-terminated */
	uint64_t n;
};

struct gguf_kv {
	char *key;
	enum gguf_vtype type;
	enum gguf_vtype arr_type; /* when type == GGUF_ARRAY */
	uint64_t arr_n;
	const uint8_t *arr; /* first element of an array, borrowed */
	union {
		uint64_t u;
		int64_t i;
		double f;
		struct gguf_str s;
	} v;
	uint64_t offset; /* where the key starts in the file */
};

struct gguf_tensor {
	char *name;
	uint32_t n_dims;
	uint64_t ne[GGUF_MAX_DIMS];
	uint64_t n_elems;
	uint32_t type;
	uint64_t offset; /* relative to the data section */
	uint64_t bytes;	 /* from the type's block size, or the gap for custom types */
	int custom;	 /* type id unknown to stock ggml */
	uint32_t shard;	 /* split payloads: the shard holding the data (0-based) */
};

struct gguf {
	uint32_t version;
	uint64_t n_kv;
	struct gguf_kv *kv;
	uint64_t n_tensors;
	struct gguf_tensor *tensors;
	/* the tensors hashed by name, by_name_mask + 1 slots (gguf_index_tensors), or NULL */
	struct gguf_tensor **by_name;
	size_t by_name_mask;
	uint64_t by_name_seed;
	uint32_t alignment;
	uint64_t header_bytes; /* end of the tensor infos */
	uint64_t data_offset;  /* start of the data section (aligned) */
	uint64_t file_size;
};

/* Parse the header in buf[0..len). file_size is the size of the whole file
 * (>= len; equal when the whole file is mapped) and bounds the tensor data.
 * Returns a new struct gguf, or NULL with *err set (caller frees *err). */
struct gguf *gguf_parse(const uint8_t *buf, size_t len, uint64_t file_size, char **err);
/* The same on a window: buf holds the file's first len bytes. When the
 * header runs past the window (but not past file_size), returns NULL with
 * *err and *want > len: how far the next window must reach at least (a
 * projection for a cut string array). *want is 0 for any other failure. */
struct gguf *gguf_parse_window(const uint8_t *buf, size_t len, uint64_t file_size, uint64_t *want, char **err);
void gguf_free(struct gguf *g);

/* Sort the name index gguf_tensor_find searches; a duplicate name is an
 * error (the engine refuses it too). gguf_parse calls it; a struct built
 * another way (a split payload's merge) calls it when its tensors are in. */
int gguf_index_tensors(struct gguf *g, char **err);

/* An opened file: the mapping stays alive as long as the struct. */
struct gguf_file {
	struct gguf *g;
	char *path;
	void *map;
	size_t map_len;
	/* a split payload: every shard's own header (g merges them) */
	struct gguf_file **shards;
	unsigned n_shards;
	/* a header read from elsewhere (a URL): what holds the bytes g borrows */
	void *owner;
	void (*release)(void *owner);
};

/* Map the file read-only and parse its header. NULL with *err on failure,
 * and *kind (when not NULL): ZE_NOTFOUND or ZE_IO when it cannot be read,
 * ZE_USAGE when it is no GGUF payload. */
struct gguf_file *gguf_open(const char *path, enum zerr *kind, char **err);
void gguf_close(struct gguf_file *f);

/* Lookups. gguf_find returns the kv or NULL. The typed getters return 0 and
 * fill *out when the key exists and has a compatible type (any integer type
 * for integers, when the value fits), -1 otherwise. */
const struct gguf_kv *gguf_find(const struct gguf *g, const char *key);
const struct gguf_kv *gguf_findf(const struct gguf *g, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int gguf_kv_u64(const struct gguf_kv *kv, uint64_t *out);
int gguf_kv_f64(const struct gguf_kv *kv, double *out);
int gguf_kv_bool(const struct gguf_kv *kv, int *out);
/* Element i of an integer or bool array (0 <= i < arr_n); -1 otherwise. */
int gguf_arr_u64(const struct gguf_kv *kv, uint64_t i, uint64_t *out);
int gguf_arr_f64(const struct gguf_kv *kv, uint64_t i, double *out);
/* Iterate a string array: *pos starts at 0; returns 0 and the next string,
 * or -1 at the end. O(1) per step. */
int gguf_arr_next_str(const struct gguf_kv *kv, uint64_t *idx, const uint8_t **pos, struct gguf_str *out);

const char *gguf_vtype_name(enum gguf_vtype t);
const struct gguf_tensor *gguf_tensor_find(const struct gguf *g, const char *name);

#endif
