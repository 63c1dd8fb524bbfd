/* zealot history [ENDPOINT] [--json] */
#include <jansson.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../base/redact.h"
#include "../base/util.h"
#include "../store/calib.h"
#include "../store/eras.h"
#include "../store/store.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_HISTORY};

static const char *str(json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));
	return s ? s : "";
}

/* One labelled line of an era ("  reason    ..."), wrapped to the
 * terminal under its value. */
static void field(const char *label, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void field(const char *label, const char *fmt, ...)
{
	struct sb b = {0};
	char head[32];
	va_list ap;
	va_start(ap, fmt);
	sb_vaddf(&b, fmt, ap);
	va_end(ap);
	snprintf(head, sizeof(head), "  %-9s ", label);
	cmd_wrap(stdout, head, 12, b.s ? b.s : "");
	sb_release(&b);
}

static void print_boot(json_t *b, const char *indent)
{
	char d[64], head[96];
	calib_date(json_integer_value(json_object_get(b, "at")), d, sizeof(d));
	snprintf(head, sizeof(head), "%sboot %lld  %s  ", indent,
		 (long long)json_integer_value(json_object_get(b, "id")), d);
	cmd_wrap(stdout, head, strlen(indent) + 2, str(b, "source"));
	snprintf(head, sizeof(head), "%s  ", indent);
	cmd_wrap(stdout, head, strlen(head), str(b, "summary"));
}

/* A router era's members and what changed in them against the era before. */
static void print_members(json_t *ms)
{
	if (!json_is_object(ms))
		return;
	struct sb b = {0};
	size_t i, k;
	json_t *m, *c;
	json_array_foreach(json_object_get(ms, "names"), i, m) sb_addf(&b, "%s%s", i ? ", " : "", str(m, "name"));
	field("members", "%s", b.s ? b.s : "none");
	json_array_foreach(json_object_get(ms, "names"), i, m)
	{
		sb_release(&b);
		sb_addf(&b, "%s: %s; %s", str(m, "name"), str(m, "shape"), str(m, "payload"));
		field("", "%s", b.s);
	}
	json_array_foreach(json_object_get(ms, "changes"), i, m)
	{
		sb_release(&b);
		sb_addf(&b, "%s %s", str(m, "name"), str(m, "change"));
		json_array_foreach(json_object_get(m, "keys"), k, c)
		    sb_addf(&b, "%s %s %s -> %s", k ? "," : ":", str(c, "key"), str(c, "from"), str(c, "to"));
		field("", "%s", b.s);
	}
	sb_release(&b);
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
		field("reason", "%s", str(e, "reason"));
		int router = json_is_object(json_object_get(e, "members"));
		field("payload", "%s",
		      router					      ? "(a router: each member's, below)"
		      : json_is_string(json_object_get(e, "payload")) ? str(e, "payload")
								      : str(e, "keys_error"));
		const char *build = str(e, "runtime_build");
		const char *rsha = json_string_value(
		    json_object_get(json_object_get(json_object_get(e, "pins"), "RUNTIME"), "sha256"));
		char rs[40] = "";
		if (rsha)
			snprintf(rs, sizeof(rs), " sha256 %.12s...", rsha);
		field("runtime", "%s%s%s%s%s", *build ? build : "(version unknown)", *str(e, "runtime") ? " (" : "",
		      str(e, "runtime"), *str(e, "runtime") ? ")" : "", rs);
		if (!router)
			field("shape", "%s", str(e, "shape"));
		print_members(json_object_get(e, "members"));
		json_t *pl = json_object_get(e, "plan");
		if (json_is_object(pl) && json_is_number(json_object_get(pl, "total_mib")))
			field("plan", "%s MiB on the card, %s free, %s",
			      FMT_MIB(json_number_value(json_object_get(pl, "total_mib"))),
			      FMT_MIB(json_number_value(json_object_get(pl, "free_mib"))), str(pl, "verdict"));
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
			field("rollback", "%s  (to era %lld:%s)", str(rb, "command"),
			      (long long)json_integer_value(json_object_get(rb, "to")), k.len ? k.s : " the same keys");
			sb_release(&k);
		} else {
			field("rollback", "- (the first era)");
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
					field(j || k ? "" : "answers", "%s: '%s' -> '%s'",
					      json_is_string(rf) ? "inconclusive"
					      : json_is_true(rf) ? "refused"
								 : "answered",
					      str(q, "prompt"), str(q, "answer"));
				}
			} else {
				field(j ? "" : "answers", "%s: '%s'%s%s%s", str(b, "name"), str(b, "answer"),
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
			struct sb h = {0};
			char head[96];
			snprintf(head, sizeof(head), "  %lld  %s  ",
				 (long long)json_integer_value(json_object_get(e, "id")), d);
			sb_addf(&h, "%s %s: %s", str(e, "kind"), str(e, "endpoint"), str(e, "outcome"));
			json_int_t era = json_integer_value(json_object_get(e, "era_id"));
			if (era)
				sb_addf(&h, " (era %lld)", (long long)era);
			if (*str(e, "reason"))
				sb_addf(&h, "  \"%s\"", str(e, "reason"));
			cmd_wrap(stdout, head, 6, h.s);
			sb_release(&h);
			size_t j;
			json_t *s;
			json_array_foreach(json_object_get(e, "steps"), j, s)
			{
				char sh[64];
				snprintf(sh, sizeof(sh), "      %-10s %-8s %7.2f s  ", str(s, "step"), str(s, "status"),
					 json_number_value(json_object_get(s, "seconds")));
				if (*str(s, "detail"))
					cmd_wrap(stdout, sh, 8, str(s, "detail"));
				else
					printf("%.*s\n", (int)(strlen(sh) - 2), sh);
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
		json_t *mj = ej ? eras_members_json(st, &e[i], prev, err) : NULL;
		if (mj)
			json_object_set_new(ej, "members", mj);
		if (ej && (!mj || cmd_rates_era(st, ej, e[i].id, err))) {
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

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	char *err = NULL, *name = NULL;
	struct store *st = NULL;
	json_t *out = json_pack("{s:[],s:[],s:[]}", "eras", "boots", "attempts");
	if ((rc = cmd_exit(eras_find(args->n ? args->v[0] : NULL, &name, &st, &err))) != EXIT_OK)
		goto done;
	if (st && collect(st, name, out, &err)) {
		rc = cmd_exit(ZE_IO);
		goto done;
	}
	/* the stored endpoint text keeps what rollback restores; what is shown
	 * holds no secret (a URL's userinfo, a secret's value) */
	redact_json(out, NULL);
	if (opt_json) {
		cmd_print_json(out, 12);
	} else {
		print_text(out, name, st ? store_path(st) : NULL);
	}
done:
	free(name);
	json_decref(out);
	store_close(st);
	return cmd_end("history", rc, err);
}

const struct command cmd_history = {"history", &help, opt_json_only, run, NULL};
