#include "gguf.h"

#include <endian.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/util.h"
#include "ggml_type.h"

struct cur {
	const uint8_t *buf;
	size_t len;
	size_t pos;
	char **err;
	uint64_t total; /* bytes of the whole file: buf may hold only a prefix */
	uint64_t *want; /* gguf_parse_window: how far a window must reach, or NULL */
};

static const uint8_t type_size[GGUF_NTYPES] = {
    [GGUF_U8] = 1,     [GGUF_I8] = 1,  [GGUF_U16] = 2,	[GGUF_I16] = 2,	   [GGUF_U32] = 4,
    [GGUF_I32] = 4,    [GGUF_F32] = 4, [GGUF_BOOL] = 1, [GGUF_STRING] = 8, /* the least a string can take: its length */
    [GGUF_ARRAY] = 12, [GGUF_U64] = 8, [GGUF_I64] = 8,	[GGUF_F64] = 8,
};

static const char *const type_names[GGUF_NTYPES] = {
    "u8", "i8", "u16", "i16", "u32", "i32", "f32", "bool", "string", "array", "u64", "i64", "f64",
};

const char *gguf_vtype_name(enum gguf_vtype t)
{
	return (unsigned)t < GGUF_NTYPES ? type_names[t] : "invalid";
}

static size_t left(const struct cur *c)
{
	return c->len - c->pos;
}

/* A read that runs past the buffer but not past the file: the window was
 * too small. Record how far it must reach (the largest such end wins). */
static void short_of(struct cur *c, uint64_t end)
{
	if (c->want && end > c->len && end <= c->total && end > *c->want)
		*c->want = end;
}

static int too_large(struct cur *c, size_t at, const char *what, uint64_t n)
{
	return errorf(c->err,
		      "offset %zu: %s of %llu bytes would end the header past %llu MiB: zealot refuses metadata "
		      "this large (a real payload's header is a few MiB)",
		      at, what, (unsigned long long)n, GGUF_MAX_HEADER >> 20);
}

static int need(struct cur *c, size_t n, const char *what)
{
	if (left(c) < n && (short_of(c, (uint64_t)c->pos + n), 1))
		return errorf(c->err, "offset %zu: truncated reading %s (need %zu bytes, %zu left)", c->pos, what, n,
			      left(c));
	if (n > GGUF_MAX_HEADER || c->pos > GGUF_MAX_HEADER - n)
		return too_large(c, c->pos, what, n);
	return 0;
}

static uint64_t rd_le64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	return le64toh(v);
}

static uint32_t rd_le32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof(v));
	return le32toh(v);
}

/* A little-endian scalar of n = 1, 2, 4 or 8 bytes. */
static uint64_t rd_le(const uint8_t *p, unsigned n)
{
	switch (n) {
	case 8: return rd_le64(p);
	case 4: return rd_le32(p);
	case 2: return (uint64_t)p[0] | (uint64_t)p[1] << 8;
	default: return p[0];
	}
}

static int rd_u32(struct cur *c, uint32_t *out, const char *what)
{
	if (need(c, 4, what))
		return -1;
	*out = rd_le32(c->buf + c->pos);
	c->pos += 4;
	return 0;
}

static int rd_u64(struct cur *c, uint64_t *out, const char *what)
{
	if (need(c, 8, what))
		return -1;
	*out = rd_le64(c->buf + c->pos);
	c->pos += 8;
	return 0;
}

static int rd_str(struct cur *c, struct gguf_str *s, const char *what)
{
	uint64_t n;
	size_t at = c->pos;
	if (rd_u64(c, &n, what))
		return -1;
	if (n > left(c) && (short_of(c, (uint64_t)c->pos + n), 1))
		return errorf(c->err, "offset %zu: %s length %llu exceeds the %zu bytes left", at, what,
			      (unsigned long long)n, left(c));
	if (n > GGUF_MAX_HEADER || c->pos > GGUF_MAX_HEADER - n)
		return too_large(c, at, what, n);
	s->p = (const char *)c->buf + c->pos;
	s->n = n;
	c->pos += (size_t)n;
	return 0;
}

static double as_f32(uint32_t bits)
{
	float f;
	memcpy(&f, &bits, sizeof(f));
	return f;
}

static double as_f64(uint64_t bits)
{
	double d;
	memcpy(&d, &bits, sizeof(d));
	return d;
}

