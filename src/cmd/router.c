/* A router endpoint in the commands that take an endpoint: plan's branch
 * (its members priced as sets), emit preset's (models.ini), argv's. The
 * work is in endpoint/router, plan/router and judge/router_laws. */
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../deploy/router.h"
#include "../judge/router_laws.h"
#include "../judge/router_preset.h"
#include "../judge/router_swap.h"
#include "cmd.h"

/* The findings, one line each (the law, the reason, the fix). */
static void print_findings(FILE *f, const struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		fprintf(f, "%s %s: %s\n  fix: %s\n", severity_name(fs->v[i].sev), fs->v[i].law, fs->v[i].reason,
			fs->v[i].fix);
}

int cmd_router_plan(const struct endpoint *ep, const char *device, int json, char **err)
{
	struct router_price rp;
	enum zerr kind;
	if (router_price(ep, device, &rp, &kind, err)) {
		router_price_release(&rp);
		return cmd_exit(kind);
	}
	struct findings fs = {0};
	size_t bad = router_laws_keys(&rp.r, &fs) + router_laws_fit(&rp, &fs);
	if (json) {
		json_t *o = router_price_json(&rp);
		json_t *v = json_array();
		for (size_t i = 0; i < fs.n; i++)
			json_array_append_new(v, json_pack("{s:s, s:s, s:s}", "law", fs.v[i].law, "reason",
							   fs.v[i].reason, "fix", fs.v[i].fix));
		json_object_set_new(o, "findings", v);
		if (bad)
			json_object_set_new(o, "verdict", json_string("refused"));
		cmd_print_json(o, 12);
		json_decref(o);
	} else {
		struct sb b = {0};
		router_report(&b, &rp);
		fputs(b.s, stdout);
		sb_release(&b);
		if (fs.n)
			printf("\n");
		print_findings(stdout, &fs);
		printf("\nverdict: %s\n", bad ? "refused" : "fits");
	}
	findings_release(&fs);
	router_price_release(&rp);
	return bad ? EXIT_NO : EXIT_OK;
}

int cmd_router_argv(const struct endpoint *ep, struct argv_list *a, char **err)
{
	char *preset = router_preset_path(ep);
	int rc = router_argv_render(ep, preset, a, err);
	free(preset);
	return rc;
}

/* emit preset ROUTER.env: models.ini on stdout. */
static int emit_preset(const char *file)
{
	int rc = EXIT_OK;
	char *err = NULL;
	enum zerr kind;
	struct router r = {0};
	struct sb b = {0};
	struct endpoint *ep = cmd_load_endpoint(file, NULL, &rc, &err);
	if (!ep)
		goto done;
	if (router_load(ep, &r, &kind, &err)) {
		rc = cmd_exit(kind);
		goto done;
	}
	if (router_preset_render(&r, &b, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	fputs(b.s, stdout);
done:
	sb_release(&b);
	router_release(&r);
	endpoint_free(ep);
	return cmd_end("emit", rc, err);
}

int cmd_router_emit(const char *what, const char *file)
{
	if (strcmp(what, "preset") == 0)
		return emit_preset(file);
	return cmd_router_swap(file);
}

/* serve's refusal lines: each error finding, or the one error. */
static int refuse_all(const struct deploy_router_refusal *rf)
{
	if (rf->err)
		fprintf(stderr, "zealot: serve: refused at the %s gate: %s\n", rf->gate, rf->err);
	for (size_t i = 0; i < rf->fs.n; i++) {
		const struct finding *f = &rf->fs.v[i];
		if (f->sev == SEV_ERROR)
			fprintf(stderr, "zealot: serve: refused at the %s gate: %s %s%s%s: %s\n", rf->gate, f->law,
				rf->who, f->key ? " " : "", f->key ? f->key : "", f->reason);
	}
	return SERVE_REFUSED;
}

/* The router's gates (deploy/router.h), then the preset written where the
 * unit reads it; the router's argv in *a. */
static int serve_gates(const struct endpoint *ep, struct router_price *rp, struct argv_list *a)
{
	struct deploy_router_refusal rf;
	if (deploy_router_gates(ep, rp, &rf)) {
		refuse_all(&rf);
		deploy_router_refusal_release(&rf);
		return SERVE_REFUSED;
	}
	char *err = NULL;
	int rc = 0;
	struct sb ini = {0};
	char *preset = router_preset_path(ep);
	if (router_preset_render(&rp->r, &ini, &err) || write_file(preset, ini.s, &err) ||
	    router_argv_render(ep, preset, a, &err)) {
		fprintf(stderr, "zealot: serve: refused: %s\n", err);
		rc = SERVE_REFUSED;
	}
	free(preset);
	sb_release(&ini);
	free(err);
	return rc;
}

int cmd_router_serve(const struct endpoint *ep, int dry, char **engine_env)
{
	struct router_price rp;
	struct argv_list a = {0};
	int rc = serve_gates(ep, &rp, &a);
	if (!rc) {
		fprintf(stderr,
			"zealot: serve: gates passed (laws, files, pins, fit: %zu members, the worst set of %u fits; "
			"safe MODELS_MAX %u)\n",
			rp.r.n, rp.r.models_max, rp.safe_max);
		if (dry) {
			for (size_t i = 0; i < a.n; i++)
				puts(a.v[i]);
		} else {
			fflush(NULL);
			execve(a.v[0], a.v, engine_env);
			fprintf(stderr, "zealot: serve: refused: cannot exec '%s': %s\n", a.v[0], strerror(errno));
			rc = SERVE_REFUSED;
		}
	}
	argv_release(&a);
	router_price_release(&rp);
	return rc;
}

/* The endpoint emit llama-swap prices: the router file, or for a bare
 * directory of member files a router over it (MODELS_MAX its count). */
static struct endpoint *swap_endpoint(const char *file, int *rc, char **err)
{
	struct stat st;
	if (stat(file, &st) != 0 || !S_ISDIR(st.st_mode))
		return cmd_load_endpoint(file, NULL, rc, err);
	char abs[PATH_MAX];
	if (!realpath(file, abs)) {
		*rc = cmd_exit(ZE_IO);
		errorf(err, "cannot resolve '%s'", file);
		return NULL;
	}
	struct sb text = {0}, path = {0};
	sb_addf(&text, "MODELS='%s'\nMODELS_MAX=%d\n", abs, ROUTER_MAX_MEMBERS);
	sb_addf(&path, "%s/llama-swap.env", abs);
	struct endpoint *ep = endpoint_parse(text.s, text.len, path.s, err);
	if (!ep)
		*rc = EXIT_USAGE;
	sb_release(&text);
	sb_release(&path);
	return ep;
}

int cmd_router_swap(const char *file)
{
	int rc = EXIT_OK;
	char *err = NULL, self[PATH_MAX];
	enum zerr kind;
	struct router_price rp = {0};
	struct endpoint *ep = swap_endpoint(file, &rc, &err);
	if (!ep)
		goto done;
	if (router_price(ep, NULL, &rp, &kind, &err)) {
		rc = cmd_exit(kind);
		goto done;
	}
	if (!rp.safe_max || !rp.n_maximal) {
		rc = EXIT_NO;
		errorf(&err, "a member alone does not fit: llama-swap could never start it (zealot plan %s)", file);
		goto done;
	}
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';
	struct sb b = {0};
	router_swap_render(&rp, n > 0 ? self : "zealot", &b);
	fputs(b.s, stdout);
	sb_release(&b);
done:
	router_price_release(&rp);
	endpoint_free(ep);
	return cmd_end("emit", rc, err);
}
