/* probe_stream: the probes the runbooks run by hand beside the contract
 * ones: a streamed completion that must equal the plain one, and one
 * prompt that fills the per-slot window nearly to its end. */
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "probe_int.h"

/* greedy, no prompt cache (a cached prefix may round its logits apart),
 * a budget a thinking template spends in reasoning_content alike */
#define STREAM_BODY                                                                                                    \
	"{\"messages\":[{\"role\":\"user\",\"content\":\"Reply with the two words: zealot alive\"}],"                  \
	"\"max_tokens\":48,\"temperature\":0,\"top_k\":1,\"seed\":1,\"cache_prompt\":false%s}"

struct streamed {
	struct sb content, reasoning;
	size_t events;
	int done;	/* data: [DONE] came */
	int after_done; /* an event after [DONE] */
	char *finish;	/* the last finish_reason */
	char bad[160];	/* an event that is not JSON */
};

static void add_delta(struct streamed *s, json_t *delta)
{
	/* by length: a token may decode to a NUL byte */
	json_t *c = json_object_get(delta, "content"), *r = json_object_get(delta, "reasoning_content");
	if (json_is_string(c))
		sb_add(&s->content, json_string_value(c), json_string_length(c));
	if (json_is_string(r))
		sb_add(&s->reasoning, json_string_value(r), json_string_length(r));
}

/* The server-sent events of body: each "data: " line one event. */
static void sse_read(const char *body, size_t n, struct streamed *s)
{
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && body[e] != '\n')
			e++;
		size_t len = e - i;
		if (len && body[e - 1] == '\r')
			len--;
		if (len > 6 && strncmp(body + i, "data: ", 6) == 0) {
			const char *d = body + i + 6;
			size_t dn = len - 6;
			if (s->done)
				s->after_done = 1;
			if (dn == 6 && strncmp(d, "[DONE]", 6) == 0) {
				s->done = 1;
			} else {
				s->events++;
				json_t *j = json_loadb(d, dn, JSON_ALLOW_NUL, NULL);
				json_t *ch = json_array_get(json_object_get(j, "choices"), 0);
				if (!j && !s->bad[0])
					snprintf(s->bad, sizeof(s->bad), "%.*s", (int)(dn < 80 ? dn : 80), d);
				add_delta(s, json_object_get(ch, "delta"));
				const char *fr = json_string_value(json_object_get(ch, "finish_reason"));
				if (fr) {
					free(s->finish);
					s->finish = xstrdup(fr);
				}
				json_decref(j);
			}
		}
		i = e + 1;
	}
}

static void streamed_release(struct streamed *s)
{
	sb_release(&s->content);
	sb_release(&s->reasoning);
	free(s->finish);
}

static const char *str0(const struct sb *b)
{
	return b->s ? b->s : "";
}

/* A JSON string's bytes, NULs and all. */
struct bytes {
	const char *s;
	size_t n;
};

static struct bytes bytes_of(json_t *j)
{
	struct bytes b = {"", 0};
	if (json_is_string(j)) {
		b.s = json_string_value(j);
		b.n = json_string_length(j);
	}
	return b;
}

/* The first byte where the streamed text and the plain one part, or
 * (size_t)-1 when they are equal. */
static size_t parted(const struct sb *a, struct bytes b)
{
	size_t i = 0;
	while (i < a->len && i < b.n && a->s[i] == b.s[i])
		i++;
	return i == a->len && i == b.n ? (size_t)-1 : i;
}

/* A text's tail from byte k for the evidence, up to 60 bytes, as a string. */
static char *tail(const char *s, size_t n, size_t k)
{
	return k < n ? xstrndup(s + k, n - k < 60 ? n - k : 60) : xstrdup("");
}

static char *stream_verdict(const struct streamed *s, struct bytes content, struct bytes reasoning,
			    enum probe_status *st)
{
	*st = PROBE_FAIL;
	if (s->bad[0])
		return xstrf("an event is not JSON: %s", s->bad);
	if (s->events < 2)
		return xstrf("%zu event(s): the answer did not stream", s->events);
	if (!s->done)
		return xstrf("%zu events and no data: [DONE]: the stream did not end properly", s->events);
	if (s->after_done)
		return xstrf("events after data: [DONE]");
	if (!s->finish)
		return xstrf("%zu events, none with a finish_reason", s->events);
	size_t k = parted(&s->content, content);
	if (k != (size_t)-1) {
		char *a = tail(str0(&s->content), s->content.len, k), *b = tail(content.s, content.n, k);
		char *ev = xstrf("streamed content differs from the plain answer at byte %zu: '%s' vs '%s'", k, a, b);
		free(a);
		free(b);
		return ev;
	}
	k = parted(&s->reasoning, reasoning);
	if (k != (size_t)-1)
		return xstrf("streamed reasoning_content differs from the plain answer's at byte %zu", k);
	*st = PROBE_PASS;
	return xstrf("%zu events, finish_reason %s, data: [DONE]; the text equals the plain answer (%zu bytes, "
		     "%zu of reasoning)",
		     s->events, s->finish, content.n, reasoning.n);
}

