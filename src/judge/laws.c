#include "laws.h"

#include <grp.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/host.h"
#include "../endpoint/quote.h"
#include "../payload/archs.h"
#include "../payload/loader.h"
#include "../payload/payload.h"
#include "../payload/split.h"
#include "../plan/cand.h"
#include "runtime.h"

const char *severity_name(enum severity s)
{
	return s == SEV_ERROR ? "error" : s == SEV_WARNING ? "warning" : "info";
}

/* A finding about no one key (the whole shape). */
#define NO_KEY K__COUNT

static void add(struct findings *out, const char *law, enum severity sev, const struct endpoint *ep, enum key_id key,
		const char *fix, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void add(struct findings *out, const char *law, enum severity sev, const struct endpoint *ep, enum key_id key,
		const char *fix, const char *fmt, ...)
{
	out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	struct finding *f = &out->v[out->n++];
	f->law = law;
	f->sev = sev;
	f->key = key < NO_KEY ? key_name(key) : NULL;
	const struct endpoint_entry *e = key < NO_KEY ? endpoint_entry(ep, key) : NULL;
	f->line = e ? e->line : 0;
	va_list ap;
	va_start(ap, fmt);
	f->reason = xvstrf(fmt, ap);
	va_end(ap);
	f->fix = xstrdup(fix ? fix : "");
}

void findings_release(struct findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].reason);
		free(f->v[i].fix);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}

size_t findings_errors(const struct findings *f)
{
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		n += f->v[i].sev == SEV_ERROR;
	return n;
}

static const char *val(const struct endpoint *ep, enum key_id key)
{
	const char *v = endpoint_value(ep, key);
	return v ? v : "";
}

static int u64(const struct endpoint *ep, enum key_id key, uint64_t *out)
{
	return endpoint_uint(ep, key, out, NULL);
}

static int extra_has(const struct endpoint *ep, const char *flag)
{
	const char *x = val(ep, K_EXTRA_ARGS);
	size_t n = strlen(flag);
	for (const char *p = strstr(x, flag); p; p = strstr(p + 1, flag))
		if ((p == x || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '=' || p[n] == '\t'))
			return 1;
	return 0;
}

/* C02: set-but-empty where the key documents no opt-out. */
static void law_c02(const struct endpoint *ep, struct findings *out)
{
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		if (endpoint_is_empty(ep, k->id) && !k->optout)
			add(out, "C02", SEV_ERROR, ep, k->id,
			    k->def ? "give it a value, or remove the line to take the default"
				   : "give it a value: the key has no default, so removing the line does not help",
			    "%s is set but empty, and empty is no opt-out for this key (default: %s)", k->name,
			    k->def ? k->def : "none");
	}
}

/* Every value must parse as its type, and a number must lie in its key's
 * range: the table's one parse (keys.h), the same plan, solve and argv
 * use. A number out of range is its key's law (the engine's int32 limit
 * is no syntax error); any other bad value is C02. */
static void law_values(const struct endpoint *ep, struct findings *out)
{
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		const char *v = endpoint_value(ep, k->id);
		if (!v || !*v)
			continue;
		char *err = NULL;
		if (key_check_value(k, v, &err)) {
			uint64_t u;
			double d;
			int range = (k->kind == KEY_UINT && parse_u64(v, &u) == 0) ||
				    (k->kind == KEY_NUMBER && parse_double(v, &d) == 0);
			add(out, range ? k->law : "C02", SEV_ERROR, ep, k->id,
			    range ? "give a value within the range" : "correct the value", "%s", err ? err : "invalid");
		}
		free(err);
	}
}

/* C09: a flag a key owns is set by that key and nowhere else: not in
 * EXTRA_ARGS (the engine takes the last of two, so EXTRA_ARGS would
 * override what zealot judged), and never an API key on the command line
 * (it would sit in /proc/PID/cmdline). LLAMA_ARG_* lines never reach here:
 * the parser refuses them with C09. */
/* C09's fix: the key line to write, with the value EXTRA_ARGS gave the
 * flag (--flag=V, or the word after it unless that is another flag). */
static void gated_fix(const struct endpoint *ep, const struct endpoint_gate *g, char *fix, size_t n)
{
	const char *x = val(ep, K_EXTRA_ARGS), *eq = strchr(g->word, '=');
	char flag[64], v[64] = "";
	snprintf(flag, sizeof(flag), "%.*s", (int)(eq ? (size_t)(eq - g->word) : strlen(g->word)), g->word);
	if (eq)
		snprintf(v, sizeof(v), "%s", eq + 1);
	const char *p = strstr(x, g->word);
	if (!eq && g->owner->kind == KEY_BOOL) /* a switch: on, or its off flag */
		snprintf(v, sizeof(v), "%s", g->owner->flag_off && strcmp(flag, g->owner->flag_off) == 0 ? "0" : "1");
	else if (!eq && p) {
		p += strlen(g->word);
		p += strspn(p, " \t");
		size_t m = strcspn(p, " \t");
		if (m && *p != '-')
			snprintf(v, sizeof(v), "%.*s", (int)(m < 63 ? m : 63), p);
	}
	if (*v && !eq && g->owner->kind == KEY_BOOL)
		snprintf(fix, n, "write the line %s=%s and drop %s from EXTRA_ARGS", g->owner->name, v, flag);
	else if (*v)
		snprintf(fix, n, "write the line %s=%s and drop '%s%s%s' from EXTRA_ARGS", g->owner->name, v, flag,
			 eq ? "=" : " ", v);
	else
		snprintf(fix, n,
			 "write the line %s=VALUE (zealot check --keys: its values) and drop %s from EXTRA_ARGS",
			 g->owner->name, flag);
}

static void law_gated(const struct endpoint *ep, struct findings *out)
{
	struct endpoint_gate g[16];
	size_t n = endpoint_gated_extra(ep, g, ARRAY_SIZE(g));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(g); i++) {
		if (g[i].owner->id == K_API_KEY_FILE)
			add(out, "C09", SEV_ERROR, ep, K_EXTRA_ARGS,
			    "put the key in a file and name it with API_KEY_FILE",
			    "EXTRA_ARGS names %s: an API key travels only by file (--api-key-file, API_KEY_FILE), "
			    "never "
			    "on the command line",
			    g[i].word);
		else {
			char fix[256];
			gated_fix(ep, &g[i], fix, sizeof(fix));
			add(out, "C09", SEV_ERROR, ep, K_EXTRA_ARGS, fix,
			    "EXTRA_ARGS names %s, a flag %s owns: zealot renders it from %s and judges that value",
			    g[i].word, g[i].owner->name, g[i].owner->name);
		}
	}
}

/* C02: the fleet keys. HOST must read as an ssh destination and nothing
 * else (it reaches ssh's command line); COMPACTION_HUB names an endpoint, so
 * it is a file name without its .env. */
