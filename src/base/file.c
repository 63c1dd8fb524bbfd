#include "file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
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

int write_file(const char *path, const char *text, char **err)
{
	/* a name of this process's own: two writers of one path never share a
	 * temporary file, and the rename makes the last one win whole */
	struct sb b = {0};
	sb_addf(&b, "%s.tmp.%ld", path, (long)getpid());
	char *tmp = sb_detach(&b);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		errorf(err, "cannot write '%s': %s", path, strerror(errno)); /* the name the user gave */
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
