#include "install.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/redact.h"
#include "../base/util.h"

#define INSTALL_MAX (16u << 20)

static int mkdirs(const char *dir, char **err)
{
	struct sb b = {0};
	sb_adds(&b, dir);
	for (char *p = b.s + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(b.s, 0755) && errno != EEXIST) {
			errorf(err, "cannot create '%s': %s", b.s, strerror(errno));
			sb_release(&b);
			return -1;
		}
		*p = '/';
	}
	int rc = 0;
	if (mkdir(b.s, 0755) && errno != EEXIST)
		rc = errorf(err, "cannot create '%s': %s", b.s, strerror(errno));
	sb_release(&b);
	return rc;
}

static int sync_dir(const char *dir, char **err)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return errorf(err, "cannot open '%s': %s", dir, strerror(errno));
	int rc = fsync(fd) ? errorf(err, "cannot fsync '%s': %s", dir, strerror(errno)) : 0;
	close(fd);
	return rc;
}

/* install_write, the file's group gid (-1: the creator's). */
static int write_as(const char *path, const char *text, size_t len, unsigned mode, long gid, char **err);

int install_write(const char *path, const char *text, size_t len, unsigned mode, char **err)
{
	return write_as(path, text, len, mode, -1, err);
}

/* USER's value in an endpoint file's text, or NULL (a text that does not
 * parse names no user). Caller frees. */
static char *text_user(const char *text, size_t len)
{
	struct endpoint *ep = endpoint_parse(text, len, "endpoint", NULL);
	const char *u = ep ? endpoint_value(ep, K_USER) : NULL;
	char *v = u && *u ? xstrdup(u) : NULL;
	endpoint_free(ep);
	return v;
}

unsigned install_env_mode(const char *text, size_t len, const char *src, long *gid)
{
	unsigned mode = 0644;
	struct stat st;
	if (src && stat(src, &st) == 0)
		mode = ((unsigned)st.st_mode & 0644) | 0600;
	char *shown = redact_text(text);
	if (shown && strcmp(shown, text) != 0)
		mode &= 0640; /* a secret: no other user reads it */
	free(shown);
	*gid = -1;
	char *user = text_user(text, len);
	struct passwd *pw = user ? getpwnam(user) : NULL;
	/* serve runs as USER and reads this file: its group's read, not the world's */
	if (pw && pw->pw_uid != geteuid() && !(mode & 004)) {
		*gid = (long)pw->pw_gid;
		mode |= 040;
	}
	free(user);
	return mode;
}

int install_env(const char *path, const char *text, size_t len, const char *src, char **err)
{
	long gid;
	unsigned mode = install_env_mode(text, len, src, &gid);
	return write_as(path, text, len, mode, gid, err);
}

static int write_as(const char *path, const char *text, size_t len, unsigned mode, long gid, char **err)
{
	char *dir = path_dir(path);
	int rc = -1, fd = -1;
	struct sb tmp = {0};
	if (mkdirs(dir, err))
		goto done;
	const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
	sb_addf(&tmp, "%s/.%s.zealot-%ld", dir, base, (long)getpid());
	/* created 0600 and opened up by fchmod once its group is right */
	fd = open_tmp(tmp.s, 0600);
	if (fd < 0) {
		errorf(err, "cannot create '%s': %s", tmp.s, strerror(errno));
		goto done;
	}
	for (size_t off = 0; off < len;) {
		ssize_t w = write(fd, text + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			errorf(err, "cannot write '%s': %s", tmp.s, strerror(errno));
			goto done;
		}
		off += (size_t)w;
	}
	/* the umask must not narrow what systemd and the unit's user read */
	if ((gid >= 0 && fchown(fd, (uid_t)-1, (gid_t)gid)) || fchmod(fd, mode) || fsync(fd)) {
		errorf(err, "cannot sync '%s': %s", tmp.s, strerror(errno));
		goto done;
	}
	close(fd);
	fd = -1;
	if (rename(tmp.s, path)) {
		errorf(err, "cannot rename '%s' to '%s': %s", tmp.s, path, strerror(errno));
		goto done;
	}
	rc = sync_dir(dir, err);
done:
	if (fd >= 0)
		close(fd);
	if (rc && tmp.s)
		unlink(tmp.s);
	sb_release(&tmp);
	free(dir);
	return rc;
}

int install_remove(const char *path, char **err)
{
	if (unlink(path) && errno != ENOENT)
		return errorf(err, "cannot remove '%s': %s", path, strerror(errno));
	char *dir = path_dir(path);
	struct stat st;
	int rc = stat(dir, &st) == 0 ? sync_dir(dir, err) : 0;
	free(dir);
	return rc;
}

