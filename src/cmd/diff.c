/* zealot diff ENDPOINT [ERA [ERA]] [--json] */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/util.h"
#include "../deploy/router.h"
#include "../endpoint/router.h"
#include "../judge/runtime.h"
#include "../plan/plan.h"
#include "../plan/report.h"
#include "../plan/shape.h"
#include "../store/calib.h"
#include "../store/eras.h"
#include "../store/store.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_DIFF};

struct side {
	char label[96];
	int64_t era; /* 0: the file on disk */
	int64_t started;
	struct endpoint *ep;  /* NULL: the era's text no longer parses */
	json_t *plan;	      /* plan --json, or null */
	char runtime_sha[65]; /* the runtime's SHA-256 ("" unknown: an era before it was recorded) */
	char *runtime_build;  /* "b10777-e3de71522", or NULL */
	json_t *rates;	      /* {"rates", "arms"} of an era (cmd_rates_era), or NULL for the file */
	char *members;	      /* a router era's members as recorded, or NULL */
};

static void side_release(struct side *s)
{
	endpoint_free(s->ep);
	json_decref(s->plan);
	json_decref(s->rates);
	free(s->runtime_build);
	free(s->members);
}

static int parse_era(const char *s, int64_t *id)
{
	if (strcmp(s, "current") == 0) {
		*id = 0;
		return 0;
	}
	if (strcmp(s, "previous") == 0) {
		*id = -1;
		return 0;
	}
	return parse_i64(s, id) || *id <= 0 ? -1 : 0;
}

static int from_era(struct store *st, const char *name, int64_t id, struct side *s, char **err)
{
	struct store_era e;
	int r = store_era_get(st, name, id, &e, err);
	if (r < 0)
		return cmd_exit(ZE_IO);
	if (r == 1) {
		if (id == 0)
			errorf(err, "no current era of '%s' is recorded (see zealot history)", name);
		else if (id == -1)
			errorf(err, "'%s' has no era before its current one", name);
		else
			errorf(err, "no era %lld of '%s' (see zealot history %s)", (long long)id, name, name);
		return EXIT_USAGE;
	}
	s->era = e.id;
	s->started = e.started;
	snprintf(s->label, sizeof(s->label), "era %lld%s", (long long)e.id, e.ended ? "" : " (current)");
	char *perr = NULL;
	s->ep = eras_endpoint(&e, &perr);
	free(perr);
	s->plan = e.plan_json[0] ? json_loads(e.plan_json, 0, NULL) : NULL;
	if (!s->plan)
		s->plan = json_null();
	/* the runtime the era served: its SHA-256 with the pins (deploy records it) */
	json_t *pins = e.pins_json && *e.pins_json ? json_loads(e.pins_json, 0, NULL) : NULL;
	const char *rsha = json_string_value(json_object_get(json_object_get(pins, "RUNTIME"), "sha256"));
	snprintf(s->runtime_sha, sizeof(s->runtime_sha), "%s", rsha ? rsha : "");
	json_decref(pins);
	s->runtime_build = e.runtime_version && *e.runtime_version ? store_runtime_id(e.runtime_version) : NULL;
	s->rates = json_pack("{s:s}", "endpoint", name);
	int rrc = cmd_rates_era(st, s->rates, e.id, err);
	if (!rrc && store_era_members_get(st, e.id, &s->members, err) < 0)
		rrc = -1;
	store_era_release(&e);
	return rrc ? cmd_exit(ZE_IO) : EXIT_OK;
}

