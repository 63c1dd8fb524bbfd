#include "probe.h"

#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "png.h"

const char *const probe_names[] = {"health", "models", "props",	   "slots",	  "metrics", "chat",
				   "tools",  "vision", "overlong", "concurrency", "effort"};
const size_t probe_n_names = sizeof(probe_names) / sizeof(probe_names[0]);

const char *probe_status_name(enum probe_status s)
{
	return s == PROBE_PASS ? "pass" : s == PROBE_FAIL ? "fail" : "skip";
}

static void say(struct probe_results *out, const char *name, const char *law, enum probe_status st, const char *fmt,
		...) __attribute__((format(printf, 5, 6)));

static void say(struct probe_results *out, const char *name, const char *law, enum probe_status st, const char *fmt,
		...)
{
	out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	struct probe_result *r = &out->v[out->n++];
	r->name = name;
	r->law = law;
	r->status = st;
	va_list ap;
	va_start(ap, fmt);
	r->evidence = xvstrf(fmt, ap);
	va_end(ap);
}

void probe_results_release(struct probe_results *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->v[i].evidence);
	free(r->v);
	r->v = NULL;
	r->n = 0;
}

static int wanted(const char *only, const char *name)
{
	if (!only)
		return 1;
	size_t n = strlen(name);
	for (const char *p = only; *p;) {
		size_t m = strcspn(p, ",");
		if (m == n && strncmp(p, name, n) == 0)
			return 1;
		p += m + (p[m] == ',');
	}
	return 0;
}

/* A transport failure or an answer that is not JSON gets a named failure. */
static json_t *get_json(const struct http_client *c, const char *method, const char *path, const char *body,
			struct http_response *r, char *why, size_t why_n)
{
	if (http_request(c, method, path, body, r)) {
		snprintf(why, why_n, "%s %s: no answer: %.160s", method, path, r->error);
		return NULL;
	}
	json_error_t e;
	json_t *j = json_loadb(r->body.s ? r->body.s : "", r->body.len, JSON_ALLOW_NUL, &e);
	if (!j)
		snprintf(why, why_n, "%s %s: HTTP %ld, not JSON: %.80s", method, path, r->status,
			 r->body.s ? r->body.s : "");
	return j;
}

static void p_health(const struct http_client *c, struct probe_results *out)
{
	struct http_response r;
	char why[512];
	json_t *j = get_json(c, "GET", "/health", NULL, &r, why, sizeof(why));
	if (!j)
		say(out, "health", "A01", PROBE_FAIL, "%s", why);
	else if (r.status != 200)
		say(out, "health", "A01", PROBE_FAIL, "GET /health: HTTP %ld (loading or failed)", r.status);
	else
		say(out, "health", "A01", PROBE_PASS,
		    "GET /health: 200 %s (health cannot see the payload: the probes below do)",
		    json_string_value(json_object_get(j, "status")) ? json_string_value(json_object_get(j, "status"))
								    : "");
	json_decref(j);
	http_response_release(&r);
}

static void p_models(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	struct http_response r;
	char why[512];
	json_t *j = get_json(c, "GET", "/v1/models", NULL, &r, why, sizeof(why));
	const char *id =
	    j ? json_string_value(json_object_get(json_array_get(json_object_get(j, "data"), 0), "id")) : NULL;
	if (!j)
		say(out, "models", "C06", PROBE_FAIL, "%s", why);
	else if (r.status != 200 || !id)
		say(out, "models", "C06", PROBE_FAIL, "GET /v1/models: HTTP %ld, no model id", r.status);
	else if (e->alias && strcmp(id, e->alias) != 0)
		say(out, "models", "C06", PROBE_FAIL,
		    "serves '%s', the endpoint's ALIAS is '%s' (id-keyed clients break)", id, e->alias);
	else
		say(out, "models", "C06", PROBE_PASS, "serves '%s'%s", id, e->alias ? " = ALIAS" : "");
	json_decref(j);
	http_response_release(&r);
}