char *install_read(const char *path, size_t *len, char **err)
{
	enum zerr k;
	char *why = NULL;
	char *text = read_file(path, INSTALL_MAX, 0, len, &k, &why);
	if (!text && k != ZE_NOTFOUND)
		errorf(err, "%s", why);
	free(why);
	return text;
}

static int is_path_key(const char *k, size_t n)
{
	static const enum key_id keys[] = {K_RUNTIME,	      K_MODEL_FILE,    K_MMPROJ_FILE,
					   K_LORA_FILE,	      K_API_KEY_FILE,  K_MODEL_URL_FILE,
					   K_MMPROJ_URL_FILE, K_LORA_URL_FILE, K_SPEC_DRAFT_MODEL_FILE};
	for (size_t i = 0; i < ARRAY_SIZE(keys); i++)
		if (strlen(key_name(keys[i])) == n && memcmp(key_name(keys[i]), k, n) == 0)
			return 1;
	return 0;
}

/* A value as the endpoint parser and systemd's EnvironmentFile= both read
 * it: bare when it is plain, else double-quoted with \" \\ \$ \` escaped. */
static void add_value(struct sb *b, const char *v)
{
	if (strcspn(v, " \t\"'\\$`#;") == strlen(v)) {
		sb_adds(b, v);
		return;
	}
	sb_addc(b, '"');
	for (const char *p = v; *p; p++) {
		if (*p == '"' || *p == '\\' || *p == '$' || *p == '`')
			sb_addc(b, '\\');
		sb_addc(b, *p);
	}
	sb_addc(b, '"');
}

/* install_env_text, and the line that sets key (when not NULL) written
 * key=value instead. */
static char *env_text(const struct endpoint *ep, const char *src, size_t len, const char *set_key,
		      const char *set_value);

char *install_env_text(const struct endpoint *ep, const char *src, size_t len)
{
	return env_text(ep, src, len, NULL, NULL);
}

char *install_env_text_set(const struct endpoint *ep, const char *src, size_t len, const char *key, const char *value)
{
	return env_text(ep, src, len, key, value);
}

static char *env_text(const struct endpoint *ep, const char *src, size_t len, const char *set_key,
		      const char *set_value)
{
	struct sb b = {0};
	sb_adds(&b, "");
	const char *p = src, *end = src + len;
	int lineno = 0, skipping = 0;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		lineno++;
		/* (a backslash before CRLF continues nothing: systemd eats the CR,
		 * the LF ends the value, law C10) */
		int continued = n && p[n - 1] == '\\';
		if (skipping) { /* the rest of a rewritten key's continued value: an
				   empty line keeps every later line's number */
			skipping = continued;
			sb_addc(&b, '\n');
			p = nl ? nl + 1 : end;
			continue;
		}
		/* the key that starts on this line, if it is a relative path key */
		const char *k = p;
		while (k < le && (*k == ' ' || *k == '\t'))
			k++;
		size_t kn = 0;
		while (k + kn < le && (k[kn] == '_' || (k[kn] >= 'A' && k[kn] <= 'Z') ||
				       (k[kn] >= 'a' && k[kn] <= 'z') || (kn && k[kn] >= '0' && k[kn] <= '9')))
			kn++;
		int rewrite = 0;
		const struct endpoint_entry *se = set_key ? endpoint_entry(ep, set_key) : NULL;
		if (se && se->line == lineno && kn == strlen(set_key) && memcmp(k, set_key, kn) == 0) {
			sb_addf(&b, "%s=", set_key);
			add_value(&b, set_value);
			sb_addc(&b, '\n');
			rewrite = 1;
			skipping = continued;
		} else if (kn && is_path_key(k, kn)) {
			char key[32];
			snprintf(key, sizeof(key), "%.*s", (int)kn, k);
			const struct endpoint_entry *e = endpoint_entry(ep, key);
			const char *v = endpoint_value(ep, key);
			char *abs = e && e->line == lineno && v && *v && v[0] != '/' ? endpoint_path(ep, key) : NULL;
			if (abs && abs[0] == '/') {
				char *real = realpath(abs, NULL); /* "dir/./x" -> "dir/x" when it exists */
				sb_addf(&b, "%s=", key);
				add_value(&b, real ? real : abs);
				sb_addc(&b, '\n');
				free(real);
				rewrite = 1;
				skipping = continued;
			}
			free(abs);
		}
		if (!rewrite) {
			sb_add(&b, p, n);
			sb_addc(&b, '\n');
		}
		p = nl ? nl + 1 : end;
	}
	return sb_detach(&b);
}
