/* deploy's gates: nothing is changed until every one has passed (the
 * endpoint read and its laws, the pins, the fit, the unit, foreign
 * drop-ins, the port). */
#include <dirent.h>
#include <errno.h>
#include <netdb.h>
#include <pwd.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../endpoint/router.h"
#include "../judge/laws.h"
#include "../judge/router_preset.h"
#include "../judge/runtime.h"
#include "../judge/trust.h"
#include "../live/audit.h"
#include "../payload/pin.h"
#include "../store/calib.h"
#include "deploy.h"
#include "deploy_int.h"
#include "install.h"

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

static char *host_of(const char *base)
{
	const char *h = base + strlen("http://");
	if (*h == '[') {
		const char *e = strchr(h, ']');
		return xstrndup(h + 1, e ? (size_t)(e - h - 1) : 0);
	}
	return xstrndup(h, strcspn(h, ":"));
}

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
	static const char *const files[] = {"MODEL", "MMPROJ", "LORA", "SPEC_DRAFT_MODEL"};
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

/* Calibration (M08) as `zealot plan` makes it (store/calib.c): 1 when p
 * was calibrated (*note: "calibrated from boot N of DATE"), 0 when no
 * recorded boot matches, -1 with *note the store's error. */
static int calibrate(const struct endpoint *ep, const struct shape_ctx *c, struct plan *p, char **note)
{
	json_t *j = NULL;
	char *text = NULL, *err = NULL;
	int rc = calib_apply(ep, c, p, &j, &text, &err);
	json_decref(j);
	if (rc < 0) {
		free(text);
		*note = err;
		return -1;
	}
	free(err);
	if (text) /* its first line */
		text[strcspn(text, "\n")] = '\0';
	*note = text;
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
	int cal = calibrate(x->ep, &x->sc, &x->plan, &note);
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

/* The runtime's version line, as calibration matches on it (store/calib.c),
 * or NULL when it gives none. */
static char *runtime_version(const struct endpoint *ep, const struct shape_ctx *c)
{
	struct calib_identity id;
	char *err = NULL, *v = NULL;
	if (calib_identity_of(ep, c, 1, &id, &err) == 0) {
		if (id.runtime_version)
			v = xstrdup(id.runtime_version);
		calib_identity_release(&id);
	}
	free(err);
	return v;
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
	/* (a router's runtime is its members' too: the first one's payload) */
	x->runtime_version = runtime_version(x->ep, x->router ? &x->rp.m[0].c : &x->sc);
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
			char *cmd = deploy_cmdline_of(l[i]);
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
	if (router_is(src_ep)) {
		int rc = deploy_router_stage(x, src_ep, src, len, t);
		endpoint_free(src_ep);
		free(src);
		if (rc)
			return rc;
	} else {
		x->env_text = install_env_text(src_ep, src, len);
		endpoint_free(src_ep);
		free(src);
	}
	x->ep = endpoint_parse(x->env_text, strlen(x->env_text), x->src_path, &err);
	struct endpoint_gate g;
	if (x->ep && endpoint_gated_extra(x->ep, &g, 1)) {
		errorf(&err, "%s: EXTRA_ARGS names %s, a flag %s owns (law C09)", x->src_path, g.word, g.owner->name);
		return failed(x, "gate:laws", t, "C09", err, "EXTRA_ARGS names a flag a key owns");
	}
	char *preset = x->router && x->ep ? router_preset_unit_path(x->ep) : NULL;
	int bad =
	    !x->ep || (preset ? router_argv_render(x->ep, preset, &x->argv, &err) : argv_render(x->ep, &x->argv, &err));
	free(preset);
	if (bad)
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

int deploy_gates_shape(struct run *x)
{
	if (load_shape(x) || gate_name(x))
		return -1;
	if (x->router) {
		x->pins_json = xstrdup("{}"); /* each member's pins are in its text */
		return deploy_router_gate(x);
	}
	return gate_laws(x) || gate_pins(x) || gate_fit(x) ? -1 : 0;
}

int deploy_gates_host(struct run *x)
{
	return gate_unit(x) || gate_dropins(x) || gate_port(x) ? -1 : 0;
}
