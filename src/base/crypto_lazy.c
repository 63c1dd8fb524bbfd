/* crypto_lazy: libcrypto, loaded on first use.
 *
 * zealot hashes payloads (SHA-256: pin, fetch, deploy's key digests) with
 * OpenSSL's libcrypto, a 4.7 MB library with some 5,000 symbol
 * relocations. Linked, the loader maps and relocates it before main()
 * runs, in every command: about 0.45 ms of a bare process start measured
 * here (a hello world linked with -lcrypto alone against none, paired),
 * an eighth of what `zealot plan` took, and plan, check, argv and local
 * inspect never hash. As with libcurl (curl_lazy.c), zealot is not linked
 * against it: the functions below carry OpenSSL's own names and prototypes
 * (the compiler checks them against <openssl/evp.h>), and the first call
 * of any of them dlopen()s libcrypto.so.3 and forwards.
 *
 * When the library cannot be loaded, every call fails the way OpenSSL's
 * own would (NULL, 0), and crypto_lazy_error() says why, for the caller's
 * message.
 */
#include "crypto_lazy.h"

#include "lazy.h"
#include "util.h"

#include <stddef.h>

/* The library and the symbols zealot calls: one row each. */
static struct {
	int (*digest)(const void *, size_t, unsigned char *, unsigned int *, const EVP_MD *, ENGINE *);
	const EVP_MD *(*sha256)(void);
	EVP_MD_CTX *(*ctx_new)(void);
	void (*ctx_free)(EVP_MD_CTX *);
	int (*init_ex)(EVP_MD_CTX *, const EVP_MD *, ENGINE *);
	int (*update)(EVP_MD_CTX *, const void *, size_t);
	int (*final_ex)(EVP_MD_CTX *, unsigned char *, unsigned int *);
} f;

static const struct lazy_sym syms[] = {
    {"EVP_Digest", offsetof(__typeof__(f), digest)},	       {"EVP_sha256", offsetof(__typeof__(f), sha256)},
    {"EVP_MD_CTX_new", offsetof(__typeof__(f), ctx_new)},      {"EVP_MD_CTX_free", offsetof(__typeof__(f), ctx_free)},
    {"EVP_DigestInit_ex", offsetof(__typeof__(f), init_ex)},   {"EVP_DigestUpdate", offsetof(__typeof__(f), update)},
    {"EVP_DigestFinal_ex", offsetof(__typeof__(f), final_ex)},
};

/* the SONAME of OpenSSL 3 (Debian's libssl3): the ABI these prototypes name */
static struct lazy_lib lib = {"libcrypto.so.3", "libcrypto", "", syms, ARRAY_SIZE(syms), &f, 0, ""};

const char *crypto_lazy_error(void)
{
	return lazy_error(&lib);
}

int EVP_Digest(const void *data, size_t count, unsigned char *md, unsigned int *size, const EVP_MD *type, ENGINE *impl)
{
	return lazy_ready(&lib) ? f.digest(data, count, md, size, type, impl) : 0;
}

const EVP_MD *EVP_sha256(void)
{
	return lazy_ready(&lib) ? f.sha256() : NULL;
}

EVP_MD_CTX *EVP_MD_CTX_new(void)
{
	return lazy_ready(&lib) ? f.ctx_new() : NULL;
}

void EVP_MD_CTX_free(EVP_MD_CTX *ctx)
{
	if (ctx && lazy_ready(&lib))
		f.ctx_free(ctx);
}

int EVP_DigestInit_ex(EVP_MD_CTX *ctx, const EVP_MD *type, ENGINE *impl)
{
	return lazy_ready(&lib) ? f.init_ex(ctx, type, impl) : 0;
}

int EVP_DigestUpdate(EVP_MD_CTX *ctx, const void *d, size_t cnt)
{
	return lazy_ready(&lib) ? f.update(ctx, d, cnt) : 0;
}

int EVP_DigestFinal_ex(EVP_MD_CTX *ctx, unsigned char *md, unsigned int *s)
{
	return lazy_ready(&lib) ? f.final_ex(ctx, md, s) : 0;
}