/* /props: slots and the per-slot window; fills what it learned into e2. */
static void p_props(const struct http_client *c, const struct probe_expect *e, struct probe_expect *learned,
		    struct probe_results *out, int report)
{
	struct http_response r;
	char why[512];
	json_t *j = get_json(c, "GET", "/props", NULL, &r, why, sizeof(why));
	json_int_t slots = j ? json_integer_value(json_object_get(j, "total_slots")) : 0;
	json_int_t n_ctx =
	    j ? json_integer_value(json_object_get(json_object_get(j, "default_generation_settings"), "n_ctx")) : 0;
	if (j) {
		learned->slots = (uint32_t)slots;
		learned->n_ctx_seq = (uint32_t)n_ctx;
		json_t *mod = json_object_get(j, "modalities");
		learned->projector = json_is_true(json_object_get(mod, "vision"));
	}
	if (report) {
		if (!j || r.status != 200)
			say(out, "props", "M03", PROBE_FAIL, "%s", j ? "GET /props: not 200" : why);
		else if ((e->slots && slots != e->slots) || (e->n_ctx_seq && n_ctx != e->n_ctx_seq))
			say(out, "props", "M03", PROBE_FAIL,
			    "%lld slots of %lld tokens; the endpoint says %u slots of %u (a different shape is "
			    "serving)",
			    (long long)slots, (long long)n_ctx, e->slots, e->n_ctx_seq);
		else
			say(out, "props", "M03", PROBE_PASS, "%lld slots of %lld tokens per slot%s", (long long)slots,
			    (long long)n_ctx, e->slots ? " = the endpoint's shape" : "");
	}
	json_decref(j);
	http_response_release(&r);
}

static void p_slots(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	struct http_response r;
	char why[512];
	json_t *j = get_json(c, "GET", "/slots", NULL, &r, why, sizeof(why));
	if (!j && r.status == 501)
		say(out, "slots", "A07", PROBE_FAIL, "GET /slots: 501 (the slots endpoint is off)");
	else if (!j || !json_is_array(j))
		say(out, "slots", "A07", PROBE_FAIL, "%s", j ? "GET /slots: not an array" : why);
	else if (e->slots && json_array_size(j) != e->slots)
		say(out, "slots", "A07", PROBE_FAIL, "%zu slots, the endpoint says %u", json_array_size(j), e->slots);
	else
		say(out, "slots", "A07", PROBE_PASS, "%zu slots listed", json_array_size(j));
	json_decref(j);
	http_response_release(&r);
}

static void p_metrics(const struct http_client *c, struct probe_results *out)
{
	struct http_response r;
	if (http_request(c, "GET", "/metrics", NULL, &r)) {
		say(out, "metrics", "C04", PROBE_FAIL, "GET /metrics: no answer: %s", r.error);
	} else if (r.status == 501) {
		say(out, "metrics", "C04", PROBE_FAIL,
		    "GET /metrics: 501: the engine runs without --metrics; monitoring reads it as DOWN while /health "
		    "says 200");
	} else if (r.status != 200) {
		say(out, "metrics", "C04", PROBE_FAIL, "GET /metrics: HTTP %ld", r.status);
	} else {
		size_t families = 0;
		for (const char *p = r.body.s; p && (p = strstr(p, "# TYPE llamacpp:")); p++)
			families++;
		if (families)
			say(out, "metrics", "C04", PROBE_PASS, "GET /metrics: 200, %zu llamacpp: families", families);
		else
			say(out, "metrics", "C04", PROBE_FAIL, "GET /metrics: 200 but no llamacpp: families");
	}
	http_response_release(&r);
}

static const char *msg_str(json_t *choice, const char *field)
{
	const char *s = json_string_value(json_object_get(json_object_get(choice, "message"), field));
	return s ? s : "";
}

enum probe_status probe_judge_chat(long status, const char *body, size_t n, char **evidence)
{
	struct sb ev = {0};
	enum probe_status st;
	json_t *j = json_loadb(body ? body : "", n, JSON_ALLOW_NUL, NULL);
	json_t *ch = j ? json_array_get(json_object_get(j, "choices"), 0) : NULL;
	/* body need not be NUL-terminated: quote at most n bytes */
	int q80 = (int)(n < 80 ? n : 80), q120 = (int)(n < 120 ? n : 120);
	if (!j) {
		sb_addf(&ev, "HTTP %ld, not JSON: %.*s", status, q80, body ? body : "");
		st = PROBE_FAIL;
	} else if (status != 200 || !json_is_object(ch)) {
		sb_addf(&ev, "POST /v1/chat/completions: HTTP %ld: %.*s", status, q120, body ? body : "");
		st = PROBE_FAIL;
	} else {
		const char *fr = json_string_value(json_object_get(ch, "finish_reason"));
		const char *content = msg_str(ch, "content"), *reasoning = msg_str(ch, "reasoning_content");
		json_int_t toks = json_integer_value(json_object_get(json_object_get(j, "usage"), "completion_tokens"));
		if (!*content && fr && strcmp(fr, "length") == 0 && *reasoning) {
			sb_addf(&ev,
				"thinking trap: %lld tokens all went to reasoning_content, content empty, "
				"finish_reason length "
				"(a model mid-thought, not a dead one; give clients a larger max_tokens)",
				(long long)toks);
			st = PROBE_PASS;
		} else if (!*content && !*reasoning) {
			sb_addf(&ev, "200 but no content and no reasoning (finish_reason %s)", fr ? fr : "none");
			st = PROBE_FAIL;
		} else {
			sb_addf(&ev, "finish_reason %s, %lld tokens, content: %.60s", fr ? fr : "none", (long long)toks,
				content);
			st = PROBE_PASS;
		}
	}
	json_decref(j);
	*evidence = sb_detach(&ev);
	return st;
}

