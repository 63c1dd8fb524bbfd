#include "deploy.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/crypto_lazy.h"
#include "../base/fault.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../judge/emit.h"
#include "../judge/laws.h"
#include "../judge/runtime.h"
#include "../judge/trust.h"
#include "../live/audit.h"
#include "../live/http.h"
#include "../live/ledger_compare.h"
#include "../live/probe.h"
#include "../live/promfile.h"
#include "../payload/pin.h"
#include "cause.h"
#include "install.h"
#include "systemd.h"

/* Everything one attempt holds. */
struct run {
	struct store *st;
	const struct deploy_opts *o;
	struct deploy_result *r;
	int lock_fd;
	double t0;

	/* the shape to install */
	char *name;
	char *src_path; /* the endpoint file as given (deploy) or as installed (rollback) */
	char *env_text; /* what is installed: the source with absolute paths */
	struct endpoint *ep;
	struct shape_ctx sc;
	struct plan plan;	/* what is gated: calibrated from a recorded boot when one matches */
	struct plan plan_model; /* as modelled: what the era and its boot record (calibration's base) */
	int have_plan;
	struct argv_list argv;
	char *unit_text;
	char *pins_json;
	char *runtime, *runtime_version;
	char model_sha[65];
	uint64_t model_bytes;
	int gpu;
	unsigned port;
	char *http_base, *api_key;

	/* what was there before */
	struct store_era prev, target;
	int have_prev, have_target;
	char *old_unit, *old_env;
	size_t old_unit_len, old_env_len;
	int was_active;
	long old_main_pid;

	/* this start */
	struct systemd_unit unit;
	struct ledger *ledger;
	struct probe_results probes;
	int installed; /* files were touched: a failure from here on restores */
	char *reason;
};

const char *deploy_outcome_name(enum deploy_outcome o)
{
	switch (o) {
	case DEPLOY_DEPLOYED: return "deployed";
	case DEPLOY_REFUSED: return "refused";
	case DEPLOY_ROLLED_BACK: return "rolled-back";
	case DEPLOY_ROLLBACK_FAILED: return "rollback-failed";
	case DEPLOY_ERROR: return "error";
	case DEPLOY_FAILED: return "failed";
	}
	return "error";
}

/* --- steps --------------------------------------------------------------- */

int deploy_step_add(const struct deploy_steps *b, const char *name, const char *status, double t, const char *law,
		    const char *fmt, va_list ap)
{
	*b->v = xreallocarray(*b->v, *b->n + 1, sizeof(**b->v));
	struct deploy_step *s = &(*b->v)[(*b->n)++];
	memset(s, 0, sizeof(*s));
	s->name = name;
	s->status = status;
	s->seconds = mono_s() - t;
	snprintf(s->law, sizeof(s->law), "%s", law ? law : "");
	s->detail = xvstrf(fmt, ap);
	if (b->attempt > 0) {
		struct sb rec = {0};
		sb_addf(&rec, "%s%s%s", s->law, s->law[0] ? ": " : "", s->detail);
		char *err = NULL;
		store_attempt_step(b->st, b->attempt, name, status, s->seconds, rec.s, &err);
		free(err); /* the record is evidence, not a gate: a full disk must not stop a restore */
		sb_release(&rec);
	}
	if (b->on_step)
		b->on_step(s, b->arg);
	if (strcmp(status, "failed") == 0 && !*b->failed_step) {
		*b->failed_step = name;
		snprintf(b->law, 8, "%s", s->law);
		free(*b->why);
		*b->why = xstrdup(s->detail);
	}
	return strcmp(status, "ok") == 0 || strcmp(status, "warning") == 0 || strcmp(status, "skipped") == 0 ? 0 : -1;
}

/* A step of this run (deploy_step_add); a gate reads `if (step(...)) return ...`. */
static int step(struct run *x, const char *name, const char *status, double t, const char *law, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int step(struct run *x, const char *name, const char *status, double t, const char *law, const char *fmt, ...)
{
	struct deploy_result *r = x->r;
	const struct deploy_steps b = {&r->steps, &r->n_steps, x->st,	      r->attempt, &r->failed_step,
				       r->law,	  &r->why,     x->o->on_step, x->o->arg};
	va_list ap;
	va_start(ap, fmt);
	int rc = deploy_step_add(&b, name, status, t, law, fmt, ap);
	va_end(ap);
	return rc;
}

/* A failed step whose detail is an error message: err is taken (freed
 * here), why stands in when there is none. Returns -1, as step does. */
static int failed(struct run *x, const char *name, double t, const char *law, char *err, const char *why)
{
	int rc = step(x, name, "failed", t, law, "%s", err ? err : why);
	free(err);
	return rc;
}

static void warn(struct run *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct run *x, const char *fmt, ...)
{
	x->r->warnings = xreallocarray(x->r->warnings, x->r->n_warnings + 1, sizeof(char *));
	va_list ap;
	va_start(ap, fmt);
	x->r->warnings[x->r->n_warnings++] = xvstrf(fmt, ap);
	va_end(ap);
}

/* --- helpers ------------------------------------------------------------- */

char *deploy_endpoint_name(const char *path)
{
	const char *b = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	size_t n = strlen(b);
	if (n > 4 && strcmp(b + n - 4, ".env") == 0)
		n -= 4;
	return xstrndup(b, n);
}

static void sha256_hex(const char *s, size_t n, char hex[65])
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	hex[0] = '\0';
	if (!EVP_Digest(s, n, md, &len, EVP_sha256(), NULL) || len != 32)
		return;
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

/* Whether something accepts TCP connections on host:port. */
static int port_answers(const char *host, unsigned port)
{
	char ps[16];
	snprintf(ps, sizeof(ps), "%u", port);
	struct addrinfo hints = {0}, *ai = NULL;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(host, ps, &hints, &ai) != 0)
		return 0;
	int answers = 0;
	for (struct addrinfo *a = ai; a && !answers; a = a->ai_next) {
		int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
		if (fd < 0)
			continue;
		answers = connect(fd, a->ai_addr, a->ai_addrlen) == 0;
		close(fd);
	}
	freeaddrinfo(ai);
	return answers;
}

static char *cmdline_of(long pid)
{
	size_t n = 0;
	char **v = audit_read_vector((pid_t)pid, "cmdline", &n);
	struct sb b = {0};
	sb_adds(&b, "");
	for (size_t i = 0; i < n && b.len < 200; i++)
		sb_addf(&b, "%s%s", i ? " " : "", v[i]);
	audit_free_vector(v, n);
	if (!b.len)
		sb_adds(&b, "(unreadable)");
	return sb_detach(&b);
}

/* The endpoint's address as a client on this host reaches it. */
char *deploy_http_base(const struct endpoint *ep, unsigned port)
{
	const char *b = endpoint_value(ep, K_BIND_ADDR);
	struct sb s = {0};
	if (!b || !*b || strcmp(b, "0.0.0.0") == 0)
		b = "127.0.0.1";
	if (strcmp(b, "::") == 0)
		b = "::1";
	if (strchr(b, ':'))
		sb_addf(&s, "http://[%s]:%u", b, port);
	else
		sb_addf(&s, "http://%s:%u", b, port);
	return sb_detach(&s);
}

static char *host_of(const char *base)
{
	const char *h = base + strlen("http://");
	if (*h == '[') {
		const char *e = strchr(h, ']');
		return xstrndup(h + 1, e ? (size_t)(e - h - 1) : 0);
	}
	return xstrndup(h, strcspn(h, ":"));
}

/* --- gates ---------------------------------------------------------------- */

static const char *first_error_law(const struct findings *fs, size_t from)
{
	for (size_t i = from; i < fs->n; i++)
		if (fs->v[i].sev == SEV_ERROR)
			return fs->v[i].law;
	return NULL;
}

/* "S03 FILE:LINE KEY: reason; ..." for the errors (and, with warnings,
 * the warnings' ids). */
static char *findings_text(const struct endpoint *ep, const struct findings *fs, size_t from, int errors)
{
	struct sb b = {0};
	sb_adds(&b, "");
	size_t shown = 0;
	for (size_t i = from; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		if ((f->sev == SEV_ERROR) != errors || f->sev == SEV_INFO)
			continue;
		if (!errors) {
			sb_addf(&b, "%s%s", shown++ ? ", " : "", f->law);
			continue;
		}
		if (shown++)
			sb_adds(&b, "; ");
		if (f->key && f->line > 0)
			sb_addf(&b, "%s %s:%d %s: %s", f->law, ep->path, f->line, f->key, f->reason);
		else
			sb_addf(&b, "%s %s: %s", f->law, ep->path, f->reason);
	}
	return sb_detach(&b);
}