static void law_fleet(const struct endpoint *ep, struct findings *out)
{
	const char *host = val(ep, K_HOST);
	if (host && *host) {
		struct host_dest h;
		char *err = NULL;
		if (host_parse(host, &h, &err))
			add(out, "C02", SEV_ERROR, ep, K_HOST, "write [user@]host or ssh://[user@]host[:port]", "%s",
			    err);
		else
			host_free(&h);
		free(err);
	}
	const char *hub = val(ep, K_COMPACTION_HUB);
	if (hub && *hub) {
		size_t n = strspn(hub, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-");
		if (hub[n] || hub[0] == '-' || hub[0] == '.')
			add(out, "C02", SEV_ERROR, ep, K_COMPACTION_HUB, "name the hub's endpoint file without .env",
			    "'%s' is not an endpoint name (letters, digits, . _ -)", hub);
	}
	uint64_t gpu;
	if (!u64(ep, K_GPU, &gpu) && gpu > 255)
		add(out, "C02", SEV_ERROR, ep, K_GPU, "give the card's index (nvidia-smi -L)",
		    "GPU %llu: a card index is 0..255", (unsigned long long)gpu);
	const struct device *dev = device_find(val(ep, K_DEVICE));
	if (!u64(ep, K_GPU, &gpu) && dev && dev->backend == DEVICE_CPU && !*val(ep, K_DEVICES))
		add(out, "C02", SEV_WARNING, ep, K_GPU, "set DEVICE to the card's profile, or remove GPU",
		    "GPU=%llu on DEVICE=cpu: the engine uses no card, and the plan prices none",
		    (unsigned long long)gpu);
}

/* C02: USER becomes the unit's User= line, which takes a user name or a
 * UID and nothing else (no quoting, no second word). */
static void law_user(const struct endpoint *ep, struct findings *out)
{
	const char *u = val(ep, K_USER);
	if (!u || !*u)
		return;
	if (!quote_unit_user_ok(u))
		add(out, "C02", SEV_ERROR, ep, K_USER,
		    "name a user of the serving host (letters, digits, . _ -) or a UID",
		    "USER '%s' is not a user name: it becomes the unit's User= line", u);
}

/* C02: the placement keys name devices, buffers, shares and patterns the
 * engine has (place.c refuses what it would refuse or zealot cannot
 * mirror); the finding names the key at fault. */
static void law_placement(const struct endpoint *ep, struct findings *out)
{
	static const enum key_id keys[] = {K_OVERRIDE_TENSOR, K_TENSOR_SPLIT, K_SPLIT_MODE, K_DEVICES, K_DEVICE, K_RPC};
	struct place_request r = {0};
	uint64_t v;
	r.ngl = u64(ep, K_NGL, &v) ? 0 : (uint32_t)v;
	r.n_cpu_moe = u64(ep, K_N_CPU_MOE, &v) || v > 4096 ? 0 : (uint32_t)v;
	r.override_tensor = endpoint_value(ep, K_OVERRIDE_TENSOR);
	r.tensor_split = endpoint_value(ep, K_TENSOR_SPLIT);
	r.split_mode = endpoint_value(ep, K_SPLIT_MODE);
	r.rpc = endpoint_value(ep, K_RPC);
	r.devices = endpoint_value(ep, K_DEVICES);
	r.kv_offload = 1;
	const struct device *main = device_find(val(ep, K_DEVICE));
	if (!main) {
		char hint[320];
		add(out, "C02", SEV_ERROR, ep, K_DEVICE, device_unknown_hint(val(ep, K_DEVICE), hint, sizeof(hint)),
		    "DEVICE '%s' is not a known profile", val(ep, K_DEVICE));
		return;
	}
	char *err = NULL;
	if (place_check(&r, main, &err)) {
		enum key_id key = K_DEVICES;
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (strncmp(err, key_name(keys[i]), strlen(key_name(keys[i]))) == 0 &&
			    err[strlen(key_name(keys[i]))] == ':') {
				key = keys[i];
				break;
			}
		add(out, "C02", SEV_ERROR, ep, key, "correct the value (README: Placement across devices)", "%s", err);
	}
	free(err);
	if (*val(ep, K_DEVICES) && main->backend != DEVICE_CPU)
		add(out, "C02", SEV_ERROR, ep, K_DEVICES, "leave DEVICE at cpu, or drop DEVICES",
		    "DEVICES lists every device and DEVICE names the card %s too: one of them would be ignored",
		    main->name);
}

static void law_cache_types(const struct endpoint *ep, struct findings *out)
{
	static const enum key_id keys[] = {K_CACHE_TYPE_K, K_CACHE_TYPE_V, K_SPEC_DRAFT_TYPE_K, K_SPEC_DRAFT_TYPE_V};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		const char *v = val(ep, keys[i]);
		if (*v && !shape_cache_type(v))
			add(out, "S04", SEV_ERROR, ep, keys[i],
			    "use one of f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1",
			    "%s=%s is not a KV cache type the engine accepts (there is no fp8: q8_0 is the 8-bit "
			    "class)",
			    key_name(keys[i]), v);
	}
}

/* Every breach of the shape laws (plan/shape_laws.h), as findings. */
static void add_breaches(const struct endpoint *ep, const struct model *m, const struct plan_shape *s,
			 const struct cand_limits *l, unsigned which, struct findings *out)
{
	struct shape_breach b[16];
	size_t n = shape_laws(m, s, l, which, b, ARRAY_SIZE(b));
	for (size_t i = 0; i < n && i < ARRAY_SIZE(b); i++)
		add(out, b[i].law, SEV_ERROR, ep, b[i].key, b[i].fix, "%s", b[i].reason);
}