static int from_file(const char *path, struct side *s, char **err)
{
	int rc = EXIT_OK, io = 0;
	struct shape_ctx c = {0};
	enum zerr kind;
	struct endpoint *ep = endpoint_load(path, &kind, err);
	if (!ep)
		return cmd_exit(kind);
	s->era = 0;
	snprintf(s->label, sizeof(s->label), "file");
	s->plan = json_null();
	/* the runtime the file names, as it is on disk now */
	char *rt = runtime_resolve(ep);
	if (rt && runtime_sha256(rt, s->runtime_sha, NULL, NULL) == 0) {
		char *v = runtime_ask(ep, rt, s->runtime_sha, "version", NULL, NULL);
		s->runtime_build = v ? store_runtime_id(v) : NULL;
		free(v);
	} else {
		s->runtime_sha[0] = '\0';
	}
	free(rt);
	if (router_is(ep)) { /* its members, as deploy would record them (their plans: zealot plan) */
		s->members = deploy_router_members(ep, err);
		rc = s->members ? EXIT_OK : EXIT_USAGE;
		goto done;
	}
	if ((rc = cmd_exit(shape_load(ep, NULL, &c, &io, err))) != EXIT_OK)
		goto done;
	struct plan p;
	if (plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	json_t *cal = NULL;
	char *text = NULL, *cerr = NULL;
	calib_apply(ep, &c, &p, &cal, &text, &cerr);
	free(text);
	free(cerr);
	json_decref(s->plan);
	s->plan = plan_to_json(ep, &c, &p);
	if (cal)
		snprintf(s->label, sizeof(s->label), "file (boot %lld)",
			 (long long)json_integer_value(json_object_get(cal, "boot")));
	json_object_set_new(s->plan, "calibration", cal ? cal : json_null());
done:
	shape_release(&c);
	s->ep = ep;
	return rc;
}

/* The plan's terms in a fixed order: name, buffer ("" for single terms),
 * MiB. */
static void terms_of(json_t *p, json_t *out)
{
	if (!json_is_object(p))
		return;
	struct {
		const char *key, *term, *field;
		int list;
	} t[] = {
	    {"model", "model", NULL, 1},	   {"kv", "kv", "mib", 0},
	    {"kv_swa", "kv_swa", "mib", 0},	   {"recurrent", "recurrent", "mib", 0},
	    {"draft_kv", "draft_kv", "mib", 0},	   {"output_mib", "output", NULL, 0},
	    {"compute", "compute", NULL, 1},	   {"draft_compute", "draft_compute", NULL, 1},
	    {"projector", "projector", "mib", 0},  {"lora_mib", "lora", NULL, 0},
	    {"overhead_mib", "overhead", NULL, 0}, {"total_mib", "total", NULL, 0},
	    {"host_mib", "host", NULL, 0},	   {"free_mib", "free", NULL, 0},
	};
	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		json_t *v = json_object_get(p, t[i].key);
		if (t[i].list) {
			size_t j;
			json_t *b;
			json_array_foreach(v, j, b)
			{
				struct sb k = {0};
				sb_addf(&k, "%s|%s", t[i].term, json_string_value(json_object_get(b, "device")));
				json_object_set(out, k.s, json_object_get(b, "mib"));
				sb_release(&k);
			}
			continue;
		}
		if (t[i].field)
			v = json_object_get(v, t[i].field);
		if (json_is_number(v)) {
			struct sb k = {0};
			sb_addf(&k, "%s|", t[i].term);
			json_object_set(out, k.s, v);
			sb_release(&k);
		}
	}
}

static json_t *r2(double v)
{
	return json_real(round(v * 100) / 100);
}

static json_t *compare(const struct side *a, const struct side *b, int *changed_keys, int *changed_terms)
{
	json_t *keys = a->ep && b->ep ? eras_key_changes(a->ep, b->ep) : json_null();
	*changed_keys = (int)json_array_size(keys);
	json_t *ta = json_object(), *tb = json_object(), *order = json_object();
	terms_of(a->plan, ta);
	terms_of(b->plan, tb);
	/* one row per term and buffer, in the plan's order of terms */
	static const char *const names[] = {"model",	"kv",	   "kv_swa",	    "recurrent", "draft_kv",
					    "output",	"compute", "draft_compute", "projector", "lora",
					    "overhead", "total",   "host",	    "free"};
	for (size_t n = 0; n < ARRAY_SIZE(names); n++) {
		size_t len = strlen(names[n]);
		json_t *sides[] = {ta, tb};
		for (int i = 0; i < 2; i++) {
			const char *key;
			json_t *val;
			json_object_foreach(sides[i], key, val)
			{
				if (strncmp(key, names[n], len) == 0 && key[len] == '|')
					json_object_set(order, key, val);
			}
		}
	}
	json_t *plan = json_array();
	const char *k;
	json_t *v;
	json_object_foreach(order, k, v)
	{
		(void)v;
		const char *bar = strchr(k, '|');
		json_t *x = json_object_get(ta, k), *y = json_object_get(tb, k);
		double dx = json_is_number(x) ? json_number_value(x) : 0;
		double dy = json_is_number(y) ? json_number_value(y) : 0;
		char *term = xstrndup(k, (size_t)(bar - k));
		json_t *row = json_pack("{s:s,s:s}", "term", term, "device", bar + 1);
		free(term);
		json_object_set_new(row, "from_mib", x ? r2(dx) : json_null());
		json_object_set_new(row, "to_mib", y ? r2(dy) : json_null());
		json_object_set_new(row, "delta_mib", r2(dy - dx));
		if (fabs(dy - dx) >= 0.005 || !x != !y)
			(*changed_terms)++;
		json_array_append_new(plan, row);
	}
	json_decref(ta);
	json_decref(tb);
	json_decref(order);
	json_t *o = json_object();
	json_object_set_new(o, "keys", keys);
	json_object_set_new(o, "plan", plan);
	json_object_set_new(o, "members",
			    a->members || b->members ? eras_members_changes(a->members, b->members) : json_null());
	return o;
}

