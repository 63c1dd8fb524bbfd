/* zealot fleet SUBCOMMAND DIR ...: the commands that take a directory of
 * endpoint files (src/fleet/fleet.h) as one fleet. Each subcommand is a
 * struct command of its own (cmd.h), a row of subs below. */
#include <string.h>

#include "../base/util.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

/* `zealot fleet NAME ...` runs the row NAME as "fleet NAME" (cmd_dispatch). */
static const struct command *const subs[] = {
    &cmd_fleet_plan, &cmd_fleet_status, &cmd_fleet_deploy, &cmd_fleet_history, NULL,
};

static void list_subcommands(FILE *f)
{
	fprintf(f, "subcommands:\n");
	for (size_t i = 0; subs[i]; i++)
		fprintf(f, "  %-8s %s\n", subs[i]->name, subs[i]->help->summary);
	fprintf(f, "\n'zealot fleet SUBCOMMAND --help' for a subcommand's options.\n");
}

static const struct cmd_help help = {DOC_FLEET, .more = list_subcommands};

static int list;
static const struct opt opts[] = {
    OPT_FLAG(0, "list", &list, "print the subcommands' names, one a line (for completion)"),
    OPT_END(),
};

/* Only when argv[1] named no subcommand. */
static int run(struct opt_args *a)
{
	if (a->n == 1) {
		struct sb names = {0};
		struct near near = near_start(a->v[0], 2);
		for (size_t i = 0; subs[i]; i++) {
			sb_addf(&names, "%s%s", i ? ", " : "", subs[i]->name);
			near_try(&near, subs[i]->name);
		}
		int rc;
		if (near.best)
			rc = cmd_fail(EXIT_USAGE, "fleet: '%s' is not a fleet subcommand (did you mean '%s'?)", a->v[0],
				      near.best);
		else
			rc = cmd_fail(EXIT_USAGE,
				      "fleet: '%s' is not a fleet subcommand (%s; see 'zealot fleet --help')", a->v[0],
				      names.s);
		sb_release(&names);
		return rc;
	}
	if (!list)
		return opt_usage_error("fleet", &help, "missing SUBCOMMAND");
	for (size_t i = 0; subs[i]; i++)
		puts(subs[i]->name);
	return EXIT_OK;
}

const struct command cmd_fleet = {"fleet", &help, opts, run, subs};
