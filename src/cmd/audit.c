/* zealot audit ENDPOINT [--pid PID | --unit NAME] [--json] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/safe.h"
#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/endpoint.h"
#include "../live/audit.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_AUDIT};

static long unit_main_pid(const char *unit)
{
	struct sb cmd = {0};
	sb_addf(&cmd, "systemctl show -p MainPID --value -- '%s' 2>/dev/null", unit);
	FILE *p = strchr(unit, '\'') ? NULL : popen(cmd.s, "r");
	sb_release(&cmd);
	if (!p)
		return -1;
	char line[64] = "";
	long pid = -1;
	if (fgets(line, sizeof(line), p))
		pid = strtol(line, NULL, 10);
	pclose(p);
	return pid;
}

/* The unit's two drop-in directories, and its MainPID when it has one. */
static void unit_facts(const char *unit, struct sb *d1, struct sb *d2, uint64_t *pid, struct sb *src)
{
	const char *suffix = strstr(unit, ".service") ? "" : ".service";
	sb_addf(d1, "/etc/systemd/system/%s%s.d", unit, suffix);
	sb_addf(d2, "/run/systemd/system/%s%s.d", unit, suffix);
	long main = unit_main_pid(unit);
	if (main > 0) {
		*pid = (uint64_t)main;
		sb_addf(src, "unit %s MainPID", unit);
	}
}

/* No pid given or found by the unit: the process listening on the port. */
static int listener_pid(unsigned port, const char *unit, uint64_t *pid, struct sb *src, char **err)
{
	pid_t l[4];
	size_t n = audit_listeners(port, l, 4);
	if (!n)
		return errorf(err, "no engine found: nothing listens on port %u%s", port,
			      unit ? " and the unit has no MainPID" : "");
	*pid = (uint64_t)l[0];
	sb_addf(src, "the listener on port %u", port);
	return 0;
}

/* The unit is not running, yet the port answers: a hand-started engine
 * behind a failed unit (A02: stop it by PID). */
static void unit_down_row(struct audit *a, const char *unit, uint64_t pid)
{
	struct sb live = {0};
	sb_addf(&live, "not running; pid %llu answers the port", (unsigned long long)pid);
	a->rows = xreallocarray(a->rows, a->n + 1, sizeof(*a->rows));
	a->rows[a->n++] =
	    (struct audit_row){xstrdup(unit), xstrdup("running, MainPID answers the port"), sb_detach(&live), 1, "A02"};
	a->divergences++;
}

/* The audit's rows: one JSON object, or a table. */
static void print_audit(const struct endpoint *ep, unsigned long long pid, const char *found_by, const struct audit *a,
			int json)
{
	if (json) {
		json_t *o = json_pack("{s:s,s:I,s:s,s:I}", "endpoint", ep->name, "pid", (json_int_t)pid, "found_by",
				      found_by, "divergences", (json_int_t)a->divergences);
		json_t *rows = json_array();
		for (size_t i = 0; i < a->n; i++) {
			json_t *r = json_pack("{s:o,s:o,s:o,s:b}", "what", safe_json(a->rows[i].what), "intended",
					      safe_json(a->rows[i].intended), "live", safe_json(a->rows[i].live),
					      "diverges", a->rows[i].diverges);
			json_object_set_new(r, "law", a->rows[i].law ? json_string(a->rows[i].law) : json_null());
			json_array_append_new(rows, r);
		}
		json_object_set_new(o, "rows", rows);
		cmd_print_json(o, 0);
		json_decref(o);
	} else {
		printf("audit %s: pid %llu (%s)\n\n", ep->name, pid, found_by);
		printf("   %-24s %-40s %s\n", "", "intended", "live");
		/* the live process's words (its argv, environment, files) as one
		 * safe line each (base/safe.h) */
		struct sb w = {0}, in = {0}, lv = {0};
		for (size_t i = 0; i < a->n; i++)
			printf("%s %-24s %-40s %s%s%s\n", a->rows[i].diverges ? "!!" : "  ",
			       safe_str(a->rows[i].what, &w), safe_str(a->rows[i].intended, &in),
			       safe_str(a->rows[i].live, &lv), a->rows[i].law ? "  " : "",
			       a->rows[i].law ? a->rows[i].law : "");
		sb_release(&w);
		sb_release(&in);
		sb_release(&lv);
		printf("\n%zu divergence%s\n", a->divergences, a->divergences == 1 ? "" : "s");
	}
}

static uint64_t pid;
static const char *unit;
static struct opt_list dropins, sets;
static int json;
static const struct opt opts[] = {
    OPT_U64(0, "pid", &pid, "PID", 1, 4194304, "the engine's process"),
    OPT_STRING(0, "unit", &unit, "NAME", "a systemd unit: its MainPID and drop-in directories"),
    OPT_LIST(0, "dropin-dir", &dropins, "DIR", "also list drop-ins in DIR (repeatable)"),
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key of the intended side (what-if; repeatable)"),
    OPT_JSON(&json),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	if (pid && unit)
		return opt_usage_error("audit", &help, "--pid and --unit exclude each other");
	/* the directories given, then the unit's two */
	const char **dirs = xcalloc(dropins.n + 2, sizeof(*dirs));
	size_t n_dirs = 0;
	for (unsigned i = 0; i < dropins.n; i++)
		dirs[n_dirs++] = dropins.v[i];
	char *err = NULL;
	int rc = EXIT_OK;
	struct argv_list want = {0};
	struct audit a = {0};
	char *model = NULL;
	struct sb d1 = {0}, d2 = {0}, src = {0};
	struct endpoint *ep = cmd_load_endpoint(args->v[0], &sets, &rc, &err);
	if (!ep)
		goto done;
	uint64_t port = 0;
	if (argv_render(ep, &want, &err) || endpoint_uint(ep, "LISTEN_PORT", &port, &err) || port == 0 ||
	    port > 65535) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (unit) {
		unit_facts(unit, &d1, &d2, &pid, &src);
		dirs[n_dirs++] = d1.s;
		dirs[n_dirs++] = d2.s;
	}
	if (pid && !src.len)
		sb_adds(&src, "--pid");
	int unit_down = unit && !pid;
	if (!pid && listener_pid((unsigned)port, unit, &pid, &src, &err)) {
		rc = cmd_exit(ZE_IO);
		goto done;
	}
	model = endpoint_path(ep, "MODEL_FILE");
	enum zerr kind = audit_run(ep, (pid_t)pid, &want, model, (unsigned)port, dirs, n_dirs, &a, &err);
	if (kind != ZE_OK) {
		rc = cmd_exit(kind);
		goto done;
	}
	if (unit_down)
		unit_down_row(&a, unit, pid);
	print_audit(ep, (unsigned long long)pid, src.s, &a, json);
	rc = a.divergences ? EXIT_NO : EXIT_OK;
done:
	free(model);
	sb_release(&d1);
	sb_release(&d2);
	sb_release(&src);
	audit_release(&a);
	argv_release(&want);
	endpoint_free(ep);
	free(dirs);
	return cmd_end("audit", rc, err);
}

const struct command cmd_audit = {"audit", &help, opts, run, NULL};
