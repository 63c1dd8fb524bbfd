/* law_util: what the files of the laws share (laws.c, laws_runtime.c,
 * laws_amx.c), private to judge/: a finding's making, the endpoint's
 * value as the laws read it, and the laws each file holds.
 */
#ifndef ZEALOT_LAW_UTIL_H
#define ZEALOT_LAW_UTIL_H

#include <stdarg.h>
#include <string.h>

/* laws.h comes first in every file that includes this one (its types;
 * including it here would make a circle of the two modules) */

/* A finding about no one key (the whole shape). */
#define NO_KEY K__COUNT

/* Append a finding to out (key NO_KEY: about the whole shape). */
void law_vadd(struct findings *out, const char *law, enum severity sev, const struct endpoint *ep, enum key_id key,
	      const char *fix, const char *fmt, va_list ap);

static inline void add(struct findings *out, const char *law, enum severity sev, const struct endpoint *ep,
		       enum key_id key, const char *fix, const char *fmt, ...) __attribute__((format(printf, 7, 8)));
static inline void add(struct findings *out, const char *law, enum severity sev, const struct endpoint *ep,
		       enum key_id key, const char *fix, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	law_vadd(out, law, sev, ep, key, fix, fmt, ap);
	va_end(ap);
}

/* The key's value, "" when it is not set. */
static inline const char *val(const struct endpoint *ep, enum key_id key)
{
	const char *v = endpoint_value(ep, key);
	return v ? v : "";
}

/* Whether EXTRA_ARGS holds flag as a word of its own (or flag=...). */
static inline int extra_has(const struct endpoint *ep, const char *flag)
{
	const char *x = val(ep, K_EXTRA_ARGS);
	size_t n = strlen(flag);
	for (const char *p = strstr(x, flag); p; p = strstr(p + 1, flag))
		if ((p == x || p[-1] == ' ' || p[-1] == '\t') &&
		    (p[n] == '\0' || p[n] == ' ' || p[n] == '=' || p[n] == '\t'))
			return 1;
	return 0;
}

/* laws_runtime.c: the runtime as the unit would exec it, or NULL; its
 * build tree's CMakeCache.txt, or NULL; C03/C08/S14/R01 (static) and R02
 * (LAWS_RUNTIME). */
char *runtime_path(const struct endpoint *ep);
char *runtime_cmake_cache(const char *bin);
void law_runtime(const struct endpoint *ep, struct findings *out);
void law_runtime_flags(const struct endpoint *ep, struct findings *out);

/* laws_amx.c: S16, the AMX fault (LAWS_PAYLOAD). */
void law_amx(const struct endpoint *ep, const struct shape_ctx *c, const struct laws_evidence *ev,
	     struct findings *out);

#endif
