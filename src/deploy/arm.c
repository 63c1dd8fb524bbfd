#include "arm.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../base/fault.h"
#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../judge/emit.h"
#include "../live/audit.h"
#include "../live/http.h"
#include "../live/ledger_compare.h"
#include "../live/memory.h"
#include "../plan/device.h"
#include "../store/calib.h"
#include "cause.h"
#include "install.h"
#include "systemd.h"

#define ARM_RUN_DIR "/run/zealot/arm"

/* Everything one window holds. */
struct window {
	struct store *st;
	const struct arm_opts *o;
	struct arm_result *r;
	int lock_fd;
	double t0;
	struct store_era era;
	struct endpoint *prod, *cand; /* production's endpoint, the candidate's */
	char *prod_base, *cand_base, *api_key, *cand_path, *cand_text;
	unsigned prod_port, cand_port;
	char *prod_unit;
	int stopped, booted; /* production stopped; the transient unit started */
	int store_failed;
	uint64_t ladder[BENCH_LADDER_MAX]; /* both benches' prefill ladder (--ladder, maybe extended) */
};

const char *arm_outcome_name(enum arm_outcome o)
{
	switch (o) {
	case ARM_BENCHED: return "benched";
	case ARM_REFUSED: return "refused";
	case ARM_FAILED: return "failed";
	case ARM_RESTORE_FAILED: return "restore-failed";
	case ARM_ERROR: return "error";
	}
	return "error";
}