static void p_chat(const struct http_client *c, struct probe_results *out)
{
	/* a budget that survives thinking (A03: >= 2048 for chat) */
	const char *body = "{\"messages\":[{\"role\":\"user\",\"content\":\"Reply with the two words: zealot alive\"}],"
			   "\"max_tokens\":2048}";
	struct http_response r;
	char *ev = NULL;
	enum probe_status st;
	if (http_request(c, "POST", "/v1/chat/completions", body, &r)) {
		st = PROBE_FAIL;
		struct sb b = {0};
		sb_addf(&b, "POST /v1/chat/completions: no answer: %s", r.error);
		ev = sb_detach(&b);
	} else {
		st = probe_judge_chat(r.status, r.body.s, r.body.len, &ev);
	}
	say(out, "chat", "A03", st, "%s", ev);
	free(ev);
	http_response_release(&r);
}

static void p_tools(const struct http_client *c, struct probe_results *out)
{
	const char *body =
	    "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 24 + 7? Use the add tool.\"}],\"max_tokens\":2048,"
	    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"add\",\"description\":\"add two integers\","
	    "\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":"
	    "\"integer\"}},"
	    "\"required\":[\"a\",\"b\"]}}}]}";
	struct http_response r;
	char why[512];
	json_t *j = get_json(c, "POST", "/v1/chat/completions", body, &r, why, sizeof(why));
	json_t *ch = j ? json_array_get(json_object_get(j, "choices"), 0) : NULL;
	if (!j) {
		say(out, "tools", NULL, PROBE_FAIL, "%s", why);
	} else if (r.status != 200 || !ch) {
		const char *msg = json_string_value(json_object_get(json_object_get(j, "error"), "message"));
		if (r.status == 500 && msg && strstr(msg, "does not match"))
			say(out, "tools", NULL, PROBE_SKIP,
			    "evidence: the model's output did not parse as a tool call (%s)", msg);
		else
			say(out, "tools", NULL, PROBE_FAIL, "HTTP %ld: %.160s", r.status, msg ? msg : r.body.s);
	} else {
		const char *fr = json_string_value(json_object_get(ch, "finish_reason"));
		json_t *calls = json_object_get(json_object_get(ch, "message"), "tool_calls");
		if (fr && strcmp(fr, "tool_calls") == 0 && json_array_size(calls)) {
			const char *args = json_string_value(
			    json_object_get(json_object_get(json_array_get(calls, 0), "function"), "arguments"));
			json_t *parsed = args ? json_loads(args, 0, NULL) : NULL;
			if (parsed)
				say(out, "tools", NULL, PROBE_PASS, "finish_reason tool_calls, arguments %s", args);
			else
				say(out, "tools", NULL, PROBE_FAIL,
				    "tool_calls with arguments that are not JSON: %.80s", args ? args : "(none)");
			json_decref(parsed);
		} else {
			say(out, "tools", NULL, PROBE_SKIP,
			    "evidence: finish_reason %s, no tool call (calling a tool is the model's choice)",
			    fr ? fr : "none");
		}
	}
	json_decref(j);
	http_response_release(&r);
}

static json_int_t prompt_tokens(const struct http_client *c, const char *body, long *status)
{
	struct http_response r;
	char why[512];
	json_t *j = get_json(c, "POST", "/v1/chat/completions", body, &r, why, sizeof(why));
	*status = r.status;
	json_int_t n = j ? json_integer_value(json_object_get(json_object_get(j, "usage"), "prompt_tokens")) : -1;
	json_decref(j);
	http_response_release(&r);
	return n;
}

