#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void oom(size_t n)
{
	fprintf(stderr, "zealot: out of memory allocating %zu bytes\n", n);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom(n);
	return p;
}

void *xcalloc(size_t count, size_t size)
{
	void *p = calloc(count ? count : 1, size ? size : 1);
	if (!p)
		oom(count * size);
	return p;
}

void *xreallocarray(void *p, size_t count, size_t size)
{
	if (size && count > SIZE_MAX / size)
		oom(SIZE_MAX);
	size_t n = count * size;
	void *q = realloc(p, n ? n : 1);
	if (!q)
		oom(count * size);
	return q;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

void sb_init(struct sb *b)
{
	b->s = NULL;
	b->len = 0;
	b->cap = 0;
}

void sb_release(struct sb *b)
{
	free(b->s);
	sb_init(b);
}

void sb_grow(struct sb *b, size_t extra)
{
	if (extra > SIZE_MAX / 2 - b->len)
		oom(SIZE_MAX);
	size_t need = b->len + extra + 1;
	if (need <= b->cap)
		return;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < need)
		cap *= 2;
	b->s = xreallocarray(b->s, cap, 1);
	b->cap = cap;
	if (b->len == 0)
		b->s[0] = '\0';
}

void sb_add(struct sb *b, const char *s, size_t n)
{
	sb_grow(b, n);
	memcpy(b->s + b->len, s, n);
	b->len += n;
	b->s[b->len] = '\0';
}

void sb_adds(struct sb *b, const char *s)
{
	sb_add(b, s, strlen(s));
}

void sb_addc(struct sb *b, char c)
{
	sb_add(b, &c, 1);
}

void sb_vaddf(struct sb *b, const char *fmt, va_list ap)
{
	va_list cp;
	va_copy(cp, ap);
	int n = vsnprintf(NULL, 0, fmt, cp);
	va_end(cp);
	if (n < 0)
		return;
	sb_grow(b, (size_t)n);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
}

void sb_addf(struct sb *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(b, fmt, ap);
	va_end(ap);
}

void sb_add_json_str(struct sb *b, const char *s, size_t n)
{
	sb_addc(b, '"');
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '"': sb_add(b, "\\\"", 2); break;
		case '\\': sb_add(b, "\\\\", 2); break;
		case '\n': sb_add(b, "\\n", 2); break;
		case '\r': sb_add(b, "\\r", 2); break;
		case '\t': sb_add(b, "\\t", 2); break;
		default:
			if (c < 0x20)
				sb_addf(b, "\\u%04x", c);
			else
				sb_addc(b, (char)c);
		}
	}
	sb_addc(b, '"');
}

char *sb_detach(struct sb *b)
{
	char *s = b->s ? b->s : xstrdup("");
	sb_init(b);
	return s;
}

char *sb_last_line(const struct sb *b, const char *trail)
{
	const char *s = b->s ? b->s : "";
	size_t n = b->len;
	while (n && s[n - 1] && strchr(trail, s[n - 1]))
		n--;
	size_t a = n;
	while (a && s[a - 1] != '\n')
		a--;
	return xstrndup(s + a, n - a);
}

char *xvstrf(const char *fmt, va_list ap)
{
	struct sb b = {0};
	sb_vaddf(&b, fmt, ap);
	return sb_detach(&b);
}

char *xstrf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = xvstrf(fmt, ap);
	va_end(ap);
	return s;
}

char *path_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return xstrdup(".");
	if (slash == path)
		return xstrdup("/");
	return xstrndup(path, (size_t)(slash - path));
}

int errorf(char **err, const char *fmt, ...)
{
	if (err) {
		struct sb b = {0};
		va_list ap;
		va_start(ap, fmt);
		sb_vaddf(&b, fmt, ap);
		va_end(ap);
		free(*err);
		*err = sb_detach(&b);
	}
	return -1;
}

size_t next_word(const char **p, char *word, size_t cap)
{
	if (!*p)
		return 0;
	*p += strspn(*p, " \t");
	size_t m = strcspn(*p, " \t");
	if (m)
		snprintf(word, cap, "%.*s", (int)(m < cap - 1 ? m : cap - 1), *p);
	*p += m;
	return m;
}

int word_in_list(const char *list, const char *word, size_t n)
{
	for (const char *p = list; p && *p;) {
		p += strspn(p, " ");
		size_t m = strcspn(p, " ");
		if (m && m == n && strncmp(p, word, n) == 0)
			return 1;
		p += m;
	}
	return 0;
}

int name_index(const char *const *names, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(names[i], s) == 0)
			return (int)i;
	return -1;
}

int parse_u64(const char *s, uint64_t *out)
{
	if (!s || *s < '0' || *s > '9')
		return -1;
	errno = 0;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || *end)
		return -1;
	*out = v;
	return 0;
}

/* strto*'s verdict on s, read up to end: all of it, something, in range */
static int read_whole(const char *s, const char *end)
{
	return errno || *end || end == s ? -1 : 0;
}