/* Decode a scalar of type t at p (bounds already checked). */
static void scalar(enum gguf_vtype t, const uint8_t *p, struct gguf_kv *kv)
{
	uint64_t raw = rd_le(p, type_size[t]);
	switch (t) {
	case GGUF_I8: kv->v.i = (int8_t)raw; break;
	case GGUF_I16: kv->v.i = (int16_t)raw; break;
	case GGUF_I32: kv->v.i = (int32_t)raw; break;
	case GGUF_I64: kv->v.i = (int64_t)raw; break;
	case GGUF_F32: kv->v.f = as_f32((uint32_t)raw); break;
	case GGUF_F64: kv->v.f = as_f64(raw); break;
	default: kv->v.u = raw; break;
	}
}

/* The vocabulary walk is a chain of dependent loads (each length says
 * where the next one is), so with cold caches every 64-byte line of its
 * 4.6 MB (250,000 tokens) waited on memory in turn: 2.1-7 ms against
 * 0.64 ms warm, measured on the bench's header after touching 64 MiB
 * (a whole process alternated with llama-fit-params starts that cold).
 * The strings lie back to back, so the lines 4 KiB ahead are the ones
 * the walk will need: asking for them now lets memory serve many lines
 * at once (cold 0.57 ms, warm 0.51 ms). A hint only: a line past the
 * buffer or in a page not mapped yet is dropped, never faulted in. */
static inline void prefetch_ahead(const uint8_t *p)
{
#if defined(__GNUC__) || defined(__clang__)
	__builtin_prefetch((const void *)((uintptr_t)p + 4096));
#else
	(void)p;
#endif
}

static int rd_value(struct cur *c, struct gguf_kv *kv)
{
	const char *k = kv->key;
	if (kv->type == GGUF_STRING)
		return rd_str(c, &kv->v.s, "string value");
	if (kv->type != GGUF_ARRAY) {
		if (need(c, type_size[kv->type], "value"))
			return -1;
		scalar(kv->type, c->buf + c->pos, kv);
		c->pos += type_size[kv->type];
		return 0;
	}
	uint32_t at;
	size_t tpos = c->pos;
	if (rd_u32(c, &at, "array element type"))
		return -1;
	if (at >= GGUF_NTYPES || at == GGUF_ARRAY)
		return errorf(c->err, "offset %zu: key '%s': invalid array element type %u", tpos, k, at);
	kv->arr_type = at;
	size_t npos = c->pos;
	if (rd_u64(c, &kv->arr_n, "array length"))
		return -1;
	/* Bound the count before walking: each element takes at least
	 * type_size bytes, so more elements than bytes/size is a lie, and
	 * more than the header cap allows is refused at once. */
	/* A string array cut by a window is walked to the cut instead, so
	 * the cut can project the array's end from its mean string. */
	int cut = c->want && at == GGUF_STRING && kv->arr_n <= (c->total - c->pos) / type_size[at];
	if (!cut && kv->arr_n > left(c) / type_size[at] &&
	    (short_of(c, kv->arr_n < c->total ? (uint64_t)c->pos + kv->arr_n * type_size[at] : UINT64_MAX), 1))
		return errorf(c->err,
			      "offset %zu: key '%s': array of %llu %s elements cannot fit in the %zu bytes left", npos,
			      k, (unsigned long long)kv->arr_n, type_names[at], left(c));
	if (kv->arr_n > (GGUF_MAX_HEADER - c->pos) / type_size[at])
		return errorf(c->err,
			      "offset %zu: key '%s': an array of %llu %s elements needs at least %llu MiB: zealot "
			      "refuses metadata past %llu MiB (a real payload's header is a few MiB)",
			      npos, k, (unsigned long long)kv->arr_n, type_names[at],
			      (unsigned long long)(kv->arr_n > UINT64_MAX / type_size[at]
						       ? UINT64_MAX >> 20
						       : kv->arr_n * type_size[at] >> 20),
			      GGUF_MAX_HEADER >> 20);
	kv->arr = c->buf + c->pos;
	if (at != GGUF_STRING) {
		c->pos += (size_t)kv->arr_n * type_size[at];
		return 0;
	}
	size_t start = c->pos;
	/* The fast walk: a vocabulary is 10^5 strings and plan reads only its
	 * count, so each string is a length and a skip. The first string that
	 * would not fit leaves the rest to the checked walk below, which says
	 * why (or projects a cut window's end). */
	uint64_t i = 0;
	/* A pointer, not buf + pos: each step's load waits on the last step's
	 * add, and a load addressed by one register can be a cycle quicker
	 * (0.55-0.60 -> 0.49-0.54 ms warm, 0.68-0.70 -> 0.59-0.63 ms cold on
	 * the bench's header). */
	const uint8_t *q = c->buf + c->pos, *end = c->buf + c->len;
	for (; i < kv->arr_n; i++) {
		if ((size_t)(end - q) < 8)
			break;
		prefetch_ahead(q);
		uint64_t n = rd_le64(q);
		if (n > (size_t)(end - q) - 8)
			break;
		q += 8 + (size_t)n;
	}
	c->pos = (size_t)(q - c->buf);
	for (; i < kv->arr_n; i++) {
		struct gguf_str s;
		size_t before = c->pos;
		if (rd_str(c, &s, "array string")) {
			/* a window cut the array: project its end from the mean
			 * string so far, so the next window takes it whole */
			if (c->want && i > 0 && *c->want)
				short_of(c,
					 start + (uint64_t)((double)(before - start) / (double)i * (double)kv->arr_n));
			return -1;
		}
	}
	return 0;
}