static int gate_laws(struct run *x)
{
	double t = mono_s();
	struct findings fs = {0};
	char *err = NULL;
	int rc = 0;
	/* the engine's own config files too (R03): serve would refuse them */
	if (laws_check(x->ep, NULL, NULL, LAWS_STATIC | LAWS_FILES | LAWS_RUNTIME, &fs) +
	    trust_config_files(NULL, NULL, &fs, NULL)) {
		char *why = findings_text(x->ep, &fs, 0, 1);
		rc = step(x, "gate:laws", "failed", t, first_error_law(&fs, 0), "%s", why);
		free(why);
		goto done;
	}
	int io = 0;
	if (shape_load(x->ep, NULL, &x->sc, &io, &err) ||
	    plan_make(x->sc.census->model, x->sc.model->g, &x->sc.shape, x->sc.dev, &x->sc.extras, &x->plan, &err)) {
		rc = step(x, "gate:laws", "failed", t, io ? "C03" : "C02", "%s", err);
		goto done;
	}
	x->have_plan = 1;
	x->gpu = x->sc.dev && x->sc.dev->backend != DEVICE_CPU;
	size_t from = fs.n;
	if (laws_check(x->ep, &x->sc, &x->plan, LAWS_PAYLOAD, &fs)) {
		char *why = findings_text(x->ep, &fs, from, 1);
		rc = step(x, "gate:laws", "failed", t, first_error_law(&fs, from), "%s", why);
		free(why);
		goto done;
	}
	char *warns = findings_text(x->ep, &fs, 0, 0);
	rc = step(x, "gate:laws", "ok", t, NULL, "no errors (C01-C08, S01-S15)%s%s%s", *warns ? "; warnings: " : "",
		  warns, "");
	if (*warns)
		warn(x, "check warns: %s (zealot check %s)", warns, x->src_path);
	free(warns);
done:
	free(err);
	findings_release(&fs);
	return rc;
}

/* The pins: the endpoint's *_BYTES and *_SHA256 (serve checks them again at
 * every start), and for a rollback the era's recorded identity of each
 * file. The hashes of what is installed are recorded with the era. */
static int gate_pins(struct run *x)
{
	static const char *const files[] = {"MODEL", "MMPROJ", "LORA"};
	double t = mono_s();
	json_t *want = NULL;
	if (x->have_target && x->target.pins_json)
		want = json_loads(x->target.pins_json, 0, NULL);
	json_t *pins = json_object();
	struct sb said = {0};
	char *dir = pin_stamp_dir();
	int rc = 0;
	for (size_t i = 0; i < ARRAY_SIZE(files) && rc == 0; i++) {
		char key[32], bkey[32], skey[32];
		snprintf(key, sizeof(key), "%s_FILE", files[i]);
		snprintf(bkey, sizeof(bkey), "%s_BYTES", files[i]);
		snprintf(skey, sizeof(skey), "%s_SHA256", files[i]);
		char *path = endpoint_path(x->ep, key);
		if (!path)
			continue;
		struct stat sb;
		if (stat(path, &sb) != 0) {
			rc = step(x, "gate:pins", "failed", t, "C03", "%s '%s' does not exist", key, path);
			free(path);
			break;
		}
		char hex[65], *err = NULL;
		int cached = 0;
		if (pin_sha256(path, dir, hex, &cached, NULL, NULL, &err)) {
			rc = failed(x, "gate:pins", t, "C03", err, "cannot hash the file");
			free(path);
			break;
		}
		uint64_t want_bytes = 0;
		const char *wb = endpoint_value(x->ep, bkey), *ws = endpoint_value(x->ep, skey);
		char *e2 = NULL;
		if (wb && *wb && endpoint_uint(x->ep, bkey, &want_bytes, &e2) == 0 &&
		    want_bytes != (uint64_t)sb.st_size)
			rc = step(x, "gate:pins", "failed", t, "C03",
				  "%s '%s' is %lld bytes, %s pins %llu (an unfinished or wrong download)", key, path,
				  (long long)sb.st_size, bkey, (unsigned long long)want_bytes);
		else if (ws && *ws && strcasecmp(ws, hex) != 0)
			rc = step(x, "gate:pins", "failed", t, "C03", "%s '%s' has SHA-256 %s, %s pins %s", key, path,
				  hex, skey, ws);
		free(e2);
		json_t *w = want ? json_object_get(want, key) : NULL;
		if (rc == 0 && want && !w)
			rc =
			    step(x, "gate:pins", "failed", t, "C03", "era %lld recorded no %s, the endpoint names '%s'",
				 (long long)x->target.id, key, path);
		if (rc == 0 && w) {
			const char *wsha = json_string_value(json_object_get(w, "sha256"));
			json_int_t wbytes = json_integer_value(json_object_get(w, "bytes"));
			if (wbytes != (json_int_t)sb.st_size || !wsha || strcasecmp(wsha, hex) != 0)
				rc = step(x, "gate:pins", "failed", t, "C03",
					  "%s '%s' is not the file era %lld served: %lld bytes sha256 %.12s..., "
					  "recorded %lld bytes sha256 %.12s...",
					  key, path, (long long)x->target.id, (long long)sb.st_size, hex,
					  (long long)wbytes, wsha ? wsha : "?");
		}
		if (rc == 0) {
			json_object_set_new(
			    pins, key,
			    json_pack("{s:s,s:I,s:s}", "path", path, "bytes", (json_int_t)sb.st_size, "sha256", hex));
			sb_addf(&said, "%s%s %lld B sha256 %.12s...%s", said.len ? "; " : "", key,
				(long long)sb.st_size, hex,
				(ws && *ws) || w ? " (pinned)"
				: cached	 ? " (stamp)"
						 : "");
			if (i == 0) {
				snprintf(x->model_sha, sizeof(x->model_sha), "%s", hex);
				x->model_bytes = (uint64_t)sb.st_size;
			}
		}
		free(path);
	}
	/* the runtime is the era's second lock: its SHA-256 is recorded beside
	 * the payload's (RUNTIME_SHA256, when set, was held by gate:laws, R01) */
	char *rt = rc == 0 ? runtime_resolve(x->ep) : NULL;
	struct stat rst;
	if (rt && stat(rt, &rst) == 0 && S_ISREG(rst.st_mode)) {
		char hex[65], *err = NULL;
		int rcached = 0;
		if (pin_sha256(rt, dir, hex, &rcached, NULL, NULL, &err) == 0) {
			json_object_set_new(
			    pins, "RUNTIME",
			    json_pack("{s:s,s:I,s:s}", "path", rt, "bytes", (json_int_t)rst.st_size, "sha256", hex));
			sb_addf(&said, "%sRUNTIME sha256 %.12s...", said.len ? "; " : "", hex);
			json_t *w = want ? json_object_get(want, "RUNTIME") : NULL;
			const char *wsha = w ? json_string_value(json_object_get(w, "sha256")) : NULL;
			if (wsha && strcasecmp(wsha, hex) != 0)
				warn(x, "the runtime '%s' (sha256 %.12s...) is not the one era %lld served (%.12s...)",
				     rt, hex, (long long)x->target.id, wsha);
		}
		free(err);
	}
	free(rt);
	if (rc == 0) {
		x->pins_json = json_dumps(pins, JSON_COMPACT | JSON_SORT_KEYS);
		rc = step(x, "gate:pins", "ok", t, NULL, "%s", said.len ? said.s : "no payload files");
	}
	free(dir);
	sb_release(&said);
	json_decref(pins);
	json_decref(want);
	return rc;
}

static int gate_fit(struct run *x)
{
	double t = mono_s();
	struct findings fs = {0};
	int rc;
	char *note = NULL;
	/* the fit of the calibrated plan (M08: a measured boot outranks the
	 * model); the ledger step holds only exact terms, which calibration
	 * never moves */
	x->plan_model = x->plan;
	int cal = x->o->calibrate ? x->o->calibrate(x->ep, &x->sc, &x->plan, &note) : 0;
	if (cal < 0)
		warn(x, "calibration: %s (the plan as modelled)", note ? note : "the store could not be read");
	if (laws_check(x->ep, &x->sc, &x->plan, LAWS_FIT, &fs)) {
		char *why = findings_text(x->ep, &fs, 0, 1);
		rc = step(x, "gate:fit", "failed", t, "M09", "%s", why);
		free(why);
	} else {
		rc = step(x, "gate:fit", "ok", t, NULL, "fits: %s MiB free of %s on %s (slack %s)%s%s",
			  FMT_MIB((double)x->plan.free_bytes / (1024.0 * 1024.0)),
			  FMT_MIB(plan_mib(x->plan.addressable)), x->plan.device->name,
			  FMT_MIB(plan_mib(x->plan.slack)), cal > 0 && note ? "; " : "", cal > 0 && note ? note : "");
	}
	free(note);
	findings_release(&fs);
	return rc;
}