static void law_shape(const struct endpoint *ep, struct findings *out)
{
	uint64_t par = 1;
	if (!endpoint_value(ep, K_CTX_SIZE))
		add(out, "S01", SEV_ERROR, ep, K_CTX_SIZE, "set CTX_SIZE to the pool: slots x the per-slot window",
		    "CTX_SIZE is not set: the engine would size the pool itself (--fit maximises the total and shrinks "
		    "each slot)");
	if (u64(ep, K_PARALLEL, &par) == 0 && par > 1 && (extra_has(ep, "--fit") || extra_has(ep, "-fit")) &&
	    (strstr(val(ep, K_EXTRA_ARGS), "fit on") || strstr(val(ep, K_EXTRA_ARGS), "fit=on")))
		add(out, "S01", SEV_ERROR, ep, K_EXTRA_ARGS, "remove --fit from EXTRA_ARGS; zealot passes --fit off",
		    "--fit with PARALLEL %llu maximises the total pool and shrinks each slot", (unsigned long long)par);
	/* the shape laws the values alone decide (plan/shape_laws.h); a value
	 * that does not read is law_values' finding */
	struct plan_shape s;
	struct plan_extras x;
	struct cand_limits l;
	if (shape_read(ep, &s, &x, &l, NULL) == 0)
		add_breaches(ep, NULL, &s, &l, SHAPE_LAWS_STATIC, out);
	/* speculative flags move as a set (S05) */
	const char *spec = val(ep, K_SPEC_TYPE);
	if (extra_has(ep, "--spec-type") || extra_has(ep, "--spec-draft-n-max") ||
	    extra_has(ep, "--spec-draft-n-min") || extra_has(ep, "--spec-draft-p-min") ||
	    extra_has(ep, "--draft-max") || extra_has(ep, "--model-draft"))
		add(out, "S05", SEV_ERROR, ep, K_EXTRA_ARGS, "use the SPEC_* keys; zealot renders the set whole",
		    "speculative flags in EXTRA_ARGS make half a set (half a set has segfaulted at load)");
	if (strcmp(spec, "none") == 0) {
		static const enum key_id keys[] = {K_SPEC_DRAFT_N_MAX, K_SPEC_DRAFT_N_MIN, K_SPEC_DRAFT_P_MIN,
						   K_SPEC_DRAFT_TYPE_K, K_SPEC_DRAFT_TYPE_V};
		for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
			if (endpoint_entry(ep, keys[i])->value)
				add(out, "S05", SEV_WARNING, ep, keys[i], "remove it, or arm a drafter with SPEC_TYPE",
				    "%s is set while SPEC_TYPE=none strips every --spec-* flag: the value reaches "
				    "nothing",
				    key_name(keys[i]));
	}
	int n_ctx_drafters = 0;
	static const char *const context_drafters[] = {"draft-mtp", "draft-simple", "draft-eagle3", "draft-dflash",
						       "draft-dspark"};
	for (size_t i = 0; i < ARRAY_SIZE(context_drafters); i++)
		n_ctx_drafters += strstr(spec, context_drafters[i]) != NULL;
	if (n_ctx_drafters > 1)
		add(out, "S07", SEV_ERROR, ep, K_SPEC_TYPE,
		    "keep one context-backed drafter (draft-mtp,ngram-mod is the legal pair)",
		    "SPEC_TYPE=%s names two context-backed drafters; they cannot share a process", spec);
	/* defaults that keep the endpoint observable */
	int metrics = 1;
	char *err = NULL;
	if (endpoint_bool(ep, K_METRICS, &metrics, &err) == 0 && !metrics)
		add(out, "C04", SEV_WARNING, ep, K_METRICS, "remove METRICS=0 unless nothing scrapes this endpoint",
		    "without --metrics the engine answers /metrics with 501, which monitoring reads as DOWN while "
		    "/health says 200");
	free(err);
	uint64_t verbosity = 4;
	if (u64(ep, K_VERBOSITY, &verbosity) == 0 && verbosity != 4)
		add(out, "C05", SEV_WARNING, ep, K_VERBOSITY, "keep VERBOSITY=4", "verbosity %llu %s",
		    (unsigned long long)verbosity,
		    verbosity < 4 ? "cannot prove the KV, draft and state sizes (no boot ledger)"
				  : "floods the journal");
	const char *bind = val(ep, K_BIND_ADDR);
	char *key_file = endpoint_path(ep, K_API_KEY_FILE);
	int has_key = key_file != NULL;
	free(key_file);
	if (strcmp(bind, "127.0.0.1") != 0 && strcmp(bind, "localhost") != 0 && strcmp(bind, "::1") != 0 &&
	    strncmp(bind, "127.", 4) != 0 && !has_key)
		add(out, "S13", SEV_WARNING, ep, K_BIND_ADDR, "set API_KEY_FILE, or bind to 127.0.0.1",
		    "BIND_ADDR=%s with no API key exposes the endpoint to the network", bind);
}

/* The runtime's build tree: the CMakeCache.txt of the build the binary
 * came from (build/bin/llama-server -> build/CMakeCache.txt, or beside
 * it). A new path, or NULL when there is none to read. */
static char *runtime_cmake_cache(const char *bin)
{
	static const char *const rel[] = {"/../CMakeCache.txt", "/../../CMakeCache.txt", "/CMakeCache.txt"};
	const char *slash = strrchr(bin, '/');
	if (!slash)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		struct sb b = {0};
		sb_addf(&b, "%.*s%s", (int)(slash - bin), bin, rel[i]);
		char *real = access(b.s, R_OK) == 0 ? realpath(b.s, NULL) : NULL;
		sb_release(&b);
		if (real)
			return real;
	}
	return NULL;
}

/* The runtime's executable as the unit would exec it, or NULL. */
static char *runtime_path(const struct endpoint *ep)
{
	const char *rt = val(ep, K_RUNTIME);
	if (!*rt)
		return NULL;
	return strchr(rt, '/') ? endpoint_path(ep, K_RUNTIME) : path_which(rt);
}

/* R01: the runtime is pinned like the payload: RUNTIME_SHA256 its bytes
 * (through serve's stamp cache), RUNTIME_MIN_BUILD the lowest build its
 * --version may report (the seeds' floor b10776 pairs MTP with a quantized
 * V; an older fork build refuses the adapter). */
static void law_runtime_pin(const struct endpoint *ep, const char *path, struct findings *out)
{
	const char *pin = val(ep, K_RUNTIME_SHA256), *floor = val(ep, K_RUNTIME_MIN_BUILD);
	if (!*pin && !*floor)
		return;
	char hex[65], *err = NULL;
	if (runtime_sha256(path, hex, NULL, &err)) {
		add(out, "R01", SEV_ERROR, ep, *pin ? K_RUNTIME_SHA256 : K_RUNTIME_MIN_BUILD,
		    "make the runtime readable", "cannot hash RUNTIME: %s", err);
		free(err);
		return;
	}
	if (*pin && strcasecmp(pin, hex) != 0)
		add(out, "R01", SEV_ERROR, ep, K_RUNTIME_SHA256,
		    "put the pinned runtime back, or pin this one (zealot fetch --pin) after checking it",
		    "RUNTIME '%s' has SHA-256 %s, RUNTIME_SHA256 pins %s: another runtime than the era's", path, hex,
		    pin);
	if (!*floor)
		return;
	const char *who = NULL;
	char *v = runtime_ask(path, hex, "version", val(ep, K_USER), &who, &err);
	long build = runtime_build(v);
	if (!v)
		add(out, "R01", SEV_ERROR, ep, K_RUNTIME_MIN_BUILD, "make `RUNTIME --version` answer",
		    "cannot read RUNTIME's build: %s", err);
	else if (build < 0)
		add(out, "R01", SEV_ERROR, ep, K_RUNTIME_MIN_BUILD, "point RUNTIME at a llama-server build",
		    "RUNTIME '%s' --version names no build number, RUNTIME_MIN_BUILD is %s", path, floor);
	else if ((unsigned long long)build < strtoull(floor, NULL, 10))
		add(out, "R01", SEV_ERROR, ep, K_RUNTIME_MIN_BUILD, "use a newer build of the runtime",
		    "RUNTIME '%s' is build %ld, below RUNTIME_MIN_BUILD %s", path, build, floor);
	free(err);
	free(v);
}