int parse_i64(const char *s, int64_t *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	return read_whole(s, end) ? -1 : (*out = v, 0);
}

int parse_double(const char *s, double *out)
{
	if (!s || !*s)
		return -1;
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	return read_whole(s, end) ? -1 : (*out = v, 0);
}

size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)
		return 99;
	size_t d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			size_t cost = a[i - 1] != b[j - 1];
			size_t v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (d[i - 1][j - 1] + cost < v)
				v = d[i - 1][j - 1] + cost;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

struct near near_start(const char *want, size_t max_edits)
{
	return (struct near){want, NULL, max_edits + 1};
}

void near_try(struct near *n, const char *candidate)
{
	size_t d = edit_distance(n->want, candidate);
	if (d < n->best_d) {
		n->best_d = d;
		n->best = candidate;
	}
}

char *state_dir(void)
{
	struct sb b = {0};
	const char *d = getenv("ZEALOT_STATE_DIR");
	struct passwd *pw;
	if (d && *d)
		sb_adds(&b, d);
	else if (geteuid() == 0) /* a service's and a person's root: one store, never in /tmp */
		sb_adds(&b, "/var/lib/zealot");
	else if ((d = getenv("XDG_STATE_HOME")) && d[0] == '/')
		sb_addf(&b, "%s/zealot", d);
	else if ((d = getenv("HOME")) && d[0] == '/')
		sb_addf(&b, "%s/.local/state/zealot", d);
	else if ((pw = getpwuid(geteuid())) && pw->pw_dir && pw->pw_dir[0] == '/')
		sb_addf(&b, "%s/.local/state/zealot", pw->pw_dir);
	else /* no home at all: a directory this user cannot make, refused by name */
		sb_adds(&b, "/var/lib/zealot");
	return sb_detach(&b);
}

const char *fmt_commas(uint64_t v, char *buf, size_t n)
{
	char tmp[32];
	int len = snprintf(tmp, sizeof(tmp), "%llu", (unsigned long long)v);
	size_t o = 0;
	for (int i = 0; i < len && o + 2 < n; i++) {
		if (i && (len - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	buf[o] = '\0';
	return buf;
}

const char *fmt_mib(double mib, int plus, char *buf, size_t n)
{
	char tmp[48];
	snprintf(tmp, sizeof(tmp), "%.2f", mib);
	const char *d = tmp;
	size_t o = 0;
	if (strcmp(d, "-0.00") == 0) /* a value that rounds to nothing has no sign */
		d++;
	if (*d == '-') {
		if (o + 1 < n)
			buf[o++] = '-';
		d++;
	} else if (plus && strcmp(d, "0.00") != 0 && o + 1 < n) {
		buf[o++] = '+';
	}
	const char *dot = strchr(d, '.');
	size_t ilen = dot ? (size_t)(dot - d) : strlen(d);
	for (size_t i = 0; i < ilen && o + 2 < n; i++) {
		if (i && (ilen - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = d[i];
	}
	for (const char *p = dot; p && *p && o + 1 < n; p++)
		buf[o++] = *p;
	if (n)
		buf[o < n ? o : n - 1] = '\0';
	return buf;
}

char *path_which(const char *name)
{
	if (strchr(name, '/'))
		return xstrdup(name);
	const char *p = getenv("PATH");
	if (!p || !*p)
		p = "/usr/local/bin:/usr/bin:/bin";
	for (;;) {
		size_t n = strcspn(p, ":");
		struct sb f = {0};
		sb_addf(&f, "%.*s/%s", (int)n, n ? p : ".", name);
		if (access(f.s, X_OK) == 0)
			return sb_detach(&f);
		sb_release(&f);
		if (!p[n])
			return NULL;
		p += n + 1;
	}
}

double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static const char *file_kind(mode_t m)
{
	if (S_ISFIFO(m))
		return "a FIFO";
	if (S_ISCHR(m))
		return "a character device";
	if (S_ISBLK(m))
		return "a block device";
	if (S_ISSOCK(m))
		return "a socket";
	if (S_ISDIR(m))
		return "a directory";
	return "not a file";
}

int fd_blocking(int fd)
{
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}

int open_regular(const char *path, char **err)
{
	struct stat st;
	/* a socket cannot be opened at all: name it from stat */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		errorf(err, "cannot read '%s': it is not a regular file (%s)", path, file_kind(st.st_mode));
		errno = EINVAL;
		return -1;
	}
	/* O_NONBLOCK: a FIFO swapped in after the stat still cannot block the open */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0) {
		int e = errno;
		errorf(err, "cannot open '%s': %s", path, strerror(e));
		errno = e; /* the caller may tell a missing file (ENOENT) from the rest */
		return -1;
	}
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		int e = errno;
		close(fd);
		errorf(err, "cannot read '%s': it is not a regular file (%s)", path,
		       S_ISREG(st.st_mode) ? strerror(e) : file_kind(st.st_mode));
		errno = EINVAL;
		return -1;
	}
	return fd_blocking(fd);
}
