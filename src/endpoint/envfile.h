/* envfile: a file read as systemd 252's EnvironmentFile= reads it
 * (src/basic/env-file.c, parse_env_file_internal, then load_env_file's
 * UTF-8 check and execute.c's strv_env_clean).
 *
 * The reading, byte by byte:
 *   - it stops at the first NUL byte;
 *   - a line break is LF or CR, each on its own (a bare CR ends a line);
 *   - before a key, blanks and line breaks are skipped; `#` or `;` there
 *     starts a comment to the line's end, where a backslash swallows the
 *     next byte whatever it is (252: a line break too, so the comment goes
 *     on to the next line; 254 changed this);
 *   - the key is every byte up to `=`, its trailing blanks dropped; a line
 *     break before any `=` drops the line silently;
 *   - after `=`: blanks are skipped; '...' takes every byte verbatim up to
 *     the next '; "..." takes bytes up to the next unescaped ", where a
 *     backslash before one of " \ ` $ is dropped, before a line break eats
 *     both, and before anything else is kept with it; after a closing quote
 *     the value goes on (blanks skipped, a quote opens again);
 *   - an unquoted value runs to the line break; a backslash there is
 *     dropped and the byte after it kept (a line break after it is eaten:
 *     a continuation); its trailing blanks are dropped (not an escaped one);
 *   - at the end of the file an open value (even an unterminated quote) is
 *     set as it stands.
 * Then systemd refuses the whole file (the unit does not start) when a key
 * or value is not valid UTF-8, drops a key that is not a variable name
 * ([A-Za-z_][A-Za-z0-9_]*), and a later key wins over an earlier one.
 *
 * envfile_read reports every key/value systemd pushes, in order, and the
 * places where the bytes read one way here and another to a person or to
 * another systemd version (hazards), so the endpoint parser can refuse
 * them. Pure.
 */
#ifndef ZEALOT_ENVFILE_H
#define ZEALOT_ENVFILE_H

#include <stddef.h>

struct envfile_var {
	char *key;   /* as pushed: not necessarily a valid name */
	char *value; /* as pushed, never NULL */
	int line;    /* the line (counting LF) where the key starts, from 1 */
};

/* The kernel's limit on one argv or environment string, its NUL included
 * (MAX_ARG_STRLEN: 32 pages of 4 KiB). */
#define ENVFILE_MAX_ARG_STRLEN 131072

enum envfile_hazard_kind {
	ENVFILE_NUL,	      /* a NUL byte: systemd reads no further */
	ENVFILE_BARE_CR,      /* a CR not followed by LF: a line break to systemd */
	ENVFILE_COMMENT_CONT, /* a comment ending in a backslash: 252 swallows the next line */
	ENVFILE_NO_EQUALS,    /* a line with a key but no '=': systemd ignores it */
	ENVFILE_BACKSLASH,    /* an unquoted backslash systemd drops (a\.b reads a.b) */
	ENVFILE_AFTER_QUOTE,  /* text after a closing quote: systemd glues it on */
	ENVFILE_UNTERMINATED, /* a quote never closed: systemd takes the rest of the file */
	ENVFILE_TOO_LONG,     /* KEY=VALUE past the kernel's MAX_ARG_STRLEN: exec fails (E2BIG) */
};

struct envfile_hazard {
	enum envfile_hazard_kind kind;
	int line;
	char *key; /* the key whose value holds it, or NULL */
};

struct envfile {
	struct envfile_var *v;
	size_t n;
	struct envfile_hazard *h;
	size_t n_h;
};

/* Read buf as systemd does. Never fails. */
void envfile_read(const char *buf, size_t len, struct envfile *out);
void envfile_release(struct envfile *f);

/* systemd's env_name_is_valid: [A-Za-z_][A-Za-z0-9_]*, not empty. */
int envfile_name_valid(const char *key);
/* Strict UTF-8 (no overlong forms, surrogates or code points past
 * U+10FFFF) without the noncharacters (U+FDD0..U+FDEF, U+xxFFFE and
 * U+xxFFFF), as systemd's utf8_is_valid with its unichar_is_valid. */
int envfile_utf8_valid(const char *s);
/* One sentence on what systemd does with a hazard. */
const char *envfile_hazard_text(enum envfile_hazard_kind k);

#endif
