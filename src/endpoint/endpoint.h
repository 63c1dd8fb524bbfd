/* endpoint: the endpoint file — one file per endpoint, `KEY=VALUE` lines
 * that systemd's EnvironmentFile= also accepts.
 *
 * Syntax (a strict subset of systemd's): blank lines and lines starting
 * with `#` or `;` are ignored; a line is KEY=VALUE with KEY of
 * [A-Za-z_][A-Za-z0-9_]*; the value is taken verbatim after `=` (leading and
 * trailing blanks stripped) unless it is wholly quoted with '...' or "..."
 * (in double quotes \" \\ \$ and \` escape); a trailing backslash continues
 * the line. A key set twice is an error (systemd would take the last one
 * silently: the kind of surprise zealot exists to remove).
 *
 * Semantics (law C02): a key absent from the file is *unset* and takes its
 * documented default; a key present with an empty value is *set-but-empty*,
 * which is an opt-out where the key documents one (`MMPROJ_FILE=` text
 * only) and an error where it does not. A default never overrides an
 * explicit value. Unknown keys are errors with a did-you-mean (law C01).
 */
#ifndef ZEALOT_ENDPOINT_H
#define ZEALOT_ENDPOINT_H

#include <stddef.h>
#include <stdint.h>

#include "../base/zerr.h"

enum key_kind {
	KEY_STRING,
	KEY_PATH,
	KEY_UINT,
	KEY_NUMBER,
	KEY_BOOL,   /* 0/1, on/off, true/false, yes/no */
	KEY_TYPE,   /* a KV cache type */
	KEY_ENUM,   /* one of key->choices */
	KEY_SHA256, /* 64 hex digits; a split payload's: one per shard, comma-separated */
	KEY_PINS,   /* a byte count; a split payload's: one per shard, comma-separated */
};

struct key_def {
	const char *name;
	enum key_kind kind;
	const char *def;     /* the default when unset; NULL: none */
	const char *optout;  /* what set-but-empty means; NULL: empty is an error */
	const char *choices; /* KEY_ENUM: "a|b|c" */
	const char *doc;
};

/* The table of every key zealot knows, in documentation order. */
extern const struct key_def endpoint_keys[];
extern const size_t endpoint_n_keys;
const struct key_def *endpoint_key(const char *name);

struct endpoint_entry {
	const struct key_def *def;
	char *value; /* NULL: unset */
	int line;    /* 0: unset */
};

struct endpoint {
	char *path;
	char *name;		  /* file name without directory and .env */
	char *dir;		  /* directory of the file, for relative payload paths */
	struct endpoint_entry *e; /* endpoint_n_keys entries, table order */
};

/* Parse an endpoint file held in buf. path names it in errors. Returns NULL
 * with *err ("FILE:LINE: ...") on the first syntax error or unknown key. */
struct endpoint *endpoint_parse(const char *buf, size_t len, const char *path, char **err);
/* Read and parse the file at path (at most 1 MiB). NULL with *err, and
 * *kind (when kind is not NULL): Z_NOTFOUND or Z_IO when it cannot be
 * read, Z_USAGE when it is no endpoint file; Z_OK on success. */
struct endpoint *endpoint_load(const char *path, enum zerr *kind, char **err);
void endpoint_free(struct endpoint *ep);

/* Override or set a key ("KEY=VALUE", as `--set` does). Unknown keys are
 * errors with the same did-you-mean. */
int endpoint_set(struct endpoint *ep, const char *kv, char **err);

/* The raw state of a key: the entry (never NULL for a known key). */
const struct endpoint_entry *endpoint_entry(const struct endpoint *ep, const char *name);
/* The value in force: the explicit value if set (even empty), else the
 * default, else NULL. */
const char *endpoint_value(const struct endpoint *ep, const char *name);
/* True when the key is set to an empty value (an opt-out). */
int endpoint_is_empty(const struct endpoint *ep, const char *name);

/* Typed values in force. Return 0, or -1 with *err naming the file, line
 * and key when the value does not parse (or is empty where it may not be).
 * A key with no value in force yields -1 with "KEY is not set". */
int endpoint_uint(const struct endpoint *ep, const char *name, uint64_t *out, char **err);
int endpoint_number(const struct endpoint *ep, const char *name, double *out, char **err);
int endpoint_bool(const struct endpoint *ep, const char *name, int *out, char **err);
/* A path in force, resolved against the endpoint file's directory when
 * relative; NULL when unset or set-but-empty. Caller frees. */
char *endpoint_path(const struct endpoint *ep, const char *name);

/* "FILE:LINE: " or "FILE: " for a key (unset keys have no line). */
char *endpoint_where(const struct endpoint *ep, const char *name);

/* Closest known key to an unknown one, or NULL when nothing is close. */
const char *endpoint_suggest(const char *unknown);

#endif