/* R02: every flag zealot renders must be one the runtime's --help lists;
 * an unknown argument is otherwise found only when the engine exits at
 * boot. The help is read once per runtime (by its SHA-256), unprivileged. */
static void law_runtime_flags(const struct endpoint *ep, struct findings *out)
{
	char *path = runtime_resolve(ep);
	struct stat st;
	if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
		free(path); /* C03 / C08 say why */
		return;
	}
	char hex[65], *err = NULL;
	const char *who = NULL;
	char *help = NULL, *v = NULL;
	if (runtime_sha256(path, hex, NULL, &err) == 0)
		help = runtime_ask(path, hex, "help", val(ep, K_USER), &who, &err);
	if (!help) {
		add(out, "R02", SEV_INFO, ep, K_RUNTIME, "make the runtime readable and executable by the unit's user",
		    "flags unchecked: cannot read RUNTIME --help as %s: %s", who ? who : "nobody", err);
		goto done;
	}
	if (!runtime_flag_listed(help, "--model")) {
		add(out, "R02", SEV_INFO, ep, K_RUNTIME, "point RUNTIME at llama-server",
		    "flags unchecked: RUNTIME '%s' --help lists no --model (not llama-server's help)", path);
		goto done;
	}
	struct argv_list a = {0};
	if (argv_render(ep, &a, &err))
		goto done;
	v = runtime_ask(path, hex, "version", val(ep, K_USER), &who, NULL);
	long build = runtime_build(v);
	struct sb b = {0};
	if (build >= 0)
		sb_addf(&b, "build %ld", build);
	else
		sb_adds(&b, "a build of unknown number");
	for (size_t i = 1; i < a.n; i++) {
		const char *f = a.v[i];
		if (f[0] != '-' || strspn(f, "-") > 2 ||
		    !((f[1] >= 'a' && f[1] <= 'z') || (f[1] >= 'A' && f[1] <= 'Z') || (f[1] == '-' && f[2])))
			continue; /* a value ("-1" included), not a flag */
		int seen = 0;
		for (size_t j = 1; j < i; j++)
			seen |= strcmp(a.v[j], f) == 0;
		if (!seen && !runtime_flag_listed(help, f))
			add(out, "R02", SEV_ERROR, ep, K_RUNTIME,
			    "use a runtime that knows it, or drop the key (or EXTRA_ARGS word) that renders it",
			    "zealot renders %s, which RUNTIME '%s' (%s) does not list in its --help: the engine "
			    "would exit at boot on an unknown argument",
			    f, path, b.s);
	}
	sb_release(&b);
	argv_release(&a);
done:
	free(v);
	free(help);
	free(err);
	free(path);
}

/* C08: the start command must be directly executable; a script needs its
 * shebang or it is a 203/EXEC boot loop. */
static void law_runtime(const struct endpoint *ep, struct findings *out)
{
	const char *rt = val(ep, K_RUNTIME);
	if (!*rt)
		return;
	char *path = runtime_path(ep);
	if (!path) {
		add(out, "C03", SEV_ERROR, ep, K_RUNTIME, "install llama-server or give RUNTIME its absolute path",
		    "RUNTIME '%s' is not in PATH", rt);
		return;
	}
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		add(out, "C03", SEV_ERROR, ep, K_RUNTIME, "build or install the runtime, or correct the path",
		    "RUNTIME '%s' does not exist", path);
	} else if (access(path, X_OK) != 0) {
		add(out, "C08", SEV_ERROR, ep, K_RUNTIME, "chmod +x it", "RUNTIME '%s' is not executable", path);
	} else {
		FILE *f = fopen(path, "rb");
		unsigned char head[4] = {0};
		size_t n = f ? fread(head, 1, 4, f) : 0;
		if (f)
			fclose(f);
		int elf = n == 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F';
		int shebang = n >= 2 && head[0] == '#' && head[1] == '!';
		if (!elf && !shebang)
			add(out, "C08", SEV_ERROR, ep, K_RUNTIME, "add a #! line, or point RUNTIME at the binary",
			    "RUNTIME '%s' is neither a binary nor a script with a shebang: exec fails (203/EXEC)",
			    path);
		/* S14: the build tree says which FA pairs were compiled (cuda.c
		 * reads GGML_CUDA_FA_QUANTS, else GGML_CUDA_FA_ALL_QUANTS) */
		char *cache = runtime_cmake_cache(path);
		struct cuda_build b;
		memset(&b, 0, sizeof(b));
		if (cache && cuda_build_from_cmake(cache, &b) == 1 && strcmp(val(ep, K_FLASH_ATTN), "off") != 0) {
			const char *k = val(ep, K_CACHE_TYPE_K), *v = val(ep, K_CACHE_TYPE_V);
			const struct ggml_type_info *tk = shape_cache_type(k), *tv = shape_cache_type(v);
			if (tk && tv && !cuda_fa_pair_compiled(&b, tk->id, tv->id))
				add(out, "S14", SEV_WARNING, ep, K_CACHE_TYPE_V,
				    "rebuild with GGML_CUDA_FA_QUANTS including the pair (or all), or set the cache "
				    "types to a compiled pair",
				    "%s compiles no flash-attention kernel for %s K + %s V (%s): the op runs on the "
				    "CPU and its cache is copied to the host at every step",
				    cache, k, v,
				    b.fa_all	  ? "all"
				    : *b.fa_pairs ? b.fa_pairs
						  : CUDA_FA_DEFAULT_PAIRS);
		}
		free(cache);
		law_runtime_pin(ep, path, out);
	}
	free(path);
}

/* C03 for a split payload: every shard must be there and belong (its
 * split.no and split.count, the tensor total), or the engine fails at load. */
static void law_shards(const struct endpoint *ep, enum key_id key, const char *path, const char *fix,
		       struct findings *out)
{
	size_t plen;
	unsigned no, n;
	if (split_name_parse(path, &plen, &no, &n) || n < 2)
		return;
	for (unsigned k = 1; k <= n; k++) {
		char *s = split_shard_name(path, k, n);
		struct stat st;
		if (stat(s, &st) != 0) {
			add(out, "C03", SEV_ERROR, ep, key, fix,
			    "%s: shard %u of %u '%s' does not exist: the engine would fail at load", key_name(key), k,
			    n, s);
			free(s);
			return;
		}
		free(s);
	}
	char *err = NULL;
	struct gguf_file *f = payload_open(path, NULL, NULL, &err);
	if (!f)
		add(out, "C03", SEV_ERROR, ep, key, "fetch the payload's shards again (zealot fetch verifies them)",
		    "%s: %s", key_name(key), err);
	free(err);
	gguf_close(f);
}

/* Can the engine read the file at p: as USER when one is set (the unit's
 * User=; checked by the mode bits and the user's primary group), else as
 * this process. Else 0, and the fix in why: its mode, owner and who reads. */
