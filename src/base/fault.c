/* fault: named points for tests to stop, exit or kill the process at (see
 * fault.h). */
#include "fault.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

const char *const fault_points[] = {
    /* deploy and rollback (src/deploy/deploy.c): after each step */
    "deploy:after-lock", "deploy:after-gates", "deploy:after-install", "deploy:after-restart", "deploy:after-verify",
    "deploy:after-record", "rollback:after-lock", "rollback:after-gates", "rollback:after-install",
    "rollback:after-restart", "rollback:after-verify", "rollback:after-record",
    /* the restore of a failed deploy: files back, the old engine restarted */
    "restore:after-files", "restore:after-restart",
    /* arm (src/deploy/arm.c): each step of a bench window, and the restore
     * of production it ends with (deploy_run's "restore" kind) */
    "arm:after-gate", "arm:after-bench-production", "arm:after-stop", "arm:after-boot", "arm:after-bench",
    "arm:after-arm-stop", "arm:after-restore", "arm-restore:after-lock", "arm-restore:after-gates",
    "arm-restore:after-install", "arm-restore:after-restart", "arm-restore:after-verify", "arm-restore:after-record",
    /* fetch (src/fetch/download.c): each chunk's state saved, the rename */
    "fetch:chunk", "fetch:before-rename", "fetch:after-rename",
    /* fleet deploy (src/cmd/fleetops.c): each endpoint */
    "fleet:before-endpoint", "fleet:after-endpoint",
    /* the store (src/store/store.c): each write transaction */
    "store:before-commit", "store:after-commit",
    /* rename (src/deploy/rename.c): after each step but the last */
    "rename:after-install", "rename:after-stop", "rename:after-start", "rename:after-record", NULL};

enum fault_action { FAULT_STOP, FAULT_EXIT, FAULT_KILL };

#define FAULT_MAX 16

struct fault_entry {
	char point[64];
	enum fault_action action;
	unsigned nth;
	unsigned passes;
	int fired;
};

static struct fault_entry entries[FAULT_MAX];
static size_t n_entries;
static int env_bad; /* ZEALOT_FAULT did not parse: nothing is armed */
static pthread_once_t once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static int known(const char *point)
{
	for (size_t i = 0; fault_points[i]; i++)
		if (strcmp(fault_points[i], point) == 0)
			return 1;
	return 0;
}

/* One entry: POINT:ACTION[@N] (POINT itself holds one ':'). */
static int parse_entry(const char *s, size_t len, struct fault_entry *e, char **err)
{
	char buf[128];
	if (len == 0 || len >= sizeof(buf))
		return errorf(err, "'%.*s' is not POINT:ACTION[@N]", (int)(len < 80 ? len : 80), s);
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(e, 0, sizeof(*e));
	e->nth = 1;
	char *at = strchr(buf, '@');
	if (at) {
		uint64_t n;
		*at = '\0';
		if (parse_u64(at + 1, &n) || n == 0 || n > 1000000000u)
			return errorf(err, "'%s': @%s is not a pass number (1 or more)", buf, at + 1);
		e->nth = (unsigned)n;
	}
	char *colon = strrchr(buf, ':');
	if (!colon)
		return errorf(err, "'%s' is not POINT:ACTION[@N]", buf);
	*colon = '\0';
	const char *act = colon + 1;
	static const char *const actions[] = {[FAULT_STOP] = "stop", [FAULT_EXIT] = "exit", [FAULT_KILL] = "kill"};
	int a = name_index(actions, ARRAY_SIZE(actions), act);
	if (a < 0)
		return errorf(err, "'%s': action '%s' is none of stop, exit, kill", buf, act);
	e->action = (enum fault_action)a;
	if (!known(buf))
		return errorf(err, "'%s' is no fault point (the points are listed in src/base/fault.c)", buf);
	if (strlen(buf) >= sizeof(e->point))
		return errorf(err, "'%s' is too long", buf);
	memcpy(e->point, buf, strlen(buf) + 1);
	return 0;
}

static int parse(const char *spec, char **err)
{
	n_entries = 0;
	if (!spec || !*spec)
		return 0;
	const char *p = spec;
	while (1) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		if (n_entries == FAULT_MAX) {
			n_entries = 0;
			return errorf(err, "more than %d entries", FAULT_MAX);
		}
		if (parse_entry(p, len, &entries[n_entries], err)) {
			n_entries = 0;
			return -1;
		}
		n_entries++;
		if (!end)
			break;
		p = end + 1;
	}
	return 0;
}

static void load_env(void)
{
	if (parse(getenv("ZEALOT_FAULT"), NULL))
		env_bad = 1;
}

int fault_check(char **err)
{
	pthread_once(&once, load_env);
	if (!env_bad)
		return 0;
	/* parse again for the message; the armed set stays empty */
	pthread_mutex_lock(&mu);
	parse(getenv("ZEALOT_FAULT"), err);
	n_entries = 0;
	pthread_mutex_unlock(&mu);
	return -1;
}

int fault_set(const char *spec, char **err)
{
	pthread_once(&once, load_env);
	pthread_mutex_lock(&mu);
	env_bad = 0;
	int rc = parse(spec, err);
	pthread_mutex_unlock(&mu);
	return rc;
}

unsigned fault_passes(const char *area, const char *step)
{
	pthread_once(&once, load_env);
	char name[128];
	snprintf(name, sizeof(name), "%s:%s", area, step);
	unsigned n = 0;
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < n_entries; i++)
		if (strcmp(entries[i].point, name) == 0 && entries[i].passes > n)
			n = entries[i].passes;
	pthread_mutex_unlock(&mu);
	return n;
}

/* "POINT ACTION PASS PID\n" appended to $ZEALOT_FAULT_LOG, written whole
 * in one write(2) (O_APPEND), before the action. */
static void log_line(const struct fault_entry *e, unsigned pass)
{
	const char *path = getenv("ZEALOT_FAULT_LOG");
	if (!path || !*path)
		return;
	static const char *const names[] = {"stop", "exit", "kill"};
	struct sb b = {0};
	sb_addf(&b, "%s %s %u %ld\n", e->point, names[e->action], pass, (long)getpid());
	int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ssize_t w;
		do
			w = write(fd, b.s, b.len);
		while (w < 0 && errno == EINTR);
		close(fd);
	}
	sb_release(&b);
}

void fault_point(const char *area, const char *step)
{
	pthread_once(&once, load_env);
	if (n_entries == 0)
		return;
	size_t alen = strlen(area);
	int act = -1;
	struct fault_entry hit;
	unsigned pass = 0;
	pthread_mutex_lock(&mu);
	for (size_t i = 0; i < n_entries; i++) {
		struct fault_entry *e = &entries[i];
		if (strncmp(e->point, area, alen) != 0 || e->point[alen] != ':' ||
		    strcmp(e->point + alen + 1, step) != 0)
			continue;
		e->passes++;
		if (!e->fired && e->passes == e->nth && act < 0) {
			e->fired = 1;
			act = (int)e->action;
			hit = *e;
			pass = e->passes;
		}
	}
	pthread_mutex_unlock(&mu);
	if (act < 0)
		return;
	log_line(&hit, pass);
	switch (hit.action) {
	case FAULT_STOP: raise(SIGSTOP); break;
	case FAULT_EXIT: _exit(FAULT_EXIT_STATUS);
	case FAULT_KILL: raise(SIGKILL); break;
	}
}