int deploy_unit_name_ok(const char *name)
{
	size_t n = strlen(name);
	if (n == 0 || n + strlen(".service") > 255 || name[0] == '-')
		return 0;
	return strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789:_.-") == n;
}

/* C02: the endpoint's name makes a unit name systemd takes. */
static int gate_name(struct run *x)
{
	if (deploy_unit_name_ok(x->ep->name))
		return 0;
	return step(x, "gate:unit", "failed", mono_s(), "C02",
		    "'%s' is not a unit name systemd takes (letters, digits, ':', '_', '.', '-'; not first '-'): "
		    "rename the endpoint file",
		    x->ep->name);
}

/* C08 for the unit's own start command (zealot itself), the unit's user,
 * the runtime's version line. */
static int gate_unit(struct run *x)
{
	double t = mono_s();
	const char *z = x->o->zealot;

	char head[4] = {0};
	FILE *f = fopen(z, "rb");
	size_t got = f ? fread(head, 1, sizeof(head), f) : 0;
	if (f)
		fclose(f);
	if (z[0] != '/' || access(z, X_OK) != 0)
		return step(x, "gate:unit", "failed", t, "C08", "ExecStart '%s' is not an executable absolute path", z);
	int elf = got == 4 && memcmp(head, "\177ELF", 4) == 0, bang = got >= 2 && head[0] == '#' && head[1] == '!';
	if (!elf && !bang)
		return step(x, "gate:unit", "failed", t, "C08",
			    "ExecStart '%s' is neither a binary nor a #! script: a 203/EXEC boot loop", z);
	const char *user = endpoint_value(x->ep, K_USER);
	if (user && *user && !getpwnam(user))
		return step(x, "gate:unit", "failed", t, "C02", "USER '%s' is not a user on this host", user);
	x->runtime = path_which(endpoint_value(x->ep, K_RUNTIME));
	x->runtime_version = x->o->runtime_version ? x->o->runtime_version(x->ep, &x->sc, x->st) : NULL;
	if (!x->runtime_version)
		x->runtime_version = xstrdup("");
	char *rid = *x->runtime_version ? store_runtime_id(x->runtime_version) : NULL;
	int rc = step(x, "gate:unit", "ok", t, NULL, "ExecStart %s (%s, C08); User=%s; runtime %s build %s", z,
		      elf ? "ELF" : "#!", user && *user ? user : "root (sandboxed)", x->runtime ? x->runtime : "?",
		      rid && *rid ? rid : "unknown (no version line)");
	free(rid);
	return rc;
}

static int is_conf(const char *name)
{
	size_t n = strlen(name);
	return n > 5 && strcmp(name + n - 5, ".conf") == 0;
}

/* A01: any drop-in for the unit. zealot writes none: the endpoint file is
 * the authority, and a leftover drop-in once booted another payload while
 * /health said 200. The directories are read directly (a drop-in written
 * since the last daemon-reload would apply at the reload deploy does), and
 * systemd's own DropInPaths adds the type-wide ones it applies. */
static int gate_dropins(struct run *x)
{
	double t = mono_s();
	const char *roots[] = {x->o->unit_dir ? x->o->unit_dir : "/etc/systemd/system",
			       "/etc/systemd/system",
			       "/run/systemd/system",
			       "/usr/local/lib/systemd/system",
			       "/usr/lib/systemd/system",
			       "/lib/systemd/system"};
	struct sb found = {0};
	size_t n = 0;
	for (size_t i = 0; i < ARRAY_SIZE(roots); i++) {
		struct sb d = {0};
		sb_addf(&d, "%s/%s.d", roots[i], x->r->unit_name);
		char real[PATH_MAX];
		int dup = 0;
		if (realpath(d.s, real))
			for (size_t j = 0; j < i; j++) {
				struct sb e = {0};
				char r2[PATH_MAX];
				sb_addf(&e, "%s/%s.d", roots[j], x->r->unit_name);
				dup |= realpath(e.s, r2) && strcmp(r2, real) == 0;
				sb_release(&e);
			}
		DIR *dir = dup ? NULL : opendir(d.s);
		struct dirent *de;
		while (dir && (de = readdir(dir)))
			if (is_conf(de->d_name)) {
				sb_addf(&found, "%s%s/%s", n++ ? ", " : "", d.s, de->d_name);
			}
		if (dir)
			closedir(dir);
		sb_release(&d);
	}
	for (size_t i = 0; i < x->unit.n_dropins; i++)
		if (!strstr(found.s ? found.s : "", x->unit.dropins[i]))
			sb_addf(&found, "%s%s", n++ ? ", " : "", x->unit.dropins[i]);
	int rc;
	if (n)
		rc = step(x, "gate:drop-ins", "failed", t, "A01",
			  "%zu drop-in%s zealot did not write: %s (the endpoint file is the authority: a leftover "
			  "drop-in once booted another payload while /health said 200; move it away)",
			  n, n == 1 ? "" : "s", found.s);
	else
		rc = step(x, "gate:drop-ins", "ok", t, NULL, "none for %s", x->r->unit_name);
	sb_release(&found);
	return rc;
}

/* A02: the port must be free, or held by the unit's own MainPID (the era
 * this deploy replaces). Anything else is a leftover or hand-started engine
 * that would answer /health for a unit that failed. */
static int gate_port(struct run *x)
{
	double t = mono_s();
	pid_t l[16];
	size_t n = audit_listeners(x->port, l, 16);
	for (size_t i = 0; i < n; i++)
		if ((long)l[i] != x->unit.main_pid) {
			char *cmd = cmdline_of(l[i]);
			int rc = step(x, "gate:port", "failed", t, "A02",
				      "port %u is held by pid %ld (%s), not by %s's MainPID (%ld): a leftover or "
				      "hand-started engine; stop it by PID (kill %ld), never by name",
				      x->port, (long)l[i], cmd, x->r->unit_name, x->unit.main_pid, (long)l[i]);
			free(cmd);
			return rc;
		}
	char *host = host_of(x->http_base);
	int answers = port_answers(host, x->port);
	free(host);
	if (!n && answers)
		return step(x, "gate:port", "failed", t, "A02",
			    "port %u answers, but no process this host can see listens on it (another PID namespace "
			    "or a container): it would answer /health for the unit",
			    x->port);
	if (n)
		return step(x, "gate:port", "ok", t, NULL, "port %u held by %s's MainPID %ld (the era it replaces)",
			    x->port, x->r->unit_name, x->unit.main_pid);
	return step(x, "gate:port", "ok", t, NULL, "port %u free", x->port);
}

/* --- install, restart, verify --------------------------------------------- */

static int ctl(struct run *x, const char *verb, const char *unit, long ms, const char *name, double t)
{
	char *err = NULL;
	if (systemd_ctl(verb, unit, ms, &err))
		return failed(x, name, t, NULL, err, "systemctl failed");
	return 0;
}

static int install(struct run *x)
{
	double t = mono_s();
	char *err = NULL;
	x->installed = 1;
	if (install_write(x->r->env_path, x->env_text, strlen(x->env_text), 0644, &err) ||
	    install_write(x->r->unit_path, x->unit_text, strlen(x->unit_text), 0644, &err))
		return failed(x, "install", t, NULL, err, "cannot write the files");
	if (ctl(x, "daemon-reload", NULL, 120000, "install", t) ||
	    ctl(x, "enable", x->r->unit_name, 60000, "install", t))
		return -1;
	return step(x, "install", "ok", t, NULL, "%s, %s; daemon-reload; enabled", x->r->env_path, x->r->unit_path);
}

/* The journal of one start (its main process main_pid, 0 when unknown;
 * systemd_journal), read again every 50 ms until enough() says it
 * holds what the caller waits for, or `seconds` pass. journald takes a
 * unit's stderr from its stream apart from systemd's own messages, so the
 * engine's or serve's lines may land after the exit, and both may trail
 * the state systemctl reports. Returns the last text read, or NULL with
 * *err when none could be read. */
