/* fetch_pin_write: the pins written into the endpoint file, in place. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../judge/runtime.h"
#include "fetch.h"

struct line {
	const char *p;
	size_t n;     /* the physical lines of one logical line, newline included */
	size_t key_n; /* the key's length when the line is KEY=..., else 0 */
};

/* Cut text into logical lines (a trailing backslash continues a line, as
 * the endpoint parser reads it) and note each line's key. */
static struct line *cut(const char *text, size_t len, size_t *count)
{
	struct line *v = NULL;
	size_t n = 0;
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *q = p;
		for (;;) {
			const char *nl = memchr(q, '\n', (size_t)(end - q));
			const char *le = nl ? nl : end;
			const char *t = le;
			if (t > q && t[-1] == '\r')
				t--;
			q = nl ? nl + 1 : end;
			if (!(t > p && t[-1] == '\\') || q >= end)
				break;
		}
		v = xreallocarray(v, n + 1, sizeof(*v));
		struct line *l = &v[n++];
		l->p = p;
		l->n = (size_t)(q - p);
		l->key_n = 0;
		const char *s = p;
		while (s < q && (*s == ' ' || *s == '\t'))
			s++;
		const char *k = s;
		while (s < q && ((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') || *s == '_' ||
				 (s > k && *s >= '0' && *s <= '9')))
			s++;
		size_t kn = (size_t)(s - k);
		while (s < q && (*s == ' ' || *s == '\t'))
			s++;
		if (kn && s < q && *s == '=') {
			l->key_n = kn;
			l->p = p;
		}
		p = q;
	}
	*count = n;
	return v;
}

static int line_is(const struct line *l, const char *key)
{
	if (!l->key_n)
		return 0;
	const char *s = l->p;
	while (*s == ' ' || *s == '\t')
		s++;
	return strlen(key) == l->key_n && memcmp(s, key, l->key_n) == 0;
}

char *fetch_pin_edit(const char *text, size_t len, const char *const *keys, const char *const *values,
		     const char *const *anchors, size_t n)
{
	size_t nl = 0;
	struct line *lines = cut(text, len, &nl);
	/* where each key goes: replace line i, or insert after line i */
	int *done = xcalloc(n ? n : 1, sizeof(*done));
	struct sb out = {0};
	for (size_t i = 0; i < nl; i++) {
		int replaced = 0;
		for (size_t k = 0; k < n && !replaced; k++) {
			if (!done[k] && line_is(&lines[i], keys[k])) {
				sb_addf(&out, "%s=%s\n", keys[k], values[k]);
				done[k] = 1;
				replaced = 1;
			}
		}
		if (!replaced) {
			sb_add(&out, lines[i].p, lines[i].n);
			if (lines[i].n && lines[i].p[lines[i].n - 1] != '\n')
				sb_addc(&out, '\n');
		}
		/* keys not in the file go after their anchor's line (or after
		 * a key just inserted that is their anchor), unless a later
		 * line holds them */
		const char *after = NULL;
		for (size_t k = 0; k < n; k++) {
			if (done[k] || !anchors[k])
				continue;
			if (!line_is(&lines[i], anchors[k]) && !(after && strcmp(after, anchors[k]) == 0))
				continue;
			int later = 0;
			for (size_t j = i + 1; j < nl && !later; j++)
				later = line_is(&lines[j], keys[k]);
			if (!later) {
				sb_addf(&out, "%s=%s\n", keys[k], values[k]);
				done[k] = 1;
				after = keys[k];
				k = (size_t)-1; /* a later key may hang off this one */
			}
		}
	}
	for (size_t k = 0; k < n; k++)
		if (!done[k])
			sb_addf(&out, "%s=%s\n", keys[k], values[k]);
	free(done);
	free(lines);
	if (!out.s)
		sb_adds(&out, "");
	return sb_detach(&out);
}

#define PIN_MAX_FILE (1 << 20)

int fetch_pin_write(const char *path, const char *const *keys, const char *const *values, const char *const *anchors,
		    size_t n, char **err)
{
	int fd = open_regular(path, err);
	if (fd < 0)
		return -1;
	struct stat st;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_size > PIN_MAX_FILE) {
		close(fd);
		return errorf(err, "'%s' is not an endpoint file", path);
	}
	char *buf = xmalloc((size_t)st.st_size + 1);
	size_t got = 0;
	while (got < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		got += (size_t)r;
	}
	close(fd);
	char *text = fetch_pin_edit(buf, got, keys, values, anchors, n);
	free(buf);
	struct sb tmp = {0};
	sb_addf(&tmp, "%s.pin.%ld.tmp", path, (long)getpid());
	int rc = 0;
	int out = open(tmp.s, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, st.st_mode & 07777);
	if (out < 0) {
		rc = errorf(err, "cannot create '%s': %s", tmp.s, strerror(errno));
		goto done;
	}
	size_t len = strlen(text), off = 0;
	while (off < len) {
		ssize_t w = write(out, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			rc = errorf(err, "cannot write '%s': %s", tmp.s, strerror(errno));
			break;
		}
		off += (size_t)w;
	}
	if (rc == 0 && fsync(out) != 0)
		rc = errorf(err, "cannot fsync '%s': %s", tmp.s, strerror(errno));
	if (close(out) != 0 && rc == 0)
		rc = errorf(err, "cannot write '%s': %s", tmp.s, strerror(errno));
	if (rc == 0 && rename(tmp.s, path) != 0)
		rc = errorf(err, "cannot replace '%s': %s", path, strerror(errno));
	if (rc) {
		unlink(tmp.s);
		goto done;
	}
	fsync_parent(path);