static int readable_by(const struct stat *st, const char *p, const char *user, char *why, size_t n)
{
	int ok;
	struct passwd *pw = user && *user ? getpwnam(user) : NULL;
	if (pw)
		ok = pw->pw_uid == 0 || (pw->pw_uid == st->st_uid && (st->st_mode & S_IRUSR)) ||
		     (pw->pw_gid == st->st_gid && (st->st_mode & S_IRGRP)) || (st->st_mode & S_IROTH);
	else
		ok = access(p, R_OK) == 0;
	if (ok)
		return 1;
	struct passwd *o = getpwuid(st->st_uid);
	struct group *g = getgrgid(st->st_gid);
	char owner[96];
	snprintf(owner, sizeof(owner), "%s:%s", o ? o->pw_name : "?", g ? g->gr_name : "?");
	snprintf(why, n, "it is mode %04o, owner %s; %s: chmod o+r, or chown it to %s", (unsigned)(st->st_mode & 07777),
		 owner, pw ? "the unit runs as USER" : "this user cannot read it",
		 pw ? pw->pw_name : "the user that reads it (USER= names the unit's)");
	return 0;
}

static void law_files(const struct endpoint *ep, struct findings *out)
{
	static const enum key_id keys[] = {K_MODEL_FILE, K_MMPROJ_FILE, K_LORA_FILE, K_API_KEY_FILE};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++) {
		char *p = endpoint_path(ep, keys[i]);
		if (!p) {
			/* set but empty is C02's, one finding for one line */
			if (i == 0 && !endpoint_is_empty(ep, K_MODEL_FILE))
				add(out, "C03", SEV_ERROR, ep, K_MODEL_FILE, "set MODEL_FILE to the payload",
				    "MODEL_FILE is not set");
			continue;
		}
		struct stat st;
		enum key_id ukey = key_url_of(keys[i]);
		const char *url = ukey < K__COUNT ? endpoint_value(ep, ukey) : NULL;
		/* MODEL_FILE has no opt-out: its fix never says empty (C02) */
		const char *fix = url && *url ? "run `zealot fetch` (the endpoint names its URL), or correct the path"
				  : i == 0    ? "correct the path, or name the payload's URL in MODEL_URL and run "
						"`zealot fetch`"
					      : "fetch the file, or correct the path (or opt out with an empty value)";
		char why[320];
		if (stat(p, &st) != 0)
			add(out, "C03", SEV_ERROR, ep, keys[i], fix,
			    "%s '%s' does not exist: a refusal, never a half-load", key_name(keys[i]), p);
		else if (!S_ISREG(st.st_mode))
			add(out, "C03", SEV_ERROR, ep, keys[i], "point it at a regular file",
			    "%s '%s' is not a regular file (%s)", key_name(keys[i]), p,
			    S_ISFIFO(st.st_mode)  ? "a FIFO"
			    : S_ISCHR(st.st_mode) ? "a character device"
			    : S_ISDIR(st.st_mode) ? "a directory"
			    : S_ISBLK(st.st_mode) ? "a block device"
						  : "a socket");
		else if (!readable_by(&st, p, val(ep, K_USER), why, sizeof(why)))
			add(out, "C03", SEV_ERROR, ep, keys[i], why, "%s '%s' is not readable by %s", key_name(keys[i]),
			    p, *val(ep, K_USER) ? "USER" : "this user");
		else if (i < 3)
			law_shards(ep, keys[i], p, fix, out);
		free(p);
	}
}

static int tensors_mostly(const struct gguf *g, uint32_t type)
{
	uint64_t hit = 0, all = 0;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		if (g->tensors[i].n_dims < 2)
			continue;
		all++;
		hit += g->tensors[i].type == type;
	}
	return all && hit * 2 > all;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

/* S15: whether the runtime knows the architecture is read from its source
 * tree (src/llama-arch.cpp beside the build), never from the binary. */
/* S15 without the runtime's source tree: the pinned engine's own list
 * (payload/archs.c, generated from its llama-arch.cpp). */
static void law_pinned_arch(const struct endpoint *ep, const char *arch, struct findings *out)
{
	if (archs_known(arch))
		return;
	add(out, "S15", SEV_ERROR, ep, K_MODEL_FILE,
	    "serve it with a runtime whose source names the architecture (RUNTIME in its build tree is read)",
	    "the pinned engine knows no architecture '%s' (%zu names in %s): it refuses to load this payload", arch,
	    archs_engine_count, archs_engine_source);
}

static void law_runtime_arch(const struct endpoint *ep, const char *arch, struct findings *out)
{
	const char *rt = val(ep, K_RUNTIME);
	char *path = strchr(rt, '/') ? endpoint_path(ep, K_RUNTIME) : NULL;
	char *slash = path ? strrchr(path, '/') : NULL;
	if (!slash) {
		free(path);
		law_pinned_arch(ep, arch, out);
		return;
	}
	*slash = '\0';
	static const char *const rel[] = {"/../../src/llama-arch.cpp", "/../../src/src/llama-arch.cpp",
					  "/../src/llama-arch.cpp"};
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		struct sb f = {0};
		sb_addf(&f, "%s%s", path, rel[i]);
		FILE *fp = fopen(f.s, "r");
		if (!fp) {
			sb_release(&f);
			continue;
		}
		struct sb want = {0};
		sb_addf(&want, "\"%s\"", arch);
		char line[1024];
		int found = 0;
		while (!found && fgets(line, sizeof(line), fp))
			found = strstr(line, want.s) != NULL;
		fclose(fp);
		if (!found)
			add(out, "S15", SEV_ERROR, ep, K_RUNTIME,
			    "point RUNTIME at a build whose source names the architecture",
			    "the runtime's source tree (%s) names no architecture '%s': it cannot load this payload",
			    f.s, arch);
		sb_release(&want);
		sb_release(&f);
		free(path);
		return;
	}
	free(path);
	law_pinned_arch(ep, arch, out);
}

/* --- S16: the AMX fault ------------------------------------------------ */

/* A file's first `cap` bytes as a NUL-terminated string, or NULL. */
static char *slurp(const char *path, size_t cap)
{
	return read_file(path, cap, READ_TRUNCATE, NULL, NULL, NULL);
}

/* Whether this host's CPU has the flag, from the first "flags" line of
 * /proc/cpuinfo ($ZEALOT_CPUINFO reads another file: tests, or another
 * host's cpuinfo). 0 when unknown. */
static int host_cpu_has(const char *flag)
{
	const char *path = getenv("ZEALOT_CPUINFO");
	char *text = slurp(path && *path ? path : "/proc/cpuinfo", 1u << 20);
	if (!text)
		return 0;
	int has = 0;
	for (char *p = text; p && *p && !has; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, "flags", 5) != 0)
			continue;
		char *end = strchr(p, '\n');
		if (end)
			*end = '\0';
		size_t n = strlen(flag);
		for (const char *q = strstr(p, flag); q; q = strstr(q + 1, flag))
			if ((q[-1] == ' ' || q[-1] == '\t') && (q[n] == '\0' || q[n] == ' ' || q[n] == '\n'))
				has = 1;
		break;
	}
	free(text);
	return has;
}

