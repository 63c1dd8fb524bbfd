/* The .part's progress (FILE.part.state) and the one-writer lock
 * (FILE.part.lock) of a download. See fetch_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/crypto_lazy.h"
#include "../base/file.h"
#include "../base/redact.h"
#include "../base/util.h"
#include "fetch_int.h"

/* --- the .part's progress, kept in FILE.part.state ----------------------- */

void fetch_state_reset(struct state *st)
{
	st->etag[0] = st->lastmod[0] = '\0';
	st->size = 0;
	st->n = 1;
	st->s[0] = (struct seg){0, 0, 0, 0};
}

/* The URL's SHA-256, hex: what the state holds to know its URL again
 * without holding the URL's credentials (user:password@, a token). */
static void url_sha256(const char *url, char hex[65])
{
	unsigned char md[32];
	unsigned len = 0;
	hex[0] = '\0';
	if (!EVP_Digest(url, strlen(url), md, &len, EVP_sha256(), NULL) || len != 32)
		return;
	for (unsigned i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", md[i]);
}

static char boot[64];
static void boot_read(void)
{
	FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");
	if (f && fgets(boot, sizeof(boot), f))
		boot[strcspn(boot, "\n")] = '\0';
	else
		boot[0] = '\0';
	if (f)
		fclose(f);
}

/* This boot's id ("" when the kernel does not say): a state written in
 * another boot may claim bytes that were only in the page cache when the
 * power went. */
static const char *boot_id(void)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, boot_read);
	return boot;
}

/* Version 3 adds the boot the state was written in and each segment's
 * durable bytes (made durable by fdatasync before the state claimed
 * them); version 2 keeps the URL redacted (for a person reading it) and
 * the full URL's hash (to resume only the same URL): no secret at rest.
 * Versions 1 (the URL in full) and 2 are still resumed, and the next save
 * rewrites them as version 3. */
int fetch_state_save(int fd, const struct state *st)
{
	struct sb b = {0};
	char hex[65], *shown = redact_text(st->url);
	url_sha256(st->url, hex);
	sb_addf(&b, "zealot-fetch 3\nurl %s\nurl_sha256 %s\nboot %s\netag %s\nlastmod %s\nsize %" PRIu64 "\n", shown,
		hex, boot_id(), st->etag, st->lastmod, st->size);
	free(shown);
	for (unsigned i = 0; i < st->n; i++)
		sb_addf(&b, "seg %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", st->s[i].start, st->s[i].end,
			st->s[i].done, st->s[i].durable);
	/* rewritten in place: a crash mid-write leaves a file that fails to
	 * parse, which only costs a restart; the file is this user's own,
	 * opened once per download (open_own: never through a link) */
	int rc = pwrite(fd, b.s, b.len, 0) == (ssize_t)b.len && ftruncate(fd, (off_t)b.len) == 0 ? 0 : -1;
	sb_release(&b);
	return rc;
}

/* One line of a state: 0 understood, -1 not. */
static int state_line(struct state *st, const char *line, size_t len, int version, const char *hex, int *url_ok,
		      int *boot_same, int *have_size, unsigned *n)
{
	unsigned long long a, b, c, e;
	int k;
	if (strncmp(line, "url ", 4) == 0) {
		if (version == 1) /* version 1: the URL itself */
			*url_ok = strcmp(line + 4, st->url) == 0;
	} else if (version >= 2 && strncmp(line, "url_sha256 ", 11) == 0) {
		*url_ok = hex[0] && strcmp(line + 11, hex) == 0;
	} else if (version >= 3 && strncmp(line, "boot ", 5) == 0) {
		*boot_same = boot_id()[0] && strcmp(line + 5, boot_id()) == 0;
	} else if (strncmp(line, "etag ", 5) == 0 && len - 5 < sizeof(st->etag)) {
		memcpy(st->etag, line + 5, len - 4);
	} else if (strncmp(line, "lastmod ", 8) == 0 && len - 8 < sizeof(st->lastmod)) {
		memcpy(st->lastmod, line + 8, len - 7);
	} else if (sscanf(line, "size %llu", &a) == 1) {
		st->size = a;
		*have_size = 1;
	} else if (*n < MAX_SEGS &&
		   (k = sscanf(line, "seg %llu %llu %llu %llu", &a, &b, &c, &e)) == (version >= 3 ? 4 : 3)) {
		/* before version 3 every byte claimed is taken as durable */
		st->s[(*n)++] = (struct seg){a, b, c, version >= 3 ? e : c};
	} else {
		return -1;
	}
	return 0;
}

