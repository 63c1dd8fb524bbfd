#include "harness.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../plan/plan.h"

static void add(struct findings *out, enum severity sev, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void add(struct findings *out, enum severity sev, const char *fix, const char *fmt, ...)
{
	out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	struct finding *f = &out->v[out->n++];
	memset(f, 0, sizeof(*f));
	f->law = "M03";
	f->sev = sev;
	va_list ap;
	va_start(ap, fmt);
	f->reason = xvstrf(fmt, ap);
	va_end(ap);
	f->fix = xstrdup(fix);
}

/* The value of `key:` on the line [s, e) (after blanks, a "- " and an
 * optional quote around the key), unquoted, into v; whether it is there. */
static int field(const char *s, const char *e, const char *key, char *v, size_t vn)
{
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	if (s + 1 < e && s[0] == '-' && s[1] == ' ')
		s += 2;
	while (s < e && *s == ' ')
		s++;
	int q = s < e && (*s == '"' || *s == '\'');
	s += q;
	size_t k = strlen(key);
	if ((size_t)(e - s) < k + 1 || strncmp(s, key, k) != 0)
		return 0;
	s += k + (size_t)q;
	if (s >= e || *s != ':')
		return 0;
	s++;
	while (s < e && (*s == ' ' || *s == '\t'))
		s++;
	const char *t = e;
	while (t > s && (t[-1] == ' ' || t[-1] == '\t' || t[-1] == '\r' || t[-1] == ','))
		t--;
	if (t - s >= 2 && (*s == '"' || *s == '\'') && t[-1] == *s) {
		s++;
		t--;
	}
	size_t m = (size_t)(t - s) < vn - 1 ? (size_t)(t - s) : vn - 1;
	memcpy(v, s, m);
	v[m] = '\0';
	return 1;
}

/* One entry of id: its window (0 none) and line, judged. */
static void judge(struct findings *out, const char *path, const char *id, int line, unsigned long long window,
		  uint32_t n_ctx_seq)
{
	if (!window)
		add(out, SEV_WARNING, "give it the per-slot window (zealot emit harness writes it)",
		    "%s:%d: the entry '%s' names no contextWindow: the client guesses the window", path, line, id);
	else if (window > n_ctx_seq)
		add(out, SEV_ERROR, "set contextWindow to the per-slot window (CTX_SIZE / PARALLEL)",
		    "%s:%d: the entry '%s' tells its client a %llu-token window; the endpoint serves %u per slot: "
		    "a prompt past %u gets HTTP 400",
		    path, line, id, window, n_ctx_seq, n_ctx_seq);
	else if (window < n_ctx_seq)
		add(out, SEV_WARNING, "set contextWindow to the per-slot window (CTX_SIZE / PARALLEL)",
		    "%s:%d: the entry '%s' tells its client a %llu-token window; the endpoint serves %u per slot "
		    "(the client compacts early)",
		    path, line, id, window, n_ctx_seq);
}

size_t harness_check(const char *text, size_t n, const char *path, const char *id, uint32_t n_ctx_seq,
		     struct findings *out)
{
	size_t found = 0;
	int in = 0, at = 0, lineno = 0;
	unsigned long long window = 0;
	char v[256];
	for (size_t i = 0; i < n;) {
		size_t e = i;
		while (e < n && text[e] != '\n')
			e++;
		lineno++;
		if (field(text + i, text + e, "id", v, sizeof(v))) {
			if (in)
				judge(out, path, id, at, window, n_ctx_seq);
			in = strcmp(v, id) == 0;
			at = lineno;
			window = 0;
			found += (size_t)in;
		} else if (in && field(text + i, text + e, "contextWindow", v, sizeof(v))) {
			window = strtoull(v, NULL, 10);
		}
		i = e + 1;
	}
	if (in)
		judge(out, path, id, at, window, n_ctx_seq);
	if (!found)
		add(out, SEV_WARNING, "add the endpoint's entry (zealot emit harness)",
		    "%s: no entry with id '%s' (the endpoint's ALIAS): its clients are configured elsewhere", path, id);
	return found;
}

/* The longest input an embedding takes: the engine refuses one past the
 * ubatch unless it can split it (a model with memory pooling the last
 * token: tools/server/server-context.cpp can_split), and never one past
 * the slot. */
static uint32_t embd_max_input(const struct endpoint *ep, const char *arch, const char *pool, uint32_t n_ctx_seq)
{
	uint32_t ub = 512;
	if (endpoint_u32(ep, K_UBATCH_SIZE, &ub, NULL) || !ub)
		ub = 512;
	int split = !plan_arch_memoryless(arch) && pool && strcmp(pool, "last") == 0;
	return split || ub > n_ctx_seq ? n_ctx_seq : ub;
}

int harness_embedding(struct sb *b, const struct endpoint *ep, const struct census *c, const struct plan *p)
{
	const char *em = endpoint_value_of(ep, K_EMBEDDINGS);
	if (!em || strcmp(em, "on") != 0 || !c->model)
		return 0;
	const char *pool = endpoint_value_of(ep, K_POOLING);
	if (pool && !*pool)
		pool = NULL;
	const char *arch = c->model->arch;
	int memoryless = plan_arch_memoryless(arch), none = pool && strcmp(pool, "none") == 0;
	uint32_t max_in = embd_max_input(ep, arch, pool, p->n_ctx_seq);
	sb_addf(b,
		"\n  kind: embedding\n"
		"  contextWindow: %u\n"
		"  # an input past maxInputTokens is refused, never truncated%s\n"
		"  maxInputTokens: %u\n"
		"  embeddings:\n"
		"    # %s\n"
		"    path: %s\n"
		"    dimensions: %u\n",
		p->n_ctx_seq,
		max_in < p->n_ctx_seq
		    ? " (HTTP 500): the engine\n  # encodes an input whole, in one ubatch (UBATCH_SIZE)"
		    : "",
		max_in,
		none ? "POOLING=none: a vector per token, on /embeddings only (/v1/embeddings refuses it)"
		     : "one vector per input, of unit norm (embd_normalize 2, the server's default)",
		none ? "/embeddings" : "/v1/embeddings", c->model->n_embd);
	if (pool)
		sb_addf(b, "    pooling: %s\n", pool);
	else
		sb_addf(b, "    # pooling: the payload's %s.pooling_type (POOLING unset)\n", arch);
	if (pool && strcmp(pool, "rank") == 0)
		sb_adds(b, "  # a query and documents in, a relevance_score per document out, best first\n"
			   "  rerank:\n    path: /v1/rerank\n");
	if (memoryless)
		sb_adds(b, "  # no completions: the engine gives this encoder no memory and computes no\n"
			   "  # logits without one (tools/server: \"does not logits computation\")\n"
			   "  completions: false\n");
	return 1;
}
