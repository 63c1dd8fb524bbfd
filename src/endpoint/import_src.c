/* import's sources: a systemd unit's ExecStart= and a llama-swap model's
 * cmd, each made a command line of words (import.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "import.h"

static void push(struct import_words *w, struct sb *word)
{
	w->v = xreallocarray(w->v, w->n + 1, sizeof(*w->v));
	w->v[w->n++] = xstrdup(word->s ? word->s : "");
	word->len = 0;
	if (word->s)
		word->s[0] = '\0';
}

/* A unit's `%` and `$` (systemd.service(5)): `%%` and `$$` are themselves;
 * a specifier or a variable is refused. 0, or -1 with *err. */
static int unit_special(const char **pp, struct sb *word, char **err)
{
	const char *p = *pp;
	if ((p[0] == '%' || p[0] == '$') && p[1] == p[0]) {
		sb_addc(word, p[0]);
		*pp = p + 1;
		return 0;
	}
	if (p[0] == '%')
		return errorf(err, "ExecStart= holds the specifier %%%c: zealot imports only what it reads as written",
			      p[1] ? p[1] : '?');
	if (p[1] == '{' || p[1] == '_' || (p[1] >= 'A' && p[1] <= 'Z') || (p[1] >= 'a' && p[1] <= 'z'))
		return errorf(err,
			      "ExecStart= holds an environment variable ($%.20s): its value is the unit's, "
			      "not the command line's",
			      p + 1);
	sb_addc(word, '$');
	return 0;
}

/* Split a command line into words: blanks separate them; '...' is taken
 * verbatim, "..." with a backslash escaping the byte after it, and a
 * backslash outside quotes escapes the next byte. unit: `%` and `$` as
 * systemd reads them. */
static int split(const char *s, int unit, struct import_words *w, char **err)
{
	struct sb word = {0};
	int in_word = 0;
	for (const char *p = s; *p; p++) {
		if (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') {
			if (in_word)
				push(w, &word);
			in_word = 0;
			continue;
		}
		in_word = 1;
		if (*p == '\'' || *p == '"') {
			char q = *p++;
			for (; *p && *p != q; p++) {
				if (q == '"' && *p == '\\' && p[1])
					p++;
				else if (unit && (*p == '%' || *p == '$') && unit_special(&p, &word, err))
					goto fail;
				else if (unit && (*p == '%' || *p == '$'))
					continue;
				sb_addc(&word, *p);
			}
			if (!*p) {
				errorf(err, "a quote (%c) never closed", q);
				goto fail;
			}
		} else if (*p == '\\' && p[1]) {
			sb_addc(&word, *++p);
		} else if (unit && (*p == '%' || *p == '$')) {
			if (unit_special(&p, &word, err))
				goto fail;
		} else {
			sb_addc(&word, *p);
		}
	}
	if (in_word)
		push(w, &word);
	sb_release(&word);
	return 0;
fail:
	sb_release(&word);
	return -1;
}

/* The unit's text as logical lines: a trailing backslash joins the next
 * line (systemd.syntax(7)). Each line is handed to fn. */
static char *join_lines(const char *text)
{
	struct sb b = {0};
	for (const char *p = text; *p; p++) {
		if (*p == '\\' && (p[1] == '\n' || (p[1] == '\r' && p[2] == '\n'))) {
			sb_addc(&b, ' ');
			p += p[1] == '\r' ? 2 : 1;
			continue;
		}
		sb_addc(&b, *p);
	}
	return b.s ? sb_detach(&b) : xstrdup("");
}

enum zerr import_unit_words(const char *text, struct import_words *w, char **err)
{
	memset(w, 0, sizeof(*w));
	char *all = join_lines(text), *exec = NULL;
	int service = 0, n_exec = 0;
	enum zerr rc = ZE_OK;
	for (char *line = all, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		line += strspn(line, " \t");
		size_t n = strlen(line);
		while (n && (line[n - 1] == '\r' || line[n - 1] == ' ' || line[n - 1] == '\t'))
			line[--n] = '\0';
		if (line[0] == '[') {
			service = strcmp(line, "[Service]") == 0;
		} else if (service && strncmp(line, "ExecStart=", 10) == 0) {
			exec = line + 10 + strspn(line + 10, " \t");
			n_exec = *exec ? n_exec + 1 : 0; /* an empty ExecStart= resets the list */
		} else if (service && strncmp(line, "WorkingDirectory=", 17) == 0) {
			free(w->workdir);
			const char *d = line + 17;
			w->workdir = xstrdup(d + (d[0] == '-'));
		}
	}
	if (n_exec != 1) {
		rc = ZE_USAGE;
		errorf(err,
		       n_exec ? "the unit has %d ExecStart= lines: zealot imports one command"
			      : "the unit has no ExecStart= in [Service]",
		       n_exec);
		goto done;
	}
	int at = 0; /* systemd.service(5)'s prefixes; '@': the second word is argv[0] */
	for (; strchr("-@:+!", *exec) && *exec; exec++)
		at |= *exec == '@';
	if (split(exec, 1, w, err)) {
		rc = ZE_USAGE;
		goto done;
	}
	if (at && w->n >= 2) {
		free(w->v[1]);
		memmove(w->v + 1, w->v + 2, (w->n - 2) * sizeof(*w->v));
		w->n--;
	}
	if (w->workdir && w->workdir[0] != '/') {
		rc = ZE_USAGE;
		errorf(err, "WorkingDirectory=%s: zealot reads only an absolute directory", w->workdir);
	}
done:
	free(all);
	if (rc != ZE_OK)
		import_words_release(w);
	return rc;
}

