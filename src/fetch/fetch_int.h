/* fetch's private pieces, shared by its files and no one else: the
 * .part's progress (FILE.part.state) and the one-writer lock
 * (FILE.part.lock), in part.c; the hashing thread, in hasher.c; the
 * download itself, in download.c. */
#ifndef ZEALOT_FETCH_INT_H
#define ZEALOT_FETCH_INT_H

#include <pthread.h>
#include <stdint.h>

#include "../base/crypto_lazy.h"
#include "fetch.h"

#define MAX_SEGS 16

/* --- the .part's progress, kept in FILE.part.state (part.c) ------------ */

struct seg {
	uint64_t start, end; /* [start, end); end 0 = until the file ends (size unknown) */
	uint64_t done;	     /* bytes of the segment on disk */
	uint64_t durable;    /* of those, the bytes an fdatasync made durable */
};

struct state {
	char *url;
	char etag[256];	   /* strong ETag, quotes included, or "" */
	char lastmod[128]; /* Last-Modified, or "" */
	uint64_t size;	   /* 0 unknown */
	unsigned n;
	struct seg s[MAX_SEGS];
};

void fetch_state_reset(struct state *st);
/* Write st into the state file open on fd (this user's own regular file,
 * never through a link): 0, or -1. */
int fetch_state_save(int fd, const struct state *st);
/* Load the state at path if its URL is st->url: 0, or -1 when absent,
 * foreign or damaged. */
int fetch_state_load(const char *path, struct state *st);

/* --- the .part's durability (part.c) ------------------------------------ */

struct syncer {
	pthread_t t;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	int running, stop;
	int kick;	   /* start the writeback of what is dirty */
	int want;	   /* make snap's progress durable */
	struct state snap; /* the segments as the writers asked (n and s only) */
	struct state dur;  /* the segments as the last checkpoint made durable */
	unsigned checkpoints;
};

void fetch_syncer_start(struct syncer *y, int fd);
void fetch_syncer_kick(struct syncer *y);
void fetch_syncer_want(struct syncer *y, const struct state *st);
void fetch_syncer_apply(struct syncer *y, struct state *st);
/* Stop the thread (after the fdatasync under way, if one is). */
void fetch_syncer_end(struct syncer *y);

/* --- the .part's writes, by a thread of their own (part.c) --------------
 *
 * A connection hands its full slot to the thread and goes on receiving
 * into another. The writes in flight are one budget for the whole
 * download, INFLIGHT slots over every connection (one thread writes them
 * in turn, so more in flight would only hold memory): a connection whose
 * slot is full while INFLIGHT are in flight waits for the oldest of them,
 * whichever connection's it is. A write's bytes count as on disk once it
 * landed (the download's loop looks for landed writes too: a connection
 * whose server stalls must not keep its last writes uncounted). A direct
 * write puts the whole DIO_ALIGN blocks of the slot on disk with O_DIRECT
 * (one pwrite; a refusal turns the page cache on for good), the rest goes
 * in WRITE_PIECE pwrites through the page cache. */

/* Bytes per pwrite through the page cache: the page cache gives a write a
 * folio as large as the write, which this VM makes costly to fault in
 * (docs/running.md, "Measured", has the figures). */
#define WRITE_PIECE (8u << 10)
/* Writes in flight at most, over every connection. Receiving plus hashing
 * a slot takes about as long as writing it with O_DIRECT, so a connection
 * that waited for the write before at every slot ran the two in turn
 * (docs/running.md); a few in flight let them run side by side. */
#define INFLIGHT 8

struct wjob {
	const uint8_t *buf;
	uint64_t off;
	size_t len;
	int direct;
	int done;     /* the thread finished it */
	size_t wrote; /* bytes on disk, from off */
	int err;      /* errno of the write that failed, or 0 */
};

struct writer {
	pthread_t t;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd, dfd; /* the .part through the page cache, and with O_DIRECT (or -1) */
	struct wjob *q[INFLIGHT];
	unsigned head, queued;
	int running, stop;
};

/* A read or write through *dfd (the .part with O_DIRECT) failed with
 * errno: 1 when the file system refuses O_DIRECT there (EINVAL,
 * EOPNOTSUPP), and then *dfd is closed and -1, so the page cache takes
 * every later byte; 0 for any other error. The writer's and the hash's
 * one rule. */
int fetch_direct_refused(int *dfd);
/* dfd: -1, or the .part open with O_DIRECT (the writer closes it) */
void fetch_writer_start(struct writer *w, int fd, int dfd);
/* Queue j (at most INFLIGHT in flight, so never more than the queue holds);
 * without the thread, write it here and now. */
