/* deploy of a router endpoint (deploy_int.h): its members staged where the
 * installed file names them, its gates, each child loaded once through the
 * router's API and verified, the era's members recorded and restored. */
#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/redact.h"
#include "../judge/router_preset.h"
#include "../judge/trust.h"
#include "../live/audit.h"
#include "../live/http.h"
#include "../live/router_log.h"
#include "deploy.h"
#include "deploy_int.h"
#include "install.h"
#include "router.h"

/* The members as the source's MODELS holds them, each text as it is
 * installed (its relative paths made absolute against its own file):
 * [{name, text, sha256}], or NULL with *err. */
static json_t *source_members(const struct endpoint *src, char **err)
{
	struct router r = {0};
	enum zerr kind;
	if (router_load(src, &r, &kind, err))
		return NULL;
	json_t *ms = json_array();
	for (size_t i = 0; i < r.n && ms; i++) {
		size_t len = 0;
		char *text = install_read(r.m[i].path, &len, err);
		char *inst = text ? install_env_text(r.m[i].own, text, len) : NULL;
		char *shown = inst ? redact_text(inst) : NULL;
		char sha[65];
		if (inst && strcmp(shown, inst) != 0)
			errorf(err,
			       "member %s holds a secret value: an era records its members' text whole; keep the "
			       "secret in a file a *_FILE key names",
			       r.m[i].path);
		else if (inst) {
			deploy_sha256_hex(inst, strlen(inst), sha);
			json_array_append_new(
			    ms, json_pack("{s:s, s:s, s:s}", "name", r.m[i].name, "text", inst, "sha256", sha));
		}
		if (!inst || strcmp(shown, inst) != 0) {
			json_decref(ms);
			ms = NULL;
		}
		free(shown);
		free(inst);
		free(text);
	}
	router_release(&r);
	return ms;
}

char *deploy_router_members(const struct endpoint *ep, char **err)
{
	json_t *ms = source_members(ep, err);
	char *s = ms ? json_dumps(ms, JSON_COMPACT) : NULL;
	json_decref(ms);
	return s;
}

/* An era's recorded members, or NULL with *err. */
static json_t *era_members(struct run *x, const struct store_era *e, char **err)
{
	char *text = NULL;
	int got = store_era_members_get(x->st, e->id, &text, err);
	json_t *ms = got == 0 ? json_loads(text, 0, NULL) : NULL;
	if (got == 1)
		errorf(err, "era %lld recorded no members (zealot history %s)", (long long)e->id, x->name);
	else if (got == 0 && !json_is_array(ms))
		errorf(err, "era %lld's members do not read back", (long long)e->id);
	free(text);
	return ms;
}

static const char *member_field(json_t *m, const char *key)
{
	const char *v = json_string_value(json_object_get(m, key));
	return v ? v : "";
}

/* Each member file written into dir (the ones already there as they are
 * kept); *made when dir did not exist. */
static int write_members(const char *dir, json_t *ms, int *made, char **err)
{
	struct stat st;
	*made = stat(dir, &st) != 0;
	size_t i;
	json_t *m;
	json_array_foreach(ms, i, m)
	{
		char *path = xstrf("%s/%s.env", dir, member_field(m, "name"));
		const char *text = member_field(m, "text");
		size_t len = 0;
		char *now = install_read(path, &len, NULL);
		int rc = now && strcmp(now, text) == 0 ? 0 : install_write(path, text, strlen(text), 0644, err);
		free(now);
		free(path);
		if (rc)
			return -1;
	}
	return 0;
}

/* DIR/NAME.models/HASH: HASH the members' names and texts'. */
static char *members_dir(const struct run *x, json_t *ms)
{
	struct sb all = {0};
	size_t i;
	json_t *m;
	json_array_foreach(ms, i, m) sb_addf(&all, "%s\n%s%c", member_field(m, "name"), member_field(m, "text"), 0);
	char sha[65], *dir = path_dir(x->r->env_path);
	deploy_sha256_hex(all.s ? all.s : "", all.len, sha);
	char *d = xstrf("%s/%s.models/%.16s", dir, x->name, sha);
	free(dir);
	sb_release(&all);
	return d;
}