static char *journal_until(const struct run *x, const char *invocation, long main_pid, double seconds,
			   int (*enough)(const char *j, void *arg), void *arg, char **err)
{
	double t0 = mono_s();
	for (;;) {
		free(*err);
		*err = NULL;
		char *j = systemd_journal(invocation, x->r->unit_name, main_pid, err);
		if ((j && enough(j, arg)) || mono_s() - t0 >= seconds)
			return j;
		free(j);
		usleep(50000);
	}
}

/* A start's journal classified; enough once the cause is whole (a refusal
 * known only by its exit status is not: serve always says why). */
struct classified {
	int gpu;
	int found;
	struct cause c;
};

static int cause_whole(const char *j, void *arg)
{
	struct classified *k = arg;
	if (k->found)
		cause_release(&k->c);
	k->found = cause_classify(j, strlen(j), k->gpu, &k->c);
	return k->found && !k->c.partial;
}

/* Why a start failed, from its journal. */
static void explain_failure(struct run *x, const char *invocation, long main_pid, char *law_out, char **detail)
{
	struct classified k = {.gpu = x->gpu};
	char *err = NULL;
	char *j = invocation && *invocation ? journal_until(x, invocation, main_pid, 3.0, cause_whole, &k, &err) : NULL;
	free(err);
	const struct cause *c = &k.c;
	if (k.found) {
		struct sb b = {0};
		sb_addf(&b, "%s%s%s%s%s", c->what, c->term ? " (term: " : "", c->term ? c->term : "",
			c->term ? ")" : "", c->line ? "; the journal says: " : "");
		if (c->line)
			sb_adds(&b, c->line);
		if (c->fix)
			sb_addf(&b, "; fix: %s", c->fix);
		*detail = sb_detach(&b);
		snprintf(law_out, 8, "%s", c->law);
		if (!x->r->cause) /* the first failure's cause, not a restore's */
			x->r->cause = xstrdup(*detail);
		cause_release(&k.c);
	} else {
		*detail = xstrdup("the journal of this start names no cause");
	}
	free(j);
}

/* Wait for /health 200 from the start with this MainPID; the unit leaving
 * its running state (a refusal, a crash, a restart) ends the wait. */
static int wait_health(struct run *x, const char *name, long main_pid, const char *invocation, double t)
{
	struct http_client hc = {x->http_base, x->api_key, 2000};
	double deadline = mono_s() + (double)(x->o->boot_timeout_ms > 0 ? x->o->boot_timeout_ms : 300000) / 1000.0;
	long last_status = 0;
	while (mono_s() < deadline) {
		struct systemd_unit u;
		char *err = NULL;
		if (systemd_show(x->r->unit_name, &u, &err) == 0) {
			int gone = strcmp(u.active, "active") != 0 && strcmp(u.active, "activating") != 0 &&
				   strcmp(u.active, "reloading") != 0;
			int restarted = u.main_pid != main_pid || strcmp(u.invocation_id, invocation) != 0;
			if (gone || restarted || strcmp(u.sub, "auto-restart") == 0) {
				char law[8] = "", *why = NULL;
				/* the start's own process, unless systemd began another */
				explain_failure(x, invocation,
						strcmp(u.invocation_id, invocation) ? 0 : u.exec_main_pid, law, &why);
				step(x, name, "failed", t, law, "%s is %s/%s (%s, status %d)%s: %s", x->r->unit_name,
				     u.active, u.sub, u.result, u.exec_main_status,
				     restarted && !gone ? ", restarted by systemd" : "", why);
				free(why);
				systemd_unit_release(&u);
				return -1;
			}
			systemd_unit_release(&u);
		}
		free(err);
		struct http_response resp;
		if (http_request(&hc, "GET", "/health", NULL, &resp) == 0) {
			last_status = resp.status;
			http_response_release(&resp);
			if (last_status == 200)
				return step(x, name, "ok", t, NULL, "/health 200 after %.2f s", mono_s() - t);
		} else {
			http_response_release(&resp);
		}
		usleep(100000);
	}
	return step(x, name, "failed", t, NULL, "/health did not answer 200 within %.0f s (last: %ld)", mono_s() - t,
		    last_status);
}

static int restart(struct run *x, const char *name, double t)
{
	char *err = NULL;
	/* A deliberate start is not a crash loop: clear the unit's failed state
	 * and its start-limit counter first, or a fifth start within
	 * StartLimitIntervalSec (arm's stop, boot and restore, a deploy just
	 * before) is refused with start-limit-hit and nothing restored. */
	systemd_ctl("reset-failed", x->r->unit_name, 60000, NULL);
	if (systemd_ctl("restart", x->r->unit_name, 300000, &err)) {
		struct systemd_unit u;
		char *e2 = NULL;
		char law[8] = "", *why = NULL;
		if (systemd_show(x->r->unit_name, &u, &e2) == 0) {
			explain_failure(x, u.invocation_id, u.exec_main_pid, law, &why);
			systemd_unit_release(&u);
		}
		free(e2);
		step(x, name, "failed", t, law, "%s%s%s", err, why ? ": " : "", why ? why : "");
		free(why);
		free(err);
		return -1;
	}
	systemd_unit_release(&x->unit);
	if (systemd_show(x->r->unit_name, &x->unit, &err))
		return failed(x, name, t, NULL, err, "systemctl show failed");
	x->r->main_pid = x->unit.main_pid;
	snprintf(x->r->invocation_id, sizeof(x->r->invocation_id), "%s", x->unit.invocation_id);
	return step(x, name, "ok", t, NULL, "MainPID %ld, invocation %s", x->unit.main_pid, x->unit.invocation_id);
}

/* A02: the port is answered by MainPID alone. */
static int verify_mainpid(struct run *x, const char *name, long main_pid)
{
	double t = mono_s();
	pid_t l[16];
	size_t n = audit_listeners(x->port, l, 16);
	struct sb who = {0};
	int other = 0, mine = 0;
	for (size_t i = 0; i < n; i++) {
		sb_addf(&who, "%s%ld", i ? ", " : "", (long)l[i]);
		other |= (long)l[i] != main_pid;
		mine |= (long)l[i] == main_pid;
	}
	int rc;
	if (other || !mine)
		rc = step(x, name, "failed", t, "A02",
			  "port %u is answered by %s, not by %s's MainPID %ld alone: a leftover engine answers",
			  x->port, n ? who.s : "no process this host can see", x->r->unit_name, main_pid);
	else
		rc = step(x, name, "ok", t, NULL, "port %u answered by MainPID %ld alone", x->port, main_pid);
	sb_release(&who);
	return rc;
}

/* A01: the live command line is exactly the intended argv. */
static int verify_cmdline(struct run *x, const char *name, long main_pid, char *const *want, size_t n_want)
{
	double t = mono_s();
	size_t n = 0;
	char **live = audit_read_vector((pid_t)main_pid, "cmdline", &n);
	int rc;
	if (!live)
		rc = step(x, name, "failed", t, "A01", "cannot read /proc/%ld/cmdline", main_pid);
	else {
		size_t i = 0;
		while (i < n && i < n_want && strcmp(live[i], want[i]) == 0)
			i++;
		if (i == n && i == n_want)
			rc = step(x, name, "ok", t, NULL, "/proc/%ld/cmdline = zealot argv (%zu arguments)", main_pid,
				  n);
		else
			rc =
			    step(x, name, "failed", t, "A01",
				 "/proc/%ld/cmdline differs from zealot argv at argument %zu: intended '%s', live '%s'",
				 main_pid, i, i < n_want ? want[i] : "(end)", i < n ? live[i] : "(end)");
	}
	audit_free_vector(live, n);
	return rc;
}

/* The engine has logged past its buffers (they come before these lines). */
static int ledger_logged(const char *j, void *arg)
{
	(void)arg;
	return strstr(j, "model loaded") || strstr(j, "listening on");
}

