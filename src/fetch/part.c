/* The .part's progress (FILE.part.state) and the one-writer lock
 * (FILE.part.lock) of a download. See fetch_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
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
	st->s[0] = (struct seg){0, 0, 0};
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

/* Version 2 keeps the URL redacted (for a person reading it) and the full
 * URL's hash (to resume only the same URL): no secret at rest. A version 1
 * state (the URL in full) is still resumed, and the next save rewrites it
 * as version 2. */
int fetch_state_save(const char *path, const struct state *st)
{
	struct sb b = {0};
	char hex[65], *shown = redact_text(st->url);
	url_sha256(st->url, hex);
	sb_addf(&b, "zealot-fetch 2\nurl %s\nurl_sha256 %s\netag %s\nlastmod %s\nsize %" PRIu64 "\n", shown, hex,
		st->etag, st->lastmod, st->size);
	free(shown);
	for (unsigned i = 0; i < st->n; i++)
		sb_addf(&b, "seg %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", st->s[i].start, st->s[i].end, st->s[i].done);
	/* rewritten in place: a crash mid-write leaves a file that fails to
	 * parse, which only costs a restart; never through a symbolic link or
	 * into a file not this user's own (open_own) */
	int fd = open_own(path, O_WRONLY | O_CREAT, 0600, NULL);
	int rc = -1;
	if (fd >= 0) {
		rc = pwrite(fd, b.s, b.len, 0) == (ssize_t)b.len && ftruncate(fd, (off_t)b.len) == 0 ? 0 : -1;
		close(fd);
	}
	sb_release(&b);
	return rc;
}

/* Load a state whose URL is url; -1 when absent, foreign or damaged. */
int fetch_state_load(const char *path, const char *url, struct state *st)
{
	int fd = open_own(path, O_RDONLY, 0, NULL);
	FILE *f = fd >= 0 ? fdopen(fd, "r") : NULL;
	if (!f) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	char line[4096], hex[65];
	int ok = fgets(line, sizeof(line), f) != NULL;
	int v2 = ok && strcmp(line, "zealot-fetch 2\n") == 0;
	ok = v2 || (ok && strcmp(line, "zealot-fetch 1\n") == 0);
	unsigned n = 0;
	int have_size = 0, url_ok = 0;
	url_sha256(url, hex);
	while (ok && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		if (!len || line[len - 1] != '\n') {
			ok = 0;
			break;
		}
		line[--len] = '\0';
		unsigned long long a, b, c;
		if (strncmp(line, "url ", 4) == 0) {
			if (!v2) /* version 1: the URL itself */
				url_ok = strcmp(line + 4, url) == 0;
		} else if (v2 && strncmp(line, "url_sha256 ", 11) == 0) {
			url_ok = hex[0] && strcmp(line + 11, hex) == 0;
		} else if (strncmp(line, "etag ", 5) == 0 && len - 5 < sizeof(st->etag)) {
			memcpy(st->etag, line + 5, len - 4);
		} else if (strncmp(line, "lastmod ", 8) == 0 && len - 8 < sizeof(st->lastmod)) {
			memcpy(st->lastmod, line + 8, len - 7);
		} else if (sscanf(line, "size %llu", &a) == 1) {
			st->size = a;
			have_size = 1;
		} else if (sscanf(line, "seg %llu %llu %llu", &a, &b, &c) == 3 && n < MAX_SEGS) {
			st->s[n++] = (struct seg){a, b, c};
		} else {
			ok = 0;
		}
	}
	fclose(f);
	if (!ok || !url_ok || !have_size || !n || (!st->etag[0] && !st->lastmod[0]))
		return -1;
	/* the segments must tile [0, size) in order, each within bounds */
	uint64_t at = 0;
	for (unsigned i = 0; i < n; i++) {
		struct seg *s = &st->s[i];
		uint64_t end = s->end ? s->end : st->size;
		if (s->start != at || end < s->start || s->done > end - s->start || (st->size && end > st->size))
			return -1;
		at = end;
	}
	if (st->size && at != st->size)
		return -1;
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
