/* zealot audit ENDPOINT [--pid PID | --unit NAME] [--log FILE] [--json] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/file.h"
#include "../base/redact.h"
#include "../base/safe.h"
#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/router.h"
#include "../live/audit.h"
#include "../live/memory.h"
#include "../plan/device.h"
#include "../store/calib.h"
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

/* The boot log at path (NULL: none) as a ledger, allocated; NULL with
 * *err when it cannot be read or holds no ledger lines. */
static struct ledger *boot_ledger(const char *path, char **err)
{
	size_t len = 0;
	char *text = read_file(path, 256u << 20, READ_STDIN | READ_TRUNCATE, &len, NULL, err);
	struct ledger *l = text ? xcalloc(1, sizeof(*l)) : NULL;
	if (l)
		ledger_parse(text, len, l);
	free(text);
	if (l && !l->recognised) {
		free(l);
		l = NULL;
		errorf(err, "'%s' holds no boot ledger (a llama-server log at --log-verbosity 4)", path);
	}
	return l;
}

/* The settled memory of pid against the endpoint's plan (as deploy gates
 * it: calibrated from a recorded boot) and the boot ledger of --log: its
 * rows added to a, its JSON in *mem. -1 with *err and *rc. */
static int audit_memory(const struct endpoint *ep, pid_t pid, const char *log, struct audit *a, json_t **mem, int *rc,
			char **err)
{
	struct ledger *l = NULL;
	if (log && !(l = boot_ledger(log, err))) {
		*rc = cmd_exit(ZE_IO);
		return -1;
	}
	struct shape_ctx c;
	struct plan p;
	json_t *cal = NULL;
	char *cal_text = NULL, *warn = NULL, *why = NULL;
	enum zerr k = calib_price(ep, NULL, NULL, 1, &c, &p, &cal, &cal_text, &warn, &why);
	json_decref(cal);
	free(cal_text);
	free(warn);
	struct memory_settled m;
	struct memory_report r;
	int card = k == ZE_OK && p.n_cards && p.device && p.device->backend == DEVICE_CUDA
		       ? (int)device_card_of(endpoint_value(ep, K_GPU))
		       : -1;
	/* no plan (a payload unread) or no /proc: the rest of the audit stands */
	if (k == ZE_OK && memory_read(pid, card, &m, &why) == 0) {
		memory_judge(&p, l, &m, &r);
		audit_memory_rows(a, &r);
		*mem = memory_json(&r, &m);
	} else {
		char *safe = redact_text(why ? why : "no plan");
		*mem = json_pack("{s:s}", "not_compared", safe);
		free(safe);
	}
	free(why);
	free(l);
	shape_release(&c);
	return 0;
}

/* The audit's rows: one JSON object, or a table. */
static void print_audit(const struct endpoint *ep, unsigned long long pid, const char *found_by, const struct audit *a,
			json_t *mem, int json)
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
		json_object_set(o, "memory", mem ? mem : json_null());
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
		json_t *rows = json_object_get(mem, "rows"), *r, *nc = json_object_get(mem, "not_compared");
		size_t i;
		struct sb ncw = {0};
		if (nc)
			printf("\nmemory: not compared: %s", safe_str(json_string_value(nc), &ncw));
		sb_release(&ncw);
		json_array_foreach(rows, i, r)
		{
			if (json_is_string(json_object_get(r, "law")))
				printf("\n%s %s: %s", json_string_value(json_object_get(r, "law")),
				       json_string_value(json_object_get(r, "what")),
				       json_string_value(json_object_get(r, "why")));
		}
		printf("\n%zu divergence%s\n", a->divergences, a->divergences == 1 ? "" : "s");
	}
}

static uint64_t pid;
static const char *unit, *log_path;
static struct opt_list dropins, sets;
static int json;
static const struct opt opts[] = {
    OPT_U64(0, "pid", &pid, "PID", 1, 4194304, "the engine's process"),
    OPT_STRING(0, "unit", &unit, "NAME", "a systemd unit: its MainPID and drop-in directories"),
    OPT_LIST(0, "dropin-dir", &dropins, "DIR", "also list drop-ins in DIR (repeatable)"),
    OPT_STRING(0, "log", &log_path, "FILE", "the engine's boot log: its ledger beside the settled memory"),
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
	json_t *mem = NULL;
	struct sb d1 = {0}, d2 = {0}, src = {0};
	struct endpoint *ep = cmd_load_endpoint(args->v[0], &sets, &rc, &err);
	if (!ep)
		goto done;
	uint64_t port = 0;
	int router = router_is(ep);
	if ((router ? cmd_router_audit_argv(ep, unit != NULL, &want, &err) : argv_render(ep, &want, &err)) ||
	    endpoint_uint(ep, "LISTEN_PORT", &port, &err) || port == 0 || port > 65535) {
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
	model = router ? NULL : endpoint_path(ep, "MODEL_FILE");
	enum zerr kind = audit_run(ep, (pid_t)pid, &want, model, (unsigned)port, dirs, n_dirs, &a, &err);
	if (kind == ZE_OK && router && cmd_router_audit_members(ep, (long)pid, &a, &err))
		kind = ZE_IO;
	if (kind != ZE_OK) {
		rc = cmd_exit(kind);
		goto done;
	}
	if (audit_memory(ep, (pid_t)pid, log_path, &a, &mem, &rc, &err))
		goto done;
	if (unit_down)
		unit_down_row(&a, unit, pid);
	print_audit(ep, (unsigned long long)pid, src.s, &a, mem, json);
	rc = a.divergences ? EXIT_NO : EXIT_OK;
done:
	json_decref(mem);
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