/* A YAML line as the minimal reader sees it. */
struct yline {
	int no;		 /* from 1 */
	size_t indent;	 /* leading blanks */
	const char *key; /* "name" of `name: ...`, unquoted, or NULL */
	size_t key_n;
	const char *val; /* what follows `: `, blanks trimmed */
	size_t val_n;
	int blank; /* empty or a comment */
};

static void yread(const char *line, size_t n, int no, struct yline *y)
{
	memset(y, 0, sizeof(*y));
	y->no = no;
	y->indent = strspn(line, " ");
	const char *p = line + y->indent;
	size_t m = n - y->indent;
	while (m && (p[m - 1] == ' ' || p[m - 1] == '\r'))
		m--;
	if (!m || p[0] == '#') {
		y->blank = 1;
		return;
	}
	const char *k = p, *ke;
	if (p[0] == '"' || p[0] == '\'') {
		const char *q = memchr(p + 1, p[0], m - 1);
		if (!q || q + 1 >= p + m || q[1] != ':')
			return;
		k = p + 1, ke = q;
	} else {
		ke = p;
		while (ke < p + m && *ke != ':')
			ke++;
		if (ke == p + m || (ke + 1 < p + m && ke[1] != ' '))
			return;
	}
	y->key = k;
	y->key_n = (size_t)(ke - k);
	const char *v = ke + (*ke == ':' ? 1 : 2);
	while (v < p + m && *v == ' ')
		v++;
	y->val = v;
	y->val_n = (size_t)(p + m - v);
	/* a comment after the value */
	for (size_t i = 0; i < y->val_n; i++)
		if (y->val[i] == '#' && (i == 0 || y->val[i - 1] == ' ')) {
			y->val_n = i;
			while (y->val_n && y->val[y->val_n - 1] == ' ')
				y->val_n--;
			break;
		}
}

static int ykey(const struct yline *y, const char *name)
{
	return y->key && y->key_n == strlen(name) && strncmp(y->key, name, y->key_n) == 0;
}

/* The text's lines, read. */
static struct yline *ylines(const char *text, size_t *n_out, char **err)
{
	struct yline *v = NULL;
	size_t n = 0;
	int no = 1;
	for (const char *p = text; *p; no++) {
		size_t m = strcspn(p, "\n");
		if (memchr(p, '\t', m) && strspn(p, " \t") > strspn(p, " ")) {
			free(v);
			return errorf(err, "line %d: a tab in the indentation: zealot's reader takes blanks only", no),
			       NULL;
		}
		v = xreallocarray(v, n + 1, sizeof(*v));
		yread(p, m, no, &v[n++]);
		p += m + (p[m] == '\n');
	}
	*n_out = n;
	return v;
}

/* The block under line i (lines indented deeper), [i+1, end). */
static size_t yblock_end(const struct yline *y, size_t n, size_t i)
{
	size_t e = i + 1;
	while (e < n && (y[e].blank || y[e].indent > y[i].indent))
		e++;
	return e;
}

/* A scalar value: quotes dropped. */
static char *yscalar(const char *v, size_t n)
{
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0])
		return xstrndup(v + 1, n - 2);
	return xstrndup(v, n);
}

/* The cmd at line c: `cmd: ONE LINE`, or `cmd: |` / `|-` / `>` and the
 * lines under it. llama-swap drops a cmd's comment lines. */
static char *ycmd(const char *text, const struct yline *y, size_t n, size_t c, char **err)
{
	const struct yline *l = &y[c];
	if (!(l->val_n && (l->val[0] == '|' || l->val[0] == '>')))
		return l->val_n && strchr("{[&*!", l->val[0])
			   ? (errorf(err, "line %d: cmd: a YAML shape zealot's reader does not take", l->no), NULL)
			   : yscalar(l->val, l->val_n);
	struct sb b = {0};
	size_t e = yblock_end(y, n, c);
	const char *p = text;
	for (int no = 1; no < y[c].no + 1; no++)
		p = strchr(p, '\n') + 1;
	for (size_t i = c + 1; i < e; i++) {
		size_t m = strcspn(p, "\n");
		const char *s = p + strspn(p, " ");
		if (*s != '#') {
			size_t k = m;
			while (k && (p[k - 1] == ' ' || p[k - 1] == '\r'))
				k--;
			sb_add(&b, p, k && p[k - 1] == '\\' ? k - 1 : k); /* a continuation's backslash */
			sb_addc(&b, ' ');
		}
		p += m + (p[m] == '\n');
	}
	return b.s ? sb_detach(&b) : xstrdup("");
}

