#include "ssh.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/proc.h"

#define MAX_BYTES (16u << 20)
/* the first line the remote shell prints, and the last with the status */
#define REACHED "@zealot-fleet-reached@\n"
#define STATUS	"\n@zealot-fleet-status "

void fleet_ssh_words(struct sb *cmd, const char *const *argv)
{
	for (size_t i = 0; argv[i]; i++) {
		if (i)
			sb_addc(cmd, ' ');
		quote_shell(cmd, argv[i]);
	}
}

void fleet_ssh_result_release(struct fleet_ssh_result *r)
{
	sb_release(&r->out);
	sb_release(&r->err);
	free(r->why);
	r->why = NULL;
}

/* The last line of ssh's own stderr that says something (ssh: ..., or a
 * line of its own), for a why. */
static char *last_line(const struct sb *e)
{
	return sb_last_line(e, "\n\r");
}

/* "Offending ED25519 key in /x/known_hosts:3" from ssh's warning. */
static char *offending(const struct sb *e)
{
	const char *p = e->s ? strstr(e->s, "Offending ") : NULL;
	if (!p)
		return NULL;
	size_t n = strcspn(p, "\r\n");
	return xstrndup(p, n);
}

static void explain(struct fleet_ssh_result *r, const struct host_dest *h, long timeout_ms)
{
	const char *name = !h ? "localhost" : h->dest ? h->dest : h->host;
	struct sb w = {0};
	const char *e = r->err.s ? r->err.s : "";
	if (r->timed_out) {
		if (r->reached)
			sb_addf(&w, "the command on %s did not end within %.1f s (%s)", name, (double)timeout_ms / 1000,
				h ? "ssh killed" : "killed");
		else
			sb_addf(&w, "%s did not answer within %.1f s (ssh killed)", name, (double)timeout_ms / 1000);
	} else if (!r->reached && strstr(e, "REMOTE HOST IDENTIFICATION HAS CHANGED")) {
		char *o = offending(&r->err);
		sb_addf(&w, "host key for %s does not match known_hosts%s%s%s: refused (ssh checks host keys)", name,
			o ? " (" : "", o ? o : "", o ? ")" : "");
		free(o);
	} else if (!r->reached && (strstr(e, "host key is known for") || strstr(e, "Host key verification failed"))) {
		sb_addf(&w,
			"host key for %s is not in known_hosts: refused (add it with ssh-keyscan after checking it)",
			name);
	} else if (!r->reached) {
		char *l = last_line(&r->err);
		sb_addf(&w, "%s unreachable: %s", name, l[0] ? l : "ssh failed without a message");
		free(l);
	} else if (r->lost) {
		char *l = last_line(&r->err);
		sb_addf(&w, "connection to %s lost before the command ended%s%s", name, l[0] ? ": " : "", l);
		free(l);
	}
	r->why = w.len ? sb_detach(&w) : NULL;
	sb_release(&w);
}

/* "0\n" .. "255\n" (n bytes at p): the status the remote shell printed;
 * -1 otherwise. */
static int parse_status(const char *p, size_t n)
{
	int v = 0, digits = 0;
	size_t i = 0;
	for (; i < n && p[i] >= '0' && p[i] <= '9' && digits < 4; i++, digits++)
		v = v * 10 + (p[i] - '0');
	if (!digits || v > 255 || (i < n && p[i] != '\n'))
		return -1;
	return v;
}

static void build_argv(const struct fleet_ssh *s, const struct host_dest *h, const char *cmd, const char **av,
		       char *port, size_t port_n, char *cto, size_t cto_n)
{
	size_t k = 0;
	av[k++] = s->program ? s->program : "ssh";
	if (s->config) {
		av[k++] = "-F";
		av[k++] = s->config;
	}
	if (h->port) {
		snprintf(port, port_n, "%u", h->port);
		av[k++] = "-p";
		av[k++] = port;
	}
	if (h->user) {
		av[k++] = "-l";
		av[k++] = h->user;
	}
	snprintf(cto, cto_n, "ConnectTimeout=%u", s->connect_timeout ? s->connect_timeout : 10);
	av[k++] = "-T";
	av[k++] = "-o";
	av[k++] = "BatchMode=yes";
	av[k++] = "-o";
	av[k++] = cto;
	av[k++] = "-o";
	av[k++] = "ServerAliveInterval=5";
	av[k++] = "-o";
	av[k++] = "ServerAliveCountMax=3";
	av[k++] = "--";
	av[k++] = h->host;
	av[k++] = cmd;
	av[k] = NULL;
}

static void close_pair(int p[2])
{
	if (p[0] >= 0)
		close(p[0]);
	if (p[1] >= 0)
		close(p[1]);
}

