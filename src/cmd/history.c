/* zealot history [ENDPOINT] [--json] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/redact.h"
#include "../base/util.h"
#include "../store/calib.h"
#include "../store/eras.h"
#include "../store/store.h"
#include "cmd.h"
#include "options.h"

static const struct cmd_help help = {
    .usage = "zealot history [ENDPOINT] [--json]",
    .about = "Every era an endpoint has served, oldest first, from the store\n"
	     "($ZEALOT_STATE_DIR/zealot.db): its id (what `zealot rollback` and `zealot\n"
	     "diff` take), window, payload (file, bytes, sha256), runtime build, shape,\n"
	     "the reason it was deployed, and how to roll back to the era before it (the\n"
	     "command and the key lines that change). Under each era, its boots: the\n"
	     "ledger (KV, compute per buffer, draft), settled memory, probe results and\n"
	     "bench figures. Then the boots recorded from logs (`zealot ledger LOG\n"
	     "--record ENDPOINT`, law M08) and every deploy or rollback attempt with its\n"
	     "steps and outcome: deployed, refused, rolled-back, failed (a first deploy\n"
	     "that failed after install: its files removed), rollback-failed,\n"
	     "running, or interrupted (it never ended and nobody holds its lock).\n"
	     "\n"
	     "ENDPOINT is a name or an endpoint file (its name is the file's, without\n"
	     ".env); without it, every endpoint.\n"
	     "\n"
	     "--json: {\"eras\": [{\"id\", \"endpoint\", \"started\", \"ended\" (0 while\n"
	     "current), \"current\", \"window\", \"reason\", \"keys\" (the endpoint file's\n"
	     "keys), \"env_sha256\", \"endpoint_path\", \"payload\", \"pins\", \"runtime\",\n"
	     "\"runtime_version\", \"runtime_build\", \"argv\", \"unit_name\", \"shape\", \"plan\"\n"
	     "({total_mib, free_mib, verdict} or null), \"rollback\" ({to,\n"
	     "runtime_changed, runtime_sha256, keys: [{key, from, to, from_set,\n"
	     "to_set}] the key lines that take this era back to the one before it,\n"
	     "command} or null), \"boots\" [...]}], \"boots\": [boots recorded outside a\n"
	     "deploy],\n"
	     "\"attempts\": [{\"id\", \"endpoint\", \"kind\", \"reason\", \"outcome\",\n"
	     "\"started\", \"ended\", \"era_id\", \"pid\", \"steps\": [{\"step\", \"status\",\n"
	     "\"seconds\", \"detail\"}]}]}, each list oldest first. A boot: {\"id\",\n"
	     "\"era_id\", \"at\", \"source\", \"runtime\", \"runtime_version\", \"device\",\n"
	     "\"payload_sha256\", \"payload_bytes\", \"settled_used_mib\", \"summary\",\n"
	     "\"ledger\" (zealot ledger --json), \"probes\", \"bench\"}. An era's \"answers\"\n"
	     "(null when none) are its behaviour baseline: [{\"name\", \"status\",\n"
	     "\"expected\", \"answer\", \"prompts\" (the refusal probe's: [{\"prompt\",\n"
	     "\"answer\", \"refused\"}])}], from `zealot probe --record` or else its\n"
	     "latest deploy's probes (\"answers_source\" says which). An era's \"rates\"\n"
	     "are the figures of its latest boot with a bench ({boot, at, source,\n"
	     "figures: {prefill_tps, decode_tps, decode_tps_timings, decode_tps_metrics,\n"
	     "draft_acceptance, prefill_tps@N ...}} or null), and its \"arms\" the\n"
	     "candidates `zealot arm` benched against it: [{id, at, keys, reason, boot,\n"
	     "rates: {figures}, delta: {figure: change in % against production's figures\n"
	     "of the same window}}]. Times are unix seconds.\n",
    .exits = "0 (also when nothing is recorded), 2 usage, 3 the store cannot be read",
    .min_args = 0,
    .max_args = 1,
};

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

static void print_boot(json_t *b, const char *indent)
{
	char d[64];
	calib_date(json_integer_value(json_object_get(b, "at")), d, sizeof(d));
	printf("%sboot %lld  %s  %s\n%s  %s\n", indent, (long long)json_integer_value(json_object_get(b, "id")), d,
	       str(b, "source"), indent, str(b, "summary"));
}

static void print_text(json_t *out, const char *name, const char *db)
{
	json_t *eras = json_object_get(out, "eras");
	json_t *boots = json_object_get(out, "boots");
	json_t *atts = json_object_get(out, "attempts");
	printf("history of %s (%s)\n", name ? name : "every endpoint", db ? db : "no store yet");
	if (!json_array_size(eras))
		printf("\nno eras recorded%s\n", name ? " for this endpoint" : "");
	size_t i;
	json_t *e;
	json_array_foreach(eras, i, e)
	{
		printf("\nera %lld  %s  %s\n", (long long)json_integer_value(json_object_get(e, "id")),
		       str(e, "endpoint"), str(e, "window"));
		printf("  %-9s %s\n", "reason", str(e, "reason"));
		printf("  %-9s %s\n", "payload",
		       json_is_string(json_object_get(e, "payload")) ? str(e, "payload") : str(e, "keys_error"));
		const char *build = str(e, "runtime_build");
		const char *rsha = json_string_value(
		    json_object_get(json_object_get(json_object_get(e, "pins"), "RUNTIME"), "sha256"));
		printf("  %-9s %s%s%s%s", "runtime", *build ? build : "(version unknown)",
		       *str(e, "runtime") ? " (" : "", str(e, "runtime"), *str(e, "runtime") ? ")" : "");
		if (rsha)
			printf(" sha256 %.12s...", rsha);
		printf("\n");
		printf("  %-9s %s\n", "shape", str(e, "shape"));
		json_t *pl = json_object_get(e, "plan");
		if (json_is_object(pl) && json_is_number(json_object_get(pl, "total_mib")))
			printf("  %-9s %.2f MiB on the card, %.2f free, %s\n", "plan",
			       json_number_value(json_object_get(pl, "total_mib")),
			       json_number_value(json_object_get(pl, "free_mib")), str(pl, "verdict"));
		json_t *rb = json_object_get(e, "rollback");
		if (json_is_object(rb)) {
			struct sb k = {0};
			size_t j;
			json_t *v;
			json_array_foreach(json_object_get(rb, "keys"), j, v)
			{
				if (json_is_true(json_object_get(v, "to_set")))
					sb_addf(&k, " %s=%s", str(v, "key"), str(v, "to"));
				else
					sb_addf(&k, " %s unset", str(v, "key"));
			}
			if (json_is_true(json_object_get(rb, "runtime_changed")))
				sb_addf(&k, " runtime sha256 %.12s...", str(rb, "runtime_sha256"));
			printf("  %-9s %s  (to era %lld:%s)\n", "rollback", str(rb, "command"),
			       (long long)json_integer_value(json_object_get(rb, "to")),
			       k.len ? k.s : " the same keys");
			sb_release(&k);
		} else {
			printf("  %-9s - (the first era)\n", "rollback");
		}
		size_t j;
		json_t *b;
		json_array_foreach(json_object_get(e, "answers"), j, b)
		{
			if (json_is_array(json_object_get(b, "prompts"))) {
				size_t k;
				json_t *q;
				json_array_foreach(json_object_get(b, "prompts"), k, q)
				{
					json_t *rf = json_object_get(q, "refused");
					printf("  %-9s %s: '%s' -> '%s'\n", j || k ? "" : "answers",
					       json_is_string(rf) ? "inconclusive"
					       : json_is_true(rf) ? "refused"
								  : "answered",
					       str(q, "prompt"), str(q, "answer"));
				}
			} else {
				printf("  %-9s %s: '%s'%s%s%s\n", j ? "" : "answers", str(b, "name"), str(b, "answer"),
				       json_is_string(json_object_get(b, "expected")) ? " (expected '" : "",
				       str(b, "expected"), json_is_string(json_object_get(b, "expected")) ? "')" : "");
			}
		}
		cmd_rates_print(e, "  ");
		json_array_foreach(json_object_get(e, "boots"), j, b) print_boot(b, "  ");
	}
	if (json_array_size(boots)) {
		printf("\nboots recorded from logs (zealot ledger --record):\n");
		json_array_foreach(boots, i, e) print_boot(e, "  ");
	}
	if (json_array_size(atts)) {
		printf("\nattempts:\n");
		json_array_foreach(atts, i, e)
		{
			char d[64];
			calib_date(json_integer_value(json_object_get(e, "started")), d, sizeof(d));
			printf("  %lld  %s  %s %s: %s", (long long)json_integer_value(json_object_get(e, "id")), d,
			       str(e, "kind"), str(e, "endpoint"), str(e, "outcome"));
			json_int_t era = json_integer_value(json_object_get(e, "era_id"));
			if (era)
				printf(" (era %lld)", (long long)era);
			if (*str(e, "reason"))
				printf("  \"%s\"", str(e, "reason"));
			printf("\n");
			size_t j;
			json_t *s;
			json_array_foreach(json_object_get(e, "steps"), j, s)
			{
				printf("      %-10s %-8s %7.2f s", str(s, "step"), str(s, "status"),
				       json_number_value(json_object_get(s, "seconds")));
				if (*str(s, "detail"))
					printf("  %s", str(s, "detail"));
				printf("\n");
			}
		}
	}
}

/* Every string of j through the one redaction (a member's value by its
 * member's name, so "keys" hide a secret key's value). */
