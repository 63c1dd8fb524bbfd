#include "options.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/color.h"
#include "../base/util.h"
#include "cmd.h"
#include "version.h"

int opt_json;
const struct opt opt_json_only[] = {
    OPT_FLAG(0, "json", &opt_json, "one JSON object (see above)"),
    OPT_END(),
};

void opt_list_release(struct opt_list *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

void opt_args_release(struct opt_args *a)
{
	free(a->v);
	a->v = NULL;
	a->n = 0;
}

void opt_release(const struct opt *opts, struct opt_args *a)
{
	opt_args_release(a);
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++)
		if (o->kind == OPT_KIND_LIST)
			opt_list_release(o->value);
}

static int takes_arg(const struct opt *o)
{
	return o->kind != OPT_KIND_FLAG;
}

/* "  -f, --force VALUE" into b, for the help table. */
static void opt_label(struct sb *b, const struct opt *o)
{
	sb_adds(b, "  ");
	if (o->short_name)
		sb_addf(b, "-%c%s", o->short_name, o->long_name ? ", " : "");
	if (o->long_name)
		sb_addf(b, "--%s", o->long_name);
	if (takes_arg(o) && o->argh)
		sb_addf(b, " %s", o->argh);
}

/* --help fits this many columns: a help line longer than the room left
 * after the option column wraps at a blank. */
#define HELP_COLUMNS 100

/* An option's help may span lines; each further line starts at col. */
static void put_help(FILE *f, int col, const char *h)
{
	size_t room = col < HELP_COLUMNS - 20 ? (size_t)(HELP_COLUMNS - col) : 20;
	for (;;) {
		size_t n = strcspn(h, "\n");
		while (n > room) { /* the last blank that fits, else the first after */
			size_t cut = room;
			while (cut > 0 && h[cut] != ' ')
				cut--;
			if (cut == 0)
				cut = strcspn(h, " ") < n ? strcspn(h, " ") : n;
			if (cut == n)
				break;
			fprintf(f, "%.*s\n%*s", (int)cut, h, col, "");
			h += cut + 1;
			n -= cut + 1;
		}
		fprintf(f, "%.*s\n", (int)n, h);
		if (!h[n] || !h[n + 1])
			return;
		h += n + 1;
		fprintf(f, "%*s", col, "");
	}
}

void opt_usage(FILE *f, const struct cmd_help *help, const struct opt *opts)
{
	const char *u = help->usage;
	/* Every usage line gets the "usage: " column. */
	for (int first = 1; *u; first = 0) {
		size_t n = strcspn(u, "\n");
		fprintf(f, "%s%.*s\n", first ? "usage: " : "       ", (int)n, u);
		u += n + (u[n] == '\n');
	}
	if (help->about)
		fprintf(f, "\n%s", help->about);
	if (help->about && help->about[0] && help->about[strlen(help->about) - 1] != '\n')
		fputc('\n', f);
	fputc('\n', f);

	size_t width = strlen("  -h, --help");
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++) {
		struct sb b = {0};
		opt_label(&b, o);
		if (b.len > width && b.len <= 30)
			width = b.len;
		sb_release(&b);
	}
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++) {
		struct sb b = {0};
		opt_label(&b, o);
		if (b.len > width)
			fprintf(f, "%s\n%*s", b.s, (int)width + 2, "");
		else
			fprintf(f, "%-*s  ", (int)width, b.s);
		put_help(f, (int)width + 2, o->help);
		sb_release(&b);
	}
	fprintf(f, "%-*s  %s\n", (int)width, "  -h, --help", "this text");
	if (help->more) {
		fputc('\n', f);
		help->more(f);
	}
	if (help->examples)
		fprintf(f, "\nexamples:\n%s", help->examples);
	if (help->exits)
		fprintf(f, "\nexit: %s\n", help->exits);
}

/* The closest long option to a misspelt one, or NULL. */
static const char *suggest(const struct opt *opts, const char *name)
{
	struct near n = near_start(name, 2);
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++)
		if (o->long_name)
			near_try(&n, o->long_name);
	return n.best;
}

static int choice_ok(const char *choices, const char *v)
{
	size_t n = strlen(v);
	while (*choices) {
		size_t m = strcspn(choices, "|");
		if (m == n && strncmp(choices, v, n) == 0)
			return 1;
		choices += m + (choices[m] == '|');
	}
	return 0;
}