int deploy_router_stage(struct run *x, const struct endpoint *src, const char *text, size_t len, double t)
{
	char *err = NULL;
	json_t *ms = x->have_target ? era_members(x, &x->target, &err) : source_members(src, &err);
	if (!ms)
		return failed(x, "gate:laws", t, "C03", err, "cannot read the members");
	x->router = 1;
	x->members_dir = members_dir(x, ms);
	if (write_members(x->members_dir, ms, &x->members_new, &err)) {
		json_decref(ms);
		return failed(x, "gate:laws", t, NULL, err, "cannot stage the members");
	}
	x->members_json = json_dumps(ms, JSON_COMPACT);
	x->env_text = install_env_text_set(src, text, len, "MODELS", x->members_dir);
	json_decref(ms);
	return 0;
}

int deploy_router_restage(struct run *x, const struct store_era *e, char **err)
{
	char *text = NULL;
	int got = store_era_members_get(x->st, e->id, &text, err);
	if (got)
		return got < 0 ? -1 : 0; /* no router's era: nothing to put back */
	json_t *ms = json_loads(text, 0, NULL);
	free(text);
	struct endpoint *ep =
	    e->env_text ? endpoint_parse(e->env_text, strlen(e->env_text), x->r->env_path, err) : NULL;
	const char *dir = ep ? endpoint_value(ep, K_MODELS) : NULL;
	int made, rc = -1;
	if (!json_is_array(ms) || !dir || !*dir)
		errorf(err, "era %lld's members do not read back", (long long)e->id);
	else
		rc = write_members(dir, ms, &made, err);
	endpoint_free(ep);
	json_decref(ms);
	return rc;
}

int deploy_router_gate(struct run *x)
{
	double t = mono_s();
	struct deploy_router_refusal rf;
	int bad = deploy_router_gates(x->ep, &x->rp, &rf);
	/* the engine's own config files too (R03), as for one endpoint: serve
	 * refuses them at every start, and the router's children read them */
	if (!bad && trust_config_files(NULL, NULL, &rf.fs, NULL)) {
		bad = -1;
		rf.gate = "laws";
		rf.law = "R03";
		rf.who = xstrdup(x->ep->path);
	}
	if (bad) {
		const char *name = strcmp(rf.gate, "pins") == 0	 ? "gate:pins"
				   : strcmp(rf.gate, "fit") == 0 ? "gate:fit"
								 : "gate:laws";
		char *why = deploy_router_refusal_text(&rf);
		step(x, name, "failed", t, rf.law, "%s", why);
		free(why);
		deploy_router_refusal_release(&rf);
		return -1;
	}
	for (unsigned d = 0; d < x->rp.n_devs; d++)
		x->gpu |= !x->rp.devs[d].is_host;
	step(x, "gate:laws", "ok", t, NULL, "no errors (C12 on the set; each of its %zu members' own laws)", x->rp.r.n);
	step(x, "gate:pins", "ok", t, NULL, "every member's pinned files hold their *_BYTES and *_SHA256");
	return step(x, "gate:fit", "ok", t, NULL,
		    "the worst set of MODELS_MAX=%u fits on every device (M13); safe MODELS_MAX %u; members in %s",
		    x->rp.r.models_max, x->rp.safe_max, x->members_dir);
}

/* GET /models: the member's status ("loaded", "loading", "unloaded", ...)
 * and, when its child failed, its exit code; NULL when the router did not
 * answer. Allocated. */