static void redact_json(json_t *j, const char *name)
{
	if (json_is_string(j)) {
		char *r = redact_value(name, json_string_value(j));
		json_string_set(j, r);
		free(r);
	} else if (json_is_array(j)) {
		for (size_t i = 0; i < json_array_size(j); i++)
			redact_json(json_array_get(j, i), NULL);
	} else if (json_is_object(j)) {
		const char *k;
		json_t *v;
		json_object_foreach(j, k, v) redact_json(v, k);
	}
}

/* The eras (each with the one before it), the boots outside a deploy and
 * the attempts of name (NULL: every endpoint) into out. 0, or -1 with *err. */
static int collect(struct store *st, const char *name, json_t *out, char **err)
{
	struct store_era *e;
	size_t n;
	if (store_era_list(st, name, &e, &n, err))
		return -1;
	for (size_t i = 0; i < n; i++) {
		const struct store_era *prev = NULL;
		for (size_t j = i; j-- > 0;)
			if (strcmp(e[j].endpoint, e[i].endpoint) == 0) {
				prev = &e[j];
				break;
			}
		json_t *ej = eras_era_json(st, &e[i], prev, err);
		if (ej && cmd_rates_era(st, ej, e[i].id, err)) {
			json_decref(ej);
			ej = NULL;
		}
		if (!ej) {
			store_eras_free(e, n);
			return -1;
		}
		json_array_append_new(json_object_get(out, "eras"), ej);
	}
	store_eras_free(e, n);
	struct store_boot *b;
	if (store_boot_list_endpoint(st, name, &b, &n, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		if (b[i].era_id == 0)
			json_array_append_new(json_object_get(out, "boots"), eras_boot_json(&b[i]));
	store_boots_free(b, n);
	struct store_attempt *a;
	if (store_attempt_list(st, name, &a, &n, err))
		return -1;
	for (size_t i = 0; i < n; i++)
		json_array_append_new(json_object_get(out, "attempts"), eras_attempt_json(&a[i]));
	store_attempts_free(a, n);
	return 0;
}

int cmd_history(int argc, char **argv)
{
	int json = 0, rc = EXIT_OK;
	const struct opt opts[] = {
	    OPT_FLAG(0, "json", &json, "one JSON object (see above)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("history", &help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	char *err = NULL, *name = args.n ? eras_name(args.v[0]) : NULL;
	struct store *st = NULL;
	json_t *out = json_pack("{s:[],s:[],s:[]}", "eras", "boots", "attempts");
	if (name && store_name_ok(name, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (eras_open(&st, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	if (st && collect(st, name, out, &err)) {
		rc = EXIT_IO;
		goto done;
	}
	/* the stored endpoint text keeps what rollback restores; what is shown
	 * holds no secret (a URL's userinfo, a secret's value) */
	redact_json(out, NULL);
	if (json) {
		char *s = json_dumps(out, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
		puts(s);
		free(s);
	} else {
		print_text(out, name, st ? store_path(st) : NULL);
	}
done:
	if (err)
		cmd_fail(rc, "history: %s", err);
	free(err);
	free(name);
	json_decref(out);
	store_close(st);
	opt_args_release(&args);
	return rc;
}