done:
	sb_release(&tmp);
	free(text);
	return rc;
}

/* The pin lines a kind lacks: one value per shard, comma-separated.
 * Returns 0 when every shard was hashed. */
static int pin_values(const struct fetch_list *l, const struct fetch_result *res, const char *kind, struct sb *bytes,
		      struct sb *sha, int *need_bytes, int *need_sha)
{
	*need_bytes = *need_sha = 0;
	int all = 1, any = 0;
	for (size_t i = 0; i < l->n; i++) {
		if (strcmp(l->v[i].kind, kind) != 0)
			continue;
		any = 1;
		*need_bytes |= !l->v[i].has_bytes;
		*need_sha |= !l->v[i].has_sha;
		if (!res[i].sha[0] || (res[i].status != FETCH_UNPINNED && res[i].status != FETCH_DOWNLOADED &&
				       res[i].status != FETCH_VERIFIED))
			all = 0;
		sb_addf(bytes, "%s%llu", bytes->len ? "," : "", (unsigned long long)res[i].bytes);
		sb_addf(sha, "%s%s", sha->len ? "," : "", res[i].sha);
	}
	return any && all ? 0 : -1;
}

void fetch_pins_missing(const struct endpoint *ep, const struct fetch_list *l, const struct fetch_result *r,
			struct fetch_pins *p)
{
	static const char *const kinds[] = {"MODEL", "MMPROJ", "LORA", "SPEC_DRAFT_MODEL"};
	memset(p, 0, sizeof(*p));
	size_t nk = 0;
	for (size_t k = 0; k < ARRAY_SIZE(kinds); k++) {
		struct sb b = {0}, s = {0};
		int nb, ns;
		if (pin_values(l, r, kinds[k], &b, &s, &nb, &ns) == 0 && (nb || ns)) {
			/* new lines go after the kind's URL (or FILE) line */
			char anchor[32];
			snprintf(anchor, sizeof(anchor), "%s_URL", kinds[k]);
			/* the drafter has no URL key: its FILE line */
			if (!endpoint_entry(ep, anchor) || endpoint_entry(ep, anchor)->line <= 0)
				snprintf(anchor, sizeof(anchor), "%s_URL_FILE", kinds[k]);
			if (!endpoint_entry(ep, anchor) || endpoint_entry(ep, anchor)->line <= 0)
				snprintf(anchor, sizeof(anchor), "%s_FILE", kinds[k]);
			if (nb) {
				snprintf(p->key[nk], sizeof(p->key[nk]), "%s_BYTES", kinds[k]);
				snprintf(p->anchor[nk], sizeof(p->anchor[nk]), "%s", anchor);
				p->value[nk] = b;
				b = (struct sb){0};
				nk++;
			}
			if (ns) {
				snprintf(p->key[nk], sizeof(p->key[nk]), "%s_SHA256", kinds[k]);
				snprintf(p->anchor[nk], sizeof(p->anchor[nk]), "%s_BYTES", kinds[k]);
				if (!nb && endpoint_entry(ep, p->anchor[nk])->line <= 0)
					snprintf(p->anchor[nk], sizeof(p->anchor[nk]), "%s", anchor);
				p->value[nk] = s;
				s = (struct sb){0};
				nk++;
			}
		}
		sb_release(&b);
		sb_release(&s);
	}
	/* the runtime is the era's second lock (law R01): its hash as well */
	const char *rpin = endpoint_value(ep, "RUNTIME_SHA256");
	char *rt = !rpin || !*rpin ? runtime_resolve(ep) : NULL;
	struct stat rst;
	if (rt && stat(rt, &rst) == 0 && S_ISREG(rst.st_mode)) {
		char hex[65], *rerr = NULL;
		if (runtime_sha256(rt, hex, NULL, &rerr) == 0) {
			snprintf(p->key[nk], sizeof(p->key[nk]), "RUNTIME_SHA256");
			snprintf(p->anchor[nk], sizeof(p->anchor[nk]), "RUNTIME");
			sb_adds(&p->value[nk], hex);
			nk++;
		}
		free(rerr);
	}
	free(rt);
	for (size_t i = 0; i < nk; i++) {
		p->keys[i] = p->key[i];
		p->values[i] = p->value[i].s;
		p->anchors[i] = p->anchor[i];
	}
	p->n = nk;
}

void fetch_pins_release(struct fetch_pins *p)
{
	for (size_t i = 0; i < p->n; i++)
		sb_release(&p->value[i]);
	p->n = 0;
}
