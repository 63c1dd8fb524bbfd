#include "import.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "endpoint.h"
#include "flags.h"
#include "keys.h"

void import_words_release(struct import_words *w)
{
	for (size_t i = 0; i < w->n; i++)
		free(w->v[i]);
	free(w->v);
	free(w->workdir);
	memset(w, 0, sizeof(*w));
}

void import_out_release(struct import_out *o)
{
	free(o->text);
	for (size_t i = 0; i < o->n_r; i++) {
		free(o->r[i].flag);
		free(o->r[i].why);
	}
	free(o->r);
	memset(o, 0, sizeof(*o));
}

/* What the import builds: each key's value, EXTRA_ARGS's words. */
struct state {
	char *val[K__COUNT];
	char from[K__COUNT][64]; /* the flag that set it, for "given twice" */
	struct sb extra;
	struct import_out *out;
	const char *dir;
};

static void refuse(struct state *s, const char *flag, const char *law, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void refuse(struct state *s, const char *flag, const char *law, const char *fmt, ...)
{
	struct sb b = {0};
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&b, fmt, ap);
	va_end(ap);
	struct import_out *o = s->out;
	o->r = xreallocarray(o->r, o->n_r + 1, sizeof(*o->r));
	o->r[o->n_r++] = (struct import_refusal){xstrdup(flag), law, sb_detach(&b)};
}

/* A word the engine reads as a flag: a dash and not a negative number. */
static int is_flag_word(const char *p)
{
	return p[0] == '-' && p[1] && !(p[1] >= '0' && p[1] <= '9') && p[1] != '.';
}

/* Whether spelling w of a value-less row is its negative twin: `--no-X`,
 * `-no-X`, or a short spelling after the row's first long one (-nkvo,
 * -nr). */
static int negative(const struct engine_flag *row, const char *w)
{
	if (!strstr(row->spellings, "--no-"))
		return 0;
	if (strncmp(w, "--no-", 5) == 0 || strncmp(w, "-no-", 4) == 0)
		return 1;
	if (w[1] == '-')
		return 0;
	const char *lng = strstr(row->spellings, "--");
	size_t n = strlen(w);
	for (const char *p = lng; p && *p;) {
		p += strspn(p, " ");
		size_t m = strcspn(p, " ");
		if (m == n && strncmp(p, w, n) == 0)
			return 1;
		p += m;
	}
	return 0;
}

/* A path as written, absolute against s->dir. */
static char *abs_path(const struct state *s, const char *v)
{
	if (v[0] == '/' || !s->dir)
		return xstrdup(v);
	struct sb b = {0};
	sb_addf(&b, "%s/%s", strcmp(s->dir, "/") == 0 ? "" : s->dir, v);
	return sb_detach(&b);
}

static void set_key(struct state *s, const struct key_def *k, const char *flag, const char *v)
{
	if (s->val[k->id]) {
		refuse(s, flag, NULL, "sets %s again (%s set it): the engine would take the last one silently", k->name,
		       s->from[k->id]);
		return;
	}
	char *err = NULL;
	if (*v && key_check_value(k, v, &err)) {
		refuse(s, flag, k->law, "%s", err);
		free(err);
		return;
	}
	s->val[k->id] = k->kind == KEY_PATH ? abs_path(s, v) : xstrdup(v);
	snprintf(s->from[k->id], sizeof(s->from[k->id]), "%s", flag);
}

/* --lora-scaled FILE:SCALE: LORA_FILE and LORA_SCALE (one adapter). */
static void set_lora(struct state *s, const char *flag, const char *v)
{
	const char *colon = strrchr(v, ':');
	if (strchr(v, ',') || !colon || colon == v) {
		refuse(s, flag, "S12", "'%s': zealot renders one adapter as FILE:SCALE", v);
		return;
	}
	char *file = xstrndup(v, (size_t)(colon - v));
	set_key(s, keys_at(K_LORA_FILE), flag, file);
	set_key(s, keys_at(K_LORA_SCALE), flag, colon + 1);
	free(file);
}

/* A flag a key owns: that key, when the key renders this very flag. */
static void owned(struct state *s, const struct engine_flag *row, const char *flag, const char *w, const char *v)
{
	const struct key_def *k = key_by_name(row->arg);
	if (!k) {
		refuse(s, flag, "C09", "owned by %s, no key of this zealot", row->arg);
		return;
	}
	const struct engine_flag *on = k->flag ? flags_find(k->flag) : NULL;
	const struct engine_flag *off = k->flag_off ? flags_find(k->flag_off) : NULL;
	if (k->id == K_LORA_FILE && row == on) {
		set_lora(s, flag, v);
	} else if (k->id == K_CTX_SIZE && strcmp(row->name, "--fit") == 0) {
		if (strcmp(v, "off") != 0)
			refuse(s, flag, "S01", "'%s %s': the engine would size the pool itself; zealot runs --fit off",
			       w, v);
	} else if (k->kind == KEY_BOOL && row->values == 0 && (row == on || row == off)) {
		int neg = negative(row, w);
		if (neg ? !k->flag_off && !off : !k->flag)
			refuse(s, flag, k->law, "%s renders no flag for it", k->name);
		else
			set_key(s, k, flag, neg ? "0" : "1");
	} else if (row == on && row->values == 1) {
		set_key(s, k, flag, v);
	} else {
		const char *r = key_flag_shown(k);
		refuse(s, flag, k->law, "owned by %s, which %s%s", k->name,
		       r ? "renders it only as " : "renders no flag", r ? r : "");
	}
}

