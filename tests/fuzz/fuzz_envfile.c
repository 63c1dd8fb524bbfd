/* libFuzzer target, differential: envfile_read (systemd 252's
 * EnvironmentFile= reading, src/endpoint/envfile.c) against a second,
 * independent reading written here from the same rules, construct by
 * construct instead of as a state machine. Both must push the same
 * keys and values in the same order. And whenever endpoint_parse accepts
 * a file, what it holds must be exactly the environment systemd would set
 * from it (valid names only, last one wins, no bad UTF-8, nothing after a
 * NUL, no bare CR): law C10. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "endpoint/endpoint.h"
#include "endpoint/envfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct buf {
	char *s;
	size_t n, cap;
};

static void put(struct buf *b, char c)
{
	if (b->n + 2 > b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->s = realloc(b->s, b->cap);
		if (!b->s)
			abort();
	}
	b->s[b->n++] = c;
	b->s[b->n] = '\0';
}

struct pair {
	char *k, *v;
};

struct pairs {
	struct pair *p;
	size_t n;
};

static void emit(struct pairs *out, const char *k, size_t kn, const char *v, size_t vn)
{
	out->p = realloc(out->p, (out->n + 1) * sizeof(*out->p));
	if (!out->p)
		abort();
	out->p[out->n].k = strndup(k, kn);
	out->p[out->n].v = strndup(v ? v : "", vn);
	out->n++;
}

static int brk(char c)
{
	return c == '\n' || c == '\r';
}

/* The mirror. */
static void mirror(const char *s, size_t n, struct pairs *out)
{
	n = strnlen(s, n); /* systemd reads a C string */
	size_t i = 0;
	while (i < n) {
		if (s[i] == ' ' || s[i] == '\t' || brk(s[i])) {
			i++;
			continue;
		}
		if (s[i] == '#' || s[i] == ';') { /* 252: a backslash swallows any next byte */
			for (i++; i < n; i++) {
				if (s[i] == '\\')
					i++;
				else if (brk(s[i]))
					break;
			}
			i++;
			continue;
		}
		size_t ks = i++; /* the first byte is the key's, even '=' */
		while (i < n && s[i] != '=' && !brk(s[i]))
			i++;
		if (i >= n || s[i] != '=') { /* no '=': nothing pushed */
			i++;
			continue;
		}
		size_t ke = i;
		while (ke > ks + 1 && (s[ke - 1] == ' ' || s[ke - 1] == '\t'))
			ke--;
		i++;
		struct buf v = {0};
		int done = 0, chomp = 0;
		size_t keep = 0;
		while (!done) {
			while (i < n && (s[i] == ' ' || s[i] == '\t'))
				i++;
			if (i >= n || brk(s[i])) {
				i++;
				break;
			}
			if (s[i] == '\'') {
				for (i++; i < n && s[i] != '\''; i++)
					put(&v, s[i]);
				i++;
				continue;
			}
			if (s[i] == '"') {
				for (i++; i < n && s[i] != '"'; i++) {
					if (s[i] != '\\') {
						put(&v, s[i]);
						continue;
					}
					if (++i >= n)
						break;
					if (strchr("\"\\`$", s[i])) {
						put(&v, s[i]);
					} else if (s[i] != '\n') {
						put(&v, '\\');
						put(&v, s[i]);
					}
				}
				i++;
				continue;
			}
			/* unquoted to the line's end; trailing blanks go, unless escaped */
			keep = v.n;
			chomp = 1;
			for (;;) {
				if (i >= n || brk(s[i])) {
					i++;
					break;
				}
				if (s[i] == '\\') {
					if (i + 1 >= n) { /* a backslash at the very end: nothing chomped */
						chomp = 0;
						i++;
						break;
					}
					if (!brk(s[i + 1]))
						put(&v, s[i + 1]);
					keep = v.n;
					i += 2;
					continue;
				}
				put(&v, s[i]);
				if (s[i] != ' ' && s[i] != '\t')
					keep = v.n;
				i++;
			}
			done = 1;
		}
		emit(out, s + ks, ke - ks, v.s, chomp ? keep : v.n);
		free(v.s);
	}
}

static int name_ok(const char *k)
{
	if (!*k || (k[0] >= '0' && k[0] <= '9'))
		return 0;
	return strspn(k, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_") == strlen(k);
}

static int utf8_ok(const unsigned char *p)
{
	while (*p) {
		int n = *p < 0x80		   ? 0
			: *p >= 0xc2 && *p <= 0xdf ? 1
			: *p >= 0xe0 && *p <= 0xef ? 2
			: *p >= 0xf0 && *p <= 0xf4 ? 3
						   : -1;
		if (n < 0)
			return 0;
		for (int i = 1; i <= n; i++)
			if ((p[i] & 0xc0) != 0x80)
				return 0;
		if ((p[0] == 0xe0 && p[1] < 0xa0) || (p[0] == 0xed && p[1] > 0x9f) || (p[0] == 0xf0 && p[1] < 0x90) ||
		    (p[0] == 0xf4 && p[1] > 0x8f))
			return 0;
		p += n + 1;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *s = (const char *)data;
	struct pairs m = {0};
	mirror(s, size, &m);
	struct envfile f;
	envfile_read(s, size, &f);
	if (f.n != m.n)
		abort();
	for (size_t i = 0; i < m.n; i++)
		if (strcmp(f.v[i].key, m.p[i].k) != 0 || strcmp(f.v[i].value, m.p[i].v) != 0)
			abort();
	envfile_release(&f);

	char *err = NULL;
	struct endpoint *ep = endpoint_parse(s, size, "/fuzz/e.env", &err);
	if (ep) {
		if (memchr(s, '\0', size))
			abort(); /* systemd stops at a NUL */
		for (size_t i = 0; i + 1 < size; i++)
			if (s[i] == '\r' && s[i + 1] != '\n')
				abort(); /* a bare CR */
		/* systemd's environment: refused whole on bad UTF-8, invalid
		 * names dropped, the last one wins */
		for (size_t i = 0; i < m.n; i++) {
			if (!utf8_ok((const unsigned char *)m.p[i].k) || !utf8_ok((const unsigned char *)m.p[i].v))
				abort();
			if (!name_ok(m.p[i].k))
				abort(); /* zealot accepted a file systemd drops a key of */
			const struct endpoint_entry *e = endpoint_entry(ep, m.p[i].k);
			if (!e || !e->value)
				abort();
			int last = 1;
			for (size_t j = i + 1; j < m.n; j++)
				if (strcmp(m.p[j].k, m.p[i].k) == 0)
					last = 0;
			if (last && strcmp(e->value, m.p[i].v) != 0)
				abort();
		}
		size_t set = 0;
		for (size_t i = 0; i < endpoint_n_keys; i++)
			set += ep->e[i].value != NULL;
		size_t distinct = 0;
		for (size_t i = 0; i < m.n; i++) {
			int seen = 0;
			for (size_t j = 0; j < i; j++)
				seen |= strcmp(m.p[j].k, m.p[i].k) == 0;
			distinct += !seen;
		}
		if (set != distinct)
			abort();
		endpoint_free(ep);
	}
	free(err);
	for (size_t i = 0; i < m.n; i++) {
		free(m.p[i].k);
		free(m.p[i].v);
	}
	free(m.p);
	return 0;
}
