#include "runtime.h"

#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/proc.h"
#include "../base/util.h"
#include "../payload/pin.h"

char *runtime_resolve(const struct endpoint *ep)
{
	const char *rt = endpoint_value(ep, "RUNTIME");
	if (!rt || !*rt)
		return NULL;
	return strchr(rt, '/') ? endpoint_path(ep, "RUNTIME") : path_which(rt);
}

int runtime_sha256(const char *path, char hex[65], int *cached, char **err)
{
	char *dir = pin_stamp_dir();
	int c = 0;
	int rc = pin_sha256(path, dir, hex, &c, NULL, NULL, err);
	free(dir);
	if (cached)
		*cached = c;
	return rc;
}

static char *cache_path(const char *sha, const char *what, int make)
{
	char *dir = state_dir();
	if (!dir)
		return NULL;
	struct sb p = {0};
	sb_addf(&p, "%s/runtime", dir);
	/* the state directory: private, or the cache is neither read nor kept */
	if (make ? dir_private(p.s, NULL) : dir_trusted(p.s, NULL)) {
		sb_release(&p);
		free(dir);
		return NULL;
	}
	sb_addf(&p, "/%s.%s", sha, what);
	free(dir);
	return sb_detach(&p);
}

/* Whether the runtime at sha may be run: a RUNTIME_SHA256 pin that the
 * bytes do not match (or a hash that was not taken) forbids it, so that
 * vetting an endpoint file never executes a binary it does not pin. */
static int pin_allows(const struct endpoint *ep, const char *path, const char *sha, char **err)
{
	const char *pin = endpoint_value(ep, K_RUNTIME_SHA256);
	if (!pin || !*pin)
		return 1;
	if (!sha || !*sha)
		return errorf(err, "'%s' not run: RUNTIME_SHA256 pins it and its SHA-256 is unknown", path), 0;
	if (strcasecmp(pin, sha) != 0)
		return errorf(err, "'%s' not run: its SHA-256 %s is not RUNTIME_SHA256's %s (law R01)", path, sha, pin),
		       0;
	return 1;
}

static char *ask(const struct endpoint *ep, const char *path, const char *sha, const char *what, const char **who,
		 char **err)
{
	const char *user = endpoint_value(ep, K_USER);
	if (!pin_allows(ep, path, sha, err)) {
		if (who)
			*who = "no one";
		return NULL;
	}
	char *cache = sha && *sha ? cache_path(sha, what, 0) : NULL;
	/* a runtime's --help is some KiB: a cache file past 4 MiB is not ours
	 * and is asked again (read_file refuses it, and a FIFO, unread) */
	char *text = cache ? read_file(cache, (size_t)4 << 20, 0, NULL, NULL, NULL) : NULL;
	free(cache);
	if (text) {
		if (who)
			*who = "cache";
		return text;
	}
	struct proc_sandbox sb = {65534, 65534};
	const char *name = user && *user ? user : "nobody";
	struct passwd *pw = getpwnam(name);
	if (pw) {
		sb.uid = pw->pw_uid;
		sb.gid = pw->pw_gid;
	} else if (user && *user) {
		errorf(err, "no user '%s' to run it as (USER)", user);
		return NULL;
	}
	if (who)
		*who = geteuid() == 0 ? (user && *user ? "USER" : "nobody") : "this user";
	struct sb flag = {0};
	sb_addf(&flag, "--%s", what);
	const char *av[] = {path, flag.s, NULL};
	struct proc_result r;
	int rc = proc_run_sandboxed(av, &sb, 10000, 1 << 20, &r, err);
	sb_release(&flag);
	if (rc)
		return NULL;
	if (r.timed_out || r.status != 0) {
		if (r.timed_out)
			errorf(err, "'%s --%s' did not finish in 10 s", path, what);
		else if (r.status > 128)
			errorf(err, "'%s --%s' died by signal %d", path, what, r.status - 128);
		else
			errorf(err, "'%s --%s' failed (exit status %d)", path, what, r.status);
		proc_result_release(&r);
		return NULL;
	}
	struct sb all = {0};
	if (r.out.len)
		sb_add(&all, r.out.s, r.out.len);
	if (r.err.len)
		sb_add(&all, r.err.s, r.err.len);
	proc_result_release(&r);
	if (!all.len) {
		sb_release(&all);
		errorf(err, "'%s --%s' printed nothing", path, what);
		return NULL;
	}
	if (sha && *sha && (cache = cache_path(sha, what, 1)) != NULL) {
		write_file(cache, all.s, NULL); /* a cache: a failed write is asked again */
		free(cache);
	}
	return sb_detach(&all);
}

char *runtime_ask(const struct endpoint *ep, const char *path, const char *sha, const char *what, const char **who,
		  char **err)
{
	char *mine = NULL; /* err may be NULL: the answer alone is wanted */
	char *text = ask(ep, path, sha, what, who, err ? err : &mine);
	free(mine);
	return text;
}

long runtime_build(const char *v)
{
	if (!v)
		return -1;
	const char *p = strstr(v, "(build ");
	if (p) {
		char *end;
		long b = strtol(p + 7, &end, 10);
		if (end > p + 7)
			return b;
	}
	for (p = strstr(v, "build "); p; p = strstr(p + 1, "build ")) {
		char *end;
		long b = strtol(p + 6, &end, 10);
		if (end > p + 6 && end[0] == ' ' && end[1] == '(')
			return b;
	}
	return -1;
}

static int flag_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
}

int runtime_flag_listed(const char *help, const char *flag)
{
	size_t n = strlen(flag);
	if (!help || !n)
		return 0;
	for (const char *p = strstr(help, flag); p; p = strstr(p + 1, flag)) {
		int starts = p == help || !flag_char(p[-1]);
		if (starts && !flag_char(p[n]))
			return 1;
	}
	return 0;
}
