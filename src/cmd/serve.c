/* zealot serve ENDPOINT [--dry-run]: the systemd ExecStart.
 *
 * Gates, in order, each a refusal with SERVE_REFUSED (listed in the
 * emitted unit's RestartPreventExitStatus=, so a missing download never
 * becomes a crash loop): the endpoint's laws, the payload files present
 * (C03), their pinned byte counts and SHA-256, the payload laws and the fit
 * gate (M09). Then execv the runtime, so the engine is the unit's main
 * process and systemd supervises it, not a wrapper.
 *
 * What reaches the engine besides its argv is gated too (judge/trust.h):
 * its environment is built here, from the names serve passes, and a
 * variable the engine, ggml or the loader reads is a refusal (R04, C09);
 * XDG_CONFIG_HOME=/dev/null keeps every user-level config file out, and
 * the system-wide /etc/llama.cpp/config.ini is read as this user reads it:
 * a setting a key owns, a refused or priced flag is a refusal (R03), any
 * other is said before the exec.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/redact.h"
#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/router.h"
#include "../fetch/fetch.h"
#include "../judge/laws.h"
#include "../judge/trust.h"
#include "../payload/pin.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_SERVE};

static int refuse(const struct endpoint *ep, const char *gate, const struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];
		if (f->sev != SEV_ERROR)
			continue;
		char *reason = redact_text(f->reason);
		if (f->key && f->line > 0)
			fprintf(stderr, "zealot: serve: refused at the %s gate: %s %s:%d %s: %s\n", gate, f->law,
				ep->path, f->line, f->key, reason);
		else
			fprintf(stderr, "zealot: serve: refused at the %s gate: %s %s: %s\n", gate, f->law, ep->path,
				reason);
		free(reason);
	}
	return SERVE_REFUSED;
}

struct progress {
	int last;
};

static void show_progress(const char *path, uint64_t done, uint64_t total, void *arg)
{
	struct progress *p = arg;
	if (total < (256u << 20))
		return;
	int pct = (int)(done * 100 / total);
	if (pct / 10 != p->last / 10 || done == total) {
		fprintf(stderr, "zealot: serve: hashing %s: %d%% of %.1f GiB\n", path, pct,
			(double)total / (1024.0 * 1024.0 * 1024.0));
		p->last = pct;
	}
}

/* Gate 3: pins, per file (every shard of a split payload: its pins are
 * comma-separated in shard order). Returns 0 or a refusal. */
static int check_pins(const struct endpoint *ep)
{
	struct fetch_list l;
	char *err = NULL;
	if (fetch_list(ep, &l, &err)) {
		fprintf(stderr, "zealot: serve: refused at the pins gate: %s\n", err);
		free(err);
		return SERVE_REFUSED;
	}
	char *dir = pin_stamp_dir();
	int rc = 0;
	for (size_t i = 0; i < l.n && rc == 0; i++) {
		const struct fetch_file *f = &l.v[i];
		char key[32], what[64];
		snprintf(key, sizeof(key), "%s_FILE", f->kind);
		if (f->n_shards > 1)
			snprintf(what, sizeof(what), "%s shard %u of %u", key, f->shard, f->n_shards);
		else
			snprintf(what, sizeof(what), "%s", key);
		struct stat st;
		if (f->has_bytes && (stat(f->path, &st) != 0 || (uint64_t)st.st_size != f->bytes)) {
			fprintf(stderr,
				"zealot: serve: refused at the pins gate: %s '%s' is %lld bytes, %s_BYTES pins %llu "
				"(an unfinished or wrong download)\n",
				what, f->path, stat(f->path, &st) == 0 ? (long long)st.st_size : -1LL, f->kind,
				(unsigned long long)f->bytes);
			rc = SERVE_REFUSED;
		}
		if (rc == 0 && f->has_sha) {
			char hex[65];
			int cached = 0;
			struct progress pr = {-1};
			if (pin_sha256(f->path, dir, hex, &cached, show_progress, &pr, &err)) {
				fprintf(stderr, "zealot: serve: refused at the pins gate: %s\n", err);
				free(err);
				err = NULL;
				rc = SERVE_REFUSED;
			} else if (strcasecmp(hex, f->sha) != 0) {
				fprintf(
				    stderr,
				    "zealot: serve: refused at the pins gate: %s '%s' has SHA-256 %s, %s_SHA256 pins "
				    "%s\n",
				    what, f->path, hex, f->kind, f->sha);
				rc = SERVE_REFUSED;
			} else {
				fprintf(stderr, "zealot: serve: %s SHA-256 verified%s\n", what,
					cached ? " (stamp: file unchanged since it was hashed)" : "");
			}
		}
	}
	free(dir);
	fetch_list_release(&l);
	return rc;
}

extern char **environ;

/* Gate 2: the engine's environment, built into *engine_env, and the
 * config files it reads under it. Returns 0 or a refusal. */
