#include "envfile.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

static int is_break(char c)
{
	return c == '\n' || c == '\r';
}

static int is_blank(char c)
{
	return c == ' ' || c == '\t' || is_break(c);
}

static void hazard_in(struct envfile *f, enum envfile_hazard_kind k, int line, const char *key, size_t kn)
{
	f->h = xreallocarray(f->h, f->n_h + 1, sizeof(*f->h));
	f->h[f->n_h].kind = k;
	f->h[f->n_h].line = line;
	f->h[f->n_h].key = key ? xstrndup(key, kn) : NULL;
	f->n_h++;
}

static void hazard(struct envfile *f, enum envfile_hazard_kind k, int line)
{
	hazard_in(f, k, line, NULL, 0);
}

enum state {
	BEFORE_KEY,
	IN_KEY,
	BEFORE_VALUE,
	IN_VALUE,
	VALUE_BACKSLASH,
	IN_SINGLE,
	IN_DOUBLE,
	DOUBLE_BACKSLASH,
	IN_COMMENT,
	COMMENT_BACKSLASH,
};

struct reader {
	struct envfile *f;
	struct sb key, value;
	size_t key_keep;   /* key length without its trailing blanks */
	size_t value_keep; /* value length without trailing unescaped blanks */
	int key_line;
	enum state st;
	int line, quote_line; /* the byte's line; where the open quote began */
	int closed_quote;     /* a quote closed in this value */
};

static void push(struct reader *r, int chomp)
{
	struct envfile *f = r->f;
	f->v = xreallocarray(f->v, f->n + 1, sizeof(*f->v));
	struct envfile_var *v = &f->v[f->n++];
	v->key = xstrndup(r->key.s ? r->key.s : "", r->key_keep);
	v->value = xstrndup(r->value.s ? r->value.s : "", chomp ? r->value_keep : r->value.len);
	v->line = r->key_line;
	/* the kernel takes no single environment string ("KEY=VALUE" and its
	 * NUL) past MAX_ARG_STRLEN, 32 pages: systemd reads the file, then
	 * execve fails with E2BIG (203/EXEC) at every restart */
	if (strlen(v->key) + 1 + strlen(v->value) + 1 > ENVFILE_MAX_ARG_STRLEN)
		hazard_in(f, ENVFILE_TOO_LONG, v->line, v->key, strlen(v->key));
	r->key.len = 0;
	r->value.len = 0;
}

/* An unquoted value byte: blanks at its end will be chomped, unless an
 * escape keeps them. */
static void value_byte(struct reader *r, char c, int escaped)
{
	sb_addc(&r->value, c);
	if (escaped || (c != ' ' && c != '\t'))
		r->value_keep = r->value.len;
}

/* One byte outside a value: before a key, in it, in a comment. */
static void step_outside(struct reader *r, char c)
{
	switch (r->st) {
	case BEFORE_KEY:
		if (c == '#' || c == ';') {
			r->st = IN_COMMENT;
		} else if (!is_blank(c)) {
			r->st = IN_KEY;
			r->key.len = 0;
			sb_addc(&r->key, c);
			r->key_keep = 1;
			r->key_line = r->line;
		}
		break;
	case IN_KEY:
		if (is_break(c)) {
			hazard(r->f, ENVFILE_NO_EQUALS, r->key_line);
			r->st = BEFORE_KEY;
		} else if (c == '=') {
			r->st = BEFORE_VALUE;
			r->value.len = 0;
			r->value_keep = 0;
			r->closed_quote = 0;
		} else {
			sb_addc(&r->key, c);
			if (c != ' ' && c != '\t')
				r->key_keep = r->key.len;
		}
		break;
	case IN_COMMENT:
		if (c == '\\')
			r->st = COMMENT_BACKSLASH;
		else if (is_break(c))
			r->st = BEFORE_KEY;
		break;
	case COMMENT_BACKSLASH:
		if (is_break(c))
			hazard(r->f, ENVFILE_COMMENT_CONT, r->line);
		r->st = IN_COMMENT;
		break;
	default: break;
	}
}

/* One byte of a value: after the '=', unquoted, quoted, escaped. */
static void step_value(struct reader *r, char c)
{
	switch (r->st) {
	case BEFORE_VALUE:
		if (is_break(c)) {
			push(r, 0);
			r->st = BEFORE_KEY;
		} else if (c == '\'' || c == '"') {
			if (r->closed_quote)
				hazard_in(r->f, ENVFILE_AFTER_QUOTE, r->line, r->key.s, r->key_keep);
			r->st = c == '\'' ? IN_SINGLE : IN_DOUBLE;
			r->quote_line = r->line;
		} else if (c == '\\') {
			if (r->closed_quote)
				hazard_in(r->f, ENVFILE_AFTER_QUOTE, r->line, r->key.s, r->key_keep);
			r->st = VALUE_BACKSLASH;
		} else if (c != ' ' && c != '\t') {
			if (r->closed_quote)
				hazard_in(r->f, ENVFILE_AFTER_QUOTE, r->line, r->key.s, r->key_keep);
			r->st = IN_VALUE;
			/* what a quote left stays, blanks or not */
			r->value_keep = r->value.len;
			value_byte(r, c, 0);
		}
		break;
	case IN_VALUE:
		if (is_break(c)) {
			push(r, 1);
			r->st = BEFORE_KEY;
		} else if (c == '\\') {
			r->st = VALUE_BACKSLASH;
		} else {
			value_byte(r, c, 0);
		}
		break;
	case VALUE_BACKSLASH:
		if (!is_break(c)) {
			hazard_in(r->f, ENVFILE_BACKSLASH, r->line, r->key.s, r->key_keep);
			value_byte(r, c, 1);
		} else {
			/* a continuation keeps what came before it */
			r->value_keep = r->value.len;
		}
		r->st = IN_VALUE;
		break;
	case IN_SINGLE:
		if (c == '\'') {
			r->st = BEFORE_VALUE;
			r->closed_quote = 1;
		} else {
			sb_addc(&r->value, c);
		}
		break;
	case IN_DOUBLE:
		if (c == '"') {
			r->st = BEFORE_VALUE;
			r->closed_quote = 1;
		} else if (c == '\\') {
			r->st = DOUBLE_BACKSLASH;
		} else {
			sb_addc(&r->value, c);
		}
		break;
	case DOUBLE_BACKSLASH:
		if (c == '"' || c == '\\' || c == '`' || c == '$') {
			sb_addc(&r->value, c);
		} else if (c != '\n') {
			sb_addc(&r->value, '\\');
			sb_addc(&r->value, c);
		}
		r->st = IN_DOUBLE;
		break;
	default: break;
	}
}

