/* zealot argv ENDPOINT [--set K=V ...] [--json] */
#include <getopt.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/endpoint.h"
#include "cmd.h"

static const char usage[] = "usage: zealot argv ENDPOINT [--set KEY=VALUE ...] [--json]\n"
			    "\n"
			    "Print the exact llama-server command line for the endpoint, one argument\n"
			    "per line: the runtime, the payload, alias, bind and port, --ctx-size and\n"
			    "--parallel explicit with --fit off (law S01), cache types, flash\n"
			    "attention, batch and ubatch, GPU layers, the template and reasoning flags,\n"
			    "--metrics (C04) and --log-verbosity (C05) by default, projector, adapter\n"
			    "with its scale, --presence-penalty when set (C07), the speculative flags\n"
			    "as one set or none (S05), the API key by file only, then EXTRA_ARGS.\n"
			    "Relative payload paths resolve against the endpoint file's directory.\n"
			    "\n"
			    "  --set KEY=VALUE  override an endpoint key (repeatable)\n"
			    "  --json           a JSON array of strings\n"
			    "  -h, --help       this text\n"
			    "\n"
			    "exit: 0, 2 invalid endpoint, 3 unreadable endpoint file\n";

int cmd_argv(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"set", required_argument, NULL, 's'},
	    {"json", no_argument, NULL, 'j'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	char **sets = xcalloc((size_t)argc, sizeof(*sets));
	size_t n_sets = 0;
	int json = 0, ch, rc = EXIT_OK;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 's': sets[n_sets++] = optarg; break;
		case 'j': json = 1; break;
		case 'h':
			fputs(usage, stdout);
			free(sets);
			return EXIT_OK;
		default:
			fputs(usage, stderr);
			free(sets);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fputs(usage, stderr);
		free(sets);
		return EXIT_USAGE;
	}
	char *err = NULL;
	struct argv_list a = {0};
	struct endpoint *ep = endpoint_load(argv[optind], &err);
	if (!ep) {
		rc = err && strncmp(err, "cannot", 6) == 0 ? EXIT_IO : EXIT_USAGE;
		goto done;
	}
	for (size_t i = 0; i < n_sets; i++)
		if (endpoint_set(ep, sets[i], &err)) {
			rc = EXIT_USAGE;
			goto done;
		}
	if (argv_render(ep, &a, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (json) {
		json_t *arr = json_array();
		for (size_t i = 0; i < a.n; i++)
			json_array_append_new(arr, json_string(a.v[i]));
		char *s = json_dumps(arr, JSON_INDENT(2));
		puts(s);
		free(s);
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
	free(sets);
	return rc;
}