static int check_engine(const struct endpoint *ep, char ***engine_env)
{
	struct findings fs = {0};
	int rc = 0;
	if (trust_env(ep, environ, engine_env, &fs))
		rc = refuse(ep, "environment", &fs);
	else if (trust_config_files(*engine_env, NULL, &fs, NULL))
		rc = refuse(ep, "config", &fs);
	for (size_t i = 0; rc == 0 && i < fs.n; i++) {
		char *reason = redact_text(fs.v[i].reason);
		fprintf(stderr, "zealot: serve: %s %s: %s\n", fs.v[i].law, severity_name(fs.v[i].sev), reason);
		free(reason);
	}
	findings_release(&fs);
	return rc;
}

/* The engine in serve's place, with the environment serve built (trust.c);
 * only a failed exec returns. */
static int exec_engine(const struct argv_list *a, char **engine_env)
{
	fflush(NULL);
	if (strchr(a->v[0], '/'))
		execve(a->v[0], a->v, engine_env);
	else
		execvpe(a->v[0], a->v, engine_env);
	fprintf(stderr, "zealot: serve: refused: cannot exec '%s': %s\n", a->v[0], strerror(errno));
	return SERVE_REFUSED;
}

static int dry;
static struct opt_list sets;
static const struct opt opts[] = {
    OPT_FLAG(0, "dry-run", &dry, "run every gate, print the command line, do not exec"),
    OPT_LIST(0, "set", &sets, "KEY=VALUE",
	     "override an endpoint key, gated as if written (repeatable;\nllama-swap's cmd gives a member its port)"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	char *err = NULL;
	enum zerr kind;
	struct endpoint *ep = endpoint_load(args->v[0], &kind, &err);
	/* --set is a what-if under --dry-run, and llama-swap's cmd gives a
	 * member its port with it; either way the gates judge the result */
	if (ep && cmd_apply_sets(ep, &sets, &err)) {
		cmd_fail(EXIT_USAGE, "serve: %s", err);
		free(err);
		endpoint_free(ep);
		return EXIT_USAGE;
	}
	if (!ep) {
		/* an endpoint that does not parse is a refusal (C01, C10), and so
		 * is one that is missing or unreadable: a restart cannot fix
		 * either, and under Restart= an exit 3 would be a crash loop (C03) */
		int io = kind == ZE_IO || kind == ZE_NOTFOUND;
		fprintf(stderr, "zealot: serve: refused at the %s gate: %s%s\n", io ? "endpoint" : "laws",
			io ? "C03 " : "", err);
		free(err);
		return SERVE_REFUSED;
	}
	struct findings fs = {0};
	struct shape_ctx c = {0};
	struct argv_list a = {0};
	struct plan p;
	char **engine_env = NULL;
	int rc;
	if (router_is(ep)) { /* its children inherit the environment serve builds */
		if ((rc = check_engine(ep, &engine_env)) == 0)
			rc = cmd_router_serve(ep, dry, engine_env);
		goto done;
	}
	if (laws_check(ep, NULL, NULL, LAWS_STATIC, &fs)) {
		rc = refuse(ep, "laws", &fs);
		goto done;
	}
	if ((rc = check_engine(ep, &engine_env)) != 0)
		goto done;
	if (laws_check(ep, NULL, NULL, LAWS_FILES, &fs)) {
		rc = refuse(ep, "files", &fs);
		goto done;
	}
	if ((rc = check_pins(ep)) != 0)
		goto done;
	int io = 0;
	if (shape_load(ep, NULL, &c, &io, &err) ||
	    plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, &err)) {
		fprintf(stderr, "zealot: serve: refused at the fit gate: %s\n", err);
		rc = SERVE_REFUSED;
		goto done;
	}
	if (laws_check(ep, &c, &p, LAWS_PAYLOAD | LAWS_FIT, &fs)) {
		rc = refuse(ep, "fit", &fs);
		goto done;
	}
	if (argv_render(ep, &a, &err)) {
		fprintf(stderr, "zealot: serve: refused: %s\n", err);
		rc = SERVE_REFUSED;
		goto done;
	}
	fprintf(stderr, "zealot: serve: gates passed (laws, files, pins, fit: %s MiB free of %s on %s)\n",
		FMT_MIB((double)p.free_bytes / (1024.0 * 1024.0)), FMT_MIB(plan_mib(p.addressable)), p.device->name);
	if (dry) {
		for (size_t i = 0; i < a.n; i++)
			puts(a.v[i]);
		rc = EXIT_OK;
		goto done;
	}
	rc = exec_engine(&a, engine_env);
done:
	free(err);
	trust_env_free(engine_env);
	argv_release(&a);
	findings_release(&fs);
	shape_release(&c);
	endpoint_free(ep);
	return rc;
}

const struct command cmd_serve = {"serve", &help, opts, run, NULL};
