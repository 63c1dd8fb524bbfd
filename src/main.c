/* zealot: keeps a llama.cpp llama-server endpoint exactly as intended.
 *
 * main.c is the command table and nothing else: each command lives in
 * src/cmd/<name>.c and is a client of the library modules. `zealot help`
 * also renders the manual from the same table and the commands' own help
 * (`zealot help --man CMD`, `--markdown CMD`: what `make docs` writes).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fault.h"
#include "base/util.h"
#include "cmd/cmd.h"
#include "cmd/options.h"
#include "cmd/version.h"

static const struct command commands[] = {
    {"inspect", cmd_inspect, "say what a GGUF payload really is"},
    {"synth", cmd_synth, "write a synthetic zero-weight payload the engine can load"},
    {"plan", cmd_plan, "price a serving shape on a device, term by term, and the verdict"},
    {"rungs", cmd_rungs, "every one-line change to the shape: what it frees or costs, and what it gives up"},
    {"solve", cmd_solve, "the best shape for an objective and the Pareto frontier of shapes that fit"},
    {"ledger", cmd_ledger, "read what the engine really allocated from its boot log"},
    {"check", cmd_check, "evaluate every law the endpoint file, payload and plan can decide"},
    {"explain", cmd_explain, "what a law id means: what breaks, why, how zealot checks it, the fix"},
    {"serve", cmd_serve, "gate the endpoint (laws, files, pins, fit), then exec the engine"},
    {"emit", cmd_emit, "render the systemd unit, scrape job, alert rules, harness entry or Grafana dashboard"},
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
    {"archs", cmd_archs, "every architecture the pinned engine knows, and how plan prices each"},
    {"fleet", cmd_fleet, "many endpoints on many hosts: a directory of endpoint files (zealot fleet --help)"},
};

static void usage(FILE *f)
{
	fprintf(f, "usage: zealot <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-9s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "\n'zealot <command> --help' for a command's options, 'zealot help <command>' its page,\n"
		   "'zealot explain <law>' a law (M03, S09 ...).\n"
		   "exit: 0 ok, 1 a verdict said no, 2 usage, 3 I/O or runtime error\n");
}

static const struct command *find(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (strcmp(name, commands[i].name) == 0)
			return &commands[i];
	return NULL;
}

/* The command nearest a misspelt one (at most two edits away), or NULL. */
static const char *nearest(const char *name)
{
	struct near n = near_start(name, 2);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		near_try(&n, commands[i].name);
	return n.best;
}

