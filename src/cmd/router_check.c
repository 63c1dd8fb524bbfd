/* check ROUTER.env: the set's laws (C12, M13) and every member's own,
 * each finding named by the member it is about. The laws are
 * judge/router_laws'; this file prints them. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "../base/redact.h"
#include "../base/safe.h"
#include "../judge/router_laws.h"
#include "cmd.h"

static json_t *findings_json(const struct findings *fs)
{
	json_t *arr = json_array();
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		json_t *x = json_pack("{s:s,s:s,s:o,s:o}", "law", f->law, "severity", severity_name(f->sev), "reason",
				      safe_json(f->reason), "fix", safe_json(f->fix));
		json_object_set_new(x, "key", f->key ? json_string(f->key) : json_null());
		json_object_set_new(x, "line", f->line > 0 ? json_integer(f->line) : json_null());
		json_array_append_new(arr, x);
	}
	return arr;
}

static size_t count(const struct findings *fs, enum severity sev)
{
	size_t n = 0;
	for (size_t i = 0; i < fs->n; i++)
		n += fs->v[i].sev == sev;
	return n;
}

/* One finding as check prints it, under its file. */
static void print_one(const char *path, const struct finding *f)
{
	char where[600], head[700];
	if (f->key && f->line > 0)
		snprintf(where, sizeof(where), "%s:%d %s", path, f->line, f->key);
	else if (f->key)
		snprintf(where, sizeof(where), "%s %s", path, f->key);
	else
		snprintf(where, sizeof(where), "%s", path);
	char *reason = redact_text(f->reason);
	snprintf(head, sizeof(head), "  %-7s %s  %s: ", severity_name(f->sev), f->law, where);
	cmd_wrap(stdout, head, 15, reason);
	free(reason);
	if (f->fix && *f->fix)
		cmd_wrap(stdout, "               fix: ", 20, f->fix);
}

static void print_text(const struct router_price *rp, const struct findings *set, const struct findings *mem)
{
	printf("router %s (%zu members, MODELS_MAX=%u)\n", rp->r.ep->path, rp->r.n, rp->r.models_max);
	for (size_t i = 0; i < set->n; i++)
		print_one(rp->r.ep->path, &set->v[i]);
	if (!set->n)
		printf("  no finding\n");
	for (size_t m = 0; m < rp->r.n; m++) {
		printf("member %s (%s)\n", rp->r.m[m].name, rp->r.m[m].path);
		for (size_t i = 0; i < mem[m].n; i++)
			print_one(rp->r.m[m].path, &mem[m].v[i]);
		if (!mem[m].n)
			printf("  no finding\n");
	}
}

static json_t *as_json(const struct router_price *rp, const struct findings *set, const struct findings *mem,
		       size_t errors, size_t warnings)
{
	json_t *o = json_object();
	json_object_set_new(o, "endpoint", safe_json(rp->r.ep->path));
	json_object_set_new(o, "findings", findings_json(set));
	json_t *ms = json_array();
	for (size_t m = 0; m < rp->r.n; m++) {
		json_t *x =
		    json_pack("{s:s,s:o,s:o,s:I,s:I}", "name", rp->r.m[m].name, "path", safe_json(rp->r.m[m].path),
			      "findings", findings_json(&mem[m]), "errors", (json_int_t)findings_errors(&mem[m]),
			      "warnings", (json_int_t)count(&mem[m], SEV_WARNING));
		json_array_append_new(ms, x);
	}
	json_object_set_new(o, "members", ms);
	json_object_set_new(o, "models_max", json_integer(rp->r.models_max));
	json_object_set_new(o, "safe_models_max", json_integer(rp->safe_max));
	json_object_set_new(o, "errors", json_integer((json_int_t)errors));
	json_object_set_new(o, "warnings", json_integer((json_int_t)warnings));
	json_object_set_new(o, "verdict", json_string(errors ? "refused" : "fits"));
	return o;
}

int cmd_router_check(const struct endpoint *ep, int json)
{
	struct router_price rp;
	enum zerr kind;
	char *err = NULL;
	if (router_price(ep, NULL, &rp, &kind, &err)) {
		router_price_release(&rp);
		int rc = cmd_fail(cmd_exit(kind), "check: %s", err);
		free(err);
		return rc;
	}
	struct findings set = {0};
	struct findings *mem = xcalloc(rp.r.n ? rp.r.n : 1, sizeof(*mem));
	router_laws_keys(&rp.r, &set);
	router_laws_fit(&rp, &set);
	size_t errors = findings_errors(&set), warnings = count(&set, SEV_WARNING);
	for (size_t m = 0; m < rp.r.n; m++) {
		router_laws_member(&rp.r.m[m], &rp.m[m], &mem[m]);
		errors += findings_errors(&mem[m]);
		warnings += count(&mem[m], SEV_WARNING);
	}
	if (json) {
		json_t *o = as_json(&rp, &set, mem, errors, warnings);
		cmd_print_json(o, 0);
		json_decref(o);
	} else {
		print_text(&rp, &set, mem);
		printf("\n%zu error%s, %zu warning%s\n", errors, errors == 1 ? "" : "s", warnings,
		       warnings == 1 ? "" : "s");
	}
	for (size_t m = 0; m < rp.r.n; m++)
		findings_release(&mem[m]);
	free(mem);
	findings_release(&set);
	router_price_release(&rp);
	return errors ? EXIT_NO : EXIT_OK;
}