static int key_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Duplicate keys or tensor names make lookups ambiguous; the engine refuses
 * them, and so do we. O(n log n) on a copy of the name pointers. */
static int check_unique(char **names, uint64_t n, const char *what, char **err)
{
	if (n < 2)
		return 0;
	char **v = xreallocarray(NULL, (size_t)n, sizeof(*v));
	memcpy(v, names, (size_t)n * sizeof(*v));
	qsort(v, (size_t)n, sizeof(*v), key_cmp);
	int rc = 0;
	for (uint64_t i = 1; i < n; i++) {
		if (strcmp(v[i - 1], v[i]) == 0) {
			rc = errorf(err, "duplicate %s '%s'", what, v[i]);
			break;
		}
	}
	free(v);
	return rc;
}

static int off_cmp(const void *a, const void *b)
{
	const struct gguf_tensor *x = *(const struct gguf_tensor *const *)a;
	const struct gguf_tensor *y = *(const struct gguf_tensor *const *)b;
	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* Sizes: a stock type's bytes come from its block size; a custom type's
 * from the gap to the next tensor's data (or to the end of the file). */
static int size_tensors(struct gguf *g, char **err)
{
	uint64_t data_bytes = g->file_size > g->data_offset ? g->file_size - g->data_offset : 0;
	if (g->n_tensors == 0)
		return 0;
	struct gguf_tensor **by_off = xreallocarray(NULL, (size_t)g->n_tensors, sizeof(*by_off));
	for (uint64_t i = 0; i < g->n_tensors; i++)
		by_off[i] = &g->tensors[i];
	qsort(by_off, (size_t)g->n_tensors, sizeof(*by_off), off_cmp);
	int rc = 0;
	for (uint64_t i = 0; i < g->n_tensors && rc == 0; i++) {
		struct gguf_tensor *t = by_off[i];
		uint64_t end = i + 1 < g->n_tensors ? by_off[i + 1]->offset : data_bytes;
		if (t->offset > data_bytes) {
			rc = errorf(err, "tensor '%s': data offset %llu is past the end of the file (%llu data bytes)",
				    t->name, (unsigned long long)t->offset, (unsigned long long)data_bytes);
			break;
		}
		const struct ggml_type_info *ti = ggml_type_get(t->type);
		if (!ti) {
			t->custom = 1;
			t->bytes = end - t->offset;
			continue;
		}
		if (t->ne[0] % ti->blck) {
			/* gguf.cpp: "of type %d (%s) has %d elements per row, not a multiple of block size" */
			rc = errorf(err,
				    "tensor '%s' of type %u (%s) has %llu elements per row, not a multiple of block "
				    "size (%u): the engine refuses the file",
				    t->name, t->type, ti->name, (unsigned long long)t->ne[0], ti->blck);
			break;
		}
		uint64_t blocks = t->n_elems / ti->blck;
		if (blocks > UINT64_MAX / ti->size) {
			rc = errorf(err, "tensor '%s': byte size overflows", t->name);
			break;
		}
		t->bytes = blocks * ti->size;
		if (t->bytes > end - t->offset) {
			const char *who = i + 1 < g->n_tensors ? by_off[i + 1]->name : NULL;
			if (who)
				rc = errorf(err, "tensor '%s': %llu bytes of %s data overlap tensor '%s'", t->name,
					    (unsigned long long)t->bytes, ti->name, who);
			else
				rc = errorf(err,
					    "tensor '%s': %llu bytes of %s data run past the end of the file "
					    "(truncated: %llu bytes left)",
					    t->name, (unsigned long long)t->bytes, ti->name,
					    (unsigned long long)(end - t->offset));
		}
	}
	free(by_off);
	return rc;
}

/* The engine's reader (ggml/src/gguf.cpp, gguf_init_from_reader) refuses
 * more than the bounds above; a file inspect accepts must be one it loads.
 * Checked here, in the order of the tensor infos as the engine reads them:
 *  - a type id below GGML_TYPE_COUNT that ggml removed (Q4_2, Q4_0_4_4 ...)
 *    has block size 0, and "not a multiple of block size (0)" refuses it;
 *  - tensor data lies back to back in the order of the infos, each tensor
 *    padded to the alignment: any other offset is "has offset N, expected
 *    M" (a gap, a reordering or a missing pad, even without an overlap).
 * A custom type (>= GGML_TYPE_COUNT, law S10) is its own runtime's to size,
 * so the tensor after one is not held to an expected offset. */
static int engine_layout(const struct gguf *g, char **err)
{
	uint64_t expect = 0;
	int known = 1; /* expect is the engine's running size */
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		if (t->custom && t->type < GGML_TYPE_COUNT)
			return errorf(
			    err,
			    "tensor '%s' of type %u has block size 0 in the engine (a type ggml removed): the "
			    "engine refuses the file",
			    t->name, t->type);
		if (known && t->offset != expect)
			return errorf(err,
				      "tensor '%s' has data offset %llu, expected %llu: the engine reads tensor data "
				      "back to back in the order of the tensor infos, each padded to %u bytes",
				      t->name, (unsigned long long)t->offset, (unsigned long long)expect, g->alignment);
		known = !t->custom;
		uint64_t padded = t->bytes + (g->alignment - t->bytes % g->alignment) % g->alignment;
		expect = t->offset + padded;
	}
	return 0;
}