static char *member_status(const struct http_client *hc, const char *name, long *exit_code)
{
	struct http_response r;
	char *st = NULL;
	*exit_code = -1;
	if (!http_request(hc, "GET", "/models", NULL, &r) && r.status == 200) {
		json_t *j = json_loadb(r.body.s ? r.body.s : "", r.body.len, 0, NULL), *m;
		size_t i;
		json_array_foreach(json_object_get(j, "data"), i, m) if (!strcmp(member_field(m, "id"), name))
		{
			json_t *s = json_object_get(m, "status");
			st = xstrdup(member_field(s, "value"));
			if (json_is_true(json_object_get(s, "failed")))
				*exit_code = (long)json_integer_value(json_object_get(s, "exit_code"));
		}
		json_decref(j);
	}
	http_response_release(&r);
	return st;
}

/* POST /models/VERB {"model": name}, then GET /models until the member's
 * status is want. 0, or -1 with *err. */
static int member_to(const struct run *x, const struct http_client *hc, const char *verb, const char *name,
		     const char *want, char **err)
{
	struct http_response r;
	char *body = xstrf("{\"model\": \"%s\"}", name), *path = xstrf("/models/%s", verb);
	int rc = http_request(hc, "POST", path, body, &r);
	if (rc || r.status != 200)
		errorf(err, "POST %s {\"model\": \"%s\"}: %s", path, name,
		       rc	  ? "no answer"
		       : r.body.s ? r.body.s
				  : "no body");
	http_response_release(&r);
	free(body);
	free(path);
	if (rc || *err)
		return -1;
	double limit = (double)(x->o->boot_timeout_ms > 0 ? x->o->boot_timeout_ms : 300000) / 1000.0;
	double deadline = mono_s() + limit;
	for (;;) {
		long code;
		char *st = member_status(hc, name, &code);
		int done = st && strcmp(st, want) == 0, dead = code >= 0 && strcmp(want, "loaded") == 0;
		if (dead)
			errorf(err, "%s's child exited with status %ld before it loaded", name, code);
		else if (!done && mono_s() > deadline)
			errorf(err, "%s is '%s', not %s, after %.0f s", name, st ? st : "not listed", want, limit);
		free(st);
		if (done || *err)
			return done ? 0 : -1;
		usleep(100000);
	}
}

/* One member: loaded through the router, its child's health and command
 * line, then unloaded. */
static int verify_member(struct run *x, const struct http_client *hc, size_t i)
{
	double t = mono_s();
	const struct router_member *m = &x->rp.r.m[i];
	char *err = NULL;
	unsigned port = 0;
	if (member_to(x, hc, "load", m->name, "loaded", &err))
		return failed(x, "child", t, "C05", err, "the member did not load");
	double loaded = mono_s() - t;
	long pid = router_child_of(x->unit.main_pid, m->name, &port);
	if (!pid)
		return step(x, "child", "failed", t, "A01", "%s loaded, but no child of MainPID %ld runs --alias %s",
			    m->name, x->unit.main_pid, m->name);
	char *base = xstrf("http://127.0.0.1:%u", port);
	struct http_client ch = {base, x->api_key, 5000};
	struct http_response r;
	int up = http_request(&ch, "GET", "/health", NULL, &r) == 0 && r.status == 200;
	http_response_release(&r);
	free(base);
	if (!up)
		return step(x, "child", "failed", t, "C05", "%s's child (pid %ld) does not answer /health on port %u",
			    m->name, pid, port);
	int held = router_child_holds(m, pid, &err);
	if (held < 0)
		return failed(x, "child", t, "A01", err, "the child's command line is not its member's");
	if (member_to(x, hc, "unload", m->name, "unloaded", &err))
		return failed(x, "child", t, NULL, err, "the member did not unload");
	return step(x, "child", "ok", t, NULL,
		    "%s: loaded in %.1f s, pid %ld on port %u answers /health, its command line holds its %d preset "
		    "arguments; unloaded",
		    m->name, loaded, pid, port, held);
}

