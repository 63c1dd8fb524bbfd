#include "host.h"

#include <stdlib.h>
#include <string.h>

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

int host_parse(const char *s, struct host_dest *h, char **err)
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

void host_free(struct host_dest *h)
{
	free(h->user);
	free(h->host);
	free(h->dest);
	memset(h, 0, sizeof(*h));
}
