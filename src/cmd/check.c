/* zealot check ENDPOINT [--set K=V ...] [--boot-log FILE] [--json] [--keys] */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/color.h"
#include "../base/file.h"
#include "../base/redact.h"
#include "../base/safe.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/router.h"
#include "../judge/harness.h"
#include "../judge/laws.h"
#include "../judge/trust.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_CHECK};

static void list_keys(int markdown)
{
	if (markdown) {
		char *md = keys_markdown();
		fputs(md, stdout);
		free(md);
		return;
	}
	/* a line per key (its engine flag, default and opt-out), what it is
	 * wrapped under it: the terminal's width */
	printf("%-18s %-20s %-14s %s\n    %s\n", "key", "engine flag", "default", "set-but-empty means", "what it is");
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		/* the default in its column when it fits there, the rest wrapped */
		const char *def = k->def ? k->def : "-", *optout = k->optout ? k->optout : "(error)";
		const char *flag = key_flag_shown(k);
		char head[96];
		struct sb t = {0};
		size_t indent;
		if (strlen(def) <= 14) {
			snprintf(head, sizeof(head), "%-18s %-20s %-14s ", k->name, flag ? flag : "-", def);
			sb_adds(&t, optout);
		} else {
			snprintf(head, sizeof(head), "%-18s %-20s ", k->name, flag ? flag : "-");
			sb_addf(&t, "%s %s", def, optout);
		}
		indent = strlen(head);
		cmd_wrap(stdout, head, indent, t.s);
		sb_release(&t);
		cmd_wrap(stdout, "    ", 4, k->doc);
	}
}

static void print_finding(const struct endpoint *ep, const struct finding *f)
{
	char where[512];
	if (f->key && f->line > 0)
		snprintf(where, sizeof(where), "%s:%d %s", ep->path, f->line, f->key);
	else if (f->key && f->line < 0)
		snprintf(where, sizeof(where), "--set %s", f->key);
	else if (f->key)
		snprintf(where, sizeof(where), "%s %s", ep->path, f->key);
	else
		snprintf(where, sizeof(where), "%s", ep->path);
	char *reason = redact_text(f->reason);
	char head[600];
	const char *sev = severity_name(f->sev);
	snprintf(head, sizeof(head), "%s%-7s%s %s  %s: ", color_word(sev), sev, color_tone(stdout, COLOR_END), f->law,
		 where);
	cmd_wrap(stdout, head, 13, reason);
	free(reason);
	if (f->fix && *f->fix)
		cmd_wrap(stdout, "             fix: ", 18, f->fix);
}

static int by_severity(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	if (x->sev != y->sev)
		return (int)x->sev - (int)y->sev;
	return strcmp(x->law, y->law);
}

/* An endpoint file that does not parse is itself a finding: C01 for an
 * unknown key, C02 for the syntax. */
static int print_unparsed(const char *path, const char *err, int json)
{
	/* a file that does not parse is itself a finding: C09 for an engine
	 * variable (LLAMA_ARG_*), C01 for an unknown key, C02 for the syntax */
	const char *law = err && strstr(err, "(law C09)")     ? "C09"
			  : err && strstr(err, "unknown key") ? "C01"
			  : err && strstr(err, "law C10")     ? "C10"
							      : "C02";
	if (json) {
		/* a file name need not be UTF-8: JSON carries it made safe, never drops it */
		json_t *o = json_pack("{s:o,s:[{s:s,s:s,s:o}],s:i,s:i}", "endpoint", safe_json(path), "findings", "law",
				      law, "severity", "error", "reason", safe_json(err), "errors", 1, "warnings", 0);
		cmd_print_json(o, 0);
		json_decref(o);
	} else {
		char *safe = redact_text(err);
		printf("%serror%s   %s  %s\n\n1 error, 0 warnings\n", color_word("error"),
		       color_tone(stdout, COLOR_END), law, safe);
		free(safe);
	}
	return EXIT_NO;
}

