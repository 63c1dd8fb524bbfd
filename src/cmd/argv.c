/* zealot argv ENDPOINT [--set K=V ...] [--json] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/endpoint.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_ARGV};

int cmd_argv(int argc, char **argv)
{
	struct opt_list sets = {0};
	int json = 0, rc = EXIT_OK;
	const struct opt opts[] = {
	    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key (repeatable)"),
	    OPT_FLAG(0, "json", &json, "a JSON array of strings"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("argv", &help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	char *err = NULL;
	struct argv_list a = {0};
	struct endpoint *ep = cmd_load_endpoint(args.v[0], &sets, &rc, &err);
	if (!ep)
		goto done;
	if (argv_render(ep, &a, &err)) {
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
	if (err)
		cmd_fail(rc, "argv: %s", err);
	free(err);
	argv_release(&a);
	endpoint_free(ep);
	opt_list_release(&sets);
	opt_args_release(&args);
	return rc;
}
