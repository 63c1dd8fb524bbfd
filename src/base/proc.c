#include "proc.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void proc_result_release(struct proc_result *r)
{
	sb_release(&r->out);
	sb_release(&r->err);
}

/* Read what fd has into b, keeping at most max bytes in all (the rest is
 * read and dropped). 1 while fd may have more, 0 at its end or on an
 * error. */
static int fd_drain(int fd, struct sb *b, size_t max)
{
	char buf[8192];
	ssize_t n = read(fd, buf, sizeof(buf));
	if (n < 0)
		return errno == EINTR || errno == EAGAIN ? 1 : 0;
	if (n == 0)
		return 0;
	size_t keep = b->len < max ? max - b->len : 0;
	sb_add(b, buf, (size_t)n < keep ? (size_t)n : keep);
	return 1;
}

/* Whether this process holds no capability at all (/proc/self/status
 * CapEff 0): root in a unit with an empty CapabilityBoundingSet=, which
 * has nothing to drop and cannot setuid. Only read(2): this runs between
 * fork and exec. */
static int no_capabilities(void)
{
	char buf[4096];
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	const char *p = strstr(buf, "\nCapEff:");
	if (!p)
		return 0;
	for (p += 9; *p == ' ' || *p == '\t'; p++)
		;
	if (*p < '0' || *p > '9')
		return 0;
	for (; *p == '0'; p++)
		;
	return *p == '\n';
}

/* In the child, before exec: become the sandbox's user (when root), with
 * no supplementary groups, no way back up, in /. 0 or an errno. */
static int drop(const struct proc_sandbox *sb)
{
	if (chdir("/") != 0)
		return errno;
	if (geteuid() == 0) {
		if (setgroups(0, NULL) != 0 || setgid(sb->gid) != 0 || setuid(sb->uid) != 0) {
			int e = errno;
			if (e != EPERM || !no_capabilities())
				return e;
		} else if (setuid(0) == 0) { /* the drop must not be undoable */
			return EPERM;
		}
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		return errno;
	return 0;
}

int proc_drain(struct pollfd fds[2], struct sb *out, struct sb *err, size_t max)
{
	int closed = 0;
	for (int i = 0; i < 2; i++) {
		if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (!fd_drain(fds[i].fd, i == 0 ? out : err, max)) {
			close(fds[i].fd);
			fds[i].fd = -1;
			closed++;
		}
	}
	return closed;
}

static int run(const char *const *argv, const struct proc_sandbox *sb, long timeout_ms, size_t max_bytes,
	       struct proc_result *r, char **err)
{
	memset(r, 0, sizeof(*r));
	sb_init(&r->out);
	sb_init(&r->err);
	r->status = -1;
	int po[2], pe[2], px[2];
	if (pipe2(po, O_CLOEXEC))
		return errorf(err, "cannot run %s: pipe: %s", argv[0], strerror(errno));
	if (pipe2(pe, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		return errorf(err, "cannot run %s: pipe: %s", argv[0], strerror(errno));
	}
	/* the exec error travels back on a close-on-exec pipe: nothing read
	 * means the exec happened */
	if (pipe2(px, O_CLOEXEC)) {
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		return errorf(err, "cannot run %s: pipe: %s", argv[0], strerror(errno));
	}
	fflush(NULL);
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(po[0]);
		close(po[1]);
		close(pe[0]);
		close(pe[1]);
		close(px[0]);
		close(px[1]);
		return errorf(err, "cannot run %s: fork: %s", argv[0], strerror(e));
	}
	if (pid == 0) {
		int devnull = open("/dev/null", O_RDONLY);
		if (devnull >= 0)
			dup2(devnull, 0);
		dup2(po[1], 1);
		dup2(pe[1], 2);
		signal(SIGPIPE, SIG_DFL);
		int e = 0;
		if (sb) {
			static char *const empty[] = {NULL};
			e = drop(sb);
			if (!e)
				execve(argv[0], (char *const *)argv, empty);
		} else {
			execvp(argv[0], (char *const *)argv);
		}
		if (!e)
			e = errno;
		ssize_t w = write(px[1], &e, sizeof(e));
		(void)w;
		_exit(127);
	}
	close(po[1]);
	close(pe[1]);
	close(px[1]);
	int exec_errno = 0;
	ssize_t got = read(px[0], &exec_errno, sizeof(exec_errno));
	close(px[0]);
	long deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
	struct pollfd fds[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
	int open_fds = 2;
	while (open_fds > 0) {
		int wait_ms = -1;
		if (deadline) {
			long left = deadline - now_ms();
			if (left <= 0) {
				kill(pid, SIGKILL);
				r->timed_out = 1;
				break;
			}
			wait_ms = (int)(left > 1000 ? 1000 : left);
		}
		int n = poll(fds, 2, wait_ms);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0)
			open_fds -= proc_drain(fds, &r->out, &r->err, max_bytes);
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (got == (ssize_t)sizeof(exec_errno))
		return errorf(err, "cannot run %s: %s", argv[0], strerror(exec_errno));
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1;
	return 0;
}

int proc_run(const char *const *argv, long timeout_ms, size_t max_bytes, struct proc_result *r, char **err)
{
	return run(argv, NULL, timeout_ms, max_bytes, r, err);
}

int proc_run_sandboxed(const char *const *argv, const struct proc_sandbox *sb, long timeout_ms, size_t max_bytes,
		       struct proc_result *r, char **err)
{
	return run(argv, sb, timeout_ms, max_bytes, r, err);
}
