#include "fleet.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ssh and the shell must read each part as a plain name: letters, digits
 * and . _ - (a user name also +), never a leading '-' (an ssh option). */
static int name_ok(const char *s, size_t n, const char *extra)
{
	if (n == 0 || s[0] == '-')
		return 0;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];
		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
		    c == '_' || c == '-')
			continue;
		if (c && strchr(extra, c))
			continue;
		return 0;
	}
	return 1;
}

/* The first byte no destination may hold, for the error. */
static const char *bad_char(const char *s)
{
	for (const char *p = s; *p; p++)
		if (strchr(" \t\n\r'\"`$;&|<>()\\*?[]{}!#~%^,=", *p) || (unsigned char)*p < 0x20 ||
		    (unsigned char)*p >= 0x7f)
			return p;
	return NULL;
}

#define HOST_MAX 253
#define USER_MAX 64

int fleet_parse_host(const char *s, struct fleet_host *h, char **err)
{
	memset(h, 0, sizeof(*h));
	if (!s || !*s)
		return errorf(err, "an empty destination (unset HOST for a local endpoint)");
	if (strlen(s) > HOST_MAX + USER_MAX + 16)
		return errorf(err, "'%.40s...' is too long for an ssh destination", s);
	const char *p = s;
	int url = strncmp(s, "ssh://", 6) == 0;
	if (url)
		p += 6;
	else if (strstr(s, "://"))
		return errorf(err, "'%s': only ssh:// destinations are understood", s);
	/* an IPv6 literal in brackets is the one place ':' and '[]' belong */
	const char *at = strchr(p, '@');
	const char *hs = at ? at + 1 : p;
	const char *he = hs + strlen(hs);
	unsigned port = 0;
	const char *host_b = hs, *host_e = he;
	if (url && *hs == '[') {
		const char *rb = strchr(hs, ']');
		if (!rb)
			return errorf(err, "'%s': an unclosed '[' in the host", s);
		host_b = hs + 1;
		host_e = rb;
		if (host_e == host_b || strspn(host_b, "0123456789abcdefABCDEF:.") < (size_t)(host_e - host_b))
			return errorf(err, "'%s': '[...]' holds an IPv6 address, nothing else", s);
		he = rb + 1;
		if (*he && *he != ':')
			return errorf(err, "'%s': text after ']'", s);
	} else {
		const char *b = bad_char(s);
		if (b)
			return errorf(err, "'%s': '%c' has no place in an ssh destination", s, *b);
	}
	if (url) {
		const char *colon = strchr(host_e == he ? hs : he, ':');
		if (colon) {
			uint64_t v;
			if (host_e == he)
				host_e = colon;
			if (!colon[1] || parse_u64(colon + 1, &v) || v == 0 || v > 65535)
				return errorf(err, "'%s': the port must be 1..65535", s);
			port = (unsigned)v;
		}
		if (strchr(p, '/'))
			return errorf(err, "'%s': a path has no place in an ssh destination", s);
	} else if (strchr(p, ':') || strchr(p, '/')) {
		return errorf(err, "'%s': a port needs the ssh://[user@]host:PORT form", s);
	}
	if (at && (at == p || strchr(at + 1, '@')))
		return errorf(err, "'%s': %s", s, at == p ? "an empty user before '@'" : "more than one '@'");
	if (at && ((size_t)(at - p) > USER_MAX || !name_ok(p, (size_t)(at - p), "+")))
		return errorf(err, "'%s': the user must be letters, digits and . _ - +, not starting with '-'", s);
	size_t hn = (size_t)(host_e - host_b);
	if (hn == 0)
		return errorf(err, "'%s': an empty host", s);
	if (hn > HOST_MAX)
		return errorf(err, "'%s': the host is longer than %d bytes", s, HOST_MAX);
	if (host_b == hs && !name_ok(host_b, hn, ""))
		return errorf(err, "'%s': the host must be letters, digits and . _ -, not starting with '-'", s);
	h->user = at ? xstrndup(p, (size_t)(at - p)) : NULL;
	h->host = xstrndup(host_b, hn);
	h->port = port;
	h->dest = xstrdup(s);
	return 0;
}

void fleet_host_free(struct fleet_host *h)
{
	free(h->user);
	free(h->host);
	free(h->dest);
	memset(h, 0, sizeof(*h));
}

void fleet_shell_quote(struct sb *out, const char *s)
{
	sb_addc(out, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			sb_adds(out, "'\\''");
		else
			sb_addc(out, *p);
	}
	sb_addc(out, '\'');
}

void fleet_one_line(struct sb *out, const char *s)
{
	for (const char *p = s; *p; p++)
		sb_addc(out, (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct fleet_member *)a)->name, ((const struct fleet_member *)b)->name);
}

/* A fleet directory holds at most this many endpoints: enough for any
 * operator, and a wrong directory (a payload store) is refused early. */
#define FLEET_MAX 1024

