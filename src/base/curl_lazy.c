/* curl_lazy: libcurl, loaded on first use.
 *
 * libcurl brings 29 shared libraries with it (GnuTLS, OpenSSL, Kerberos,
 * LDAP, RTMP, libssh2 ...). The loader maps and relocates every one of them
 * before main() runs, which was most of the 5 ms a bare `zealot --version`
 * took. plan, check, argv and local inspect never speak HTTP, so zealot is
 * not linked against libcurl: the functions below carry libcurl's own names
 * and prototypes (the compiler checks them against <curl/curl.h>), and the
 * first call of any of them dlopen()s libcurl.so.4 and forwards. The HTTP
 * modules (live/http.c, fetch/download.c, payload/source.c) are unchanged.
 *
 * When the library cannot be loaded, every call fails the way libcurl's
 * own would on a failed init (NULL handles, CURLE_FAILED_INIT), and
 * curl_lazy_error() says why, for the caller's message.
 */
#define CURL_DISABLE_TYPECHECK 1 /* setopt/getinfo are functions here, not the type-checking macros */
#include "curl_lazy.h"

#include "lazy.h"
#include "util.h"

#include <stdarg.h>
#include <stddef.h>

/* The library and the symbols zealot calls: one row each. */
static struct {
	CURLcode (*global_init)(long);
	CURL *(*easy_init)(void);
	CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
	CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
	CURLcode (*easy_perform)(CURL *);
	void (*easy_cleanup)(CURL *);
	const char *(*easy_strerror)(CURLcode);
	struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
	void (*slist_free_all)(struct curl_slist *);
	void (*free)(void *);
	CURLU *(*url)(void);
	void (*url_cleanup)(CURLU *);
	CURLUcode (*url_set)(CURLU *, CURLUPart, const char *, unsigned int);
	CURLUcode (*url_get)(CURLU *, CURLUPart, char **, unsigned int);
	CURLM *(*multi_init)(void);
	CURLMcode (*multi_add_handle)(CURLM *, CURL *);
	CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
	CURLMcode (*multi_perform)(CURLM *, int *);
	CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd[], unsigned int, int, int *);
	CURLMsg *(*multi_info_read)(CURLM *, int *);
	CURLMcode (*multi_cleanup)(CURLM *);
} f;

static const struct lazy_sym syms[] = {
#define SYM(field, name)                                                                                               \
	{                                                                                                              \
		name, offsetof(__typeof__(f), field)                                                                   \
	}
    SYM(global_init, "curl_global_init"),
    SYM(easy_init, "curl_easy_init"),
    SYM(easy_setopt, "curl_easy_setopt"),
    SYM(easy_getinfo, "curl_easy_getinfo"),
    SYM(easy_perform, "curl_easy_perform"),
    SYM(easy_cleanup, "curl_easy_cleanup"),
    SYM(easy_strerror, "curl_easy_strerror"),
    SYM(slist_append, "curl_slist_append"),
    SYM(slist_free_all, "curl_slist_free_all"),
    SYM(free, "curl_free"),
    SYM(url, "curl_url"),
    SYM(url_cleanup, "curl_url_cleanup"),
    SYM(url_set, "curl_url_set"),
    SYM(url_get, "curl_url_get"),
    SYM(multi_init, "curl_multi_init"),
    SYM(multi_add_handle, "curl_multi_add_handle"),
    SYM(multi_remove_handle, "curl_multi_remove_handle"),
    SYM(multi_perform, "curl_multi_perform"),
    SYM(multi_poll, "curl_multi_poll"),
    SYM(multi_info_read, "curl_multi_info_read"),
    SYM(multi_cleanup, "curl_multi_cleanup"),
#undef SYM
};

/* the SONAME Debian's libcurl4 installs: the ABI these prototypes name */
static struct lazy_lib lib = {
    "libcurl.so.4", "libcurl", " (a libcurl older than 7.66)", syms, ARRAY_SIZE(syms), &f, 0, ""};

const char *curl_lazy_error(void)
{
	return lazy_error(&lib);
}