static int rd_tensor(struct cur *c, struct gguf *g, struct gguf_tensor *t, uint64_t idx)
{
	struct gguf_str name;
	size_t at = c->pos;
	if (rd_str(c, &name, "tensor name"))
		return -1;
	if (name.n >= GGUF_MAX_NAME)
		return errorf(c->err, "offset %zu: tensor %llu: name of %llu bytes exceeds the engine's limit of %d",
			      at, (unsigned long long)idx, (unsigned long long)name.n, GGUF_MAX_NAME - 1);
	if (memchr(name.p, '\0', (size_t)name.n))
		return errorf(c->err, "offset %zu: tensor %llu: name contains a NUL byte", at, (unsigned long long)idx);
	t->name = xstrndup(name.p, (size_t)name.n);
	size_t dpos = c->pos;
	if (rd_u32(c, &t->n_dims, "tensor n_dims"))
		return -1;
	if (t->n_dims == 0 || t->n_dims > GGUF_MAX_DIMS)
		return errorf(c->err, "offset %zu: tensor '%s': n_dims %u is not in 1..%d", dpos, t->name, t->n_dims,
			      GGUF_MAX_DIMS);
	t->n_elems = 1;
	for (uint32_t d = 0; d < GGUF_MAX_DIMS; d++) {
		t->ne[d] = 1;
		if (d >= t->n_dims)
			continue;
		size_t epos = c->pos;
		if (rd_u64(c, &t->ne[d], "tensor dimension"))
			return -1;
		if (t->ne[d] == 0 || t->ne[d] > INT64_MAX)
			return errorf(c->err, "offset %zu: tensor '%s': dimension %u is %llu", epos, t->name, d,
				      (unsigned long long)t->ne[d]);
		if (t->n_elems > INT64_MAX / t->ne[d])
			return errorf(c->err, "offset %zu: tensor '%s': element count overflows", epos, t->name);
		t->n_elems *= t->ne[d];
	}
	if (rd_u32(c, &t->type, "tensor type"))
		return -1;
	size_t opos = c->pos;
	if (rd_u64(c, &t->offset, "tensor data offset"))
		return -1;
	if (t->offset % g->alignment)
		return errorf(c->err, "offset %zu: tensor '%s': data offset %llu is not a multiple of the alignment %u",
			      opos, t->name, (unsigned long long)t->offset, g->alignment);
	return 0;
}

