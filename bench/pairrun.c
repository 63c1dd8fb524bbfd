/* pairrun: two commands timed as whole processes, paired in one run.
 *
 *   build/pairrun N LABEL_A CMD_A... -- LABEL_B CMD_B...
 *
 * Runs A and B alternately N times each (A B A B ...), so a machine that
 * gets busier or quieter during the run weighs on both alike; each run is
 * posix_spawn to waitpid on the monotonic clock, stdout and stderr to
 * /dev/null. Prints each command's median and minimum and the ratio of the
 * medians (B / A), and how many runs of each exited other than 0 (a
 * command that stops early on an error times less than the work). Beside
 * each wall median, the median CPU time (user + system, from wait4): on a
 * busy machine the wall clock also counts the waits for a core, the CPU
 * time only the command's own work.
 * Measures; asserts nothing.
 */
#include <fcntl.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static int failed;    /* the last run's exit status when it was not 0, or -1 for a signal */
static double cpu_ms; /* the last run's user + system time */

static double run_once(char **argv)
{
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	double t0 = now_ms();
	pid_t pid;
	if (posix_spawn(&pid, argv[0], &fa, NULL, argv, environ) != 0) {
		fprintf(stderr, "pairrun: cannot run '%s'\n", argv[0]);
		exit(3);
	}
	int st;
	struct rusage ru;
	wait4(pid, &st, 0, &ru);
	double dt = now_ms() - t0;
	cpu_ms = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
		 (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e3;
	failed = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	posix_spawn_file_actions_destroy(&fa);
	return dt;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(const double *v, long n) /* v sorted */
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
	int sep = 0;
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--") == 0)
			sep = i;
	long n = argc > 1 ? strtol(argv[1], NULL, 10) : 0;
	if (n < 1 || n > 100000 || sep < 4 || sep + 2 >= argc) {
		fprintf(stderr, "usage: pairrun N LABEL_A CMD_A... -- LABEL_B CMD_B...\n");
		return 2;
	}
	argv[sep] = NULL;
	char *label[2] = {argv[2], argv[sep + 1]};
	char **cmd[2] = {argv + 3, argv + sep + 2};
	double *t[2] = {calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double))};
	double *c[2] = {calloc((size_t)n, sizeof(double)), calloc((size_t)n, sizeof(double))};
	long bad[2] = {0, 0};
	int status[2] = {0, 0};
	for (int w = 0; w < 2; w++) /* one warm-up each: page cache, dynamic loader */
		run_once(cmd[w]);
	for (long i = 0; i < n; i++)
		for (int w = 0; w < 2; w++) {
			t[w][i] = run_once(cmd[w]);
			c[w][i] = cpu_ms;
			if (failed) {
				bad[w]++;
				status[w] = failed;
			}
		}
	double med[2];
	for (int w = 0; w < 2; w++) {
		qsort(t[w], (size_t)n, sizeof(double), cmp);
		qsort(c[w], (size_t)n, sizeof(double), cmp);
		med[w] = median(t[w], n);
		printf("  %s: median %.2f ms, min %.2f ms over %ld runs (CPU time median %.2f ms)\n", label[w], med[w],
		       t[w][0], n, median(c[w], n));
		/* a command that stopped early (an error) times less than the work: say so */
		if (bad[w])
			printf("  %s: %ld of %ld runs exited %d\n", label[w], bad[w], n, status[w]);
	}
	printf("  paired: %s takes %.1fx the time of %s (medians)\n", label[1], med[1] / med[0], label[0]);
	for (int w = 0; w < 2; w++) {
		free(t[w]);
		free(c[w]);
	}
	return 0;
}
