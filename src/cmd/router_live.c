/* A router endpoint in the live commands: ledger --endpoint ROUTER.env
 * (the log split by child, each boot held to its member's plan). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/file.h"
#include "../endpoint/router.h"
#include "../live/router_log.h"
#include "../plan/router.h"
#include "cmd.h"

int cmd_router_file(const char *path)
{
	struct endpoint *ep = endpoint_load(path, NULL, NULL);
	int is = ep && router_is(ep);
	endpoint_free(ep);
	return is;
}

static void print_boots(json_t *o)
{
	size_t i;
	json_t *b;
	json_array_foreach(json_object_get(o, "boots"), i, b)
	{
		const char *d = json_string_value(json_object_get(b, "differs"));
		printf("%-20s port %-6lld %-8s %s\n", json_string_value(json_object_get(b, "name")),
		       (long long)json_integer_value(json_object_get(b, "port")),
		       json_string_value(json_object_get(b, "verdict")), d ? d : "");
	}
	printf("\nverdict: %s\n", json_string_value(json_object_get(o, "verdict")));
}

int cmd_router_ledger(const char *endpoint_path, const char *log_path, int json)
{
	char *err = NULL;
	enum zerr kind;
	int rc = EXIT_OK;
	struct router_price rp;
	struct router_log lg = {0};
	size_t len = 0;
	char *log = NULL;
	struct endpoint *ep = cmd_load_endpoint(endpoint_path, NULL, &rc, &err);
	if (!ep)
		return cmd_end("ledger", rc, err);
	if (router_price(ep, NULL, &rp, &kind, &err)) {
		rc = cmd_exit(kind);
		goto done;
	}
	log = read_file(log_path, 256u << 20, READ_STDIN, &len, NULL, &err);
	if (!log) {
		rc = EXIT_IO;
		goto done;
	}
	router_log_split(log, len, &lg);
	int diverged;
	json_t *o = router_log_hold(&rp, &lg, &diverged);
	if (json)
		cmd_print_json(o, 12);
	else
		print_boots(o);
	json_decref(o);
	rc = diverged ? EXIT_NO : EXIT_OK;
done:
	free(log);
	router_log_release(&lg);
	router_price_release(&rp);
	endpoint_free(ep);
	return cmd_end("ledger", rc, err);
}
