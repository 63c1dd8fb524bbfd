/* fleet/ssh: the wrapper's parse, sections, and a command run through it
 * on this host (h NULL: /bin/sh, the same wrapping ssh gets). */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fleet/ssh.h"
#include "tap.h"

static void unwrap(const char *out, int ssh_status, struct fleet_ssh_result *r)
{
	memset(r, 0, sizeof(*r));
	sb_adds(&r->out, out);
	fleet_ssh_unwrap(r, ssh_status);
}

void test_fleet_ssh(void)
{
	struct fleet_ssh_result r;
	unwrap("@zealot-fleet-reached@\nhello\n\n@zealot-fleet-status 3\n", 3, &r);
	ok(r.reached && r.status == 3 && !r.lost && !strcmp(r.out.s, "hello\n"),
	   "unwrap: reached, status 3, the output without the marker");
	fleet_ssh_result_release(&r);
	unwrap("@zealot-fleet-reached@\nhalf", 255, &r);
	ok(r.reached && r.lost && r.status == 255, "unwrap: reached without a status line is lost");
	fleet_ssh_result_release(&r);
	unwrap("", 255, &r);
	ok(!r.reached && !r.lost && r.status == 255, "unwrap: nothing printed is not reached");
	fleet_ssh_result_release(&r);
	unwrap("@zealot-fleet-reached@\nx\n@zealot-fleet-status 7\ny\n\n@zealot-fleet-status 0\n", 0, &r);
	ok(r.status == 0 && !strcmp(r.out.s, "x\n@zealot-fleet-status 7\ny\n"),
	   "unwrap: the last status line is the wrapper's");
	fleet_ssh_result_release(&r);

	struct sb s = {0};
	fleet_ssh_section_add(&s, "one", "echo a");
	fleet_ssh_section_add(&s, "two", "echo b; false");
	fleet_ssh_section_add(&s, "three", "printf 'no newline'");
	char *err = NULL;
	int rc = fleet_ssh_run(NULL, NULL, s.s, NULL, 0, 10000, &r, &err);
	int c1, c2, c3, c4;
	char *one = fleet_ssh_section(r.out.s, "one", &c1);
	char *two = fleet_ssh_section(r.out.s, "two", &c2);
	char *three = fleet_ssh_section(r.out.s, "three", &c3);
	char *four = fleet_ssh_section(r.out.s, "four", &c4);
	ok(rc == 0 && r.reached && r.status == 0, "run here: reached, the script's status 0");
	ok(one && !strcmp(one, "a\n") && c1 == 0, "section one: 'a', status 0 (%d)", c1);
	ok(two && !strcmp(two, "b\n") && c2 == 1, "section two: 'b', status 1 (%d)", c2);
	ok(three && !strcmp(three, "no newline") && c3 == 0, "section three: its output without a newline");
	ok(!four && c4 == -1, "a section that never began: NULL");
	free(one);
	free(two);
	free(three);
	fleet_ssh_result_release(&r);
	sb_release(&s);

	/* stdin, a status, the time limit */
	rc = fleet_ssh_run(NULL, NULL, "wc -c; exit 4", "12345", 5, 10000, &r, &err);
	ok(rc == 0 && r.reached && !r.lost && r.status == 4, "an exit in the command is its status (4: %d)", r.status);
	fleet_ssh_result_release(&r);
	rc = fleet_ssh_run(NULL, NULL, "wc -c", "12345", 5, 10000, &r, &err);
	ok(rc == 0 && r.status == 0 && strtol(r.out.s ? r.out.s : "", NULL, 10) == 5,
	   "stdin reaches the command (wc -c says 5)");
	fleet_ssh_result_release(&r);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	rc = fleet_ssh_run(NULL, NULL, "sleep 20", NULL, 0, 300, &r, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
	ok(rc == 0 && r.timed_out && took < 2.0 && r.why && strstr(r.why, "did not end within 0.3 s"),
	   "the time limit kills the command (%.2f s): %s", took, tap_s(r.why));
	fleet_ssh_result_release(&r);
	free(err);
}
