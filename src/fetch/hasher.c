/* The hashing thread of a download: SHA-256 in file order, behind the
 * writers, over the slots they hand over and, past those, the bytes
 * already on disk. See fetch_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../base/crypto_lazy.h"
#include "../base/util.h"
#include "fetch_int.h"

#define HASH_BUF (256u << 10) /* within a core's L2: read, then hashed while still there */

/* The queue's first slot, or NULL. */
static struct slot *first(struct hasher *h)
{
	return h->queued ? &h->q[h->head] : NULL;
}

static void spare(struct hasher *h, uint8_t *buf)
{
	if (h->nspare < SPARES)
		h->spare[h->nspare++] = buf;
	else
		free(buf);
}

static void pop(struct hasher *h)
{
	spare(h, h->q[h->head].buf);
	h->head = (h->head + 1) % RING;
	h->queued--;
	pthread_cond_broadcast(&h->cv);
}

/* A slot's memory: SLOT bytes aligned to SLOT (see fetch_hasher_slot). */
static uint8_t *slot_new(void)
{
	void *p = NULL;
	/* aligned for O_DIRECT (plain memory only costs the direct write),
	 * and on a huge page's boundary: one huge page where the kernel
	 * gives them (THP "madvise" here), which the direct write pins and
	 * the copy into the slot walks with far fewer page-table and TLB
	 * steps. It costs a slot's first touch a whole 2 MiB, and the
	 * alignment twice the address space (not memory); paired rounds
	 * measured less CPU per GiB with it (docs/running.md, "Measured"). */
	if (posix_memalign(&p, SLOT, SLOT) == 0) {
		madvise(p, SLOT, MADV_HUGEPAGE); /* advice: refused, the slot is still good */
		return p;
	}
	return xmalloc(SLOT);
}

/* Hash what comes next from disk, [from, to), into buf (SLOT bytes).
 * With O_DIRECT (h->dfd), a SLOT at most from the DIO_ALIGN boundary at
 * or before from: the bytes come from the disk by DMA, no copy out of the
 * page cache (and almost none of the .part's bytes went into it: the
 * writers write them with O_DIRECT too, all but a resume's first bytes
 * up to a DIO_ALIGN boundary and the file's last partial block; a direct
 * read writes those back first). Else through the page cache, HASH_BUF
 * at most. A read into a buffer costs less than a mapping per chunk:
 * each munmap of a thread's mapping stops the writer's CPU for a TLB
 * shootdown. Called unlocked; the bytes hashed, or -1. */
static ssize_t hash_disk(struct hasher *h, unsigned char *buf, uint64_t from, uint64_t to)
{
	ssize_t r;
	if (h->dfd >= 0) {
		uint64_t at = from / DIO_ALIGN * DIO_ALIGN;
		size_t skip = (size_t)(from - at);
		size_t want = to - at < SLOT ? (size_t)((to - at + DIO_ALIGN - 1) / DIO_ALIGN * DIO_ALIGN) : SLOT;
		do
			r = pread(h->dfd, buf, want, (off_t)at);
		while (r < 0 && errno == EINTR);
		if (r >= 0 || !fetch_direct_refused(&h->dfd)) {
			if (r <= (ssize_t)skip)
				return -1;
			size_t n = (size_t)r - skip < to - from ? (size_t)r - skip : (size_t)(to - from);
			EVP_DigestUpdate(h->ctx, buf + skip, n);
			return (ssize_t)n;
		} /* refused: the page cache from now on */
	}
	size_t len = to - from < HASH_BUF ? (size_t)(to - from) : HASH_BUF;
	do
		r = pread(h->fd, buf, len, (off_t)from);
	while (r < 0 && errno == EINTR);
	if (r > 0)
		EVP_DigestUpdate(h->ctx, buf, (size_t)r);
	return r > 0 ? r : -1;
}

/* One step under the lock: hash the queue's first slot when the hash has
 * reached it, else read from disk up to it (or up to ready). 1 when it
 * did something, 0 when there is nothing to do yet, -1 on a read error. */
static int step(struct hasher *h, unsigned char **buf)
{
	struct slot *s = first(h);
	if (h->busy)
		return 0; /* a writer is hashing in its own thread (fetch_hasher_feed) */
	if (s && s->off + s->len <= h->hashed) {
		pop(h); /* already hashed (never, by the rule of give) */
		return 1;
	}
	if (s && s->off <= h->hashed) {
		uint64_t skip = h->hashed - s->off;
		struct slot mine = *s;
		h->busy = 1;
		pthread_mutex_unlock(&h->mu);
		EVP_DigestUpdate(h->ctx, mine.buf + skip, mine.len - skip);
		pthread_mutex_lock(&h->mu);
		h->busy = 0;
		h->hashed = mine.off + mine.len;
		pop(h);
		return 1;
	}
	uint64_t to = s && s->off < h->ready ? s->off : h->ready;
	if (to <= h->hashed)
		return 0;
	if (!*buf)
		*buf = slot_new();
	uint64_t from = h->hashed;
	h->busy = 1;
	pthread_mutex_unlock(&h->mu);
	ssize_t r = hash_disk(h, *buf, from, to);
	pthread_mutex_lock(&h->mu);
	h->busy = 0;
	if (r < 0)
		return -1;
	h->hashed += (uint64_t)r;
	pthread_cond_broadcast(&h->cv);
	return 1;
}

static void *hash_main(void *arg)
{
	struct hasher *h = arg;
	unsigned char *buf = NULL;
	pthread_mutex_lock(&h->mu);
	while (h->stop != 2) {
		int r = step(h, &buf);
		if (r < 0) {
			h->failed = 1;
			break;
		}
		if (r)
			continue;
		if (h->stop)
			break;
		pthread_cond_wait(&h->cv, &h->mu);
	}
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	free(buf);
	return NULL;
}

