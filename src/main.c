/* zealot: keeps a llama.cpp llama-server endpoint exactly as intended.
 *
 * main.c is the command table and nothing else: each command lives in
 * src/cmd/<name>.c and is a client of the library modules.
 */
#include <stdio.h>
#include <string.h>

#include "cmd/cmd.h"
#include "cmd/version.h"

static const struct command commands[] = {
    {"inspect", cmd_inspect, "say what a GGUF payload really is"},
    {"synth", cmd_synth, "write a synthetic zero-weight payload the engine can load"},
    {"plan", cmd_plan, "price a serving shape on a device, term by term, and the verdict"},
    {"rungs", cmd_rungs, "every one-line change to the shape: what it frees or costs, and what it gives up"},
    {"solve", cmd_solve, "the best shape for an objective and the Pareto frontier of shapes that fit"},
    {"ledger", cmd_ledger, "read what the engine really allocated from its boot log"},
    {"check", cmd_check, "evaluate every law the endpoint file, payload and plan can decide"},
    {"serve", cmd_serve, "gate the endpoint (laws, files, pins, fit), then exec the engine"},
    {"emit", cmd_emit, "render the systemd unit, scrape job, alert rules or harness entry"},
    {"probe", cmd_probe, "prove the live endpoint: contract and capability probes"},
    {"bench", cmd_bench, "prefill and decode rates from the engine's own timings"},
    {"audit", cmd_audit, "hold the live engine (argv, env, drop-ins, payload, port) against the intended one"},
    {"fetch", cmd_fetch, "download the endpoint's payloads: pinned, resumable, atomic"},
    {"argv", cmd_argv, "print the exact llama-server command line, one argument per line"},
    {"deploy", cmd_deploy, "gate, install, restart, verify and record an endpoint; roll back on failure"},
    {"rollback", cmd_rollback, "redeploy an earlier era of an endpoint through the same gates"},
    {"history", cmd_history, "every era an endpoint served, its boots and the deploy attempts, from the store"},
    {"store", cmd_store, "check the store for damage, say how to recover it (zealot store check)"},
    {"diff", cmd_diff, "the keys and the plan, term by term, between two eras or an era and the file"},
    {"fleet", cmd_fleet, "many endpoints on many hosts: a directory of endpoint files (zealot fleet --help)"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: zealot <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'zealot <command> --help' for a command's options.\n"
		   "exit: 0 ok, 1 a verdict said no, 2 usage, 3 I/O or runtime error\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (cmd_is_help(argv[1]) || strcmp(argv[1], "help") == 0) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "--version") == 0) {
		printf("zealot %s\n", ZEALOT_VERSION);
		return EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	return cmd_fail(EXIT_USAGE, "'%s' is not a zealot command (see 'zealot --help')", argv[1]);
}