static void p_vision(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (e->projector == 0) {
		say(out, "vision", "A04", PROBE_SKIP, "no projector on this endpoint");
		return;
	}
	struct sb png = {0}, body = {0};
	if (png_solid(512, 512, 255, 0, 0, &png)) {
		say(out, "vision", "A04", PROBE_FAIL, "cannot encode the probe image");
		return;
	}
	sb_adds(&body, "{\"max_tokens\":512,\"messages\":[{\"role\":\"user\",\"content\":[{\"type\":\"text\",\"text\":"
		       "\"What colour is this image? One word.\"},{\"type\":\"image_url\",\"image_url\":{\"url\":"
		       "\"data:image/png;base64,");
	base64_append((const unsigned char *)png.s, png.len, &body);
	sb_adds(&body, "\"}}]}]}");
	long st_img, st_txt;
	json_int_t with = prompt_tokens(c, body.s, &st_img);
	json_int_t without = prompt_tokens(c,
					   "{\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"What "
					   "colour is this image? One word.\"}]}",
					   &st_txt);
	if (st_img != 200)
		say(out, "vision", "A04", PROBE_FAIL, "a 512 px PNG as an image_url part: HTTP %ld", st_img);
	else if (with <= without)
		say(out, "vision", "A04", PROBE_FAIL,
		    "the image added no prompt tokens (%lld vs %lld): it never reached the model", (long long)with,
		    (long long)without);
	else
		say(out, "vision", "A04", PROBE_PASS,
		    "a 512 px PNG billed %lld prompt tokens (%lld with it, %lld without)", (long long)(with - without),
		    (long long)with, (long long)without);
	sb_release(&png);
	sb_release(&body);
}

