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

/* A command is data and one function: its help (doc/zealot-NAME.txt:
 * summary, usage, about, exits), its option table (whose variables are the
 * command file's statics) and run, the work, given the positionals. A
 * command with subcommands (fleet) lists them in subs, NULL-terminated;
 * `zealot fleet plan ...` runs the row "plan" as "fleet plan". One process
 * runs one command: the option variables start from their initialisers. */
struct opt;
struct opt_args;
struct cmd_help;
struct command {
	const char *name;
	const struct cmd_help *help;
	const struct opt *opts;
	int (*run)(struct opt_args *a);
	const struct command *const *subs;
};

/* Run c on argv (argv[0] is its name): a subcommand when argv[1] names
 * one, else opt_parse (--help, a usage error: its status at once), then
 * c->run; the positionals and every OPT_KIND_LIST of c->opts are released
 * after. Returns the exit status. */
int cmd_dispatch(const struct command *c, int argc, char **argv);
/* The end of a run: with err set, print `zealot: NAME: ERR` (cmd_fail);
 * free err; return rc. */
int cmd_end(const char *name, int rc, char *err);

/* The commands, in src/cmd/NAME.c; main.c lists them. */
extern const struct command cmd_inspect, cmd_synth, cmd_plan, cmd_ledger, cmd_argv, cmd_check, cmd_serve, cmd_emit,
    cmd_probe, cmd_bench, cmd_audit, cmd_rungs, cmd_solve, cmd_deploy, cmd_rollback, cmd_arm, cmd_history, cmd_store,
    cmd_diff, cmd_archs, cmd_fetch, cmd_explain, cmd_fleet, cmd_import;
extern const struct command cmd_rename;
/* zealot fleet plan|status|deploy|history (src/cmd/fleet_plan.c, fleetops.c):
 * the rows of cmd_fleet.subs */
extern const struct command cmd_fleet_plan, cmd_fleet_status, cmd_fleet_deploy, cmd_fleet_history;

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
/* A bench figure's change in words: a rate (NAME_tps...) is "faster" or
 * "slower", another figure (draft_acceptance) "higher" or "lower". */
const char *cmd_change_word(const char *figure, double pct);
/* {name: change in % from prod's figure to arm's} for every figure of arm
 * that prod has, non-zero. */
struct json_t *cmd_rates_delta(struct json_t *prod, struct json_t *arm);
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
/* The decode changes `zealot arm` measured on an endpoint's current era:
 * each arm's keys ({KEY: VALUE}, borrowed from the record) and its
 * decode_tps change in % against production's figures of the same window.
 * rungs and solve show a change an arm measured from the arm ("m" in the
 * decode column), beside the byte model's figure and how far it was off.
 * Nothing recorded (no store, no arm with a decode): n 0. */
struct cand;
struct cmd_measured_arm {
	int64_t id;
	struct json_t *keys;
	double decode_pct;
};
struct cmd_measured {
	int64_t era;
	struct cmd_measured_arm *v;
	size_t n;
};
void cmd_measured_load(const char *name, struct cmd_measured *m);
void cmd_measured_release(struct cmd_measured *m);
/* The latest arm that changed exactly what keys changes from ep (a key
 * whose value ep already has is no change; ep NULL: every key; CTX_SIZE is
 * never one: decode is priced at a fill, not a window), or NULL. */
struct endpoint;
const struct cmd_measured_arm *cmd_measured_for(const struct cmd_measured *m, const struct endpoint *ep,
						const struct cand *keys);
/* {source: "arm"|"byte model", model_pct, measured_pct, arm, off_points}
 * of a change the byte model prices at ratio (this / the endpoint). */
struct json_t *cmd_measured_json(const struct cmd_measured *m, const struct endpoint *ep, const struct cand *keys,
				 double ratio);
/* The decode column: "-21.7 % m" when an arm measured it, else the byte
 * model's "-45.4 %"; into buf. */
const char *cmd_measured_cell(const struct cmd_measured *m, const struct endpoint *ep, const struct cand *keys,
			      double ratio, char *buf, size_t n);
/* Where an arm measured keys: the line under the row (head, then the
 * measured change, the arm and era, the byte model's and how far off). */
void cmd_measured_line(const char *head, const struct cmd_measured *m, const struct endpoint *ep,
		       const struct cand *keys, double ratio);
/* The line under a report that has measured rows: how many, which era. */
void cmd_measured_note(const struct cmd_measured *m);
/* How rungs and solve price decode: --fill, --accept (its help ends with
 * accept_more) and --host-bw into the struct rate_opts at r (plan/rate.h;
 * accept NaN until given), rows of an option table. */
#define CMD_RATE_OPTS(r, accept_more)                                                                                  \
	OPT_U64(0, "fill", &(r)->fill, "N", 1, UINT32_MAX,                                                             \
		"tokens of context per slot when decode is priced (default: half the window)"),                        \
	    OPT_DOUBLE(0, "accept", &(r)->accept, "P",                                                                 \
		       "the drafter's per-position acceptance (default: the one zealot arm recorded for the "          \
		       "endpoint's era, else 0.79" accept_more ")"),                                                   \
	    OPT_DOUBLE(0, "host-bw", &(r)->host_bw_gbs, "GBS",                                                         \
		       "the host's memory bandwidth in GB/s (default HOST_BW_GBS, else the cpu profile's 51)")