/* The segments tile [0, size) in order, each within bounds: 0, or -1. */
static int state_tiles(const struct state *st, unsigned n)
{
	uint64_t at = 0;
	for (unsigned i = 0; i < n; i++) {
		const struct seg *s = &st->s[i];
		uint64_t end = s->end ? s->end : st->size;
		if (s->start != at || end < s->start || s->done > end - s->start || s->durable > s->done ||
		    (st->size && end > st->size))
			return -1;
		at = end;
	}
	return st->size && at != st->size ? -1 : 0;
}

/* Load a state whose URL is st->url; -1 when absent, foreign or damaged.
 * A state written in another boot (or that names none) resumes from its
 * durable bytes only: the rest may have been lost with the page cache. */
int fetch_state_load(const char *path, struct state *st)
{
	int fd = open_own(path, O_RDONLY, 0, NULL);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char line[4096], hex[65];
	int version = 0;
	if (fgets(line, sizeof(line), f) && strncmp(line, "zealot-fetch ", 13) == 0 && line[13] >= '1' &&
	    line[13] <= '3' && strcmp(line + 14, "\n") == 0)
		version = line[13] - '0';
	int ok = version > 0;
	unsigned n = 0;
	int have_size = 0, url_ok = 0, boot_same = version < 3;
	url_sha256(st->url, hex);
	while (ok && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		if (!len || line[len - 1] != '\n') {
			ok = 0;
			break;
		}
		line[--len] = '\0';
		ok = state_line(st, line, len, version, hex, &url_ok, &boot_same, &have_size, &n) == 0;
	}
	fclose(f);
	if (!ok || !url_ok || !have_size || !n || (!st->etag[0] && !st->lastmod[0]) || state_tiles(st, n))
		return -1;
	for (unsigned i = 0; i < n && !boot_same; i++)
		st->s[i].done = st->s[i].durable;
	st->n = n;
	return 0;
}

/* --- one writer per target: FILE.part.lock -------------------------------
 *
 * Two fetches of one file would write one .part at once and move a
 * spliced file into place. The writer holds a POSIX write lock on
 * FILE.part.lock for the whole download; the kernel drops it when the
 * process ends, however it ends, so a dead fetch leaves no lock behind
 * (its .part and .part.state are resumed by the next one). F_GETLK names
 * the holder's pid, so a refusal can say who holds the file. */

/* Take the lock on f's target, or refuse at once (never waits): returns
 * 0, or -1 with *err naming the pid that holds it. */
int fetch_lock_take(const struct fetch_file *f, struct fetch_lock *lk, char **err)
{
	struct sb b = {0};
	sb_addf(&b, "%s.part.lock", f->path);
	lk->path = sb_detach(&b);
	char *why = NULL;
	for (unsigned tries = 0; tries < 100; tries++) {
		free(why);
		why = NULL;
		lk->fd = open_own(lk->path, O_RDWR | O_CREAT, 0644, &why);
		if (lk->fd < 0)
			break;
		struct flock fl = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
		if (fcntl(lk->fd, F_SETLK, &fl) != 0) {
			int e = errno;
			struct flock q = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
			int held = (e == EACCES || e == EAGAIN) && fcntl(lk->fd, F_GETLK, &q) == 0;
			close(lk->fd);
			lk->fd = -1;
			if (held && q.l_type == F_UNLCK)
				continue; /* released between the two calls */
			if (held)
				errorf(err,
				       "'%s' is being fetched by pid %ld (it holds '%s'): wait for it to end, or "
				       "stop it and fetch again (its .part is resumed)",
				       f->path, (long)q.l_pid, lk->path);
			else
				errorf(err, "cannot lock '%s': %s", lk->path, strerror(e));
			free(why);
			free(lk->path);
			lk->path = NULL;
			return -1;
		}
		/* the holder before us may have unlinked the path while we
		 * opened it: a lock on an unlinked inode guards nothing */
		struct stat a, p;
		if (fstat(lk->fd, &a) == 0 && stat(lk->path, &p) == 0 && a.st_ino == p.st_ino && a.st_dev == p.st_dev) {
			char pid[32];
			int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
			if (ftruncate(lk->fd, 0) != 0 || pwrite(lk->fd, pid, (size_t)n, 0) != n) {
				/* the pid in the file is for people; F_GETLK is the truth */
			}
			free(why);
			return 0;
		}
		close(lk->fd);
		lk->fd = -1;
	}
	if (why)
		errorf(err, "cannot lock: %s", why);
	else
		errorf(err, "cannot lock '%s': it keeps being replaced", lk->path);
	free(why);
	free(lk->path);
	lk->path = NULL;
	return -1;
}

