#include "endpoint.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/util.h"
#include "envfile.h"
#include "quote.h"

static size_t key_index(const char *name)
{
	const struct key_def *k = key_by_name(name);
	return k ? (size_t)k->id : K__COUNT;
}

const char *endpoint_suggest(const char *unknown)
{
	return key_suggest(unknown);
}

static int unknown_key(char **err, const char *where, const char *key)
{
	/* the engine reads LLAMA_ARG_* from its environment, and systemd puts
	 * every line of the file there: a flag behind the keys' backs */
	if (strncmp(key, "LLAMA_ARG_", 10) == 0 || strcmp(key, "LLAMA_API_KEY") == 0) {
		const struct key_def *k = key_owning_env(key);
		if (k)
			return errorf(err, "%s%s sets an engine flag that %s owns: set %s instead (law C09)", where,
				      key, k->name, k->name);
		return errorf(err, "%s%s would set an engine flag behind zealot's back (law C09)", where, key);
	}
	struct key_hint h;
	key_hint(key, &h);
	if (h.key && h.via[0])
		return errorf(err, "%sunknown key '%s' (did you mean %s? it owns the engine's %s) (law C01)", where,
			      key, h.key->name, h.via);
	if (h.key)
		return errorf(err, "%sunknown key '%s' (did you mean %s?) (law C01)", where, key, h.key->name);
	if (h.flag && h.flag->cls == FLAG_REFUSED)
		return errorf(err, "%sunknown key '%s': %s is an engine flag zealot refuses (law %s) (law C01)", where,
			      key, h.via, h.flag->arg);
	if (h.flag)
		return errorf(err,
			      "%sunknown key '%s': %s is an engine flag no key owns: EXTRA_ARGS carries it (law C01)",
			      where, key, h.via);
	return errorf(err, "%sunknown key '%s' (law C01; 'zealot check --keys' lists them)", where, key);
}

static char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *b = slash ? slash + 1 : path;
	size_t n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".env") == 0)
		n -= 4;
	return xstrndup(b, n);
}

/* A name for an error message: no control byte reaches the terminal. */
static const char *printable(const char *s, struct sb *tmp)
{
	tmp->len = 0;
	quote_one_line(tmp, s);
	return tmp->s ? tmp->s : "";
}

static int c10(char **err, const char *path, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int c10(char **err, const char *path, int line, const char *fmt, ...)
{
	struct sb b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&b, fmt, ap);
	va_end(ap);
	errorf(err, "%s:%d: %s (law C10)", path, line, b.s);
	sb_release(&b);
	return -1;
}

/* The first control byte of a value (a line break, a CR, a tab...), or 0:
 * such a value cannot be written into a unit, a playbook or a log line
 * safely, whatever systemd makes of it. */
static unsigned char control_byte(const char *v)
{
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p < 0x20 || *p == 0x7f)
			return *p;
	return 0;
}

/* Every pushed key/value against zealot's reading: the same bytes mean the
 * same thing to systemd, or the file is refused (law C10). */