static json_t *side_json(const struct side *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "era", s->era ? json_integer(s->era) : json_null());
	json_object_set_new(o, "label", json_string(s->label));
	json_object_set_new(o, "started", s->era ? json_integer(s->started) : json_null());
	json_object_set_new(o, "calibrated", json_boolean(json_is_object(json_object_get(s->plan, "calibration"))));
	return o;
}

static void print_text(const char *name, const struct side *a, const struct side *b, json_t *res)
{
	printf("diff %s: %s -> %s\n", name, a->label, b->label);
	json_t *keys = json_object_get(res, "keys");
	if (json_is_null(keys))
		printf("\nkeys: an era's endpoint text no longer parses\n");
	else if (!json_array_size(keys))
		printf("\nkeys: the same\n");
	else
		printf("\nkeys:\n");
	size_t i;
	json_t *r;
	json_array_foreach(keys, i, r)
	{
		const char *x = json_string_value(json_object_get(r, "from"));
		const char *y = json_string_value(json_object_get(r, "to"));
		int xs = json_is_true(json_object_get(r, "from_set")), ys = json_is_true(json_object_get(r, "to_set"));
		printf("  %-18s %s%s%s -> %s%s%s\n", json_string_value(json_object_get(r, "key")),
		       xs ? "" : "(default) ", x ? x : "(unset)", x && !*x ? "(empty)" : "", ys ? "" : "(default) ",
		       y ? y : "(unset)", y && !*y ? "(empty)" : "");
	}
	json_t *ms = json_object_get(res, "members");
	if (json_is_array(ms))
		printf("\nmembers:%s\n", json_array_size(ms) ? "" : " the same");
	json_array_foreach(ms, i, r)
	{
		printf("  %s %s\n", json_string_value(json_object_get(r, "name")),
		       json_string_value(json_object_get(r, "change")));
		size_t k;
		json_t *c;
		json_array_foreach(json_object_get(r, "keys"), k, c)
		{
			const char *x = json_string_value(json_object_get(c, "from"));
			const char *y = json_string_value(json_object_get(c, "to"));
			printf("    %-16s %s -> %s\n", json_string_value(json_object_get(c, "key")), x ? x : "(unset)",
			       y ? y : "(unset)");
		}
	}
	json_t *plan = json_object_get(res, "plan");
	if (!json_array_size(plan)) {
		printf("\nplan: not recorded on either side\n");
		return;
	}
	printf("\nplan (MiB):\n  %-14s %-11s %16s %16s %11s\n", "term", "buffer", a->label, b->label, "delta");
	json_array_foreach(plan, i, r)
	{
		json_t *x = json_object_get(r, "from_mib"), *y = json_object_get(r, "to_mib");
		double d = json_number_value(json_object_get(r, "delta_mib"));
		char fx[32] = "-", fy[32] = "-";
		if (json_is_number(x))
			fmt_mib(json_number_value(x), 0, fx, sizeof(fx));
		if (json_is_number(y))
			fmt_mib(json_number_value(y), 0, fy, sizeof(fy));
		const char *dev = json_string_value(json_object_get(r, "device"));
		printf("  %-14s %-11s %16s %16s %11s%s\n", json_string_value(json_object_get(r, "term")),
		       *dev ? dev : "-", fx, fy, FMT_MIB_PLUS(d), fabs(d) >= 0.005 ? "  *" : "");
	}
}