/* zealot(1): the command table as the manual's front page. */
static void front_page(FILE *f, int fmt)
{
	static const char about[] =
	    "zealot plans, checks, serves and deploys llama.cpp llama-server endpoints. An endpoint is one\n"
	    "file of KEY=VALUE lines (zealot-endpoint(5)): the payload (the GGUF files), the shape (context,\n"
	    "slots, cache types, batch sizes, drafter) and where it runs. zealot prices the shape on the\n"
	    "device term by term before anything boots, holds it against the laws (zealot-laws(7)), execs\n"
	    "the engine only when every gate passes, and after launch proves the live engine is the one\n"
	    "intended.\n";
	static const char exits[] = "0 success, 1 a verdict said no (a refused plan, a failed law or probe), 2 "
				    "usage error, 3 I/O, network or runtime error; serve refuses with 78.";
	if (fmt == OPT_FORMAT_MAN) {
		opt_man_head(f, "zealot", 1, "plan, check, serve and deploy llama.cpp endpoints");
		fputs(".SH SYNOPSIS\n.nf\nzealot \\fICOMMAND\\fR [\\fIoptions\\fR]\nzealot help "
		      "\\fICOMMAND\\fR\nzealot explain \\fILAW\\fR\nzealot \\-\\-version\n.fi\n.SH DESCRIPTION\n",
		      f);
		opt_roff_text(f, about);
		fputs(".SH COMMANDS\n", f);
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
			fprintf(f, ".TP\n\\fBzealot\\-%s\\fR(1)\n", commands[i].name);
			opt_roff_span(f, commands[i].summary, strlen(commands[i].summary));
			fputc('\n', f);
		}
		for (size_t i = 0; cmd_fleet_subcommand(i); i++) {
			const struct command *c = cmd_fleet_subcommand(i);
			fprintf(f, ".TP\n\\fBzealot\\-fleet\\-%s\\fR(1)\n", c->name);
			opt_roff_span(f, c->summary, strlen(c->summary));
			fputc('\n', f);
		}
		fputs(".SH EXIT STATUS\n", f);
		opt_roff_span(f, exits, strlen(exits));
		fputs("\n.SH ENVIRONMENT\n.TP\n\\fBZEALOT_STATE_DIR\\fR\nwhere the store (eras, boots, deploys) and "
		      "serve's verified-hash stamps live\n.TP\n\\fBNO_COLOR\\fR\nno colour, whatever the "
		      "terminal\n.SH SEE ALSO\n\\fBzealot\\-endpoint\\fR(5), \\fBzealot\\-laws\\fR(7), "
		      "\\fBllama\\-server\\fR(1)\n",
		      f);
		return;
	}
	fputs("<!-- generated by `zealot help --markdown zealot` from src/main.c: edit there, then `make docs` -->\n"
	      "# zealot commands\n\n",
	      f);
	opt_md_text(f, about);
	fputs("\n| command | what it does |\n|---|---|\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++) {
		fprintf(f, "| [`%s`](%s.md) | ", commands[i].name, commands[i].name);
		opt_md_span(f, commands[i].summary, strlen(commands[i].summary));
		fputs(" |\n", f);
	}
	for (size_t i = 0; cmd_fleet_subcommand(i); i++) {
		const struct command *c = cmd_fleet_subcommand(i);
		fprintf(f, "| [`fleet %s`](fleet-%s.md) | ", c->name, c->name);
		opt_md_span(f, c->summary, strlen(c->summary));
		fputs(" |\n", f);
	}
	fputs("\nExit status: ", f);
	opt_md_span(f, exits, strlen(exits));
	fputc('\n', f);
}

/* Every page `make docs` writes, as FILE.SECTION, one a line. */
static void list_pages(void)
{
	puts("zealot.1");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		printf("zealot-%s.1\n", commands[i].name);
	for (size_t i = 0; cmd_fleet_subcommand(i); i++)
		printf("zealot-fleet-%s.1\n", cmd_fleet_subcommand(i)->name);
	puts("zealot-endpoint.5");
	puts("zealot-laws.7");
}

/* Run NAME's --help ("plan", "fleet-plan" or "fleet plan") in fmt. */
static int page(const char *name, const char *sub, int fmt)
{
	if (strcmp(name, "zealot") == 0) {
		front_page(stdout, fmt);
		return EXIT_OK;
	}
	if (strcmp(name, "endpoint") == 0) {
		cmd_endpoint_page(stdout, fmt);
		return EXIT_OK;
	}
	if (strcmp(name, "laws") == 0) {
		cmd_laws_page(stdout, fmt);
		return EXIT_OK;
	}
	char buf[64];
	if (!sub && strncmp(name, "fleet-", 6) == 0) {
		snprintf(buf, sizeof(buf), "%s", name + 6);
		sub = buf;
		name = "fleet";
	}
	const struct command *c = find(name);
	if (!c) {
		const char *near = nearest(name);
		if (near)
			return cmd_fail(EXIT_USAGE, "help: '%s' is not a zealot command (did you mean '%s'?)", name,
					near);
		return cmd_fail(EXIT_USAGE, "help: '%s' is not a zealot command (see 'zealot --help')", name);
	}
	opt_help_format = (enum opt_format)fmt;
	opt_help_summary = c->summary;
	char *argv[4] = {(char *)c->name, NULL, NULL, NULL};
	int argc = 1;
	if (sub) {
		const struct command *s = NULL;
		for (size_t i = 0; cmd_fleet_subcommand(i); i++)
			if (strcmp(cmd_fleet_subcommand(i)->name, sub) == 0)
				s = cmd_fleet_subcommand(i);
		if (!s || c->fn != cmd_fleet)
			return cmd_fail(EXIT_USAGE, "help: '%s %s' is not a zealot command", name, sub);
		opt_help_summary = s->summary;
		argv[argc++] = (char *)s->name;
	}
	argv[argc++] = (char *)"--help";
	return c->fn(argc, argv);
}

