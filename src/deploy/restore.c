/* deploy's way back: a failed attempt's files restored and the previous
 * era restarted and verified, what the host is left in when that fails
 * too, a restore's own gate, and what a killed `zealot arm` left. */
#include <jansson.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/fault.h"
#include "../live/audit.h"
#include "deploy.h"
#include "deploy_int.h"
#include "install.h"

/* What the host is in, for a person to act on. */
char *deploy_host_state(struct run *x)
{
	struct sb b = {0};
	struct systemd_unit u;
	char *err = NULL;
	if (systemd_show(x->r->unit_name, &u, &err) == 0) {
		sb_addf(&b, "%s is %s/%s (result %s, status %d), MainPID %ld", x->r->unit_name, u.active, u.sub,
			u.result, u.exec_main_status, u.main_pid);
		systemd_unit_release(&u);
	} else {
		sb_addf(&b, "%s: state unknown (%s)", x->r->unit_name, err);
	}
	free(err);
	pid_t l[16];
	size_t n = audit_listeners(x->port, l, 16);
	if (!n)
		sb_addf(&b, "; nothing this host can see listens on port %u", x->port);
	for (size_t i = 0; i < n; i++) {
		char *c = deploy_cmdline_of(l[i]);
		sb_addf(&b, "; port %u: pid %ld (%s)", x->port, (long)l[i], c);
		free(c);
	}
	size_t ul = 0;
	char *unit = install_read(x->r->unit_path, &ul, NULL);
	if (!unit)
		sb_addf(&b, "; %s is absent", x->r->unit_path);
	else if (x->have_prev && x->prev.unit_text && strcmp(unit, x->prev.unit_text) == 0)
		sb_addf(&b, "; %s is era %lld's", x->r->unit_path, (long long)x->prev.id);
	else if (strcmp(unit, x->unit_text ? x->unit_text : "") == 0)
		sb_addf(&b, "; %s is the failed attempt's", x->r->unit_path);
	else
		sb_addf(&b, "; %s is neither era's", x->r->unit_path);
	free(unit);
	return sb_detach(&b);
}

static int restore_files(struct run *x, double t)
{
	char *err = NULL;
	int bad = 0;
	if (x->have_prev) {
		const char *envp =
		    x->prev.endpoint_path && *x->prev.endpoint_path ? x->prev.endpoint_path : x->r->env_path;
		bad = deploy_router_restage(x, &x->prev, &err) ||
		      install_env(envp, x->prev.env_text, strlen(x->prev.env_text), NULL, &err) ||
		      install_write(x->r->unit_path, x->prev.unit_text, strlen(x->prev.unit_text), 0644, &err);
		if (!bad && strcmp(envp, x->r->env_path) != 0)
			bad = install_remove(x->r->env_path, &err);
	} else {
		bad = (x->old_env ? install_env(x->r->env_path, x->old_env, x->old_env_len, NULL, &err)
				  : install_remove(x->r->env_path, &err)) ||
		      (x->old_unit ? install_write(x->r->unit_path, x->old_unit, x->old_unit_len, 0644, &err)
				   : install_remove(x->r->unit_path, &err));
	}
	if (bad)
		return failed(x, "restore", t, NULL, err, "cannot restore the files");
	if (deploy_ctl(x, "daemon-reload", NULL, 120000, "restore", t))
		return -1;
	if (x->have_prev)
		return step(x, "restore", "ok", t, NULL, "era %lld's %s%s and %s back; daemon-reload",
			    (long long)x->prev.id, x->r->env_path, x->router ? " (its members too)" : "",
			    x->r->unit_path);
	return step(x, "restore", "ok", t, NULL, "the files from before this first deploy %s; daemon-reload",
		    x->old_unit || x->old_env ? "back" : "removed");
}

/* A `stop` that failed may still leave nothing running: a unit that is
 * not loaded (its engine exited at once and systemd forgot it), or one
 * that is inactive or failed with no main process. Returns 1 then. */
int deploy_nothing_runs(const char *unit)
{
	struct systemd_unit u;
	char *err = NULL;
	int none = 0;
	if (systemd_show(unit, &u, &err) == 0) {
		none = u.main_pid == 0 && (strcmp(u.load, "loaded") != 0 || strcmp(u.active, "inactive") == 0 ||
					   strcmp(u.active, "failed") == 0);
		systemd_unit_release(&u);
	}
	free(err);
	return none;
}

