#include <stdlib.h>
#include <string.h>

#include "payload/gguf.h"
#include "payload/gguf_write.h"
#include "tap.h"

/* A small but complete header: every value type, a string array, three
 * tensors (one of custom type 142 between two stock ones). */
static char *sample(uint64_t *len, uint64_t *file_size)
{
	struct gguf_writer w;
	gw_init(&w);
	gw_str(&w, "general.architecture", "llama");
	gw_u32(&w, "llama.block_count", 2);
	gw_i32(&w, "i32", -5);
	gw_u64(&w, "u64", 1ull << 40);
	gw_f32(&w, "f32", 0.5f);
	gw_bool(&w, "flag", 1);
	gw_arr_begin(&w, "tokenizer.ggml.tokens", GGUF_STRING, 3);
	gw_arr_str(&w, "a", 1);
	gw_arr_str(&w, "bc", 2);
	gw_arr_str(&w, "", 0);
	gw_arr_begin(&w, "arr", GGUF_I32, 2);
	gw_arr_i32(&w, 7);
	gw_arr_i32(&w, -1);
	uint64_t ne[2] = {64, 4};
	gw_tensor(&w, "a.weight", 2, ne, 1, 64 * 4 * 2);       /* f16: 512 B */
	gw_tensor(&w, "b.weight", 2, ne, 142, 100);	       /* custom: 100 B, padded to 128 */
	gw_tensor(&w, "c.weight", 2, ne, 8, 64 * 4 / 32 * 34); /* q8_0: 272 B */
	char *h = gw_header(&w, len);
	*file_size = *len + w.data_size;
	gw_release(&w);
	return h;
}

static struct gguf *parse(const char *buf, uint64_t len, uint64_t fsize, char **err)
{
	return gguf_parse((const uint8_t *)buf, (size_t)len, fsize, err);
}

static void put64(char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (char)(v >> (8 * i));
}

static int err_has(const char *err, const char *needle)
{
	return err && strstr(err, needle) != NULL;
}

