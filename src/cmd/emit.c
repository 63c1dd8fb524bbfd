/* zealot emit unit|prometheus|alerts|harness ENDPOINT, and for a fleet
 * directory prometheus|alerts|harness|ansible DIR */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/quote.h"
#include "../fleet/ansible.h"
#include "../fleet/emit.h"
#include "../fleet/fleet.h"
#include "../judge/emit.h"
#include "../judge/grafana.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"
#include "version.h"

static const struct cmd_help help = {DOC_EMIT};

/* Whether bin (an absolute path) lies in a zealot source checkout: its
 * directory, or the one above (build/zealot-san), holds src/main.c. A unit
 * whose ExecStart is there runs whatever the checkout builds next. */
static int in_checkout(const char *bin)
{
	char dir[PATH_MAX], probe[PATH_MAX + 32];
	snprintf(dir, sizeof(dir), "%s", bin);
	for (int up = 0; up < 2; up++) {
		char *slash = strrchr(dir, '/');
		if (!slash || slash == dir)
			return 0;
		*slash = '\0';
		snprintf(probe, sizeof(probe), "%s/src/main.c", dir);
		if (access(probe, F_OK) == 0)
			return 1;
	}
	return 0;
}

static const char *const kinds[] = {"unit", "prometheus", "alerts", "harness", "ansible", "grafana"};

static int write_in(const char *dir, const char *name, const char *text, char **err)
{
	struct sb path = {0};
	sb_addf(&path, "%s/%s", dir, name);
	int rc = write_file(path.s, text, err);
	if (!rc)
		printf("wrote %s\n", path.s);
	sb_release(&path);
	return rc;
}

/* emit KIND DIR: one file for the fleet. */
static int emit_fleet(int kind, const char *dir, unsigned minutes, const char *outdir, const char *ssh_config,
		      const char *reason)
{
	struct fleet f;
	char *err = NULL;
	int rc = EXIT_OK;
	enum zerr lk;
	if (fleet_load(dir, &f, &lk, &err))
		return cmd_end("emit", cmd_exit(lk), err);
	struct sb b = {0}, warn = {0};
	if (kind == 1) {
		fleet_emit_prometheus(&f, &b);
	} else if (kind == 2) {
		fleet_emit_alerts(&f, minutes, &b);
	} else if (kind == 3) {
		rc = cmd_exit(fleet_emit_harness(&f, &b, &warn, &err));
		for (const char *w = warn.s; w && *w; w = strchr(w, '\n') + 1)
			cmd_fail(0, "emit: warning: %.*s", (int)strcspn(w, "\n"), w);
	} else if (kind == 5) {
		char *g = fleet_emit_grafana(&f);
		sb_adds(&b, g);
		free(g);
	} else {
		if (fleet_ansible_check(&f, &err)) {
			rc = EXIT_USAGE;
			goto done;
		}
		char *inv = fleet_ansible_inventory(&f, ssh_config);
		char *play = fleet_ansible_playbook(&f, "zealot " ZEALOT_VERSION, reason);
		if (write_in(outdir, "inventory.yml", inv, &err) || write_in(outdir, "playbook.yml", play, &err))
			rc = cmd_exit(ZE_IO);
		free(inv);
		free(play);
	}
	if (rc == EXIT_OK && kind != 4)
		fputs(b.s, stdout);
done:
	sb_release(&b);
	sb_release(&warn);
	fleet_free(&f);
	return cmd_end("emit", rc, err);
}

/* emit unit FILE: the unit, naming this zealot (or --zealot) and the file
 * by absolute paths; NULL with *err when either cannot be resolved. */
static int unit_text(const struct endpoint *ep, const char *file, const char *zealot, const char *user, char **out,
		     char **err)
{
	const char *u = user ? user : endpoint_value(ep, "USER");
	if (u && *u && !quote_unit_user_ok(u))
		return errorf(err, "USER is not a user name (letters, digits, . _ -) or a UID: it cannot be the unit's "
				   "User= line (law C02)"),
		       EXIT_USAGE; /* an invalid endpoint (emit's documented 2), not a verdict */
	char self[PATH_MAX], abs[PATH_MAX];
	if (!zealot) {
		ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
		if (n <= 0) {
			errorf(err, "cannot find this binary's path (give --zealot)");
			return cmd_exit(ZE_IO);
		}
		self[n] = '\0';
		zealot = self;
		if (in_checkout(self))
			fprintf(stderr,
				"zealot: emit: warning: ExecStart would run %s, a binary in a source checkout "
				"(make install, or give --zealot PATH)\n",
				self);
	}
	if (!realpath(file, abs)) {
		errorf(err, "cannot resolve '%s'", file);
		return cmd_exit(zerr_of_errno(errno));
	}
	*out = emit_unit(ep, zealot, abs, user);
	return EXIT_OK;
}

static const char *user, *zealot, *outdir, *ssh_config, *reason;
static uint64_t minutes;
static struct opt_list sets;
static const struct opt opts[] = {
    OPT_STRING(0, "user", &user, "NAME", "unit: User="),
    OPT_STRING(0, "zealot", &zealot, "PATH",
	       "unit: the zealot binary (default: this one; warned about\nwhen it lies in a source checkout: "
	       "make install)"),
    OPT_U64(0, "slot-minutes", &minutes, "N", 1, 1440, "alerts: minutes of waiting before LlmNoFreeSlot (5)"),
    OPT_STRING('o', "output", &outdir, "OUTDIR", "ansible: where inventory.yml and playbook.yml go (.)"),
    OPT_STRING(0, "ssh-config", &ssh_config, "FILE", "ansible: ssh reads this config (-F FILE)"),
    OPT_STRING(0, "reason", &reason, "TEXT", "ansible: the deploy reason (default \"ansible: zealot fleet playbook\")"),
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "an ENDPOINT's kinds: override an endpoint key (what-if; repeatable)"),
    OPT_END(),
};