/* Does the build in this CMakeCache.txt carry the AMX buffer type? It is
 * compiled only under __AMX_INT8__ && __AVX512VNNI__ (ggml-cpu.cpp,
 * ggml_backend_cpu_get_extra_buffer_types; amx/amx.cpp). The x86 part of
 * ggml-cpu/CMakeLists.txt defines them: with GGML_NATIVE a bare
 * -march=native (the GGML_AMX_* options are then ignored), so the build
 * host's CPU decides, and the build is assumed made on this host;
 * otherwise -mamx-int8 from GGML_AMX_INT8 and -mavx512vnni from
 * GGML_AVX512_VNNI. With GGML_CPU_ALL_VARIANTS the engine loads the best
 * variant for the host it runs on, the sapphirerapids one (AMX) on an AMX
 * CPU. 1 yes (evidence appended to why), 0 no, -1 unreadable. */
static int build_has_amx(const char *cache, struct sb *why)
{
	char *text = slurp(cache, 8u << 20);
	if (!text)
		return -1;
	int amx = 0;
	int host = host_cpu_has("amx_int8") && host_cpu_has("avx512_vnni");
	if (cmake_cache_true(text, "GGML_CPU_ALL_VARIANTS")) {
		if ((amx = host))
			sb_addf(why,
				"%s has GGML_CPU_ALL_VARIANTS=ON and this host's CPU has amx_int8: the engine "
				"loads its AMX (sapphirerapids) CPU variant",
				cache);
	} else if (cmake_cache_true(text, "GGML_NATIVE")) {
		if ((amx = host))
			sb_addf(why,
				"%s has GGML_NATIVE=ON and this host's CPU has amx_int8 and avx512_vnni (a native "
				"build compiles the AMX kernels exactly when its build host has them)",
				cache);
	} else if (cmake_cache_true(text, "GGML_AMX_INT8") && cmake_cache_true(text, "GGML_AVX512_VNNI")) {
		amx = 1;
		sb_addf(why, "%s has GGML_AMX_INT8=ON and GGML_AVX512_VNNI=ON", cache);
	}
	free(text);
	return amx;
}

/* A boot log of the runtime: its system_info line lists AMX_INT8 = 1 (and
 * AVX512_VNNI = 1) when the CPU backend was compiled with the kernels. */
static int boot_log_amx(const char *log, struct sb *why)
{
	FILE *f = fopen(log, "r");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	int amx = 0, seen = 0, buffer = 0;
	while (getline(&line, &cap, f) > 0) {
		if (!seen && strstr(line, "system_info:")) {
			seen = 1;
			amx = strstr(line, "AMX_INT8 = 1") && strstr(line, "AVX512_VNNI = 1");
		}
		if (strstr(line, "AMX model buffer size"))
			buffer = 1;
	}
	free(line);
	fclose(f);
	if (amx)
		sb_addf(why, "the boot log %s says AMX_INT8 = 1 in its system_info line%s", log,
			buffer ? " and shows an AMX model buffer" : "");
	return seen ? amx : -1;
}

/* An f16 MLA decompression stack (deepseek2.cpp, mistral4: blk.N.attn_k_b
 * and attn_v_b, 3-D). The loader puts it in the AMX buffer (its check is a
 * matmul by a contiguous operand), but the graph multiplies it by a
 * permuted one: the AMX buffer type's supports_op (amx/amx.cpp) wants both
 * contiguous, no other backend may read a weight in that buffer, and the
 * scheduler's pass 4 aborts on the unassigned node. */
static int amx_mla_b(const struct gguf_tensor *t)
{
	size_t n = strlen(t->name);
	return t->type == 1 /* F16 */ && n > 15 &&
	       (strcmp(t->name + n - 15, "attn_k_b.weight") == 0 || strcmp(t->name + n - 15, "attn_v_b.weight") == 0);
}

/* S16: on an Intel host with AMX, the pinned engine built natively puts
 * matmul weights of the tile-kernel types into its AMX buffer and dies
 * with SIGILL at warm-up (tilezero in tinygemm_kernel_amx, on a worker
 * thread); --no-repack (REPACK=0) keeps every extra buffer type out and
 * the same payload boots. Only the cpu device: a CUDA build's host layers
 * take the CUDA host buffer type first, as the planner's CPU_REPACK rule. */
static void law_amx(const struct endpoint *ep, const struct shape_ctx *c, const struct laws_evidence *ev,
		    struct findings *out)
{
	const struct plan_shape *s = &c->shape;
	if (!c->dev || c->dev->backend != DEVICE_CPU || !s->repack || extra_has(ep, "--no-repack") ||
	    extra_has(ep, "-nr"))
		return;
	const struct model *m = c->census->model;
	const struct gguf *g = c->model->g;
	uint64_t n = 0, trunk = m->n_layer_all - m->n_nextn;
	uint32_t types[8];
	size_t n_types = 0;
	uint64_t n_mla = 0; /* f16 MLA decompression stacks the AMX buffer takes */
	const struct gguf_tensor *embd = gguf_tensor_find(g, "token_embd.weight");
	int tied = embd && !gguf_tensor_find(g, "output.weight");
	struct cpu_features amx_host = s->cpu;
	amx_host.bits |= CPU_AMX_INT8 | CPU_AVX512_VNNI;
	for (uint64_t i = 0; i <= g->n_tensors; i++) {
		/* past the last tensor: a tied output layer multiplies by a copy
		 * of token_embd (a MUL_MAT weight of its own) */
		const struct gguf_tensor *t = i < g->n_tensors ? &g->tensors[i] : tied ? embd : NULL;
		if (!t || (i < g->n_tensors && !plan_weight_is_matmul(t)))
			continue;
		if (strncmp(t->name, "blk.", 4) == 0 && strtoull(t->name + 4, NULL, 10) >= trunk && !s->spec_mtp)
			continue; /* MTP blocks load only with a drafter */
		/* the planner's own rule, on a host whose build has the AMX buffer */
		uint64_t bytes;
		const char *buft = cpu_weight_buft(&amx_host, t, 1, &bytes);
		if (!buft || strcmp(buft, "AMX") != 0)
			continue;
		if (!cpu_amx_tiles(t->type)) {
			if (amx_mla_b(t))
				n_mla++;
			continue;
		}
		n++;
		size_t k = 0;
		while (k < n_types && types[k] != t->type)
			k++;
		if (k == n_types && n_types < ARRAY_SIZE(types))
			types[n_types++] = t->type;
	}
	if (!n && !n_mla)
		return;
	struct sb why = {0};
	char *rt = runtime_path(ep);
	char *cache = rt ? runtime_cmake_cache(rt) : NULL;
	int build = cache ? build_has_amx(cache, &why) : -1;
	int boot = -1;
	if (ev && ev->boot_log) {
		struct sb lw = {0};
		boot = boot_log_amx(ev->boot_log, &lw);
		if (boot == 1)
			sb_addf(&why, "%s%s", why.len ? "; " : "", lw.s);
		sb_release(&lw);
	}
	if ((build == 1 || boot == 1) && !n) {
		add(out, "S16", SEV_ERROR, ep, K_REPACK,
		    "set REPACK=0 (--no-repack): the weights stay mapped and the plain CPU kernels run them",
		    "the runtime's build carries the AMX kernels (%s) and REPACK is on: %llu f16 MLA decompression "
		    "stacks (attn_k_b/attn_v_b) go to the AMX buffer, which refuses their matmul by a permuted "
		    "operand, and no other backend may read them: the pinned engine aborts while reserving the "
		    "graph (ggml-backend.cpp: GGML_ASSERT(*cur_backend_id != -1) failed)",
		    why.s, (unsigned long long)n_mla);
	} else if (build == 1 || boot == 1) {
		struct sb tn = {0};
		for (size_t k = 0; k < n_types; k++)
			sb_addf(&tn, "%s%s", k ? ", " : "", ggml_type_get(types[k])->name);
		add(out, "S16", SEV_ERROR, ep, K_REPACK,
		    "set REPACK=0 (--no-repack): the weights stay mapped and the plain CPU kernels run them",
		    "the runtime's build carries the AMX kernels (%s) and REPACK is on: %llu matmul weights (%s) go "
		    "to the AMX buffer, where the pinned engine dies with SIGILL at warm-up (tilezero in "
		    "tinygemm_kernel_amx)",
		    why.s, (unsigned long long)n, tn.s);
		sb_release(&tn);
	}
	sb_release(&why);
	free(cache);
	free(rt);
}

