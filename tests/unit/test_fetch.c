/* Split names, the growing-window header parse, origins, the pin-file
 * rewrite and an endpoint's fetch list (pins per shard). */
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "fetch/fetch.h"
#include "payload/gguf.h"
#include "payload/gguf_write.h"
#include "payload/remote.h"
#include "payload/split.h"
#include "tap.h"

static void names(void)
{
	size_t pl;
	unsigned k, n;
	ok(split_name_parse("m-00001-of-00003.gguf", &pl, &k, &n) == 0 && pl == 1 && k == 1 && n == 3,
	   "split name: first of three");
	ok(split_name_parse("/d/model-00003-of-00003.gguf", &pl, &k, &n) == 0 && k == 3 && pl == 8,
	   "split name: a path, the last shard");
	ok(split_name_parse("m-00004-of-00003.gguf", &pl, &k, &n) == -1, "split name: K > N refused");
	ok(split_name_parse("m-00000-of-00003.gguf", &pl, &k, &n) == -1, "split name: K = 0 refused");
	ok(split_name_parse("m-0001-of-00003.gguf", &pl, &k, &n) == -1, "split name: four digits refused");
	ok(split_name_parse("-00001-of-00003.gguf", &pl, &k, &n) == -1, "split name: no prefix refused");
	ok(split_name_parse("d/-00001-of-00003.gguf", &pl, &k, &n) == -1, "split name: a bare directory refused");
	ok(split_name_parse("model.gguf", &pl, &k, &n) == -1, "split name: a plain file is not split");
	ok(split_name_parse("http://h/m-00001-of-00002.gguf?download=1", &pl, &k, &n) == 0 && n == 2,
	   "split name: a URL's query is not part of the name");
	char *s = split_shard_name("http://h/m-00001-of-00002.gguf?x=1#f", 2, 2);
	ok(s && strcmp(s, "http://h/m-00002-of-00002.gguf?x=1#f") == 0, "shard name: URL query kept (%s)", tap_s(s));
	free(s);
	s = split_shard_name("a/b-00002-of-00010.gguf", 10, 10);
	ok(s && strcmp(s, "a/b-00010-of-00010.gguf") == 0, "shard name: from any shard");
	free(s);
	ok(split_shard_name("plain.gguf", 1, 2) == NULL, "shard name: not from a plain name");
}

static void window(void)
{
	struct gguf_writer w;
	gw_init(&w);
	gw_str(&w, "general.architecture", "llama");
	gw_arr_begin(&w, "tokenizer.ggml.tokens", GGUF_STRING, 5000);
	char tok[32];
	for (int i = 0; i < 5000; i++) {
		int n = snprintf(tok, sizeof(tok), "token-%d", i);
		gw_arr_str(&w, tok, (uint64_t)n);
	}
	gw_arr_begin(&w, "tokenizer.ggml.token_type", GGUF_I32, 5000);
	for (int i = 0; i < 5000; i++)
		gw_arr_i32(&w, 1);
	uint64_t ne[2] = {64, 4};
	gw_tensor(&w, "a.weight", 2, ne, 1, 512);
	uint64_t len;
	char *h = gw_header(&w, &len);
	uint64_t fsize = len + w.data_size;
	gw_release(&w);
	const uint8_t *b = (const uint8_t *)h;
	char *err = NULL;
	uint64_t want = 0;
	struct gguf *g = gguf_parse_window(b, (size_t)len, fsize, &want, &err);
	ok(g && want == 0, "window: the whole header parses");
	gguf_free(g);
	int grew = 1, steps = 0;
	uint64_t have = 4096;
	while (steps < 10) {
		free(err);
		err = NULL;
		g = gguf_parse_window(b, (size_t)have, fsize, &want, &err);
		if (g)
			break;
		if (want <= have)
			grew = 0;
		have = want + 1024 > len ? len : want + 1024;
		steps++;
	}
	ok(g && grew && steps <= 3, "window: grown from 4 KiB by the parser's asks in %d steps", steps);
	gguf_free(g);
	free(err);
	err = NULL;
	g = gguf_parse_window(b, 100, 100, &want, &err);
	ok(!g && want == 0, "window: a truncated file (window = file) asks for nothing");
	free(err);
	err = NULL;
	g = gguf_parse_window(b, 2000, fsize, &want, &err);
	ok(!g && want > 2000 && want < len + 4096, "window: a cut string array projects its end (%llu of %llu)",
	   (unsigned long long)want, (unsigned long long)len);
	free(err);
	free(h);
}

