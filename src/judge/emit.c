#include "emit.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/safe.h"
#include "../base/util.h"
#include "../endpoint/quote.h"
#include "../endpoint/router.h"
#include "../plan/device.h"
#include "harness.h"
#include "laws.h"

static const char *host_of(const struct endpoint *ep)
{
	const char *b = endpoint_value(ep, K_BIND_ADDR);
	/* a wildcard bind is scraped on loopback from the same host */
	if (!b || !*b || strcmp(b, "0.0.0.0") == 0 || strcmp(b, "::") == 0)
		return "127.0.0.1";
	return b;
}

const char *emit_name(const struct endpoint *ep, struct sb *tmp)
{
	tmp->len = 0;
	if (safe_utf8(ep->name)) {
		sb_adds(tmp, ep->name);
		return tmp->s;
	}
	return safe_str(ep->name, tmp);
}

/* A YAML scalar: plain when it is a plain name (what every endpoint name
 * and alias should be), else a double-quoted string (JSON's escapes are
 * YAML's), so that no name can add a key, a line or a document. */
static int yaml_plain(const char *s)
{
	static const char *const words[] = {"true", "false", "null", "yes", "no", "on", "off", "y", "n"};
	if (!*s || strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._/-") != strlen(s) ||
	    s[0] == '-' || s[0] == '.')
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(words); i++)
		if (strcasecmp(s, words[i]) == 0)
			return 0;
	return 1;
}

static void yaml_str(struct sb *b, const char *s)
{
	struct sb tmp = {0};
	if (!safe_utf8(s)) /* a YAML document is UTF-8 */
		s = safe_str(s, &tmp);
	if (yaml_plain(s))
		sb_adds(b, s);
	else
		sb_add_json_str(b, s, strlen(s));
	sb_release(&tmp);
}

/* A YAML single-quoted scalar: a quote doubled, nothing else special, so
 * a value (a target) stays one scalar whatever it holds. */
static void yaml_squote(struct sb *b, const char *s)
{
	struct sb tmp = {0};
	if (!safe_utf8(s))
		s = safe_str(s, &tmp);
	sb_addc(b, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			sb_addc(b, '\'');
		sb_addc(b, (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p);
	}
	sb_addc(b, '\'');
	sb_release(&tmp);
}

/* A PromQL expression with the job's name in it, as a YAML scalar: plain
 * as it always was for a plain name, else the name escaped for PromQL and
 * the whole expression double-quoted for YAML. fmt names the name (%1$s)
 * as a PromQL string literal, quotes included. */
static void yaml_expr(struct sb *b, const char *fmt, const char *name)
{
	struct sb lit = {0}, e = {0};
	sb_addc(&lit, '"');
	for (const char *p = name; *p; p++) {
		if (*p == '"' || *p == '\\')
			sb_addc(&lit, '\\');
		if (*p == '\n')
			sb_adds(&lit, "\\n");
		else
			sb_addc(&lit, *p);
	}
	sb_addc(&lit, '"');
	sb_addf(&e, fmt, lit.s);
	if (yaml_plain(name))
		sb_adds(b, e.s);
	else
		sb_add_json_str(b, e.s, e.len);
	sb_release(&lit);
	sb_release(&e);
}

/* A name in a comment or a one-line value (quote_one_line), in tmp; a
 * name that is not UTF-8 made safe first (a YAML document is UTF-8). */
static const char *one_line(const char *s, struct sb *tmp)
{
	struct sb u = {0};
	if (!safe_utf8(s))
		s = safe_str(s, &u);
	tmp->len = 0;
	quote_one_line(tmp, s);
	sb_release(&u);
	return tmp->s ? tmp->s : "";
}

/* "NAME: TEXT" as a double-quoted YAML string. */
static void yaml_summary(struct sb *b, const char *name, const char *text)
{
	struct sb t = {0};
	sb_addf(&t, "%s: %s", name, text);
	sb_add_json_str(b, t.s, t.len);
	sb_release(&t);
}

/* A path as one word of a unit's word list (ExecStart=, BindReadOnlyPaths=):
 * `%` doubled, quoted when it holds blanks, quotes, backslashes, ';' or ':'
 * (quote_unit_word). */
static void unit_path(struct sb *b, const char *prefix, const char *path)
{
	quote_unit_word(b, prefix, path);
}

/* EnvironmentFile= takes its path raw (no quotes) and globs it: `%`
 * doubled, a glob byte (* ? [) or a backslash escaped with a backslash. */
static void unit_env_file(struct sb *b, const char *path)
{
	struct sb raw = {0};
	quote_unit_raw(&raw, path);
	for (const char *p = raw.s ? raw.s : ""; *p; p++) {
		if (strchr("*?[\\", *p))
			sb_addc(b, '\\');
		sb_addc(b, *p);
	}
	sb_release(&raw);
}

/* ExecStart='s words: zealot serve ENDPOINT. systemd expands $NAME in the
 * arguments from the unit's environment ($ doubled there), and takes the
 * executable's path as written (systemd 252: "bin$$HOME/rec is not
 * executable"). */
static void unit_exec_start(struct sb *b, const char *zealot, const char *endpoint)
{
	unit_path(b, "", zealot);
	sb_adds(b, " serve ");
	quote_unit_exec_word(b, endpoint);
}

/* The sandbox hides /home, /root and /run/user (ProtectHome=tmpfs) and
 * gives the service its own /tmp and /var/tmp (PrivateTmp=): a payload,
 * runtime or key there is bound back read-only. */
static int hidden(const char *path)
{
	static const char *const dirs[] = {"/home", "/root", "/run/user", "/tmp", "/var/tmp"};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		size_t n = strlen(dirs[i]);
		if (strncmp(path, dirs[i], n) == 0 && (path[n] == '/' || path[n] == '\0'))
			return 1;
	}
	return 0;
}