struct gguf *gguf_parse(const uint8_t *buf, size_t len, uint64_t file_size, char **err)
{
	return gguf_parse_window(buf, len, file_size, NULL, err);
}

struct gguf *gguf_parse_window(const uint8_t *buf, size_t len, uint64_t file_size, uint64_t *want, char **err)
{
	struct cur c = {buf, len, 0, err, file_size < len ? len : file_size, want};
	if (want)
		*want = 0;
	struct gguf *g = xcalloc(1, sizeof(*g));
	g->file_size = file_size < len ? len : file_size;
	g->alignment = 32;

	if (need(&c, 4, "magic"))
		goto fail;
	if (memcmp(buf, "GGUF", 4) != 0) {
		errorf(err, "offset 0: bad magic (not a GGUF file)");
		goto fail;
	}
	c.pos = 4;
	if (rd_u32(&c, &g->version, "version"))
		goto fail;
	if (g->version != 2 && g->version != 3) {
		errorf(err, "offset 4: unsupported GGUF version %u (2 and 3 are supported)", g->version);
		goto fail;
	}
	if (rd_u64(&c, &g->n_tensors, "tensor count") || rd_u64(&c, &g->n_kv, "key/value count"))
		goto fail;
	/* A kv takes at least 13 bytes (key length, type, one byte) and a
	 * tensor info at least 33 (name length + 1 byte, n_dims, one dim,
	 * type, offset): counts beyond that cannot be honest. */
	if (g->n_kv > left(&c) / 13 || g->n_tensors > left(&c) / 33)
		short_of(&c, g->n_kv < c.total && g->n_tensors < c.total ? 24 + g->n_kv * 13 + g->n_tensors * 33
									 : UINT64_MAX);
	if (g->n_kv > left(&c) / 13) {
		errorf(err, "offset 16: key/value count %llu cannot fit in the %zu bytes left",
		       (unsigned long long)g->n_kv, left(&c));
		goto fail;
	}
	if (g->n_tensors > left(&c) / 33) {
		errorf(err, "offset 8: tensor count %llu cannot fit in the %zu bytes left",
		       (unsigned long long)g->n_tensors, left(&c));
		goto fail;
	}

	g->kv = xcalloc((size_t)g->n_kv, sizeof(*g->kv));
	for (uint64_t i = 0; i < g->n_kv; i++) {
		struct gguf_kv *kv = &g->kv[i];
		struct gguf_str key;
		kv->offset = c.pos;
		if (rd_str(&c, &key, "key"))
			goto fail;
		if (key.n == 0 || key.n > GGUF_MAX_KEY || memchr(key.p, '\0', (size_t)key.n)) {
			errorf(err, "offset %llu: key %llu: invalid key (length %llu)", (unsigned long long)kv->offset,
			       (unsigned long long)i, (unsigned long long)key.n);
			goto fail;
		}
		kv->key = xstrndup(key.p, (size_t)key.n);
		uint32_t t;
		size_t tpos = c.pos;
		if (rd_u32(&c, &t, "value type"))
			goto fail;
		if (t >= GGUF_NTYPES) {
			errorf(err, "offset %zu: key '%s': invalid value type %u", tpos, kv->key, t);
			goto fail;
		}
		kv->type = t;
		if (rd_value(&c, kv))
			goto fail;
	}
	char **names =
	    xreallocarray(NULL, (size_t)(g->n_kv > g->n_tensors ? g->n_kv : g->n_tensors) + 1, sizeof(*names));
	for (uint64_t i = 0; i < g->n_kv; i++)
		names[i] = g->kv[i].key;
	int dup = check_unique(names, g->n_kv, "key", err);

	const struct gguf_kv *al = gguf_find(g, "general.alignment");
	if (!dup && al) {
		if (al->type != GGUF_U32 || al->v.u == 0 || (al->v.u & (al->v.u - 1))) {
			dup = errorf(err, "offset %llu: general.alignment must be a u32 power of two",
				     (unsigned long long)al->offset);
		} else {
			g->alignment = (uint32_t)al->v.u;
		}
	}
	if (dup) {
		free(names);
		goto fail;
	}