/* zealot help [CMD [SUB]]: the page of CMD, through man(1) when this is a
 * terminal and the page is installed, else printed (the --help text);
 * --man / --markdown render a page for `make docs`; --pages lists them. */
static int help(int argc, char **argv)
{
	if (argc < 2) {
		usage(stdout);
		return EXIT_OK;
	}
	int fmt = -1;
	if (strcmp(argv[1], "--man") == 0)
		fmt = OPT_FORMAT_MAN;
	else if (strcmp(argv[1], "--markdown") == 0)
		fmt = OPT_FORMAT_MARKDOWN;
	else if (strcmp(argv[1], "--pages") == 0) {
		list_pages();
		return EXIT_OK;
	} else if (strcmp(argv[1], "--commands") == 0) {
		for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
			puts(commands[i].name);
		return EXIT_OK;
	}
	if (fmt >= 0) {
		if (argc < 3 || argc > 4)
			return cmd_fail(EXIT_USAGE, "help: usage: zealot help --man|--markdown PAGE [SUB]");
		return page(argv[2], argc > 3 ? argv[3] : NULL, fmt);
	}
	if (argc > 3)
		return cmd_fail(EXIT_USAGE, "help: usage: zealot help [COMMAND [SUBCOMMAND]]");
	if (isatty(STDOUT_FILENO)) {
		char name[128];
		if (argc > 2)
			snprintf(name, sizeof(name), "zealot-%s-%s", argv[1], argv[2]);
		else if (strcmp(argv[1], "endpoint") == 0 || strcmp(argv[1], "laws") == 0 || find(argv[1]))
			snprintf(name, sizeof(name), "zealot-%s", argv[1]);
		else
			name[0] = '\0';
		char cmd[256];
		snprintf(cmd, sizeof(cmd), "man -w %s >/dev/null 2>&1", name);
		/* name is a command's (or a fleet subcommand's) page name: no shell words */
		if (name[0] && strspn(name, "abcdefghijklmnopqrstuvwxyz-") == strlen(name) && system(cmd) == 0) {
			fflush(stdout);
			execlp("man", "man", name, (char *)NULL);
		}
	}
	return page(argv[1], argc > 2 ? argv[2] : NULL, OPT_FORMAT_TEXT);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (cmd_is_help(argv[1])) {
		usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(argv[1], "help") == 0)
		return help(argc - 1, argv + 1);
	if (strcmp(argv[1], "--version") == 0) {
		printf("zealot %s\n", ZEALOT_VERSION);
		return EXIT_OK;
	}
	/* a test's fault points (ZEALOT_FAULT, src/base/fault.h): a bad one is
	 * refused before any command runs, never silently aimed nowhere */
	char *ferr = NULL;
	if (fault_check(&ferr)) {
		int rc = cmd_fail(EXIT_USAGE, "ZEALOT_FAULT: %s", ferr);
		free(ferr);
		return rc;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].name) == 0)
			return commands[i].fn(argc - 1, argv + 1);
	const struct command *c = find(argv[1]);
	if (c)
		return c->fn(argc - 1, argv + 1);
	const char *near = nearest(argv[1]);
	if (near)
		return cmd_fail(EXIT_USAGE, "'%s' is not a zealot command (did you mean '%s'?)", argv[1], near);
	return cmd_fail(EXIT_USAGE, "'%s' is not a zealot command (see 'zealot --help')", argv[1]);
}