/* Store one argument; on error, a message naming the option. */
static int store(const char *name, const struct opt *o, const char *arg, const char *spelled)
{
	switch (o->kind) {
	case OPT_KIND_FLAG: *(int *)o->value = 1; return 0;
	case OPT_KIND_STRING: *(const char **)o->value = arg; return 0;
	case OPT_KIND_CHOICE:
		if (!choice_ok(o->argh, arg))
			return cmd_fail(EXIT_USAGE, "%s: %s takes one of %s, not '%s'", name, spelled, o->argh, arg);
		*(const char **)o->value = arg;
		return 0;
	case OPT_KIND_U64: {
		uint64_t v;
		if (parse_u64(arg, &v) || v < o->min || (o->max && v > o->max)) {
			if (o->max)
				return cmd_fail(EXIT_USAGE, "%s: %s takes a whole number from %llu to %llu, not '%s'",
						name, spelled, (unsigned long long)o->min, (unsigned long long)o->max,
						arg);
			return cmd_fail(EXIT_USAGE, "%s: %s takes a whole number of at least %llu, not '%s'", name,
					spelled, (unsigned long long)o->min, arg);
		}
		*(uint64_t *)o->value = v;
		return 0;
	}
	case OPT_KIND_DOUBLE: {
		double v;
		if (parse_double(arg, &v) || !isfinite(v))
			return cmd_fail(EXIT_USAGE, "%s: %s takes a number, not '%s'", name, spelled, arg);
		*(double *)o->value = v;
		return 0;
	}
	case OPT_KIND_LIST: {
		struct opt_list *l = o->value;
		l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
		l->v[l->n++] = arg;
		return 0;
	}
	case OPT_KIND_END: break;
	}
	return cmd_fail(EXIT_USAGE, "%s: %s: not an option kind this parser knows", name, spelled);
}

static const struct opt *find_long(const struct opt *opts, const char *name, size_t n)
{
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++)
		if (o->long_name && strlen(o->long_name) == n && strncmp(o->long_name, name, n) == 0)
			return o;
	return NULL;
}

static const struct opt *find_short(const struct opt *opts, char c)
{
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++)
		if (o->short_name == c)
			return o;
	return NULL;
}

int opt_usage_error(const char *name, const struct cmd_help *help, const char *what)
{
	return cmd_fail(EXIT_USAGE, "%s: %s (usage: %.*s)", name, what, (int)strcspn(help->usage, "\n"), help->usage);
}

int opt_color_word(const char *s, const char *name)
{
	if (strncmp(s, "--color", 7) != 0 || (s[7] != '=' && s[7] != '\0'))
		return 0;
	const char *w = s[7] ? s + 8 : "always";
	if (color_when(w))
		return cmd_fail(EXIT_USAGE, "%s%s--color=%s: auto, always or never", name ? name : "", name ? ": " : "",
				w);
	return 1;
}

