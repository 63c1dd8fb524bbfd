#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "util.h"

/* Fail with msg (taken) and kind k; fd closed when it is >= 0. */
static char *refuse(char **err, enum zerr *kind, enum zerr k, int fd, struct sb *b, char *msg)
{
	zerr_set(kind, k);
	if (err) {
		free(*err);
		*err = msg;
	} else {
		free(msg);
	}
	if (fd >= 0)
		close(fd);
	sb_release(b);
	return NULL;
}

static char *msgf(const char *fmt, const char *path, const char *why)
{
	struct sb m = {0};
	sb_addf(&m, fmt, path, why);
	return sb_detach(&m);
}

char *read_file(const char *path, size_t cap, unsigned flags, size_t *len, enum zerr *kind, char **err)
{
	struct sb b = {0};
	int fd = -1, own = !(flags & READ_STDIN) || strcmp(path, "-") != 0;
	if (own) {
		/* one check for a regular file (a FIFO, a device, a socket could
		 * block or never end): open_regular's */
		char *why = NULL;
		fd = open_regular(path, &why);
		if (fd < 0) {
			int e = errno;
			return refuse(err, kind, zerr_of_errno(e), -1, &b, why);
		}
	}
	sb_adds(&b, "");
	char chunk[65536];
	for (;;) {
		size_t want = cap - b.len + 1 < sizeof(chunk) ? cap - b.len + 1 : sizeof(chunk);
		ssize_t n = read(own ? fd : 0, chunk, want);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return refuse(err, kind, ZE_IO, fd, &b, msgf("cannot read '%s'%s", path, ""));
		if (n == 0)
			break;
		if (b.len + (size_t)n > cap) {
			if (!(flags & READ_TRUNCATE)) {
				struct sb m = {0};
				sb_addf(&m, "'%s' is larger than %zu MiB", path, cap >> 20);
				return refuse(err, kind, ZE_USAGE, fd, &b, sb_detach(&m));
			}
			sb_add(&b, chunk, cap - b.len);
			break;
		}
		sb_add(&b, chunk, (size_t)n);
	}
	if (fd >= 0)
		close(fd);
	if (len)
		*len = b.len;
	zerr_set(kind, ZE_OK);
	return sb_detach(&b);
}

void fsync_parent(const char *path)
{
	char *dir = path_dir(path);
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		fsync(fd);
		close(fd);
	}
	free(dir);
}

/* A temporary file created here and now, never one found there: O_EXCL
 * and O_NOFOLLOW, so a name planted before (a symlink, another user's
 * file) is not written through; a leftover of a dead process of the same
 * pid is unlinked (the name, never what it points at) and made again. */
int open_tmp(const char *tmp, unsigned mode)
{
	int fd = -1;
	for (int i = 0; i < 2 && fd < 0; i++) {
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
		if (fd < 0 && (errno != EEXIST || (i == 0 && unlink(tmp) != 0)))
			break;
	}
	return fd;
}

int write_file(const char *path, const char *text, char **err)
{
	/* a name of this process's own: two writers of one path never share a
	 * temporary file, and the rename makes the last one win whole */
	struct sb b = {0};
	sb_addf(&b, "%s.tmp.%ld", path, (long)getpid());
	char *tmp = sb_detach(&b);
	int fd = open_tmp(tmp, 0666);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		errorf(err, "cannot write '%s': %s", path, strerror(errno)); /* the name the user gave */
		if (fd >= 0) {
			close(fd);
			remove(tmp);
		}
		free(tmp);
		return -1;
	}
	size_t n = strlen(text);
	int bad = fwrite(text, 1, n, f) != n;
	bad |= fflush(f) != 0 || fsync(fileno(f)) != 0;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		errorf(err, "cannot write '%s': %s", path, strerror(errno));
		remove(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

const char *cmake_cache_value(const char *text, const char *name, char *out, size_t n)
{
	size_t len = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, name, len) != 0 || p[len] != ':')
			continue;
		const char *eq = strchr(p, '=');
		const char *end = strchr(p, '\n');
		if (!eq || (end && eq > end))
			return NULL;
		size_t m = end ? (size_t)(end - eq - 1) : strlen(eq + 1);
		if (m && eq[m] == '\r')
			m--;
		snprintf(out, n, "%.*s", (int)m, eq + 1);
		return out;
	}
	return NULL;
}

int cmake_cache_true(const char *text, const char *name)
{
	char buf[64];
	const char *v = cmake_cache_value(text, name, buf, sizeof(buf));
	static const char *const yes[] = {"ON", "YES", "TRUE", "Y", "1"};
	for (size_t i = 0; v && i < ARRAY_SIZE(yes); i++)
		if (strcasecmp(v, yes[i]) == 0)
			return 1;
	return 0;
}

int open_own(const char *path, int flags, unsigned mode, char **err)
{
	int fd = open(path, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, mode);
	if (fd < 0) {
		int e = errno;
		if (e == ELOOP)
			errorf(err, "'%s' is a symbolic link: zealot does not write through one", path);
		else
			errorf(err, "cannot open '%s': %s", path, strerror(e));
		errno = e;
		return -1;
	}
	struct stat st;
	const char *why = NULL;
	if (fstat(fd, &st) != 0)
		why = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		why = "it is not a regular file";
	else if (st.st_uid != geteuid())
		why = "it belongs to another user";
	else if (st.st_nlink != 1)
		why = "it has another hard link";
	if (why) {
		close(fd);
		errorf(err, "'%s' is not this user's own file (%s): zealot does not use it", path, why);
		errno = EPERM;
		return -1;
	}
	return fd_blocking(fd);
}