/* The boot ledger of this start, from the journal, against the plan. */
static int verify_ledger(struct run *x)
{
	double t = mono_s();
	char *err = NULL;
	char *j = journal_until(x, x->unit.invocation_id, x->unit.main_pid, 10.0, ledger_logged, NULL, &err);
	if (!j) {
		int rc = step(x, "ledger", "failed", t, "C05", "cannot read the journal of this start: %s", err);
		free(err);
		return rc;
	}
	free(err);
	x->ledger = xcalloc(1, sizeof(*x->ledger));
	ledger_parse(j, strlen(j), x->ledger);
	struct cause c;
	int m10 = x->gpu && cause_classify(j, strlen(j), 1, &c) && strcmp(c.law, "M10") == 0;
	if (m10) {
		int rc = step(x, "ledger", "failed", t, "M10", "%s: %s", c.what, c.line ? c.line : "");
		cause_release(&c);
		free(j);
		return rc;
	}
	if (x->gpu)
		cause_release(&c);
	free(j);
	if (x->ledger->recognised == 0 || !x->ledger->target.present)
		return step(x, "ledger", "failed", t, "C05",
			    "the journal of this start holds no boot ledger (VERBOSITY must be 4 to prove the sizes)");
	struct ledger_comparison lc;
	ledger_compare(&x->plan, x->ledger, &lc);
	size_t exact = 0;
	double worst = 0;
	for (size_t i = 0; i < lc.n; i++) {
		exact += lc.v[i].exact;
		if (!lc.v[i].exact && lc.v[i].ledger != 0 && fabs(lc.v[i].error_pct) > worst)
			worst = fabs(lc.v[i].error_pct);
	}
	int rc;
	if (lc.diverged) {
		char *s = ledger_comparison_summary(&lc, 4);
		rc = step(x, "ledger", "failed", t, "A01",
			  "the boot ledger differs from the plan on an exact term: %s (the engine booted another shape "
			  "than the one gated)",
			  s);
		free(s);
	} else {
		rc = step(x, "ledger", "ok", t, NULL,
			  "every exact term matches the plan (%zu exact rows; modelled terms within %.2f %%)", exact,
			  worst);
	}
	ledger_comparison_release(&lc);
	return rc;
}

static int verify_probes(struct run *x)
{
	double t = mono_s();
	struct http_client hc = {x->http_base, x->api_key, 120000};
	struct probe_expect e;
	char *err = NULL;
	if (probe_expect_load(x->ep, &x->sc, &x->plan, &e, &err)) {
		int rc = step(x, "probes", "failed", t, "S12", "%s", err);
		free(err);
		return rc;
	}
	/* the previous era's answers: the same prompts are asked, each change named */
	char *base = NULL;
	if (x->have_prev && store_baseline_get(x->st, x->prev.id, &base, NULL, &err) < 0) {
		warn(x, "era %lld's baseline: %s", (long long)x->prev.id, err);
		free(err);
		err = NULL;
	}
	probe_expect_baseline(&e, base);
	char *only = probe_only_expected(x->o->probes, &e);
	probe_run(&hc, &e, only, &x->probes);
	free(only);
	probe_expect_release(&e);
	struct sb ch = {0};
	if (base && probe_compare(base, &x->probes, &ch) == 0)
		sb_adds(&ch, "the same answers");
	free(base);
	char against[48] = "";
	if (ch.len)
		snprintf(against, sizeof(against), "; against era %lld: ", (long long)x->prev.id);
	size_t pass = 0, fail = 0, skip = 0;
	const struct probe_result *first = NULL;
	for (size_t i = 0; i < x->probes.n; i++) {
		const struct probe_result *p = &x->probes.v[i];
		pass += p->status == PROBE_PASS;
		skip += p->status != PROBE_PASS && !probe_failed(p);
		if (probe_failed(p) && !fail++)
			first = p;
	}
	int rc;
	if (first)
		rc = step(x, "probes", "failed", t, first->law, "%zu of %zu probes failed; %s: %s%s%s", fail,
			  x->probes.n, first->name, first->evidence, against, ch.len ? ch.s : "");
	else
		rc =
		    step(x, "probes", "ok", t, NULL, "%zu pass, %zu skip%s%s", pass, skip, against, ch.len ? ch.s : "");
	sb_release(&ch);
	return rc;
}

static char *probes_json(const struct probe_results *r)
{
	return probe_results_json(r);
}

static int64_t settled_used_mib(int gpu)
{
	if (!gpu)
		return -1;
	const char *argv[] = {"nvidia-smi", "--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", "0",
			      NULL};
	struct proc_result r;
	char *err = NULL;
	int64_t v = -1;
	if (proc_run(argv, 20000, 4096, &r, &err) == 0) {
		if (r.status == 0 && r.out.len)
			v = strtoll(r.out.s, NULL, 10);
		proc_result_release(&r);
	}
	free(err);
	return v;
}

/* A boot row's figures this run measured: the runtime's version, the
 * device, the payload, the ledger and probes (their JSON allocated: the
 * caller frees b->ledger_json and b->probes_json), the plan, the settled
 * memory. */
static void boot_measured(struct run *x, struct store_boot *b, char *plan_json)
{
	b->runtime_version = x->runtime_version;
	b->device = (char *)x->plan.device->name;
	b->payload_sha256 = x->model_sha;
	b->payload_bytes = x->model_bytes;
	b->ledger_json = x->o->ledger_json ? x->o->ledger_json(x->ledger) : NULL;
	b->plan_json = plan_json;
	b->settled_used_mib = settled_used_mib(x->gpu);
	b->probes_json = probes_json(&x->probes);
}

static int record(struct run *x)
{
	double t = mono_s();
	char sha[65];
	sha256_hex(x->env_text, strlen(x->env_text), sha);
	json_t *av = json_array();
	for (size_t i = 0; i < x->argv.n; i++)
		json_array_append_new(av, json_string(x->argv.v[i]));
	char *argv_json = json_dumps(av, JSON_COMPACT);
	json_decref(av);
	char *plan_json = x->o->plan_json ? x->o->plan_json(x->ep, &x->sc, &x->plan_model) : NULL;
	struct store_era e = {0};
	e.endpoint = x->name;
	e.endpoint_path = x->r->env_path;
	e.env_text = x->env_text;
	e.env_sha256 = sha;
	e.pins_json = x->pins_json;
	e.runtime = x->runtime ? x->runtime : (char *)endpoint_value(x->ep, K_RUNTIME);
	e.runtime_version = x->runtime_version;
	e.argv_json = argv_json;
	e.plan_json = plan_json;
	e.unit_text = x->unit_text;
	e.unit_name = x->r->unit_name;
	e.reason = x->reason;
	e.started = (int64_t)time(NULL);
	char *err = NULL;
	int rc = 0;
	if (store_era_add(x->st, &e, &err)) {
		rc = step(x, "record", "failed", t, NULL, "%s", err);
		goto done;
	}
	x->r->era = e.id;
	struct store_boot b = {0};
	b.era_id = e.id;
	b.endpoint = x->name;
	b.at = (int64_t)time(NULL);
	b.source = "deploy";
	b.runtime = e.runtime;
	boot_measured(x, &b, plan_json);
	int brc = store_boot_add(x->st, &b, &err);
	x->r->boot = b.id;
	free(b.ledger_json);
	free(b.probes_json);
	if (x->o->prom_file) {
		struct promfile pf = {x->name, &x->plan, x->ledger, b.settled_used_mib, e.id, &x->probes};
		char *text = promfile_text(&pf), *perr = NULL;
		if (promfile_write(x->o->prom_file, text, &perr))
			warn(x, "the textfile metrics: %s", perr);
		free(perr);
		free(text);
	}
	if (brc) /* the era is current and serves: a missing boot row is said, not undone */
		rc = step(x, "record", "warning", t, NULL, "era %lld recorded; its boot was not: %s", (long long)e.id,
			  err);
	else
		rc = step(x, "record", "ok", t, NULL, "era %lld, boot %lld", (long long)e.id, (long long)b.id);
done:
	free(err);
	free(argv_json);
	free(plan_json);
	return rc;
}

/* --- restore -------------------------------------------------------------- */

/* What the host is in, for a person to act on. */
static char *host_state(struct run *x)
{
	struct sb b = {0};
	struct systemd_unit u;
	char *err = NULL;
	if (systemd_show(x->r->unit_name, &u, &err) == 0) {
		sb_addf(&b, "%s is %s/%s (result %s, status %d), MainPID %ld", x->r->unit_name, u.active, u.sub,
			u.result, u.exec_main_status, u.main_pid);
		systemd_unit_release(&u);
	} else {
		sb_addf(&b, "%s: state unknown (%s)", x->r->unit_name, err);
	}
	free(err);
	pid_t l[16];
	size_t n = audit_listeners(x->port, l, 16);
	if (!n)
		sb_addf(&b, "; nothing this host can see listens on port %u", x->port);
	for (size_t i = 0; i < n; i++) {
		char *c = cmdline_of(l[i]);
		sb_addf(&b, "; port %u: pid %ld (%s)", x->port, (long)l[i], c);
		free(c);
	}
	size_t ul = 0;
	char *unit = install_read(x->r->unit_path, &ul, NULL);
	if (!unit)
		sb_addf(&b, "; %s is absent", x->r->unit_path);
	else if (x->have_prev && x->prev.unit_text && strcmp(unit, x->prev.unit_text) == 0)
		sb_addf(&b, "; %s is era %lld's", x->r->unit_path, (long long)x->prev.id);
	else if (strcmp(unit, x->unit_text ? x->unit_text : "") == 0)
		sb_addf(&b, "; %s is the failed attempt's", x->r->unit_path);
	else
		sb_addf(&b, "; %s is neither era's", x->r->unit_path);
	free(unit);
	return sb_detach(&b);
}

