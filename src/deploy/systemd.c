#include "systemd.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/proc.h"
#include "../base/util.h"

/* systemctl's answers are small; a journal of one start is a boot log. */
#define SHOW_MAX    (1u << 20)
#define JOURNAL_MAX (64u << 20)

static void copy_value(char *dst, size_t cap, const char *v, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, v, n);
	dst[n] = '\0';
}

static void add_dropins(struct systemd_unit *u, const char *v, size_t n)
{
	/* space-separated absolute paths (systemd does not quote them) */
	size_t i = 0;
	while (i < n) {
		while (i < n && v[i] == ' ')
			i++;
		size_t j = i;
		while (j < n && v[j] != ' ')
			j++;
		if (j > i && u->n_dropins < 256) {
			u->dropins = xreallocarray(u->dropins, u->n_dropins + 1, sizeof(*u->dropins));
			u->dropins[u->n_dropins++] = xstrndup(v + i, j - i);
		}
		i = j;
	}
}

static long to_long(const char *v, size_t n)
{
	char buf[32];
	copy_value(buf, sizeof(buf), v, n);
	int64_t x = 0;
	return parse_i64(buf, &x) == 0 && x >= 0 && x < (1L << 31) ? (long)x : 0;
}

void systemd_parse_show(const char *text, size_t len, struct systemd_unit *out)
{
	memset(out, 0, sizeof(*out));
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		const char *eq = memchr(p, '=', (size_t)(le - p));
		if (eq) {
			size_t kn = (size_t)(eq - p), vn = (size_t)(le - eq - 1);
			const char *v = eq + 1;
#define KEY(s) (kn == sizeof(s) - 1 && memcmp(p, s, kn) == 0)
			if (KEY("MainPID"))
				out->main_pid = to_long(v, vn);
			else if (KEY("ExecMainPID"))
				out->exec_main_pid = to_long(v, vn);
			else if (KEY("InvocationID"))
				copy_value(out->invocation_id, sizeof(out->invocation_id), v, vn);
			else if (KEY("ActiveState"))
				copy_value(out->active, sizeof(out->active), v, vn);
			else if (KEY("SubState"))
				copy_value(out->sub, sizeof(out->sub), v, vn);
			else if (KEY("Result"))
				copy_value(out->result, sizeof(out->result), v, vn);
			else if (KEY("LoadState"))
				copy_value(out->load, sizeof(out->load), v, vn);
			else if (KEY("ExecMainStatus"))
				out->exec_main_status = (int)to_long(v, vn);
			else if (KEY("NRestarts"))
				out->n_restarts = (unsigned)to_long(v, vn);
			else if (KEY("DropInPaths"))
				add_dropins(out, v, vn);
#undef KEY
		}
		p = nl ? nl + 1 : end;
	}
}

void systemd_unit_release(struct systemd_unit *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n_dropins; i++)
		free(u->dropins[i]);
	free(u->dropins);
	memset(u, 0, sizeof(*u));
}

/* The first line of what a failed systemctl said, for the error. */
static void say_failure(const char *const *argv, const struct proc_result *r, char **err)
{
	const char *msg = r->err.len ? r->err.s : r->out.len ? r->out.s : "";
	size_t n = strcspn(msg, "\n");
	struct sb cmd = {0};
	for (const char *const *a = argv; *a; a++)
		sb_addf(&cmd, "%s%s", a == argv ? "" : " ", *a);
	if (r->timed_out)
		errorf(err, "'%s' did not finish in time", cmd.s);
	else
		errorf(err, "'%s' exited %d%s%.*s", cmd.s, r->status, n ? ": " : "", (int)n, msg);
	sb_release(&cmd);
}

int systemd_show(const char *unit, struct systemd_unit *out, char **err)
{
	const char *argv[] = {"systemctl",
			      "show",
			      "--no-pager",
			      "-p",
			      "MainPID,ExecMainPID,InvocationID,ActiveState,SubState,Result,LoadState,ExecMainStatus,"
			      "NRestarts,"
			      "DropInPaths",
			      "--",
			      unit,
			      NULL};
	struct proc_result r;
	memset(out, 0, sizeof(*out));
	if (proc_run(argv, 30000, SHOW_MAX, &r, err))
		return -1;
	if (r.status != 0) {
		say_failure(argv, &r, err);
		proc_result_release(&r);
		return -1;
	}
	systemd_parse_show(r.out.s, r.out.len, out);
	proc_result_release(&r);
	return 0;
}

int systemd_ctl(const char *verb, const char *unit, long timeout_ms, char **err)
{
	const char *argv[] = {"systemctl", verb, "--no-pager", unit ? "--" : NULL, unit, NULL};
	struct proc_result r;
	if (proc_run(argv, timeout_ms, SHOW_MAX, &r, err))
		return -1;
	int rc = 0;
	if (r.status != 0 || r.timed_out) {
		say_failure(argv, &r, err);
		rc = -1;
	}
	proc_result_release(&r);
	return rc;
}

char *systemd_journal(const char *invocation_id, const char *unit, long main_pid, char **err)
{
	struct sb a = {0}, b = {0}, c = {0}, d = {0};
	sb_addf(&a, "_SYSTEMD_INVOCATION_ID=%s", invocation_id);
	sb_addf(&b, "INVOCATION_ID=%s", invocation_id);
	const char *argv[] = {"journalctl", "--no-pager", "-q", "-o", "cat", "-b", a.s,
			      "+",	    b.s,	  NULL, NULL, NULL,  NULL};
	if (unit && main_pid > 0) {
		/* (fields of two names are both required; "+" is an or) */
		sb_addf(&c, "_SYSTEMD_UNIT=%s", unit);
		sb_addf(&d, "_PID=%ld", main_pid);
		argv[9] = "+";
		argv[10] = c.s;
		argv[11] = d.s;
	}
	struct proc_result r;
	char *out = NULL;
	if (proc_run(argv, 60000, JOURNAL_MAX, &r, err) == 0) {
		if (r.status != 0 && !r.out.len)
			say_failure(argv, &r, err);
		else
			out = sb_detach(&r.out);
		proc_result_release(&r);
	}
	sb_release(&a);
	sb_release(&b);
	sb_release(&c);
	sb_release(&d);
	return out;
}

int systemd_run(const char *unit, const char *const *props, size_t n_props, const char *const *cmd, long timeout_ms,
		char **err)
{
	size_t n_cmd = 0;
	while (cmd[n_cmd])
		n_cmd++;
	const char **argv = xcalloc(2 * n_props + n_cmd + 8, sizeof(*argv));
	size_t n = 0;
	struct sb u = {0};
	sb_addf(&u, "--unit=%s", unit);
	argv[n++] = "systemd-run";
	argv[n++] = "--no-ask-password";
	argv[n++] = u.s;
	for (size_t i = 0; i < n_props; i++) {
		argv[n++] = "-p";
		argv[n++] = props[i];
	}
	argv[n++] = "--";
	for (size_t i = 0; i < n_cmd; i++)
		argv[n++] = cmd[i];
	argv[n] = NULL;
	struct proc_result r;
	int rc = proc_run(argv, timeout_ms, SHOW_MAX, &r, err);
	if (rc == 0) {
		if (r.status != 0 || r.timed_out) {
			say_failure(argv, &r, err);
			rc = -1;
		}
		proc_result_release(&r);
	}
	sb_release(&u);
	free(argv);
	return rc;
}