void fetch_hasher_start(struct hasher *h, int fd, int dfd)
{
	h->fd = fd;
	h->dfd = dfd;
	h->ready = h->hashed = 0;
	h->head = h->queued = h->nspare = 0;
	h->stop = h->failed = h->busy = 0;
	h->ctx = EVP_MD_CTX_new();
	EVP_DigestInit_ex(h->ctx, EVP_sha256(), NULL);
	pthread_mutex_init(&h->mu, NULL);
	pthread_cond_init(&h->cv, NULL);
	h->running = pthread_create(&h->t, NULL, hash_main, h) == 0;
}

/* The thread is woken only for work: bytes on disk it has not hashed
 * (a wake-up per slot for nothing cost a context switch each). */
static void set_ready(struct hasher *h, uint64_t ready)
{
	if (ready > h->ready) {
		h->ready = ready;
		if (ready > h->hashed)
			pthread_cond_broadcast(&h->cv);
	}
}

void fetch_hasher_ready(struct hasher *h, uint64_t ready)
{
	pthread_mutex_lock(&h->mu);
	set_ready(h, ready);
	pthread_mutex_unlock(&h->mu);
}

/* Where the hash will be once it has taken every queued slot and every
 * ready byte: a slot that begins there is the next thing it needs. */
static uint64_t frontier(const struct hasher *h)
{
	uint64_t end = h->ready > h->hashed ? h->ready : h->hashed;
	if (h->queued) {
		const struct slot *t = &h->q[(h->head + h->queued - 1) % RING];
		if (t->off + t->len > end)
			end = t->off + t->len;
	}
	return end;
}

/* Hashed here, in the receiver's thread, from the bytes it just received
 * (still in its core's cache: the hash thread would read them from
 * another core's), when the hash is idle exactly at off. */
void fetch_hasher_feed(struct hasher *h, const uint8_t *data, uint64_t off, size_t len)
{
	pthread_mutex_lock(&h->mu);
	if (h->running && !h->failed && !h->stop && !h->busy && !h->queued && off == h->hashed && h->ready <= off) {
		h->busy = 1;
		pthread_mutex_unlock(&h->mu);
		EVP_DigestUpdate(h->ctx, data, len);
		pthread_mutex_lock(&h->mu);
		h->busy = 0;
		h->hashed = off + len;
		/* no wake-up: the thread has nothing to do that it had not
		 * before (ready <= off, nothing queued) */
	}
	pthread_mutex_unlock(&h->mu);
}

uint8_t *fetch_hasher_slot(struct hasher *h)
{
	pthread_mutex_lock(&h->mu);
	uint8_t *b = h->nspare ? h->spare[--h->nspare] : NULL;
	pthread_mutex_unlock(&h->mu);
	if (b)
		return b;
	return slot_new();
}

void fetch_hasher_unslot(struct hasher *h, uint8_t *buf)
{
	if (!buf)
		return;
	pthread_mutex_lock(&h->mu);
	spare(h, buf);
	pthread_mutex_unlock(&h->mu);
}

/* Queued only at the frontier (so the queue is in file order and every
 * gap before a slot is on disk, ready to be read), and only while the
 * thread runs; a full queue waits for the hash. */
int fetch_hasher_give(struct hasher *h, uint8_t *buf, uint64_t off, size_t len, uint64_t ready)
{
	pthread_mutex_lock(&h->mu);
	int take = h->running && !h->failed && !h->stop && off == frontier(h);
	while (take && h->queued == RING && !h->failed)
		pthread_cond_wait(&h->cv, &h->mu);
	take = take && !h->failed;
	if (take) {
		h->q[(h->head + h->queued) % RING] = (struct slot){buf, off, len};
		h->queued++;
	}
	set_ready(h, ready);
	if (take)
		pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	return take;
}

uint64_t fetch_hasher_hashed(struct hasher *h)
{
	pthread_mutex_lock(&h->mu);
	uint64_t v = h->hashed;
	pthread_mutex_unlock(&h->mu);
	return v;
}

static void hex_of(const unsigned char *md, char hex[65])
{
	static const char digits[] = "0123456789abcdef";
	for (unsigned i = 0; i < 32; i++) {
		hex[2 * i] = digits[md[i] >> 4];
		hex[2 * i + 1] = digits[md[i] & 15];
	}
	hex[64] = '\0';
}

/* Stop the thread; with hex, wait for every ready byte and finish the
 * digest. Returns 0, or -1 when a read failed. */
int fetch_hasher_end(struct hasher *h, char hex[65])
{
	if (!h->ctx)
		return -1;
	pthread_mutex_lock(&h->mu);
	h->stop = hex ? 1 : 2; /* 2: abandon the rest */
	pthread_cond_broadcast(&h->cv);
	pthread_mutex_unlock(&h->mu);
	if (h->running)
		pthread_join(h->t, NULL);
	if (h->dfd >= 0)
		close(h->dfd);
	h->dfd = -1;
	/* every ready byte must have been hashed: a digest of less is no digest */
	int rc = h->failed || !h->running || (hex && h->hashed != h->ready) ? -1 : 0;
	while (h->queued)
		pop(h);
	while (h->nspare)
		free(h->spare[--h->nspare]);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned len = 0;
	EVP_DigestFinal_ex(h->ctx, md, &len);
	EVP_MD_CTX_free(h->ctx);
	h->ctx = NULL;
	pthread_mutex_destroy(&h->mu);
	pthread_cond_destroy(&h->cv);
	if (hex && rc == 0)
		hex_of(md, hex);
	return rc;
}