CURLcode curl_global_init(long flags)
{
	return lazy_ready(&lib) ? f.global_init(flags) : CURLE_FAILED_INIT;
}

CURL *curl_easy_init(void)
{
	return lazy_ready(&lib) ? f.easy_init() : NULL;
}

/* The option's number says the type of its one argument (curl.h's
 * CURLOPTTYPE_* bands): a long, a pointer (data or function), or a
 * curl_off_t. Each is read as that type and passed on as that type. */
CURLcode curl_easy_setopt(CURL *h, CURLoption opt, ...)
{
	if (!lazy_ready(&lib))
		return CURLE_FAILED_INIT;
	va_list ap;
	va_start(ap, opt);
	CURLcode rc;
	if (opt < CURLOPTTYPE_OBJECTPOINT)
		rc = f.easy_setopt(h, opt, va_arg(ap, long));
	else if (opt >= CURLOPTTYPE_OFF_T && opt < CURLOPTTYPE_BLOB)
		rc = f.easy_setopt(h, opt, va_arg(ap, curl_off_t));
	else
		rc = f.easy_setopt(h, opt, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

/* Every CURLINFO takes one pointer to where the answer goes. */
CURLcode curl_easy_getinfo(CURL *h, CURLINFO info, ...)
{
	if (!lazy_ready(&lib))
		return CURLE_FAILED_INIT;
	va_list ap;
	va_start(ap, info);
	CURLcode rc = f.easy_getinfo(h, info, va_arg(ap, void *));
	va_end(ap);
	return rc;
}

CURLcode curl_easy_perform(CURL *h)
{
	return lazy_ready(&lib) ? f.easy_perform(h) : CURLE_FAILED_INIT;
}

void curl_easy_cleanup(CURL *h)
{
	if (h && lazy_ready(&lib))
		f.easy_cleanup(h);
}

const char *curl_easy_strerror(CURLcode rc)
{
	return lazy_ready(&lib) ? f.easy_strerror(rc) : lib.why;
}

struct curl_slist *curl_slist_append(struct curl_slist *l, const char *s)
{
	return lazy_ready(&lib) ? f.slist_append(l, s) : NULL;
}

void curl_slist_free_all(struct curl_slist *l)
{
	if (l && lazy_ready(&lib))
		f.slist_free_all(l);
}

void curl_free(void *p)
{
	if (p && lazy_ready(&lib))
		f.free(p);
}

CURLU *curl_url(void)
{
	return lazy_ready(&lib) ? f.url() : NULL;
}

void curl_url_cleanup(CURLU *u)
{
	if (u && lazy_ready(&lib))
		f.url_cleanup(u);
}

CURLUcode curl_url_set(CURLU *u, CURLUPart what, const char *part, unsigned int flags)
{
	return lazy_ready(&lib) ? f.url_set(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLUcode curl_url_get(CURLU *u, CURLUPart what, char **part, unsigned int flags)
{
	return lazy_ready(&lib) ? f.url_get(u, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLM *curl_multi_init(void)
{
	return lazy_ready(&lib) ? f.multi_init() : NULL;
}

CURLMcode curl_multi_add_handle(CURLM *m, CURL *h)
{
	return lazy_ready(&lib) ? f.multi_add_handle(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_remove_handle(CURLM *m, CURL *h)
{
	return lazy_ready(&lib) ? f.multi_remove_handle(m, h) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_perform(CURLM *m, int *running)
{
	return lazy_ready(&lib) ? f.multi_perform(m, running) : CURLM_INTERNAL_ERROR;
}

CURLMcode curl_multi_poll(CURLM *m, struct curl_waitfd extra[], unsigned int n, int timeout_ms, int *numfds)
{
	return lazy_ready(&lib) ? f.multi_poll(m, extra, n, timeout_ms, numfds) : CURLM_INTERNAL_ERROR;
}

CURLMsg *curl_multi_info_read(CURLM *m, int *left)
{
	return lazy_ready(&lib) ? f.multi_info_read(m, left) : NULL;
}

CURLMcode curl_multi_cleanup(CURLM *m)
{
	return m && lazy_ready(&lib) ? f.multi_cleanup(m) : CURLM_OK;
}