static int load_member(struct fleet_member *m, const char *path, char **err)
{
	char *why = NULL;
	m->gpu = -1;
	m->ep = endpoint_load(path, &why);
	if (!m->ep) {
		errorf(err, "%s", why);
		free(why);
		return -1;
	}
	m->name = xstrdup(m->ep->name);
	m->path = xstrdup(path);
	const struct endpoint_entry *he = endpoint_entry(m->ep, "HOST");
	if (he && he->value) {
		if (fleet_parse_host(he->value, &m->host, &why)) {
			char *w = endpoint_where(m->ep, "HOST");
			errorf(err, "%s: %s", w, why);
			free(w);
			free(why);
			return -1;
		}
		m->remote = 1;
	}
	const struct endpoint_entry *ge = endpoint_entry(m->ep, "GPU");
	if (ge && ge->value) {
		uint64_t g;
		if (endpoint_uint(m->ep, "GPU", &g, err))
			return -1;
		if (g > 255) {
			char *w = endpoint_where(m->ep, "GPU");
			errorf(err, "%s: card %llu: a card index is 0..255", w, (unsigned long long)g);
			free(w);
			return -1;
		}
		m->gpu = (int)g;
	}
	return 0;
}

int fleet_load(const char *dir, struct fleet *f, char **err)
{
	memset(f, 0, sizeof(*f));
	DIR *d = opendir(dir);
	if (!d)
		return errorf(err, "cannot open the fleet directory '%s': %s", dir, strerror(errno));
	f->dir = xstrdup(dir);
	struct dirent *de;
	size_t cap = 0;
	int rc = 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 4 || strcmp(de->d_name + n - 4, ".env") != 0)
			continue;
		struct sb path = {0};
		sb_addf(&path, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
		struct stat st;
		if (stat(path.s, &st) || !S_ISREG(st.st_mode)) {
			sb_release(&path);
			continue;
		}
		if (f->n == FLEET_MAX) {
			sb_release(&path);
			rc = errorf(err, "'%s' holds more than %d endpoint files", dir, FLEET_MAX);
			break;
		}
		if (f->n == cap) {
			cap = cap ? cap * 2 : 8;
			f->m = xreallocarray(f->m, cap, sizeof(*f->m));
		}
		struct fleet_member *m = &f->m[f->n];
		memset(m, 0, sizeof(*m));
		f->n++;
		if (load_member(m, path.s, err)) {
			sb_release(&path);
			rc = -1;
			break;
		}
		sb_release(&path);
	}
	closedir(d);
	if (!rc && f->n == 0)
		rc = errorf(err, "'%s' holds no endpoint file (*.env)", dir);
	if (rc) {
		fleet_free(f);
		return -1;
	}
	qsort(f->m, f->n, sizeof(*f->m), by_name);
	return 0;
}

void fleet_free(struct fleet *f)
{
	for (size_t i = 0; i < f->n; i++) {
		endpoint_free(f->m[i].ep);
		free(f->m[i].name);
		free(f->m[i].path);
		fleet_host_free(&f->m[i].host);
	}
	free(f->m);
	free(f->dir);
	memset(f, 0, sizeof(*f));
}

char *fleet_host_key(const struct fleet_member *m)
{
	if (!m->remote)
		return xstrdup("localhost");
	struct sb b = {0};
	int v6 = strchr(m->host.host, ':') != NULL;
	if (m->host.port)
		sb_addf(&b, v6 ? "[%s]:%u" : "%s:%u", m->host.host, m->host.port);
	else
		sb_adds(&b, m->host.host);
	return sb_detach(&b);
}

/* Hosts in name order with "localhost" as any other; the host's memory
 * (-1) after its cards. */
static int card_cmp(const struct fleet_card *a, const struct fleet_card *b)
{
	int c = strcmp(a->host, b->host);
	if (c)
		return c;
	unsigned ga = (unsigned)a->gpu, gb = (unsigned)b->gpu; /* -1 sorts last */
	return ga < gb ? -1 : ga > gb;
}

static int card_qsort(const void *a, const void *b)
{
	return card_cmp(a, b);
}

size_t fleet_group(const struct fleet *f, const struct fleet_bill *b, size_t nb, struct fleet_card **out)
{
	struct fleet_card *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < nb; i++) {
		struct fleet_card key = {fleet_host_key(&f->m[b[i].member]), b[i].gpu < 0 ? -1 : b[i].gpu, NULL, 0};
		size_t j;
		for (j = 0; j < n; j++)
			if (card_cmp(&v[j], &key) == 0)
				break;
		if (j == n) {
			v = xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = key;
		} else {
			free(key.host);
		}
		v[j].idx = xreallocarray(v[j].idx, v[j].n + 1, sizeof(*v[j].idx));
		v[j].idx[v[j].n++] = i;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), card_qsort);
	*out = v;
	return n;
}

size_t fleet_cards(const struct fleet *f, struct fleet_card **out)
{
	struct fleet_bill *b = xcalloc(f->n ? f->n : 1, sizeof(*b));
	for (size_t i = 0; i < f->n; i++) {
		b[i].member = i;
		b[i].gpu = f->m[i].gpu;
	}
	size_t n = fleet_group(f, b, f->n, out);
	free(b);
	return n;
}

void fleet_cards_free(struct fleet_card *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].host);
		free(c[i].idx);
	}
	free(c);
}
