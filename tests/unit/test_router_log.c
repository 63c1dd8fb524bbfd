#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "endpoint/argv.h"
#include "endpoint/router.h"
#include "live/router_log.h"
#include "tap.h"

/* A router's log (tools/server/server-models.cpp): spawn lines, each
 * child's lines behind "[PORT] " (five columns), the router's own lines,
 * a port given again to a later child, and a journal excerpt's prefix. */
void test_router_log(void)
{
	const char *log = "0.00.1 I srv load: spawning server instance with name=a on port 41000\n"
			  "[41000] child a line 1\n"
			  "0.00.2 I srv load: spawning server instance with name=b on port  8081\n"
			  "[ 8081] child b line 1\n"
			  "[41000] child a line 2\n"
			  "[99999] a port no child has\n"
			  "[4100] x\n"
			  "0.00.3 I srv load: spawning server instance with name=c on port 41000\n"
			  "Dec 03 10:00:00 host llama-server[7]: [41000] child c line 1\n"
			  "[41000]no space\n";
	struct router_log l;
	router_log_split(log, strlen(log), &l);
	ok(l.n == 3, "three spawns, three boots (%zu)", l.n);
	ok(l.n == 3 && !strcmp(l.v[0].name, "a") && l.v[0].port == 41000 && l.v[0].lines == 2,
	   "a on 41000 holds its two lines");
	ok(l.n == 3 && l.v[0].log.s && !strcmp(l.v[0].log.s, "child a line 1\nchild a line 2\n"),
	   "a's lines without their prefix");
	ok(l.n == 3 && !strcmp(l.v[1].name, "b") && l.v[1].port == 8081 && l.v[1].lines == 1,
	   "b's port right-aligned in five columns");
	ok(l.n == 3 && !strcmp(l.v[2].name, "c") && l.v[2].lines == 1 && !strcmp(l.v[2].log.s, "child c line 1\n"),
	   "a port given again belongs to the later child, read past a journal prefix");
	router_log_release(&l);
	router_log_split("", 0, &l);
	ok(l.n == 0, "an empty log: no boots");
	router_log_release(&l);
}

/* A router's child found among a process's children by its --alias, and
 * its command line held to its member's preset section: a child that runs
 * every preset argument holds them; one value changed is named. The
 * "children" are shells that ignore their arguments (sh -c 'read _' sh
 * ARGS...), forked by this test: each blocks on a pipe the test holds
 * (*hold) until it is killed, and spawn_child returns once it has exec'd
 * (a close-on-exec pipe's end of file), so no wait is timed. */
static pid_t spawn_child(const struct argv_list *a, const char *ctx, int *hold)
{
	char **v = xcalloc(a->n + 8, sizeof(*v));
	size_t n = 0;
	v[n++] = "/bin/sh";
	v[n++] = "-c";
	v[n++] = "read _";
	v[n++] = "sh";
	v[n++] = "--alias";
	v[n++] = "m1";
	v[n++] = "--port";
	v[n++] = "43210";
	for (size_t i = 1; i < a->n; i++) {
		/* (the router gives a child its own host, port and alias) */
		int router_sets =
		    !strcmp(a->v[i], "--host") || !strcmp(a->v[i], "--port") || !strcmp(a->v[i], "--alias");
		if (router_sets && i + 1 < a->n) {
			i++;
			continue;
		}
		v[n++] = !strcmp(a->v[i - 1], "--ctx-size") ? (char *)ctx : a->v[i];
	}
	int in[2], execd[2];
	if (pipe2(in, O_CLOEXEC) || pipe2(execd, O_CLOEXEC)) {
		free(v);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		execv(v[0], v);
		_exit(127);
	}
	free(v);
	close(in[0]);
	close(execd[1]);
	char c;
	while (pid > 0 && read(execd[0], &c, 1) < 0 && errno == EINTR)
		; /* end of file: the child has exec'd (or died) */
	close(execd[0]);
	*hold = in[1];
	return pid;
}

void test_router_child(void)
{
	const char *text = "MODEL_FILE=/nowhere/m1.gguf\nCTX_SIZE=4096\nPARALLEL=2\n";
	char *err = NULL;
	struct endpoint *ep = endpoint_parse(text, strlen(text), "/nowhere/m1.env", &err);
	struct argv_list a = {0};
	ok(ep && argv_render(ep, &a, &err) == 0, "a member's argv renders (%s)", tap_s(err));
	struct router_member m = {.name = "m1", .path = "/nowhere/m1.env", .ep = ep, .own = ep};
	for (int k = 0; k < 2 && ep; k++) {
		int hold = -1;
		pid_t pid = spawn_child(&a, k ? "2048" : "4096", &hold);
		unsigned port = 0;
		long found = router_child_of((long)getpid(), "m1", &port);
		ok(found == pid && port == 43210, "the child running --alias m1 is found, its --port read (%ld)",
		   found);
		ok(router_child_of((long)getpid(), "m2", &port) == 0, "no child runs --alias m2");
		char *why = NULL;
		int held = router_child_holds(&m, (long)pid, &why);
		if (!k)
			ok(held > 5 && !why, "a child running its preset holds every line (%d held; %s)", held,
			   tap_s(why));
		else
			ok(held == -1 && why && strstr(why, "--ctx-size 2048") && strstr(why, "says 4096"),
			   "a changed value is named (%s)", tap_s(why));
		free(why);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		close(hold);
	}
	argv_release(&a);
	endpoint_free(ep);
	free(err);
}