	g->tensors = xcalloc((size_t)g->n_tensors, sizeof(*g->tensors));
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		if (rd_tensor(&c, g, &g->tensors[i], i)) {
			free(names);
			goto fail;
		}
	}
	free(names);
	if (gguf_index_tensors(g, err))
		goto fail;

	g->header_bytes = c.pos;
	g->data_offset = (c.pos + g->alignment - 1) / g->alignment * g->alignment;
	if (g->n_tensors && g->data_offset > g->file_size) {
		errorf(err, "offset %llu: file ends before its data section", (unsigned long long)g->header_bytes);
		goto fail;
	}
	if (size_tensors(g, err) || engine_layout(g, err))
		goto fail;
	return g;
fail:
	gguf_free(g);
	return NULL;
}

void gguf_free(struct gguf *g)
{
	if (!g)
		return;
	for (uint64_t i = 0; g->kv && i < g->n_kv; i++)
		free(g->kv[i].key);
	for (uint64_t i = 0; g->tensors && i < g->n_tensors; i++)
		free(g->tensors[i].name);
	free(g->kv);
	free(g->tensors);
	free(g->by_name);
	free(g);
}

struct gguf_file *gguf_open(const char *path, enum zerr *kind, char **err)
{
	zerr_set(kind, ZE_USAGE);
	int fd = open_regular(path, err);
	if (fd < 0) {
		zerr_set(kind, zerr_of_errno(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		errorf(err, "cannot stat '%s': %s", path, strerror(errno));
		close(fd);
		return NULL;
	}
	if (st.st_size == 0) {
		errorf(err, "'%s': empty file (not a GGUF payload)", path);
		close(fd);
		return NULL;
	}
	/* Mapping the whole file costs nothing until pages are touched, and
	 * the parser touches only the header. */
	void *map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED) {
		zerr_set(kind, ZE_IO);
		errorf(err, "cannot map '%s': %s", path, strerror(errno));
		return NULL;
	}
	char *perr = NULL;
	struct gguf *g = gguf_parse(map, (size_t)st.st_size, (uint64_t)st.st_size, &perr);
	if (!g) {
		errorf(err, "'%s': %s", path, perr);
		free(perr);
		munmap(map, (size_t)st.st_size);
		return NULL;
	}
	struct gguf_file *f = xcalloc(1, sizeof(*f));
	f->g = g;
	f->path = xstrdup(path);
	f->map = map;
	f->map_len = (size_t)st.st_size;
	zerr_set(kind, ZE_OK);
	return f;
}

void gguf_close(struct gguf_file *f)
{
	if (!f)
		return;
	gguf_free(f->g);
	if (f->map)
		munmap(f->map, f->map_len);
	for (unsigned i = 0; i < f->n_shards; i++)
		gguf_close(f->shards[i]);
	free(f->shards);
	if (f->release)
		f->release(f->owner);
	free(f->path);
	free(f);
}

const struct gguf_kv *gguf_find(const struct gguf *g, const char *key)
{
	for (uint64_t i = 0; i < g->n_kv; i++)
		if (strcmp(g->kv[i].key, key) == 0)
			return &g->kv[i];
	return NULL;
}

const struct gguf_kv *gguf_findf(const struct gguf *g, const char *fmt, ...)
{
	struct sb b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&b, fmt, ap);
	va_end(ap);
	const struct gguf_kv *kv = gguf_find(g, b.s);
	sb_release(&b);
	return kv;
}

static int is_int(enum gguf_vtype t)
{
	return t == GGUF_U8 || t == GGUF_I8 || t == GGUF_U16 || t == GGUF_I16 || t == GGUF_U32 || t == GGUF_I32 ||
	       t == GGUF_U64 || t == GGUF_I64 || t == GGUF_BOOL;
}

static int is_signed(enum gguf_vtype t)
{
	return t == GGUF_I8 || t == GGUF_I16 || t == GGUF_I32 || t == GGUF_I64;
}

int gguf_kv_u64(const struct gguf_kv *kv, uint64_t *out)
{
	if (!kv || !is_int(kv->type))
		return -1;
	if (is_signed(kv->type) && kv->v.i < 0)
		return -1;
	*out = kv->v.u;
	return 0;
}