/* Unlink while still holding the lock (so no one locks a doomed inode
 * unnoticed: see the inode check above), then release it. */
void fetch_lock_drop(struct fetch_lock *lk)
{
	if (!lk->path)
		return;
	unlink(lk->path);
	close(lk->fd);
	free(lk->path);
	lk->path = NULL;
}

/* --- the .part's durability: a thread that syncs it ----------------------
 *
 * The writers ask; the thread does the waiting. A kick starts the
 * writeback of the dirty pages (sync_file_range, no wait), so the page
 * cache holds a bounded part of the file and the fsync before the rename
 * finds little left. A checkpoint fdatasyncs the .part, then records the
 * progress the writers had when they asked: only then may the state
 * claim those bytes as durable. */

static void *sync_main(void *arg)
{
	struct syncer *y = arg;
	pthread_mutex_lock(&y->mu);
	for (;;) {
		while (!y->stop && !y->kick && !y->want)
			pthread_cond_wait(&y->cv, &y->mu);
		if (y->stop)
			break;
		if (y->want) {
			struct state snap = y->snap;
			y->want = y->kick = 0;
			pthread_mutex_unlock(&y->mu);
			int r = fdatasync(y->fd);
			pthread_mutex_lock(&y->mu);
			if (r == 0) {
				y->dur = snap;
				y->checkpoints++;
			}
			continue;
		}
		y->kick = 0;
		pthread_mutex_unlock(&y->mu);
		sync_file_range(y->fd, 0, 0, SYNC_FILE_RANGE_WRITE);
		pthread_mutex_lock(&y->mu);
	}
	pthread_mutex_unlock(&y->mu);
	return NULL;
}

void fetch_syncer_start(struct syncer *y, int fd)
{
	memset(y, 0, sizeof(*y));
	y->fd = fd;
	pthread_mutex_init(&y->mu, NULL);
	pthread_cond_init(&y->cv, NULL);
	y->running = pthread_create(&y->t, NULL, sync_main, y) == 0;
}

void fetch_syncer_kick(struct syncer *y)
{
	pthread_mutex_lock(&y->mu);
	y->kick = 1;
	pthread_cond_signal(&y->cv);
	pthread_mutex_unlock(&y->mu);
}

/* Ask for st's progress to be made durable (a request not yet begun is
 * replaced by this one). */
void fetch_syncer_want(struct syncer *y, const struct state *st)
{
	pthread_mutex_lock(&y->mu);
	y->snap.n = st->n;
	memcpy(y->snap.s, st->s, sizeof(st->s[0]) * st->n);
	y->want = 1;
	pthread_cond_signal(&y->cv);
	pthread_mutex_unlock(&y->mu);
}

/* st's segments claim as durable what the last checkpoint made durable:
 * a segment's bytes as the checkpoint saw them (matched by its start, so
 * a split since then changes nothing), never more than it has now. */