int opt_parse(const char *name, const struct cmd_help *help, const struct opt *opts, int argc, char **argv,
	      struct opt_args *a)
{
	a->v = xcalloc((size_t)(argc > 0 ? argc : 1), sizeof(*a->v));
	a->n = 0;
	int only_args = 0, rc = -1;
	for (int i = 1; i < argc && rc < 0; i++) {
		const char *s = argv[i];
		if (only_args || s[0] != '-' || s[1] == '\0') {
			a->v[a->n++] = argv[i];
			continue;
		}
		if (strcmp(s, "--") == 0) {
			only_args = 1;
			continue;
		}
		if (strcmp(s, "--help") == 0 || strcmp(s, "-h") == 0) {
			opt_usage(stdout, help, opts);
			rc = EXIT_OK;
			break;
		}
		int cw = find_long(opts, "color", 5) ? 0 : opt_color_word(s, name);
		if (cw) {
			if (cw == EXIT_USAGE)
				rc = EXIT_USAGE;
			continue;
		}
		char spelled[80];
		const struct opt *o;
		const char *arg = NULL;
		if (s[1] == '-') {
			const char *eq = strchr(s + 2, '=');
			size_t n = eq ? (size_t)(eq - s - 2) : strlen(s + 2);
			o = find_long(opts, s + 2, n);
			snprintf(spelled, sizeof(spelled), "--%.*s", (int)(n < 64 ? n : 64), s + 2);
			if (!o) {
				char want[80];
				snprintf(want, sizeof(want), "%.*s", (int)(n < 64 ? n : 64), s + 2);
				const char *sug = suggest(opts, want);
				if (sug)
					rc = cmd_fail(EXIT_USAGE, "%s: unknown option '%s' (did you mean --%s?)", name,
						      spelled, sug);
				else
					rc = cmd_fail(EXIT_USAGE, "%s: unknown option '%s' (see 'zealot %s --help')",
						      name, spelled, name);
				break;
			}
			if (eq && !takes_arg(o)) {
				rc = cmd_fail(EXIT_USAGE, "%s: %s takes no value", name, spelled);
				break;
			}
			arg = eq ? eq + 1 : NULL;
		} else {
			o = find_short(opts, s[1]);
			snprintf(spelled, sizeof(spelled), "-%c", s[1]);
			if (!o) {
				rc = cmd_fail(EXIT_USAGE, "%s: unknown option '%s' (see 'zealot %s --help')", name,
					      spelled, name);
				break;
			}
			if (s[2] && !takes_arg(o)) {
				rc = cmd_fail(EXIT_USAGE, "%s: %s takes no value (options are not bundled)", name,
					      spelled);
				break;
			}
			arg = s[2] ? s + 2 : NULL;
		}
		if (takes_arg(o) && !arg) {
			if (i + 1 >= argc) {
				rc = cmd_fail(EXIT_USAGE, "%s: %s needs a value (%s)", name, spelled,
					      o->argh ? o->argh : "VALUE");
				break;
			}
			arg = argv[++i];
		}
		if (store(name, o, arg, spelled))
			rc = EXIT_USAGE;
	}
	if (rc < 0 && a->n < help->min_args)
		rc = opt_usage_error(name, help, "missing argument");
	if (rc < 0 && help->max_args != OPT_ARGS_ANY && a->n > help->max_args) {
		char what[128];
		snprintf(what, sizeof(what), "unexpected argument '%.64s'", a->v[help->max_args]);
		rc = opt_usage_error(name, help, what);
	}
	if (rc >= 0) /* the command will not run: free what was collected */
		opt_release(opts, a);
	return rc;
}

void opt_roff_span(FILE *f, const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\\')
			fputs("\\e", f);
		else if (s[i] == '-')
			fputs("\\-", f);
		else if ((s[i] == '.' || s[i] == '\'') && (i == 0 || s[i - 1] == '\n'))
			fprintf(f, "\\&%c", s[i]);
		else
			fputc(s[i], f);
	}
}

void opt_md_span(FILE *f, const char *s, size_t n)
{
	int code = 0; /* inside `...`: as it is */
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '`')
			code = !code;
		else if (!code && strchr("\\*_<>[]|", s[i]))
			fputc('\\', f);
		else if (!code && s[i] == '#' && (i == 0 || s[i - 1] == '\n'))
			fputc('\\', f);
		fputc(s[i], f);
	}
}

/* The next line of *t (without its newline); advances *t. */
static size_t next_line(const char **t, const char **line)
{
	*line = *t;
	size_t n = strcspn(*t, "\n");
	*t += n + ((*t)[n] == '\n');
	return n;
}

/* How hand-broken text becomes a page: an indented run of lines is a block
 * (opened and closed by these strings, its lines as they are when raw), a
 * blank line a new paragraph, every other line spanned. */
struct text_fmt {
	const char *open, *close, *para;
	void (*span)(FILE *, const char *, size_t);
	int raw;
};

/* A man page's no-fill line fits man's 80 columns: 72 after its 7-column
 * indent and a margin. */
#define ROFF_NF_WIDTH 72

/* One no-fill line for roff, spanned and broken at spaces to fit
 * ROFF_NF_WIDTH: each further piece is indented to the line's second
 * column (after its first gap of two blanks: a table's), else its third
 * word (a usage line's options), else 4. */
