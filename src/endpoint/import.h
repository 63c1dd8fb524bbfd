/* import: an endpoint file from a llama-server command line someone runs
 * today, flag by flag (issue 34). The command line is read as the engine
 * reads its argv (flags.h: each spelling's row and how many words it
 * takes; `--flag=value` and `--flag value`; a boolean's `--no-` twin). A
 * flag a key owns becomes that key, when the key renders it (keys.h: the
 * row's flag or flag_off); a harmless or priced flag goes to EXTRA_ARGS as
 * written; a refused flag, a flag no key renders, and a value the file
 * cannot carry are refused, each with the flag and the law. What comes
 * out is an endpoint file whose argv (argv.h) holds every flag and value of
 * the command line, plus the flags zealot always spells out (--fit off,
 * --metrics, --log-verbosity ...).
 *
 * The command line may also come from a systemd unit's ExecStart= or a
 * llama-swap config's model entry (import_unit_words, import_swap_words).
 * Pure: nothing printed, nothing read but the text it is given.
 */
#ifndef ZEALOT_IMPORT_H
#define ZEALOT_IMPORT_H

#include <stddef.h>

#include "../base/zerr.h"

/* A command line as words: argv[0] the runtime. */
struct import_words {
	char **v;
	size_t n;
	char *workdir; /* the unit's WorkingDirectory=, or NULL */
	int swap_port; /* llama-swap's --port ${PORT} was dropped: its port is llama-swap's */
};
void import_words_release(struct import_words *w);

/* One flag refused: as written, the law it breaks (NULL: no law, zealot
 * cannot represent it), and why. */
struct import_refusal {
	char *flag;
	const char *law;
	char *why;
};

struct import_out {
	char *text; /* the endpoint file (ZE_OK) */
	struct import_refusal *r;
	size_t n_r;
};

/* Import words (argv[0] the runtime). Relative paths resolve against dir
 * (an absolute directory); source is one line saying where the command
 * came from (a comment atop the file). ZE_OK with out->text; ZE_REFUSED
 * with out->r (every refused flag); ZE_USAGE with *err when the words are
 * no command line the engine would take (a flag missing its value, a
 * stray word, a flag given twice). */
enum zerr import_argv(const struct import_words *w, const char *dir, const char *source, struct import_out *out,
		      char **err);
void import_out_release(struct import_out *o);

/* The command of a systemd unit's text: its [Service] section's
 * ExecStart= (continuation lines joined, the `-`, `@`, `:`, `+`, `!`
 * prefixes dropped), split as systemd splits a command line (quotes,
 * backslash escapes, `%%` and `$$`). ZE_USAGE with *err for a unit with
 * no or several ExecStart=, a specifier or an environment variable. */
enum zerr import_unit_words(const char *text, struct import_words *w, char **err);

/* The cmd of model name in a llama-swap config's text (the shapes its
 * README documents: `models:`, a model's name, `cmd: |` and its indented
 * lines, or `cmd: ONE LINE`), `${name}` expanded from `macros:`, split as
 * llama-swap splits it. `--port ${PORT}` is dropped (w->swap_port): the
 * port is llama-swap's. ZE_USAGE with *err ("line N: ...") for a shape it
 * cannot read, ZE_NOTFOUND when there is no such model. */
enum zerr import_swap_words(const char *text, const char *model, struct import_words *w, char **err);

#endif