void envfile_read(const char *buf, size_t len, struct envfile *out)
{
	memset(out, 0, sizeof(*out));
	struct reader r = {.f = out, .st = BEFORE_KEY, .line = 1, .quote_line = 1};
	const char *nul = memchr(buf, '\0', len);
	size_t n = nul ? (size_t)(nul - buf) : len;
	if (nul) {
		int at = 1;
		for (size_t i = 0; i < n; i++)
			at += buf[i] == '\n';
		hazard(out, ENVFILE_NUL, at);
	}
	for (size_t i = 0; i < n; i++) {
		char c = buf[i];
		if (c == '\r' && i + 1 < n && buf[i + 1] != '\n') {
			int in_value =
			    r.st != BEFORE_KEY && r.st != IN_KEY && r.st != IN_COMMENT && r.st != COMMENT_BACKSLASH;
			hazard_in(out, ENVFILE_BARE_CR, r.line, in_value ? r.key.s : NULL, r.key_keep);
		}
		if (r.st == BEFORE_KEY || r.st == IN_KEY || r.st == IN_COMMENT || r.st == COMMENT_BACKSLASH)
			step_outside(&r, c);
		else
			step_value(&r, c);
		r.line += c == '\n';
	}
	switch (r.st) {
	case IN_KEY: hazard(out, ENVFILE_NO_EQUALS, r.key_line); break;
	case IN_SINGLE:
	case IN_DOUBLE:
	case DOUBLE_BACKSLASH:
		hazard_in(out, ENVFILE_UNTERMINATED, r.quote_line, r.key.s, r.key_keep);
		push(&r, 0);
		break;
	case IN_VALUE: push(&r, 1); break;
	case BEFORE_VALUE:
	case VALUE_BACKSLASH: push(&r, 0); break;
	default: break;
	}
	sb_release(&r.key);
	sb_release(&r.value);
}

void envfile_release(struct envfile *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].key);
		free(f->v[i].value);
	}
	free(f->v);
	for (size_t i = 0; i < f->n_h; i++)
		free(f->h[i].key);
	free(f->h);
	memset(f, 0, sizeof(*f));
}

int envfile_name_valid(const char *key)
{
	if (!*key || (*key >= '0' && *key <= '9'))
		return 0;
	for (const char *p = key; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_'))
			return 0;
	return 1;
}

int envfile_utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned char b = *p;
		if (b < 0x80) {
			p++;
			continue;
		}
		int n;
		uint32_t cp, min;
		if ((b & 0xe0) == 0xc0) {
			n = 1;
			cp = b & 0x1f;
			min = 0x80;
		} else if ((b & 0xf0) == 0xe0) {
			n = 2;
			cp = b & 0x0f;
			min = 0x800;
		} else if ((b & 0xf8) == 0xf0) {
			n = 3;
			cp = b & 0x07;
			min = 0x10000;
		} else {
			return 0;
		}
		for (int i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return 0;
			cp = (cp << 6) | (p[i] & 0x3f);
		}
		if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
			return 0;
		/* systemd's unichar_is_valid refuses the noncharacters too, and
		 * with them the whole EnvironmentFile= */
		if ((cp >= 0xfdd0 && cp <= 0xfdef) || (cp & 0xfffe) == 0xfffe)
			return 0;
		p += n + 1;
	}
	return 1;
}

const char *envfile_hazard_text(enum envfile_hazard_kind k)
{
	switch (k) {
	case ENVFILE_NUL: return "a NUL byte: systemd's EnvironmentFile= reads no further than it";
	case ENVFILE_BARE_CR: return "a CR not followed by LF: systemd's EnvironmentFile= reads it as a line break";
	case ENVFILE_COMMENT_CONT:
		return "a comment ends in a backslash: systemd 252 reads the next line as comment too, 254 and "
		       "later as a line of its own";
	case ENVFILE_NO_EQUALS: return "a line without '=': systemd's EnvironmentFile= ignores it";
	case ENVFILE_BACKSLASH:
		return "a backslash outside quotes: systemd drops it and keeps the next byte (a\\.b reads a.b); "
		       "write the value in '...'";
	case ENVFILE_AFTER_QUOTE: return "text after the closing quote: systemd glues it onto the value";
	case ENVFILE_UNTERMINATED: return "unterminated quote: systemd takes the rest of the file as the value";
	case ENVFILE_TOO_LONG:
		return "KEY=VALUE is over 128 KiB (the kernel's MAX_ARG_STRLEN): systemd reads it, then cannot exec "
		       "the unit (E2BIG, 203/EXEC)";
	}
	return "?";
}