static void roff_nf_line(FILE *f, const char *l, size_t n)
{
	size_t hang = 0, lead = 0;
	while (lead < n && l[lead] == ' ')
		lead++;
	for (size_t i = lead; i + 2 < n && !hang; i++)
		if (l[i] == ' ' && l[i + 1] == ' ') {
			size_t j = i;
			while (j < n && l[j] == ' ')
				j++;
			hang = j;
		}
	if (!hang) {
		size_t words = 0;
		for (size_t i = lead; i < n && !hang; i++)
			if (l[i] == ' ' && ++words == 2)
				hang = i + 1;
	}
	if (!hang || hang > ROFF_NF_WIDTH / 2)
		hang = lead + 4;
	size_t width = ROFF_NF_WIDTH, pad = 0;
	while (n > width) {
		size_t cut = width;
		while (cut > hang && l[cut] != ' ')
			cut--;
		if (cut <= hang) /* one word longer than the line: kept whole */
			break;
		fprintf(f, "%*s", (int)pad, "");
		opt_roff_span(f, l, cut);
		fputc('\n', f);
		while (cut < n && l[cut] == ' ')
			cut++;
		l += cut;
		n -= cut;
		pad = hang;
		width = ROFF_NF_WIDTH - hang;
	}
	fprintf(f, "%*s", (int)pad, "");
	opt_roff_span(f, l, n);
	fputc('\n', f);
}

/* Text of n bytes in a roff no-fill block, each line through roff_nf_line. */
static void roff_nf(FILE *f, const char *t, size_t n)
{
	while (n) {
		size_t k = 0;
		while (k < n && t[k] != '\n')
			k++;
		roff_nf_line(f, t, k);
		k += k < n;
		t += k;
		n -= k;
	}
}

/* One line of n bytes: as it is (inside a block, raw), broken to fit (a
 * roff block) or spanned. */
static void put_line(FILE *f, const char *l, size_t n, int block, const struct text_fmt *x)
{
	if (block && x->raw) {
		fprintf(f, "%.*s\n", (int)n, l);
	} else if (block && x->span == opt_roff_span) {
		roff_nf_line(f, l, n);
	} else {
		x->span(f, l, n);
		fputc('\n', f);
	}
}

static void put_text(FILE *f, const char *t, const struct text_fmt *x)
{
	int block = 0;
	while (*t) {
		const char *l;
		size_t n = next_line(&t, &l);
		int indented = n > 0 && l[0] == ' ';
		if (indented != block) {
			fputs(indented ? x->open : x->close, f);
			block = indented;
		}
		if (n == 0)
			fputs(x->para, f);
		else
			put_line(f, l, n, block, x);
	}
	if (block)
		fputs(x->close, f);
}

/* Every line of t as one block, indented or not (a synopsis). */
static void put_block(FILE *f, const char *t, const struct text_fmt *x)
{
	fputs(x->open, f);
	while (*t) {
		const char *l;
		size_t n = next_line(&t, &l);
		put_line(f, l, n, 1, x);
	}
	fputs(x->close, f);
}

static const struct text_fmt roff_fmt = {".nf\n", ".fi\n", ".PP\n", opt_roff_span, 0};
static const struct text_fmt md_fmt = {"```\n", "```\n", "\n", opt_md_span, 1};

void opt_roff_text(FILE *f, const char *t)
{
	put_text(f, t, &roff_fmt);
}

void opt_md_text(FILE *f, const char *t)
{
	put_text(f, t, &md_fmt);
}

void opt_man_head(FILE *f, const char *page, int section, const char *summary)
{
	fputs(".TH \"", f);
	for (const char *p = page; *p; p++)
		fputc(*p >= 'a' && *p <= 'z' ? *p - 'a' + 'A' : *p, f);
	fprintf(f, "\" %d \"\" \"zealot %s\" \"zealot manual\"\n.SH NAME\n", section, ZEALOT_VERSION);
	opt_roff_span(f, page, strlen(page));
	fputs(" \\- ", f);
	opt_roff_span(f, summary, strlen(summary));
	fputc('\n', f);
}

/* What a `more` callback prints, as a string the caller frees. */
static char *more_text(const struct cmd_help *help)
{
	char *s = NULL;
	size_t n = 0;
	FILE *m = open_memstream(&s, &n);
	if (!m)
		return NULL;
	help->more(m);
	fclose(m);
	return s;
}

/* An option's help on one line (its \n are spaces), through span (roff,
 * Markdown), and a newline. */
static void joined(FILE *f, const char *h, void (*span)(FILE *, const char *, size_t))
{
	struct sb b = {0};
	for (; *h; h++)
		sb_addc(&b, *h == '\n' ? ' ' : *h);
	span(f, b.s ? b.s : "", b.len);
	fputc('\n', f);
	sb_release(&b);
}

