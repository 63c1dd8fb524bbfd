/* A router endpoint in the live commands: ledger --endpoint ROUTER.env
 * (the log split by child, each boot held to its member's plan). */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/file.h"
#include "../endpoint/router.h"
#include "../judge/router_preset.h"
#include "../live/audit.h"
#include "../live/http.h"
#include "../live/probe.h"
#include "../live/router_log.h"
#include "../plan/router.h"
#include "cmd.h"

int cmd_router_audit_argv(const struct endpoint *ep, int in_unit, struct argv_list *want, char **err)
{
	char *preset = in_unit ? router_preset_unit_path(ep) : router_preset_path(ep);
	int rc = router_argv_render(ep, preset, want, err);
	free(preset);
	return rc;
}

int cmd_router_audit_members(const struct endpoint *ep, long pid, struct audit *a, char **err)
{
	struct router r = {0};
	if (router_load(ep, &r, NULL, err))
		return -1;
	router_audit_members(&r, (pid_t)pid, a);
	router_release(&r);
	return 0;
}

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
		rc = cmd_exit(ZE_IO);
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

/* GET /models: the ids the router lists, as a JSON array (NULL: none). */
static json_t *listed(const struct http_client *c)
{
	struct http_response r;
	http_route_model(NULL);
	json_t *ids = NULL;
	if (!http_request(c, "GET", "/models", NULL, &r) && r.status == 200) {
		json_t *j = json_loadb(r.body.s ? r.body.s : "", r.body.len, 0, NULL);
		size_t i;
		json_t *m;
		ids = json_array();
		json_array_foreach(json_object_get(j, "data"), i, m) json_array_append(ids, json_object_get(m, "id"));
		json_decref(j);
	}
	http_response_release(&r);
	return ids;
}

/* One member's probes, addressed by its name through the router. */
static json_t *probe_member(const struct http_client *c, const struct router_price *rp, size_t i, const char *only,
			    int *failed, char **err)
{
	struct probe_expect e = {0};
	e.projector = -1;
	json_t *o = json_pack("{s:s}", "name", rp->r.m[i].name);
	if (probe_expect_load(rp->r.m[i].ep, &rp->m[i].c, &rp->m[i].p, &e, err)) {
		json_decref(o);
		return NULL;
	}
	/* the router answers /v1/models with every member: the models probe
	 * (data[0] is the alias) is the router's listing instead */
	struct sb all = {0}, list = {0};
	probe_names(&all);
	for (const char *w = only ? only : all.s; w && *w;) {
		size_t n = strcspn(w, ",");
		if (n && !(n == 6 && strncmp(w, "models", 6) == 0))
			sb_addf(&list, "%s%.*s", list.len ? "," : "", (int)n, w);
		w += n + (w[n] == ',');
	}
	struct probe_results res = {0};
	http_route_model(rp->r.m[i].name);
	if (list.len)
		probe_run(c, &e, list.s, &res);
	http_route_model(NULL);
	sb_release(&all);
	sb_release(&list);
	int bad = 0;
	json_t *arr = json_array();
	if (!only || strstr(only, "models"))
		json_array_append_new(arr,
				      json_pack("{s:s, s:s, s:s, s:s}", "name", "models", "law", "C06", "status",
						"pass", "evidence", "listed by the router's /models under its name"));
	for (size_t k = 0; k < res.n; k++) {
		bad |= probe_failed(&res.v[k]);
		json_array_append_new(arr, probe_result_json(&res.v[k]));
	}
	json_object_set_new(o, "probes", arr);
	json_object_set_new(o, "verdict", json_string(bad ? "fail" : "pass"));
	*failed |= bad;
	probe_results_release(&res);
	probe_expect_release(&e);
	return o;
}

static void print_probe(json_t *o)
{
	size_t i, k;
	json_t *m, *p;
	char *ids = json_dumps(json_object_get(o, "models"), JSON_COMPACT);
	printf("models listed: %s\n", ids ? ids : "[]");
	free(ids);
	json_array_foreach(json_object_get(o, "members"), i, m)
	{
		printf("\nmember %s: %s\n", json_string_value(json_object_get(m, "name")),
		       json_string_value(json_object_get(m, "verdict")));
		json_array_foreach(json_object_get(m, "probes"), k, p) printf(
		    "  %-4s %-12s %s\n", json_string_value(json_object_get(p, "status")),
		    json_string_value(json_object_get(p, "name")), json_string_value(json_object_get(p, "evidence")));
	}
	printf("\nverdict: %s\n", json_string_value(json_object_get(o, "verdict")));
}

int cmd_router_probe(struct http_client *c, const char *endpoint_path, const char *only, int json)
{
	char *err = NULL, why[256];
	enum zerr kind;
	int rc = EXIT_OK, failed = 0;
	struct router_price rp;
	json_t *o = NULL;
	struct endpoint *ep = cmd_load_endpoint(endpoint_path, NULL, &rc, &err);
	if (!ep)
		return cmd_end("probe", rc, err);
	if (router_price(ep, NULL, &rp, &kind, &err)) {
		rc = cmd_exit(kind);
		goto done;
	}
	char *kf = endpoint_path(ep, K_API_KEY_FILE);
	c->api_key = kf ? endpoint_read_key(kf) : NULL;
	free(kf);
	if (probe_reachable(c, why, sizeof(why))) {
		rc = cmd_exit(ZE_IO);
		errorf(&err, "%s (is the router running and listening there?)", why);
		goto done;
	}
	o = json_object();
	json_t *ids = listed(c), *ms = json_array();
	for (size_t i = 0; i < rp.r.n; i++) {
		int in = 0;
		size_t k;
		json_t *id;
		json_array_foreach(ids, k, id) in |=
		    json_is_string(id) && !strcmp(json_string_value(id), rp.r.m[i].name);
		failed |= !in;
		json_t *m = in ? probe_member(c, &rp, i, only, &failed, &err)
			       : json_pack("{s:s, s:s}", "name", rp.r.m[i].name, "verdict", "not listed");
		if (!m) {
			rc = cmd_exit(ZE_IO);
			goto done;
		}
		json_array_append_new(ms, m);
	}
	json_object_set_new(o, "models", ids ? ids : json_array());
	json_object_set_new(o, "members", ms);
	json_object_set_new(o, "verdict", json_string(failed ? "fail" : "pass"));
	if (json)
		cmd_print_json(o, 0);
	else
		print_probe(o);
	rc = failed ? EXIT_NO : EXIT_OK;
done:
	json_decref(o);
	free(c->api_key);
	c->api_key = NULL;
	router_price_release(&rp);
	endpoint_free(ep);
	return cmd_end("probe", rc, err);
}
