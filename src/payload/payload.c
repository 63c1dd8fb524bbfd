#include "payload.h"

#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "source.h"
#include "split.h"

/* Why a bound exists: each growth is a request; a header that keeps
 * asking for more after this many is lying about its size. */
#define MAX_GROWTHS 12

static void release_source(void *s)
{
	source_free(s);
}

static struct gguf_file *open_one(const char *where, const struct remote_opts *o, struct remote_stats *st, char **err)
{
	struct source *src = source_open(where, o, err);
	if (!src)
		return NULL;
	uint64_t want = PAYLOAD_FIRST_WINDOW;
	struct gguf *g = NULL;
	for (int i = 0;; i++) {
		uint64_t have = 0, need = 0;
		char *e = NULL;
		const uint8_t *p = source_prefix(src, want, &have, &e);
		if (p)
			g = gguf_parse_window(p, (size_t)have, source_size(src), &need, &e);
		if (g)
			break;
		if (!p || need <= have || i == MAX_GROWTHS) {
			if (p)
				errorf(err, "'%s': %s", where, e);
			else
				errorf(err, "%s", e);
			free(e);
			goto fail;
		}
		free(e);
		want = need + PAYLOAD_MARGIN;
	}
	if (st) {
		struct remote_stats s = source_stats(src);
		st->requests += s.requests;
		st->bytes += s.bytes;
	}
	struct gguf_file *f = xcalloc(1, sizeof(*f));
	f->g = g;
	f->path = xstrdup(where);
	f->owner = src;
	f->release = release_source;
	return f;
fail:
	if (st) {
		struct remote_stats s = source_stats(src);
		st->requests += s.requests;
		st->bytes += s.bytes;
	}
	source_free(src);
	return NULL;
}

struct gguf_file *payload_open(const char *where, const struct remote_opts *o, struct remote_stats *st, char **err)
{
	struct gguf_file *first = open_one(where, o, st, err);
	if (!first)
		return NULL;
	unsigned no, count;
	uint64_t tensors;
	char *e = NULL;
	if (split_keys(first->g, &no, &count, &tensors, &e)) {
		errorf(err, "'%s': %s", where, e);
		free(e);
		gguf_close(first);
		return NULL;
	}
	if (count == 0)
		return first;
	size_t plen;
	unsigned kn, nn;
	if (no != 0) {
		errorf(err, "'%s' is shard %u of %u: give the first shard (the engine loads a split payload from it)",
		       where, no + 1, count);
		gguf_close(first);
		return NULL;
	}
	if (split_name_parse(where, &plen, &kn, &nn) || kn != 1 || nn != count) {
		errorf(err,
		       "'%s' is the first of %u shards but is not named NAME-00001-of-%05u.gguf (the engine finds "
		       "the other shards by that name)",
		       where, count, count);
		gguf_close(first);
		return NULL;
	}
	struct gguf_file *f = xcalloc(1, sizeof(*f));
	f->path = xstrdup(where);
	f->shards = xcalloc(count, sizeof(*f->shards));
	f->shards[0] = first;
	f->n_shards = 1;
	struct gguf **gs = xcalloc(count, sizeof(*gs));
	const char **names = xcalloc(count, sizeof(*names));
	gs[0] = first->g;
	names[0] = first->path;
	for (unsigned k = 1; k < count; k++) {
		char *name = split_shard_name(where, k + 1, count);
		struct gguf_file *s = open_one(name, o, st, &e);
		if (!s) {
			errorf(err, "shard %u of %u is missing or unreadable: %s", k + 1, count, e);
			free(e);
			free(name);
			goto fail;
		}
		free(name);
		f->shards[f->n_shards++] = s;
		gs[k] = s->g;
		names[k] = s->path;
	}
	f->g = split_merge(gs, names, count, err);
	if (!f->g)
		goto fail;
	free(gs);
	free(names);
	return f;
fail:
	free(gs);
	free(names);
	gguf_close(f);
	return NULL;
}
