/* options: one table-driven option parser for every command, in the
 * spirit of git's parse-options.
 *
 * A command is data and one function (src/cmd/cmd.h, struct command):
 * its help, its option table and its run function. The options' variables
 * live at file scope, their initialisers the defaults:
 *
 *	static struct opt_list sets;
 *	static const char *device;
 *	static int json;
 *	static const struct opt opts[] = {
 *	    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key (repeatable)"),
 *	    OPT_STRING(0, "device", &device, "NAME", "price on this profile"),
 *	    OPT_FLAG(0, "json", &json, "one JSON object"),
 *	    OPT_END(),
 *	};
 *
 *	static int run(struct opt_args *a)
 *	{
 *		... a->v[0] is ENDPOINT; sets, device and json are parsed ...
 *	}
 *
 *	static const struct cmd_help help = {DOC_PLAN};
 *	const struct command cmd_plan = {"plan", &help, opts, run, NULL};
 *
 * where DOC_PLAN (doc/zealot-plan.txt, through scripts/gen-doc.sh) fills
 * the struct cmd_help: the summary, the usage line(s), the paragraphs about
 * the command, the exit statuses, the examples and how many positional
 * arguments it takes. cmd_dispatch (src/cmd/common.c) parses argv with
 * opt_parse, calls run, and releases the positionals and every
 * OPT_KIND_LIST of the table: run releases neither. --help, the man page
 * and docs/cmd/NAME.md are rendered from the same struct (opt_render).
 *
 * Options and positional arguments may be interleaved; `--` ends options;
 * `--name=value`, `--name value`, `-x value` and `-xVALUE` all work; a
 * flag never takes `=value`. An unknown option is a usage error with a
 * did-you-mean. Values are stored into the pointed-to variables (the
 * command file's statics, whose initialisers are the defaults); numbers are
 * range checked and a malformed one names the option.
 *
 * An option's help may span lines ("a\nb"): --help indents each further
 * line to the help column.
 */
#ifndef ZEALOT_OPTIONS_H
#define ZEALOT_OPTIONS_H

#include <stdint.h>
#include <stdio.h>

enum opt_kind {
	OPT_KIND_END = 0,
	OPT_KIND_FLAG,	 /* int *: set to 1 */
	OPT_KIND_STRING, /* const char **: the argument (borrowed from argv) */
	OPT_KIND_U64,	 /* uint64_t *: a whole decimal number in [min, max] */
	OPT_KIND_DOUBLE, /* double *: a finite number */
	OPT_KIND_LIST,	 /* struct opt_list *: repeatable; every argument in order */
	OPT_KIND_CHOICE, /* const char **: one of the `|`-separated words in argh */
};

/* A repeatable option's arguments, borrowed from argv; free v with
 * opt_list_release(). */
struct opt_list {
	const char **v;
	unsigned n;
};

struct opt {
	enum opt_kind kind;
	char short_name; /* 0: none */
	const char *long_name;
	void *value;
	const char *argh; /* the argument's name in help ("N", "FILE"), or the choices */
	const char *help;
	uint64_t min, max; /* OPT_KIND_U64 bounds */
};

/* One line per kind (clang-format would spread each over four). */
/* clang-format off */
#define OPT_END() {OPT_KIND_END, 0, NULL, NULL, NULL, NULL, 0, 0}
#define OPT_FLAG(s, l, v, h) {OPT_KIND_FLAG, (s), (l), (v), NULL, (h), 0, 0}
#define OPT_STRING(s, l, v, a, h) {OPT_KIND_STRING, (s), (l), (v), (a), (h), 0, 0}
#define OPT_U64(s, l, v, a, lo, hi, h) {OPT_KIND_U64, (s), (l), (v), (a), (h), (lo), (hi)}
#define OPT_DOUBLE(s, l, v, a, h) {OPT_KIND_DOUBLE, (s), (l), (v), (a), (h), 0, 0}
/* every command's --json: one JSON object on stdout */
#define OPT_JSON(v) OPT_FLAG(0, "json", (v), "one JSON object")
#define OPT_LIST(s, l, v, a, h) {OPT_KIND_LIST, (s), (l), (v), (a), (h), 0, 0}
#define OPT_CHOICE(s, l, v, choices, h) {OPT_KIND_CHOICE, (s), (l), (v), (choices), (h), 0, 0}
/* clang-format on */

