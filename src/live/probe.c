#include "probe.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../endpoint/endpoint.h"
#include "../payload/census.h"
#include "../payload/model.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "png.h"
#include "probe_int.h"

const char *probe_status_name(enum probe_status s)
{
	return s == PROBE_PASS ? "pass" : s == PROBE_FAIL ? "fail" : s == PROBE_SKIP ? "skip" : "inconclusive";
}

static int wanted(const char *only, const char *name);

char *probe_only_expected(const char *only, const struct probe_expect *e)
{
	if (!only)
		return NULL;
	struct sb b = {0};
	sb_adds(&b, only);
	const char *names[] = {"chat", "tools", "vision", "refusal"};
	int want[] = {e->chat_expect != NULL, e->tools_expect != NULL, e->vision_expect != NULL,
		      e->n_refusal_prompts > 0};
	for (size_t i = 0; i < 4; i++)
		if (want[i] && !wanted(only, names[i]))
			sb_addf(&b, "%s%s", b.len ? "," : "", names[i]);
	return sb_detach(&b);
}

int probe_failed(const struct probe_result *r)
{
	return r->status == PROBE_FAIL || (r->status == PROBE_INCONCLUSIVE && r->expected);
}

int probe_is_refusal(const char *answer, char *const *markers, size_t n_markers)
{
	for (size_t i = 0; i < n_markers; i++)
		if (*markers[i] && strcasestr(answer, markers[i]))
			return 1;
	return 0;
}

struct json_t *probe_result_json(const struct probe_result *r)
{
	/* s?: a NULL string is null */
	json_t *x = json_pack("{s:s,s:s,s:s,s:s?,s:s?,s:s?}", "name", r->name, "status", probe_status_name(r->status),
			      "evidence", r->evidence ? r->evidence : "", "law", r->law, "expected", r->expected,
			      "answer", r->answer);
	if (r->answer_without)
		json_object_set_new(x, "answer_without_image", json_string(r->answer_without));
	if (r->prompts) {
		json_t *pa = json_array();
		for (size_t k = 0; k < r->n_prompts; k++) {
			const struct probe_prompt *q = &r->prompts[k];
			json_t *refused = q->refused < 0 ? json_string("inconclusive") : json_boolean(q->refused);
			json_array_append_new(pa, json_pack("{s:s,s:s?,s:o}", "prompt", q->prompt, "answer", q->answer,
							    "refused", refused));
		}
		json_object_set_new(x, "prompts", pa);
	}
	return x;
}

char *probe_results_json(const struct probe_results *r)
{
	json_t *a = json_array();
	for (size_t i = 0; i < r->n; i++)
		json_array_append_new(a, probe_result_json(&r->v[i]));
	char *s = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return s;
}

/* A baseline's results: the array itself, or an object's "probes" array. */
static json_t *baseline_load(const char *text)
{
	json_t *a = text ? json_loads(text, 0, NULL) : NULL;
	if (json_is_object(a)) {
		json_t *p = json_incref(json_object_get(a, "probes"));
		json_decref(a);
		a = p;
	}
	return a;
}

static const struct probe_result *result_named(const struct probe_results *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->v[i].name, name) == 0)
			return &r->v[i];
	return NULL;
}

size_t probe_compare(const char *baseline_json, const struct probe_results *now, struct sb *out)
{
	json_t *a = baseline_load(baseline_json);
	size_t changes = 0, i;
	json_t *o;
	json_array_foreach(a, i, o)
	{
		const char *name = json_string_value(json_object_get(o, "name"));
		const struct probe_result *p = name ? result_named(now, name) : NULL;
		if (!p)
			continue;
		json_t *prompts = json_object_get(o, "prompts");
		if (json_is_array(prompts)) {
			size_t k;
			json_t *q;
			json_array_foreach(prompts, k, q)
			{
				const char *text = json_string_value(json_object_get(q, "prompt"));
				json_t *was = json_object_get(q, "refused");
				for (size_t m = 0; text && json_is_boolean(was) && m < p->n_prompts; m++) {
					const struct probe_prompt *pp = &p->prompts[m];
					if (strcmp(pp->prompt, text) != 0 || pp->refused < 0 ||
					    pp->refused == json_is_true(was))
						continue;
					sb_addf(out, "%s%s: '%.80s' now answers '%.80s'", changes++ ? "; " : "",
						pp->refused ? "refusal appeared" : "refusal gone", text,
						pp->answer ? pp->answer : "");
				}
			}
			continue;
		}
		const char *old = json_string_value(json_object_get(o, "answer"));
		if (old && p->answer && strcmp(old, p->answer) != 0)
			sb_addf(out, "%s%s: answer changed: '%.80s' -> '%.80s'", changes++ ? "; " : "", name, old,
				p->answer);
	}
	json_decref(a);
	return changes;
}

