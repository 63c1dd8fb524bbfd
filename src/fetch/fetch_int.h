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
/* Write st to path (this user's own regular file, never through a link):
 * 0, or -1. */
int fetch_state_save(const char *path, const struct state *st);
/* Load a state whose URL is url; -1 when absent, foreign or damaged. */
int fetch_state_load(const char *path, const char *url, struct state *st);

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
 * (hasher.c) ------------------------------------------------------------ */

struct hasher {
	pthread_t t;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int fd;
	uint64_t ready;	  /* bytes [0, ready) are on disk */
	uint64_t hashed;  /* bytes hashed so far */
	uint64_t flushed; /* writeback started for [0, flushed) */
	int stop;
	int failed;
	EVP_MD_CTX *ctx;
	int running;
};

void fetch_hasher_start(struct hasher *h, int fd);
/* Bytes [0, ready) are on disk: the thread may hash up to there. */
void fetch_hasher_ready(struct hasher *h, uint64_t ready);
uint64_t fetch_hasher_hashed(struct hasher *h);
/* Stop the thread; with hex, wait for every ready byte and finish the
 * digest. Returns 0, or -1 when a read failed. */
int fetch_hasher_end(struct hasher *h, char hex[65]);

#endif