void fleet_ssh_unwrap(struct fleet_ssh_result *r, int ssh_status)
{
	/* the marker says the remote shell ran; the status line that the
	 * command ended */
	r->reached = 0;
	r->lost = 0;
	size_t rl = strlen(REACHED);
	if (r->out.len >= rl && memcmp(r->out.s, REACHED, rl) == 0) {
		r->reached = 1;
		memmove(r->out.s, r->out.s + rl, r->out.len - rl + 1);
		r->out.len -= rl;
	}
	int have_status = 0;
	if (r->reached) {
		const char *p = NULL, *q = r->out.s;
		while ((q = memmem(q, r->out.len - (size_t)(q - r->out.s), STATUS, strlen(STATUS))) != NULL)
			p = q++;
		if (p) {
			int v = parse_status(p + strlen(STATUS), r->out.len - (size_t)(p + strlen(STATUS) - r->out.s));
			if (v >= 0) {
				r->status = v;
				have_status = 1;
				r->out.len = (size_t)(p - r->out.s);
				r->out.s[r->out.len] = '\0';
			}
		}
	}
	if (!have_status) {
		r->status = r->reached ? 255 : (ssh_status == 0 ? 255 : ssh_status);
		if (r->reached && !r->timed_out)
			r->lost = 1;
	}
}

void fleet_ssh_section_add(struct sb *script, const char *name, const char *cmdline)
{
	sb_addf(script, "printf '\\n%s%s\\n'; %s; printf '\\n%s%%d\\n' $?\n", "@@zf ", name, cmdline, "@@zf-rc ");
}

char *fleet_ssh_section(const char *out, const char *name, int *rc)
{
	*rc = -1;
	if (!out)
		return NULL;
	struct sb key = {0};
	sb_addf(&key, "\n@@zf %s\n", name);
	const char *p = strstr(out, key.s);
	size_t kl = key.len;
	sb_release(&key);
	if (!p)
		return NULL;
	p += kl;
	const char *e = strstr(p, "\n@@zf-rc ");
	if (!e)
		return xstrdup(p);
	const char *d = e + strlen("\n@@zf-rc ");
	int v = 0, digits = 0;
	for (; *d >= '0' && *d <= '9' && digits < 4; d++, digits++)
		v = v * 10 + (*d - '0');
	*rc = digits && v <= 255 ? v : -1;
	return xstrndup(p, (size_t)(e - p));
}

/* The child: its own process group, stdin the socket (or /dev/null),
 * stdout and stderr the pipes; then ssh (or sh). */
static _Noreturn void run_child(const char *const *av, int in, const int *po, const int *pe, const int *pi)
{
	setpgid(0, 0);
	int devnull = in ? -1 : open("/dev/null", O_RDONLY);
	dup2(in ? pi[1] : devnull, 0);
	dup2(po[1], 1);
	dup2(pe[1], 2);
	signal(SIGPIPE, SIG_DFL);
	execvp(av[0], (char *const *)av);
	dprintf(2, "ssh: cannot run %s: %s\n", av[0], strerror(errno));
	_exit(127);
}

