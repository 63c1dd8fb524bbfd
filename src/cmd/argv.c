/* zealot argv ENDPOINT [--set K=V ...] [--json] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/router.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static struct opt_list sets;
static int json;
static const struct opt opts[] = {
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key (repeatable)"),
    OPT_FLAG(0, "json", &json, "a JSON array of strings"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	char *err = NULL;
	struct argv_list a = {0};
	struct endpoint *ep = cmd_load_endpoint(args->v[0], &sets, &rc, &err);
	if (!ep)
		goto done;
	if (router_is(ep) ? cmd_router_argv(ep, &a, &err) : argv_render(ep, &a, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < a.n; i++)
			json_array_append_new(arr, json_string(a.v[i]));
		cmd_print_json(arr, 0);
		json_decref(arr);
	} else {
		for (size_t i = 0; i < a.n; i++)
			puts(a.v[i]);
	}
done:
	argv_release(&a);
	endpoint_free(ep);
	return cmd_end("argv", rc, err);
}

static const struct cmd_help help = {DOC_ARGV};
const struct command cmd_argv = {"argv", &help, opts, run, NULL};