static void render_man(FILE *f, const char *name, const struct cmd_help *help, const struct opt *opts)
{
	struct sb page = {0};
	sb_addf(&page, "zealot-%s", name);
	for (size_t i = 0; i < page.len; i++)
		if (page.s[i] == ' ')
			page.s[i] = '-';
	opt_man_head(f, page.s, 1, help->summary ? help->summary : name);
	sb_release(&page);
	fputs(".SH SYNOPSIS\n", f);
	put_block(f, help->usage, &roff_fmt);
	if (help->about && *help->about) {
		fputs(".SH DESCRIPTION\n", f);
		opt_roff_text(f, help->about);
	}
	fputs(".SH OPTIONS\n", f);
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++) {
		fputs(".TP\n", f);
		if (o->short_name)
			fprintf(f, "\\fB\\-%c\\fR%s", o->short_name, o->long_name ? ", " : "");
		if (o->long_name) {
			fputs("\\fB\\-\\-", f);
			opt_roff_span(f, o->long_name, strlen(o->long_name));
			fputs("\\fR", f);
		}
		if (takes_arg(o) && o->argh) {
			fputs(" \\fI", f);
			opt_roff_span(f, o->argh, strlen(o->argh));
			fputs("\\fR", f);
		}
		fputc('\n', f);
		joined(f, o->help, opt_roff_span);
	}
	fputs(".TP\n\\fB\\-h\\fR, \\fB\\-\\-help\\fR\nthis text\n", f);
	if (help->more) {
		char *m = more_text(help);
		if (m) {
			fputs(".SH NOTES\n.nf\n", f);
			roff_nf(f, m, strlen(m));
			fputs(".fi\n", f);
		}
		free(m);
	}
	if (help->examples) {
		fputs(".SH EXAMPLES\n.nf\n", f);
		roff_nf(f, help->examples, strlen(help->examples));
		fputs(".fi\n", f);
	}
	if (help->exits) {
		fputs(".SH EXIT STATUS\n", f);
		opt_roff_span(f, help->exits, strlen(help->exits));
		fputc('\n', f);
	}
	fputs(".SH SEE ALSO\n\\fBzealot\\fR(1), \\fBzealot\\-endpoint\\fR(5), \\fBzealot\\-laws\\fR(7)\n", f);
}

static void render_md(FILE *f, const char *name, const struct cmd_help *help, const struct opt *opts)
{
	fprintf(f,
		"<!-- generated by `zealot help --markdown %s` from src/cmd/: edit the help there, then `make docs` "
		"-->\n# zealot %s\n\n",
		name, name);
	if (help->summary) {
		opt_md_span(f, help->summary, strlen(help->summary));
		fputs("\n\n", f);
	}
	put_block(f, help->usage, &md_fmt);
	if (help->about && *help->about) {
		fputc('\n', f);
		opt_md_text(f, help->about);
	}
	fputs("\n## Options\n\n", f);
	for (const struct opt *o = opts; o->kind != OPT_KIND_END; o++) {
		struct sb b = {0};
		opt_label(&b, o);
		fprintf(f, "- `%s`: ", b.s + 2);
		sb_release(&b);
		joined(f, o->help, opt_md_span);
	}
	fputs("- `-h, --help`: this text\n", f);
	if (help->more) {
		char *m = more_text(help);
		if (m)
			fprintf(f, "\n```\n%s%s```\n", m, *m && m[strlen(m) - 1] != '\n' ? "\n" : "");
		free(m);
	}
	if (help->examples)
		fprintf(f, "\n## Examples\n\n```\n%s```\n", help->examples);
	if (help->exits) {
		fputs("\n## Exit status\n\n", f);
		opt_md_span(f, help->exits, strlen(help->exits));
		fputc('\n', f);
	}
	fputs("\nSee also: [zealot](../../README.md), [the endpoint file](../endpoint.md), [the laws](../laws.md)\n",
	      f);
}

void opt_render(FILE *f, const char *name, const struct cmd_help *help, const struct opt *opts, enum opt_format fmt)
{
	if (fmt == OPT_FORMAT_MAN)
		render_man(f, name, help, opts);
	else if (fmt == OPT_FORMAT_MARKDOWN)
		render_md(f, name, help, opts);
	else
		opt_usage(f, help, opts);
}