/* One directory of the way: owned by root or this user, and written by no
 * one else unless it is sticky (then no one else can rename what is ours
 * in it). The directory itself (last): this user's, writable by no other. */
static int dir_ok(const char *p, const struct stat *st, int last, char **err)
{
	uid_t me = geteuid();
	if (last && st->st_uid != me)
		return errorf(err, "'%s' belongs to uid %u, not to this user (uid %u)", p, (unsigned)st->st_uid,
			      (unsigned)me);
	if (last && (st->st_mode & 022))
		return errorf(err, "'%s' is writable by others (mode %04o)", p, (unsigned)(st->st_mode & 07777));
	if (st->st_uid != 0 && st->st_uid != me)
		return errorf(err, "'%s', on the way to it, belongs to uid %u (neither root nor this user)", p,
			      (unsigned)st->st_uid);
	if ((st->st_mode & 022) && !(st->st_mode & S_ISVTX))
		return errorf(err, "'%s', on the way to it, is writable by others (mode %04o) and not sticky", p,
			      (unsigned)(st->st_mode & 07777));
	return 0;
}

/* The next component of *rest (skipping '/' and "."), copied to c. */
static int next_name(const char **rest, char *c, size_t n)
{
	for (;;) {
		while (**rest == '/')
			(*rest)++;
		size_t len = strcspn(*rest, "/");
		if (!len)
			return 0;
		const char *s = *rest;
		*rest += len;
		if (len == 1 && s[0] == '.')
			continue;
		snprintf(c, n, "%.*s", (int)(len < n ? len : n - 1), s);
		return 1;
	}
}

/* Walk dir as the kernel resolves it, from '/', holding each directory to
 * dir_ok and each symbolic link to its owner (root or this user: no one
 * else can point it elsewhere); dir itself to the stricter rule. */
static int walk_trusted(const char *dir, char **err)
{
	char *todo = xstrdup(dir), c[4096];
	struct sb cur = {0}, nx = {0};
	sb_adds(&cur, "");
	struct stat st;
	int rc = 0, links = 0;
	/* the directory itself first, so its own fault is the one named */
	char *real = realpath(dir, NULL);
	if (real && stat(real, &st) == 0 && dir_ok(dir, &st, 1, err))
		rc = -1;
	free(real);
	if (rc == 0 && (lstat("/", &st) != 0 || dir_ok("/", &st, 0, err)))
		rc = -1;
	for (const char *rest = todo; rc == 0 && next_name(&rest, c, sizeof(c));) {
		if (strcmp(c, "..") == 0) {
			char *sl = strrchr(cur.s, '/');
			cur.len = sl ? (size_t)(sl - cur.s) : 0;
			cur.s[cur.len] = '\0';
			continue;
		}
		nx.len = 0;
		sb_addf(&nx, "%s/%s", cur.s, c);
		if (lstat(nx.s, &st) != 0) {
			rc = errorf(err, "cannot read '%s': %s", nx.s, strerror(errno));
		} else if (S_ISLNK(st.st_mode)) {
			char target[4096];
			ssize_t n = readlink(nx.s, target, sizeof(target) - 1);
			if (++links > 40 || n <= 0) {
				rc = errorf(err, "cannot follow '%s': %s", nx.s,
					    n <= 0 ? strerror(errno) : "too many links");
				break;
			}
			if (st.st_uid != 0 && st.st_uid != geteuid()) {
				rc = errorf(err, "'%s' is a symbolic link of uid %u (neither root nor this user)", nx.s,
					    (unsigned)st.st_uid);
				break;
			}
			target[n] = '\0';
			struct sb t = {0};
			sb_addf(&t, "%s/%s", target, rest);
			free(todo);
			todo = sb_detach(&t);
			rest = todo;
			if (target[0] == '/') {
				cur.len = 0;
				cur.s[0] = '\0';
			}
		} else if (!S_ISDIR(st.st_mode)) {
			rc = errorf(err, "'%s' is not a directory", nx.s);
		} else if (dir_ok(nx.s, &st, 0, err) == 0) {
			sb_adds(&cur, "/");
			sb_adds(&cur, c);
		} else {
			rc = -1;
		}
	}
	if (rc == 0 && (stat(cur.len ? cur.s : "/", &st) != 0 || dir_ok(dir, &st, 1, err)))
		rc = -1;
	free(todo);
	sb_release(&cur);
	sb_release(&nx);
	return rc;
}

int dir_trusted(const char *dir, char **err)
{
	if (dir[0] == '/')
		return walk_trusted(dir, err);
	char *cwd = getcwd(NULL, 0);
	if (!cwd)
		return errorf(err, "cannot resolve '%s': %s", dir, strerror(errno));
	struct sb b = {0};
	sb_addf(&b, "%s/%s", cwd, dir);
	free(cwd);
	int rc = walk_trusted(b.s, err);
	sb_release(&b);
	return rc;
}

int dir_private(const char *dir, char **err)
{
	char *p = xstrdup(dir);
	for (char *s = p + 1;; s++) {
		char c = *s;
		if (c == '/' || c == '\0') {
			*s = '\0';
			if (mkdir(p, 0700) != 0 && errno != EEXIST) {
				errorf(err, "cannot create '%s': %s", p, strerror(errno));
				free(p);
				return -1;
			}
			*s = c;
		}
		if (c == '\0')
			break;
	}
	free(p);
	return dir_trusted(dir, err);
}