int deploy_restore(struct run *x)
{
	double t = mono_s();
	if (!x->have_prev && !x->was_active) {
		/* a first deploy: nothing served before, nothing serves after.
		 * Stop while its unit file is still there; then a stop that
		 * fails is a failure only if something still runs. */
		char *err = NULL;
		systemd_ctl("disable", x->r->unit_name, 60000, &err);
		free(err);
		err = NULL;
		if (systemd_ctl("stop", x->r->unit_name, 300000, &err) && !deploy_nothing_runs(x->r->unit_name))
			return failed(x, "restore:stop", t, NULL, err, "systemctl stop failed");
		free(err);
		if (restore_files(x, mono_s()))
			return -1;
		fault_point("restore", "after-files");
		systemd_ctl("reset-failed", x->r->unit_name, 60000, NULL);
		return step(x, "restore:stop", "ok", t, NULL, "%s stopped and disabled (it did not serve before)",
			    x->r->unit_name);
	}
	if (restore_files(x, t))
		return -1;
	fault_point("restore", "after-files");
	t = mono_s();
	if (deploy_restart(x, "restore:restart", t))
		return -1;
	fault_point("restore", "after-restart");
	long pid = x->unit.main_pid;
	char inv[40];
	memcpy(inv, x->unit.invocation_id, sizeof(inv));
	inv[sizeof(inv) - 1] = '\0';
	if (deploy_wait_health(x, "restore:health", pid, inv, mono_s()) ||
	    deploy_verify_mainpid(x, "restore:mainpid", pid))
		return -1;
	if (x->have_prev && x->prev.argv_json) {
		json_t *a = json_loads(x->prev.argv_json, 0, NULL);
		size_t n = json_is_array(a) ? json_array_size(a) : 0;
		char **v = xcalloc(n + 1, sizeof(*v));
		for (size_t i = 0; i < n; i++)
			v[i] = (char *)json_string_value(json_array_get(a, i));
		int rc = deploy_verify_cmdline(x, "restore:cmdline", pid, v, n);
		free(v);
		json_decref(a);
		if (rc)
			return -1;
	}
	return 0;
}

/* The installed endpoint file and unit are the current era's: a restore
 * starts them as they are and writes nothing. */
int deploy_same_files(struct run *x)
{
	double t = mono_s();
	const char *envp = x->prev.endpoint_path && *x->prev.endpoint_path ? x->prev.endpoint_path : x->r->env_path;
	size_t el = 0, ul = 0;
	char *env = install_read(envp, &el, NULL), *unit = install_read(x->r->unit_path, &ul, NULL);
	int rc;
	if (!env || strcmp(env, x->prev.env_text ? x->prev.env_text : "") != 0)
		rc = step(x, "gate:files", "failed", t, "A01", "%s is %s era %lld's: restore writes nothing", envp,
			  env ? "not" : "absent, not", (long long)x->prev.id);
	else if (!unit || strcmp(unit, x->prev.unit_text ? x->prev.unit_text : "") != 0)
		rc = step(x, "gate:files", "failed", t, "A01", "%s is %s era %lld's: restore writes nothing",
			  x->r->unit_path, unit ? "not" : "absent, not", (long long)x->prev.id);
	else
		rc = step(x, "gate:files", "ok", t, NULL, "%s and %s are era %lld's, untouched", envp, x->r->unit_path,
			  (long long)x->prev.id);
	free(env);
	free(unit);
	return rc;
}

/* What a killed `zealot arm` left: its transient unit on the port, its
 * endpoint file. A stopped production is the restart's to bring back. */
void deploy_clean_arm_left(struct run *x)
{
	double t = mono_s();
	char *said = NULL, *err = NULL;
	int got = deploy_clean_arm(x->name, NULL, &said, &err);
	if (got > 0) {
		step(x, "clean:arm", "ok", t, NULL, "%s", said);
		warn(x, "a zealot arm left %s: cleaned", said);
	}
	/* got < 0: systemd could not be asked about it; the gates that follow
	 * (the unit, the port) ask again and say so */
	free(said);
	free(err);
}

int deploy_clean_arm(const char *name, const char *run_dir, char **said, char **err)
{
	struct sb unit = {0}, path = {0}, what = {0};
	sb_addf(&unit, ARM_UNIT_PREFIX "%s.service", name);
	sb_addf(&path, "%s/%s.env", run_dir ? run_dir : "/run/zealot/arm", name);
	struct systemd_unit u;
	int rc = 0;
	if (systemd_show(unit.s, &u, err) == 0) {
		int there = strcmp(u.load, "loaded") == 0 &&
			    (strcmp(u.active, "inactive") != 0 || strcmp(u.sub, "dead") != 0 || u.main_pid);
		int failed_unit = strcmp(u.active, "failed") == 0;
		if (there && !failed_unit) {
			if (systemd_ctl("stop", unit.s, 300000, err) && !deploy_nothing_runs(unit.s))
				rc = -1;
			else
				sb_addf(&what, "the transient unit %s (%s/%s, MainPID %ld), stopped", unit.s, u.active,
					u.sub, u.main_pid);
		}
		if (rc == 0 && (there || failed_unit)) {
			systemd_ctl("reset-failed", unit.s, 60000, NULL);
			if (!what.len)
				sb_addf(&what, "the transient unit %s (%s), reset", unit.s, u.active);
		}
		systemd_unit_release(&u);
	} else {
		rc = -1;
	}
	struct stat sb;
	if (rc == 0 && stat(path.s, &sb) == 0) {
		if (install_remove(path.s, err))
			rc = -1;
		else
			sb_addf(&what, "%sthe arm's endpoint file %s, removed", what.len ? "; " : "", path.s);
	}
	if (rc == 0 && what.len) {
		rc = 1;
		*said = sb_detach(&what);
	}
	sb_release(&what);
	sb_release(&unit);
	sb_release(&path);
	return rc;
}