/* --boot-log FILE is there to be read (S16 reads it later). */
static int boot_log_readable(const char *boot_log)
{
	FILE *bl = fopen(boot_log, "r");
	int e = errno;
	if (!bl)
		return cmd_fail(cmd_exit(zerr_of_errno(e)), "check: --boot-log: cannot open '%s': %s", boot_log,
				strerror(e));
	fclose(bl);
	return EXIT_OK;
}

/* What stopped the payload from being read or priced, as a finding (C03
 * for a file that cannot be read, C02 for a value); takes err. */
static void add_load_finding(struct findings *fs, char *err, int io)
{
	fs->v = xreallocarray(fs->v, fs->n + 1, sizeof(*fs->v));
	struct finding *f = &fs->v[fs->n++];
	memset(f, 0, sizeof(*f));
	f->law = io ? "C03" : "C02";
	f->sev = SEV_ERROR;
	f->reason = err;
	f->fix = xstrdup(io ? "replace the file with a complete, readable payload" : "correct the endpoint");
}

/* A file law already named an unreadable payload (its mode, its owner):
 * the load's own error says it again, with a fix that does not fit. */
static int has_c03(const struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].sev == SEV_ERROR && strcmp(fs->v[i].law, "C03") == 0)
			return 1;
	return 0;
}

/* The findings: one JSON object, or a line each and the counts. */
static void print_findings(const struct endpoint *ep, const struct findings *fs, const struct shape_ctx *c,
			   const struct plan *p, size_t errors, size_t warnings, int json)
{
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "endpoint", safe_json(ep->path)); /* a name need not be UTF-8 */
		json_t *arr = json_array();
		for (size_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->v[i];
			json_t *x = json_pack("{s:s,s:s,s:o,s:o}", "law", f->law, "severity", severity_name(f->sev),
					      "reason", safe_json(f->reason), "fix", safe_json(f->fix));
			json_object_set_new(x, "key", f->key ? json_string(f->key) : json_null());
			json_object_set_new(x, "line", f->line > 0 ? json_integer(f->line) : json_null());
			json_array_append_new(arr, x);
		}
		json_object_set_new(o, "findings", arr);
		/* what the file sets, as zealot (and systemd's EnvironmentFile=, law C10) read it */
		json_t *kv = json_object();
		for (size_t i = 0; i < keys_count(); i++)
			if (ep->e[i].value && ep->e[i].line > 0)
				json_object_set_new(kv, ep->e[i].def->name, json_string(ep->e[i].value));
		json_object_set_new(o, "keys", kv);
		json_object_set_new(o, "errors", json_integer((json_int_t)errors));
		json_object_set_new(o, "warnings", json_integer((json_int_t)warnings));
		if (p)
			json_object_set_new(o, "verdict", json_string(p->fits ? "fits" : "refused"));
		json_object_set_new(o, "remote", cmd_remote_json(c->remote_reads != 0, &c->remote));
		/* no secret in the output: a URL's userinfo, a secret's value */
		cmd_print_json(o, 0);
		json_decref(o);
	} else {
		for (size_t i = 0; i < fs->n; i++)
			print_finding(ep, &fs->v[i]);
		printf("%s%zu error%s, %zu warning%s\n", fs->n ? "\n" : "", errors, errors == 1 ? "" : "s", warnings,
		       warnings == 1 ? "" : "s");
	}
}

static struct opt_list sets;
static const char *boot_log, *device, *harness;
static int json, keys, markdown;
static const struct opt opts[] = {
    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key (what-if; repeatable)"),
    OPT_STRING(0, "device", &device, "NAME", "judge and price on this profile instead of DEVICE"),
    OPT_STRING(0, "boot-log", &boot_log, "FILE", "a boot log of the runtime: its system_info line is evidence (S16)"),
    OPT_FLAG(0, "json", &json, "one JSON object: findings, errors, warnings"),
    OPT_STRING(0, "harness", &harness, "FILE",
	       "a client harness file (zealot emit harness, models.yml): the entry of\n"
	       "ALIAS tells no larger window than the slot's (M03)"),
    OPT_FLAG(0, "keys", &keys, "list every endpoint key with its default and opt-out"),
    OPT_FLAG(0, "markdown", &markdown, "with --keys: the whole key table as Markdown (docs/keys.md)"),
    OPT_END(),
};