/* C07: the general.sampling.* keys the engine reads from a GGUF (llama.cpp's
 * LLM_KV_GENERAL_SAMPLING_*). Any other sampler the payload states is
 * dropped, unless the endpoint passes it on argv: only then is it warned
 * (a payload that states none, or only these, is no finding). */
static int sampler_read(const char *k)
{
	static const char *const read[] = {"sequence",	      "top_k",	       "top_p",	       "min_p",
					   "xtc_probability", "xtc_threshold", "temp",	       "penalty_last_n",
					   "penalty_repeat",  "mirostat",      "mirostat_tau", "mirostat_eta"};
	for (size_t i = 0; i < ARRAY_SIZE(read); i++)
		if (strcmp(k, read[i]) == 0)
			return 1;
	return 0;
}

static void law_sampling(const struct endpoint *ep, const struct census *cs, struct findings *out)
{
	for (size_t i = 0; i < cs->n_sampling; i++) {
		const char *k = cs->sampling[i].key;
		double v = cs->sampling[i].value;
		char fix[160];
		if (sampler_read(k))
			continue;
		if (strcmp(k, "presence_penalty") == 0) {
			/* set, or set empty: the endpoint decided */
			if (endpoint_entry(ep, K_PRESENCE_PENALTY)->value)
				continue;
			snprintf(fix, sizeof(fix),
				 "write PRESENCE_PENALTY=%g (the payload's value), or PRESENCE_PENALTY= to drop it "
				 "knowingly",
				 v);
			add(out, "C07", SEV_WARNING, ep, K_PRESENCE_PENALTY, fix,
			    "the payload states presence_penalty %g (general.sampling.presence_penalty), which the "
			    "engine does not read from a GGUF: without PRESENCE_PENALTY no request gets it",
			    v);
		} else if (strcmp(k, "frequency_penalty") == 0) {
			if (extra_has(ep, "--frequency-penalty"))
				continue;
			snprintf(fix, sizeof(fix), "add --frequency-penalty %g to EXTRA_ARGS, or send it per request",
				 v);
			add(out, "C07", SEV_WARNING, ep, K_EXTRA_ARGS, fix,
			    "the payload states frequency_penalty %g (general.sampling.frequency_penalty), which the "
			    "engine does not read from a GGUF: no request gets it",
			    v);
		} else {
			add(out, "C07", SEV_INFO, ep, NO_KEY, "send it per request if the model needs it",
			    "the payload states general.sampling.%s %g, a key the engine does not read", k, v);
		}
	}
}

