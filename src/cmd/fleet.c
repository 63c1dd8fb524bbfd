/* zealot fleet SUBCOMMAND DIR ...: the commands that take a directory of
 * endpoint files (src/fleet/fleet.h) as one fleet. Each subcommand is a
 * row of the table below and a function of its own (cmd.h). */
#include <string.h>

#include "../base/util.h"
#include "cmd.h"
#include "options.h"

/* One row per subcommand; `zealot fleet NAME ...` runs fn(argc - 1, argv + 1),
 * which parses its own options as "fleet NAME". */
static const struct command subcommands[] = {
    {"plan", cmd_fleet_plan, "plan every endpoint; sum each card's shared totals against it (refuses what cannot fit)"},
    {"status", cmd_fleet_status, "every endpoint on its host over ssh: unit, era, probes, audit, memory"},
    {"deploy", cmd_fleet_deploy, "zealot deploy on each endpoint's host over ssh, same version, per-endpoint outcome"},
    {"history", cmd_fleet_history, "every host's eras of the fleet's endpoints, merged by time"},
};

const struct command *cmd_fleet_subcommand(size_t i)
{
	return i < ARRAY_SIZE(subcommands) ? &subcommands[i] : NULL;
}

static void list_subcommands(FILE *f)
{
	fprintf(f, "subcommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
		fprintf(f, "  %-8s %s\n", subcommands[i].name, subcommands[i].summary);
	fprintf(f, "\n'zealot fleet SUBCOMMAND --help' for a subcommand's options.\n");
}

static const struct cmd_help help = {
    .usage = "zealot fleet SUBCOMMAND DIR [options]",
    .about = "A fleet is a directory of endpoint files (*.env), one endpoint each. HOST\n"
	     "names the ssh destination an endpoint runs on ([user@]host or\n"
	     "ssh://[user@]host[:port], through the ssh config; unset: this host), GPU\n"
	     "the card on that host (CUDA_VISIBLE_DEVICES in its unit; DEVICE profiles\n"
	     "that card), COMPACTION_HUB the endpoint its clients send compaction to.\n"
	     "Endpoints that share a host and a card are judged together.\n",
    .more = list_subcommands,
    .exits = "the subcommand's; 2 usage (no or an unknown subcommand)",
    .min_args = 0,
    .max_args = 1,
};

int cmd_fleet(int argc, char **argv)
{
	if (argc >= 2)
		for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
			if (strcmp(argv[1], subcommands[i].name) == 0)
				return subcommands[i].fn(argc - 1, argv + 1);
	int list = 0;
	const struct opt opts[] = {
	    OPT_FLAG(0, "list", &list, "print the subcommands' names, one a line (for completion)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("fleet", &help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	int rc = EXIT_OK;
	if (args.n == 1) {
		struct sb names = {0};
		struct near near = near_start(args.v[0], 2);
		for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++) {
			sb_addf(&names, "%s%s", i ? ", " : "", subcommands[i].name);
			near_try(&near, subcommands[i].name);
		}
		if (near.best)
			rc = cmd_fail(EXIT_USAGE, "fleet: '%s' is not a fleet subcommand (did you mean '%s'?)",
				      args.v[0], near.best);
		else
			rc = cmd_fail(EXIT_USAGE,
				      "fleet: '%s' is not a fleet subcommand (%s; see 'zealot fleet --help')",
				      args.v[0], names.s);
		sb_release(&names);
	} else if (list) {
		for (size_t i = 0; i < ARRAY_SIZE(subcommands); i++)
			puts(subcommands[i].name);
	} else {
		rc = opt_usage_error("fleet", &help, "missing SUBCOMMAND");
	}
	opt_args_release(&args);
	return rc;
}