static int step(struct window *x, const char *name, const char *status, double t, const char *law, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
static int step(struct window *x, const char *name, const char *status, double t, const char *law, const char *fmt, ...)
{
	struct arm_result *r = x->r;
	const struct deploy_steps b = {&r->steps,  &r->n_steps,		  x->st,
				       r->attempt, &r->failed_step,	  r->law,
				       &r->why,	   x->o->restore.on_step, x->o->restore.arg};
	va_list ap;
	va_start(ap, fmt);
	int rc = deploy_step_add(&b, name, status, t, law, fmt, ap);
	va_end(ap);
	return rc;
}

static int failed(struct window *x, const char *name, double t, char *err, const char *why)
{
	int rc = step(x, name, "failed", t, NULL, "%s", err ? err : why);
	free(err);
	return rc;
}

static void warn(struct window *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(struct window *x, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvstrf(fmt, ap);
	va_end(ap);
	x->r->warnings = xreallocarray(x->r->warnings, x->r->n_warnings + 1, sizeof(char *));
	x->r->warnings[x->r->n_warnings++] = s;
}

/* --- the candidate -------------------------------------------------------- */

static int is_key_line(const char *line, size_t len, const char *key, size_t klen)
{
	while (len && (*line == ' ' || *line == '\t'))
		line++, len--;
	if (len > 7 && strncmp(line, "export ", 7) == 0)
		line += 7, len -= 7;
	return len > klen && strncmp(line, key, klen) == 0 && line[klen] == '=';
}

char *arm_env_text(const char *env_text, const char *const *sets, size_t n_sets)
{
	struct sb b = {0};
	sb_adds(&b, "");
	for (const char *p = env_text; *p;) {
		size_t len = strcspn(p, "\n");
		int replaced = 0;
		for (size_t i = 0; i < n_sets && !replaced; i++) {
			size_t klen = strcspn(sets[i], "=");
			replaced = is_key_line(p, len, sets[i], klen);
		}
		if (!replaced)
			sb_add(&b, p, len);
		sb_addc(&b, '\n');
		p += len + (p[len] == '\n');
	}
	sb_adds(&b, "# zealot arm:\n");
	for (size_t i = 0; i < n_sets; i++)
		sb_addf(&b, "%s\n", sets[i]);
	return sb_detach(&b);
}

static int port_of(const struct endpoint *ep, unsigned *port, char **err)
{
	uint64_t p = 0;
	if (endpoint_uint(ep, K_LISTEN_PORT, &p, err) || p == 0 || p > 65535)
		return *err ? -1 : errorf(err, "LISTEN_PORT is not a port");
	*port = (unsigned)p;
	return 0;
}

/* The current era, production's endpoint, the candidate's file parsed and
 * rendered: nothing is changed yet. */
/* The ubatch a shape runs (the logical batch caps it), or 0 unknown. */
static uint64_t ubatch_of(const struct endpoint *ep)
{
	uint64_t u = 0, b = 0;
	if (endpoint_uint(ep, K_UBATCH_SIZE, &u, NULL) || endpoint_uint(ep, K_BATCH_SIZE, &b, NULL))
		return 0;
	return u < b ? u : b;
}

/* A prompt shorter than the ubatch cannot see the knob (the seeds' control
 * row): an arm that changes it needs a ladder rung past both ubatches. A
 * rung of the larger ubatch + 64 is added where none is past it (a bench
 * filler is at least one token, so the prompt is past it on any
 * tokenizer), if the candidate's per-slot window holds it with 64 to
 * spare; else the arm refuses, saying why. 0, or the step's failure. */
static int ladder_past_ubatch(struct window *x, double t)
{
	memcpy(x->ladder, x->o->bench.ladder, sizeof(x->ladder));
	uint64_t up = ubatch_of(x->prod), uc = ubatch_of(x->cand);
	if (!up || !uc || up == uc)
		return 0;
	uint64_t top = up > uc ? up : uc, n = 0;
	for (; n < BENCH_LADDER_MAX && x->ladder[n]; n++)
		if (x->ladder[n] > top)
			return 0;
	uint64_t ctx = 0, par = 1, want = top + 64;
	if (!endpoint_uint(x->cand, K_CTX_SIZE, &ctx, NULL) && !endpoint_uint(x->cand, K_PARALLEL, &par, NULL) && par &&
	    ctx / par < want + 64)
		want = 0;
	if (!want)
		return step(
		    x, "gate:arm", "failed", t, "S08",
		    "the ubatch changes %llu -> %llu, and the candidate's per-slot window (%llu tokens) holds no "
		    "prompt past %llu: a prompt shorter than the ubatch cannot see it (widen the window or "
		    "arm a smaller ubatch)",
		    (unsigned long long)up, (unsigned long long)uc, (unsigned long long)(ctx / par),
		    (unsigned long long)top);
	if (n == BENCH_LADDER_MAX)
		return step(x, "gate:arm", "failed", t, "S08",
			    "the ubatch changes %llu -> %llu and no --ladder size is past %llu: a prompt shorter than "
			    "the ubatch cannot see it (give one of %llu)",
			    (unsigned long long)up, (unsigned long long)uc, (unsigned long long)top,
			    (unsigned long long)want);
	x->ladder[n] = want;
	warn(x,
	     "the ubatch changes %llu -> %llu and no ladder size was past %llu: the ladder adds %llu (a prompt "
	     "shorter than the ubatch cannot see it)",
	     (unsigned long long)up, (unsigned long long)uc, (unsigned long long)top, (unsigned long long)want);
	return 0;
}

static int gate_arm(struct window *x)
{
	double t = mono_s();
	char *err = NULL;
	int got = store_era_get(x->st, x->r->endpoint, 0, &x->era, &err);
	x->store_failed = got < 0;
	if (got)
		return got < 0 ? failed(x, "gate:era", t, err, "the store")
			       : step(x, "gate:era", "failed", t, NULL,
				      "%s has no current era: zealot arm benches against a deployed endpoint "
				      "(zealot deploy first)",
				      x->r->endpoint);
	x->r->era = x->era.id;
	const char *path = x->era.endpoint_path && *x->era.endpoint_path ? x->era.endpoint_path : x->r->endpoint;
	x->prod = endpoint_parse(x->era.env_text, strlen(x->era.env_text), path, &err);
	if (!x->prod || port_of(x->prod, &x->prod_port, &err))
		return failed(x, "gate:era", t, err, "era's endpoint file does not parse");
	x->prod_base = deploy_http_base(x->prod, x->prod_port);
	char *kf = endpoint_path(x->prod, K_API_KEY_FILE);
	if (kf) {
		x->api_key = endpoint_read_key(kf);
		free(kf);
	}
	step(x, "gate:era", "ok", t, NULL, "era %lld (%s), %s", (long long)x->era.id, x->era.reason, x->prod_base);

	t = mono_s();
	json_t *keys = json_object();
	for (size_t i = 0; i < x->o->n_sets; i++) {
		const char *kv = x->o->sets[i], *eq = strchr(kv, '=');
		if (!eq || eq == kv) {
			json_decref(keys);
			return step(x, "gate:arm", "failed", t, "C01", "--set '%s' is not KEY=VALUE", kv);
		}
		char *k = xstrndup(kv, (size_t)(eq - kv));
		json_object_set_new(keys, k, json_string(eq + 1));
		free(k);
	}
	x->r->keys_json = json_dumps(keys, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(keys);
	x->cand_text = arm_env_text(x->era.env_text, x->o->sets, x->o->n_sets);
	struct sb p = {0};
	sb_addf(&p, "%s/%s.env", x->o->run_dir ? x->o->run_dir : ARM_RUN_DIR, x->r->endpoint);
	x->cand_path = sb_detach(&p);
	x->cand = endpoint_parse(x->cand_text, strlen(x->cand_text), x->cand_path, &err);
	struct argv_list av = {0};
	if (!x->cand || argv_render(x->cand, &av, &err) || port_of(x->cand, &x->cand_port, &err)) {
		argv_release(&av);
		int rc = step(x, "gate:arm", "failed", t, "C01", "the candidate (era %lld with %s): %s",
			      (long long)x->era.id, x->r->keys_json, err ? err : "does not parse");
		free(err);
		return rc;
	}
	x->cand_base = deploy_http_base(x->cand, x->cand_port);
	int lr = ladder_past_ubatch(x, t);
	if (lr) {
		argv_release(&av);
		return lr;
	}
	int rc = step(x, "gate:arm", "ok", t, NULL, "era %lld with %s: %zu arguments", (long long)x->era.id,
		      x->r->keys_json, av.n);
	argv_release(&av);
	return rc;
}

/* --- the idle gate -------------------------------------------------------- */

/* The request counters of /metrics, summed into one text to compare. */
static int request_counters(const struct http_client *c, struct sb *out, double *processing, char **err)
{
	static const char *const names[] = {"llamacpp:prompt_tokens_total", "llamacpp:tokens_predicted_total",
					    "llamacpp:n_decode_total", "llamacpp:requests_processing",
					    "llamacpp:requests_deferred"};
	/* as said in a refusal (a word like "token" would read as a secret to the redaction) */
	static const char *const shown[] = {"prompt", "predicted", "decodes", "processing", "deferred"};
	struct http_response r;
	if (http_request(c, "GET", "/metrics", NULL, &r) || r.status != 200) {
		errorf(err, "/metrics answers %ld%s%s (METRICS=1 lets zealot tell idle from busy)", r.status,
		       r.error[0] ? ": " : "", r.error);
		http_response_release(&r);
		return -1;
	}
	*processing = 0;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		struct sb k = {0};
		sb_addf(&k, "\n%s ", names[i]);
		const char *at = r.body.s ? strstr(r.body.s, k.s) : NULL;
		double v = at ? strtod(at + k.len, NULL) : -1;
		sb_addf(out, "%s=%.0f ", shown[i], v);
		if (strstr(names[i], "processing") || strstr(names[i], "deferred"))
			*processing += v > 0 ? v : 0;
		sb_release(&k);
	}
	http_response_release(&r);
	return 0;
}

/* The slots that are processing, named; -1 with *err when /slots cannot say. */
static int busy_slots(const struct http_client *c, struct sb *busy, size_t *n_slots, char **err)
{
	struct http_response r;
	if (http_request(c, "GET", "/slots", NULL, &r) || r.status != 200) {
		errorf(err, "/slots answers %ld%s%s (the idle gate reads it)", r.status, r.error[0] ? ": " : "",
		       r.error);
		http_response_release(&r);
		return -1;
	}
	json_t *j = json_loadb(r.body.s, r.body.len, 0, NULL);
	http_response_release(&r);
	if (!json_is_array(j)) {
		json_decref(j);
		return errorf(err, "/slots is not a JSON array");
	}
	*n_slots = json_array_size(j);
	int busy_n = 0;
	size_t i;
	json_t *s;
	json_array_foreach(j, i, s)
	{
		if (!json_is_true(json_object_get(s, "is_processing")))
			continue;
		json_t *nt = json_object_get(s, "next_token");
		json_t *nd = json_object_get(json_is_array(nt) ? json_array_get(nt, 0) : nt, "n_decoded");
		sb_addf(busy, "%sslot %lld is processing task %lld (%lld tokens decoded)", busy->len ? "; " : "",
			(long long)json_integer_value(json_object_get(s, "id")),
			(long long)json_integer_value(json_object_get(s, "id_task")),
			(long long)json_integer_value(nd));
		busy_n++;
	}
	json_decref(j);
	return busy_n;
}

/* The clients connected to production's port, each with its program,
 * gathered at the window's start and again at its end: a client that
 * sends request after request is between two of them at some instant, and
 * one look can miss it. */
struct seen_clients {
	size_t n;
	struct {
		unsigned port;
		long pid;
		char prog[64];
	} v[16];
};

static void look_clients(unsigned port, struct seen_clients *s)
{
	struct audit_client c[16];
	size_t n = audit_clients(port, c, 16);
	for (size_t i = 0; i < n && s->n < ARRAY_SIZE(s->v); i++) {
		size_t k = 0;
		while (k < s->n && s->v[k].port != c[i].port)
			k++;
		if (k < s->n && s->v[k].pid)
			continue;
		s->v[k].port = c[i].port;
		s->v[k].pid = (long)c[i].pid;
		s->v[k].prog[0] = '\0';
		if (c[i].pid) {
			size_t an = 0;
			char **v = audit_read_vector(c[i].pid, "cmdline", &an);
			snprintf(s->v[k].prog, sizeof(s->v[k].prog), "%s", an ? v[0] : "?");
			audit_free_vector(v, an);
		}
		if (k == s->n)
			s->n++;
	}
}

static void name_clients(const struct seen_clients *s, struct sb *busy)
{
	for (size_t i = 0; i < s->n; i++) {
		sb_addf(busy, "%s client port %u", i ? "," : "; connected:", s->v[i].port);
		if (s->v[i].pid)
			sb_addf(busy, " (pid %ld %s)", s->v[i].pid, s->v[i].prog);
	}
}

static int gate_idle(struct window *x)
{
	double t = mono_s();
	struct http_client c = {x->prod_base, x->api_key, 10000};
	struct sb busy = {0}, c0 = {0}, c1 = {0};
	char *err = NULL;
	size_t n_slots = 0;
	double proc0 = 0, proc1 = 0;
	int rc;
	int b0 = busy_slots(&c, &busy, &n_slots, &err);
	if (b0 < 0 || request_counters(&c, &c0, &proc0, &err)) {
		rc = step(x, "gate:idle", "failed", t, "A05", "cannot tell whether %s is idle: %s", x->prod_base, err);
		goto out;
	}
	/* the window: the counters must hold still over it */
	struct seen_clients seen = {0};
	look_clients(x->prod_port, &seen);
	usleep((useconds_t)(x->o->idle_window_s * 1e6));
	int b1 = b0 ? 0 : busy_slots(&c, &busy, &n_slots, &err);
	if (b1 < 0 || request_counters(&c, &c1, &proc1, &err)) {
		rc = step(x, "gate:idle", "failed", t, "A05", "cannot tell whether %s is idle: %s", x->prod_base, err);
		goto out;
	}
	int moved = strcmp(c0.s, c1.s) != 0;
	if (b0 || b1 || moved || proc0 > 0 || proc1 > 0) {
		if (moved)
			sb_addf(&busy, "%sthe request counters moved over %.1f s (%s-> %s)", busy.len ? "; " : "",
				x->o->idle_window_s, c0.s, c1.s);
		else if (!b0 && !b1)
			sb_addf(&busy, "%s/metrics counts %.0f requests processing or deferred", busy.len ? "; " : "",
				proc0 > proc1 ? proc0 : proc1);
		look_clients(x->prod_port, &seen);
		name_clients(&seen, &busy);
		rc = step(x, "gate:idle", "failed", t, "A05",
			  "production is busy: %s (a rate measured beside another consumer is worthless)", busy.s);
		goto out;
	}
	rc = step(x, "gate:idle", "ok", t, NULL, "%zu slots idle; request counters unchanged over %.1f s", n_slots,
		  x->o->idle_window_s);
out:
	free(err);
	sb_release(&busy);
	sb_release(&c0);
	sb_release(&c1);
	return rc;
}

/* --- bench ------------------------------------------------------------------ */

static int bench(struct window *x, const char *name, const char *base, char **out)
{
	double t = mono_s();
	struct http_client c = {(char *)base, x->api_key, 600000};
	struct bench b = x->o->bench;
	memcpy(b.ladder, x->ladder, sizeof(b.ladder));
	char *err = NULL;
	if (bench_run(&c, &b, &err)) {
		bench_release(&b);
		return failed(x, name, t, err, "the bench failed");
	}
	json_t *j = bench_json(base, &b);
	*out = json_dumps(j, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(j);
	int rc =
	    step(x, name, "ok", t, NULL, "prefill %.1f t/s, decode %.1f t/s (median of %llu runs)%s", b.prefill.median,
		 b.decode.median, (unsigned long long)b.runs, b.drafted ? "; the drafter's acceptance recorded" : "");
	bench_release(&b);
	return rc;
}

/* --- the transient unit ------------------------------------------------------- */

/* "%S" and friends: a transient unit's properties are not
 * specifier-expanded, so the system manager's directories are written out. */
static char *unspecify(const char *v)
{
	struct sb b = {0};
	for (const char *p = v; *p; p++) {
		if (*p != '%' || !p[1]) {
			sb_addc(&b, *p);
			continue;
		}
		p++;
		if (*p == 'S')
			sb_adds(&b, "/var/lib");
		else if (*p == 't')
			sb_adds(&b, "/run");
		else if (*p == 'C')
			sb_adds(&b, "/var/cache");
		else if (*p == 'L')
			sb_adds(&b, "/var/log");
		else
			sb_addc(&b, *p); /* "%%" */
	}
	return sb_detach(&b);
}

/* The [Service] settings `zealot emit unit` gives the candidate, as
 * systemd-run properties: the sandbox the production unit has. The start
 * command is systemd-run's own; Restart= is not carried (a candidate that
 * fails stays failed); the endpoint file is the arm's. */
static size_t unit_props(const char *unit, const char *env_path, char ***out)
{
	static const char *const skip[] = {
	    "ExecStart=", "Restart=", "RestartSec=", "RestartPreventExitStatus=", "EnvironmentFile="};
	char **v = NULL;
	size_t n = 0;
	int service = 0;
	for (const char *p = unit; *p;) {
		size_t len = strcspn(p, "\n");
		char *line = xstrndup(p, len);
		p += len + (p[len] == '\n');
		if (line[0] == '[')
			service = strcmp(line, "[Service]") == 0;
		int keep = service && line[0] && line[0] != '#' && line[0] != '[';
		for (size_t i = 0; keep && i < ARRAY_SIZE(skip); i++)
			keep = strncmp(line, skip[i], strlen(skip[i])) != 0;
		if (keep) {
			v = xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = unspecify(line);
		}
		free(line);
	}
	v = xreallocarray(v, n + 1, sizeof(*v));
	v[n++] = xstrf("EnvironmentFile=-%s", env_path);
	*out = v;
	return n;
}

static int boot_arm(struct window *x)
{
	double t = mono_s();
	char *err = NULL;
	if (install_env(x->cand_path, x->cand_text, strlen(x->cand_text), x->era.endpoint_path, &err))
		return failed(x, "arm:boot", t, err, "cannot write the arm's endpoint file");
	const char *zealot = x->o->restore.zealot;
	char *unit = emit_unit(x->cand, zealot, x->cand_path, NULL);
	char **props = NULL;
	size_t n = unit_props(unit, x->cand_path, &props);
	free(unit);
	const char *cmd[] = {zealot, "serve", x->cand_path, NULL};
	x->booted = 1;
	int rc = systemd_run(x->r->unit_name, (const char *const *)props, n, cmd, 120000, &err);
	for (size_t i = 0; i < n; i++)
		free(props[i]);
	free(props);
	if (rc)
		return failed(x, "arm:boot", t, err, "systemd-run failed");
	struct systemd_unit u;
	if (systemd_show(x->r->unit_name, &u, &err))
		return failed(x, "arm:boot", t, err, "systemctl show failed");
	rc = step(x, "arm:boot", "ok", t, NULL, "%s (transient, %zu properties of the unit's sandbox): MainPID %ld, %s",
		  x->r->unit_name, n, u.main_pid, x->cand_path);
	systemd_unit_release(&u);
	return rc;
}

static int arm_health(struct window *x)
{
	double t = mono_s();
	struct http_client c = {x->cand_base, x->api_key, 2000};
	double deadline = t + (double)(x->o->boot_timeout_ms > 0 ? x->o->boot_timeout_ms : 300000) / 1000.0;
	while (mono_s() < deadline) {
		struct systemd_unit u;
		char *err = NULL;
		if (systemd_show(x->r->unit_name, &u, &err) == 0) {
			if (strcmp(u.active, "active") != 0 && strcmp(u.active, "activating") != 0) {
				int rc = step(
				    x, "arm:health", "failed", t, NULL,
				    "%s is %s/%s (%s, status %d) before /health answered 200 (journalctl -u %s)",
				    x->r->unit_name, u.active, u.sub, u.result, u.exec_main_status, x->r->unit_name);
				systemd_unit_release(&u);
				return rc;
			}
			long pid = u.main_pid;
			systemd_unit_release(&u);
			struct http_response resp;
			int up = http_request(&c, "GET", "/health", NULL, &resp) == 0 && resp.status == 200;
			http_response_release(&resp);
			if (up) {
				pid_t l[16];
				size_t nl = audit_listeners(x->cand_port, l, 16);
				if (nl != 1 || (long)l[0] != pid)
					return step(x, "arm:health", "failed", t, "A02",
						    "/health 200, but port %u is answered by %zu process(es), not %s's "
						    "MainPID %ld alone",
						    x->cand_port, nl, x->r->unit_name, pid);
				return step(x, "arm:health", "ok", t, NULL,
					    "/health 200 after %.2f s; port %u answered by MainPID %ld alone",
					    mono_s() - t, x->cand_port, pid);
			}
		}
		free(err);
		usleep(100000);
	}
	return step(x, "arm:health", "failed", t, NULL, "/health did not answer 200 within %.0f s", mono_s() - t);
}

static int stop_arm(struct window *x)
{
	double t = mono_s();
	char *said = NULL, *err = NULL;
	int got = deploy_clean_arm(x->r->endpoint, x->o->run_dir, &said, &err);
	x->booted = 0;
	int rc = got < 0 ? failed(x, "arm:stop", t, err, "cannot stop the transient unit")
			 : step(x, "arm:stop", "ok", t, NULL, "%s", said ? said : "nothing left to stop");
	free(said);
	if (got >= 0)
		free(err);
	return rc;
}

/* --- production ---------------------------------------------------------------- */

static int stop_production(struct window *x)
{
	double t = mono_s();
	char *err = NULL;
	x->stopped = 1; /* from here on, any failure restores */
	if (systemd_ctl("stop", x->prod_unit, 300000, &err))
		return failed(x, "stop", t, err, "systemctl stop failed");
	return step(x, "stop", "ok", t, NULL, "%s stopped", x->prod_unit);
}

/* Production started from its own files and verified as a deploy
 * verifies; a boot row of its era with figures (or none). */
static int restore(struct window *x, const char *figures)
{
	struct deploy_opts d = x->o->restore;
	d.kind = "restore";
	d.endpoint_path = x->r->endpoint;
	d.era = 0;
	d.lock_fd = x->lock_fd;
	d.bench_json = figures;
	d.boot_source = "arm";
	char *why = xstrf("zealot arm: production back after benching %s", x->r->keys_json ? x->r->keys_json : "");
	d.reason = why;
	deploy_result_release(&x->r->restore);
	enum deploy_outcome oc = deploy_run(x->st, &d, &x->r->restore);
	free(why);
	x->r->restored = 1;
	x->stopped = 0;
	if (oc == DEPLOY_DEPLOYED) {
		x->r->boot = x->r->restore.boot;
		return 0;
	}
	x->r->host_state =
	    xstrdup(x->r->restore.host_state ? x->r->restore.host_state : "production's unit is not verified serving");
	return -1;
}

/* What a killed arm left: the transient unit and its file, then a
 * production that is not running. */
static int clean(struct window *x)
{
	double t = mono_s();
	char *said = NULL, *err = NULL;
	int got = deploy_clean_arm(x->r->endpoint, x->o->run_dir, &said, &err);
	if (got < 0)
		return failed(x, "clean", t, err, "cannot clean what an earlier arm left");
	if (got > 0) {
		warn(x, "an earlier zealot arm left %s: cleaned", said);
		step(x, "clean", "ok", t, NULL, "%s", said);
	}
	free(said);
	struct systemd_unit u;
	if (systemd_show(x->prod_unit, &u, &err))
		return failed(x, "clean", t, err, "systemctl show failed");
	int active = strcmp(u.active, "active") == 0;
	char state[64];
	snprintf(state, sizeof(state), "%s/%s", u.active, u.sub);
	systemd_unit_release(&u);
	if (active)
		return 0;
	warn(x, "%s was %s (an earlier arm stopped it?): restored before the window", x->prod_unit, state);
	step(x, "clean", "ok", t, NULL, "%s is %s: restoring it first", x->prod_unit, state);
	return restore(x, NULL);
}

/* --- the window ------------------------------------------------------------------ */

static enum arm_outcome finish(struct window *x, enum arm_outcome oc)
{
	x->r->outcome = oc;
	x->r->seconds = mono_s() - x->t0;
	if (x->r->attempt > 0) {
		char *err = NULL;
		store_attempt_end(x->st, x->r->attempt, arm_outcome_name(oc), 0, &err);
		free(err);
	}
	return oc;
}

/* After production was stopped: stop the candidate, restore production. */
static enum arm_outcome fail_restore(struct window *x)
{
	if (x->booted)
		stop_arm(x);
	if (restore(x, x->r->production_bench))
		return finish(x, ARM_RESTORE_FAILED);
	return finish(x, ARM_FAILED);
}

static int record(struct window *x)
{
	double t = mono_s();
	struct store_arm a = {0};
	a.endpoint = x->r->endpoint;
	a.era_id = x->era.id;
	a.boot_id = x->r->boot;
	a.at = (int64_t)time(NULL);
	a.keys_json = x->r->keys_json;
	a.reason = (char *)x->o->reason;
	a.bench_json = x->r->arm_bench;
	char *err = NULL;
	if (store_arm_add(x->st, &a, &err))
		return failed(x, "record", t, err, "the store");
	x->r->arm_id = a.id;
	return step(x, "record", "ok", t, NULL, "arm %lld of era %lld; production's figures in boot %lld",
		    (long long)a.id, (long long)x->era.id, (long long)x->r->boot);
}

/* --- the census -------------------------------------------------------------- */

/* The boot ledger against the plan, as deploy's ledger step holds it: a
 * KV buffer in host memory beside a card (M10), an exact term off (A01).
 * NULL when it holds, else the law with *why (allocated). */
static const char *ledger_off(const struct plan *p, const struct ledger *l, const char *journal, int gpu, char **why)
{
	struct cause c;
	if (gpu) {
		int m10 = cause_classify(journal, strlen(journal), 1, &c) && strcmp(c.law, "M10") == 0;
		if (m10)
			*why = xstrf("%s: %s", c.what, c.line ? c.line : "");
		cause_release(&c);
		if (m10)
			return "M10";
	}
	if (!l->recognised || !l->target.present) {
		*why = xstrdup("the candidate's journal holds no boot ledger (VERBOSITY must be 4 to prove the sizes)");
		return "C05";
	}
	struct ledger_comparison lc;
	ledger_compare(p, l, &lc);
	const char *law = NULL;
	if (lc.diverged) {
		char *s = ledger_comparison_summary(&lc, 4);
		*why = xstrf("the candidate's boot ledger differs from its plan on an exact term: %s", s);
		free(s);
		law = "A01";
	}
	ledger_comparison_release(&lc);
	return law;
}

/* {ledger, ledger_law, memory} joined to the arm's figures as "census". */
static void census_keep(struct window *x, const struct ledger *l, const char *law, json_t *mem)
{
	json_t *b = x->r->arm_bench ? json_loads(x->r->arm_bench, 0, NULL) : NULL;
	if (!json_is_object(b)) {
		json_decref(b);
		b = json_object();
	}
	json_object_set_new(b, "census",
			    json_pack("{s:o,s:o,s:o}", "ledger", ledger_to_json(l), "ledger_law",
				      law ? json_string(law) : json_null(), "memory", mem));
	free(x->r->arm_bench);
	x->r->arm_bench = json_dumps(b, JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(b);
}

/* The candidate's memory census once benched (settled): its boot ledger
 * from the transient unit's journal and its settled memory (live/memory.h)
 * against the candidate's plan. A term off the plan fails as deploy's
 * ledger and memory steps fail; the census joins the arm's figures. */
static int census(struct window *x)
{
	double t = mono_s();
	char *err = NULL, *warn_text = NULL, *cal_text = NULL, *why = NULL, *j = NULL;
	json_t *cal = NULL;
	struct systemd_unit u = {0};
	struct shape_ctx c = {0};
	struct plan p;
	struct ledger l = {0};
	int rc;
	if (systemd_show(x->r->unit_name, &u, &err) ||
	    calib_price(x->cand, NULL, NULL, 1, &c, &p, &cal, &cal_text, &warn_text, &err) != ZE_OK ||
	    !(j = systemd_journal(u.invocation_id, x->r->unit_name, u.main_pid, &err))) {
		rc = failed(x, "arm:census", t, err, "the candidate's plan or journal");
		err = NULL;
		goto out;
	}
	ledger_parse(j, strlen(j), &l);
	int gpu = p.device && p.device->backend != DEVICE_CPU;
	const char *law = ledger_off(&p, &l, j, gpu, &why);
	struct memory_settled m;
	struct memory_report mr = {0};
	int card = gpu && p.device->backend == DEVICE_CUDA ? (int)device_card_of(endpoint_value(x->cand, K_GPU)) : -1;
	if (memory_read(u.main_pid, card, &m, &err)) {
		rc = failed(x, "arm:census", t, err, "the candidate's memory");
		err = NULL;
		goto out;
	}
	memory_judge(&p, &l, &m, &mr);
	census_keep(x, &l, law, memory_json(&mr, &m));
	char *sum = memory_summary(&mr);
	const char *mlaw = NULL;
	for (size_t i = 0; i < mr.n; i++)
		if (mr.rows[i].law && (!mlaw || mr.rows[i].error))
			mlaw = mr.rows[i].law;
	if (law)
		rc = step(x, "arm:census", "failed", t, law, "%s; memory: %s", why, sum);
	else
		rc = step(x, "arm:census",
			  mr.errors	? "failed"
			  : mr.warnings ? "warning"
					: "ok",
			  t, mlaw, "ledger: every exact term matches the plan; memory: %s", sum);
	free(sum);
out:
	free(j);
	free(why);
	free(err);
	free(warn_text);
	free(cal_text);
	json_decref(cal);
	shape_release(&c);
	systemd_unit_release(&u);
	return rc;
}

static int bench_arm(struct window *x)
{
	return arm_health(x) || bench(x, "bench:arm", x->cand_base, &x->r->arm_bench) || census(x);
}

/* The window proper: from production's stop on, any failure restores it;
 * each phase ends at its fault point. */
static const struct {
	int (*run)(struct window *x);
	const char *after;
} window_phases[] = {
    {stop_production, "after-stop"},
    {boot_arm, "after-boot"},
    {bench_arm, "after-bench"},
    {stop_arm, "after-arm-stop"},
};

static void window_release(struct window *x)
{
	if (x->lock_fd >= 0)
		store_unlock(x->lock_fd);
	store_era_release(&x->era);
	endpoint_free(x->prod);
	endpoint_free(x->cand);
	free(x->prod_base);
	free(x->cand_base);
	free(x->api_key);
	free(x->cand_path);
	free(x->cand_text);
	free(x->prod_unit);
}

enum arm_outcome arm_run(struct store *st, const struct arm_opts *o, struct arm_result *r)
{
	memset(r, 0, sizeof(*r));
	struct window xs = {0}, *x = &xs;
	x->st = st;
	x->o = o;
	x->r = r;
	x->lock_fd = -1;
	x->t0 = mono_s();
	r->endpoint = deploy_endpoint_name(o->endpoint);
	r->unit_name = xstrf(ARM_UNIT_PREFIX "%s.service", r->endpoint);
	x->prod_unit = xstrf("%s.service", r->endpoint);
	enum arm_outcome oc;
	char *err = NULL;
	double t = mono_s();
	if (store_name_ok(r->endpoint, &err) || !deploy_unit_name_ok(r->endpoint)) {
		step(x, "lock", "failed", t, "C01", "%s", err ? err : "not a unit name systemd takes");
		oc = finish(x, ARM_REFUSED);
		goto out;
	}
	x->lock_fd = store_lock(st, r->endpoint, &err);
	r->attempt = store_attempt_begin(st, r->endpoint, "arm", o->reason, NULL);
	if (x->lock_fd < 0) {
		step(x, "lock", "failed", t, NULL, "%s", err);
		oc = finish(x, ARM_REFUSED);
		goto out;
	}
	step(x, "lock", "ok", t, NULL, "%s held by pid %ld", r->endpoint, (long)getpid());
	if (gate_arm(x)) {
		oc = finish(x, x->store_failed ? ARM_ERROR : ARM_REFUSED);
		goto out;
	}
	if (clean(x)) {
		oc = finish(x, r->restored ? ARM_RESTORE_FAILED : ARM_ERROR);
		goto out;
	}
	if (gate_idle(x)) {
		oc = finish(x, ARM_REFUSED);
		goto out;
	}
	fault_point("arm", "after-gate");
	if (bench(x, "bench:production", x->prod_base, &r->production_bench)) {
		oc = finish(x, ARM_ERROR);
		goto out;
	}
	fault_point("arm", "after-bench-production");
	for (size_t i = 0; i < ARRAY_SIZE(window_phases); i++) {
		if (window_phases[i].run(x)) {
			oc = fail_restore(x);
			goto out;
		}
		fault_point("arm", window_phases[i].after);
	}
	if (restore(x, r->production_bench)) {
		oc = finish(x, ARM_RESTORE_FAILED);
		goto out;
	}
	fault_point("arm", "after-restore");
	oc = finish(x, record(x) ? ARM_ERROR : ARM_BENCHED);
out:
	free(err);
	window_release(x);
	return oc;
}

void arm_result_release(struct arm_result *r)
{
	if (!r)
		return;
	deploy_log_release(r->steps, r->n_steps, r->warnings, r->n_warnings);
	free(r->endpoint);
	free(r->unit_name);
	free(r->keys_json);
	free(r->production_bench);
	free(r->arm_bench);
	free(r->why);
	free(r->host_state);
	deploy_result_release(&r->restore);
	memset(r, 0, sizeof(*r));
}
