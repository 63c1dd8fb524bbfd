#include "safe.h"

#include <jansson.h>
#include <stdint.h>
#include <string.h>

/* The code point at p and its length in bytes, or -1 when p does not
 * start a valid UTF-8 sequence. */
static int32_t decode(const unsigned char *p, int *len)
{
	unsigned char b = p[0];
	int n;
	uint32_t cp, min;
	if (b < 0x80) {
		*len = 1;
		return b;
	}
	if ((b & 0xe0) == 0xc0) {
		n = 1, cp = b & 0x1f, min = 0x80;
	} else if ((b & 0xf0) == 0xe0) {
		n = 2, cp = b & 0x0f, min = 0x800;
	} else if ((b & 0xf8) == 0xf0) {
		n = 3, cp = b & 0x07, min = 0x10000;
	} else {
		return -1;
	}
	for (int i = 1; i <= n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return -1;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*len = n + 1;
	return (int32_t)cp;
}

/* Whether a terminal or a reader of lines acts on code point cp. */
static int acting(int32_t cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || cp == 0x2028 || cp == 0x2029 || cp == 0x200e || cp == 0x200f ||
	       cp == 0x061c || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2066 && cp <= 0x2069);
}

void safe_line(struct sb *out, const char *s)
{
	sb_adds(out, ""); /* an empty string is still a string */
	for (const unsigned char *p = (const unsigned char *)(s ? s : ""); *p;) {
		int len = 1;
		int32_t cp = decode(p, &len);
		if (cp < 0)
			sb_addf(out, "\\x%02x", *p);
		else if (cp == '\n')
			sb_adds(out, "\\n");
		else if (cp == '\r')
			sb_adds(out, "\\r");
		else if (cp == '\t')
			sb_adds(out, "\\t");
		else if (cp < 0x20 || cp == 0x7f)
			sb_addf(out, "\\x%02x", (unsigned)cp);
		else if (acting(cp))
			sb_addf(out, "\\u%04x", (unsigned)cp);
		else
			sb_add(out, (const char *)p, (size_t)len);
		p += len;
	}
}

const char *safe_str(const char *s, struct sb *tmp)
{
	tmp->len = 0;
	safe_line(tmp, s);
	return tmp->s;
}

int safe_utf8(const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p;) {
		int len = 1;
		if (decode(p, &len) < 0)
			return 0;
		p += len;
	}
	return 1;
}

json_t *safe_json(const char *s)
{
	if (!s)
		return json_null();
	if (safe_utf8(s))
		return json_string(s);
	struct sb b = {0};
	safe_line(&b, s);
	json_t *j = json_string(b.s);
	sb_release(&b);
	return j;
}
