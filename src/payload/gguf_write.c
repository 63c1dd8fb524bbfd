#include "gguf_write.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void put_le(struct sb *b, uint64_t v, unsigned n)
{
	char buf[8];
	for (unsigned i = 0; i < n; i++)
		buf[i] = (char)(v >> (8 * i));
	sb_add(b, buf, n);
}

static void put_str(struct sb *b, const char *s, uint64_t n)
{
	put_le(b, n, 8);
	sb_add(b, s, (size_t)n);
}

static void key(struct gguf_writer *w, const char *k, enum gguf_vtype t)
{
	put_str(&w->kv, k, strlen(k));
	put_le(&w->kv, (uint64_t)t, 4);
	w->n_kv++;
}

void gw_init(struct gguf_writer *w)
{
	memset(w, 0, sizeof(*w));
	w->alignment = 32;
}

void gw_release(struct gguf_writer *w)
{
	sb_release(&w->kv);
	sb_release(&w->ti);
	sb_release(&w->pokes);
}

uint64_t gw_data_at(const struct gguf_writer *w)
{
	return w->data_size;
}

void gw_poke(struct gguf_writer *w, uint64_t off, const void *bytes, uint32_t n)
{
	put_le(&w->pokes, off, 8);
	put_le(&w->pokes, n, 4);
	sb_add(&w->pokes, bytes, n);
}

/* The pokes, each at the data section's start (hlen) plus its offset. */
static int write_pokes(const struct gguf_writer *w, int fd, uint64_t hlen)
{
	const uint8_t *p = (const uint8_t *)w->pokes.s, *end = p + w->pokes.len;
	while (p && p + 12 <= end) {
		uint64_t off = 0;
		uint32_t n = 0;
		for (int i = 7; i >= 0; i--)
			off = off << 8 | p[i];
		for (int i = 3; i >= 0; i--)
			n = n << 8 | p[8 + i];
		p += 12;
		if (n > (size_t)(end - p) || off + n > w->data_size)
			return -1;
		if (pwrite(fd, p, n, (off_t)(hlen + off)) != (ssize_t)n)
			return -1;
		p += n;
	}
	return 0;
}

void gw_str(struct gguf_writer *w, const char *k, const char *value)
{
	key(w, k, GGUF_STRING);
	put_str(&w->kv, value, strlen(value));
}

void gw_u32(struct gguf_writer *w, const char *k, uint32_t v)
{
	key(w, k, GGUF_U32);
	put_le(&w->kv, v, 4);
}

void gw_i32(struct gguf_writer *w, const char *k, int32_t v)
{
	key(w, k, GGUF_I32);
	put_le(&w->kv, (uint32_t)v, 4);
}

void gw_u64(struct gguf_writer *w, const char *k, uint64_t v)
{
	key(w, k, GGUF_U64);
	put_le(&w->kv, v, 8);
}

static uint32_t f32_bits(float v)
{
	uint32_t u;
	memcpy(&u, &v, sizeof(u));
	return u;
}

void gw_f32(struct gguf_writer *w, const char *k, float v)
{
	key(w, k, GGUF_F32);
	put_le(&w->kv, f32_bits(v), 4);
}

void gw_bool(struct gguf_writer *w, const char *k, int v)
{
	key(w, k, GGUF_BOOL);
	put_le(&w->kv, v ? 1 : 0, 1);
}

void gw_arr_begin(struct gguf_writer *w, const char *k, enum gguf_vtype type, uint64_t n)
{
	key(w, k, GGUF_ARRAY);
	put_le(&w->kv, (uint64_t)type, 4);
	put_le(&w->kv, n, 8);
	w->arr_left = n;
}

void gw_arr_str(struct gguf_writer *w, const char *s, uint64_t n)
{
	put_str(&w->kv, s, n);
	w->arr_left--;
}

void gw_arr_i32(struct gguf_writer *w, int32_t v)
{
	put_le(&w->kv, (uint32_t)v, 4);
	w->arr_left--;
}

void gw_arr_f32(struct gguf_writer *w, float v)
{
	put_le(&w->kv, f32_bits(v), 4);
	w->arr_left--;
}

void gw_arr_bool(struct gguf_writer *w, int v)
{
	put_le(&w->kv, v ? 1 : 0, 1);
	w->arr_left--;
}

void gw_arr_u64(struct gguf_writer *w, uint64_t v)
{
	put_le(&w->kv, v, 8);
	w->arr_left--;
}

void gw_tensor(struct gguf_writer *w, const char *name, uint32_t n_dims, const uint64_t *ne, uint32_t type,
	       uint64_t bytes)
{
	put_str(&w->ti, name, strlen(name));
	put_le(&w->ti, n_dims, 4);
	for (uint32_t d = 0; d < n_dims; d++)
		put_le(&w->ti, ne[d], 8);
	put_le(&w->ti, type, 4);
	put_le(&w->ti, w->data_size, 8);
	w->data_size += (bytes + w->alignment - 1) / w->alignment * w->alignment;
	w->n_tensors++;
}

char *gw_header(struct gguf_writer *w, uint64_t *len)
{
	struct sb h = {0};
	sb_add(&h, "GGUF", 4);
	put_le(&h, 3, 4);
	put_le(&h, w->n_tensors, 8);
	put_le(&h, w->n_kv, 8);
	sb_add(&h, w->kv.s ? w->kv.s : "", w->kv.len);
	sb_add(&h, w->ti.s ? w->ti.s : "", w->ti.len);
	while (h.len % w->alignment)
		sb_addc(&h, '\0');
	*len = h.len;
	return sb_detach(&h);
}

int gw_write(struct gguf_writer *w, const char *path, char **err)
{
	if (w->arr_left)
		return errorf(err, "internal: array left open with %llu elements owed",
			      (unsigned long long)w->arr_left);
	uint64_t len;
	char *h = gw_header(w, &len);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		free(h);
		return errorf(err, "cannot create '%s': %s", path, strerror(errno));
	}
	uint64_t off = 0;
	while (off < len) {
		ssize_t n = write(fd, h + off, (size_t)(len - off));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = errno;
			close(fd);
			free(h);
			return errorf(err, "cannot write '%s': %s", path, strerror(e));
		}
		off += (uint64_t)n;
	}
	free(h);
	if (ftruncate(fd, (off_t)(len + w->data_size)) < 0) {
		int e = errno;
		close(fd);
		return errorf(err, "cannot extend '%s' to %llu bytes: %s", path,
			      (unsigned long long)(len + w->data_size), strerror(e));
	}
	if (write_pokes(w, fd, len)) {
		int e = errno;
		close(fd);
		return errorf(err, "cannot write the tensor data of '%s': %s", path, strerror(e));
	}
	if (close(fd) < 0)
		return errorf(err, "cannot close '%s': %s", path, strerror(errno));
	return 0;
}
