#include "split.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/util.h"
#include "gguf_write.h"

#define SUFFIX_LEN 20 /* "-00001-of-00003.gguf" */

/* Where a name ends: a URL's query or fragment is not part of it. */
static size_t name_end(const char *name)
{
	if (strncmp(name, "http://", 7) == 0 || strncmp(name, "https://", 8) == 0)
		return strcspn(name, "?#");
	return strlen(name);
}

static int five_digits(const char *p, unsigned *out)
{
	unsigned v = 0;
	for (int i = 0; i < 5; i++) {
		if (p[i] < '0' || p[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(p[i] - '0');
	}
	*out = v;
	return 0;
}

int split_name_parse(const char *name, size_t *prefix_len, unsigned *no, unsigned *count)
{
	size_t end = name_end(name);
	if (end <= SUFFIX_LEN)
		return -1;
	const char *s = name + end - SUFFIX_LEN;
	unsigned k, n;
	if (s[0] != '-' || five_digits(s + 1, &k) || memcmp(s + 6, "-of-", 4) != 0 || five_digits(s + 10, &n) ||
	    memcmp(s + 15, ".gguf", 5) != 0)
		return -1;
	if (k < 1 || n < 1 || k > n)
		return -1;
	/* the prefix must name something: not "-00001-of-00002.gguf" alone
	 * nor a directory ("dir/-00001...") */
	if (s == name || s[-1] == '/')
		return -1;
	*prefix_len = (size_t)(s - name);
	*no = k;
	*count = n;
	return 0;
}

char *split_shard_name(const char *name, unsigned k, unsigned n)
{
	size_t plen;
	unsigned no, count;
	if (split_name_parse(name, &plen, &no, &count) || k < 1 || k > n || n > SPLIT_MAX)
		return NULL;
	struct sb b = {0};
	sb_add(&b, name, plen);
	sb_addf(&b, "-%05u-of-%05u.gguf", k, n);
	sb_adds(&b, name + name_end(name));
	return sb_detach(&b);
}

int split_keys(const struct gguf *g, unsigned *no, unsigned *count, uint64_t *tensors, char **err)
{
	*no = 0;
	*count = 0;
	*tensors = 0;
	const struct gguf_kv *c = gguf_find(g, "split.count");
	if (!c)
		return 0;
	uint64_t v;
	if (gguf_kv_u64(c, &v) || v > SPLIT_MAX)
		return errorf(err, "split.count is not a shard count");
	if (v <= 1)
		return 0;
	*count = (unsigned)v;
	if (gguf_kv_u64(gguf_find(g, "split.no"), &v) || v >= *count)
		return errorf(err, "split.no is missing or not below split.count %u", *count);
	*no = (unsigned)v;
	const struct gguf_kv *t = gguf_find(g, "split.tensors.count");
	if (t && gguf_kv_u64(t, tensors))
		return errorf(err, "split.tensors.count is not a count");
	return 0;
}

struct gguf *split_merge(struct gguf *const *shards, const char *const *names, unsigned n, char **err)
{
	unsigned no, count;
	uint64_t want, dummy;
	if (split_keys(shards[0], &no, &count, &want, err))
		return NULL;
	if (!gguf_find(shards[0], "split.tensors.count")) {
		errorf(err, "'%s': split.tensors.count is missing", names[0]);
		return NULL;
	}
	uint64_t total = 0;
	for (unsigned i = 0; i < n; i++) {
		char *e = NULL;
		if (split_keys(shards[i], &no, &count, &dummy, &e)) {
			errorf(err, "'%s': %s (a foreign shard)", names[i], e);
			free(e);
			return NULL;
		}
		if (count == 0) {
			errorf(err, "'%s' has no split keys: not shard %u of %u (a foreign shard)", names[i], i + 1, n);
			return NULL;
		}
		if (count != n || no != i) {
			errorf(err, "'%s' says it is shard %u of %u, not shard %u of %u (a foreign shard)", names[i],
			       no + 1, count, i + 1, n);
			return NULL;
		}
		total += shards[i]->n_tensors;
	}
	if (total != want) {
		errorf(err,
		       "the %u shards hold %llu tensors, split.tensors.count says %llu (a missing or foreign shard)", n,
		       (unsigned long long)total, (unsigned long long)want);
		return NULL;
	}
	const struct gguf *g0 = shards[0];
	struct gguf *g = xcalloc(1, sizeof(*g));
	g->version = g0->version;
	g->alignment = g0->alignment;
	g->header_bytes = g0->header_bytes;
	g->data_offset = g0->data_offset;
	g->n_kv = g0->n_kv;
	g->kv = xcalloc((size_t)g->n_kv, sizeof(*g->kv));
	for (uint64_t i = 0; i < g->n_kv; i++) {
		g->kv[i] = g0->kv[i];
		g->kv[i].key = xstrdup(g0->kv[i].key);
	}
	g->n_tensors = total;
	g->tensors = xcalloc((size_t)total, sizeof(*g->tensors));
	uint64_t at = 0;
	for (unsigned s = 0; s < n; s++) {
		g->file_size += shards[s]->file_size;
		for (uint64_t i = 0; i < shards[s]->n_tensors; i++) {
			struct gguf_tensor *t = &g->tensors[at++];
			*t = shards[s]->tensors[i];
			t->name = xstrdup(shards[s]->tensors[i].name);
			t->shard = s;
		}
	}
	/* a tensor in two shards would be loaded twice; the engine refuses */
	char *why = NULL;
	if (gguf_index_tensors(g, &why)) {
		/* "duplicate tensor 'NAME'": the name, said the split's way */
		const char *q = strchr(why, '\'');
		errorf(err, "tensor %s is in two shards (a foreign shard)", q ? q : why);
		free(why);
		gguf_free(g);
		return NULL;
	}
	return g;
}

/* --- writing ----------------------------------------------------------- */

static void put_le(struct sb *b, uint64_t v, unsigned n)
{
	char buf[8];
	for (unsigned i = 0; i < n; i++)
		buf[i] = (char)(v >> (8 * i));
	sb_add(b, buf, n);
}

static const unsigned elem_size[GGUF_NTYPES] = {1, 1, 2, 2, 4, 4, 4, 1, 0, 0, 8, 8, 8};

/* Append kv as it was in the file: key, type, value bytes. */
static void copy_kv(struct gguf_writer *w, const struct gguf_kv *kv)
{
	size_t kn = strlen(kv->key);
	put_le(&w->kv, kn, 8);
	sb_add(&w->kv, kv->key, kn);
	put_le(&w->kv, kv->type, 4);
	if (kv->type == GGUF_STRING) {
		put_le(&w->kv, kv->v.s.n, 8);
		sb_add(&w->kv, kv->v.s.p, (size_t)kv->v.s.n);
	} else if (kv->type == GGUF_ARRAY) {
		put_le(&w->kv, kv->arr_type, 4);
		put_le(&w->kv, kv->arr_n, 8);
		size_t bytes;
		if (kv->arr_type == GGUF_STRING) {
			uint64_t idx = 0;
			const uint8_t *pos = NULL;
			struct gguf_str s;
			while (gguf_arr_next_str(kv, &idx, &pos, &s) == 0)
				;
			bytes = idx ? (size_t)(pos - kv->arr) : 0;
		} else {
			bytes = (size_t)kv->arr_n * elem_size[kv->arr_type];
		}
		if (bytes)
			sb_add(&w->kv, (const char *)kv->arr, bytes);
	} else if (kv->type == GGUF_F32) {
		float f = (float)kv->v.f;
		uint32_t u;
		memcpy(&u, &f, 4);
		put_le(&w->kv, u, 4);
	} else if (kv->type == GGUF_F64) {
		uint64_t u;
		memcpy(&u, &kv->v.f, 8);
		put_le(&w->kv, u, 8);
	} else {
		put_le(&w->kv, kv->v.u, elem_size[kv->type]);
	}
	w->n_kv++;
}

static int is_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

/* Copy [from, from+n) of src into dst at `to`, leaving zero blocks as holes. */
static int copy_sparse(const uint8_t *src, uint64_t from, uint64_t n, int fd, uint64_t to, const char *out, char **err)
{
	const size_t blk = 1u << 16;
	for (uint64_t o = 0; o < n; o += blk) {
		size_t len = n - o < blk ? (size_t)(n - o) : blk;
		if (is_zero(src + from + o, len))
			continue;
		if (pwrite(fd, src + from + o, len, (off_t)(to + o)) != (ssize_t)len)
			return errorf(err, "cannot write '%s': %s", out, strerror(errno));
	}
	return 0;
}

int split_write(const char *path, unsigned n, const char *out, char **err)
{
	size_t plen;
	unsigned k0, n0;
	if (split_name_parse(out, &plen, &k0, &n0) || n < 2 || n > SPLIT_MAX)
		return errorf(err, "'%s': a split needs 2..%d shards and an output named NAME-00001-of-0000N.gguf", out,
			      SPLIT_MAX);
	struct gguf_file *f = gguf_open(path, NULL, err);
	if (!f)
		return -1;
	const struct gguf *g = f->g;
	if (g->n_tensors < n) {
		gguf_close(f);
		return errorf(err, "'%s' has %llu tensors: too few for %u shards", path,
			      (unsigned long long)g->n_tensors, n);
	}
	int rc = 0;
	uint64_t per = (g->n_tensors + n - 1) / n;
	for (unsigned s = 0; s < n && rc == 0; s++) {
		uint64_t lo = s * per, hi = lo + per < g->n_tensors ? lo + per : g->n_tensors;
		struct gguf_writer w;
		gw_init(&w);
		w.alignment = g->alignment;
		if (s == 0)
			for (uint64_t i = 0; i < g->n_kv; i++)
				if (strncmp(g->kv[i].key, "split.", 6) != 0)
					copy_kv(&w, &g->kv[i]);
		{
			/* split.no u16, split.count u16, split.tensors.count i32, as gguf-split writes them */
			static const char *const names[] = {"split.no", "split.count"};
			uint64_t vals[] = {s, n};
			for (int i = 0; i < 2; i++) {
				put_le(&w.kv, strlen(names[i]), 8);
				sb_adds(&w.kv, names[i]);
				put_le(&w.kv, GGUF_U16, 4);
				put_le(&w.kv, vals[i], 2);
				w.n_kv++;
			}
			gw_i32(&w, "split.tensors.count", (int32_t)g->n_tensors);
		}
		for (uint64_t i = lo; i < hi; i++) {
			const struct gguf_tensor *t = &g->tensors[i];
			gw_tensor(&w, t->name, t->n_dims, t->ne, t->type, t->bytes);
		}
		char *name = split_shard_name(out, s + 1, n);
		uint64_t hlen;
		free(gw_header(&w, &hlen));
		rc = gw_write(&w, name, err);
		if (rc == 0) {
			int fd = open(name, O_WRONLY | O_CLOEXEC);
			if (fd < 0) {
				rc = errorf(err, "cannot open '%s': %s", name, strerror(errno));
			} else {
				uint64_t off = 0;
				for (uint64_t i = lo; i < hi && rc == 0; i++) {
					const struct gguf_tensor *t = &g->tensors[i];
					rc = copy_sparse(f->map, g->data_offset + t->offset, t->bytes, fd, hlen + off,
							 name, err);
					off += (t->bytes + w.alignment - 1) / w.alignment * w.alignment;
				}
				if (close(fd) != 0 && rc == 0)
					rc = errorf(err, "cannot write '%s': %s", name, strerror(errno));
			}
		}
		free(name);
		gw_release(&w);
	}
	gguf_close(f);
	return rc;
}