/* -1 with *err when --accept is given outside 0..1 or --host-bw is below 0. */
struct rate_opts;
int cmd_rate_check(const struct rate_opts *r, char **err);
/* Steps as deploy --json prints them. */
struct json_t *cmd_deploy_steps_json(const struct deploy_step *v, size_t n);

/* The JSON of `zealot ledger --json`, for the boots deploy records
 * (jansson's json_t). */
struct json_t;
struct ledger;
struct json_t *cmd_ledger_json(const struct ledger *l);
/* The law pages: zealot-laws(7) (OPT_FORMAT_MAN) or docs/laws.md
 * (OPT_FORMAT_MARKDOWN); fmt is an enum opt_format. */
void cmd_laws_page(FILE *f, int fmt);
/* zealot-endpoint(5) / docs/endpoint.md from the endpoint key table. */
void cmd_endpoint_page(FILE *f, int fmt);

/* One JSON value on stdout, indented, reals to digits significant digits
 * (0: jansson's 17), every secret redacted (base/redact): every report's
 * --json goes through here. */
void cmd_print_json(struct json_t *o, int digits);
/* A report's "remote": {requests, bytes} of the range requests a payload
 * header took, or JSON null when no payload was read over HTTP. */
struct remote_stats;
struct json_t *cmd_remote_json(int remote, const struct remote_stats *rs);
/* The device profiles, for --help. */
void cmd_devices(FILE *f);
/* The endpoint file at path with every --set KEY=VALUE of sets applied
 * (sets may be NULL): the endpoint, or NULL with *err and *rc the exit
 * status (the file's kind; a --set that does not take is usage). */
struct opt_list;
struct endpoint *cmd_load_endpoint(const char *path, const struct opt_list *sets, int *rc, char **err);
/* --device NAME where a command judges the endpoint as well as prices it
 * (check): DEVICE=NAME, or -1 with *err naming --device and the profile
 * meant. device NULL: nothing. */
int cmd_apply_device(struct endpoint *ep, const char *device, char **err);
/* A GGUF payload (by its magic "GGUF") or a URL rather than an endpoint
 * file. */
int cmd_is_payload(const char *path);
/* cmd_load_endpoint, or for a payload (cmd_is_payload) an endpoint held in
 * memory: MODEL_FILE (a URL: MODEL_URL, read by range requests), CTX_SIZE
 * 4096 unless a --set gives it, then the --sets; says so on stderr under
 * cmd. plan, rungs, solve and check take a model before any file. */
struct endpoint *cmd_load_target(const char *cmd, const char *path, const struct opt_list *sets, int *rc, char **err);
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

/* Human reports fit this many columns; wider detail goes to --json:
 * on a terminal its width (COLUMNS when set, else the tty's), at least
 * 60; 100 when stdout is not a terminal (a pipe, a file: stable output). */
unsigned cmd_width(void);
#define CMD_WIDTH (cmd_width())

/* Print head, then text wrapped at word boundaries to CMD_WIDTH columns,
 * each further line indented by indent spaces; ends with a newline. */
void cmd_wrap(FILE *f, const char *head, size_t indent, const char *text);
/* Bytes as MiB with two decimals, the engine's way. */
double cmd_mib(uint64_t bytes);

/* A router endpoint (src/cmd/router.c): plan's branch, emit preset and
 * emit llama-swap, argv's. Each returns an exit status. */
struct argv_list;
int cmd_router_plan(const struct endpoint *ep, const char *device, int json, char **err);
int cmd_router_emit(const char *what, const char *file);
int cmd_router_argv(const struct endpoint *ep, struct argv_list *a, char **err);
int cmd_router_swap(const char *file);
/* check of a router: the set's laws and every member's, by member. */
int cmd_router_check(const struct endpoint *ep, int json);
/* serve of a router: every gate (deploy/router.h), the preset written, the
 * router exec'd with the environment serve built (judge/trust.h). */
int cmd_router_serve(const struct endpoint *ep, int dry, char **engine_env);
/* audit of a router (src/cmd/router_live.c): the router's intended argv
 * (its preset where the unit's serve writes it when in_unit, else beside
 * the file), and a row per member (live/router_log.h). */
int cmd_router_audit_argv(const struct endpoint *ep, int in_unit, struct argv_list *want, char **err);
struct audit;
int cmd_router_audit_members(const struct endpoint *ep, long pid, struct audit *a, char **err);
/* Whether the file at path is a router endpoint (src/cmd/router_live.c). */
int cmd_router_file(const char *path);
/* ledger --endpoint ROUTER.env LOG: every child's boot held to its member. */
int cmd_router_ledger(const char *endpoint_path, const char *log_path, int json);
/* probe URL --endpoint ROUTER.env: /models, then each member by its name. */
struct http_client;
int cmd_router_probe(struct http_client *c, const char *endpoint_path, const char *only, int json);

#endif
