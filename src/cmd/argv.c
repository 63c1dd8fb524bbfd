/* zealot argv ENDPOINT [--set K=V ...] [--json] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/endpoint.h"
#include "cmd.h"
#include "options.h"

static const struct cmd_help help = {
    .usage = "zealot argv ENDPOINT [--set KEY=VALUE ...] [--json]",
    .about = "Print the exact llama-server command line for the endpoint, one argument\n"
	     "per line: the runtime, the payload, alias, bind and port, --ctx-size and\n"
	     "--parallel explicit with --fit off (law S01), cache types, flash\n"
	     "attention, batch and ubatch, GPU layers, the template and reasoning flags,\n"
	     "--metrics (C04) and --log-verbosity (C05) by default, projector, adapter\n"
	     "with its scale, --presence-penalty when set (C07), the speculative flags\n"
	     "as one set or none (S05), the API key by file only, then EXTRA_ARGS.\n"
	     "Relative payload paths resolve against the endpoint file's directory.\n",
    .exits = "0, 2 invalid endpoint, 3 unreadable endpoint file",
    .min_args = 1,
    .max_args = 1,
};

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