static void add_bind(char ***v, size_t *n, const char *dir)
{
	for (size_t i = 0; i < *n; i++) {
		size_t m = strlen((*v)[i]);
		/* already covered by a bound parent (or the same directory) */
		if (strncmp(dir, (*v)[i], m) == 0 && (dir[m] == '/' || dir[m] == '\0'))
			return;
	}
	*v = xreallocarray(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = xstrdup(dir);
}

static size_t bind_dirs(const struct endpoint *ep, const char *zealot, const char *endpoint, char ***out);

/* A router endpoint's (endpoint/router.h): MODELS and every member's
 * own, as the children the router starts read them. */
static void router_binds(const struct endpoint *ep, const char *zealot, char ***v, size_t *n)
{
	struct router r;
	if (!router_is(ep) || router_load(ep, &r, NULL, NULL))
		return;
	if (hidden(r.dir))
		add_bind(v, n, r.dir);
	for (size_t i = 0; i < r.n; i++) {
		char **mv = NULL;
		size_t mn = bind_dirs(r.m[i].ep, zealot, r.m[i].path, &mv);
		for (size_t k = 0; k < mn; k++) {
			add_bind(v, n, mv[k]);
			free(mv[k]);
		}
		free(mv);
	}
	router_release(&r);
}

/* The directories to bind: each payload's, the runtime's (its shared
 * libraries sit next to it in a llama.cpp build), the API key file's, the
 * zealot binary's, and the endpoint file itself (serve reads it inside the
 * sandbox);
 * and where a path is a symlink, its target's as well. */
static size_t bind_dirs(const struct endpoint *ep, const char *zealot, const char *endpoint, char ***out)
{
	static const enum key_id keys[] = {K_MODEL_FILE,   K_MMPROJ_FILE, K_LORA_FILE,
					   K_API_KEY_FILE, K_RUNTIME,	  K_SPEC_DRAFT_MODEL_FILE};
	char **v = NULL;
	size_t n = 0;
	for (size_t i = 0; i <= ARRAY_SIZE(keys) + 1; i++) {
		char *path = i < ARRAY_SIZE(keys)    ? endpoint_path(ep, keys[i])
			     : i == ARRAY_SIZE(keys) ? xstrdup(zealot)
						     : xstrdup(endpoint);
		if (!path || !strchr(path, '/')) { /* a bare RUNTIME name is found in PATH */
			free(path);
			continue;
		}
		if (path[0] != '/') { /* relative to the working directory, as the endpoint was read */
			char cwd[4096];
			struct sb abs = {0};
			sb_addf(&abs, "%s/%s", getcwd(cwd, sizeof(cwd)) ? cwd : "", path);
			free(path);
			path = sb_detach(&abs);
		}
		char *real = realpath(path, NULL);
		const char *cands[2] = {path, real};
		for (int c = 0; c < 2; c++) {
			if (!cands[c])
				continue;
			char *dir = xstrdup(cands[c]);
			char *slash = strrchr(dir, '/');
			/* the endpoint file itself, not its directory */
			if (slash && slash != dir && i <= ARRAY_SIZE(keys))
				*slash = '\0';
			char *rdir = realpath(dir, NULL); /* "a/./b/.." -> "a" */
			const char *d = rdir ? rdir : dir;
			if (hidden(d))
				add_bind(&v, &n, d);
			free(rdir);
			free(dir);
		}
		free(real);
		free(path);
	}
	router_binds(ep, zealot, &v, &n);
	*out = v;
	return n;
}

/* BindReadOnlyPaths=: the payloads, runtime and binaries the sandbox
 * would hide. */
static void unit_bind_dirs(struct sb *b, const struct endpoint *ep, const char *zealot, const char *endpoint)
{
	char **dirs = NULL;
	size_t n_dirs = bind_dirs(ep, zealot, endpoint, &dirs);
	if (n_dirs) {
		sb_adds(b, "# the payloads, runtime and binaries the sandbox would hide, read-only\n"
			   "BindReadOnlyPaths=");
		for (size_t i = 0; i < n_dirs; i++) {
			if (i)
				sb_addc(b, ' ');
			/* "-": a missing directory is serve's refusal (C03, 78), not 226/NAMESPACE */
			unit_path(b, "-", dirs[i]);
			free(dirs[i]);
		}
		sb_addc(b, '\n');
	}
	free(dirs);
}

/* The variable that hides the host's other cards from the engine: ggml-vulkan
 * reads its own (a CPU-type device such as lavapipe is used only when
 * listed there), CUDA the driver's. */
static const char *visible_devices_var(const struct endpoint *ep)
{
	const char *name = endpoint_value(ep, K_DEVICE);
	const struct device *d = device_find(name ? name : "");
	return device_visible_var(d);
}

char *emit_unit(const struct endpoint *ep, const char *zealot, const char *endpoint, const char *user)
{
	struct sb b = {0};
	if (!user)
		user = endpoint_value(ep, K_USER);
	uint64_t port = 0;
	char *perr = NULL;
	endpoint_uint(ep, K_LISTEN_PORT, &port, &perr);
	free(perr);
	const struct device *dev = device_find(endpoint_value(ep, K_DEVICE) ? endpoint_value(ep, K_DEVICE) : "cpu");
	int gpu = dev && dev->backend != DEVICE_CPU;
	/* every value below is written so that it cannot start a line or
	 * expand a specifier (systemd.syntax(7)); the parser (law C10) has
	 * already refused a control byte in any endpoint value */
	struct sb tmp = {0}, tmp2 = {0}, desc = {0};
	const char *safe = one_line(ep->name, &tmp);
	quote_unit_raw(&desc, safe);
	sb_addf(&b,
		"# %s.service - emitted by zealot from %s\n"
		"# The engine is the main process: zealot serve gates, then execs it.\n"
		"[Unit]\n"
		"Description=llama-server endpoint %s (zealot)\n"
		"After=network-online.target\n"
		"Wants=network-online.target\n"
		"\n"
		"[Service]\n"
		"Type=exec\n",
		safe, one_line(endpoint, &tmp2), desc.s);
	sb_release(&tmp);
	sb_release(&tmp2);
	sb_release(&desc);
	if (user && *user) {
		sb_adds(&b, "User=");
		quote_unit_raw(&b, user);
		sb_addc(&b, '\n');
	}
	/* "-": a missing or unreadable endpoint file is serve's refusal (78,
	 * RestartPreventExitStatus=), not a failure to spawn that Restart=
	 * would repeat every RestartSec= */
	sb_adds(&b, "EnvironmentFile=-");
	unit_env_file(&b, endpoint);
	const char *card = endpoint_value(ep, K_GPU);
	if (card && *card) {
		sb_adds(&b, "\n# GPU: the card this endpoint owns on its host (DEVICE profiles that card)\n"
			    "Environment=");
		char var[64];
		snprintf(var, sizeof(var), "%s=", visible_devices_var(ep));
		quote_unit_word(&b, var, card);
	}
	sb_adds(&b, "\n# serve's verified-hash stamps (the payloads are read-only to the engine)\n"
		    "StateDirectory=zealot\n"
		    "Environment=ZEALOT_STATE_DIR=%S/zealot\n"
		    "ExecStart=");
	unit_exec_start(&b, zealot, endpoint);
	sb_addf(&b,
		"\n"
		"Restart=on-failure\n"
		"RestartSec=10\n"
		"# %d: a gate refused (missing payload, wrong pin, broken law, no fit);\n"
		"# restarting cannot fix it, and a crash loop would read like a runtime fault\n"
		"RestartPreventExitStatus=%d\n"
		"# llama.cpp rides out the default stop timeout\n"
		"TimeoutStopSec=180\n"
		"LimitMEMLOCK=infinity\n",
		SERVE_REFUSED, SERVE_REFUSED);
	sb_adds(&b, "\n# The sandbox: what a GPU engine tolerates (README: the unit's security score)\n"
		    "NoNewPrivileges=yes\n");
	if (port && port < 1024)
		sb_adds(&b, "# a port below 1024 is the one capability the engine needs\n"
			    "CapabilityBoundingSet=CAP_NET_BIND_SERVICE\n"
			    "AmbientCapabilities=CAP_NET_BIND_SERVICE\n");
	else
		sb_adds(&b, "CapabilityBoundingSet=\n"
			    "AmbientCapabilities=\n");
	sb_adds(&b, "ProtectSystem=strict\n"
		    "ProtectHome=tmpfs\n"
		    "PrivateTmp=yes\n"
		    "PrivateMounts=yes\n");
	unit_bind_dirs(&b, ep, zealot, endpoint);
	sb_adds(&b, "ProtectKernelTunables=yes\n"
		    "ProtectKernelModules=yes\n"
		    "ProtectKernelLogs=yes\n"
		    "ProtectControlGroups=yes\n"
		    "ProtectClock=yes\n"
		    "ProtectHostname=yes\n"
		    "ProtectProc=invisible\n"
		    "RestrictAddressFamilies=AF_INET AF_INET6 AF_UNIX\n"
		    "RestrictNamespaces=yes\n"
		    "RestrictRealtime=yes\n"
		    "RestrictSUIDSGID=yes\n"
		    "LockPersonality=yes\n"
		    "SystemCallArchitectures=native\n"
		    "# @system-service keeps ioctl (the driver) and @memlock (mlock)\n"
		    "SystemCallFilter=@system-service\n"
		    "SystemCallFilter=~@privileged\n"
		    "SystemCallErrorNumber=EPERM\n"
		    "UMask=0077\n"
		    "DevicePolicy=closed\n");
	const char *bind = endpoint_value(ep, K_BIND_ADDR);
	if (bind && (strncmp(bind, "127.", 4) == 0 || strcmp(bind, "::1") == 0 || strcmp(bind, "localhost") == 0))
		sb_adds(&b, "# a loopback endpoint talks to this host only\n"
			    "IPAddressAllow=localhost\n"
			    "IPAddressDeny=any\n");
	if (!gpu)
		sb_adds(&b, "# the CPU backend needs no device node and writes no code\n"
			    "PrivateDevices=yes\n"
			    "MemoryDenyWriteExecute=yes\n");
	if (gpu)
		sb_adds(&b, "# the NVIDIA nodes: /dev/nvidia0..N, nvidiactl, nvidia-uvm (not PrivateDevices=, which "
			    "hides them;\n"
			    "# not MemoryDenyWriteExecute=, which breaks the driver's PTX JIT)\n"
			    "DeviceAllow=char-nvidia* rw\n");
	if (user && *user)
		sb_adds(&b, "RemoveIPC=yes\n");
	sb_adds(&b, "\n"
		    "[Install]\n"
		    "WantedBy=multi-user.target\n");
	return sb_detach(&b);
}

void emit_prometheus_job(struct sb *b, const struct endpoint *ep, const char *host)
{
	struct sb tmp = {0};
	sb_addf(b, "# Prometheus scrape job for %s: llama-server's /metrics (needs METRICS=1, law C04)\n- job_name: ",
		one_line(ep->name, &tmp));
	sb_release(&tmp);
	yaml_str(b, ep->name);
	sb_adds(b, "\n  metrics_path: /metrics\n"
		   "  scrape_interval: 15s\n");
	char *key = endpoint_path(ep, K_API_KEY_FILE);
	if (key) {
		sb_adds(b, "  authorization:\n    type: Bearer\n    credentials_file: ");
		yaml_str(b, key);
		sb_addc(b, '\n');
		free(key);
	}
	struct sb target = {0};
	const char *scrape = endpoint_value(ep, K_SCRAPE_HOST);
	const char *h = scrape && *scrape ? scrape : host ? host : host_of(ep);
	sb_addf(&target, strchr(h, ':') ? "[%s]:%s" : "%s:%s", h, endpoint_value(ep, K_LISTEN_PORT));
	/* one quoted scalar: no address can close the list and add a target */
	sb_adds(b, "  static_configs:\n    - targets: [");
	yaml_squote(b, target.s);
	sb_adds(b, "]\n      labels:\n        alias: ");
	sb_release(&target);
	yaml_str(b, endpoint_value(ep, K_ALIAS));
	sb_addc(b, '\n');
}

char *emit_prometheus(const struct endpoint *ep)
{
	struct sb b = {0};
	emit_prometheus_job(&b, ep, NULL);
	return sb_detach(&b);
}

/* One alerting rule on endpoint n; the endpoint label tells the rules of
 * a fleet's endpoints apart (promtool refuses duplicates otherwise). */
static void alert_rule(struct sb *b, const char *n, const char *alert, const char *expr, const char *wait,
		       const char *severity, const char *summary, const char *description)
{
	sb_addf(b, "      - alert: %s\n        expr: ", alert);
	yaml_expr(b, expr, n);
	sb_addf(b, "\n        for: %s\n        labels:\n          severity: %s\n          endpoint: ", wait, severity);
	yaml_str(b, n);
	sb_adds(b, "\n        annotations:\n          summary: ");
	yaml_summary(b, n, summary);
	sb_addc(b, '\n');
	if (description)
		sb_adds(b, description);
}

void emit_alerts_group(struct sb *b, const struct endpoint *ep, unsigned slot_minutes)
{
	struct sb nm = {0};
	const char *n = emit_name(ep, &nm);
	sb_adds(b, "  - name: ");
	yaml_str(b, n);
	sb_adds(b, "\n    rules:\n");
	alert_rule(b, n, "LlmEndpointDown", "up{job=%1$s} == 0", "2m", "critical", "the /metrics scrape fails",
		   "          description: >-\n"
		   "            If /health still answers 200, the engine runs without --metrics and\n"
		   "            answers /metrics with HTTP 501 (METRICS=0, law C04): the target's\n"
		   "            lastError in /api/v1/targets says so. Otherwise the engine is down.\n");
	alert_rule(b, n, "LlmMetricsOff", "absent(llamacpp:prompt_tokens_total{job=%1$s}) and on() up{job=%1$s} == 0",
		   "10m", "warning", "no llamacpp: series at all (scrape answered 501?)", NULL);
	struct sb t = {0}, w = {0};
	sb_addf(&t, "requests waited for a slot for %u minutes (PARALLEL=%s, law A07)", slot_minutes,
		endpoint_value(ep, K_PARALLEL));
	sb_addf(&w, "%um", slot_minutes);
	alert_rule(b, n, "LlmNoFreeSlot", "llamacpp:requests_deferred{job=%1$s} > 0", w.s, "warning", t.s, NULL);
	sb_release(&t);
	sb_release(&w);
	sb_release(&nm);
}

char *emit_alerts(const struct endpoint *ep, unsigned slot_minutes)
{
	struct sb b = {0};
	struct sb tmp = {0};
	sb_addf(&b, "# Alert rules for %s (Prometheus rule file)\ngroups:\n", one_line(ep->name, &tmp));
	sb_release(&tmp);
	emit_alerts_group(&b, ep, slot_minutes);
	return sb_detach(&b);
}

/* Fold a harness level onto the nearest value the template accepts. */
static const char *nearest(const struct template_facts *t, const char *level)
{
	static const char *const ladder[] = {"minimal", "low", "medium", "high", "xhigh"};
	int want = -1;
	for (int i = 0; i < 5; i++)
		if (strcmp(ladder[i], level) == 0)
			want = i;
	const char *best = t->effort[0];
	int best_d = 99;
	for (size_t j = 0; j < t->n_effort; j++) {
		int at = -1;
		for (int i = 0; i < 5; i++)
			if (strcmp(ladder[i], t->effort[j]) == 0)
				at = i;
		if (at < 0)
			continue;
		int d = at > want ? at - want : want - at;
		/* ties go up: a higher effort never raises */
		if (d < best_d || (d == best_d && at > want)) {
			best_d = d;
			best = t->effort[j];
		}
	}
	return best;
}

char *emit_harness(const struct endpoint *ep, const struct census *c, const struct plan *p)
{
	return emit_harness_at(ep, c, p, NULL, endpoint_value(ep, K_COMPACTION_HUB));
}

char *emit_harness_at(const struct endpoint *ep, const struct census *c, const struct plan *p, const char *host,
		      const char *hub)
{
	struct sb b = {0}, tmp = {0};
	char *mm = endpoint_path(ep, K_MMPROJ_FILE);
	const char *h = host ? host : host_of(ep);
	sb_addf(&b,
		"# Client harness entry for %s. contextWindow is the PER-SLOT window: the\n"
		"# engine divides the pool across slots and answers a longer prompt with\n"
		"# HTTP 400, never a truncation (law M03).\n"
		"- id: ",
		one_line(ep->name, &tmp));
	sb_release(&tmp);
	yaml_str(&b, endpoint_value(ep, K_ALIAS));
	struct sb url = {0};
	sb_addf(&url, "http://%s%s%s:%s/v1", strchr(h, ':') ? "[" : "", h, strchr(h, ':') ? "]" : "",
		endpoint_value(ep, K_LISTEN_PORT));
	sb_adds(&b, "\n  provider: llamacpp\n  baseUrl: ");
	yaml_str(&b, url.s); /* a quoted scalar, whatever the host holds */
	sb_release(&url);
	if (harness_embedding(&b, ep, c, p)) { /* an embedding endpoint: what it serves */
		sb_addc(&b, '\n');
		free(mm);
		return sb_detach(&b);
	}
	sb_addf(&b,
		"\n"
		"  contextWindow: %u\n"
		"  maxTokens: 16384\n"
		"  input: [text%s]\n"
		"  compat:\n"
		"    reasoningContentField: reasoning_content\n",
		p->n_ctx_seq, mm ? ", image" : "");
	free(mm);
	if (c->has_template && c->tpl.n_effort) {
		static const char *const levels[] = {"minimal", "low", "medium", "high", "xhigh"};
		sb_adds(&b, "    # the template accepts only these and raises on any other (law A08)\n");
		sb_adds(&b, "    reasoningEffortMap:\n");
		for (size_t i = 0; i < 5; i++)
			sb_addf(&b, "      %s: %s\n", levels[i], nearest(&c->tpl, levels[i]));
	}
	if (hub && *hub) {
		sb_adds(&b, "  # the endpoint that compacts this one's conversations (COMPACTION_HUB)\n"
			    "  compactionModel: ");
		yaml_str(&b, hub);
		sb_addc(&b, '\n');
	}
	sb_adds(&b, "  extraBody:\n");
	int any = 0, min_p = 0;
	for (size_t i = 0; i < c->n_sampling; i++) {
		const char *k = c->sampling[i].key;
		const char *name = strcmp(k, "temp") == 0 ? "temperature" : k;
		sb_addf(&b, "    %s: %g\n", name, c->sampling[i].value);
		min_p |= strcmp(k, "min_p") == 0;
		any = 1;
	}
	/* the engine's own min_p default is 0.05: a recipe that names none
	 * (general.sampling.min_p) means none, so the harness says 0 */
	if (!min_p) {
		sb_adds(&b, "    min_p: 0\n");
		any = 1;
	}
	const char *pp = endpoint_value(ep, K_PRESENCE_PENALTY);
	if (pp && *pp) {
		sb_addf(&b, "    presence_penalty: %s\n", pp);
		any = 1;
	}
	if (!any)
		sb_adds(&b, "    {}\n");
	return sb_detach(&b);
}