static int take(struct endpoint *ep, const struct envfile *f, const char *path, char **err)
{
	struct sb tmp = {0};
	int rc = -1;
	/* the hazards first, in line order: each is a place where systemd
	 * reads the bytes otherwise than a person (or another version) does */
	const struct envfile_hazard *first = NULL;
	for (size_t i = 0; i < f->n_h; i++)
		if (!first || f->h[i].line < first->line)
			first = &f->h[i];
	for (size_t i = 0; i < f->n; i++) {
		const struct envfile_var *v = &f->v[i];
		if (first && first->line <= v->line)
			break;
		if (!*v->key) {
			errorf(err, "%s:%d: expected KEY=VALUE", path, v->line);
			goto out;
		}
		if (!envfile_utf8_valid(v->key) || !envfile_utf8_valid(v->value)) {
			c10(err, path, v->line,
			    "%s is not valid UTF-8: systemd's EnvironmentFile= refuses the whole file and the unit "
			    "does "
			    "not start",
			    envfile_utf8_valid(v->key) ? "the value" : "the key");
			goto out;
		}
		if (!envfile_name_valid(v->key)) {
			c10(err, path, v->line,
			    "'%s' is not a variable name: systemd's EnvironmentFile= drops it (write KEY=VALUE, one "
			    "per "
			    "line)",
			    printable(v->key, &tmp));
			goto out;
		}
		size_t idx = key_index(v->key);
		if (idx == endpoint_n_keys) {
			char where[512];
			snprintf(where, sizeof(where), "%s:%d: ", path, v->line);
			unknown_key(err, where, v->key);
			goto out;
		}
		if (ep->e[idx].line) {
			errorf(err, "%s:%d: %s is already set on line %d", path, v->line, v->key, ep->e[idx].line);
			goto out;
		}
		unsigned char cc = control_byte(v->value);
		if (cc) {
			c10(err, path, v->line,
			    "%s: the value holds control byte 0x%02x (%s): it cannot be written into a unit or a log "
			    "line "
			    "safely",
			    v->key, cc,
			    cc == '\n'	 ? "a line break"
			    : cc == '\r' ? "a carriage return"
			    : cc == '\t' ? "a tab"
					 : "a control character");
			goto out;
		}
		ep->e[idx].value = xstrdup(v->value);
		ep->e[idx].line = v->line;
	}
	if (first) {
		if (first->kind == ENVFILE_UNTERMINATED && first->key) {
			/* the old parser's words, kept */
			errorf(
			    err,
			    "%s:%d: %s: unterminated quote (law C10: systemd takes the rest of the file as the value)",
			    path, first->line, printable(first->key, &tmp));
			goto out;
		}
		if (first->key) {
			c10(err, path, first->line, "%s: %s", printable(first->key, &tmp),
			    envfile_hazard_text(first->kind));
			goto out;
		}
		c10(err, path, first->line, "%s", envfile_hazard_text(first->kind));
		goto out;
	}
	rc = 0;
out:
	sb_release(&tmp);
	return rc;
}

struct endpoint *endpoint_parse(const char *buf, size_t len, const char *path, char **err)
{
	struct endpoint *ep = xcalloc(1, sizeof(*ep));
	ep->path = xstrdup(path);
	ep->name = base_name(path);
	ep->dir = path_dir(path);
	ep->e = xcalloc(endpoint_n_keys, sizeof(*ep->e));
	for (size_t i = 0; i < endpoint_n_keys; i++)
		ep->e[i].def = &endpoint_keys[i];
	struct envfile f;
	envfile_read(buf, len, &f);
	int rc = take(ep, &f, path, err);
	envfile_release(&f);
	if (rc) {
		endpoint_free(ep);
		return NULL;
	}
	return ep;
}

/* Endpoint files are small; a cap keeps a wrong path (a payload, /dev/zero)
 * from being read whole. */
#define ENDPOINT_MAX_BYTES (1 << 20)

struct endpoint *endpoint_load(const char *path, enum zerr *kind, char **err)
{
	size_t n = 0;
	char *buf = read_file(path, ENDPOINT_MAX_BYTES + 1, READ_TRUNCATE, &n, kind, err);
	if (!buf)
		return NULL;
	if (n > ENDPOINT_MAX_BYTES) {
		free(buf);
		zerr_set(kind, ZE_USAGE);
		errorf(err, "'%s' is larger than %d bytes: not an endpoint file", path, ENDPOINT_MAX_BYTES);
		return NULL;
	}
	struct endpoint *ep = endpoint_parse(buf, n, path, err);
	free(buf);
	if (!ep)
		zerr_set(kind, ZE_USAGE);
	return ep;
}

void endpoint_free(struct endpoint *ep)
{
	if (!ep)
		return;
	for (size_t i = 0; ep->e && i < K__COUNT; i++)
		free(ep->e[i].value);
	free(ep->e);
	free(ep->path);
	free(ep->name);
	free(ep->dir);
	free(ep);
}

