/* crypto_lazy: zealot links no libcrypto; the OpenSSL functions it calls
 * (SHA-256 through EVP) are defined in crypto_lazy.c, which loads
 * libcrypto.so.3 on the first call (see there for why). Include
 * <openssl/evp.h> as usual; this header adds only the reason a load
 * failed.
 */
#ifndef ZEALOT_CRYPTO_LAZY_H
#define ZEALOT_CRYPTO_LAZY_H

#include <openssl/evp.h>

/* NULL once libcrypto is loaded (loading it if need be), else why it could
 * not be ("libcrypto cannot be loaded: ..."). Static storage. */
const char *crypto_lazy_error(void);

#endif