/* A value EXTRA_ARGS can carry: split on blanks, read by the endpoint file. */
static int extra_ok(const char *v)
{
	if (!*v)
		return 0;
	for (const unsigned char *p = (const unsigned char *)v; *p; p++)
		if (*p <= ' ' || *p == 0x7f || *p == '"' || *p == '\'' || *p == '\\')
			return 0;
	return 1;
}

static void extra(struct state *s, const char *flag, const char *w, const char *v)
{
	if (!extra_ok(w) || (v && !extra_ok(v))) {
		refuse(s, flag, NULL, "'%s': EXTRA_ARGS splits on blanks and carries no quote or backslash", v ? v : w);
		return;
	}
	sb_addf(&s->extra, "%s%s", s->extra.len ? " " : "", w);
	if (v)
		sb_addf(&s->extra, " %s", v);
}

/* One flag word at w->v[*i] and its value(s); *i moves past them. */
static enum zerr one_flag(struct state *s, const struct import_words *w, size_t *i, char **err)
{
	const char *word = w->v[*i];
	char *eq = strchr(word, '=');
	const struct engine_flag *row = flags_find(word);
	char flag[96];
	snprintf(flag, sizeof(flag), "%.*s", (int)(eq ? (size_t)(eq - word) : strlen(word)), word);
	const char *v = NULL;
	if (!row) {
		/* no flag of the pinned engine: a word after it may be its value */
		if (*i + 1 < w->n && !is_flag_word(w->v[*i + 1]))
			++*i;
		refuse(s, flag, "C11", "no flag of the pinned engine (%s)", engine_flags_source);
		return ZE_OK;
	}
	if (eq) {
		if (row->values != 1)
			return errorf(err, "'%s': %s takes %s", word, flag, row->values ? "two values" : "no value"),
			       ZE_USAGE;
		v = eq + 1;
	} else if (row->values) {
		if (*i + row->values >= w->n ||
		    (row->values == 1 && is_flag_word(w->v[*i + 1]) && flags_find(w->v[*i + 1])))
			return errorf(err, "%s takes a value (the pinned engine: %s)", flag, row->spellings), ZE_USAGE;
		v = w->v[++*i];
		if (row->values == 2) {
			refuse(s, flag, NULL, "a flag of two values; zealot carries none");
			++*i;
			return ZE_OK;
		}
	}
	switch (row->cls) {
	case FLAG_REFUSED: refuse(s, flag, row->arg, "%s", row->why); break;
	case FLAG_KEY: owned(s, row, flag, flag, v ? v : ""); break;
	case FLAG_PRICED:
	case FLAG_HARMLESS: extra(s, flag, flag, v); break;
	}
	return ZE_OK;
}

/* A value for an endpoint file line: bare when every byte reads as
 * itself, else double-quoted with " \ ` $ escaped. */
static void put_value(struct sb *b, const char *v)
{
	if (strspn(v, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./:,=+@%- ") == strlen(v) &&
	    v[0] != ' ') {
		sb_adds(b, v);
		return;
	}
	sb_addc(b, '"');
	for (const char *p = v; *p; p++) {
		if (strchr("\"\\`$", *p))
			sb_addc(b, '\\');
		sb_addc(b, *p);
	}
	sb_addc(b, '"');
}

static char *render(struct state *s, const char *source)
{
	struct sb b = {0};
	sb_adds(&b, "# written by zealot import from ");
	for (const char *p = source; *p; p++)
		sb_addc(&b, (unsigned char)*p < ' ' ? '?' : *p);
	sb_adds(&b, "\n");
	for (size_t i = 0; i < K__COUNT; i++) {
		if (!s->val[i])
			continue;
		sb_addf(&b, "%s=", keys_at(i)->name);
		put_value(&b, s->val[i]);
		sb_addc(&b, '\n');
	}
	if (s->extra.len)
		sb_addf(&b, "EXTRA_ARGS=%s\n", s->extra.s);
	return sb_detach(&b);
}

enum zerr import_argv(const struct import_words *w, const char *dir, const char *source, struct import_out *out,
		      char **err)
{
	memset(out, 0, sizeof(*out));
	if (!w->n)
		return errorf(err, "no command line"), ZE_USAGE;
	struct state s = {.out = out, .dir = dir};
	enum zerr rc = ZE_OK;
	if (strcmp(w->v[0], "llama-server") != 0)
		s.val[K_RUNTIME] = strchr(w->v[0], '/') ? abs_path(&s, w->v[0]) : xstrdup(w->v[0]);
	for (size_t i = 1; i < w->n && rc == ZE_OK; i++) {
		if (!is_flag_word(w->v[i]))
			rc = (errorf(err, "unexpected argument '%s': neither a flag nor a flag's value", w->v[i]),
			      ZE_USAGE);
		else
			rc = one_flag(&s, w, &i, err);
	}
	if (rc == ZE_OK && !s.val[K_MODEL_FILE])
		refuse(&s, "-m", "C03", "no -m/--model: MODEL_FILE is the payload zealot prices");
	if (rc == ZE_OK && !s.val[K_CTX_SIZE])
		refuse(&s, "-c", "S01", "no -c/--ctx-size: the pool must be explicit");
	if (rc == ZE_OK && out->n_r)
		rc = ZE_REFUSED;
	if (rc == ZE_OK)
		out->text = render(&s, source);
	for (size_t i = 0; i < K__COUNT; i++)
		free(s.val[i]);
	sb_release(&s.extra);
	return rc;
}