int gguf_kv_f64(const struct gguf_kv *kv, double *out)
{
	if (!kv)
		return -1;
	if (kv->type == GGUF_F32 || kv->type == GGUF_F64)
		*out = kv->v.f;
	else if (is_signed(kv->type))
		*out = (double)kv->v.i;
	else if (is_int(kv->type))
		*out = (double)kv->v.u;
	else
		return -1;
	return 0;
}

int gguf_kv_bool(const struct gguf_kv *kv, int *out)
{
	uint64_t v;
	if (gguf_kv_u64(kv, &v))
		return -1;
	*out = v != 0;
	return 0;
}

static int arr_elem(const struct gguf_kv *kv, uint64_t i, struct gguf_kv *tmp)
{
	if (!kv || kv->type != GGUF_ARRAY || i >= kv->arr_n || kv->arr_type == GGUF_STRING)
		return -1;
	tmp->type = kv->arr_type;
	scalar(kv->arr_type, kv->arr + i * type_size[kv->arr_type], tmp);
	return 0;
}

int gguf_arr_u64(const struct gguf_kv *kv, uint64_t i, uint64_t *out)
{
	struct gguf_kv tmp;
	if (arr_elem(kv, i, &tmp))
		return -1;
	return gguf_kv_u64(&tmp, out);
}

int gguf_arr_f64(const struct gguf_kv *kv, uint64_t i, double *out)
{
	struct gguf_kv tmp;
	if (arr_elem(kv, i, &tmp))
		return -1;
	return gguf_kv_f64(&tmp, out);
}

int gguf_arr_next_str(const struct gguf_kv *kv, uint64_t *idx, const uint8_t **pos, struct gguf_str *out)
{
	if (!kv || kv->type != GGUF_ARRAY || kv->arr_type != GGUF_STRING || *idx >= kv->arr_n)
		return -1;
	if (*idx == 0)
		*pos = kv->arr;
	/* The parser walked this array already: every length is in bounds. */
	uint64_t n = rd_le64(*pos);
	out->p = (const char *)*pos + 8;
	out->n = n;
	*pos += 8 + n;
	(*idx)++;
	return 0;
}

/* The slot a tensor name hashes to: FNV-1a from a basis drawn per index,
 * its high half folded into the low bits the mask keeps. A file cannot
 * then be made of names that share a slot (every lookup and the build
 * would turn quadratic): which names collide depends on the draw. */
static size_t name_hash(const char *s, uint64_t seed)
{
	uint64_t h = 14695981039346656037ull ^ seed;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return (size_t)(h ^ (h >> 32));
}

int gguf_index_tensors(struct gguf *g, char **err)
{
	free(g->by_name);
	g->by_name = NULL;
	if (!g->n_tensors)
		return 0;
	/* open addressing at most half full: a power of two >= 2n slots */
	size_t slots = 2;
	while (slots < 2 * (size_t)g->n_tensors)
		slots *= 2;
	g->by_name = xcalloc(slots, sizeof(*g->by_name));
	g->by_name_mask = slots - 1;
	if (getrandom(&g->by_name_seed, sizeof(g->by_name_seed), GRND_NONBLOCK) != sizeof(g->by_name_seed))
		g->by_name_seed = (uint64_t)(uintptr_t)g->by_name; /* no entropy yet: ASLR's */
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		size_t h = name_hash(g->tensors[i].name, g->by_name_seed) & g->by_name_mask;
		for (; g->by_name[h]; h = (h + 1) & g->by_name_mask)
			if (strcmp(g->by_name[h]->name, g->tensors[i].name) == 0)
				return errorf(err, "duplicate tensor '%s'", g->tensors[i].name);
		g->by_name[h] = &g->tensors[i];
	}
	return 0;
}

/* A lookup in the name index (a planner asks for ten names a layer, and
 * solve for thousands a second); a struct built without the index is
 * searched in order. */
const struct gguf_tensor *gguf_tensor_find(const struct gguf *g, const char *name)
{
	if (!g->by_name) {
		for (uint64_t i = 0; i < g->n_tensors; i++)
			if (strcmp(g->tensors[i].name, name) == 0)
				return &g->tensors[i];
		return NULL;
	}
	for (size_t h = name_hash(name, g->by_name_seed) & g->by_name_mask; g->by_name[h];
	     h = (h + 1) & g->by_name_mask)
		if (strcmp(g->by_name[h]->name, name) == 0)
			return g->by_name[h];
	return NULL;
}
