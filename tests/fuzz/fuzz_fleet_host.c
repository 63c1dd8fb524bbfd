/* libFuzzer target: the ssh destination parser (HOST) and the shell
 * quoting every remote command uses. Invariants, not just "no crash": an
 * accepted destination's parts are plain names (no byte a shell or ssh
 * would read as syntax, no leading '-'), its port in 1..65535; and any
 * string, quoted, reads back byte for byte under sh's rules for '...'. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "fleet/fleet.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int plain(const char *s, const char *extra)
{
	if (!s[0] || s[0] == '-')
		return 0;
	for (const char *p = s; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      strchr("._-", *p) || strchr(extra, *p)))
			return 0;
	return 1;
}

/* sh's reading of a word made only of '...' runs and \' */
static char *unquote(const char *q)
{
	struct sb b = {0};
	sb_adds(&b, "");
	for (const char *p = q; *p;) {
		if (*p == '\'') {
			const char *e = strchr(p + 1, '\'');
			if (!e)
				abort(); /* unterminated */
			sb_add(&b, p + 1, (size_t)(e - p - 1));
			p = e + 1;
		} else if (p[0] == '\\' && p[1] == '\'') {
			sb_addc(&b, '\'');
			p += 2;
		} else {
			abort(); /* a byte outside quotes: the shell would interpret it */
		}
	}
	return sb_detach(&b);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = xstrndup((const char *)data, size);
	struct host_dest h;
	char *err = NULL;
	if (host_parse(s, &h, &err) == 0) {
		if (!h.host || strcmp(h.dest, s) != 0 || (h.user && !plain(h.user, "+")) || h.port > 65535)
			abort();
		/* an IPv6 literal holds ':' and hex digits, nothing a shell reads */
		if (!plain(h.host, "") && !(strspn(h.host, "0123456789abcdefABCDEF:.") == strlen(h.host)))
			abort();
		host_free(&h);
	} else if (!err || !*err) {
		abort();
	}
	free(err);
	struct sb q = {0};
	quote_shell(&q, s);
	char *back = unquote(q.s);
	if (strcmp(back, s) != 0)
		abort();
	free(back);
	sb_release(&q);
	free(s);
	return 0;
}