static int restore_files(struct run *x, double t)
{
	char *err = NULL;
	int bad = 0;
	if (x->have_prev) {
		const char *envp =
		    x->prev.endpoint_path && *x->prev.endpoint_path ? x->prev.endpoint_path : x->r->env_path;
		bad = install_write(envp, x->prev.env_text, strlen(x->prev.env_text), 0644, &err) ||
		      install_write(x->r->unit_path, x->prev.unit_text, strlen(x->prev.unit_text), 0644, &err);
		if (!bad && strcmp(envp, x->r->env_path) != 0)
			bad = install_remove(x->r->env_path, &err);
	} else {
		bad = (x->old_env ? install_write(x->r->env_path, x->old_env, x->old_env_len, 0644, &err)
				  : install_remove(x->r->env_path, &err)) ||
		      (x->old_unit ? install_write(x->r->unit_path, x->old_unit, x->old_unit_len, 0644, &err)
				   : install_remove(x->r->unit_path, &err));
	}
	if (bad)
		return failed(x, "restore", t, NULL, err, "cannot restore the files");
	if (ctl(x, "daemon-reload", NULL, 120000, "restore", t))
		return -1;
	if (x->have_prev)
		return step(x, "restore", "ok", t, NULL, "era %lld's %s and %s back; daemon-reload",
			    (long long)x->prev.id, x->r->env_path, x->r->unit_path);
	return step(x, "restore", "ok", t, NULL, "the files from before this first deploy %s; daemon-reload",
		    x->old_unit || x->old_env ? "back" : "removed");
}

/* A `stop` that failed may still leave nothing running: a unit that is
 * not loaded (its engine exited at once and systemd forgot it), or one
 * that is inactive or failed with no main process. Returns 1 then. */
static int nothing_runs(const char *unit)
{
	struct systemd_unit u;
	char *err = NULL;
	int none = 0;
	if (systemd_show(unit, &u, &err) == 0) {
		none = u.main_pid == 0 && (strcmp(u.load, "loaded") != 0 || strcmp(u.active, "inactive") == 0 ||
					   strcmp(u.active, "failed") == 0);
		systemd_unit_release(&u);
	}
	free(err);
	return none;
}

static int restore(struct run *x)
{
	double t = mono_s();
	if (!x->have_prev && !x->was_active) {
		/* a first deploy: nothing served before, nothing serves after.
		 * Stop while its unit file is still there; then a stop that
		 * fails is a failure only if something still runs. */
		char *err = NULL;
		systemd_ctl("disable", x->r->unit_name, 60000, &err);
		free(err);
		err = NULL;
		if (systemd_ctl("stop", x->r->unit_name, 300000, &err) && !nothing_runs(x->r->unit_name))
			return failed(x, "restore:stop", t, NULL, err, "systemctl stop failed");
		free(err);
		if (restore_files(x, mono_s()))
			return -1;
		fault_point("restore", "after-files");
		systemd_ctl("reset-failed", x->r->unit_name, 60000, NULL);
		return step(x, "restore:stop", "ok", t, NULL, "%s stopped and disabled (it did not serve before)",
			    x->r->unit_name);
	}
	if (restore_files(x, t))
		return -1;
	fault_point("restore", "after-files");
	t = mono_s();
	if (restart(x, "restore:restart", t))
		return -1;
	fault_point("restore", "after-restart");
	long pid = x->unit.main_pid;
	char inv[40];
	memcpy(inv, x->unit.invocation_id, sizeof(inv));
	inv[sizeof(inv) - 1] = '\0';
	if (wait_health(x, "restore:health", pid, inv, mono_s()) || verify_mainpid(x, "restore:mainpid", pid))
		return -1;
	if (x->have_prev && x->prev.argv_json) {
		json_t *a = json_loads(x->prev.argv_json, 0, NULL);
		size_t n = json_is_array(a) ? json_array_size(a) : 0;
		char **v = xcalloc(n + 1, sizeof(*v));
		for (size_t i = 0; i < n; i++)
			v[i] = (char *)json_string_value(json_array_get(a, i));
		int rc = verify_cmdline(x, "restore:cmdline", pid, v, n);
		free(v);
		json_decref(a);
		if (rc)
			return -1;
	}
	return 0;
}

/* --- restore (the kind): the era's own files, a boot row ------------------ */

/* The installed endpoint file and unit are the current era's: a restore
 * starts them as they are and writes nothing. */
static int same_files(struct run *x)
{
	double t = mono_s();
	const char *envp = x->prev.endpoint_path && *x->prev.endpoint_path ? x->prev.endpoint_path : x->r->env_path;
	size_t el = 0, ul = 0;
	char *env = install_read(envp, &el, NULL), *unit = install_read(x->r->unit_path, &ul, NULL);
	int rc;
	if (!env || strcmp(env, x->prev.env_text ? x->prev.env_text : "") != 0)
		rc = step(x, "gate:files", "failed", t, "A01", "%s is %s era %lld's: restore writes nothing", envp,
			  env ? "not" : "absent, not", (long long)x->prev.id);
	else if (!unit || strcmp(unit, x->prev.unit_text ? x->prev.unit_text : "") != 0)
		rc = step(x, "gate:files", "failed", t, "A01", "%s is %s era %lld's: restore writes nothing",
			  x->r->unit_path, unit ? "not" : "absent, not", (long long)x->prev.id);
	else
		rc = step(x, "gate:files", "ok", t, NULL, "%s and %s are era %lld's, untouched", envp, x->r->unit_path,
			  (long long)x->prev.id);
	free(env);
	free(unit);
	return rc;
}

/* A boot of the current era: its ledger, probes and the bench figures. */
static int record_boot(struct run *x)
{
	double t = mono_s();
	char *plan_json = x->o->plan_json ? x->o->plan_json(x->ep, &x->sc, &x->plan_model) : NULL;
	struct store_boot b = {0};
	b.era_id = x->prev.id;
	b.endpoint = x->name;
	b.at = (int64_t)time(NULL);
	b.source = (char *)(x->o->boot_source ? x->o->boot_source : "restore");
	b.runtime = x->runtime ? x->runtime : (char *)endpoint_value(x->ep, K_RUNTIME);
	boot_measured(x, &b, plan_json);
	b.bench_json = (char *)x->o->bench_json;
	char *err = NULL;
	x->r->era = x->prev.id;
	int rc;
	if (store_boot_add(x->st, &b, &err)) /* it serves, verified: a missing row is said, not undone */
		rc = step(x, "record", "warning", t, NULL, "era %lld serves; its boot was not recorded: %s",
			  (long long)x->prev.id, err);
	else
		rc = step(x, "record", "ok", t, NULL, "era %lld, boot %lld%s", (long long)x->prev.id, (long long)b.id,
			  b.bench_json ? " (with its bench figures)" : "");
	x->r->boot = b.id;
	free(b.ledger_json);
	free(b.probes_json);
	free(plan_json);
	free(err);
	return rc;
}

/* What a killed `zealot arm` left: its transient unit on the port, its
 * endpoint file. A stopped production is the restart's to bring back. */
static void clean_arm(struct run *x)
{
	double t = mono_s();
	char *said = NULL, *err = NULL;
	int got = deploy_clean_arm(x->name, NULL, &said, &err);
	if (got > 0) {
		step(x, "clean:arm", "ok", t, NULL, "%s", said);
		warn(x, "a zealot arm left %s: cleaned", said);
	}
	/* got < 0: systemd could not be asked about it; the gates that follow
	 * (the unit, the port) ask again and say so */
	free(said);
	free(err);
}

