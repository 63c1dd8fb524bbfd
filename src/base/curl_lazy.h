/* curl_lazy: zealot links no libcurl; the libcurl functions it calls are
 * defined in curl_lazy.c, which loads libcurl.so.4 on the first call (see
 * there for why). Include <curl/curl.h> as usual; this header adds only
 * the reason a load failed.
 */
#ifndef ZEALOT_CURL_LAZY_H
#define ZEALOT_CURL_LAZY_H

#include <curl/curl.h>

/* NULL once libcurl is loaded (loading it if need be), else why it could
 * not be ("libcurl cannot be loaded: ..."). Static storage. */
const char *curl_lazy_error(void);

#endif
