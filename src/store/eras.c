/* eras: shared by history and diff (see eras.h). */
#include "eras.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/util.h"
#include "calib.h"

int eras_open(struct store **st, char **err)
{
	*st = NULL;
	char *dir = store_state_dir();
	struct sb p = {0};
	sb_addf(&p, "%s/zealot.db", dir);
	struct stat sb;
	int exists = stat(p.s, &sb) == 0;
	int e = errno;
	sb_release(&p);
	if (!exists) {
		int rc = e == ENOENT ? 0 : errorf(err, "cannot stat the store in '%s': %s", dir, strerror(e));
		free(dir);
		return rc;
	}
	*st = store_open(dir, err);
	free(dir);
	return *st ? 0 : -1;
}

/* An endpoint argument's name: itself, or a file's name without .env. */
static char *eras_name(const char *arg)
{
	const char *s = strrchr(arg, '/');
	s = s ? s + 1 : arg;
	size_t n = strlen(s);
	if (n > 4 && strcmp(s + n - 4, ".env") == 0)
		n -= 4;
	return xstrndup(s, n);
}

enum zerr eras_find(const char *arg, char **name, struct store **st, char **err)
{
	*st = NULL;
	*name = arg ? eras_name(arg) : NULL;
	if (*name && store_name_ok(*name, err))
		return ZE_USAGE;
	return eras_open(st, err) ? ZE_IO : ZE_OK;
}

int eras_is_file(const char *arg)
{
	size_t n = strlen(arg);
	return strchr(arg, '/') || (n > 4 && strcmp(arg + n - 4, ".env") == 0);
}

struct endpoint *eras_endpoint(const struct store_era *e, char **err)
{
	struct sb path = {0};
	/* the installed path names it (its directory resolves relative paths) */
	if (e->endpoint_path && *e->endpoint_path)
		sb_adds(&path, e->endpoint_path);
	else
		sb_addf(&path, "%s.env", e->endpoint);
	struct endpoint *ep = endpoint_parse(e->env_text, strlen(e->env_text), path.s, err);
	sb_release(&path);
	return ep;
}

json_t *eras_keys(const struct endpoint *ep)
{
	json_t *o = json_object();
	for (size_t i = 0; i < keys_count(); i++)
		if (ep->e[i].value)
			json_object_set_new(o, ep->e[i].def->name, json_string(ep->e[i].value));
	return o;
}

json_t *eras_key_changes(const struct endpoint *from, const struct endpoint *to)
{
	json_t *a = json_array();
	for (size_t i = 0; i < keys_count(); i++) {
		const char *k = keys_at(i)->name;
		const char *x = endpoint_value(from, k), *y = endpoint_value(to, k);
		if ((x == NULL) == (y == NULL) && (!x || strcmp(x, y) == 0))
			continue;
		json_t *r = json_object();
		json_object_set_new(r, "key", json_string(k));
		json_object_set_new(r, "from", x ? json_string(x) : json_null());
		json_object_set_new(r, "to", y ? json_string(y) : json_null());
		json_object_set_new(r, "from_set", json_boolean(endpoint_entry(from, k)->value != NULL));
		json_object_set_new(r, "to_set", json_boolean(endpoint_entry(to, k)->value != NULL));
		json_array_append_new(a, r);
	}
	return a;
}

static const char *val(const struct endpoint *ep, const char *k)
{
	const char *v = endpoint_value(ep, k);
	return v ? v : "";
}