/* Whether the two sides ran different runtimes: by SHA-256 where both
 * know it, else by build. -1 when neither tells. */
static int runtime_changed(const struct side *a, const struct side *b)
{
	if (*a->runtime_sha && *b->runtime_sha)
		return strcasecmp(a->runtime_sha, b->runtime_sha) != 0;
	if (a->runtime_build && b->runtime_build)
		return strcmp(a->runtime_build, b->runtime_build) != 0;
	return -1;
}

static json_t *runtime_side(const struct side *s)
{
	return json_pack("{s:o,s:o}", "sha256", *s->runtime_sha ? json_string(s->runtime_sha) : json_null(), "build",
			 s->runtime_build ? json_string(s->runtime_build) : json_null());
}

static json_t *runtime_json(const struct side *a, const struct side *b)
{
	int c = runtime_changed(a, b);
	return json_pack("{s:o,s:o,s:o}", "from", runtime_side(a), "to", runtime_side(b), "changed",
			 c < 0 ? json_null() : json_boolean(c));
}

static void runtime_text(const struct side *s, char *buf, size_t n)
{
	snprintf(buf, n, "%s%s%.12s%s%s", s->runtime_build ? s->runtime_build : "build unknown",
		 *s->runtime_sha ? " (sha256 " : "", s->runtime_sha, *s->runtime_sha ? "...)" : "",
		 *s->runtime_sha ? "" : " (sha256 not recorded)");
}

static void print_runtime(const struct side *a, const struct side *b)
{
	char x[128], y[128];
	runtime_text(a, x, sizeof(x));
	runtime_text(b, y, sizeof(y));
	int c = runtime_changed(a, b);
	if (c == 0)
		printf("\nruntime: the same, %s\n", x);
	else
		printf("\nruntime%s:\n  %s -> %s\n", c < 0 ? " (cannot tell)" : " CHANGED", x, y);
}

/* diff ENDPOINT: the side "to" is the endpoint file (the argument when it
 * names a file, else the one the current era installed). */
static int from_current_file(struct store *st, const char *name, const char *arg, struct side *s, char **err)
{
	char *path = NULL;
	if (eras_is_file(arg)) {
		path = xstrdup(arg);
	} else {
		struct store_era e;
		if (store_era_get(st, name, 0, &e, err) == 0)
			path = e.endpoint_path[0] ? xstrdup(e.endpoint_path) : NULL;
		store_era_release(&e);
		if (!path) {
			errorf(err, "the current era of '%s' names no installed file: give the endpoint file", name);
			return EXIT_USAGE;
		}
	}
	int rc = from_file(path, s, err);
	free(path);
	return rc;
}

/* Each side's rates (its latest boot's figures) and the change per figure;
 * each side's arms. */
static json_t *rates_json(const struct side *a, const struct side *b)
{
	json_t *fa = json_object_get(json_object_get(a->rates, "rates"), "figures");
	json_t *fb = json_object_get(json_object_get(b->rates, "rates"), "figures");
	json_t *d = cmd_rates_delta(fa, fb);
	json_t *o = json_object();
	json_object_set_new(o, "from", fa ? json_incref(fa) : json_null());
	json_object_set_new(o, "to", fb ? json_incref(fb) : json_null());
	json_object_set_new(o, "change_pct", d);
	json_t *arms = json_object_get(a->rates, "arms"), *arms_b = json_object_get(b->rates, "arms");
	json_object_set_new(o, "from_arms", arms ? json_incref(arms) : json_array());
	json_object_set_new(o, "to_arms", arms_b ? json_incref(arms_b) : json_array());
	return o;
}