void test_gguf(void)
{
	uint64_t len, fsize;
	char *h = sample(&len, &fsize);
	char *err = NULL;
	struct gguf *g = parse(h, len, fsize, &err);
	ok(g != NULL, "sample header parses (%s)", err ? err : "ok");
	if (!g)
		return;
	ok(g->version == 3 && g->n_kv == 8 && g->n_tensors == 3, "counts read");
	uint64_t u;
	double d;
	int b;
	ok(gguf_kv_u64(gguf_find(g, "llama.block_count"), &u) == 0 && u == 2, "u32 value");
	ok(gguf_kv_u64(gguf_find(g, "i32"), &u) == -1, "negative i32 refused as unsigned");
	ok(gguf_kv_f64(gguf_find(g, "i32"), &d) == 0 && d == -5, "i32 as f64");
	ok(gguf_kv_u64(gguf_find(g, "u64"), &u) == 0 && u == 1ull << 40, "u64 value");
	ok(gguf_kv_f64(gguf_find(g, "f32"), &d) == 0 && d == 0.5, "f32 value");
	ok(gguf_kv_bool(gguf_find(g, "flag"), &b) == 0 && b == 1, "bool value");
	ok(gguf_arr_u64(gguf_find(g, "arr"), 0, &u) == 0 && u == 7, "array element 0");
	ok(gguf_arr_u64(gguf_find(g, "arr"), 1, &u) == -1, "negative array element refused as unsigned");
	ok(gguf_arr_u64(gguf_find(g, "arr"), 2, &u) == -1, "array index out of range refused");
	const struct gguf_kv *tok = gguf_find(g, "tokenizer.ggml.tokens");
	uint64_t idx = 0;
	const uint8_t *pos = NULL;
	struct gguf_str s;
	int n = 0, good = 1;
	static const char *want[] = {"a", "bc", ""};
	while (gguf_arr_next_str(tok, &idx, &pos, &s) == 0) {
		good &= s.n == strlen(want[n]) && memcmp(s.p, want[n], s.n) == 0;
		n++;
	}
	ok(n == 3 && good, "string array iterates");
	const struct gguf_tensor *t = gguf_tensor_find(g, "b.weight");
	ok(t && t->custom && t->type == 142 && t->bytes == 128,
	   "custom type sized by the gap to the next tensor (%llu)", t ? (unsigned long long)t->bytes : 0);
	t = gguf_tensor_find(g, "c.weight");
	ok(t && !t->custom && t->bytes == 272, "q8_0 sized by its blocks");
	gguf_free(g);

	/* Last tensor custom: sized to the end of the file. */
	struct gguf_writer w;
	gw_init(&w);
	gw_str(&w, "general.architecture", "x");
	uint64_t ne[1] = {128};
	gw_tensor(&w, "x.weight", 1, ne, 142, 34);
	uint64_t hl;
	char *h2 = gw_header(&w, &hl);
	g = parse(h2, hl, hl + 40, &err);
	ok(g && g->tensors[0].bytes == 40, "last custom tensor sized to the end of the file");
	gguf_free(g);
	g = parse(h2, hl, hl, &err);
	ok(g && g->tensors[0].bytes == 0, "custom tensor with no data is 0 bytes, not an error");
	gguf_free(g);
	free(h2);
	gw_release(&w);

	/* Every truncation of the header fails cleanly with an offset. */
	int all = 1, named = 1;
	for (uint64_t cut = 0; cut < len; cut++) {
		free(err);
		err = NULL;
		struct gguf *gt = parse(h, cut, cut, &err);
		if (gt) {
			gguf_free(gt);
			all = 0;
		}
		named &= err != NULL && (err_has(err, "offset") || err_has(err, "tensor"));
	}
	ok(all, "no truncation of the header parses");
	ok(named, "every truncation error names an offset or a tensor");

	/* Hostile counts. */
	char *c = malloc(len);
	memcpy(c, h, len);
	put64(c + 16, UINT64_MAX); /* n_kv */
	free(err);
	err = NULL;
	{
		int c_ = !parse(c, len, fsize, &err) && err_has(err, "key/value count");
		ok(c_, "huge kv count refused: %s", tap_s(err));
	}
	memcpy(c, h, len);
	put64(c + 8, 1ull << 40); /* n_tensors */
	{
		int c_ = !parse(c, len, fsize, &err) && err_has(err, "tensor count");
		ok(c_, "huge tensor count refused: %s", tap_s(err));
	}
	memcpy(c, h, len);
	put64(c + 24, 1ull << 62); /* first key's length */
	{
		int c_ = !parse(c, len, fsize, &err) && err_has(err, "exceeds");
		ok(c_, "huge key length refused: %s", tap_s(err));
	}
	memcpy(c, h, len);
	memcpy(c, "GGUG", 4);
	{
		int c_ = !parse(c, len, fsize, &err) && err_has(err, "magic");
		ok(c_, "bad magic refused: %s", tap_s(err));
	}
	memcpy(c, h, len);
	c[4] = 1;
	{
		int c_ = !parse(c, len, fsize, &err) && err_has(err, "version 1");
		ok(c_, "version 1 refused: %s", tap_s(err));
	}
	c[4] = 2;
	ok((g = parse(c, len, fsize, &err)) != NULL, "version 2 accepted");
	gguf_free(g);
	{
		int c_ = !parse(h, len, len + 100, &err) && err_has(err, "past the end");
		ok(c_, "data past the end of file refused: %s", tap_s(err));
	}

	/* Every single-byte corruption parses or fails cleanly (ASan judges). */
	int survived = 1;
	for (uint64_t i = 0; i < len; i++) {
		memcpy(c, h, len);
		c[i] ^= (char)0xA5;
		free(err);
		err = NULL;
		struct gguf *gc = parse(c, len, fsize, &err);
		survived &= gc != NULL || (err != NULL && *err != '\0');
		gguf_free(gc);
	}
	ok(survived, "every byte flip of the header parses or says why");
	free(c);

	/* Duplicates, dims and alignment. */
	gw_init(&w);
	gw_u32(&w, "k", 1);
	gw_u32(&w, "k", 2);
	h2 = gw_header(&w, &hl);
	{
		int c_ = !parse(h2, hl, hl, &err) && err_has(err, "duplicate key 'k'");
		ok(c_, "duplicate key refused: %s", tap_s(err));
	}
	free(h2);
	gw_release(&w);

	gw_init(&w);
	gw_tensor(&w, "t", 1, ne, 0, 512);
	gw_tensor(&w, "t", 1, ne, 0, 512);
	h2 = gw_header(&w, &hl);
	{
		int c_ = !parse(h2, hl, hl + 1024, &err) && err_has(err, "duplicate tensor 't'");
		ok(c_, "duplicate tensor refused: %s", tap_s(err));
	}
	free(h2);
	gw_release(&w);

	gw_init(&w);
	uint64_t ne5[5] = {1, 1, 1, 1, 1};
	gw_tensor(&w, "t5", 5, ne5, 0, 4);
	h2 = gw_header(&w, &hl);
	{
		int c_ = !parse(h2, hl, hl + 64, &err) && err_has(err, "n_dims 5");
		ok(c_, "5 dimensions refused: %s", tap_s(err));
	}
	free(h2);
	gw_release(&w);

	gw_init(&w);
	uint64_t big[2] = {1ull << 62, 1ull << 62};
	gw_tensor(&w, "big", 2, big, 0, 4);
	h2 = gw_header(&w, &hl);
	{
		int c_ = !parse(h2, hl, hl + 64, &err) && err_has(err, "overflows");
		ok(c_, "element overflow refused: %s", tap_s(err));
	}
	free(h2);
	gw_release(&w);

	gw_init(&w);
	gw_u32(&w, "general.alignment", 24);
	h2 = gw_header(&w, &hl);
	{
		int c_ = !parse(h2, hl, hl, &err) && err_has(err, "power of two");
		ok(c_, "alignment 24 refused: %s", tap_s(err));
	}
	free(h2);
	gw_release(&w);

	gw_init(&w);
	uint64_t odd[1] = {33};
	gw_tensor(&w, "odd", 1, odd, 8, 34);
	h2 = gw_header(&w, &hl);
	{
		int c_ = !parse(h2, hl, hl + 64, &err) && err_has(err, "not a multiple of block size (32)");
		ok(c_, "q8_0 row of 33 refused: %s", tap_s(err));
	}
	free(h2);
	gw_release(&w);

	/* The engine reads tensor data back to back in the order of the infos
	 * (ggml/src/gguf.cpp: "has offset N, expected M"): a gap is refused
	 * even when nothing overlaps. */
	gw_init(&w);
	uint64_t ne8[1] = {8};
	gw_tensor(&w, "a", 1, ne8, 0, 32);
	w.data_size += 32; /* a gap of one alignment unit */
	gw_tensor(&w, "b", 1, ne8, 0, 32);
	h2 = gw_header(&w, &hl);
	{
		int c_ = !parse(h2, hl, hl + 128, &err) && err_has(err, "tensor 'b' has data offset 64, expected 32");
		ok(c_, "a gap between tensors refused: %s", tap_s(err));
	}
	free(h2);
	gw_release(&w);

	free(err);
	free(h);
}
