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
int cmd_arm(int argc, char **argv);
/* What deploy hands deploy_run, for another command that runs it (arm's
 * restore): --probes checked and defaulted, the zealot path (self, n bytes,
 * when o->zealot is NULL), the plan and ledger JSON, calibration, the
 * runtime's version, the step printer (silent when *json). Returns -1 when
 * ready, else the exit status of what it printed. */
struct deploy_opts;
struct deploy_step;
int cmd_deploy_setup(const char *cmd, struct deploy_opts *o, char *self, size_t n, const int *json);
/* Rates per era (src/cmd/rates.c): a bench JSON's headline figures as
 * {name: value} (json null when none); an era's JSON object gets "rates"
 * (its latest boot with figures: {boot, at, source, figures} or null) and
 * "arms" ([{id, at, keys, reason, boot, rates: {figures}, delta: {name:
 * change in % against production's figures of the same window}}]); and
 * their text under an era. */
struct store;
struct json_t *cmd_rates_figures(const char *bench_json);
int cmd_rates_era(struct store *st, struct json_t *era, int64_t era_id, char **err);
void cmd_rates_print(struct json_t *era, const char *indent);
/* The rates recorded for an endpoint's current era (its latest boot with a
 * bench): the measured decode, and the drafter's per-position acceptance
 * derived from the drafted and accepted totals at depth (-1 when it did not
 * draft). Returns 1 when something is recorded. rungs and solve use the
 * acceptance in place of the default and say which they used. */
struct cmd_recorded {
	int64_t era, boot, at;
	double decode_tps, accept;
	long long drafted, accepted;
};
int cmd_rates_recorded(const char *name, uint32_t depth, struct cmd_recorded *out);
/* The acceptance to price with: accept when given (not NaN), else the
 * recorded one, else RATE_ACCEPT_DEFAULT; rec filled either way. */
double cmd_rates_accept(const char *name, uint32_t depth, double accept, struct cmd_recorded *rec);
struct json_t *cmd_rates_used(const struct cmd_recorded *r, double accept, int accept_given);
void cmd_rates_used_line(const struct cmd_recorded *r, double accept, int accept_given);
/* Steps as deploy --json prints them. */
struct json_t *cmd_deploy_steps_json(const struct deploy_step *v, size_t n);

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

#endif