int endpoint_set(struct endpoint *ep, const char *kv, char **err)
{
	const char *eq = strchr(kv, '=');
	if (!eq)
		return errorf(err, "--set '%s': expected KEY=VALUE", kv);
	char *key = xstrndup(kv, (size_t)(eq - kv));
	size_t idx = key_index(key);
	if (idx == K__COUNT) {
		unknown_key(err, "--set: ", key);
		free(key);
		return -1;
	}
	unsigned char cc = control_byte(eq + 1);
	if (cc) {
		errorf(err,
		       "--set %s: the value holds control byte 0x%02x: it cannot be written into a unit or a log "
		       "line safely (law C10)",
		       key, cc);
		free(key);
		return -1;
	}
	free(key);
	free(ep->e[idx].value);
	ep->e[idx].value = xstrdup(eq + 1);
	ep->e[idx].line = -1; /* from the command line */
	return 0;
}

const struct endpoint_entry *endpoint_entry_of(const struct endpoint *ep, enum key_id id)
{
	return (size_t)id < K__COUNT ? &ep->e[id] : NULL;
}

const struct endpoint_entry *endpoint_entry_named(const struct endpoint *ep, const char *name)
{
	size_t idx = key_index(name);
	return idx < K__COUNT ? &ep->e[idx] : NULL;
}

const char *endpoint_value_of(const struct endpoint *ep, enum key_id id)
{
	const struct endpoint_entry *e = endpoint_entry_of(ep, id);
	if (!e)
		return NULL;
	if (e->value)
		return e->value;
	if (id == K_ALIAS)
		return ep->name;
	return e->def->def;
}

const char *endpoint_value_named(const struct endpoint *ep, const char *name)
{
	size_t idx = key_index(name);
	return idx < K__COUNT ? endpoint_value_of(ep, (enum key_id)idx) : NULL;
}

int endpoint_is_empty_of(const struct endpoint *ep, enum key_id id)
{
	const struct endpoint_entry *e = endpoint_entry_of(ep, id);
	return e && e->value && !*e->value;
}

int endpoint_is_empty_named(const struct endpoint *ep, const char *name)
{
	size_t idx = key_index(name);
	return idx < K__COUNT && endpoint_is_empty_of(ep, (enum key_id)idx);
}

char *endpoint_where_of(const struct endpoint *ep, enum key_id id)
{
	const struct endpoint_entry *e = endpoint_entry_of(ep, id);
	const char *name = e ? e->def->name : "?";
	struct sb b = {0};
	if (e && e->line > 0)
		sb_addf(&b, "%s:%d: %s", ep->path, e->line, name);
	else if (e && e->line < 0)
		sb_addf(&b, "--set %s", name);
	else
		sb_addf(&b, "%s: %s (default)", ep->path, name);
	return sb_detach(&b);
}

char *endpoint_where_named(const struct endpoint *ep, const char *name)
{
	size_t idx = key_index(name);
	if (idx < K__COUNT)
		return endpoint_where_of(ep, (enum key_id)idx);
	struct sb b = {0};
	sb_addf(&b, "%s: %s", ep->path, name);
	return sb_detach(&b);
}

/* The value in force, non-empty; else -1 with *err. */
static const char *need(const struct endpoint *ep, enum key_id id, char **err)
{
	const char *v = endpoint_value_of(ep, id);
	const struct key_def *k = keys_at(id);
	if (!v) {
		if (err)
			errorf(err, "%s: %s is not set", ep->path, k->name);
		return NULL;
	}
	if (!*v) {
		if (err) {
			char *w = endpoint_where_of(ep, id);
			errorf(err, "%s: empty value%s", w, k->optout ? "" : " (this key has no opt-out)");
			free(w);
		}
		return NULL;
	}
	return v;
}

/* The table's message ("KEY=V is ...") after where the value came from;
 * why is taken (freed). Returns -1. */
static int typed_err(const struct endpoint *ep, enum key_id id, char *why, char **err)
{
	const struct endpoint_entry *e = &ep->e[id];
	if (err && e->line > 0)
		errorf(err, "%s:%d: %s", ep->path, e->line, why ? why : "invalid");
	else if (err)
		errorf(err, "%s%s%s", e->line < 0 ? "--set " : ep->path, e->line < 0 ? "" : ": ",
		       why ? why : "invalid");
	free(why);
	return -1;
}

