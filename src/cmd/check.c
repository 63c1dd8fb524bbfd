/* zealot check ENDPOINT [--set K=V ...] [--boot-log FILE] [--json] [--keys] */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/redact.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../judge/laws.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "cmd.h"
#include "options.h"

static const struct cmd_help help = {
    .usage = "zealot check ENDPOINT [--set KEY=VALUE ...] [--boot-log FILE] [--json]\n"
	     "zealot check --keys [--markdown]",
    .about = "Evaluate every law of LAWS.md that the endpoint file, the payload headers\n"
	     "and the plan can decide. Each finding gives the law id, its severity, the\n"
	     "key and line, the reason in one sentence and the fix. Laws checked:\n"
	     "  C01 unknown keys (with a did-you-mean)   C02 values and empty opt-outs\n"
	     "  C03 payload and runtime files present    C04 --metrics on   C05 verbosity 4\n"
	     "  C07 presence penalty reaches argv        C08 runtime directly executable\n"
	     "  C09 no flag a key owns in EXTRA_ARGS or LLAMA_ARG_*, no API key in argv\n"
	     "  C10 the file means one thing to zealot and to systemd's EnvironmentFile=\n"
	     "  M03 pool divisible by slots              M09 the fit gate (slack band)\n"
	     "  S01 explicit pool, no --fit              S02 per-slot window <= trained context\n"
	     "  S03 quantized V needs flash attention    S04 cache types the engine accepts\n"
	     "  S05 speculative flags as one set         S06 MTP head present in the file\n"
	     "  S07 one context-backed drafter; ngram-mod on hybrids\n"
	     "  S08 ubatch <= batch                      S09 a drafter beside a tight budget\n"
	     "  S10 custom types and vendor transforms   S11 BF16 projector with slots > 1\n"
	     "  S12 adapter arch, reach and provenance   S13 network bind without a key\n"
	     "  S14 the CUDA build's quantized FA pairs  S15 the runtime's source knows the arch\n"
	     "  S16 the AMX fault: a build with AMX kernels, REPACK on and weights the AMX\n"
	     "      buffer takes (q4_0, q4_1, q8_0, q4_K, q5_K, q6_K, iq4_xs) die at warm-up\n"
	     "  S17 a tensor shape the engine's loader refuses (token_embd/output rows vs\n"
	     "      the token list, n_embd, blocks past block_count): it never boots\n"
	     "  A08 the template's effort values\n"
	     "  R01 the runtime pinned: RUNTIME_SHA256, RUNTIME_MIN_BUILD (its --version)\n"
	     "  R02 every flag zealot argv renders is in the runtime's --help\n"
	     "\n"
	     "S16 reads the runtime's build tree (CMakeCache.txt beside build/bin) and,\n"
	     "with --boot-log, the system_info line of a boot log of that runtime.\n"
	     "R01 and R02 run the runtime (--version, --help) once per binary, cached by\n"
	     "its SHA-256 under $ZEALOT_STATE_DIR/runtime/, never as root (as USER, else\n"
	     "nobody) and with an empty environment.\n",
    .examples = "  zealot check my.env\n"
		"  zealot check my.env --set PARALLEL=4\n"
		"  zealot check --keys   (every key, its default and opt-out)\n"
		"  zealot explain S03    (a law a finding cites)\n",
    .exits = "0 clean or warnings only, 1 any error, 2 usage, 3 unreadable file",
    .min_args = 0,
    .max_args = 1,
};

static void list_keys(int markdown)
{
	if (markdown) {
		char *md = keys_markdown();
		fputs(md, stdout);
		free(md);
		return;
	}
	printf("%-18s %-14s %-26s %s\n", "key", "default", "set-but-empty means", "what it is");
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		printf("%-18s %-14s %-26s %s\n", k->name, k->def ? k->def : "-", k->optout ? k->optout : "(error)",
		       k->doc);
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
	snprintf(head, sizeof(head), "%-7s %s  %s: ", severity_name(f->sev), f->law, where);
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
		json_t *o = json_pack("{s:s,s:[{s:s,s:s,s:s}],s:i,s:i}", "endpoint", path, "findings", "law", law,
				      "severity", "error", "reason", err, "errors", 1, "warnings", 0);
		cmd_print_json(o, 0);
		json_decref(o);
	} else {
		char *safe = redact_text(err);
		printf("error   %s  %s\n\n1 error, 0 warnings\n", law, safe);
		free(safe);
	}
	return EXIT_NO;
}