void probe_stream(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	(void)e;
	char plain_body[512], stream_body[512];
	snprintf(plain_body, sizeof(plain_body), STREAM_BODY, "");
	snprintf(stream_body, sizeof(stream_body), STREAM_BODY, ",\"stream\":true");
	struct http_response p, r;
	int pe = http_request(c, "POST", "/v1/chat/completions", plain_body, &p);
	int re = pe ? -1 : http_request(c, "POST", "/v1/chat/completions", stream_body, &r);
	if (pe || re) {
		probe_push(out, "stream", NULL, PROBE_FAIL,
			   xstrf("POST /v1/chat/completions: no answer: %s", pe ? p.error : r.error));
		http_response_release(&p);
		if (!pe)
			http_response_release(&r);
		return;
	}
	json_t *j = json_loadb(p.body.s ? p.body.s : "", p.body.len, JSON_ALLOW_NUL, NULL);
	json_t *msg = json_object_get(json_array_get(json_object_get(j, "choices"), 0), "message");
	struct streamed s = {0};
	if (p.status != 200 || !json_is_object(msg)) {
		probe_push(out, "stream", NULL, PROBE_FAIL, xstrf("the plain answer: HTTP %ld, no message", p.status));
	} else if (r.status != 200) {
		probe_push(out, "stream", NULL, PROBE_FAIL, xstrf("the streamed request: HTTP %ld", r.status));
	} else {
		struct bytes content = bytes_of(json_object_get(msg, "content"));
		sse_read(r.body.s ? r.body.s : "", r.body.len, &s);
		enum probe_status st;
		char *ev = stream_verdict(&s, content, bytes_of(json_object_get(msg, "reasoning_content")), &st);
		struct probe_result *res = probe_push(out, "stream", NULL, st, ev);
		res->answer = xstrndup(str0(&s.content), s.content.len);
		res->expected = xstrndup(content.s, content.n);
	}
	streamed_release(&s);
	json_decref(j);
	http_response_release(&p);
	http_response_release(&r);
}

/* A chat of reps " x" and one token of answer: its HTTP status and the
 * prompt tokens it billed (-1: none). */
static json_int_t billed(const struct http_client *c, uint32_t reps, long *status, char **msg)
{
	struct sb b = {0};
	sb_adds(&b, "{\"max_tokens\":1,\"cache_prompt\":false,\"messages\":[{\"role\":\"user\",\"content\":\"");
	for (uint32_t i = 0; i < reps; i++)
		sb_add(&b, " x", 2);
	sb_adds(&b, "\"}]}");
	struct http_response r;
	json_int_t n = -1;
	*status = 0;
	if (http_request(c, "POST", "/v1/chat/completions", b.s, &r) == 0) {
		*status = r.status;
		json_t *j = json_loadb(r.body.s ? r.body.s : "", r.body.len, JSON_ALLOW_NUL, NULL);
		json_t *u = json_object_get(json_object_get(j, "usage"), "prompt_tokens");
		if (json_is_integer(u))
			n = json_integer_value(u);
		const char *m = json_string_value(json_object_get(json_object_get(j, "error"), "message"));
		if (msg)
			*msg = xstrdup(m ? m : (r.body.s ? r.body.s : ""));
		json_decref(j);
	} else if (msg) {
		*msg = xstrf("no answer: %s", r.error);
	}
	http_response_release(&r);
	sb_release(&b);
	return n;
}

void probe_long(const struct http_client *c, const struct probe_expect *e, struct probe_results *out)
{
	if (!e->n_ctx_seq) {
		probe_push(out, "long", "M03", PROBE_SKIP, xstrdup("the per-slot window is unknown"));
		return;
	}
	/* the template's own tokens and a " x"'s: one short prompt and one of
	 * 65, so the long prompt lands 32 short of the window on any BPE */
	long s1, s2;
	json_int_t a = billed(c, 1, &s1, NULL), b = billed(c, 65, &s2, NULL);
	if (s1 != 200 || s2 != 200 || a < 1 || b <= a) {
		probe_push(out, "long", "M03", PROBE_FAIL,
			   xstrf("short prompts to measure the template: HTTP %ld, %ld (%lld, %lld prompt tokens)", s1,
				 s2, (long long)a, (long long)b));
		return;
	}
	double per = (double)(b - a) / 64.0;
	double room = (double)e->n_ctx_seq - 32.0 - (double)(a - per);
	uint32_t reps = room > 1 ? (uint32_t)(room / per) : 1;
	long st;
	char *msg = NULL;
	json_int_t n = billed(c, reps, &st, &msg);
	json_int_t w = e->n_ctx_seq;
	if (st != 200)
		probe_push(out, "long", "M03", PROBE_FAIL,
			   xstrf("a prompt 32 tokens short of the %lld-token window: HTTP %ld: %.120s", (long long)w,
				 st, msg ? msg : ""));
	else if (n < w - 64 || n >= w)
		probe_push(out, "long", "M03", PROBE_FAIL,
			   xstrf("served, but %lld prompt tokens counted against a %lld-token window", (long long)n,
				 (long long)w));
	else
		probe_push(out, "long", "M03", PROBE_PASS,
			   xstrf("a prompt of %lld tokens served in the %lld-token window (%lld short of its end)",
				 (long long)n, (long long)w, (long long)(w - n)));
	free(msg);
}
