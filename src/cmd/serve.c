/* zealot serve ENDPOINT [--dry-run]: the systemd ExecStart.
 *
 * Gates, in order, each a refusal with SERVE_REFUSED (listed in the
 * emitted unit's RestartPreventExitStatus=, so a missing download never
 * becomes a crash loop): the endpoint's laws, the payload files present
 * (C03), their pinned byte counts and SHA-256, the payload laws and the fit
 * gate (M09). Then execv the runtime, so the engine is the unit's main
 * process and systemd supervises it, not a wrapper.
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
#include "../fetch/fetch.h"
#include "../judge/laws.h"
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

static int dry;
static struct opt_list sets;
static const struct opt opts[] = {
    OPT_FLAG(0, "dry-run", &dry, "run every gate, print the command line, do not exec"),
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "with --dry-run: override an endpoint key (what-if; repeatable)"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	char *err = NULL;
	enum zerr kind;
	/* what runs is what the file says: a what-if is a dry run's alone */
	if (sets.n && !dry)
		return opt_usage_error("serve", &help, "--set takes --dry-run (the engine runs what the file says)");
	struct endpoint *ep = endpoint_load(args->v[0], &kind, &err);
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
		int io = cmd_exit(kind) == EXIT_IO;
		fprintf(stderr, "zealot: serve: refused at the %s gate: %s%s\n", io ? "endpoint" : "laws",
			io ? "C03 " : "", err);
		free(err);
		return SERVE_REFUSED;
	}
	struct findings fs = {0};
	struct shape_ctx c = {0};
	struct argv_list a = {0};
	struct plan p;
	int rc;
	if (laws_check(ep, NULL, NULL, LAWS_STATIC, &fs)) {
		rc = refuse(ep, "laws", &fs);
		goto done;
	}
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
	fflush(NULL);
	if (strchr(a.v[0], '/'))
		execv(a.v[0], a.v);
	else
		execvp(a.v[0], a.v);
	fprintf(stderr, "zealot: serve: refused: cannot exec '%s': %s\n", a.v[0], strerror(errno));
	rc = SERVE_REFUSED;
done:
	free(err);
	argv_release(&a);
	findings_release(&fs);
	shape_release(&c);
	endpoint_free(ep);
	return rc;
}

const struct command cmd_serve = {"serve", &help, opts, run, NULL};