/* The table of a command whose one option is --json and whose help says
 * what the JSON holds (diff, history, fleet plan): it sets opt_json. */
extern int opt_json;
extern const struct opt opt_json_only[];

/* What --help prints, besides the option table. */
struct cmd_help {
	const char *summary;   /* one line: `zealot --help`'s list, the man page's NAME */
	const char *usage;     /* "zealot plan ENDPOINT [options]" (more lines: alternatives) */
	const char *about;     /* paragraphs: what the command does, which laws */
	void (*more)(FILE *f); /* optional: a section computed at run time (device list) */
	const char *exits;     /* "0 fits, 1 refused, 2 usage, 3 unreadable" */
	const char *examples;  /* optional: "$ zealot plan x.env\n  what it shows\n" lines */
	unsigned min_args;     /* positional arguments */
	unsigned max_args;     /* OPT_ARGS_ANY: no limit */
};
#define OPT_ARGS_ANY 0xffffffffu

/* The positional arguments, in order (borrowed from argv). */
struct opt_args {
	char **v;
	unsigned n;
};

/* "--color" or "--color=WHEN", zealot's own option, taken before or after
 * a command: 0 when s is not it; 1 when it is and the choice is made; 2
 * (EXIT_USAGE) after printing the usage error, under name when not NULL. */
int opt_color_word(const char *s, const char *name);

/* Parse argv[1..argc-1] against opts. Returns -1 when the command should
 * run (a->v holds the positionals, valid as long as argv), or an exit
 * status it should return at once: 0 after printing --help to stdout,
 * 2 after printing a usage error to stderr as `zealot: NAME: ...`. */
int opt_parse(const char *name, const struct cmd_help *help, const struct opt *opts, int argc, char **argv,
	      struct opt_args *a);

/* A usage error the table cannot express (an option that is required, two
 * that exclude each other): prints `zealot: NAME: WHAT (usage: ...)` with
 * the first usage line, the way opt_parse reports a missing argument, and
 * returns 2. */
int opt_usage_error(const char *name, const struct cmd_help *help, const char *what);

/* The whole --help text of a command. */
void opt_usage(FILE *f, const struct cmd_help *help, const struct opt *opts);

/* One help, three renderings: the --help text, a man page (roff) and a
 * Markdown page (docs/cmd/NAME.md). `zealot help --man CMD` renders CMD's
 * struct cmd_help and option table, the ones it parses with: nothing is
 * written twice. */
enum opt_format {
	OPT_FORMAT_TEXT = 0,
	OPT_FORMAT_MAN,
	OPT_FORMAT_MARKDOWN,
};
/* The page of command `name` ("plan", "fleet plan") in fmt. */
void opt_render(FILE *f, const char *name, const struct cmd_help *help, const struct opt *opts, enum opt_format fmt);
/* Text with hand-broken lines as roff or Markdown: lines that start with a
 * space are kept as they are (a no-fill block, a code block), the others
 * are filled into paragraphs, a blank line starts a new paragraph. */
void opt_roff_text(FILE *f, const char *text);
void opt_md_text(FILE *f, const char *text);
/* One span of text escaped for roff / Markdown (n bytes of s). */
void opt_roff_span(FILE *f, const char *s, size_t n);
void opt_md_span(FILE *f, const char *s, size_t n);
/* The .TH line and NAME section of a man page. */
void opt_man_head(FILE *f, const char *page, int section, const char *summary);

void opt_list_release(struct opt_list *l);
void opt_args_release(struct opt_args *a);
/* Both: the positionals and every OPT_KIND_LIST value of opts. */
void opt_release(const struct opt *opts, struct opt_args *a);

#endif
