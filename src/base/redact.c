#include "redact.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "util.h"

static int has_word(const char *s, unsigned long n, const char *w)
{
	size_t m = strlen(w);
	for (unsigned long i = 0; i + m <= n; i++)
		if (strncasecmp(s + i, w, m) == 0)
			return 1;
	return 0;
}

static int ends_with(const char *s, unsigned long n, const char *w)
{
	size_t m = strlen(w);
	return n >= m && strncasecmp(s + n - m, w, m) == 0;
}

int redact_secret_name(const char *name, unsigned long n)
{
	static const char *const words[] = {"KEY", "TOKEN", "PASSWORD", "PASSWD", "SECRET", "CREDENTIAL"};
	if (ends_with(name, n, "_FILE") || ends_with(name, n, "-file") || ends_with(name, n, "_PATH"))
		return 0;
	if (n == 3 && strncasecmp(name, "key", 3) == 0) /* a label ("KEY=VALUE", a JSON "key"), not a secret */
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (has_word(name, n, words[i]))
			return 1;
	return 0;
}

/* A query parameter that signs a presigned URL (S3's X-Amz-Signature and
 * X-Amz-Credential, Azure's sig, CloudFront's Signature, GCS's X-Goog-*):
 * whoever holds it fetches what it signs. */
static int signing_param(const char *name, unsigned long n)
{
	static const char *const names[] = {"sig", "signature", "x-amz-signature", "x-amz-credential"};
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (n == strlen(names[i]) && strncasecmp(name, names[i], n) == 0)
			return 1;
	return n > 7 && strncasecmp(name, "x-goog-", 7) == 0;
}

static int name_byte(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int scheme_byte(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '+' || c == '-' ||
	       c == '.';
}

/* The end of a value: a blank, a quote, a line break or the end. */
static size_t value_len(const char *s)
{
	return strcspn(s, " \t\r\n\"',;)}]>");
}

char *redact_text(const char *s)
{
	if (!s)
		return NULL;
	struct sb b = {0};
	sb_adds(&b, "");
	size_t n = strlen(s);
	int flag_pending = 0; /* the previous word was a secret --flag */
	for (size_t i = 0; i < n;) {
		/* scheme://userinfo@ */
		if (s[i] == ':' && s[i + 1] == '/' && s[i + 2] == '/' && i > 0 && scheme_byte(s[i - 1])) {
			size_t h = i + 3;
			size_t end = h + strcspn(s + h, "/?# \t\r\n\"'<>");
			const char *at = memchr(s + h, '@', end - h);
			sb_adds(&b, "://");
			if (at) {
				/* the last '@' before the path ends the userinfo */
				const char *last = at;
				for (const char *p = at + 1; p < s + end; p++)
					if (*p == '@')
						last = p;
				size_t sc = i;
				while (sc > 0 && scheme_byte(s[sc - 1]))
					sc--;
				/* ssh takes no password in a URL: ssh://user@host names a user, no secret */
				int ssh_user = i - sc == 3 && strncasecmp(s + sc, "ssh", 3) == 0 &&
					       !memchr(s + h, ':', (size_t)(last - (s + h)));
				if (ssh_user)
					sb_add(&b, s + h, (size_t)(last - (s + h)) + 1);
				else
					sb_adds(&b, REDACT_MARK "@");
				i = (size_t)(last - s) + 1;
			} else {
				i = h;
			}
			continue;
		}
		/* a word: NAME=VALUE, --flag=VALUE, --flag VALUE */
		if (name_byte(s[i]) && (i == 0 || !name_byte(s[i - 1]))) {
			size_t w = i;
			while (w < n && name_byte(s[w]))
				w++;
			if (flag_pending) {
				flag_pending = 0;
				size_t v = value_len(s + i);
				sb_adds(&b, REDACT_MARK);
				i += v;
				continue;
			}
			/* a URL's query parameter: its value ends at the next '&' or '#' */
			int query = i > 0 && (s[i - 1] == '?' || s[i - 1] == '&');
			int secret = redact_secret_name(s + i, w - i) || (query && signing_param(s + i, w - i));
			if (secret && s[w] == '=') {
				sb_add(&b, s + i, w - i + 1);
				size_t v = value_len(s + w + 1);
				if (query)
					v = strcspn(s + w + 1, "&# \t\r\n\"'<>");
				if (v)
					sb_adds(&b, REDACT_MARK);
				i = w + 1 + v;
				continue;
			}
			if (secret && s[i] == '-' && s[i + 1] == '-' && (s[w] == ' ' || s[w] == '\t'))
				flag_pending = 1;
			sb_add(&b, s + i, w - i);
			i = w;
			continue;
		}
		if (flag_pending && s[i] != ' ' && s[i] != '\t') {
			/* a value that starts with a byte no name has (a quote, a '/') */
			size_t v = value_len(s + i);
			if (v) {
				sb_adds(&b, REDACT_MARK);
				i += v;
				flag_pending = 0;
				continue;
			}
			flag_pending = 0;
		}
		sb_addc(&b, s[i]);
		i++;
	}
	return sb_detach(&b);
}

char *redact_value(const char *name, const char *value)
{
	if (!value)
		return NULL;
	/* a placeholder ("(absent)", "(set)", "-") is no value */
	if (name && redact_secret_name(name, strlen(name)) && *value != '(' && strcmp(value, "-") != 0)
		return xstrdup(*value ? REDACT_MARK : "");
	return redact_text(value);
}