char *eras_shape(const struct endpoint *ep)
{
	struct sb s = {0};
	uint64_t ctx = 0, par = 1;
	char a[32];
	endpoint_uint(ep, K_PARALLEL, &par, NULL);
	if (endpoint_uint(ep, "CTX_SIZE", &ctx, NULL) == 0 && par) {
		int unified = 0;
		endpoint_bool(ep, "KV_UNIFIED", &unified, NULL);
		if (unified)
			sb_addf(&s, "%llu slots sharing %s", (unsigned long long)par, fmt_commas(ctx, a, sizeof(a)));
		else
			sb_addf(&s, "%llu x %s", (unsigned long long)par, fmt_commas(ctx / par, a, sizeof(a)));
	} else {
		sb_adds(&s, "CTX_SIZE unset");
	}
	sb_addf(&s, ", %s K + %s V", val(ep, "CACHE_TYPE_K"), val(ep, "CACHE_TYPE_V"));
	if (strcmp(val(ep, "FLASH_ATTN"), "on") != 0)
		sb_addf(&s, " (flash attention %s)", val(ep, "FLASH_ATTN"));
	sb_addf(&s, ", batch %s/%s", val(ep, "BATCH_SIZE"), val(ep, "UBATCH_SIZE"));
	const char *spec = val(ep, "SPEC_TYPE");
	if (*spec && strcmp(spec, "none") != 0)
		sb_addf(&s, ", %s depth %s", spec, val(ep, "SPEC_DRAFT_N_MAX"));
	else
		sb_adds(&s, ", no drafter");
	sb_addf(&s, ", %s", val(ep, "DEVICE"));
	return sb_detach(&s);
}

static const char *base(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static void one_payload(struct sb *s, const struct endpoint *ep, json_t *pins, const char *file_key, const char *prefix,
			const char *label)
{
	const char *f = endpoint_value(ep, file_key);
	if (!f || !*f)
		return;
	if (s->len)
		sb_adds(s, " + ");
	if (label)
		sb_addf(s, "%s ", label);
	sb_adds(s, base(f));
	json_t *pin = json_object_get(pins, file_key);
	uint64_t bytes = 0;
	const char *sha = NULL;
	if (json_is_object(pin)) {
		json_t *b = json_object_get(pin, "bytes");
		bytes = json_is_integer(b) ? (uint64_t)json_integer_value(b) : 0;
		sha = json_string_value(json_object_get(pin, "sha256"));
	}
	struct sb k = {0};
	sb_addf(&k, "%s_BYTES", prefix);
	if (!bytes)
		endpoint_uint(ep, k.s, &bytes, NULL);
	sb_release(&k);
	sb_addf(&k, "%s_SHA256", prefix);
	if (!sha || !*sha)
		sha = endpoint_value(ep, k.s);
	sb_release(&k);
	char a[32];
	if (bytes && sha && *sha)
		sb_addf(s, " (%s B, %.8s...)", fmt_commas(bytes, a, sizeof(a)), sha);
	else if (bytes)
		sb_addf(s, " (%s B)", fmt_commas(bytes, a, sizeof(a)));
	else if (sha && *sha)
		sb_addf(s, " (%.8s...)", sha);
}

char *eras_payload(const struct endpoint *ep, const char *pins_json)
{
	json_t *pins = pins_json && *pins_json ? json_loads(pins_json, 0, NULL) : NULL;
	struct sb s = {0};
	one_payload(&s, ep, pins, "MODEL_FILE", "MODEL", NULL);
	one_payload(&s, ep, pins, "MMPROJ_FILE", "MMPROJ", "projector");
	one_payload(&s, ep, pins, "LORA_FILE", "LORA", "adapter");
	one_payload(&s, ep, pins, "SPEC_DRAFT_MODEL_FILE", "SPEC_DRAFT_MODEL", "drafter");
	json_decref(pins);
	if (!s.len)
		sb_adds(&s, "(no MODEL_FILE)");
	return sb_detach(&s);
}

static double num(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);
	return json_is_number(v) ? json_number_value(v) : 0;
}

/* 14406 -> "14,406.00" */
static void add_mib(struct sb *s, double m)
{
	char x[32];
	long long cents = llround(m * 100);
	if (cents < 0) {
		sb_addc(s, '-');
		cents = -cents;
	}
	sb_addf(s, "%s.%02lld", fmt_commas((uint64_t)(cents / 100), x, sizeof(x)), cents % 100);
}

static void bufs(struct sb *s, json_t *a)
{
	size_t i;
	json_t *b;
	json_array_foreach(a, i, b)
	{
		if (i)
			sb_adds(s, " + ");
		add_mib(s, num(b, "mib"));
	}
}

