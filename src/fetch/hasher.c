/* The hashing thread of a download: SHA-256 in file order, behind the
 * writers, over the bytes already on disk. See fetch_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

#include "../base/crypto_lazy.h"
#include "../base/util.h"
#include "fetch_int.h"

#define HASH_BUF (256u << 10) /* within a core's L2: read, then hashed while still there */

/* Hash [from, from + len) of the file, read into buf (len at most
 * HASH_BUF). A read into a buffer that stays in the cache costs less
 * than a mapping per chunk: each munmap of a thread's mapping stops the
 * writer's CPU for a TLB shootdown, and the mapping's page faults cost
 * more than the copy (measured with bench/fetch.sh: user time per GiB
 * 0.57-0.77 s against 0.90-1.55 s). */
static ssize_t hash_range(struct hasher *h, unsigned char *buf, uint64_t from, size_t len)
{
	ssize_t r = pread(h->fd, buf, len, (off_t)from);
	if (r > 0)
		EVP_DigestUpdate(h->ctx, buf, (size_t)r);
	return r;
}

static void *hash_main(void *arg)
{
	struct hasher *h = arg;
	unsigned char *buf = xmalloc(HASH_BUF);
	pthread_mutex_lock(&h->mu);
	for (;;) {
		while (!h->stop && h->hashed >= h->ready)
			pthread_cond_wait(&h->cv, &h->mu);
		if (h->hashed >= h->ready && h->stop)
			break;
		uint64_t from = h->hashed, to = h->ready;
		pthread_mutex_unlock(&h->mu);
		uint64_t len = to - from < HASH_BUF ? to - from : HASH_BUF;
		ssize_t r = hash_range(h, buf, from, (size_t)len);
		pthread_mutex_lock(&h->mu);
		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			h->failed = 1;
			break;
		}
		h->hashed += (uint64_t)r;
		pthread_cond_broadcast(&h->cv);
		/* start the writeback of what is hashed, so the fsync before the
		 * rename finds little left to write (the disk works while the
		 * network does) */
		if (h->hashed - h->flushed >= (32u << 20)) {
			sync_file_range(h->fd, (off_t)h->flushed, (off_t)(h->hashed - h->flushed),
					SYNC_FILE_RANGE_WRITE);
			h->flushed = h->hashed;
		}
	}
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	free(buf);
	return NULL;
}

void fetch_hasher_start(struct hasher *h, int fd)
{
	h->fd = fd;
	h->ready = h->hashed = h->flushed = 0;
	h->stop = h->failed = 0;
	h->ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL);
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	h->running = pthread_create(&h->t, NULL, hash_main, h) == 0;
}

void fetch_hasher_ready(struct hasher *h, uint64_t ready)
{
	pthread_mutex_lock(&h->mu);
	if (ready > h->ready) {
		h->ready = ready;
		pthread_cond_broadcast(&h->cv);
	}
	pthread_mutex_unlock(&h->mu);
}

uint64_t fetch_hasher_hashed(struct hasher *h)
{
	pthread_mutex_lock(&h->mu);
	uint64_t v = h->hashed;
	pthread_mutex_unlock(&h->mu);
	return v;
}

/* Stop the thread; with hex, wait for every ready byte and finish the
 * digest. Returns 0, or -1 when a read failed. */
int fetch_hasher_end(struct hasher *h, char hex[65])
{
	if (!h->ctx)
		return -1;
	pthread_mutex_lock(&h->mu);
	h->stop = 1;
	if (!hex)
		h->ready = h->hashed; /* abandon the rest */
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	if (h->running)
		pthread_join(h->t, NULL);
	int rc = h->failed || !h->running ? -1 : 0;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	EVP_DigestFinal_ex(h->ctx, md, &len);
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	if (hex && rc == 0) {
		static const char digits[] = "0123456789abcdef";
		for (unsigned i = 0; i < 32; i++) {
			hex[2 * i] = digits[md[i] >> 4];
			hex[2 * i + 1] = digits[md[i] & 15];
		}
		hex[64] = '\0';
	}
	return rc;
}
