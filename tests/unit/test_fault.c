#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/fault.h"
#include "base/util.h"
#include "tap.h"

static int refused(const char *spec, const char *says)
{
	char *err = NULL;
	int rc = fault_set(spec, &err);
	int good = rc == -1 && err && strstr(err, says);
	if (!good)
		printf("#   '%s': %s\n", spec, err ? err : "(accepted)");
	free(err);
	return good;
}

/* Run `passes` passes of fetch:chunk under spec in a child, which exits with
 * the passes its entries counted; its wait status (WUNTRACED: a stop
 * shows), the child's pid in *pid. */
static int child(const char *spec, int passes, const char *log, pid_t *pid)
{
	fflush(stdout);
	pid_t p = fork();
	if (p == 0) {
		setenv("ZEALOT_FAULT_LOG", log, 1);
		if (fault_set(spec, NULL))
			_exit(50);
		for (int i = 0; i < passes; i++)
			fault_point("fetch", "chunk");
		_exit((int)fault_passes("fetch", "chunk")); /* the passes counted */
	}
	*pid = p;
	int st = 0;
	waitpid(p, &st, WUNTRACED);
	return st;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return xstrdup("");
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (n && buf[n - 1] == '\n')
		buf[n - 1] = '\0'; /* one line, shown in the test's name */
	return xstrdup(buf);
}

void test_fault(void)
{
	/* the syntax: POINT:ACTION[@N], comma-separated, points from the list */
	ok(refused("deploy", "is not POINT:ACTION"), "fault: a bare word is refused");
	ok(refused("deploy:after-install", "none of stop, exit, kill"), "fault: a point without its action is refused");
	ok(refused("deploy:after-install:explode", "none of stop, exit, kill"), "fault: an unknown action is refused");
	ok(refused("deploy:after-instal:stop", "no fault point"), "fault: a misspelt point is refused, not ignored");
	ok(refused("fetch:chunk:kill@0", "not a pass number"), "fault: @0 is refused");
	ok(refused("fetch:chunk:kill@x", "not a pass number"), "fault: @x is refused");
	ok(refused("fetch:chunk:kill,", "is not POINT:ACTION"), "fault: an empty entry is refused");
	struct sb many = {0};
	for (int i = 0; i < 17; i++)
		sb_addf(&many, "%sfetch:chunk:stop@%d", i ? "," : "", i + 1);
	ok(refused(many.s, "more than 16"), "fault: at most 16 entries");
	sb_release(&many);
	char *err = NULL;
	ok(fault_set("deploy:after-install:exit,fetch:chunk:kill@3,store:before-commit:stop", &err) == 0 && !err,
	   "fault: a list of three entries parses (%s)", tap_s(err));
	free(err);
	int listed = 1;
	for (size_t i = 0; fault_points[i]; i++)
		if (strchr(fault_points[i], ':') != strrchr(fault_points[i], ':') || !strchr(fault_points[i], ':'))
			listed = 0;
	ok(listed, "fault: every listed point is area:step");

	/* passes are counted per entry, only for the point it names */
	fault_set("fetch:chunk:stop@1000000", NULL);
	for (int i = 0; i < 5; i++)
		fault_point("fetch", "chunk");
	fault_point("fetch", "before-rename");
	fault_point("fetchx", "chunk");
	ok(fault_passes("fetch", "chunk") == 5 && fault_passes("fetch", "before-rename") == 0,
	   "fault: five passes of fetch:chunk counted, other points not (%u)", fault_passes("fetch", "chunk"));
	fault_set(NULL, NULL);
	fault_point("fetch", "chunk");
	ok(fault_passes("fetch", "chunk") == 0, "fault: cleared, a point is inert");

	char dir[] = "/tmp/zealot-fault.XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "fault: a scratch directory");
		return;
	}
	char log[64];
	snprintf(log, sizeof(log), "%s/log", dir);
	char want[128];
	pid_t pid;

	int st = child("fetch:chunk:exit@3", 5, log, &pid);
	char *got = slurp(log);
	snprintf(want, sizeof(want), "fetch:chunk exit 3 %ld", (long)pid);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == FAULT_EXIT_STATUS,
	   "fault: exit@3 exits %d at the third pass (status %d)", FAULT_EXIT_STATUS,
	   WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	ok(strcmp(got, want) == 0, "fault: the log names point, action, pass and pid before acting ('%s')", got);
	free(got);
	unlink(log);

	st = child("fetch:chunk:kill@2", 5, log, &pid);
	ok(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL, "fault: kill@2 dies by SIGKILL (status %d)", st);
	got = slurp(log);
	ok(strncmp(got, "fetch:chunk kill 2 ", 19) == 0, "fault: kill logged at pass 2 ('%s')", got);
	free(got);
	unlink(log);

	st = child("fetch:chunk:stop", 4, log, &pid);
	ok(WIFSTOPPED(st) && WSTOPSIG(st) == SIGSTOP, "fault: stop stops the process at the first pass (status %d)",
	   st);
	got = slurp(log);
	ok(strncmp(got, "fetch:chunk stop 1 ", 19) == 0, "fault: stop logged at pass 1 ('%s')", got);
	free(got);
	kill(pid, SIGCONT);
	st = 0;
	waitpid(pid, &st, 0);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 4,
	   "fault: continued, it runs on through its other passes without stopping again (status %d)", st);
	unlink(log);

	st = child("fetch:before-rename:exit", 3, log, &pid);
	ok(WIFEXITED(st) && WEXITSTATUS(st) == 0 && access(log, F_OK) != 0,
	   "fault: a point never passed never acts and logs nothing");
	rmdir(dir);
	fault_set(NULL, NULL);
}