static void law_payload(const struct endpoint *ep, const struct shape_ctx *c, const struct laws_evidence *ev,
			struct findings *out)
{
	if (!c || !c->census || !c->census->model)
		return;
	law_runtime_arch(ep, c->census->model->arch, out);
	char *lerr = NULL; /* S17: a shape the engine's loader refuses */
	if (c->model && loader_check(c->model->g, c->census->model, &lerr))
		add(out, "S17", SEV_ERROR, ep, K_MODEL_FILE, "re-convert or fetch a payload whose tensors match it",
		    "%s", lerr);
	free(lerr);
	char ubuf[512]; /* S17: an architecture whose attention shapes zealot does not mirror, said */
	const char *unm = c->model ? loader_unmirrored(c->model->g, c->census->model, ubuf, sizeof(ubuf)) : NULL;
	if (unm)
		add(out, "S17", SEV_INFO, ep, K_MODEL_FILE, "the engine's loader alone judges these shapes", "%s", unm);
	if (c->model)
		law_amx(ep, c, ev, out);
	const struct census *cs = c->census;
	const struct model *m = cs->model;
	const struct plan_shape *s = &c->shape;
	law_sampling(ep, cs, out);
	/* S02, S04, S06: the shape laws against the payload (plan/shape_laws.h) */
	struct cand_limits l;
	if (cand_limits(ep, m, NULL, &l, NULL) == 0)
		add_breaches(ep, m, s, &l, SHAPE_LAWS_PAYLOAD, out);
	/* S07: ngram-mod on a recurrent model disables state rollback */
	if (strstr(val(ep, K_SPEC_TYPE), "ngram-mod") && m->n_kind[LAYER_RECURRENT])
		add(out, "S07", SEV_WARNING, ep, K_SPEC_TYPE, "drop ngram-mod on hybrid models",
		    "ngram-mod on a recurrent (hybrid) model disables state rollback: rejected drafts degrade output "
		    "silently");
	/* S10: custom types and vendor transforms lock the payload to a runtime */
	for (size_t i = 0; i < cs->n_types; i++)
		if (!cs->types[i].name)
			add(out, "S10", SEV_WARNING, ep, K_MODEL_FILE, "pin RUNTIME to the build that defines the type",
			    "the payload has %llu tensors of custom ggml type %u: a stock build refuses it",
			    (unsigned long long)cs->types[i].count, cs->types[i].type);
	for (size_t i = 0; i < cs->n_families; i++)
		add(out, "S10", SEV_WARNING, ep, K_MODEL_FILE, "pin RUNTIME to a build that reads these keys",
		    "vendor metadata %s.* (%llu keys): a loader that ignores a transform dequantizes wrongly and "
		    "silently",
		    cs->families[i].prefix, (unsigned long long)cs->families[i].keys);
	/* S11: BF16 projector under concurrency */
	if (c->projector && s->parallel > 1 && tensors_mostly(c->projector->g, 30))
		add(out, "S11", SEV_WARNING, ep, K_MMPROJ_FILE, "use the Q8_0 projector",
		    "a BF16 projector can crash the engine under concurrent image requests; PARALLEL is %u",
		    s->parallel);
	/* S12: adapter provenance and reach */
	if (c->lora) {
		char *err = NULL;
		struct census *lc = census_take(c->lora->g, &err);
		free(err);
		if (lc && !lc->is_adapter)
			add(out, "S12", SEV_ERROR, ep, K_LORA_FILE, "point LORA_FILE at an adapter",
			    "LORA_FILE is not an adapter");
		if (lc && lc->touches_token_embd)
			add(out, "S12", SEV_ERROR, ep, K_LORA_FILE,
			    "use an adapter that leaves the embedding untouched",
			    "the adapter touches token_embd: a crash, not a degradation");
		const struct gguf_kv *la = gguf_find(c->lora->g, "general.architecture");
		if (la && la->type == GGUF_STRING &&
		    (la->v.s.n != strlen(m->arch) || memcmp(la->v.s.p, m->arch, la->v.s.n)))
			add(out, "S12", SEV_ERROR, ep, K_LORA_FILE, "use an adapter for this architecture",
			    "the adapter is for %.*s, the payload is %s", (int)la->v.s.n, la->v.s.p, m->arch);
		if (lc && lc->adapter_base && strcmp(base_name(lc->adapter_base), base_name(c->model_path)) != 0)
			add(out, "S12", SEV_WARNING, ep, K_LORA_FILE,
			    "prove its effect with a behaviour probe, not the card",
			    "the adapter was fitted against %s, not %s: the loader matches tensor names, not hashes",
			    lc->adapter_base, base_name(c->model_path));
		census_free(lc);
	}
	/* C02: placement keys that take nothing from this payload */
	if (s->place.n_cpu_moe && !m->n_expert)
		add(out, "C02", SEV_WARNING, ep, K_N_CPU_MOE, "remove it: the payload is dense",
		    "N_CPU_MOE=%u, but the payload has no experts: nothing moves", s->place.n_cpu_moe);
	else if (s->place.n_cpu_moe > m->n_layer_all)
		add(out, "C02", SEV_WARNING, ep, K_N_CPU_MOE, "lower it to the block count",
		    "N_CPU_MOE=%u but the payload has %u blocks", s->place.n_cpu_moe, m->n_layer_all);
	if (s->place.override_tensor && *s->place.override_tensor) {
		struct place_request rq = s->place;
		rq.n_cpu_moe = 0;
		rq.ngl = s->ngl;
		struct placement pl;
		if (place_make(&rq, c->dev, m, &pl, NULL) == 0) {
			unsigned *hits = xcalloc(pl.n_over ? pl.n_over : 1, sizeof(*hits));
			place_override_hits(&pl, c->model->g, hits);
			for (unsigned i = 0; i < pl.n_over; i++)
				if (!hits[i])
					add(out, "C02", SEV_WARNING, ep, K_OVERRIDE_TENSOR,
					    "check the pattern against `zealot inspect`'s tensor names",
					    "OVERRIDE_TENSOR's pattern %u places no tensor of this payload (an earlier "
					    "pattern takes its matches, or none match)",
					    i + 1);
			free(hits);
			place_release(&pl);
		}
	}

	/* A08: the template's accepted reasoning_effort values */
	if (cs->has_template && cs->tpl.n_effort) {
		struct sb b = {0};
		for (size_t i = 0; i < cs->tpl.n_effort; i++)
			sb_addf(&b, "%s%s", i ? "|" : "", cs->tpl.effort[i]);
		add(out, "A08", SEV_INFO, ep, NO_KEY, "map clients' levels onto these (zealot emit harness does)",
		    "the chat template accepts reasoning_effort %s only%s", b.s,
		    cs->tpl.raises ? " and raises (HTTP 500) on any other" : "");
		sb_release(&b);
	}
}

static void law_fit(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p, struct findings *out)
{
	if (!p)
		return;
	double free_mib = (double)p->free_bytes / (1024.0 * 1024.0);
	if (!p->fits) {
		/* every device held to its own memory: one finding per device short of it */
		for (unsigned i = 0; i < p->n_devs; i++) {
			const struct plan_dev *d = &p->devs[i];
			if (d->fits)
				continue;
			const char *where = p->n_cards ? d->name : p->device->name;
			add(out, "M09", SEV_ERROR, ep, K_CTX_SIZE,
			    "shrink the pool, quantize the cache, disarm the drafter, lower UBATCH_SIZE or move layers "
			    "(NGL, TENSOR_SPLIT, N_CPU_MOE; zealot plan shows each term per device)",
			    "the plan leaves %s MiB free on %s, below the %s MiB slack band",
			    FMT_MIB((double)d->free_bytes / (1024.0 * 1024.0)), where, FMT_MIB(plan_mib(d->slack)));
		}
	} else if (c && c->shape.spec_mtp && p->has_draft) {
		uint64_t draft = p->draft_kv.k_bytes + p->draft_kv.v_bytes;
		for (unsigned i = 0; i < p->n_draft_compute; i++)
			draft += p->draft_compute[i].bytes;
		if (p->free_bytes < (int64_t)(p->slack + p->slack))
			add(out, "S09", SEV_WARNING, ep, K_SPEC_TYPE,
			    "measure decode with and without the drafter before keeping it",
			    "the armed drafter costs %s MiB and leaves %s MiB free: speculation pays only with "
			    "room on the card",
			    FMT_MIB(plan_mib(draft)), FMT_MIB(free_mib));
	}
}

size_t laws_check(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p, unsigned which,
		  struct findings *out)
{
	return laws_check_with(ep, c, p, which, NULL, out);
}

size_t laws_check_with(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p, unsigned which,
		       const struct laws_evidence *ev, struct findings *out)
{
	size_t before = out->n;
	if (which & LAWS_STATIC) {
		law_c02(ep, out);
		law_values(ep, out);
		law_gated(ep, out);
		law_fleet(ep, out);
		law_user(ep, out);
		law_cache_types(ep, out);
		law_placement(ep, out);
		law_shape(ep, out);
		law_runtime(ep, out);
	}
	if (which & LAWS_FILES)
		law_files(ep, out);
	if (which & LAWS_RUNTIME)
		law_runtime_flags(ep, out);
	if (which & LAWS_PAYLOAD)
		law_payload(ep, c, ev, out);
	if (which & LAWS_FIT)
		law_fit(ep, c, p, out);
	size_t errors = 0;
	for (size_t i = before; i < out->n; i++)
		errors += out->v[i].sev == SEV_ERROR;
	return errors;
}