void fetch_syncer_apply(struct syncer *y, struct state *st)
{
	pthread_mutex_lock(&y->mu);
	for (unsigned i = 0; i < st->n; i++)
		for (unsigned j = 0; j < y->dur.n; j++) {
			struct seg *s = &st->s[i];
			const struct seg *d = &y->dur.s[j];
			uint64_t v = d->done < s->done ? d->done : s->done;
			if (d->start == s->start && v > s->durable)
				s->durable = v;
		}
	pthread_mutex_unlock(&y->mu);
}

/* Set *stop under mu, wake the thread t and wait for its end; then free
 * mu and cv (the syncer's and the writer's). */
static void thread_end(pthread_t t, pthread_mutex_t *mu, pthread_cond_t *cv, int *stop)
{
	pthread_mutex_lock(mu);
	*stop = 1;
	pthread_cond_broadcast(cv);
	pthread_mutex_unlock(mu);
	pthread_join(t, NULL);
	pthread_mutex_destroy(mu);
	pthread_cond_destroy(cv);
}

void fetch_syncer_end(struct syncer *y)
{
	if (!y->running)
		return;
	thread_end(y->t, &y->mu, &y->cv, &y->stop);
	y->running = 0;
}

/* --- the .part's writes: a thread that does them ------------------------ */

int fetch_direct_refused(int *dfd)
{
	if (errno != EINVAL && errno != EOPNOTSUPP)
		return 0;
	close(*dfd);
	*dfd = -1;
	return 1;
}

static void write_job(struct writer *w, struct wjob *j)
{
	size_t off = 0, whole = j->direct && j->off % DIO_ALIGN == 0 ? j->len / DIO_ALIGN * DIO_ALIGN : 0;
	while (off < j->len) {
		int dio = off < whole && w->dfd >= 0;
		size_t piece = dio ? whole - off : j->len - off < WRITE_PIECE ? j->len - off : WRITE_PIECE;
		ssize_t r = pwrite(dio ? w->dfd : w->fd, j->buf + off, piece, (off_t)(j->off + off));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && dio && fetch_direct_refused(&w->dfd))
			continue;
		if (r <= 0) {
			j->err = r < 0 ? errno : EIO;
			break;
		}
		off += (size_t)r;
	}
	j->wrote = off;
}

static void *write_main(void *arg)
{
	struct writer *w = arg;
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (!w->stop && !w->queued)
			pthread_cond_wait(&w->cv, &w->mu);
		if (!w->queued)
			break;
		struct wjob *j = w->q[w->head];
		pthread_mutex_unlock(&w->mu);
		write_job(w, j);
		pthread_mutex_lock(&w->mu);
		w->head = (w->head + 1) % INFLIGHT;
		w->queued--;
		j->done = 1;
		pthread_cond_broadcast(&w->cv);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

void fetch_writer_start(struct writer *w, int fd, int dfd)
{
	memset(w, 0, sizeof(*w));
	w->fd = fd;
	w->dfd = dfd;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	w->running = pthread_create(&w->t, NULL, write_main, w) == 0;
}

void fetch_writer_post(struct writer *w, struct wjob *j)
{
	j->done = 0;
	j->wrote = 0;
	j->err = 0;
	if (!w->running) {
		write_job(w, j);
		j->done = 1;
		return;
	}
	pthread_mutex_lock(&w->mu);
	w->q[(w->head + w->queued) % INFLIGHT] = j;
	w->queued++;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

void fetch_writer_wait(struct writer *w, struct wjob *j)
{
	if (!w->running)
		return;
	pthread_mutex_lock(&w->mu);
	while (!j->done)
		pthread_cond_wait(&w->cv, &w->mu);
	pthread_mutex_unlock(&w->mu);
}

int fetch_writer_done(struct writer *w, const struct wjob *j)
{
	if (!w->running)
		return 1;
	pthread_mutex_lock(&w->mu);
	int done = j->done;
	pthread_mutex_unlock(&w->mu);
	return done;
}

void fetch_writer_end(struct writer *w)
{
	if (w->running)
		thread_end(w->t, &w->mu, &w->cv, &w->stop);
	w->running = 0;
	if (w->dfd >= 0)
		close(w->dfd);
	w->dfd = -1;
}
