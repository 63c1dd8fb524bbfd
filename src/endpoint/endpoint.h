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
#include "keys.h"

/* The table as endpoint_parse indexes it (keys.h is the table itself). */
#define endpoint_keys	(keys_at(0))
#define endpoint_n_keys ((size_t)K__COUNT)

struct endpoint_entry {
	const struct key_def *def;
	char *value; /* NULL: unset */
	int line;    /* 0: unset */
};

struct endpoint {
	char *path;
	char *name;		  /* file name without directory and .env */
	char *dir;		  /* directory of the file, for relative payload paths */
	struct endpoint_entry *e; /* keys_count() entries, table order (indexed by enum key_id) */
};

/* Parse an endpoint file held in buf. path names it in errors. Returns NULL
 * with *err ("FILE:LINE: ...") on the first syntax error or unknown key. */
struct endpoint *endpoint_parse(const char *buf, size_t len, const char *path, char **err);
/* Read and parse the file at path (at most 1 MiB). NULL with *err, and
 * *kind (when kind is not NULL): ZE_NOTFOUND or ZE_IO when it cannot be
 * read, ZE_USAGE when it is no endpoint file; ZE_OK on success. */
struct endpoint *endpoint_load(const char *path, enum zerr *kind, char **err);
void endpoint_free(struct endpoint *ep);

/* Override or set a key ("KEY=VALUE", as `--set` does). Unknown keys are
 * errors with the same did-you-mean. */
int endpoint_set(struct endpoint *ep, const char *kv, char **err);

/* The getters take a key as its id (K_CTX_SIZE: the table's row) or, for
 * callers that hold a name, as a string ("CTX_SIZE"): one function each,
 * chosen by the argument's type. An unknown name is an unset key with no
 * entry (NULL, or -1 with "unknown key"). */
#define ENDPOINT_BY_KEY_(f, k) _Generic((k), char * : f##_named, const char * : f##_named, default : f##_of)

/* The raw state of a key: the entry (never NULL for a known key). */
const struct endpoint_entry *endpoint_entry_of(const struct endpoint *ep, enum key_id id);
const struct endpoint_entry *endpoint_entry_named(const struct endpoint *ep, const char *name);
#define endpoint_entry(ep, k) ENDPOINT_BY_KEY_(endpoint_entry, k)(ep, k)
/* The value in force: the explicit value if set (even empty), else the
 * default, else NULL. */
const char *endpoint_value_of(const struct endpoint *ep, enum key_id id);
const char *endpoint_value_named(const struct endpoint *ep, const char *name);
#define endpoint_value(ep, k) ENDPOINT_BY_KEY_(endpoint_value, k)(ep, k)
/* True when the key is set to an empty value (an opt-out). */
int endpoint_is_empty_of(const struct endpoint *ep, enum key_id id);
int endpoint_is_empty_named(const struct endpoint *ep, const char *name);
#define endpoint_is_empty(ep, k) ENDPOINT_BY_KEY_(endpoint_is_empty, k)(ep, k)

/* Typed values in force, through the table's one parse and one range per
 * key (keys.h). Return 0, or -1 with *err naming the file, line and key
 * when the value does not parse, is out of the key's range, or is empty
 * where it may not be. A key with no value in force yields -1 with "KEY is
 * not set". err may be NULL. */
int endpoint_uint_of(const struct endpoint *ep, enum key_id id, uint64_t *out, char **err);
int endpoint_uint_named(const struct endpoint *ep, const char *name, uint64_t *out, char **err);
#define endpoint_uint(ep, k, out, err) ENDPOINT_BY_KEY_(endpoint_uint, k)(ep, k, out, err)
/* endpoint_uint for a key whose range fits in 32 bits (every count the
 * engine takes as an int). */
int endpoint_u32(const struct endpoint *ep, enum key_id id, uint32_t *out, char **err);
int endpoint_number_of(const struct endpoint *ep, enum key_id id, double *out, char **err);
int endpoint_number_named(const struct endpoint *ep, const char *name, double *out, char **err);
#define endpoint_number(ep, k, out, err) ENDPOINT_BY_KEY_(endpoint_number, k)(ep, k, out, err)
int endpoint_bool_of(const struct endpoint *ep, enum key_id id, int *out, char **err);
int endpoint_bool_named(const struct endpoint *ep, const char *name, int *out, char **err);
#define endpoint_bool(ep, k, out, err) ENDPOINT_BY_KEY_(endpoint_bool, k)(ep, k, out, err)
/* A path in force, resolved against the endpoint file's directory when
 * relative; NULL when unset or set-but-empty. Caller frees. */
char *endpoint_path_of(const struct endpoint *ep, enum key_id id);
char *endpoint_path_named(const struct endpoint *ep, const char *name);
#define endpoint_path(ep, k) ENDPOINT_BY_KEY_(endpoint_path, k)(ep, k)
/* The API key in an API key file (API_KEY_FILE, --api-key-file): its first
 * line that is neither empty nor a # comment, as the engine reads it; NULL
 * when there is none or the file is unreadable. The caller frees it. */
char *endpoint_read_key(const char *path);

/* "FILE:LINE: KEY", "--set KEY" or "FILE: KEY (default)". Caller frees. */
char *endpoint_where_of(const struct endpoint *ep, enum key_id id);
char *endpoint_where_named(const struct endpoint *ep, const char *name);
#define endpoint_where(ep, k) ENDPOINT_BY_KEY_(endpoint_where, k)(ep, k)

/* The gated flags (law C09): the words of EXTRA_ARGS that name an engine
 * flag a key owns (keys.h), each with that key, up to max of them. Returns
 * how many it found (possibly more than max). */
struct endpoint_gate {
	char word[64]; /* the word as written (cut at 63 bytes) */
	const struct key_def *owner;
};
size_t endpoint_gated_extra(const struct endpoint *ep, struct endpoint_gate *out, size_t max);

/* Closest known key to an unknown one, or NULL when nothing is close. */
const char *endpoint_suggest(const char *unknown);

#endif