/* An option the kind does not take is refused, never ignored (emit unit -o
 * FILE printed the unit and wrote nothing): the option, and the kind
 * that takes it. */
static int kind_takes(int kind, int dir)
{
	static const struct {
		int given_kind; /* the kind that takes it */
		const char *name;
	} only[] = {{0, "--user"},   {0, "--zealot"},	  {2, "--slot-minutes"},
		    {4, "--output"}, {4, "--ssh-config"}, {4, "--reason"}};
	const int given[] = {user != NULL,   zealot != NULL,	 minutes != 0,
			     outdir != NULL, ssh_config != NULL, reason != NULL};
	for (size_t i = 0; i < ARRAY_SIZE(only); i++)
		if (given[i] && kind != only[i].given_kind)
			return cmd_fail(EXIT_USAGE, "emit: %s: %s is for %s only%s", kinds[kind], only[i].name,
					kinds[only[i].given_kind],
					kind == 0 && i == 3
					    ? " (unit prints to stdout: zealot emit unit FILE > NAME.service)"
					    : "");
	if (sets.n && dir)
		return cmd_fail(EXIT_USAGE, "emit: %s: --set takes an endpoint file, not a fleet directory",
				kinds[kind]);
	return EXIT_OK;
}

static int run(struct opt_args *args)
{
	const char *what = args->v[0], *file = args->v[1];
	if (strcmp(what, "preset") == 0 || strcmp(what, "llama-swap") == 0)
		return cmd_router_emit(what, file);
	int kind = name_index(kinds, ARRAY_SIZE(kinds), what);
	if (kind < 0) {
		/* the kind a misspelt one means */
		size_t best = 3, near = 0;
		for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
			if (edit_distance(what, kinds[i]) < best)
				best = edit_distance(what, kinds[i]), near = i;
		if (best < 3)
			return cmd_fail(EXIT_USAGE, "emit: '%s' is not a kind: did you mean %s?", what, kinds[near]);
		return cmd_fail(EXIT_USAGE,
				"emit: '%s' is not unit, prometheus, alerts, harness or grafana (nor ansible, for a "
				"fleet DIR)",
				what);
	}
	if (user && !quote_unit_user_ok(user))
		return cmd_fail(EXIT_USAGE, "emit: --user: not a user name (letters, digits, . _ -) or a UID");
	if (zealot && zealot[0] != '/')
		return cmd_fail(EXIT_USAGE, "emit: --zealot: give the binary's absolute path (law C08)");
	struct stat st;
	int dir = stat(file, &st) == 0 && S_ISDIR(st.st_mode);
	if (dir && kind == 0)
		return cmd_fail(EXIT_USAGE,
				"emit: unit takes one endpoint file, not the fleet directory '%s' (each host's unit "
				"is its own: zealot deploy there)",
				file);
	if (!dir && kind == 4)
		return cmd_fail(EXIT_USAGE, "emit: ansible takes a fleet directory, not '%s'", file);
	int taken = kind_takes(kind, dir);
	if (taken != EXIT_OK)
		return taken;
	if (!minutes)
		minutes = 5;
	if (dir)
		return emit_fleet(kind, file, (unsigned)minutes, outdir ? outdir : ".", ssh_config,
				  reason ? reason : "ansible: zealot fleet playbook");
	char *err = NULL, *out = NULL;
	int rc = EXIT_OK;
	struct endpoint *ep = cmd_load_endpoint(file, &sets, &rc, &err);
	if (!ep)
		goto done;
	const char *bind = endpoint_value(ep, K_BIND_ADDR);
	if (bind && *bind && key_check_value(key_by_name("BIND_ADDR"), bind, &err)) {
		rc = EXIT_USAGE; /* an invalid endpoint: the address lands in the unit, the job and the harness */
		goto done;
	}
	const char *scrape = endpoint_value(ep, K_SCRAPE_HOST);
	if (scrape && *scrape && key_check_value(key_by_name("SCRAPE_HOST"), scrape, &err)) {
		rc = EXIT_USAGE; /* it lands in the scrape job's target */
		goto done;
	}
	if (kind == 0) {
		if ((rc = unit_text(ep, file, zealot, user, &out, &err)) != EXIT_OK)
			goto done;
	} else if (kind == 1) {
		out = emit_prometheus(ep);
	} else if (kind == 2) {
		out = emit_alerts(ep, (unsigned)minutes);
	} else if (kind == 5) {
		const struct endpoint *one = ep;
		out = grafana_dashboard(&one, 1, ep->name);
	} else {
		unsigned window;
		rc = cmd_exit(
		    fleet_emit_harness_entry(ep, NULL, endpoint_value(ep, K_COMPACTION_HUB), &window, &out, &err));
		if (rc != EXIT_OK)
			goto done;
	}
	fputs(out, stdout);
done:
	free(out);
	endpoint_free(ep);
	return cmd_end("emit", rc, err);
}

const struct command cmd_emit = {"emit", &help, opts, run, NULL};