static void origins(void)
{
	ok(remote_same_origin("http://a:80/x", "http://A/y"), "origin: default port and host case");
	ok(!remote_same_origin("http://a/x", "http://a:81/x"), "origin: another port is another host");
	ok(!remote_same_origin("http://127.0.0.1/x", "http://127.0.0.2/x"), "origin: another address");
	ok(!remote_same_origin("https://a/x", "http://a/x"), "origin: another scheme");
	char *r = remote_resolve("http://a/b/c.gguf", "/d.gguf");
	ok(r && strcmp(r, "http://a/d.gguf") == 0, "resolve: an absolute path");
	free(r);
	r = remote_resolve("http://a/b/c.gguf", "ftp://x/y");
	ok(r == NULL, "resolve: a non-HTTP Location is refused");
	free(r);
}

static void pinfile(void)
{
	const char *t = "# c\nMODEL_FILE=m.gguf\nMODEL_URL=http://x/m.gguf\nCTX_SIZE=1\n";
	const char *keys[] = {"MODEL_BYTES", "MODEL_SHA256"}, *vals[] = {"5", "ab"},
		   *anchors[] = {"MODEL_URL", "MODEL_BYTES"};
	char *o = fetch_pin_edit(t, strlen(t), keys, vals, anchors, 2);
	ok(strcmp(o,
		  "# c\nMODEL_FILE=m.gguf\nMODEL_URL=http://x/m.gguf\nMODEL_BYTES=5\nMODEL_SHA256=ab\nCTX_SIZE=1\n") ==
	       0,
	   "pin edit: inserted after the URL, in order");
	free(o);
	const char *t2 = "MODEL_SHA256=old\\\n  continued\nX=1";
	o = fetch_pin_edit(t2, strlen(t2), keys + 1, vals + 1, anchors, 1);
	ok(strcmp(o, "MODEL_SHA256=ab\nX=1\n") == 0, "pin edit: a continued line replaced whole");
	free(o);
	o = fetch_pin_edit("", 0, keys, vals, anchors, 2);
	ok(strcmp(o, "MODEL_BYTES=5\nMODEL_SHA256=ab\n") == 0, "pin edit: appended when nothing anchors");
	free(o);
}

static void list(void)
{
	const char *t = "MODEL_FILE=/p/m-00001-of-00003.gguf\nMODEL_URL=http://h/m-00001-of-00003.gguf\n"
			"MODEL_BYTES=1,2,3\nMODEL_SHA256=" /* three pins */
			"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,"
			"BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB,"
			"cccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccccc\nCTX_SIZE=1\n";
	char *err = NULL;
	struct endpoint *ep = endpoint_parse(t, strlen(t), "/e/x.env", &err);
	struct fetch_list l;
	int rc = ep ? fetch_list(ep, &l, &err) : -1;
	ok(rc == 0 && l.n == 3, "fetch list: a split payload is three files (%s)", tap_s(err));
	if (rc == 0 && l.n == 3) {
		ok(strcmp(l.v[2].path, "/p/m-00003-of-00003.gguf") == 0 &&
		       strcmp(l.v[2].url, "http://h/m-00003-of-00003.gguf") == 0,
		   "fetch list: shard 3's path and URL");
		ok(l.v[1].bytes == 2 && l.v[1].sha[0] == 'b', "fetch list: pins in shard order, hex lowercased");
		fetch_list_release(&l);
	}
	endpoint_free(ep);
	free(err);
	err = NULL;
	const char *t2 = "MODEL_FILE=/p/m-00001-of-00003.gguf\nMODEL_BYTES=1,2\nCTX_SIZE=1\n";
	ep = endpoint_parse(t2, strlen(t2), "/e/x.env", &err);
	rc = ep ? fetch_list(ep, &l, &err) : 0;
	ok(rc == -1 && err && strstr(err, "3 shards need 3"), "fetch list: two pins for three shards refused (%s)",
	   tap_s(err));
	endpoint_free(ep);
	free(err);
}

void test_fetch(void)
{
	names();
	window();
	origins();
	pinfile();
	list();
}
