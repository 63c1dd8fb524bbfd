/* The command layer: one file per subcommand; only this layer and main.c
 * print to stdout or choose an exit status.
 *
 * Exit statuses everywhere: 0 success, 1 a verdict said no, 2 usage error,
 * 3 I/O, network or runtime error.
 */
#ifndef ZEALOT_CMD_H
#define ZEALOT_CMD_H

#include <stdint.h>
#include <stdio.h>

#include "../base/zerr.h"

enum {
	EXIT_OK = 0,
	EXIT_NO = 1,
	EXIT_USAGE = 2,
	EXIT_IO = 3,
};

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

int cmd_inspect(int argc, char **argv);
int cmd_synth(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_ledger(int argc, char **argv);
int cmd_argv(int argc, char **argv);
int cmd_check(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_emit(int argc, char **argv);
int cmd_probe(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_audit(int argc, char **argv);
int cmd_rungs(int argc, char **argv);
int cmd_solve(int argc, char **argv);
int cmd_deploy(int argc, char **argv);
int cmd_rollback(int argc, char **argv);

/* The JSON of `zealot ledger --json`, for the boots deploy records
 * (jansson's json_t). */
struct json_t;
struct ledger;
struct json_t *cmd_ledger_json(const struct ledger *l);
int cmd_history(int argc, char **argv);
int cmd_store(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_archs(int argc, char **argv);
int cmd_fetch(int argc, char **argv);
/* zealot fleet: the group (src/cmd/fleet.c dispatches) and its subcommands */
int cmd_fleet(int argc, char **argv);
int cmd_fleet_plan(int argc, char **argv);
/* zealot fleet status|deploy|history (src/cmd/fleetops.c), rows of the
 * fleet command's table */
int cmd_fleet_status(int argc, char **argv);
int cmd_fleet_deploy(int argc, char **argv);
int cmd_fleet_history(int argc, char **argv);
/* The fleet's subcommand table, row i (NULL past the end): for the pages. */
const struct command *cmd_fleet_subcommand(size_t i);
/* zealot explain [ID]: a law of zealot-laws(7) (text: src/judge/lawdoc.c) */
int cmd_explain(int argc, char **argv);
/* The law pages: zealot-laws(7) (OPT_FORMAT_MAN) or docs/laws.md
 * (OPT_FORMAT_MARKDOWN); fmt is an enum opt_format. */
void cmd_laws_page(FILE *f, int fmt);
/* zealot-endpoint(5) / docs/endpoint.md from the endpoint key table. */
void cmd_endpoint_page(FILE *f, int fmt);

/* One JSON value on stdout, indented, reals to digits significant digits
 * (0: jansson's 17), every secret redacted (base/redact): every report's
 * --json goes through here. */
void cmd_print_json(struct json_t *o, int digits);
/* The device profiles, for --help. */
void cmd_devices(FILE *f);
/* The endpoint file at path with every --set KEY=VALUE of sets applied
 * (sets may be NULL): the endpoint, or NULL with *err and *rc the exit
 * status (the file's kind; a --set that does not take is usage). */
struct opt_list;
struct endpoint *cmd_load_endpoint(const char *path, const struct opt_list *sets, int *rc, char **err);
/* Every --set KEY=VALUE of sets (may be NULL) applied to ep; -1 with *err
 * at the first that does not take. */
int cmd_apply_sets(struct endpoint *ep, const struct opt_list *sets, char **err);
/* The exit status of a failure's kind: the one place a kind becomes a
 * status (ZE_USAGE 2, ZE_REFUSED 1, ZE_NOTFOUND and ZE_IO 3, ZE_OK 0). */
int cmd_exit(enum zerr kind);
/* Print `zealot: <what>` to stderr and return code. */
int cmd_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* True when argv[i] is -h or --help. */
int cmd_is_help(const char *arg);
/* 1234567 -> "1,234,567" into buf. */
const char *cmd_commas(uint64_t v, char *buf, size_t n);

/* Human reports fit this many columns; wider detail goes to --json. */
#define CMD_WIDTH 100

/* Print head, then text wrapped at word boundaries to CMD_WIDTH columns,
 * each further line indented by indent spaces; ends with a newline. */
void cmd_wrap(FILE *f, const char *head, size_t indent, const char *text);
/* Bytes as MiB with two decimals, the engine's way. */
double cmd_mib(uint64_t bytes);
/* The API key in an --api-key-file: its first line that is neither empty
 * nor a # comment, as the engine reads it; NULL when there is none or the
 * file is unreadable. The caller frees it. */
char *cmd_read_key(const char *path);

#endif
