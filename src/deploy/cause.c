#include "cause.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

struct line {
	const char *p;
	size_t n;
};

/* The journal of one start is small (a verbosity-4 boot is a few hundred
 * lines); a cap keeps a runaway log from costing more than it says. */
#define CAUSE_MAX_LINES 200000

static size_t split(const char *s, size_t len, struct line **out)
{
	size_t n = 0, cap = 0;
	struct line *v = NULL;
	const char *end = s + len;
	while (s < end && n < CAUSE_MAX_LINES) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *le = nl ? nl : end;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[n].p = s;
		v[n].n = (size_t)(le - s);
		n++;
		s = nl ? nl + 1 : end;
	}
	*out = v;
	return n;
}

static int has(const struct line *l, const char *needle)
{
	size_t k = strlen(needle);
	return k <= l->n && memmem(l->p, l->n, needle, k) != NULL;
}

/* The first line holding any of the needles (up to max, ended early by a
 * NULL), or -1. */
static long find_any(const struct line *v, size_t n, const char *const *needles, size_t max)
{
	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < max && needles[k]; k++)
			if (has(&v[i], needles[k]))
				return (long)i;
	return -1;
}

static char *trimmed(const struct line *l)
{
	const char *p = l->p;
	size_t n = l->n;
	while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
		n--;
	while (n && (*p == ' ' || *p == '\t')) {
		p++;
		n--;
	}
	if (n > 400) /* a line is evidence, not a payload */
		n = 400;
	/* NUL bytes would cut the evidence short: show them as '?' */
	char *s = xstrndup(p, n);
	for (size_t i = 0; i < n; i++)
		if (!s[i])
			s[i] = '?';
	return s;
}

/* Which ledger term asked for the memory a cudaMalloc could not give: the
 * engine names it in the lines right after the allocation error (or just
 * before it); the draft's terms come after its context is announced. */
static char *oom_term(const struct line *v, size_t n, size_t at)
{
	static const struct {
		const char *needle, *term;
	} map[] = {
	    {"buffer for kv cache", "kv"},
	    {"buffer for rs cache", "recurrent"},
	    {"output buffer", "output"},
	    {"compute pp buffers", "compute"},
	    {"compute tg buffers", "compute"},
	    {"compute buffers", "compute"},
	    {"unable to allocate", "model"},
	    {"error loading model", "model"},
	    {"clip", "projector"},
	    {"mtmd", "projector"},
	};
	int draft = 0;
	for (size_t i = 0; i < at; i++)
		draft |= has(&v[i], "creating MTP draft context") || has(&v[i], "loading draft model");
	/* nearest first: the lines after, then the ones before */
	for (long d = 0; d <= 8; d++) {
		long cand[2] = {(long)at + d, (long)at - d};
		for (int c = 0; c < (d ? 2 : 1); c++) {
			long i = cand[c];
			if (i < 0 || (size_t)i >= n || (c == 1 && d > 3))
				continue;
			for (size_t k = 0; k < ARRAY_SIZE(map); k++) {
				if (!has(&v[i], map[k].needle))
					continue;
				int own = strcmp(map[k].term, "projector") == 0 || strcmp(map[k].term, "model") == 0;
				struct sb b = {0};
				sb_addf(&b, "%s%s", draft && !own ? "draft_" : "", map[k].term);
				return sb_detach(&b);
			}
		}
	}
	return NULL;
}

/* "refused at the fit gate: M09 ..." -> "M09" into law. */
static int refusal_law(const struct line *l, char law[8])
{
	const char *g = memmem(l->p, l->n, "gate: ", 6);
	if (!g || (size_t)(l->p + l->n - g) < 9)
		return 0;
	g += 6;
	if ((g[0] == 'A' || g[0] == 'C' || g[0] == 'M' || g[0] == 'S') && g[1] >= '0' && g[1] <= '9' && g[2] >= '0' &&
	    g[2] <= '9') {
		memcpy(law, g, 3);
		law[3] = '\0';
		return 1;
	}
	return 0;
}

void cause_release(struct cause *c)
{
	if (!c)
		return;
	free(c->line);
	free(c->term);
	memset(c, 0, sizeof(*c));
}

/* One cause: the journal phrases that say it (any one), its law and what
 * to do. The first row whose phrase a line carries is the cause. */