static void print_rates(const struct side *a, const struct side *b)
{
	json_t *r = rates_json(a, b);
	json_t *fa = json_object_get(r, "from"), *fb = json_object_get(r, "to");
	if (!json_is_object(fa) && !json_is_object(fb)) {
		printf("\nrates: not measured on either side (zealot arm records them)\n");
	} else {
		printf("\nrates (t/s; zealot arm):\n  %-24s %16s %16s %9s\n", "figure", a->label, b->label, "change");
		json_t *keys = json_is_object(fb) ? fb : fa;
		const char *k;
		json_t *v;
		json_object_foreach(keys, k, v)
		{
			json_t *x = json_object_get(fa, k), *y = json_object_get(fb, k);
			json_t *c = json_object_get(json_object_get(r, "change_pct"), k);
			char sx[32] = "-", sy[32] = "-", sc[32] = "";
			if (json_is_number(x))
				snprintf(sx, sizeof(sx), "%.2f", json_number_value(x));
			if (json_is_number(y))
				snprintf(sy, sizeof(sy), "%.2f", json_number_value(y));
			if (json_is_number(c))
				snprintf(sc, sizeof(sc), "%+.1f%%", json_number_value(c));
			printf("  %-24s %16s %16s %9s%s%s\n", k, sx, sy, sc, json_is_number(c) ? "  " : "",
			       json_is_number(c) ? cmd_change_word(k, json_number_value(c)) : "");
		}
	}
	const struct side *sides[] = {a, b};
	for (size_t i = 0; i < 2; i++)
		if (sides[i]->rates && json_array_size(json_object_get(sides[i]->rates, "arms"))) {
			json_t *only = json_pack("{s:O}", "arms", json_object_get(sides[i]->rates, "arms"));
			printf("\narms of %s:\n", sides[i]->label);
			cmd_rates_print(only, "  ");
			json_decref(only);
		}
	json_decref(r);
}

static void print_json(const char *name, const struct side *a, const struct side *b, json_t *res, int ck, int ct)
{
	json_t *o = json_object();
	json_object_set_new(o, "endpoint", json_string(name));
	json_object_set_new(o, "from", side_json(a));
	json_object_set_new(o, "to", side_json(b));
	json_object_set(o, "keys", json_object_get(res, "keys"));
	json_object_set(o, "plan", json_object_get(res, "plan"));
	json_object_set(o, "members", json_object_get(res, "members"));
	json_object_set_new(o, "runtime", runtime_json(a, b));
	json_object_set_new(o, "rates", rates_json(a, b));
	json_object_set_new(o, "changed_keys", json_integer(ck));
	json_object_set_new(o, "changed_terms", json_integer(ct));
	cmd_print_json(o, 12);
	json_decref(o);
}

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	char *err = NULL, *name = NULL;
	struct store *st = NULL;
	struct side a = {0}, b = {0};
	int64_t ids[2] = {0, 0};
	for (unsigned i = 1; i < args->n; i++)
		if (parse_era(args->v[i], &ids[i - 1])) {
			errorf(&err, "'%s' is not an era (a number from zealot history, current or previous)",
			       args->v[i]);
			rc = EXIT_USAGE;
			goto done;
		}
	if ((rc = cmd_exit(eras_find(args->v[0], &name, &st, &err))) != EXIT_OK)
		goto done;
	if (!st) {
		errorf(&err, "nothing is recorded yet (no store in %s)", "$ZEALOT_STATE_DIR");
		rc = EXIT_USAGE;
		goto done;
	}
	if (args->n == 3) {
		if ((rc = from_era(st, name, ids[0], &a, &err)) || (rc = from_era(st, name, ids[1], &b, &err)))
			goto done;
	} else if (args->n == 2) {
		if ((rc = from_era(st, name, ids[0], &a, &err)) || (rc = from_era(st, name, 0, &b, &err)))
			goto done;
	} else {
		if ((rc = from_era(st, name, 0, &a, &err)) || (rc = from_current_file(st, name, args->v[0], &b, &err)))
			goto done;
	}
	int ck = 0, ct = 0;
	json_t *res = compare(&a, &b, &ck, &ct);
	if (opt_json) {
		print_json(name, &a, &b, res, ck, ct);
	} else {
		print_text(name, &a, &b, res);
		print_runtime(&a, &b);
		print_rates(&a, &b);
	}
	json_decref(res);
done:
	free(name);
	side_release(&a);
	side_release(&b);
	store_close(st);
	return cmd_end("diff", rc, err);
}

const struct command cmd_diff = {"diff", &help, opt_json_only, run, NULL};