int deploy_clean_arm(const char *name, const char *run_dir, char **said, char **err)
{
	struct sb unit = {0}, path = {0}, what = {0};
	sb_addf(&unit, ARM_UNIT_PREFIX "%s.service", name);
	sb_addf(&path, "%s/%s.env", run_dir ? run_dir : "/run/zealot/arm", name);
	struct systemd_unit u;
	int rc = 0;
	if (systemd_show(unit.s, &u, err) == 0) {
		int there = strcmp(u.load, "loaded") == 0 &&
			    (strcmp(u.active, "inactive") != 0 || strcmp(u.sub, "dead") != 0 || u.main_pid);
		int failed_unit = strcmp(u.active, "failed") == 0;
		if (there && !failed_unit) {
			if (systemd_ctl("stop", unit.s, 300000, err) && !nothing_runs(unit.s))
				rc = -1;
			else
				sb_addf(&what, "the transient unit %s (%s/%s, MainPID %ld), stopped", unit.s, u.active,
					u.sub, u.main_pid);
		}
		if (rc == 0 && (there || failed_unit)) {
			systemd_ctl("reset-failed", unit.s, 60000, NULL);
			if (!what.len)
				sb_addf(&what, "the transient unit %s (%s), reset", unit.s, u.active);
		}
		systemd_unit_release(&u);
	} else {
		rc = -1;
	}
	struct stat sb;
	if (rc == 0 && stat(path.s, &sb) == 0) {
		if (install_remove(path.s, err))
			rc = -1;
		else
			sb_addf(&what, "%sthe arm's endpoint file %s, removed", what.len ? "; " : "", path.s);
	}
	if (rc == 0 && what.len) {
		rc = 1;
		*said = sb_detach(&what);
	}
	sb_release(&what);
	sb_release(&unit);
	sb_release(&path);
	return rc;
}

/* --- the attempt ---------------------------------------------------------- */

static int load_shape(struct run *x)
{
	double t = mono_s();
	char *err = NULL;
	size_t len = 0;
	char *src = NULL;
	if (x->have_target) {
		src = xstrdup(x->target.env_text ? x->target.env_text : "");
		len = strlen(src);
	} else {
		src = install_read(x->src_path, &len, &err);
		if (!src) {
			int rc = err ? step(x, "gate:laws", "failed", t, "C03", "%s", err)
				     : step(x, "gate:laws", "failed", t, "C03", "cannot read '%s': %s", x->src_path,
					    strerror(ENOENT));
			free(err);
			return rc;
		}
	}
	/* paths made absolute against the source's directory, then everything
	 * (laws, plan, argv, unit) is read from exactly the text installed */
	struct endpoint *src_ep = endpoint_parse(src, len, x->src_path, &err);
	if (!src_ep) {
		free(src);
		/* an engine variable (LLAMA_ARG_*) is the gated-flag law's */
		return failed(x, "gate:laws", t, err && strstr(err, "(law C09)") ? "C09" : "C01", err,
			      "the endpoint does not parse");
	}
	x->env_text = install_env_text(src_ep, src, len);
	endpoint_free(src_ep);
	free(src);
	x->ep = endpoint_parse(x->env_text, strlen(x->env_text), x->src_path, &err);
	struct endpoint_gate g;
	if (x->ep && endpoint_gated_extra(x->ep, &g, 1)) {
		errorf(&err, "%s: EXTRA_ARGS names %s, a flag %s owns (law C09)", x->src_path, g.word, g.owner->name);
		return failed(x, "gate:laws", t, "C09", err, "EXTRA_ARGS names a flag a key owns");
	}
	if (!x->ep || argv_render(x->ep, &x->argv, &err))
		return failed(x, "gate:laws", t, "C02", err, "the argv does not render");
	uint64_t port = 0;
	if (endpoint_uint(x->ep, K_LISTEN_PORT, &port, &err) || port == 0 || port > 65535)
		return failed(x, "gate:laws", t, "C02", err, "LISTEN_PORT is not a port");
	x->port = (unsigned)port;
	x->http_base = deploy_http_base(x->ep, x->port);
	char *kf = endpoint_path(x->ep, K_API_KEY_FILE);
	if (kf) {
		x->api_key = endpoint_read_key(kf);
		free(kf);
	}
	return 0;
}

static void alias_change(struct run *x)
{
	if (!x->have_prev || !x->prev.env_text)
		return;
	char *err = NULL;
	struct endpoint *old = endpoint_parse(x->prev.env_text, strlen(x->prev.env_text), x->r->env_path, &err);
	free(err);
	if (!old)
		return;
	const char *a = endpoint_value(old, K_ALIAS), *b = endpoint_value(x->ep, K_ALIAS);
	if (a && b && strcmp(a, b) != 0)
		warn(x,
		     "C06: the alias changes from '%s' (era %lld) to '%s': the engine echoes any id, so clients keyed "
		     "on '%s' break silently; update them",
		     a, (long long)x->prev.id, b, a);
	endpoint_free(old);
}

/* Attempts that never ended and whose process no longer holds the lock
 * were cut short (a kill -9, a crash, a reboot). Read before taking the
 * lock, which marks them interrupted for good. */
static void interrupted_before(struct run *x)
{
	struct store_attempt *v = NULL;
	size_t n = 0;
	char *err = NULL;
	if (store_attempt_list(x->st, x->name, &v, &n, &err) == 0)
		for (size_t i = 0; i < n; i++)
			if (v[i].outcome && strcmp(v[i].outcome, "interrupted") == 0 && v[i].ended == 0)
				warn(x,
				     "attempt %lld (%s, pid %lld) was interrupted%s%s: the installed files may be its; "
				     "this %s rewrites them",
				     (long long)v[i].id, v[i].kind, (long long)v[i].pid,
				     v[i].n_steps ? " after step " : "",
				     v[i].n_steps ? v[i].steps[v[i].n_steps - 1].step : "", x->o->kind);
	free(err);
	store_attempts_free(v, n);
}

static enum deploy_outcome finish(struct run *x, enum deploy_outcome oc)
{
	x->r->outcome = oc;
	x->r->seconds = mono_s() - x->t0;
	if (x->r->attempt > 0) {
		char *err = NULL;
		int restore = strcmp(x->o->kind, "restore") == 0;
		store_attempt_end(x->st, x->r->attempt,
				  restore && oc == DEPLOY_DEPLOYED ? "restored" : deploy_outcome_name(oc),
				  oc == DEPLOY_DEPLOYED ? x->r->era : 0, &err);
		free(err);
	}
	return oc;
}

static enum deploy_outcome failed_after_install(struct run *x)
{
	if (strcmp(x->o->kind, "restore") == 0) {
		/* the era itself is what failed: there is nothing older to put back */
		x->r->host_state = host_state(x);
		return finish(x, DEPLOY_ROLLBACK_FAILED);
	}
	if (!x->installed)
		return finish(x, DEPLOY_REFUSED);
	if (restore(x) == 0)
		return finish(x, x->have_prev || x->was_active ? DEPLOY_ROLLED_BACK : DEPLOY_FAILED);
	x->r->host_state = host_state(x);
	return finish(x, DEPLOY_ROLLBACK_FAILED);
}

/* The era's whole endpoint file, its secret values included (the store
 * keeps them apart from its text): from the store's secrets, else from the
 * installed file when that is the era's. 0, or -1 with the gate failed. */
static int era_secrets(struct run *x, struct store_era *e, double t)
{
	const char *envp = e->endpoint_path && *e->endpoint_path ? e->endpoint_path : x->r->env_path;
	size_t len = 0;
	char *err = NULL, *live = install_read(envp, &len, NULL);
	int rc = store_era_secrets(x->st, e, live && strlen(live) == len ? live : NULL, &err);
	free(live);
	if (rc)
		step(x, "gate:era", "failed", t, NULL, "%s", err);
	free(err);
	return rc;
}

/* The endpoint's current era, the one a failed deploy restores (its
 * secrets at hand). 0, or -1 with *oc the outcome. */
static int current_era(struct run *x, double t, enum deploy_outcome *oc)
{
	char *err = NULL;
	int got = store_era_get(x->st, x->name, 0, &x->prev, &err);
	if (got < 0) {
		step(x, "gate:era", "failed", t, NULL, "%s", err);
		free(err);
		*oc = finish(x, DEPLOY_ERROR);
		return -1;
	}
	x->have_prev = got == 0;
	x->r->previous_era = x->have_prev ? x->prev.id : 0;
	if (x->have_prev && era_secrets(x, &x->prev, t)) {
		*oc = finish(x, DEPLOY_REFUSED);
		return -1;
	}
	return 0;
}

/* A rollback's era: the one named, else the one before the current one;
 * its file is what deploys. 0, or -1 with *oc the outcome. */
