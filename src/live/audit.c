#include "audit.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/redact.h"
#include "../base/util.h"
#include "../endpoint/keys.h"
#include "../judge/trust.h"
#include "memory.h"

static void row(struct audit *a, const char *law, int diverges, const char *what, const char *intended,
		const char *live)
{
	a->rows = xreallocarray(a->rows, a->n + 1, sizeof(*a->rows));
	struct audit_row *r = &a->rows[a->n++];
	/* a row never shows a secret: the value of a flag or variable whose
	 * name says it holds one (--api-key, env LLAMA_ARG_API_KEY), and URL
	 * userinfo or NAME=secret anywhere (a drop-in's Environment= line) */
	const char *sp = strrchr(what, ' ');
	const char *name = sp ? sp + 1 : what;
	r->what = redact_text(what);
	r->intended = redact_value(name, intended ? intended : "-");
	r->live = redact_value(name, live ? live : "-");
	r->diverges = diverges;
	r->law = law;
	a->divergences += diverges != 0;
}

void audit_release(struct audit *a)
{
	for (size_t i = 0; i < a->n; i++) {
		free(a->rows[i].what);
		free(a->rows[i].intended);
		free(a->rows[i].live);
	}
	free(a->rows);
	free(a->pid_source);
	memset(a, 0, sizeof(*a));
}

/* --- finding the listener ------------------------------------------- */

static size_t socket_inodes(unsigned port, unsigned long *ino, size_t max)
{
	static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
	size_t n = 0;
	for (size_t f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "r");
		if (!fp)
			continue;
		char line[512];
		if (!fgets(line, sizeof(line), fp)) { /* header */
			fclose(fp);
			continue;
		}
		while (fgets(line, sizeof(line), fp) && n < max) {
			char local[128];
			unsigned st;
			unsigned long inode;
			/* sl local rem st tx:rx tr:when retrnsmt uid timeout inode */
			if (sscanf(line, "%*s %127s %*s %x %*s %*s %*s %*s %*s %lu", local, &st, &inode) != 3)
				continue;
			const char *colon = strrchr(local, ':');
			if (!colon || st != 0x0A) /* LISTEN */
				continue;
			if (strtoul(colon + 1, NULL, 16) == port)
				ino[n++] = inode;
		}
		fclose(fp);
	}
	return n;
}

/* The processes (at most max) that hold a socket whose inode is one of
 * ino[0 .. n_ino), from /proc/PID/fd; those this host cannot see are not. */
static size_t socket_owners(const unsigned long *ino, size_t n_ino, pid_t *out, size_t max)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return 0;
	size_t n = 0;
	struct dirent *d;
	while (n < max && (d = readdir(proc))) {
		char *end;
		long pid = strtol(d->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		char fdpath[64];
		snprintf(fdpath, sizeof(fdpath), "/proc/%ld/fd", pid);
		DIR *fds = opendir(fdpath);
		if (!fds)
			continue;
		struct dirent *fd;
		int hit = 0;
		while (!hit && (fd = readdir(fds))) {
			char link[384], target[128];
			snprintf(link, sizeof(link), "%s/%s", fdpath, fd->d_name);
			ssize_t len = readlink(link, target, sizeof(target) - 1);
			if (len <= 0)
				continue;
			target[len] = '\0';
			unsigned long i;
			if (sscanf(target, "socket:[%lu]", &i) != 1)
				continue;
			for (size_t k = 0; k < n_ino; k++)
				hit |= ino[k] == i;
		}
		closedir(fds);
		if (hit)
			out[n++] = (pid_t)pid;
	}
	closedir(proc);
	return n;
}

size_t audit_listeners(unsigned port, pid_t *out, size_t max)
{
	unsigned long ino[64];
	size_t n_ino = socket_inodes(port, ino, 64);
	return n_ino ? socket_owners(ino, n_ino, out, max) : 0;
}

/* The process holding a socket inode, or 0 when this host cannot see it. */
static pid_t inode_owner(unsigned long want)
{
	pid_t pid;
	return socket_owners(&want, 1, &pid, 1) ? pid : 0;
}