/* Probe records: `zealot probe --json` ({"probes": [...]}) or a bare array. */
static void probe_counts(json_t *p, int *pass, int *fail, int *skip, struct sb *failed)
{
	json_t *a = json_is_array(p) ? p : json_object_get(p, "probes");
	size_t i;
	json_t *x;
	json_array_foreach(a, i, x)
	{
		const char *st = json_string_value(json_object_get(x, "status"));
		if (!st)
			continue;
		if (strcmp(st, "pass") == 0)
			(*pass)++;
		else if (strcmp(st, "fail") == 0) {
			(*fail)++;
			const char *n = json_string_value(json_object_get(x, "name"));
			sb_addf(failed, "%s%s", failed->len ? "," : "", n ? n : "?");
		} else
			(*skip)++;
	}
}

char *eras_boot_summary(const struct store_boot *b)
{
	struct sb s = {0};
	json_t *l = json_loads(b->ledger_json, 0, NULL);
	if (json_is_object(l)) {
		json_t *t = json_object_get(l, "target");
		json_t *kv = json_object_get(t, "kv");
		if (json_is_object(kv)) {
			sb_adds(&s, "KV ");
			add_mib(&s, num(kv, "mib") + num(json_object_get(t, "kv_swa"), "mib"));
		}
		if (json_array_size(json_object_get(t, "compute"))) {
			sb_adds(&s, s.len ? ", compute " : "compute ");
			bufs(&s, json_object_get(t, "compute"));
		}
		json_t *d = json_object_get(l, "draft");
		if (json_array_size(json_object_get(d, "compute"))) {
			sb_adds(&s, ", draft ");
			bufs(&s, json_object_get(d, "compute"));
		}
		const char *e = json_string_value(json_object_get(l, "engine_error"));
		if (e)
			sb_addf(&s, "%sengine error: %s", s.len ? "; " : "", e);
	}
	json_decref(l);
	if (b->settled_used_mib >= 0) {
		char x[32];
		sb_addf(&s, "%ssettled %s MiB used", s.len ? ", " : "",
			fmt_commas((uint64_t)b->settled_used_mib, x, sizeof(x)));
	}
	if (b->probes_json) {
		json_t *p = json_loads(b->probes_json, 0, NULL);
		int pass = 0, fail = 0, skip = 0;
		struct sb failed = {0};
		probe_counts(p, &pass, &fail, &skip, &failed);
		sb_addf(&s, "; probes %d pass, %d fail, %d skip", pass, fail, skip);
		if (failed.len)
			sb_addf(&s, " (failed: %s)", failed.s);
		sb_release(&failed);
		json_decref(p);
	}
	if (b->bench_json) {
		json_t *p = json_loads(b->bench_json, 0, NULL);
		double dec = num(json_object_get(p, "decode_tps"), "median");
		double pre = num(json_object_get(p, "prefill_tps"), "median");
		if (dec > 0 || pre > 0)
			sb_addf(&s, "; prefill %.1f t/s, decode %.1f t/s (medians)", pre, dec);
		json_decref(p);
	}
	if (!s.len)
		sb_adds(&s, "(no ledger lines)");
	return sb_detach(&s);
}

json_t *eras_json(const char *s)
{
	if (!s || !*s)
		return json_null();
	json_t *v = json_loads(s, 0, NULL);
	return v ? v : json_string(s);
}

json_t *eras_boot_json(const struct store_boot *b)
{
	json_t *o = json_object();
	json_object_set_new(o, "id", json_integer(b->id));
	json_object_set_new(o, "era_id", json_integer(b->era_id));
	json_object_set_new(o, "endpoint", json_string(b->endpoint));
	json_object_set_new(o, "at", json_integer(b->at));
	json_object_set_new(o, "source", json_string(b->source));
	json_object_set_new(o, "runtime", json_string(b->runtime));
	json_object_set_new(o, "runtime_version", json_string(b->runtime_version));
	json_object_set_new(o, "device", json_string(b->device));
	json_object_set_new(o, "payload_sha256", json_string(b->payload_sha256));
	json_object_set_new(o, "payload_bytes", json_integer((json_int_t)b->payload_bytes));
	json_object_set_new(o, "settled_used_mib",
			    b->settled_used_mib >= 0 ? json_integer(b->settled_used_mib) : json_null());
	char *sum = eras_boot_summary(b);
	json_object_set_new(o, "summary", json_string(sum));
	free(sum);
	json_object_set_new(o, "ledger", eras_json(b->ledger_json));
	json_object_set_new(o, "probes", eras_json(b->probes_json));
	json_object_set_new(o, "bench", eras_json(b->bench_json));
	return o;
}