/* The three typed reads: the value in force through the table's parse
 * for the type (keys.h), the error after where the value came from. */
enum typed { TYPED_UINT, TYPED_NUMBER, TYPED_BOOL };

static int typed(const struct endpoint *ep, enum key_id id, enum typed t, void *out, char **err)
{
	const char *v = need(ep, id, err);
	if (!v)
		return -1;
	const struct key_def *k = keys_at(id);
	char *why = NULL;
	int rc = t == TYPED_UINT     ? key_parse_uint(k, v, out, &why)
		 : t == TYPED_NUMBER ? key_parse_number(k, v, out, &why)
				     : key_parse_bool(k, v, out, &why);
	return rc ? typed_err(ep, id, why, err) : 0;
}

static int typed_named(const struct endpoint *ep, const char *name, enum typed t, void *out, char **err)
{
	size_t idx = key_index(name);
	if (idx == K__COUNT)
		return err ? errorf(err, "unknown key '%s'", name) : -1;
	return typed(ep, (enum key_id)idx, t, out, err);
}

int endpoint_uint_of(const struct endpoint *ep, enum key_id id, uint64_t *out, char **err)
{
	return typed(ep, id, TYPED_UINT, out, err);
}

int endpoint_number_of(const struct endpoint *ep, enum key_id id, double *out, char **err)
{
	return typed(ep, id, TYPED_NUMBER, out, err);
}

int endpoint_bool_of(const struct endpoint *ep, enum key_id id, int *out, char **err)
{
	return typed(ep, id, TYPED_BOOL, out, err);
}

int endpoint_uint_named(const struct endpoint *ep, const char *name, uint64_t *out, char **err)
{
	return typed_named(ep, name, TYPED_UINT, out, err);
}

int endpoint_number_named(const struct endpoint *ep, const char *name, double *out, char **err)
{
	return typed_named(ep, name, TYPED_NUMBER, out, err);
}

int endpoint_bool_named(const struct endpoint *ep, const char *name, int *out, char **err)
{
	return typed_named(ep, name, TYPED_BOOL, out, err);
}

int endpoint_u32(const struct endpoint *ep, enum key_id id, uint32_t *out, char **err)
{
	uint64_t v;
	if (endpoint_uint_of(ep, id, &v, err))
		return -1;
	if (v > UINT32_MAX) /* a row whose range is wider than its field: a bug in the caller */
		return err ? errorf(err, "%s: %llu does not fit 32 bits", key_name(id), (unsigned long long)v) : -1;
	*out = (uint32_t)v;
	return 0;
}

char *endpoint_path_of(const struct endpoint *ep, enum key_id id)
{
	const char *v = endpoint_value_of(ep, id);
	if (!v || !*v)
		return NULL;
	if (v[0] == '/' || (id == K_RUNTIME && !strchr(v, '/')))
		return xstrdup(v);
	struct sb b = {0};
	sb_addf(&b, "%s/%s", ep->dir, v);
	return sb_detach(&b);
}

char *endpoint_path_named(const struct endpoint *ep, const char *name)
{
	size_t idx = key_index(name);
	return idx < K__COUNT ? endpoint_path_of(ep, (enum key_id)idx) : NULL;
}

char *endpoint_read_key(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return NULL;
	char line[1024];
	char *key = NULL;
	while (!key && fgets(line, sizeof(line), f)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (line[0] && line[0] != '#')
			key = xstrdup(line);
	}
	fclose(f);
	return key;
}

size_t endpoint_gated_extra(const struct endpoint *ep, struct endpoint_gate *out, size_t max)
{
	const char *p = endpoint_value_of(ep, K_EXTRA_ARGS);
	size_t n = 0;
	char word[64];
	for (size_t m; (m = next_word(&p, word, sizeof(word)));) {
		/* a word cut at 63 bytes names no flag the table knows */
		const struct key_def *k = m < 63 ? key_owning_flag(word) : NULL;
		if (k) {
			if (n < max) {
				snprintf(out[n].word, sizeof(out[n].word), "%s", word);
				out[n].owner = k;
			}
			n++;
		}
	}
	return n;
}