static int target_era(struct run *x, double t, enum deploy_outcome *oc)
{
	int64_t want = x->o->era ? x->o->era : strcmp(x->o->kind, "restore") == 0 ? 0 : -1;
	char *err = NULL;
	int got = store_era_get(x->st, x->name, want, &x->target, &err);
	if (got != 0 || (x->o->era && x->target.endpoint && strcmp(x->target.endpoint, x->name) != 0)) {
		if (got < 0)
			step(x, "gate:era", "failed", t, NULL, "%s", err);
		else if (want == -1)
			step(x, "gate:era", "failed", t, NULL, "%s has no era before the current one%s", x->name,
			     x->have_prev ? "" : " (it has never been deployed)");
		else
			step(x, "gate:era", "failed", t, NULL, "%s has no era %lld (zealot history %s)", x->name,
			     (long long)want, x->name);
		*oc = finish(x, got < 0 ? DEPLOY_ERROR : DEPLOY_REFUSED);
		free(err);
		return -1;
	}
	if (era_secrets(x, &x->target, t)) {
		*oc = finish(x, DEPLOY_REFUSED);
		return -1;
	}
	x->have_target = 1;
	if (!x->o->reason) {
		free(x->reason);
		struct sb rs = {0};
		sb_addf(&rs, "%s era %lld", strcmp(x->o->kind, "restore") == 0 ? "restore" : "rollback to",
			(long long)x->target.id);
		x->reason = sb_detach(&rs);
	}
	x->src_path = xstrdup(x->target.endpoint_path ? x->target.endpoint_path : x->r->env_path);
	step(x, "gate:era", "ok", t, NULL, "era %lld (%s), current: %s", (long long)x->target.id,
	     x->target.reason ? x->target.reason : "", x->have_prev ? "" : "none");
	if (x->have_prev && x->prev.id == x->target.id)
		warn(x, "era %lld is the current era: this redeploys it", (long long)x->target.id);
	free(err);
	return 0;
}

static void run_release(struct run *x)
{
	if (x->o->lock_fd <= 0)
		store_unlock(x->lock_fd);
	free(x->name);
	free(x->reason);
	free(x->src_path);
	free(x->env_text);
	endpoint_free(x->ep);
	shape_release(&x->sc);
	argv_release(&x->argv);
	free(x->unit_text);
	free(x->pins_json);
	free(x->runtime);
	free(x->runtime_version);
	free(x->http_base);
	free(x->api_key);
	store_era_release(&x->prev);
	store_era_release(&x->target);
	free(x->old_unit);
	free(x->old_env);
	systemd_unit_release(&x->unit);
	free(x->ledger);
	probe_results_release(&x->probes);
}

/* The endpoint's name, its unit's name and path, its installed file's. */
static void name_paths(struct run *x, int rollback)
{
	const struct deploy_opts *o = x->o;
	struct deploy_result *r = x->r;
	if (rollback) {
		x->name = deploy_endpoint_name(o->endpoint_path);
	} else {
		char *abs = realpath(o->endpoint_path, NULL);
		x->src_path = abs ? abs : xstrdup(o->endpoint_path);
		x->name = deploy_endpoint_name(x->src_path);
	}
	r->endpoint = xstrdup(x->name);
	struct sb p = {0};
	sb_addf(&p, "%s.service", x->name);
	r->unit_name = sb_detach(&p);
	sb_addf(&p, "%s/%s", o->unit_dir ? o->unit_dir : "/etc/systemd/system", r->unit_name);
	r->unit_path = sb_detach(&p);
	sb_addf(&p, "%s/%s.env", o->env_dir ? o->env_dir : "/etc/zealot", x->name);
	r->env_path = sb_detach(&p);
}

enum deploy_outcome deploy_run(struct store *st, const struct deploy_opts *o, struct deploy_result *r)
{
	memset(r, 0, sizeof(*r));
	struct run xs = {0}, *x = &xs;
	x->st = st;
	x->o = o;
	x->r = r;
	x->lock_fd = -1;
	x->t0 = mono_s();
	enum deploy_outcome oc = DEPLOY_ERROR;
	int restore = strcmp(o->kind, "restore") == 0;
	int rollback = restore || strcmp(o->kind, "rollback") == 0; /* both bring back a recorded era */
	const char *fa = restore ? "arm-restore" : rollback ? "rollback" : "deploy"; /* the fault points' area */
	char *err = NULL;

	name_paths(x, rollback);

	double t = mono_s();
	if (store_name_ok(x->name, &err)) {
		step(x, "lock", "failed", t, "C01", "%s", err);
		oc = finish(x, DEPLOY_REFUSED);
		goto out;
	}
	interrupted_before(x);
	x->lock_fd = o->lock_fd > 0 ? o->lock_fd : store_lock(st, x->name, &err);
	x->reason = xstrdup(o->reason ? o->reason : o->kind);
	r->attempt = store_attempt_begin(st, x->name, o->kind, x->reason, NULL);
	if (x->lock_fd < 0) {
		step(x, "lock", "failed", t, NULL, "%s", err);
		oc = finish(x, DEPLOY_REFUSED);
		goto out;
	}
	step(x, "lock", "ok", t, NULL, "%s held by pid %ld", x->name, (long)getpid());
	fault_point(fa, "after-lock");
	clean_arm(x);

	t = mono_s();
	if (current_era(x, t, &oc) || (rollback && target_era(x, t, &oc)))
		goto out;

	/* gates: nothing is changed until every one has passed */
	if (load_shape(x) || gate_name(x) || gate_laws(x) || gate_pins(x) || gate_fit(x)) {
		oc = finish(x, DEPLOY_REFUSED);
		goto out;
	}
	t = mono_s();
	if (systemd_show(r->unit_name, &x->unit, &err)) {
		step(x, "gate:unit", "failed", t, NULL, "cannot ask systemd about %s: %s", r->unit_name, err);
		oc = finish(x, DEPLOY_ERROR);
		goto out;
	}
	x->was_active = strcmp(x->unit.active, "active") == 0;
	x->old_main_pid = x->unit.main_pid;
	if (gate_unit(x) || gate_dropins(x) || gate_port(x)) {
		oc = finish(x, DEPLOY_REFUSED);
		goto out;
	}
	alias_change(x);
	fault_point(fa, "after-gates");

	if (restore) {
		if (same_files(x) || restart(x, "restart", mono_s())) {
			oc = failed_after_install(x);
			goto out;
		}
		goto started;
	}
	/* install */
	x->old_unit = install_read(r->unit_path, &x->old_unit_len, NULL);
	x->old_env = install_read(r->env_path, &x->old_env_len, NULL);
	x->unit_text = emit_unit(x->ep, o->zealot, r->env_path, NULL);
	if (install(x)) {
		oc = failed_after_install(x);
		goto out;
	}
	fault_point(fa, "after-install");
	t = mono_s();
	if (restart(x, "restart", t)) {
		oc = failed_after_install(x);
		goto out;
	}
started:
	fault_point(fa, "after-restart");
	long pid = x->unit.main_pid;
	char inv[40];
	memcpy(inv, x->unit.invocation_id, sizeof(inv));
	inv[sizeof(inv) - 1] = '\0';
	if (wait_health(x, "health", pid, inv, mono_s()) || verify_mainpid(x, "mainpid", pid) ||
	    verify_cmdline(x, "cmdline", pid, x->argv.v, x->argv.n) || verify_ledger(x) || verify_probes(x)) {
		oc = failed_after_install(x);
		goto out;
	}
	fault_point(fa, "after-verify");
	if (restore ? record_boot(x) : record(x)) {
		/* it serves, verified, but the store could not say so: the files
		 * stay (restoring would take down a good engine); the next deploy
		 * sees an era behind the files */
		oc = finish(x, DEPLOY_ERROR);
		goto out;
	}
	fault_point(fa, "after-record");
	oc = finish(x, DEPLOY_DEPLOYED);
out:
	free(err);
	run_release(x);
	return oc;
}

void deploy_log_release(struct deploy_step *steps, size_t n_steps, char **warnings, size_t n_warnings)
{
	for (size_t i = 0; i < n_steps; i++)
		free(steps[i].detail);
	free(steps);
	for (size_t i = 0; i < n_warnings; i++)
		free(warnings[i]);
	free(warnings);
}

void deploy_result_release(struct deploy_result *r)
{
	if (!r)
		return;
	deploy_log_release(r->steps, r->n_steps, r->warnings, r->n_warnings);
	free(r->endpoint);
	free(r->unit_path);
	free(r->env_path);
	free(r->unit_name);
	free(r->why);
	free(r->cause);
	free(r->host_state);
	memset(r, 0, sizeof(*r));
}