size_t audit_clients(unsigned port, struct audit_client *out, size_t max)
{
	static const char *const files[] = {"/proc/net/tcp", "/proc/net/tcp6"};
	struct conn {
		unsigned lport, rport;
		unsigned long inode;
	} c[256];
	size_t nc = 0, n = 0;
	for (size_t f = 0; f < 2; f++) {
		FILE *fp = fopen(files[f], "r");
		char line[512];
		if (!fp)
			continue;
		if (fgets(line, sizeof(line), fp))
			while (fgets(line, sizeof(line), fp) && nc < ARRAY_SIZE(c)) {
				char local[128], rem[128];
				unsigned st;
				unsigned long inode;
				if (sscanf(line, "%*s %127s %127s %x %*s %*s %*s %*s %*s %lu", local, rem, &st,
					   &inode) != 4 ||
				    st != 0x01) /* ESTABLISHED */
					continue;
				const char *lc = strrchr(local, ':'), *rc = strrchr(rem, ':');
				if (!lc || !rc)
					continue;
				c[nc].lport = (unsigned)strtoul(lc + 1, NULL, 16);
				c[nc].rport = (unsigned)strtoul(rc + 1, NULL, 16);
				c[nc++].inode = inode;
			}
		fclose(fp);
	}
	for (size_t i = 0; i < nc && n < max; i++) {
		if (c[i].lport != port)
			continue;
		out[n].port = c[i].rport;
		out[n].pid = 0;
		/* the client's end of the same connection, when it is on this host */
		for (size_t j = 0; j < nc; j++)
			if (c[j].lport == c[i].rport && c[j].rport == port && c[j].inode)
				out[n].pid = inode_owner(c[j].inode);
		n++;
	}
	return n;
}

/* --- /proc readers ---------------------------------------------------- */

char **audit_read_vector(pid_t pid, const char *file, size_t *n)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/%s", (long)pid, file);
	*n = 0;
	size_t blen = 0;
	char *b = read_file(path, 1u << 24, READ_TRUNCATE, &blen, NULL, NULL);
	if (!b)
		return NULL;
	char **v = NULL;
	for (size_t i = 0; i < blen;) {
		size_t len = strnlen(b + i, blen - i);
		v = xreallocarray(v, *n + 2, sizeof(*v));
		v[(*n)++] = xstrndup(b + i, len);
		v[*n] = NULL;
		i += len + 1;
	}
	free(b);
	return v;
}