static void window(const struct store_era *e, char *buf, size_t n)
{
	char a[64], b[64] = "";
	calib_date(e->started, a, sizeof(a));
	if (e->ended)
		calib_date(e->ended, b, sizeof(b));
	snprintf(buf, n, "%s -> %s", a, e->ended ? b : "(current)");
}

static json_t *plan_summary(const char *plan_json)
{
	json_t *p = plan_json && *plan_json ? json_loads(plan_json, 0, NULL) : NULL;
	if (!json_is_object(p)) {
		json_decref(p);
		return json_null();
	}
	json_t *o = json_object();
	const char *keys[] = {"total_mib", "free_mib", "verdict"};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		json_t *v = json_object_get(p, keys[i]);
		json_object_set(o, keys[i], v ? v : json_null());
	}
	json_decref(p);
	return o;
}

/* The era's behaviour baseline (store_baseline_get: recorded by probe
 * --record or a deploy, else its latest boot's probes) into o: "answers",
 * the probes that carry an answer or refusal prompts, and their source. */
static int era_answers(struct store *st, int64_t era_id, json_t *o, char **err)
{
	char *base = NULL, *src = NULL;
	if (store_baseline_get(st, era_id, &base, &src, err) < 0)
		return -1;
	json_t *answers = json_null();
	json_t *all = base ? json_loads(base, 0, NULL) : NULL;
	if (json_is_object(all)) { /* {"probes": [...]} */
		json_t *p = json_incref(json_object_get(all, "probes"));
		json_decref(all);
		all = p;
	}
	if (json_is_array(all)) {
		answers = json_array();
		size_t i;
		json_t *r;
		json_array_foreach(all, i, r)
		{
			json_t *a = json_object_get(r, "answer"), *q = json_object_get(r, "prompts");
			if (!json_is_string(a) && !json_is_array(q))
				continue;
			json_t *x = json_object();
			json_object_set(x, "name", json_object_get(r, "name"));
			json_object_set(x, "status", json_object_get(r, "status"));
			json_object_set_new(x, "expected", json_deep_copy(json_object_get(r, "expected")));
			json_object_set(x, "answer", a ? a : json_null());
			if (json_is_array(q))
				json_object_set(x, "prompts", q);
			json_array_append_new(answers, x);
		}
	}
	json_decref(all);
	json_object_set_new(o, "answers", answers);
	json_object_set_new(o, "answers_source", src ? json_string(src) : json_null());
	free(base);
	free(src);
	return 0;
}

