/* zealot import [-o FILE] [--force] -- llama-server ARGS...
 * zealot import --unit FILE | --llama-swap FILE --model NAME */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/import.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const char *unit, *swap, *model, *out;
static int force;
static const struct opt opts[] = {
    OPT_STRING(0, "unit", &unit, "FILE", "read the command from a systemd unit's ExecStart="),
    OPT_STRING(0, "llama-swap", &swap, "FILE", "read the command from a llama-swap config (with --model)"),
    OPT_STRING(0, "model", &model, "NAME", "the llama-swap model whose cmd to read"),
    OPT_STRING('o', "output", &out, "FILE", "write the endpoint file there (else stdout)"),
    OPT_FLAG('f', "force", &force, "replace FILE if it exists"),
    OPT_END(),
};
static const struct cmd_help help = {DOC_IMPORT};

/* The words and where they came from; an exit status, or -1 when read. */
static int source(struct opt_args *a, struct import_words *w, struct sb *from, char **err)
{
	if ((a->n > 0) + !!unit + !!swap != 1)
		return opt_usage_error("import", &help,
				       "give one command: -- llama-server ARGS, --unit or --llama-swap");
	if (!!swap != !!model)
		return opt_usage_error("import", &help, "--llama-swap and --model go together");
	if (a->n) {
		w->v = xreallocarray(NULL, a->n, sizeof(*w->v));
		for (unsigned i = 0; i < a->n; i++)
			w->v[w->n++] = xstrdup(a->v[i]);
		sb_adds(from, "a command line");
		return -1;
	}
	enum zerr kind;
	const char *path = unit ? unit : swap;
	char *text = read_file(path, 1 << 20, 0, NULL, &kind, err);
	if (!text)
		return cmd_exit(kind);
	kind = unit ? import_unit_words(text, w, err) : import_swap_words(text, model, w, err);
	free(text);
	if (kind != ZE_OK) {
		char *e = *err;
		*err = NULL;
		errorf(err, "%s: %s", path, e);
		free(e);
		return cmd_exit(kind);
	}
	if (unit)
		sb_addf(from, "the ExecStart= of %s", unit);
	else
		sb_addf(from, "model %s of %s%s", model, swap,
			w->swap_port ? " (--port ${PORT} left to llama-swap: LISTEN_PORT unset)" : "");
	return -1;
}

static int run(struct opt_args *a)
{
	struct import_words w = {0};
	struct import_out o = {0};
	struct sb from = {0};
	char *err = NULL, cwd[4096];
	int rc = source(a, &w, &from, &err);
	if (rc >= 0)
		goto done;
	const char *dir = w.workdir ? w.workdir : unit ? "/" : getcwd(cwd, sizeof(cwd));
	enum zerr kind = import_argv(&w, dir, from.s, &o, &err);
	if (kind == ZE_REFUSED) {
		for (size_t i = 0; i < o.n_r; i++)
			if (o.r[i].law)
				cmd_fail(0, "import: %s: %s (law %s)", o.r[i].flag, o.r[i].why, o.r[i].law);
			else
				cmd_fail(0, "import: %s: %s", o.r[i].flag, o.r[i].why);
		rc = EXIT_NO;
	} else if (kind != ZE_OK) {
		rc = cmd_exit(kind);
	} else if (!out) {
		fputs(o.text, stdout);
		rc = EXIT_OK;
	} else if (!force && access(out, F_OK) == 0) {
		errorf(&err, "'%s' exists: --force replaces it", out);
		rc = EXIT_USAGE;
	} else {
		rc = write_file(out, o.text, &err) ? cmd_exit(ZE_IO) : EXIT_OK;
	}
done:
	import_out_release(&o);
	import_words_release(&w);
	sb_release(&from);
	return cmd_end("import", rc, err);
}

const struct command cmd_import = {"import", &help, opts, run, NULL};
