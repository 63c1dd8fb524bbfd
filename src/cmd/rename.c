/* zealot rename FROM TO [--dry-run] [--json] */
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "../deploy/rename.h"
#include "../store/store.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_RENAME};

static struct rename_opts o;
static int json, dry_run;
static uint64_t timeout = 300;

static const struct opt rename_opts[] = {
    OPT_FLAG(0, "dry-run", &dry_run, "check and say what would be done; change nothing"),
    OPT_STRING(0, "unit-dir", &o.unit_dir, "DIR", "where the units are (default /etc/systemd/system)"),
    OPT_STRING(0, "endpoint-dir", &o.env_dir, "DIR", "where the installed endpoint files are (default /etc/zealot)"),
    OPT_STRING(0, "zealot", &o.zealot, "PATH", "the zealot binary the new unit runs (default: this one)"),
    OPT_U64(0, "timeout", &timeout, "SECONDS", 1, 86400, "how long the new unit may take to answer /health (300)"),
    OPT_FLAG(0, "json", &json, "one JSON object at the end"),
    OPT_END(),
};

static int conclude(const struct rename_result *r)
{
	int rc = r->outcome == RENAME_RENAMED || r->outcome == RENAME_DRY_RUN ? EXIT_OK
		 : r->outcome == RENAME_FAILED				      ? 3
									      : 1;
	if (json) {
		json_t *steps = json_array();
		for (size_t i = 0; i < r->n_steps; i++)
			json_array_append_new(steps, json_string(r->steps[i]));
		json_t *out = json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:s,s:I,s:I,s:b,s:o,s:s?}", "outcome",
					rename_outcome_name(r->outcome), "from", o.from, "to", o.to, "from_unit",
					r->from_unit, "to_unit", r->to_unit, "from_env", r->from_env, "to_env",
					r->to_env, "era", (json_int_t)r->era, "eras_moved", (json_int_t)r->n_eras,
					"resumed", r->resumed, "steps", steps, "why", r->why);
		cmd_print_json(out, 12);
		json_decref(out);
		return rc;
	}
	for (size_t i = 0; i < r->n_steps; i++)
		printf("  %s\n", r->steps[i]);
	if (r->why)
		fprintf(stderr, "zealot rename: %s: %s\n", rename_outcome_name(r->outcome), r->why);
	else
		printf("%s %s -> %s%s\n", rename_outcome_name(r->outcome), o.from, o.to,
		       r->resumed ? " (an earlier run's work carried on)" : "");
	return rc;
}

static int run(struct opt_args *args)
{
	char self[PATH_MAX], *err = NULL;
	o.from = args->v[0];
	o.to = args->v[1];
	o.dry_run = dry_run;
	o.boot_timeout_ms = (long)timeout * 1000;
	if (!o.zealot) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0)
			return cmd_fail(cmd_exit(ZE_IO), "rename: cannot find this binary's path (give --zealot)");
		self[n] = '\0';
		o.zealot = self;
	}
	struct store *st = store_open(NULL, &err);
	if (!st)
		return cmd_end("rename", 3, err);
	struct rename_result r;
	rename_run(st, &o, &r);
	int rc = conclude(&r);
	rename_result_release(&r);
	store_close(st);
	return rc;
}

const struct command cmd_rename = {"rename", &help, rename_opts, run, NULL};