void audit_free_vector(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* --- argv comparison -------------------------------------------------- */

struct flag {
	const char *name;
	const char *value; /* NULL for a bare switch */
};

static int is_flag(const char *s)
{
	return s[0] == '-' && s[1] && !(s[1] >= '0' && s[1] <= '9');
}

static size_t flags_of(char *const *v, size_t n, struct flag *out, size_t max)
{
	size_t k = 0;
	for (size_t i = 1; i < n && k < max; i++) {
		if (!is_flag(v[i]))
			continue;
		out[k].name = v[i];
		out[k].value = i + 1 < n && !is_flag(v[i + 1]) ? v[i + 1] : NULL;
		k++;
	}
	return k;
}

static const struct flag *find_flag(const struct flag *f, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

/* What one audit reads the live process with: its PID (a relative path in
 * its command line resolves against its own working directory) and the
 * endpoint it is held to. */
struct audit_ctx {
	struct audit *a;
	pid_t pid;
	const struct endpoint *ep;
};

/* Paths compare by what they resolve to; a relative path in the live
 * command line resolves against the process's own working directory. */
static int same_value(const struct audit_ctx *x, const char *live, const char *want)
{
	if (!live || !want)
		return live == want;
	if (strcmp(live, want) == 0)
		return 1;
	char ra[PATH_MAX], rb[PATH_MAX], rel[PATH_MAX];
	if (live[0] != '/' && x->pid > 0) {
		snprintf(rel, sizeof(rel), "/proc/%ld/cwd/%s", (long)x->pid, live);
		live = rel;
	}
	if (realpath(live, ra) && realpath(want, rb))
		return strcmp(ra, rb) == 0;
	return 0;
}

static void compare_argv(const struct audit_ctx *x, char *const *live, size_t n_live, const struct argv_list *want)
{
	struct audit *a = x->a;
	struct flag lf[256], wf[256];
	size_t nl = flags_of(live, n_live, lf, 256), nw = flags_of(want->v, want->n, wf, 256);
	for (size_t i = 0; i < nw; i++) {
		const struct flag *l = find_flag(lf, nl, wf[i].name);
		if (!l)
			row(a, "A01", 1, wf[i].name, wf[i].value ? wf[i].value : "(set)", "(absent)");
		else if (!same_value(x, l->value, wf[i].value))
			row(a, "A01", 1, wf[i].name, wf[i].value ? wf[i].value : "(set)",
			    l->value ? l->value : "(set)");
		else
			row(a, NULL, 0, wf[i].name, wf[i].value ? wf[i].value : "(set)", l->value ? l->value : "(set)");
	}
	for (size_t i = 0; i < nl; i++)
		if (!find_flag(wf, nw, lf[i].name))
			row(a, "A01", 1, lf[i].name, "(absent)", lf[i].value ? lf[i].value : "(set)");
}

/* The payload the process maps: the path, and whether it is the same
 * inode as the file on disk now. */
static void check_payload(struct audit *a, pid_t pid, const char *model_path)
{
	if (!model_path)
		return;
	char want[PATH_MAX];
	struct stat st;
	if (!realpath(model_path, want) || stat(want, &st) != 0) {
		row(a, "C03", 1, "payload", model_path, "(the intended file does not exist)");
		return;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%ld/maps", (long)pid);
	FILE *f = fopen(path, "r");
	if (!f) {
		row(a, "A01", 1, "payload", want, "(cannot read the process's maps)");
		return;
	}
	char line[PATH_MAX + 256];
	int mapped = 0, same_inode = 0, deleted = 0;
	char other[PATH_MAX] = "";
	while (fgets(line, sizeof(line), f)) {
		unsigned long inode;
		char file[PATH_MAX];
		if (sscanf(line, "%*s %*s %*s %*s %lu %4095[^\n]", &inode, file) != 2)
			continue;
		char *p = file;
		while (*p == ' ')
			p++;
		size_t n = strlen(p);
		if (n < 5 || !strstr(p, ".gguf"))
			continue;
		int del = n > 10 && strcmp(p + n - 10, " (deleted)") == 0;
		if (del)
			p[n - 10] = '\0';
		if (strcmp(p, want) == 0) {
			mapped = 1;
			same_inode |= inode == (unsigned long)st.st_ino && !del;
			deleted |= del;
		} else if (!other[0]) {
			snprintf(other, sizeof(other), "%s", p);
		}
	}
	fclose(f);
	if (mapped && same_inode)
		row(a, NULL, 0, "payload", want, "mapped (same inode)");
	else if (mapped)
		row(a, "A01", 1, "payload", want,
		    deleted ? "a deleted file of that name" : "another inode of that name (replaced)");
	else
		row(a, "A01", 1, "payload", want, other[0] ? other : "(not mapped)");
}

/* Environment that changes the engine without touching argv: every
 * variable serve would have refused (R04; C09 for a key's LLAMA_ARG_*). */
static void check_environ(const struct audit_ctx *x, char **env, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *why = NULL;
		const char *law = trust_env_var(x->ep, env[i], &why);
		if (law) {
			char *eq = strchr(env[i], '=');
			char *var = xstrndup(env[i], eq ? (size_t)(eq - env[i]) : strlen(env[i]));
			const struct key_def *k = strcmp(law, "C09") == 0 ? trust_env_owner(var) : NULL;
			struct sb w = {0}, want = {0};
			sb_addf(&w, "env %s", var);
			sb_adds(&want, "(unset");
			if (k)
				sb_addf(&want, ": %s owns it", k->name);
			sb_addc(&want, ')');
			row(x->a, law, 1, w.s, want.s, eq ? eq + 1 : "");
			sb_release(&want);
			sb_release(&w);
			free(var);
		}
		free(why);
	}
}

/* The config files the live engine read: the system-wide one and the
 * user-level one its own environment names, seen from its own root (a
 * sandboxed unit's view). A setting serve would refuse is a divergence. */
static void check_config(const struct audit_ctx *x, char **env)
{
	char root[64];
	snprintf(root, sizeof(root), "/proc/%ld/root", (long)x->pid);
	if (access(root, X_OK) != 0)
		root[0] = '\0';
	struct findings fs = {0};
	char *read = NULL;
	size_t errors = trust_config_files(env, root[0] ? root : NULL, &fs, &read);
	struct sb live = {0};
	sb_adds(&live, read && *read ? read : "(none)");
	for (size_t i = 0; i < fs.n; i++)
		if (fs.v[i].sev != SEV_INFO)
			sb_addf(&live, "; %s", fs.v[i].reason);
	row(x->a, errors ? "R03" : NULL, errors != 0, "config files", "(none read, or harmless)", live.s);
	sb_release(&live);
	free(read);
	findings_release(&fs);
}

/* A drop-in is a divergence by itself: the endpoint file is the authority,
 * and a leftover drop-in once booted a different payload while /health said
 * 200 (A01). Its Environment/ExecStart lines are the evidence. */
static void list_dropins(struct audit *a, const char *const *dirs, size_t n)
{
	for (size_t d = 0; d < n; d++) {
		DIR *dir = opendir(dirs[d]);
		if (!dir)
			continue;
		struct dirent *e;
		while ((e = readdir(dir))) {
			size_t len = strlen(e->d_name);
			if (len < 6 || strcmp(e->d_name + len - 5, ".conf") != 0)
				continue;
			struct sb p = {0}, what = {0};
			sb_addf(&p, "drop-in %s/%s", dirs[d], e->d_name);
			FILE *f = fopen(p.s + 8, "r");
			char line[1024];
			while (f && fgets(line, sizeof(line), f)) {
				line[strcspn(line, "\r\n")] = '\0';
				if (!strncmp(line, "Environment", 11) || !strncmp(line, "ExecStart", 9))
					sb_addf(&what, "%s%s", what.len ? "; " : "", line);
			}
			if (f)
				fclose(f);
			row(a, "A01", 1, p.s, "(none)", what.len ? what.s : "(no Environment or ExecStart lines)");
			sb_release(&p);
			sb_release(&what);
		}
		closedir(dir);
	}
}

int audit_run(const struct endpoint *ep, pid_t pid, const struct argv_list *want, const char *model_path, unsigned port,
	      const char *const *dropin_dirs, size_t n_dropin_dirs, struct audit *a, char **err)
{
	a->pid = pid;
	const struct audit_ctx x = {a, pid, ep};
	size_t n;
	char **live = audit_read_vector(pid, "cmdline", &n);
	if (!live || !n) {
		audit_free_vector(live, n);
		return errorf(err, "cannot read /proc/%ld/cmdline: %s", (long)pid, strerror(errno ? errno : ESRCH));
	}
	list_dropins(a, dropin_dirs, n_dropin_dirs);
	/* the runtime: what the process really executes */
	char exe[PATH_MAX], path[64];
	snprintf(path, sizeof(path), "/proc/%ld/exe", (long)pid);
	ssize_t len = readlink(path, exe, sizeof(exe) - 1);
	exe[len > 0 ? len : 0] = '\0';
	int same = same_value(&x, exe, want->v[0]);
	row(a, same ? NULL : "A01", !same, "runtime", want->v[0], len > 0 ? exe : live[0]);
	compare_argv(&x, live, n, want);
	size_t n_env;
	char **env = audit_read_vector(pid, "environ", &n_env);
	check_environ(&x, env, n_env);
	check_config(&x, env);
	audit_free_vector(env, n_env);
	check_payload(a, pid, model_path);
	pid_t listeners[16];
	size_t nl = audit_listeners(port, listeners, 16);
	struct sb who = {0};
	int others = 0;
	for (size_t i = 0; i < nl; i++) {
		sb_addf(&who, "%s%ld", i ? ", " : "", (long)listeners[i]);
		others |= listeners[i] != pid;
	}
	struct sb mine = {0};
	sb_addf(&mine, "%ld alone", (long)pid);
	row(a, others ? "A02" : NULL, others, "listener", mine.s, nl ? who.s : "(nobody listens)");
	sb_release(&who);
	sb_release(&mine);
	audit_free_vector(live, n);
	return 0;
}

void audit_memory_rows(struct audit *a, const struct memory_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		const struct memory_row *w = &r->rows[i];
		char what[64], want[64], live[128];
		snprintf(what, sizeof(what), "memory %s", w->what);
		snprintf(want, sizeof(want), "%s MiB (plan)", FMT_MIB(w->plan_mib));
		if (w->settled_mib < 0)
			snprintf(live, sizeof(live), "(not measured)");
		else
			snprintf(live, sizeof(live), "%s MiB (%s)", FMT_MIB(w->settled_mib), FMT_MIB_PLUS(w->diff_mib));
		row(a, w->law, w->law != NULL, what, want, live);
	}
}
