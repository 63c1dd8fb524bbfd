/* zealot store check [--full] [--json] */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../store/store.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_STORE};

static int json, full;
static const struct opt opts[] = {
    OPT_FLAG(0, "full", &full, "integrity_check instead of quick_check (slower: indexes against tables)"),
    OPT_FLAG(0, "json", &json, "one JSON object (see above)"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	char *err = NULL;
	struct store_health h;
	if (strcmp(args->v[0], "check") != 0) {
		rc = cmd_fail(EXIT_USAGE, "store: '%s' is not a store command (store check)", args->v[0]);
		goto done;
	}
	if (store_health_check(NULL, full, &h, &err)) {
		rc = cmd_fail(cmd_exit(ZE_IO), "store: check: %s", err);
		store_health_release(&h);
		goto done;
	}
	const char *check = full ? "integrity_check" : "quick_check";
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "path", json_string(h.path));
		json_object_set_new(o, "exists", json_boolean(h.exists));
		json_object_set_new(o, "writable", json_boolean(!h.exists || h.writable));
		json_object_set_new(o, "readonly", h.readonly_why ? json_string(h.readonly_why) : json_null());
		json_object_set_new(o, "schema_version", h.version >= 0 ? json_integer(h.version) : json_null());
		json_object_set_new(o, "check", json_string(check));
		json_object_set_new(o, "ok", json_boolean(h.ok));
		json_t *p = json_array(), *b = json_array();
		for (size_t i = 0; i < h.n_problems; i++)
			json_array_append_new(p, json_string(h.problems[i]));
		for (size_t i = 0; i < h.n_backups; i++)
			json_array_append_new(b, json_string(h.backups[i]));
		json_object_set_new(o, "problems", p);
		json_object_set_new(o, "backups", b);
		json_object_set_new(o, "recovery", h.recovery ? json_string(h.recovery) : json_null());
		cmd_print_json(o, 0);
		json_decref(o);
	} else if (!h.exists) {
		printf("store %s: none yet (nothing to check)\n", h.path);
	} else {
		printf("store %s: schema version %d, %s: %s\n", h.path, h.version, check, h.ok ? "ok" : "DAMAGED");
		for (size_t i = 0; i < h.n_problems; i++)
			printf("  %s\n", h.problems[i]);
		if (h.readonly_why)
			printf("  %s\n", h.readonly_why);
		for (size_t i = 0; i < h.n_backups; i++)
			printf("  backup: %s\n", h.backups[i]);
	}
	if (!h.ok) {
		rc = cmd_fail(EXIT_NO, "store: %s is damaged (%s: %s); %s", h.path, check,
			      h.n_problems ? h.problems[0] : "?", h.recovery ? h.recovery : "");
	}
	store_health_release(&h);
done:
	free(err);
	return rc;
}

const struct command cmd_store = {"store", &help, opts, run, NULL};