/* --boot-log FILE is there to be read (S16 reads it later). */
static int boot_log_readable(const char *boot_log)
{
	FILE *bl = fopen(boot_log, "r");
	if (!bl)
		return cmd_fail(EXIT_IO, "check: --boot-log: cannot open '%s': %s", boot_log, strerror(errno));
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

/* The findings: one JSON object, or a line each and the counts. */
static void print_findings(const struct endpoint *ep, const struct findings *fs, const struct shape_ctx *c,
			   const struct plan *p, size_t errors, size_t warnings, int json)
{
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "endpoint", json_string(ep->path));
		json_t *arr = json_array();
		for (size_t i = 0; i < fs->n; i++) {
			const struct finding *f = &fs->v[i];
			json_t *x = json_pack("{s:s,s:s,s:s,s:s}", "law", f->law, "severity", severity_name(f->sev),
					      "reason", f->reason, "fix", f->fix);
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
		json_object_set_new(o, "remote",
				    c->remote_reads ? json_pack("{s:I,s:I}", "requests", (json_int_t)c->remote.requests,
								"bytes", (json_int_t)c->remote.bytes)
						    : json_null());
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

int cmd_check(int argc, char **argv)
{
	struct opt_list sets = {0};
	const char *boot_log = NULL;
	int json = 0, keys = 0, markdown = 0, rc = EXIT_OK;
	const struct opt opts[] = {
	    OPT_LIST(0, "set", &sets, "KEY=VALUE", "override an endpoint key (what-if; repeatable)"),
	    OPT_STRING(0, "boot-log", &boot_log, "FILE",
		       "a boot log of the runtime: its system_info line is evidence (S16)"),
	    OPT_FLAG(0, "json", &json, "one JSON object: findings, errors, warnings"),
	    OPT_FLAG(0, "keys", &keys, "list every endpoint key with its default and opt-out"),
	    OPT_FLAG(0, "markdown", &markdown, "with --keys: the whole key table as Markdown (docs/keys.md)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("check", &help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	if (keys) {
		list_keys(markdown);
		opt_list_release(&sets);
		opt_args_release(&args);
		return EXIT_OK;
	}
	if (args.n != 1) {
		opt_list_release(&sets);
		opt_args_release(&args);
		return cmd_fail(EXIT_USAGE, "check: missing argument (usage: zealot check ENDPOINT [options])");
	}
	const char *path = args.v[0];
	char *err = NULL;
	struct findings fs = {0};
	struct shape_ctx c = {0};
	struct plan p;
	int have_plan = 0;
	enum zerr kind;
	struct endpoint *ep = endpoint_load(path, &kind, &err);
	if (!ep) {
		rc = kind != ZE_USAGE ? cmd_fail(cmd_exit(kind), "check: %s", err) : print_unparsed(path, err, json);
		goto done;
	}
	if (boot_log && (rc = boot_log_readable(boot_log)) != EXIT_OK)
		goto done;
	if (cmd_apply_sets(ep, &sets, &err)) {
		rc = cmd_fail(EXIT_USAGE, "check: %s", err);
		goto done;
	}
	laws_check(ep, NULL, NULL, LAWS_STATIC | LAWS_FILES | LAWS_RUNTIME, &fs);
	/* The payload laws and the fit need the headers; a file that is
	 * missing is already a C03 finding, one that is unreadable becomes
	 * one here, and a value that cannot be priced is already reported. */
	int io = 0;
	if (shape_load(ep, NULL, &c, &io, &err) == 0) {
		if (plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, &err) == 0)
			have_plan = 1;
	}
	if (err && (io || findings_errors(&fs) == 0) && !strstr(err, "does not exist") &&
	    !strstr(err, "No such file")) {
		add_load_finding(&fs, err, io);
		err = NULL;
	}
	struct laws_evidence ev = {boot_log};
	laws_check_with(ep, c.census ? &c : NULL, have_plan ? &p : NULL, LAWS_PAYLOAD | LAWS_FIT, &ev, &fs);
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
	opt_list_release(&sets);
	opt_args_release(&args);
	return rc;
}