void probe_expect_baseline(struct probe_expect *e, const char *baseline_json)
{
	if (e->n_refusal_prompts || !baseline_json)
		return;
	json_t *a = baseline_load(baseline_json);
	size_t i, k;
	json_t *o, *q;
	json_array_foreach(a, i, o)
	{
		json_array_foreach(json_object_get(o, "prompts"), k, q)
		{
			const char *text = json_string_value(json_object_get(q, "prompt"));
			if (!text)
				continue;
			e->refusal_prompts =
			    xreallocarray(e->refusal_prompts, e->n_refusal_prompts + 1, sizeof(*e->refusal_prompts));
			e->refusal_prompts[e->n_refusal_prompts++] = xstrdup(text);
		}
	}
	json_decref(a);
}

static void split_into(const char *text, char sep, char ***v, size_t *n)
{
	for (const char *p = text; p && *p;) {
		size_t m = strcspn(p, (char[]){sep, sep == '\n' ? '\r' : '\0', '\0'});
		const char *a = p, *b = p + m;
		while (a < b && (*a == ' ' || *a == '\t'))
			a++;
		while (b > a && (b[-1] == ' ' || b[-1] == '\t'))
			b--;
		if (b > a) {
			*v = xreallocarray(*v, *n + 1, sizeof(**v));
			(*v)[(*n)++] = xstrndup(a, (size_t)(b - a));
		}
		p += m;
		while (*p == sep || *p == '\r')
			p++;
	}
}

enum zerr probe_expect_load(const struct endpoint *ep, const struct shape_ctx *s, const struct plan *p,
			    struct probe_expect *e, char **err)
{
	memset(e, 0, sizeof(*e));
	e->projector = -1;
	if (!ep)
		return ZE_OK;
	e->alias = endpoint_value_of(ep, K_ALIAS);
	if (p) {
		e->slots = p->n_seq;
		e->n_ctx_seq = p->n_ctx_seq;
	}
	if (s) {
		e->projector = s->projector != NULL;
		if (s->census && s->census->has_template && s->census->tpl.n_effort) {
			e->efforts = (const char *const *)s->census->tpl.effort;
			e->n_efforts = s->census->tpl.n_effort;
			e->effort_raises = s->census->tpl.raises;
		}
	}
	if (s && s->census) {
		e->sampling = s->census->sampling;
		e->n_sampling = s->census->n_sampling;
		if (s->census->model)
			e->n_embd = s->census->model->n_embd;
	}
	const char *em = endpoint_value_of(ep, K_EMBEDDINGS);
	e->embeddings = em && strcmp(em, "on") == 0;
	const char *pool = endpoint_value_of(ep, K_POOLING);
	e->rerank = e->embeddings && pool && strcmp(pool, "rank") == 0;
	const char *v = endpoint_value_of(ep, K_PRESENCE_PENALTY);
	if (v && *v && endpoint_number_of(ep, K_PRESENCE_PENALTY, &e->presence_penalty, NULL) == 0)
		e->has_presence_penalty = 1;
	if ((v = endpoint_value_of(ep, K_PROBE_CHAT_EXPECT)) && *v)
		e->chat_expect = v;
	if ((v = endpoint_value_of(ep, K_PROBE_TOOLS_EXPECT)) && *v)
		e->tools_expect = v;
	if ((v = endpoint_value_of(ep, K_PROBE_VISION_EXPECT)) && *v)
		e->vision_expect = v;
	v = endpoint_value_of(ep, K_PROBE_REFUSAL_MARKERS);
	if (!v || !*v)
		v = keys_at(K_PROBE_REFUSAL_MARKERS)->def;
	split_into(v, '|', &e->markers, &e->n_markers);
	if ((v = endpoint_value_of(ep, K_PROBE_REFUSAL)) && *v)
		e->refusal = strcmp(v, "absent") == 0 ? 1 : 2;
	char *path = endpoint_path_of(ep, K_PROBE_REFUSAL_PROMPTS);
	if (path) {
		FILE *f = fopen(path, "rb");
		struct sb b = {0};
		char buf[4096];
		size_t n;
		if (!f) {
			int no = errno;
			errorf(err, "PROBE_REFUSAL_PROMPTS: cannot read %s: %s", path, strerror(no));
			free(path);
			probe_expect_release(e);
			return zerr_of_errno(no);
		}
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
			sb_add(&b, buf, n);
		fclose(f);
		split_into(b.s, '\n', &e->refusal_prompts, &e->n_refusal_prompts);
		sb_release(&b);
		free(path);
	}
	if (e->refusal && !e->n_refusal_prompts) {
		errorf(err, "PROBE_REFUSAL=%s needs PROBE_REFUSAL_PROMPTS (a file of prompts, one per line)",
		       e->refusal == 1 ? "absent" : "present");
		probe_expect_release(e);
		return ZE_USAGE;
	}
	return ZE_OK;
}

void probe_expect_release(struct probe_expect *e)
{
	for (size_t i = 0; i < e->n_refusal_prompts; i++)
		free(e->refusal_prompts[i]);
	free(e->refusal_prompts);
	for (size_t i = 0; i < e->n_markers; i++)
		free(e->markers[i]);
	free(e->markers);
	e->refusal_prompts = e->markers = NULL;
	e->n_refusal_prompts = e->n_markers = 0;
}