/* Enough of the journal: a boot with a ledger for every member. */
static int every_child_logged(const char *j, void *arg)
{
	size_t want = *(size_t *)arg, got = 0;
	struct router_log lg = {0};
	router_log_split(j, strlen(j), &lg);
	for (size_t i = 0; i < lg.n; i++)
		got += lg.v[i].log.s && (strstr(lg.v[i].log.s, "model loaded") || strstr(lg.v[i].log.s, "listening"));
	router_log_release(&lg);
	return got >= want;
}

/* The journal of this start split by child, each boot held to its
 * member's plan. */
static int verify_children_ledger(struct run *x)
{
	double t = mono_s();
	char *err = NULL;
	size_t n = x->rp.r.n;
	char *j = deploy_journal_until(x, x->unit.invocation_id, x->unit.main_pid, 10.0, every_child_logged, &n, &err);
	if (!j)
		return failed(x, "ledger", t, "C05", err, "cannot read the journal of this start");
	free(err);
	struct router_log lg = {0};
	router_log_split(j, strlen(j), &lg);
	free(j);
	int diverged;
	json_t *o = router_log_hold(&x->rp, &lg, &diverged);
	x->router_ledger = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	struct sb bad = {0};
	size_t i;
	json_t *b;
	json_array_foreach(json_object_get(o, "boots"), i, b) if (strcmp(member_field(b, "verdict"), "matches"))
	    sb_addf(&bad, "%s%s %s%s%s", bad.len ? "; " : "", member_field(b, "name"), member_field(b, "verdict"),
		    *member_field(b, "differs") ? ": " : "", member_field(b, "differs"));
	int rc;
	if (lg.n < n)
		rc = step(x, "ledger", "failed", t, "C05",
			  "the journal of this start holds %zu child boots for %zu members (VERBOSITY must be 4)", lg.n,
			  n);
	else if (diverged)
		rc = step(x, "ledger", "failed", t, "A01",
			  "a child's boot ledger differs from its member's plan: %s (the engine booted another shape "
			  "than the one gated)",
			  bad.s);
	else
		rc = step(x, "ledger", "ok", t, NULL,
			  "each of the %zu children's boot ledgers matches its member's plan", lg.n);
	sb_release(&bad);
	json_decref(o);
	router_log_release(&lg);
	return rc;
}

int deploy_router_verify(struct run *x)
{
	struct http_client hc = {x->http_base, x->api_key, 30000};
	http_route_model(NULL);
	for (size_t i = 0; i < x->rp.r.n; i++)
		if (verify_member(x, &hc, i))
			return -1;
	if (verify_children_ledger(x))
		return -1;
	return step(x, "probes", "skipped", mono_s(), NULL,
		    "a router's members are probed by name through it: zealot probe %s --endpoint %s", x->http_base,
		    x->r->env_path);
}

int deploy_router_record(struct run *x, int64_t era, char **err)
{
	return x->router ? store_era_members_put(x->st, era, x->members_json, err) : 0;
}

/* The staged members of an attempt that made their directory and left
 * the previous era (or nothing) in place: refused, rolled back, failed. */
static void unstage(struct run *x)
{
	DIR *d = opendir(x->members_dir);
	struct dirent *de;
	while (d && (de = readdir(d)))
		if (de->d_name[0] != '.') {
			char *p = xstrf("%s/%s", x->members_dir, de->d_name);
			unlink(p);
			free(p);
		}
	if (d)
		closedir(d);
	rmdir(x->members_dir);
}

void deploy_router_release(struct run *x)
{
	enum deploy_outcome oc = x->r->outcome;
	if (x->members_new && x->members_dir &&
	    (oc == DEPLOY_REFUSED || oc == DEPLOY_ROLLED_BACK || oc == DEPLOY_FAILED))
		unstage(x);
	if (x->router)
		router_price_release(&x->rp);
	free(x->members_dir);
	free(x->members_json);
	free(x->router_ledger);
}