static void p_overlong(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (!e->n_ctx_seq) {
		say(out, "overlong", "M03", PROBE_SKIP, "the per-slot window is unknown");
		return;
	}
	/* one token past the window: " x" is one token in every BPE we know */
	struct sb body = {0};
	sb_adds(&body, "{\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"");
	for (uint32_t i = 0; i <= e->n_ctx_seq; i++)
		sb_add(&body, " x", 2);
	sb_adds(&body, "\"}]}");
	struct http_response r;
	char why[512];
	json_t *j = get_json(c, "POST", "/v1/chat/completions", body.s, &r, why, sizeof(why));
	json_t *err = j ? json_object_get(j, "error") : NULL;
	json_int_t n_ctx = json_integer_value(json_object_get(err, "n_ctx"));
	const char *msg = json_string_value(json_object_get(err, "message"));
	if (!j)
		say(out, "overlong", "M03", PROBE_FAIL, "%s", why);
	else if (r.status == 400 && (n_ctx == e->n_ctx_seq || (msg && strstr(msg, "context size"))))
		say(out, "overlong", "M03", PROBE_PASS, "HTTP 400 naming the %lld-token window: %.100s",
		    (long long)n_ctx, msg ? msg : "");
	else if (r.status == 200)
		say(out, "overlong", "M03", PROBE_FAIL, "a prompt past the %u-token window was accepted (truncated?)",
		    e->n_ctx_seq);
	else
		say(out, "overlong", "M03", PROBE_FAIL, "HTTP %ld: %.100s", r.status, msg ? msg : "");
	json_decref(j);
	http_response_release(&r);
	sb_release(&body);
}

static void p_concurrency(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (!e->slots) {
		say(out, "concurrency", "A07", PROBE_SKIP, "the slot count is unknown");
		return;
	}
	size_t n = e->slots + 1;
	char **bodies = xcalloc(n, sizeof(*bodies));
	struct http_response *r = xcalloc(n, sizeof(*r));
	for (size_t i = 0; i < n; i++) {
		struct sb b = {0};
		sb_addf(&b,
			"{\"max_tokens\":96,\"ignore_eos\":true,\"messages\":[{\"role\":\"user\",\"content\":"
			"\"concurrency probe %zu: count slowly\"}]}",
			i);
		bodies[i] = sb_detach(&b);
	}
	http_parallel(c, "/v1/chat/completions", bodies, n, r);
	/* A request that waited for a slot spent part of its wall time queued:
	 * wall time minus the engine's own time for it (timings.prompt_ms +
	 * predicted_ms). Judged on that, not on wall times alone, so a slow or
	 * loaded host (every wall time inflated alike) reads the same. */
	double lo = 1e30, hi = 0, busy_lo = 1e30, wait_hi = 0;
	size_t ok = 0, timed = 0;
	for (size_t i = 0; i < n; i++) {
		if (r[i].status == 200)
			ok++;
		if (r[i].seconds < lo)
			lo = r[i].seconds;
		if (r[i].seconds > hi)
			hi = r[i].seconds;
		json_t *j = r[i].status == 200
				? json_loadb(r[i].body.s ? r[i].body.s : "", r[i].body.len, JSON_ALLOW_NUL, NULL)
				: NULL;
		json_t *t = json_object_get(j, "timings");
		if (t) {
			double busy = (json_number_value(json_object_get(t, "prompt_ms")) +
				       json_number_value(json_object_get(t, "predicted_ms"))) /
				      1000.0;
			double wait = r[i].seconds - busy;
			if (busy < busy_lo)
				busy_lo = busy;
			if (wait > wait_hi)
				wait_hi = wait;
			timed++;
		}
		json_decref(j);
	}
	int waited = timed == n ? wait_hi >= 0.5 * busy_lo : hi >= 1.5 * lo;
	if (ok != n)
		say(out, "concurrency", "A07", PROBE_FAIL, "%zu of %zu simultaneous requests answered 200", ok, n);
	else if (!waited)
		say(out, "concurrency", "A07", PROBE_FAIL,
		    "%zu requests on %u slots all ran together (%.2f s to %.2f s, longest queue %.2f s against %.2f s "
		    "of engine time): more slots serve than the endpoint says",
		    n, e->slots, lo, hi, timed == n ? wait_hi : 0.0, timed == n ? busy_lo : 0.0);
	else
		say(out, "concurrency", "A07", PROBE_PASS,
		    "%zu requests on %u slots: one waited for a slot (%.2f s vs %.2f s; queued %.2f s)", n, e->slots,
		    hi, lo, timed == n ? wait_hi : hi - lo);
	for (size_t i = 0; i < n; i++) {
		free(bodies[i]);
		http_response_release(&r[i]);
	}
	free(bodies);
	free(r);
}

static long effort_status(const struct http_client *c, const char *value)
{
	struct sb b = {0};
	sb_addf(&b,
		"{\"max_tokens\":1,\"reasoning_effort\":\"%s\",\"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
		value);
	struct http_response r;
	http_request(c, "POST", "/v1/chat/completions", b.s, &r);
	long st = r.status;
	http_response_release(&r);
	sb_release(&b);
	return st;
}

static void p_effort(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (!e->n_efforts) {
		say(out, "effort", "A08", PROBE_SKIP,
		    "the template does not restrict reasoning_effort (or no --endpoint)");
		return;
	}
	struct sb ev = {0};
	int bad = 0;
	for (size_t i = 0; i < e->n_efforts; i++) {
		long st = effort_status(c, e->efforts[i]);
		sb_addf(&ev, "%s%s %ld", i ? ", " : "", e->efforts[i], st);
		bad |= st != 200;
	}
	/* a level clients send that the template does not list */
	static const char *const probes[] = {"high", "minimal", "none"};
	const char *outside = NULL;
	for (size_t k = 0; k < 3 && !outside; k++) {
		int listed = 0;
		for (size_t i = 0; i < e->n_efforts; i++)
			listed |= strcmp(e->efforts[i], probes[k]) == 0;
		if (!listed)
			outside = probes[k];
	}
	if (outside) {
		long st = effort_status(c, outside);
		sb_addf(&ev, "; %s %ld%s", outside, st, st >= 400 ? " (raises: clients need the map)" : "");
		if (e->effort_raises && st == 200)
			bad = 1;
	}
	say(out, "effort", "A08", bad ? PROBE_FAIL : PROBE_PASS, "%s", ev.s);
	sb_release(&ev);
}

void probe_run(const struct http_client *c, const struct probe_expect *e, const char *only, struct probe_results *out)
{
	/* learn the shape from the engine where the endpoint is silent */
	struct probe_expect x = *e;
	struct probe_expect learned = {0};
	learned.projector = -1;
	p_props(c, e, &learned, out, wanted(only, "props"));
	if (!x.slots)
		x.slots = learned.slots;
	if (!x.n_ctx_seq)
		x.n_ctx_seq = learned.n_ctx_seq;
	if (x.projector < 0)
		x.projector = learned.projector;
	if (wanted(only, "health"))
		p_health(c, out);
	if (wanted(only, "models"))
		p_models(c, e, out);
	if (wanted(only, "slots"))
		p_slots(c, e, out);
	if (wanted(only, "metrics"))
		p_metrics(c, out);
	if (wanted(only, "chat"))
		p_chat(c, out);
	if (wanted(only, "tools"))
		p_tools(c, out);
	if (wanted(only, "vision"))
		p_vision(c, &x, out);
	if (wanted(only, "overlong"))
		p_overlong(c, &x, out);
	if (wanted(only, "concurrency"))
		p_concurrency(c, &x, out);
	if (wanted(only, "effort"))
		p_effort(c, &x, out);
}