/* ${name} from macros (line m: `macros:`), PORT left as it is. */
static char *expand(const char *cmd, const struct yline *y, size_t n, size_t m, char **err)
{
	struct sb b = {0};
	for (const char *p = cmd; *p; p++) {
		const char *close = p[0] == '$' && p[1] == '{' ? strchr(p, '}') : NULL;
		if (!close) {
			sb_addc(&b, *p);
			continue;
		}
		size_t kn = (size_t)(close - p - 2);
		int found = kn == 4 && strncmp(p + 2, "PORT", 4) == 0;
		if (found)
			sb_add(&b, p, kn + 3);
		for (size_t i = m + 1; !found && m < n && i < yblock_end(y, n, m); i++)
			if (y[i].key && y[i].key_n == kn && strncmp(y[i].key, p + 2, kn) == 0) {
				char *v = yscalar(y[i].val, y[i].val_n);
				sb_adds(&b, v);
				free(v);
				found = 1;
			}
		if (!found) {
			sb_release(&b);
			return errorf(err, "cmd names the macro ${%.*s}, which macros: does not define", (int)kn,
				      p + 2),
			       NULL;
		}
		p = close;
	}
	return b.s ? sb_detach(&b) : xstrdup("");
}

/* Drop `--port ${PORT}` (the port is llama-swap's); any other ${PORT} is
 * refused. */
static int drop_port(struct import_words *w, char **err)
{
	for (size_t i = 0; i < w->n; i++) {
		size_t k = strcmp(w->v[i], "--port=${PORT}") == 0					       ? 1
			   : strcmp(w->v[i], "--port") == 0 && i + 1 < w->n && !strcmp(w->v[i + 1], "${PORT}") ? 2
													       : 0;
		if (k) {
			for (size_t j = i; j < i + k; j++)
				free(w->v[j]);
			memmove(w->v + i, w->v + i + k, (w->n - i - k) * sizeof(*w->v));
			w->n -= k;
			w->swap_port = 1;
			i--;
		} else if (strstr(w->v[i], "${PORT}")) {
			return errorf(err, "'%s': llama-swap's ${PORT} is taken only as --port ${PORT}", w->v[i]);
		}
	}
	return 0;
}

enum zerr import_swap_words(const char *text, const char *model, struct import_words *w, char **err)
{
	memset(w, 0, sizeof(*w));
	size_t n, models = (size_t)-1, macros = (size_t)-1, entry = (size_t)-1, cmd = (size_t)-1;
	struct yline *y = ylines(text, &n, err);
	if (!y)
		return ZE_USAGE;
	enum zerr rc = ZE_USAGE;
	char *raw = NULL, *full = NULL;
	for (size_t i = 0; i < n; i++) {
		if (!y[i].blank && y[i].indent == 0 && ykey(&y[i], "models"))
			models = i;
		if (!y[i].blank && y[i].indent == 0 && ykey(&y[i], "macros"))
			macros = i;
	}
	if (models == (size_t)-1) {
		errorf(err, "no models: at the top level");
		goto done;
	}
	size_t me = yblock_end(y, n, models), child = 0;
	for (size_t i = models + 1; i < me; i++) {
		if (y[i].blank)
			continue;
		if (!child)
			child = y[i].indent;
		if (y[i].indent == child && ykey(&y[i], model))
			entry = i;
	}
	if (entry == (size_t)-1) {
		rc = ZE_NOTFOUND;
		errorf(err, "models: has no model '%s'", model);
		goto done;
	}
	size_t ee = yblock_end(y, n, entry);
	for (size_t i = entry + 1; i < ee; i++)
		if (!y[i].blank && ykey(&y[i], "cmd") && cmd == (size_t)-1)
			cmd = i;
	if (cmd == (size_t)-1) {
		errorf(err, "line %d: model '%s' has no cmd:", y[entry].no, model);
		goto done;
	}
	if (!(raw = ycmd(text, y, n, cmd, err)) || !(full = expand(raw, y, n, macros, err)))
		goto done;
	if (split(full, 0, w, err) || drop_port(w, err)) {
		import_words_release(w);
		goto done;
	}
	rc = ZE_OK;
done:
	free(raw);
	free(full);
	free(y);
	return rc;
}
