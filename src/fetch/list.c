/* fetch_list: the files an endpoint names, with their URLs and pins. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/url.h"
#include "../payload/split.h"
#include "fetch.h"

/* the pinned files: the payload, projector, adapter and drafter (SPEC_DRAFT_MODEL_FILE) */
static const char *const kinds[] = {"MODEL", "MMPROJ", "LORA", "SPEC_DRAFT_MODEL"};

/* Split a comma-separated pin list into at most max items (blanks around
 * items ignored). Returns the count, or -1 when there are more than max
 * or an item is empty. */
static int pin_items(const char *v, char **items, unsigned max)
{
	unsigned n = 0;
	const char *p = v;
	for (;;) {
		size_t len = strcspn(p, ",");
		const char *a = p, *b = p + len;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (a == b || n == max) {
			for (unsigned i = 0; i < n; i++)
				free(items[i]);
			return -1;
		}
		items[n++] = xstrndup(a, (size_t)(b - a));
		if (!p[len])
			break;
		p += len + 1;
	}
	return (int)n;
}

static int is_hex64(const char *s)
{
	return strlen(s) == 64 && strspn(s, "0123456789abcdefABCDEF") == 64;
}

/* Apply KEY's pins to files[0..n): one per shard, in order. */
static int pins(const struct endpoint *ep, const char *kind, int sha, struct fetch_file *files, unsigned n, char **err)
{
	char key[32];
	snprintf(key, sizeof(key), "%s_%s", kind, sha ? "SHA256" : "BYTES");
	const char *v = endpoint_value(ep, key);
	if (!v || !*v)
		return 0;
	char **items = xcalloc(n, sizeof(*items));
	int got = pin_items(v, items, n);
	int rc = 0;
	if (got != (int)n) {
		char *w = endpoint_where(ep, key);
		if (n == 1)
			rc = errorf(err, "%s: '%s' is not one pin", w, v);
		else
			rc = errorf(err, "%s: %u shards need %u comma-separated pins in shard order, not '%s'", w, n, n,
				    v);
		free(w);
		got = got < 0 ? 0 : got;
	}
	for (unsigned i = 0; i < (unsigned)got && rc == 0; i++) {
		if (sha) {
			if (!is_hex64(items[i])) {
				char *w = endpoint_where(ep, key);
				rc = errorf(err, "%s: '%s' is not 64 hex digits", w, items[i]);
				free(w);
				break;
			}
			for (int j = 0; j < 64; j++)
				files[i].sha[j] =
				    (char)(items[i][j] >= 'A' && items[i][j] <= 'F' ? items[i][j] - 'A' + 'a'
										    : items[i][j]);
			files[i].sha[64] = '\0';
			files[i].has_sha = 1;
		} else {
			if (parse_u64(items[i], &files[i].bytes)) {
				char *w = endpoint_where(ep, key);
				rc = errorf(err, "%s: '%s' is not a whole number of bytes", w, items[i]);
				free(w);
				break;
			}
			files[i].has_bytes = 1;
		}
	}
	for (int i = 0; i < got; i++)
		free(items[i]);
	free(items);
	return rc;
}

int fetch_list(const struct endpoint *ep, struct fetch_list *out, char **err)
{
	memset(out, 0, sizeof(*out));
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		char fkey[32], ukey[32];
		snprintf(fkey, sizeof(fkey), "%s_FILE", kinds[k]);
		snprintf(ukey, sizeof(ukey), "%s_URL", kinds[k]);
		char *path = endpoint_path(ep, fkey);
		if (!path)
			continue;
		char *url = NULL;
		if (endpoint_url(ep, key_by_name(fkey)->id, &url, err)) {
			free(path);
			goto fail;
		}
		size_t plen;
		unsigned no = 1, n = 1;
		if (split_name_parse(path, &plen, &no, &n) == 0 && n > 1) {
			if (no != 1) {
				char *w = endpoint_where(ep, fkey);
				errorf(err,
				       "%s: '%s' is shard %u of %u: name the first shard (the engine loads from it)", w,
				       path, no, n);
				free(w);
				free(path);
				free(url);
				goto fail;
			}
			unsigned uno, un;
			if (url && (split_name_parse(url, &plen, &uno, &un) || uno != 1 || un != n)) {
				char *w = endpoint_where(ep, ukey);
				errorf(err,
				       "%s: %s names shard 1 of %u, so the URL must name it too (…-00001-of-%05u.gguf)",
				       w, fkey, n, n);
				free(w);
				free(path);
				free(url);
				goto fail;
			}
		} else {
			n = 1;
		}
		out->v = xreallocarray(out->v, out->n + n, sizeof(*out->v));
		struct fetch_file *files = &out->v[out->n];
		memset(files, 0, n * sizeof(*files));
		for (unsigned i = 0; i < n; i++) {
			files[i].kind = kinds[k];
			files[i].shard = i + 1;
			files[i].n_shards = n;
			files[i].path = n > 1 ? split_shard_name(path, i + 1, n) : xstrdup(path);
			files[i].url = !url ? NULL : n > 1 ? split_shard_name(url, i + 1, n) : xstrdup(url);
		}
		out->n += n;
		free(path);
		free(url);
		if (pins(ep, kinds[k], 0, files, n, err) || pins(ep, kinds[k], 1, files, n, err))
			goto fail;
	}
	return 0;
fail:
	fetch_list_release(out);
	return -1;
}

void fetch_list_release(struct fetch_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].path);
		free(l->v[i].url);
	}
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