json_t *eras_era_json(struct store *st, const struct store_era *e, const struct store_era *prev, char **err)
{
	json_t *o = json_object();
	char w[160];
	window(e, w, sizeof(w));
	json_object_set_new(o, "id", json_integer(e->id));
	json_object_set_new(o, "endpoint", json_string(e->endpoint));
	json_object_set_new(o, "started", json_integer(e->started));
	json_object_set_new(o, "ended", json_integer(e->ended));
	json_object_set_new(o, "current", json_boolean(e->ended == 0));
	json_object_set_new(o, "window", json_string(w));
	json_object_set_new(o, "reason", json_string(e->reason));
	char *perr = NULL;
	struct endpoint *ep = eras_endpoint(e, &perr);
	json_object_set_new(o, "keys", ep ? eras_keys(ep) : json_null());
	if (!ep)
		json_object_set_new(o, "keys_error", json_string(perr ? perr : "unreadable"));
	free(perr);
	json_object_set_new(o, "env_sha256", json_string(e->env_sha256));
	json_object_set_new(o, "endpoint_path", json_string(e->endpoint_path));
	char *pay = ep ? eras_payload(ep, e->pins_json) : NULL;
	json_object_set_new(o, "payload", pay ? json_string(pay) : json_null());
	free(pay);
	json_object_set_new(o, "pins", eras_json(e->pins_json));
	json_object_set_new(o, "runtime", json_string(e->runtime));
	json_object_set_new(o, "runtime_version", json_string(e->runtime_version));
	char *rid = store_runtime_id(e->runtime_version);
	json_object_set_new(o, "runtime_build", json_string(rid));
	free(rid);
	json_object_set_new(o, "argv", eras_json(e->argv_json));
	json_object_set_new(o, "unit_name", json_string(e->unit_name));
	char *shape = ep ? eras_shape(ep) : NULL;
	json_object_set_new(o, "shape", shape ? json_string(shape) : json_null());
	free(shape);
	json_object_set_new(o, "plan", plan_summary(e->plan_json));
	struct endpoint *pep = prev ? eras_endpoint(prev, NULL) : NULL;
	if (prev) {
		json_t *rb = json_object();
		json_object_set_new(rb, "to", json_integer(prev->id));
		json_object_set_new(rb, "keys", ep && pep ? eras_key_changes(ep, pep) : json_null());
		/* the runtime, the era's second lock: a change shows like a key's */
		json_t *pa = e->pins_json && *e->pins_json ? json_loads(e->pins_json, 0, NULL) : NULL;
		json_t *pb = prev->pins_json && *prev->pins_json ? json_loads(prev->pins_json, 0, NULL) : NULL;
		const char *sa = json_string_value(json_object_get(json_object_get(pa, "RUNTIME"), "sha256"));
		const char *sb2 = json_string_value(json_object_get(json_object_get(pb, "RUNTIME"), "sha256"));
		json_object_set_new(rb, "runtime_changed",
				    sa && sb2 ? json_boolean(strcmp(sa, sb2) != 0) : json_null());
		json_object_set_new(rb, "runtime_sha256", sb2 ? json_string(sb2) : json_null());
		json_decref(pa);
		json_decref(pb);
		struct sb c = {0};
		sb_addf(&c, "zealot rollback %s %lld", e->endpoint, (long long)prev->id);
		json_object_set_new(rb, "command", json_string(c.s));
		sb_release(&c);
		json_object_set_new(o, "rollback", rb);
	} else {
		json_object_set_new(o, "rollback", json_null());
	}
	endpoint_free(pep);
	endpoint_free(ep);
	struct store_boot *b;
	size_t n;
	json_t *boots = json_array();
	if (store_boot_list(st, e->id, &b, &n, err) == 0) {
		for (size_t i = 0; i < n; i++)
			json_array_append_new(boots, eras_boot_json(&b[i]));
		store_boots_free(b, n);
	} else {
		json_decref(boots);
		json_decref(o);
		return NULL;
	}
	json_object_set_new(o, "boots", boots);
	if (era_answers(st, e->id, o, err)) {
		json_decref(o);
		return NULL;
	}
	return o;
}

json_t *eras_attempt_json(const struct store_attempt *a)
{
	/* s*: a NULL string leaves its member out */
	json_t *o =
	    json_pack("{s:I,s:s*,s:s*,s:s*,s:s*,s:I,s:I,s:I,s:I}", "id", (json_int_t)a->id, "endpoint", a->endpoint,
		      "kind", a->kind, "reason", a->reason, "outcome", a->outcome, "started", (json_int_t)a->started,
		      "ended", (json_int_t)a->ended, "era_id", (json_int_t)a->era_id, "pid", (json_int_t)a->pid);
	json_t *steps = json_array();
	for (size_t i = 0; i < a->n_steps; i++)
		json_array_append_new(steps, json_pack("{s:s,s:s,s:f,s:s}", "step", a->steps[i].step, "status",
						       a->steps[i].status, "seconds", a->steps[i].seconds, "detail",
						       a->steps[i].detail));
	json_object_set_new(o, "steps", steps);
	return o;
}

int eras_recorded_pin(const struct store_era *e, const char *key, char **path, uint64_t *bytes, char sha[65])
{
	json_t *pins = e->pins_json && *e->pins_json ? json_loads(e->pins_json, 0, NULL) : NULL;
	json_t *w = json_object_get(pins, key);
	const char *p = json_string_value(json_object_get(w, "path"));
	const char *s = json_string_value(json_object_get(w, "sha256"));
	json_t *b = json_object_get(w, "bytes");
	int rc = 1;
	if (p && s && strlen(s) == 64 && json_is_integer(b) && json_integer_value(b) >= 0) {
		*path = xstrdup(p);
		*bytes = (uint64_t)json_integer_value(b);
		for (unsigned i = 0; i < 65; i++)
			sha[i] = (char)(s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 'a' : s[i]);
		rc = 0;
	}
	json_decref(pins);
	return rc;
}