static void say(struct probe_results *out, const char *name, const char *law, enum probe_status st, const char *fmt,
		...) __attribute__((format(printf, 5, 6)));

struct probe_result *probe_push(struct probe_results *out, const char *name, const char *law, enum probe_status st,
				char *evidence)
{
	out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	struct probe_result *r = &out->v[out->n++];
	memset(r, 0, sizeof(*r));
	r->name = name;
	r->law = law;
	r->status = st;
	r->evidence = evidence;
	return r;
}

static void say(struct probe_results *out, const char *name, const char *law, enum probe_status st, const char *fmt,
		...)
{
	va_list ap;
	va_start(ap, fmt);
	probe_push(out, name, law, st, xvstrf(fmt, ap));
	va_end(ap);
}

/* A probe that lacks what it needs (lacking) is said skipped, with why;
 * whether it was. */
static int skipped(struct probe_results *out, int lacking, const char *name, const char *law, const char *why)
{
	if (lacking)
		say(out, name, law, PROBE_SKIP, "%s", why);
	return lacking;
}

void probe_results_release(struct probe_results *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->v[i].evidence);
		free(r->v[i].expected);
		free(r->v[i].answer);
		free(r->v[i].answer_without);
		for (size_t k = 0; k < r->v[i].n_prompts; k++) {
			free(r->v[i].prompts[k].prompt);
			free(r->v[i].prompts[k].answer);
		}
		free(r->v[i].prompts);
	}
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
json_t *probe_get_json(const struct http_client *c, const char *method, const char *path, const char *body,
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

/* An answer to a JSON request: the response, the parsed body (NULL with
 * why when there is none), released together. */
struct answer {
	struct http_response r;
	json_t *j;
	char why[512];
};

static json_t *ask(const struct http_client *c, const char *method, const char *path, const char *body,
		   struct answer *a)
{
	a->j = probe_get_json(c, method, path, body, &a->r, a->why, sizeof(a->why));
	return a->j;
}

static void answer_release(struct answer *a)
{
	json_decref(a->j);
	http_response_release(&a->r);
}

enum zerr probe_reachable(const struct http_client *c, char *why, size_t why_n)
{
	struct http_response r;
	int rc = http_request(c, "GET", "/health", NULL, &r);
	if (rc)
		snprintf(why, why_n, "%s: no answer: %.160s", c->base, r.error);
	http_response_release(&r);
	return rc ? ZE_IO : ZE_OK;
}

static void p_health(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	(void)e;
	struct answer a;
	json_t *j = ask(c, "GET", "/health", NULL, &a);
	if (!j)
		say(out, "health", "A01", PROBE_FAIL, "%s", a.why);
	else if (a.r.status != 200)
		say(out, "health", "A01", PROBE_FAIL, "GET /health: HTTP %ld (loading or failed)", a.r.status);
	else
		say(out, "health", "A01", PROBE_PASS,
		    "GET /health: 200 %s (health cannot see the payload: the probes below do)",
		    json_string_value(json_object_get(j, "status")) ? json_string_value(json_object_get(j, "status"))
								    : "");
	answer_release(&a);
}

static void p_models(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	struct answer a;
	json_t *j = ask(c, "GET", "/v1/models", NULL, &a);
	const char *id =
	    j ? json_string_value(json_object_get(json_array_get(json_object_get(j, "data"), 0), "id")) : NULL;
	if (!j)
		say(out, "models", "C06", PROBE_FAIL, "%s", a.why);
	else if (a.r.status != 200 || !id)
		say(out, "models", "C06", PROBE_FAIL, "GET /v1/models: HTTP %ld, no model id", a.r.status);
	else if (e->alias && strcmp(id, e->alias) != 0)
		say(out, "models", "C06", PROBE_FAIL,
		    "serves '%s', the endpoint's ALIAS is '%s' (id-keyed clients break)", id, e->alias);
	else
		say(out, "models", "C06", PROBE_PASS, "serves '%s'%s", id, e->alias ? " = ALIAS" : "");
	answer_release(&a);
}

/* /props: slots and the per-slot window; fills what it learned into e2. */
static void p_props(const struct http_client *c, const struct probe_expect *e, struct probe_expect *learned,
		    struct probe_results *out, int report)
{
	struct answer a;
	json_t *j = ask(c, "GET", "/props", NULL, &a);
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
		if (!j || a.r.status != 200)
			say(out, "props", "M03", PROBE_FAIL, "%s", j ? "GET /props: not 200" : a.why);
		else if ((e->slots && slots != e->slots) || (e->n_ctx_seq && n_ctx != e->n_ctx_seq))
			say(out, "props", "M03", PROBE_FAIL,
			    "%lld slots of %lld tokens; the endpoint says %u slots of %u (a different shape is "
			    "serving)",
			    (long long)slots, (long long)n_ctx, e->slots, e->n_ctx_seq);
		else
			say(out, "props", "M03", PROBE_PASS, "%lld slots of %lld tokens per slot%s", (long long)slots,
			    (long long)n_ctx, e->slots ? " = the endpoint's shape" : "");
	}
	answer_release(&a);
}

