/* deploy's install and restart steps, the wait for /health, and why a
 * start failed (its journal, read until the cause is whole). */
#include <string.h>
#include <unistd.h>

#include "cause.h"
#include "deploy.h"
#include "deploy_int.h"
#include "install.h"

int deploy_ctl(struct run *x, const char *verb, const char *unit, long ms, const char *name, double t)
{
	char *err = NULL;
	if (systemd_ctl(verb, unit, ms, &err))
		return failed(x, name, t, NULL, err, "systemctl failed");
	return 0;
}

int deploy_install(struct run *x)
{
	double t = mono_s();
	char *err = NULL;
	x->installed = 1;
	if (install_env(x->r->env_path, x->env_text, strlen(x->env_text), x->src_path, &err) ||
	    install_write(x->r->unit_path, x->unit_text, strlen(x->unit_text), 0644, &err))
		return failed(x, "install", t, NULL, err, "cannot write the files");
	if (deploy_ctl(x, "daemon-reload", NULL, 120000, "install", t) ||
	    deploy_ctl(x, "enable", x->r->unit_name, 60000, "install", t))
		return -1;
	return step(x, "install", "ok", t, NULL, "%s, %s; daemon-reload; enabled", x->r->env_path, x->r->unit_path);
}

/* The journal of one start (its main process main_pid, 0 when unknown;
 * systemd_journal), read again every 50 ms until enough() says it
 * holds what the caller waits for, or `seconds` pass. journald takes a
 * unit's stderr from its stream apart from systemd's own messages, so the
 * engine's or serve's lines may land after the exit, and both may trail
 * the state systemctl reports. Returns the last text read, or NULL with
 * *err when none could be read. */
char *deploy_journal_until(const struct run *x, const char *invocation, long main_pid, double seconds,
			   int (*enough)(const char *j, void *arg), void *arg, char **err)
{
	double t0 = mono_s();
	for (;;) {
		free(*err);
		*err = NULL;
		char *j = systemd_journal(invocation, x->r->unit_name, main_pid, err);
		if ((j && enough(j, arg)) || mono_s() - t0 >= seconds)
			return j;
		free(j);
		usleep(50000);
	}
}

/* A start's journal classified; enough once the cause is whole (a refusal
 * known only by its exit status is not: serve always says why). */
struct classified {
	int gpu;
	int found;
	struct cause c;
};

static int cause_whole(const char *j, void *arg)
{
	struct classified *k = arg;
	if (k->found)
		cause_release(&k->c);
	k->found = cause_classify(j, strlen(j), k->gpu, &k->c);
	return k->found && !k->c.partial;
}

/* Why a start failed, from its journal. */
static void explain_failure(struct run *x, const char *invocation, long main_pid, char *law_out, char **detail)
{
	struct classified k = {.gpu = x->gpu};
	char *err = NULL;
	char *j = invocation && *invocation ? deploy_journal_until(x, invocation, main_pid, 3.0, cause_whole, &k, &err)
					    : NULL;
	free(err);
	const struct cause *c = &k.c;
	if (k.found) {
		struct sb b = {0};
		sb_addf(&b, "%s%s%s%s%s", c->what, c->term ? " (term: " : "", c->term ? c->term : "",
			c->term ? ")" : "", c->line ? "; the journal says: " : "");
		if (c->line)
			sb_adds(&b, c->line);
		if (c->fix)
			sb_addf(&b, "; fix: %s", c->fix);
		*detail = sb_detach(&b);
		snprintf(law_out, 8, "%s", c->law);
		if (!x->r->cause) /* the first failure's cause, not a restore's */
			x->r->cause = xstrdup(*detail);
		cause_release(&k.c);
	} else {
		*detail = xstrdup("the journal of this start names no cause");
	}
	free(j);
}

/* Wait for /health 200 from the start with this MainPID; the unit leaving
 * its running state (a refusal, a crash, a restart) ends the wait. */
int deploy_wait_health(struct run *x, const char *name, long main_pid, const char *invocation, double t)
{
	struct http_client hc = {x->http_base, x->api_key, 2000};
	double deadline = mono_s() + (double)(x->o->boot_timeout_ms > 0 ? x->o->boot_timeout_ms : 300000) / 1000.0;
	long last_status = 0;
	while (mono_s() < deadline) {
		struct systemd_unit u;
		char *err = NULL;
		if (systemd_show(x->r->unit_name, &u, &err) == 0) {
			int gone = strcmp(u.active, "active") != 0 && strcmp(u.active, "activating") != 0 &&
				   strcmp(u.active, "reloading") != 0;
			int restarted = u.main_pid != main_pid || strcmp(u.invocation_id, invocation) != 0;
			if (gone || restarted || strcmp(u.sub, "auto-restart") == 0) {
				char law[8] = "", *why = NULL;
				/* the start's own process, unless systemd began another */
				explain_failure(x, invocation,
						strcmp(u.invocation_id, invocation) ? 0 : u.exec_main_pid, law, &why);
				step(x, name, "failed", t, law, "%s is %s/%s (%s, status %d)%s: %s", x->r->unit_name,
				     u.active, u.sub, u.result, u.exec_main_status,
				     restarted && !gone ? ", restarted by systemd" : "", why);
				free(why);
				systemd_unit_release(&u);
				return -1;
			}
			systemd_unit_release(&u);
		}
		free(err);
		struct http_response resp;
		if (http_request(&hc, "GET", "/health", NULL, &resp) == 0) {
			last_status = resp.status;
			http_response_release(&resp);
			if (last_status == 200)
				return step(x, name, "ok", t, NULL, "/health 200 after %.2f s", mono_s() - t);
		} else {
			http_response_release(&resp);
		}
		usleep(100000);
	}
	return step(x, name, "failed", t, NULL, "/health did not answer 200 within %.0f s (last: %ld)", mono_s() - t,
		    last_status);
}

int deploy_restart(struct run *x, const char *name, double t)
{
	char *err = NULL;
	/* A deliberate start is not a crash loop: clear the unit's failed state
	 * and its start-limit counter first, or a fifth start within
	 * StartLimitIntervalSec (arm's stop, boot and restore, a deploy just
	 * before) is refused with start-limit-hit and nothing restored. */
	systemd_ctl("reset-failed", x->r->unit_name, 60000, NULL);
	if (systemd_ctl("restart", x->r->unit_name, 300000, &err)) {
		struct systemd_unit u;
		char *e2 = NULL;
		char law[8] = "", *why = NULL;
		if (systemd_show(x->r->unit_name, &u, &e2) == 0) {
			explain_failure(x, u.invocation_id, u.exec_main_pid, law, &why);
			systemd_unit_release(&u);
		}
		free(e2);
		step(x, name, "failed", t, law, "%s%s%s", err, why ? ": " : "", why ? why : "");
		free(why);
		free(err);
		return -1;
	}
	systemd_unit_release(&x->unit);
	if (systemd_show(x->r->unit_name, &x->unit, &err))
		return failed(x, name, t, NULL, err, "systemctl show failed");
	x->r->main_pid = x->unit.main_pid;
	snprintf(x->r->invocation_id, sizeof(x->r->invocation_id), "%s", x->unit.invocation_id);
	return step(x, name, "ok", t, NULL, "MainPID %ld, invocation %s", x->unit.main_pid, x->unit.invocation_id);
}