int fleet_ssh_run(const struct fleet_ssh *s, const struct host_dest *h, const char *cmd, const char *in, size_t in_len,
		  long timeout_ms, struct fleet_ssh_result *r, char **err)
{
	memset(r, 0, sizeof(*r));
	r->status = 255;
	if (h && !h->host)
		return errorf(err, "no host to run on");
	struct sb wrapped = {0};
	/* the marker first; the command in a subshell (an exit in it ends
	 * only it), so its own status is the one printed last */
	sb_addf(&wrapped, "echo '%.*s'; (\n%s\n); printf '\\n@zealot-fleet-status %%d\\n' $?", (int)strlen(REACHED) - 1,
		REACHED, cmd);
	const char *av[32];
	char port[16], cto[48];
	if (h) {
		build_argv(s, h, wrapped.s, av, port, sizeof(port), cto, sizeof(cto));
	} else {
		av[0] = "/bin/sh";
		av[1] = "-c";
		av[2] = wrapped.s;
		av[3] = NULL;
	}

	int po[2] = {-1, -1}, pe[2] = {-1, -1}, pi[2] = {-1, -1};
	const char *failed = NULL; /* the step that failed: "" for the pipes */
	pid_t pid = -1;
	if (pipe2(po, O_CLOEXEC) || pipe2(pe, O_CLOEXEC) || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, pi)) {
		failed = "";
	} else {
		fflush(NULL);
		if ((pid = fork()) < 0)
			failed = "fork: ";
	}
	if (failed) {
		int e = errno;
		close_pair(po);
		close_pair(pe);
		close_pair(pi);
		sb_release(&wrapped);
		return errorf(err, "cannot run ssh: %s%s", failed, strerror(e));
	}
	if (pid == 0)
		run_child(av, in != NULL, po, pe, pi);
	setpgid(pid, pid);
	close(po[1]);
	close(pe[1]);
	close(pi[1]);
	int infd = pi[0];
	size_t sent = 0;
	if (!in || in_len == 0) {
		shutdown(infd, SHUT_WR);
		close(infd);
		infd = -1;
	} else {
		fcntl(infd, F_SETFL, fcntl(infd, F_GETFL) | O_NONBLOCK);
	}
	long deadline = timeout_ms > 0 ? (long)mono_ms() + timeout_ms : 0;
	struct pollfd fds[3] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}, {infd, POLLOUT, 0}};
	int open_fds = 2;
	while (open_fds > 0) {
		int wait_ms = -1;
		if (deadline) {
			long left = deadline - (long)mono_ms();
			if (left <= 0) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				r->timed_out = 1;
				break;
			}
			wait_ms = (int)(left > 1000 ? 1000 : left);
		}
		fds[2].fd = infd;
		int n = poll(fds, 3, wait_ms);
		if (n < 0 && errno != EINTR)
			break;
		if (n <= 0)
			continue;
		open_fds -= proc_drain(fds, &r->out, &r->err, MAX_BYTES);
		if (infd >= 0 && (fds[2].revents & (POLLOUT | POLLERR | POLLHUP))) {
			ssize_t w = send(infd, in + sent, in_len - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (w > 0)
				sent += (size_t)w;
			if ((w < 0 && errno != EAGAIN && errno != EINTR) || sent == in_len) {
				shutdown(infd, SHUT_WR);
				close(infd);
				infd = -1;
			}
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	if (infd >= 0)
		close(infd);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int ssh_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	sb_release(&wrapped);

	fleet_ssh_unwrap(r, ssh_status);
	explain(r, h, timeout_ms);
	return 0;
}

int fleet_ssh_put(const struct fleet_ssh *s, const struct host_dest *h, const char *data, size_t len, const char *path,
		  unsigned mode, long timeout_ms, char **err)
{
	const char *name = !h ? "localhost" : h->dest ? h->dest : h->host;
	const char *slash = strrchr(path, '/');
	if (!slash || !slash[1])
		return errorf(err, "%s: cannot copy to '%s': not an absolute file path", name, path);
	char *dir = slash == path ? xstrdup("/") : xstrndup(path, (size_t)(slash - path));
	struct sb tmpl = {0}, cmd = {0}, m = {0};
	sb_addf(&tmpl, "%s/.%s.XXXXXX", slash == path ? "" : dir, slash + 1);
	sb_addf(&m, "%04o", mode & 07777);
	/* umask 077: the temporary file is the user's alone until chmod */
	sb_adds(&cmd, "umask 077 && mkdir -p -- ");
	quote_shell(&cmd, dir);
	sb_adds(&cmd, " && t=$(mktemp -- ");
	quote_shell(&cmd, tmpl.s);
	sb_adds(&cmd, ") && { cat >\"$t\" && chmod ");
	sb_adds(&cmd, m.s);
	sb_adds(&cmd, " \"$t\" && mv -f -- \"$t\" ");
	quote_shell(&cmd, path);
	sb_adds(&cmd, " || { rm -f -- \"$t\"; false; }; }");
	struct fleet_ssh_result r;
	int rc = fleet_ssh_run(s, h, cmd.s, data, len, timeout_ms, &r, err);
	if (rc == 0 && (r.why || r.status != 0)) {
		char *l = last_line(&r.err);
		if (r.why)
			errorf(err, "cannot copy to %s:%s: %s", name, path, r.why);
		else
			errorf(err, "cannot copy to %s:%s: exit %d%s%s", name, path, r.status, l[0] ? ": " : "", l);
		free(l);
		rc = -1;
	}
	fleet_ssh_result_release(&r);
	free(dir);
	sb_release(&tmpl);
	sb_release(&cmd);
	sb_release(&m);
	return rc;
}

struct each {
	pthread_mutex_t mu;
	size_t next, n;
	void (*job)(size_t i, void *ctx);
	void *ctx;
};

static void *worker(void *arg)
{
	struct each *e = arg;
	for (;;) {
		pthread_mutex_lock(&e->mu);
		size_t i = e->next < e->n ? e->next++ : e->n;
		pthread_mutex_unlock(&e->mu);
		if (i >= e->n)
			return NULL;
		e->job(i, e->ctx);
	}
}

int fleet_ssh_each(size_t n, unsigned parallel, void (*job)(size_t i, void *ctx), void *ctx, char **err)
{
	(void)err;
	struct each e = {.next = 0, .n = n, .job = job, .ctx = ctx};
	pthread_mutex_init(&e.mu, NULL);
	size_t k = parallel ? parallel : 1;
	if (k > n)
		k = n;
	pthread_t *t = xcalloc(k ? k : 1, sizeof(*t));
	size_t started = 0;
	for (; started < k; started++)
		if (pthread_create(&t[started], NULL, worker, &e) != 0)
			break;
	if (started == 0)
		worker(&e); /* no thread: the caller runs them all */
	for (size_t i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	free(t);
	pthread_mutex_destroy(&e.mu);
	return 0;
}