enum cause_kind { PLAIN, OOM_TERM, REFUSAL, REFUSAL_EXIT, GPU_ONLY };
static const char refusal_what[] = "zealot serve refused at a gate (exit 78): the unit does not restart on it";
static const char refusal_fix[] = "the refusal line names the law and the key; zealot check ENDPOINT shows it";
static const struct {
	const char *needles[9];
	const char *law;
	const char *what;
	const char *fix;
	enum cause_kind kind;
} causes[] = {
    {{"No CUDA GPUs are available", "no CUDA-capable device is detected"},
     "A09",
     "the engine sees no CUDA device: after a reboot the device node is missing, not a payload fault",
     "nvidia-modprobe -u -c=0 (creates /dev/nvidia-uvm), then restart the unit",
     PLAIN},
    {{"cudaMalloc failed: out of memory", "CUDA error: out of memory", "cudaErrorMemoryAllocation"},
     "M09",
     "the card ran out of memory at boot: the plan's budget does not hold on this card",
     "read the term that asked (zealot plan shows each), keep the slack band: shrink the pool, "
     "quantize the cache, disarm the drafter or lower UBATCH_SIZE",
     OOM_TERM},
    {{"203/EXEC", "Failed at step EXEC", "Exec format error"},
     "C08",
     "203/EXEC: the unit's start command is not directly executable",
     "ExecStart must be a binary or a script with a #! line, executable by the unit's user",
     PLAIN},
    {{"refused at the"}, NULL, refusal_what, refusal_fix, REFUSAL},
    {{"status=78"}, NULL, refusal_what, refusal_fix, REFUSAL_EXIT},
    {{"couldn't bind HTTP server socket", "Address already in use"},
     "A02",
     "the engine could not bind its port: another process (a leftover engine?) holds it",
     "find it (zealot audit ENDPOINT) and stop it by PID, never by name",
     PLAIN},
    {{"226/NAMESPACE", "Failed at step NAMESPACE", "Failed to set up mount namespacing"},
     NULL,
     "the unit's sandbox could not be set up (226/NAMESPACE)",
     "a path the unit binds or protects is missing: systemd-analyze verify the unit",
     PLAIN},
    {{"error while loading shared libraries"},
     "C08",
     "the runtime cannot load its shared libraries",
     "ldd RUNTIME; the hardened unit hides /home, /root and /tmp except the directories it binds",
     PLAIN},
    {{"oom-kill", "Out of memory: Killed process", "status=9/KILL"},
     "M09",
     "the engine was killed (the host's OOM killer, or SIGKILL)",
     "the host's memory did not hold the plan's host terms: zealot plan --device cpu",
     PLAIN},
    {{"CPU KV buffer size", "CUDA_Host KV buffer size"},
     "M10",
     "the KV cache was placed in host memory on a GPU endpoint: decode halves silently",
     "offload every layer (NGL) and keep the KV on the card; re-read the settled figure",
     GPU_ONLY},
    {{"error loading model", "failed to load model", "exiting due to", "GGML_ASSERT", "terminate called",
      "failed to initialize", "status=6/ABRT", "status=11/SEGV"},
     NULL,
     "the engine failed at load",
     NULL,
     PLAIN},
};

int cause_classify(const char *journal, size_t len, int gpu, struct cause *out)
{
	memset(out, 0, sizeof(*out));
	struct line *v = NULL;
	size_t n = split(journal, len, &v);
	for (size_t i = 0; i < ARRAY_SIZE(causes); i++) {
		long at;
		if ((causes[i].kind == GPU_ONLY && !gpu) ||
		    (at = find_any(v, n, causes[i].needles, ARRAY_SIZE(causes[i].needles))) < 0)
			continue;
		out->partial = causes[i].kind == REFUSAL_EXIT;
		if (causes[i].kind == REFUSAL)
			refusal_law(&v[at], out->law);
		else if (causes[i].law)
			snprintf(out->law, sizeof(out->law), "%s", causes[i].law);
		out->what = causes[i].what;
		out->fix = causes[i].fix;
		if (causes[i].kind == OOM_TERM)
			out->term = oom_term(v, n, (size_t)at);
		out->line = trimmed(&v[at]);
		free(v);
		return 1;
	}
	free(v);
	return 0;
}