void fetch_writer_post(struct writer *w, struct wjob *j);
void fetch_writer_wait(struct writer *w, struct wjob *j);
/* 1 when j's write has landed (never waits). */
int fetch_writer_done(struct writer *w, const struct wjob *j);
/* Every posted job is waited for before: stop the thread. */
void fetch_writer_end(struct writer *w);

/* --- one writer per target: FILE.part.lock (part.c) -------------------- */

struct fetch_lock {
	char *path;
	int fd;
};

/* Take the lock on f's target, or refuse at once (never waits): returns
 * 0, or -1 with *err naming the pid that holds it. */
int fetch_lock_take(const struct fetch_file *f, struct fetch_lock *lk, char **err);
/* Unlink the lock file while still holding it, then release it. */
void fetch_lock_drop(struct fetch_lock *lk);

/* --- the hash, taken in file order by a thread behind the writers
 * (hasher.c) ------------------------------------------------------------
 *
 * The hash takes the bytes from memory as they arrive, and reads back
 * from the .part only what it could not take so (a resumed prefix, a
 * later segment of a split download), with O_DIRECT where the file
 * system takes it (every slot is written so, and nothing of the .part
 * needs the page cache). A chunk from curl that begins
 * where the hash is idle is hashed at once, by the receiving thread, from
 * curl's buffer (fetch_hasher_feed). Every chunk gathers in a slot
 * (fetch_hasher_slot), which is written, then handed over
 * (fetch_hasher_give): a slot that begins where the hash will be once it
 * has what it holds is queued for the thread; any other stays the
 * writer's. The queue is bounded: a writer whose slot finds RING queued
 * waits for the hash. */

#define SLOT (2u << 20) /* a slot's bytes at most: one pwrite, and a huge page's (fetch_hasher_slot) */
/* A slot goes to the disk with O_DIRECT, from the slot itself: no page
 * cache to fill, write back and reclaim (docs/running.md has the CPU it
 * saves). A slot ends on a DIO_ALIGN boundary, so the next begins on one;
 * one that begins off a boundary (a resume at such a byte) ends at the
 * next, so only those few bytes go through the page cache. A slot's
 * memory, and the offsets and lengths of a direct write, are multiples
 * of: */
#define DIO_ALIGN 4096u
#define RING	  8  /* slots queued for the hash at most */
#define SPARES	  32 /* free slots kept for reuse (a fresh one is faulted in again) */

struct slot {
	uint8_t *buf;
	uint64_t off;
	size_t len;
};

struct hasher {
	pthread_t t;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd, dfd;	 /* the .part, through the page cache and with O_DIRECT (or -1) */
	uint64_t ready;	 /* bytes [0, ready) are on disk */
	uint64_t hashed; /* bytes hashed so far */
	struct slot q[RING];
	unsigned head, queued;
	uint8_t *spare[SPARES];
	unsigned nspare;
	int stop; /* 1: end once every ready byte is hashed, 2: at once */
	int failed;
	int busy; /* the digest is being updated, unlocked (by the thread or a writer) */
	EVP_MD_CTX *ctx;
	int running;
};

/* dfd: -1, or the .part open with O_DIRECT for reading (the hasher
 * closes it) */
void fetch_hasher_start(struct hasher *h, int fd, int dfd);
/* Bytes [0, ready) are on disk: the thread may hash up to there. */
void fetch_hasher_ready(struct hasher *h, uint64_t ready);
/* A slot of SLOT bytes for a writer (waits while RING are queued). */
uint8_t *fetch_hasher_slot(struct hasher *h);
/* buf's len bytes at off are on disk, and so is [0, ready): returns 1
 * when the hasher took buf (the writer needs another slot), 0 when buf is
 * still the writer's. */
int fetch_hasher_give(struct hasher *h, uint8_t *buf, uint64_t off, size_t len, uint64_t ready);
/* len bytes at off, just received, not yet written: when the hash is
 * idle right there, hash them now from data, in the caller's thread. */
void fetch_hasher_feed(struct hasher *h, const uint8_t *data, uint64_t off, size_t len);
/* A writer's slot it no longer needs. */
void fetch_hasher_unslot(struct hasher *h, uint8_t *buf);
uint64_t fetch_hasher_hashed(struct hasher *h);
/* Stop the thread; with hex, wait for every ready byte and finish the
 * digest. Returns 0, or -1 when a read failed. */
int fetch_hasher_end(struct hasher *h, char hex[65]);

#endif