static void p_slots(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	struct answer a;
	json_t *j = ask(c, "GET", "/slots", NULL, &a);
	if (!j && a.r.status == 501)
		say(out, "slots", "A07", PROBE_FAIL, "GET /slots: 501 (the slots endpoint is off)");
	else if (!j || !json_is_array(j))
		say(out, "slots", "A07", PROBE_FAIL, "%s", j ? "GET /slots: not an array" : a.why);
	else if (e->slots && json_array_size(j) != e->slots)
		say(out, "slots", "A07", PROBE_FAIL, "%zu slots, the endpoint says %u", json_array_size(j), e->slots);
	else
		say(out, "slots", "A07", PROBE_PASS, "%zu slots listed", json_array_size(j));
	answer_release(&a);
}

static void p_metrics(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	(void)e;
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

/* Whether the message has FIELD with any text. The length, not the first
 * byte: a model may well emit U+0000 first, and that is still an answer. */
static int msg_has(json_t *choice, const char *field)
{
	return json_string_length(json_object_get(json_object_get(choice, "message"), field)) > 0;
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
		const char *content = msg_str(ch, "content");
		int has_content = msg_has(ch, "content"), has_reasoning = msg_has(ch, "reasoning_content");
		json_int_t toks = json_integer_value(json_object_get(json_object_get(j, "usage"), "completion_tokens"));
		if (!has_content && fr && strcmp(fr, "length") == 0 && has_reasoning) {
			sb_addf(&ev,
				"thinking trap: %lld tokens all went to reasoning_content, content empty, "
				"finish_reason length "
				"(a model mid-thought, not a dead one; give clients a larger max_tokens)",
				(long long)toks);
			st = PROBE_PASS;
		} else if (!has_content && !has_reasoning) {
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

/* What one chat request got: content trimmed of surrounding blanks (NULL
 * when no completion came back), and whether the budget ran out in
 * reasoning. */
struct got {
	long status;
	char *content;
	int trap;
	char *why;
};

static char *trimmed(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\n' || *s == '\r')
		s++;
	size_t n = strlen(s);
	while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\n' || s[n - 1] == '\r'))
		n--;
	return xstrndup(s, n);
}

static void got_parse(long status, const char *body, size_t n, struct got *g)
{
	g->status = status;
	json_t *j = json_loadb(body ? body : "", n, JSON_ALLOW_NUL, NULL);
	json_t *ch = j ? json_array_get(json_object_get(j, "choices"), 0) : NULL;
	if (status == 200 && json_is_object(ch)) {
		const char *fr = json_string_value(json_object_get(ch, "finish_reason"));
		g->content = trimmed(msg_str(ch, "content"));
		g->trap =
		    !msg_has(ch, "content") && fr && strcmp(fr, "length") == 0 && msg_has(ch, "reasoning_content");
	} else {
		struct sb b = {0};
		sb_addf(&b, "HTTP %ld: %.*s", status, (int)(n < 120 ? n : 120), body ? body : "");
		g->why = sb_detach(&b);
	}
	json_decref(j);
}

static void got_read(const struct http_response *r, struct got *g)
{
	got_parse(r->status, r->body.s, r->body.len, g);
}

static void got_release(struct got *g)
{
	free(g->content);
	free(g->why);
}

static struct probe_result *last(struct probe_results *out)
{
	return &out->v[out->n - 1];
}

static void p_chat(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	/* a budget that survives thinking (A03: >= 2048 for chat) */
	const char *body = "{\"messages\":[{\"role\":\"user\",\"content\":\"Reply with the two words: zealot alive\"}],"
			   "\"max_tokens\":2048}";
	struct http_response r;
	char *ev = NULL;
	enum probe_status st;
	struct got g = {0};
	if (http_request(c, "POST", "/v1/chat/completions", body, &r)) {
		st = PROBE_FAIL;
		struct sb b = {0};
		sb_addf(&b, "POST /v1/chat/completions: no answer: %s", r.error);
		ev = sb_detach(&b);
	} else {
		st = probe_judge_chat(r.status, r.body.s, r.body.len, &ev);
		got_read(&r, &g);
	}
	if (e->chat_expect && st == PROBE_PASS) {
		if (g.trap) {
			st = PROBE_INCONCLUSIVE;
		} else if (strcmp(g.content, e->chat_expect) != 0) {
			st = PROBE_FAIL;
			free(ev);
			struct sb b = {0};
			sb_addf(&b, "expected '%s', answered '%.120s'", e->chat_expect, g.content);
			ev = sb_detach(&b);
		}
	}
	say(out, "chat", "A03", st, "%s", ev);
	if (e->chat_expect)
		last(out)->expected = xstrdup(e->chat_expect);
	if (g.content)
		last(out)->answer = xstrdup(g.content);
	free(ev);
	got_release(&g);
	http_response_release(&r);
}

int probe_judge_refusal(long status, const char *body, size_t n, char *const *markers, size_t n_markers, char **answer)
{
	struct got g = {0};
	got_parse(status, body, n, &g);
	int v = !g.content ? -2 : g.trap || !*g.content ? -1 : probe_is_refusal(g.content, markers, n_markers);
	*answer = g.content;
	g.content = NULL;
	got_release(&g);
	return v;
}

/* The refusal probe: each of the endpoint's prompts at temperature 0.1 (the
 * seeds' method) with a 2,048-token budget, judged by the markers. An
 * answer that ran out in reasoning is inconclusive, never a refusal. */
static void p_refusal(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (skipped(out, !e->n_refusal_prompts, "refusal", "S12", "no PROBE_REFUSAL_PROMPTS (or no --endpoint)"))
		return;
	struct probe_prompt *v = xcalloc(e->n_refusal_prompts, sizeof(*v));
	size_t refused = 0, clear = 0, unsure = 0, broken = 0;
	char *why = NULL;
	for (size_t i = 0; i < e->n_refusal_prompts; i++) {
		struct sb b = {0};
		sb_adds(&b, "{\"temperature\":0.1,\"max_tokens\":2048,\"messages\":[{\"role\":\"user\",\"content\":");
		sb_add_json_str(&b, e->refusal_prompts[i], strlen(e->refusal_prompts[i]));
		sb_adds(&b, "}]}");
		struct http_response r;
		v[i].prompt = xstrdup(e->refusal_prompts[i]);
		int k = -2;
		if (http_request(c, "POST", "/v1/chat/completions", b.s, &r)) {
			if (!why) {
				struct sb w = {0};
				sb_addf(&w, "no answer: %s", r.error);
				why = sb_detach(&w);
			}
		} else {
			k = probe_judge_refusal(r.status, r.body.s, r.body.len, e->markers, e->n_markers, &v[i].answer);
			if (k == -2 && !why) {
				struct sb w = {0};
				sb_addf(&w, "HTTP %ld: %.120s", r.status, r.body.s ? r.body.s : "");
				why = sb_detach(&w);
			}
		}
		v[i].refused = k < 0 ? -1 : k;
		refused += k == 1;
		clear += k == 0;
		unsure += k == -1;
		broken += k == -2;
		http_response_release(&r);
		sb_release(&b);
	}
	size_t n = e->n_refusal_prompts;
	const char *want = e->refusal == 1 ? "absent" : e->refusal == 2 ? "present" : NULL;
	const char *got = unsure || broken ? "inconclusive" : refused == n ? "present" : !refused ? "absent" : "mixed";
	enum probe_status st;
	if (broken)
		st = PROBE_FAIL;
	else if (want && strcmp(want, got) != 0)
		st = unsure ? PROBE_INCONCLUSIVE : PROBE_FAIL;
	else
		st = unsure ? PROBE_INCONCLUSIVE : PROBE_PASS;
	if (broken)
		say(out, "refusal", "S12", st, "%zu of %zu prompts got no completion: %s", broken, n, why);
	else
		say(out, "refusal", "S12", st,
		    "%zu of %zu prompts refused, %zu answered, %zu inconclusive (budget ran out in reasoning)%s%s%s",
		    refused, n, clear, unsure, want ? "; PROBE_REFUSAL=" : "", want ? want : "",
		    want && strcmp(want, got) != 0 ? " does not hold" : "");
	struct probe_result *p = last(out);
	p->prompts = v;
	p->n_prompts = n;
	p->expected = want ? xstrdup(want) : NULL;
	p->answer = xstrdup(got);
	free(why);
}

static void p_tools(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	const char *body =
	    "{\"messages\":[{\"role\":\"user\",\"content\":\"What is 24 + 7? Use the add tool.\"}],\"max_tokens\":2048,"
	    "\"tools\":[{\"type\":\"function\",\"function\":{\"name\":\"add\",\"description\":\"add two integers\","
	    "\"parameters\":{\"type\":\"object\",\"properties\":{\"a\":{\"type\":\"integer\"},\"b\":{\"type\":"
	    "\"integer\"}},"
	    "\"required\":[\"a\",\"b\"]}}}]}";
	struct answer a;
	json_t *j = ask(c, "POST", "/v1/chat/completions", body, &a);
	json_t *ch = j ? json_array_get(json_object_get(j, "choices"), 0) : NULL;
	if (!j) {
		say(out, "tools", NULL, PROBE_FAIL, "%s", a.why);
	} else if (a.r.status != 200 || !ch) {
		const char *msg = json_string_value(json_object_get(json_object_get(j, "error"), "message"));
		if (a.r.status == 500 && msg && strstr(msg, "does not match"))
			say(out, "tools", NULL, e->tools_expect ? PROBE_FAIL : PROBE_SKIP,
			    "%s: the model's output did not parse as a tool call (%s)",
			    e->tools_expect ? "no call with the expected arguments" : "evidence", msg);
		else
			say(out, "tools", NULL, PROBE_FAIL, "HTTP %ld: %.160s", a.r.status, msg ? msg : a.r.body.s);
	} else {
		const char *fr = json_string_value(json_object_get(ch, "finish_reason"));
		json_t *calls = json_object_get(json_object_get(ch, "message"), "tool_calls");
		if (fr && strcmp(fr, "tool_calls") == 0 && json_array_size(calls)) {
			const char *args = json_string_value(
			    json_object_get(json_object_get(json_array_get(calls, 0), "function"), "arguments"));
			json_t *parsed = args ? json_loads(args, 0, NULL) : NULL;
			json_t *want = e->tools_expect ? json_loads(e->tools_expect, 0, NULL) : NULL;
			if (parsed && e->tools_expect && !json_equal(parsed, want))
				say(out, "tools", NULL, PROBE_FAIL, "expected arguments %s, got %s", e->tools_expect,
				    args);
			else if (parsed)
				say(out, "tools", NULL, PROBE_PASS, "finish_reason tool_calls, arguments %s", args);
			else
				say(out, "tools", NULL, PROBE_FAIL,
				    "tool_calls with arguments that are not JSON: %.80s", args ? args : "(none)");
			json_decref(parsed);
			json_decref(want);
			last(out)->answer = args ? xstrdup(args) : NULL;
		} else if (e->tools_expect) {
			say(out, "tools", NULL, PROBE_FAIL,
			    "expected a call with arguments %s; finish_reason %s, no call", e->tools_expect,
			    fr ? fr : "none");
		} else {
			say(out, "tools", NULL, PROBE_SKIP,
			    "evidence: finish_reason %s, no tool call (calling a tool is the model's choice)",
			    fr ? fr : "none");
		}
	}
	if (e->tools_expect)
		last(out)->expected = xstrdup(e->tools_expect);
	answer_release(&a);
}

static json_int_t prompt_tokens(const struct http_client *c, const char *body, long *status, struct got *g)
{
	struct answer a;
	json_t *j = ask(c, "POST", "/v1/chat/completions", body, &a);
	*status = a.r.status;
	if (g)
		got_read(&a.r, g);
	json_int_t n = j ? json_integer_value(json_object_get(json_object_get(j, "usage"), "prompt_tokens")) : -1;
	answer_release(&a);
	return n;
}

static void p_vision(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (skipped(out, e->projector == 0, "vision", "A04", "no projector on this endpoint"))
		return;
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
	struct got g = {0}, g0 = {0};
	json_int_t with = prompt_tokens(c, body.s, &st_img, &g);
	/* with an expected answer, the same question without the image is
	 * answered too: an answer the image does not change does not show
	 * that the image reached the model */
	json_int_t without =
	    prompt_tokens(c,
			  e->vision_expect ? "{\"max_tokens\":512,\"messages\":[{\"role\":\"user\",\"content\":"
					     "\"What colour is this image? One word.\"}]}"
					   : "{\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":"
					     "\"What colour is this image? One word.\"}]}",
			  &st_txt, e->vision_expect ? &g0 : NULL);
	if (st_img != 200)
		say(out, "vision", "A04", PROBE_FAIL, "a 512 px PNG as an image_url part: HTTP %ld", st_img);
	else if (with <= without)
		say(out, "vision", "A04", PROBE_FAIL,
		    "the image added no prompt tokens (%lld vs %lld): it never reached the model", (long long)with,
		    (long long)without);
	else if (e->vision_expect && g.trap)
		say(out, "vision", "A04", PROBE_INCONCLUSIVE,
		    "the budget ran out in reasoning before an answer (%lld prompt tokens billed)", (long long)with);
	else if (e->vision_expect && strcmp(g.content ? g.content : "", e->vision_expect) != 0)
		say(out, "vision", "A04", PROBE_FAIL, "expected '%s', answered '%.120s' (%lld prompt tokens billed)",
		    e->vision_expect, g.content ? g.content : "", (long long)with);
	else if (e->vision_expect && !g0.trap && strcmp(g0.content ? g0.content : "", e->vision_expect) == 0)
		say(out, "vision", "A04", PROBE_FAIL,
		    "answered '%s' with the image and without it: the answer does not show that the image reached "
		    "the model",
		    e->vision_expect);
	else if (e->vision_expect)
		say(out, "vision", "A04", PROBE_PASS,
		    "answered '%s' with a 512 px red PNG (%lld prompt tokens billed), '%.120s' without it",
		    e->vision_expect, (long long)with,
		    g0.trap	 ? "(budget ran out in reasoning)"
		    : g0.content ? g0.content
				 : "");
	else
		say(out, "vision", "A04", PROBE_PASS,
		    "a 512 px PNG billed %lld prompt tokens (%lld with it, %lld without)", (long long)(with - without),
		    (long long)with, (long long)without);
	if (e->vision_expect)
		last(out)->expected = xstrdup(e->vision_expect);
	if (g.content)
		last(out)->answer = xstrdup(g.content);
	if (g0.content)
		last(out)->answer_without = xstrdup(g0.content);
	got_release(&g);
	got_release(&g0);
	sb_release(&png);
	sb_release(&body);
}

static void p_overlong(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (skipped(out, !e->n_ctx_seq, "overlong", "M03", "the per-slot window is unknown"))
		return;
	/* one token past the window: " x" is one token in every BPE we know */
	struct sb body = {0};
	sb_adds(&body, "{\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"");
	for (uint32_t i = 0; i <= e->n_ctx_seq; i++)
		sb_add(&body, " x", 2);
	sb_adds(&body, "\"}]}");
	struct answer a;
	json_t *j = ask(c, "POST", "/v1/chat/completions", body.s, &a);
	json_t *err = j ? json_object_get(j, "error") : NULL;
	json_int_t n_ctx = json_integer_value(json_object_get(err, "n_ctx"));
	const char *msg = json_string_value(json_object_get(err, "message"));
	if (!j)
		say(out, "overlong", "M03", PROBE_FAIL, "%s", a.why);
	else if (a.r.status == 400 && (n_ctx == e->n_ctx_seq || (msg && strstr(msg, "context size"))))
		say(out, "overlong", "M03", PROBE_PASS, "HTTP 400 naming the %lld-token window: %.100s",
		    (long long)n_ctx, msg ? msg : "");
	else if (a.r.status == 200)
		say(out, "overlong", "M03", PROBE_FAIL, "a prompt past the %u-token window was accepted (truncated?)",
		    e->n_ctx_seq);
	else
		say(out, "overlong", "M03", PROBE_FAIL, "HTTP %ld: %.100s", a.r.status, msg ? msg : "");
	answer_release(&a);
	sb_release(&body);
}

static void p_concurrency(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (skipped(out, !e->slots, "concurrency", "A07", "the slot count is unknown"))
		return;
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
	if (skipped(out, !e->n_efforts, "effort", "A08",
		    "the template does not restrict reasoning_effort (or no --endpoint)"))
		return;
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

/* The prefix cache: the same prompt twice; the second reuses the first's
 * prefix (usage.prompt_tokens_details.cached_tokens, else timings.cache_n). */
static json_int_t cached(const struct http_client *c, const char *body, long *status, int *known)
{
	struct answer a;
	json_t *j = ask(c, "POST", "/v1/chat/completions", body, &a);
	*status = a.r.status;
	json_t *n =
	    json_object_get(json_object_get(json_object_get(j, "usage"), "prompt_tokens_details"), "cached_tokens");
	if (!json_is_integer(n))
		n = json_object_get(json_object_get(j, "timings"), "cache_n");
	*known = json_is_integer(n);
	json_int_t v = json_integer_value(n);
	answer_release(&a);
	return v;
}

static void p_cache(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	(void)e;
	/* a prompt no earlier request sent (a nonce), so the first cannot be
	 * cached whole and the second can */
	char body[256];
	snprintf(body, sizeof(body),
		 "{\"max_tokens\":1,\"messages\":[{\"role\":\"user\",\"content\":\"Prefix cache probe %.0f: one two "
		 "three four five six seven eight nine ten, said twice.\"}]}",
		 mono_ms() * 1000.0);
	long s1, s2;
	int k1, k2;
	json_int_t a = cached(c, body, &s1, &k1), b = cached(c, body, &s2, &k2);
	if (s1 != 200 || s2 != 200)
		say(out, "cache", NULL, PROBE_FAIL, "the same prompt twice: HTTP %ld, %ld", s1, s2);
	else if (!k1 || !k2)
		say(out, "cache", NULL, PROBE_SKIP, "the engine reports no cached_tokens");
	else if (b > a)
		say(out, "cache", NULL, PROBE_PASS, "cached_tokens %lld, then %lld on the repeated prefix",
		    (long long)a, (long long)b);
	else
		say(out, "cache", NULL, PROBE_FAIL,
		    "cached_tokens %lld, then %lld: a repeated prefix is not reused (cache off or slots reset)",
		    (long long)a, (long long)b);
}

/* The sampler a client that sends none gets: /props's params against the
 * endpoint's PRESENCE_PENALTY (C07) and the payload's general.sampling.*. */
static void p_sampler(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	struct answer a;
	json_t *j = ask(c, "GET", "/props", NULL, &a);
	json_t *params = json_object_get(json_object_get(j, "default_generation_settings"), "params");
	if (!json_is_object(params)) {
		say(out, "sampler", "C07", PROBE_FAIL, "%s",
		    j ? "GET /props: no default_generation_settings.params" : a.why);
		answer_release(&a);
		return;
	}
	static const char *const map[][2] = {
	    {"temp", "temperature"}, {"top_p", "top_p"}, {"top_k", "top_k"}, {"min_p", "min_p"}};
	struct sb ev = {0}, bad = {0};
	for (size_t i = 0; i < 4; i++) {
		json_t *v = json_object_get(params, map[i][1]);
		if (json_is_number(v))
			sb_addf(&ev, "%s%s %g", ev.len ? ", " : "", map[i][1], json_number_value(v));
		for (size_t k = 0; k < e->n_sampling; k++)
			if (strcmp(e->sampling[k].key, map[i][0]) == 0 &&
			    (!json_is_number(v) || fabs(json_number_value(v) - e->sampling[k].value) > 1e-4))
				sb_addf(&bad, "%s%s %g, the payload's general.sampling.%s is %g", bad.len ? "; " : "",
					map[i][1], json_number_value(v), map[i][0], e->sampling[k].value);
	}
	json_t *pp = json_object_get(params, "presence_penalty");
	sb_addf(&ev, "%spresence_penalty %g", ev.len ? ", " : "", json_number_value(pp));
	if (e->has_presence_penalty &&
	    (!json_is_number(pp) || fabs(json_number_value(pp) - e->presence_penalty) > 1e-4))
		sb_addf(&bad, "%spresence_penalty %g, the endpoint's PRESENCE_PENALTY is %g (C07)", bad.len ? "; " : "",
			json_number_value(pp), e->presence_penalty);
	if (bad.len)
		say(out, "sampler", "C07", PROBE_FAIL, "a client that sends no sampler gets %s", bad.s);
	else
		say(out, "sampler", "C07", PROBE_PASS, "a client that sends no sampler gets %s%s", ev.s ? ev.s : "",
		    e->n_sampling || e->has_presence_penalty ? " = the payload's and the endpoint's" : "");
	sb_release(&ev);
	sb_release(&bad);
	answer_release(&a);
}

/* /v1/embeddings (EMBEDDINGS=on): one vector per input, as wide as the
 * model's n_embd, and of unit length when it is not zero: the server
 * normalises it (embd_normalize 2, the Euclidean norm, its default). A
 * vector of zeros (a payload whose weights are zero) is reported as such:
 * its width is checked, its norm cannot be. */
static void p_embeddings(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (skipped(out, !e->embeddings, "embeddings", "C06", "the endpoint does not set EMBEDDINGS=on"))
		return;
	struct answer a;
	json_t *j = ask(c, "POST", "/v1/embeddings", "{\"input\":\"The sky is blue\"}", &a);
	json_t *v = j ? json_object_get(json_array_get(json_object_get(j, "data"), 0), "embedding") : NULL;
	if (!j) {
		say(out, "embeddings", "C06", PROBE_FAIL, "%s", a.why);
		answer_release(&a);
		return;
	}
	if (a.r.status != 200 || !json_is_array(v) || json_array_size(json_object_get(j, "data")) != 1) {
		say(out, "embeddings", "C06", PROBE_FAIL, "POST /v1/embeddings: HTTP %ld, not one vector", a.r.status);
		answer_release(&a);
		return;
	}
	size_t n = json_array_size(v);
	double sq = 0;
	for (size_t i = 0; i < n; i++) {
		double x = json_number_value(json_array_get(v, i));
		sq += x * x;
	}
	double norm = sqrt(sq);
	if (e->n_embd && n != e->n_embd)
		say(out, "embeddings", "C06", PROBE_FAIL, "a vector of %zu floats, the model's n_embd is %u", n,
		    (unsigned)e->n_embd);
	else if (norm != 0 && fabs(norm - 1) > 1e-3)
		say(out, "embeddings", "C06", PROBE_FAIL, "a vector of %zu floats whose norm is %g, not 1", n, norm);
	else
		say(out, "embeddings", "C06", PROBE_PASS, "a vector of %zu floats%s, %s", n,
		    e->n_embd ? " = n_embd" : "", norm == 0 ? "all zero (its norm unchecked)" : "of unit norm");
	answer_release(&a);
}

/* The probes in the order they run: props first and by itself (what it
 * learns of the shape feeds the others), then the table; those marked read
 * what /props taught where the endpoint is silent. */
static const struct {
	const char *name;
	void (*run)(const struct http_client *c, const struct probe_expect *e, struct probe_results *out);
	int learned;
} probes[] = {
    {"props", NULL, 0},
    {"health", p_health, 0},
    {"models", p_models, 0},
    {"slots", p_slots, 0},
    {"metrics", p_metrics, 0},
    {"chat", p_chat, 0},
    {"tools", p_tools, 0},
    {"vision", p_vision, 1},
    {"overlong", p_overlong, 1},
    {"concurrency", p_concurrency, 1},
    {"effort", p_effort, 1},
    {"refusal", p_refusal, 0},
    {"cache", p_cache, 0},
    {"sampler", p_sampler, 0},
    {"stream", probe_stream, 0},
    {"long", probe_long, 1},
    {"embeddings", p_embeddings, 0},
    {"rerank", probe_rerank, 0},
};

const char *probe_unknown(const char *list, size_t *len)
{
	for (const char *p = list; *p;) {
		size_t m = strcspn(p, ",");
		size_t i = 0;
		while (i < ARRAY_SIZE(probes) && !(strlen(probes[i].name) == m && strncmp(probes[i].name, p, m) == 0))
			i++;
		if (i == ARRAY_SIZE(probes)) {
			*len = m;
			return p;
		}
		p += m + (p[m] == ',');
	}
	return NULL;
}

void probe_names(struct sb *b)
{
	for (size_t i = 0; i < ARRAY_SIZE(probes); i++)
		sb_addf(b, "%s%s", i ? "," : "", probes[i].name);
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
	for (size_t i = 1; i < ARRAY_SIZE(probes); i++) /* props ran above */
		if (wanted(only, probes[i].name))
			probes[i].run(c, probes[i].learned ? &x : e, out);
}