/* --harness: the file's entries of the endpoint's ALIAS against the
 * plan's per-slot window (without a plan there is no window to hold). */
static int check_harness(const struct endpoint *ep, const struct plan *p, struct findings *fs)
{
	char *err = NULL;
	enum zerr kind;
	size_t n = 0;
	char *text = read_file(harness, 16u << 20, READ_STDIN, &n, &kind, &err);
	if (!text) {
		int rc = cmd_fail(cmd_exit(kind), "check: --harness: %s", err);
		free(err);
		return rc;
	}
	if (p)
		harness_check(text, n, harness, endpoint_value(ep, K_ALIAS), p->n_ctx_seq, fs);
	free(text);
	return EXIT_OK;
}

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	if (keys) {
		list_keys(markdown);
		return EXIT_OK;
	}
	if (args->n != 1)
		return cmd_fail(EXIT_USAGE, "check: missing argument (usage: zealot check ENDPOINT [options])");
	const char *path = args->v[0];
	char *err = NULL;
	struct findings fs = {0};
	struct shape_ctx c = {0};
	struct plan p;
	int have_plan = 0;
	enum zerr kind;
	/* a payload (a GGUF or a URL) before any file: cmd_load_target */
	struct endpoint *ep =
	    cmd_is_payload(path) ? cmd_load_target("check", path, &sets, &rc, &err) : endpoint_load(path, &kind, &err);
	if (!ep && cmd_is_payload(path)) {
		rc = cmd_fail(rc, "check: %s", err);
		goto done;
	}
	if (!ep) {
		rc = kind != ZE_USAGE ? cmd_fail(cmd_exit(kind), "check: %s", err) : print_unparsed(path, err, json);
		goto done;
	}
	if (boot_log && (rc = boot_log_readable(boot_log)) != EXIT_OK)
		goto done;
	if (cmd_apply_sets(ep, &sets, &err) || cmd_apply_device(ep, device, &err)) {
		rc = cmd_fail(EXIT_USAGE, "check: %s", err);
		goto done;
	}
	if (router_is(ep)) {
		rc = cmd_router_check(ep, json);
		goto done;
	}
	laws_check(ep, NULL, NULL, LAWS_STATIC | LAWS_FILES | LAWS_RUNTIME, &fs);
	/* the engine's own config files, as serve's engine will read them (R03) */
	trust_config_files(NULL, NULL, &fs, NULL);
	/* The payload laws and the fit need the headers; a file that is
	 * missing is already a C03 finding, one that is unreadable becomes
	 * one here, and a value that cannot be priced is already reported. */
	int io = 0;
	if (shape_load(ep, NULL, &c, &io, &err) == 0) {
		if (plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, &err) == 0)
			have_plan = 1;
	}
	if (err && (io ? !has_c03(&fs) : findings_errors(&fs) == 0) && !strstr(err, "does not exist") &&
	    !strstr(err, "No such file")) {
		add_load_finding(&fs, err, io);
		err = NULL;
	}
	struct laws_evidence ev = {boot_log};
	laws_check_with(ep, c.census ? &c : NULL, have_plan ? &p : NULL, LAWS_PAYLOAD | LAWS_FIT, &ev, &fs);
	if (harness && (rc = check_harness(ep, have_plan ? &p : NULL, &fs)) != EXIT_OK)
		goto done;
	qsort(fs.v, fs.n, sizeof(*fs.v), by_severity);
	size_t errors = findings_errors(&fs), warnings = 0;
	for (size_t i = 0; i < fs.n; i++)
		warnings += fs.v[i].sev == SEV_WARNING;
	print_findings(ep, &fs, &c, have_plan ? &p : NULL, errors, warnings, json);
	rc = errors ? EXIT_NO : EXIT_OK;
done:
	free(err);
	findings_release(&fs);
	shape_release(&c);
	endpoint_free(ep);
	return rc;
}

const struct command cmd_check = {"check", &help, opts, run, NULL};
