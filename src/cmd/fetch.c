/* zealot fetch ENDPOINT [--verify-only] [-f] [--pin] [--json] */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/redact.h"
#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../fetch/fetch.h"
#include "../judge/runtime.h"
#include "../payload/pin.h"
#include "../store/eras.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_FETCH};

struct ui {
	int json, tty;
	int shown; /* a progress line is on the terminal */
};

static const char *event_name(enum fetch_event_kind k)
{
	switch (k) {
	case FETCH_EV_START: return "start";
	case FETCH_EV_PROGRESS: return "progress";
	case FETCH_EV_RESTART: return "restart";
	case FETCH_EV_RETRY: return "retry";
	case FETCH_EV_CONNECTIONS: return "connections";
	}
	return "event";
}

static void emit_json(json_t *o)
{
	char *raw = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
	char *s = redact_text(raw); /* a URL's password never reaches the events */
	free(raw);
	puts(s);
	fflush(stdout);
	free(s);
	json_decref(o);
}

static json_t *file_json(const struct fetch_file *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(f->kind));
	json_object_set_new(o, "file", json_string(f->path));
	if (f->n_shards > 1) {
		json_object_set_new(o, "shard", json_integer(f->shard));
		json_object_set_new(o, "shards", json_integer(f->n_shards));
	}
	return o;
}

static void merge(json_t *o, json_t *add)
{
	json_object_update(o, add);
	json_decref(add);
}

static void on_event(const struct fetch_event *e, void *arg)
{
	struct ui *u = arg;
	if (u->json) {
		json_t *o = json_object();
		json_object_set_new(o, "event", json_string(event_name(e->kind)));
		merge(o, file_json(e->f));
		json_object_set_new(o, "done", json_integer((json_int_t)e->done));
		json_object_set_new(o, "total", json_integer((json_int_t)e->total));
		json_object_set_new(o, "hashed", json_integer((json_int_t)e->hashed));
		json_object_set_new(o, "rate", json_integer((json_int_t)e->rate));
		if (e->why)
			json_object_set_new(o, "why", json_string(e->why));
		emit_json(o);
		return;
	}
	if (!u->tty)
		return;
	if (e->kind == FETCH_EV_RESTART || e->kind == FETCH_EV_RETRY) {
		char *why = redact_text(e->why ? e->why : "");
		fprintf(stderr, "%s%s: %s: %s\n", u->shown ? "\n" : "", e->f->kind,
			e->kind == FETCH_EV_RESTART ? "restart" : "retry", why);
		free(why);
		u->shown = 0;
		return;
	}
	if (e->kind != FETCH_EV_PROGRESS && e->kind != FETCH_EV_START)
		return;
	char label[48];
	if (e->f->n_shards > 1)
		snprintf(label, sizeof(label), "%s %u/%u", e->f->kind, e->f->shard, e->f->n_shards);
	else
		snprintf(label, sizeof(label), "%s", e->f->kind);
	double gib = 1024.0 * 1024.0 * 1024.0;
	fprintf(stderr, "\r%-12s %8.2f / %.2f GiB", label, (double)e->done / gib, (double)e->total / gib);
	if (e->total)
		fprintf(stderr, " %3d%%", (int)(e->done * 100 / e->total));
	fprintf(stderr, "  %7.1f MiB/s", e->rate / (1024.0 * 1024.0));
	if (e->total && e->rate > 0 && e->done < e->total) {
		unsigned long eta = (unsigned long)((double)(e->total - e->done) / e->rate);
		fprintf(stderr, "  ETA %lu:%02lu:%02lu", eta / 3600, eta / 60 % 60, eta % 60);
	} else {
		fprintf(stderr, "               ");
	}
	u->shown = 1;
}

static const char *status_name(enum fetch_status s)
{
	switch (s) {
	case FETCH_VERIFIED: return "verified";
	case FETCH_UNPINNED: return "unpinned";
	case FETCH_DOWNLOADED: return "downloaded";
	case FETCH_MISMATCH: return "mismatch";
	case FETCH_MISSING: return "missing";
	case FETCH_FAILED: return "failed";
	}
	return "?";
}

/* One file's result: a JSON event or a line on stdout, and on stderr why
 * it does not verify. */
static void report_file(const struct fetch_file *f, const struct fetch_result *x, const char *e, int json,
			int verify_only)
{
	if (json) {
		json_t *o = json_object();
		json_object_set_new(o, "event", json_string("result"));
		merge(o, file_json(f));
		json_object_set_new(o, "status", json_string(status_name(x->status)));
		json_object_set_new(o, "bytes", json_integer((json_int_t)x->bytes));
		json_object_set_new(o, "sha256", x->sha[0] ? json_string(x->sha) : json_null());
		json_object_set_new(o, "pinned_bytes", f->has_bytes ? json_integer((json_int_t)f->bytes) : json_null());
		json_object_set_new(o, "pinned_sha256", f->has_sha ? json_string(f->sha) : json_null());
		json_object_set_new(o, "publisher_sha256", x->publisher[0] ? json_string(x->publisher) : json_null());
		json_object_set_new(o, "publisher_from",
				    x->publisher[0] ? json_string(x->publisher_from) : json_null());
		json_object_set_new(o, "stamp", json_boolean(x->cached));
		json_object_set_new(o, "transferred", json_integer((json_int_t)x->transferred));
		json_object_set_new(o, "requests", json_integer((json_int_t)x->requests));
		json_object_set_new(o, "rejected", x->rejected ? json_string(x->rejected) : json_null());
		if (e)
			json_object_set_new(o, "error", json_string(e));
		emit_json(o);
	} else {
		char a[32];
		int theirs = x->publisher[0] && strcmp(x->publisher, x->sha) == 0;
		printf("%-7s %-10s %s (%s bytes%s%s%s%s%s)\n", f->kind, status_name(x->status), f->path,
		       cmd_commas(x->bytes, a, sizeof(a)), x->sha[0] ? ", sha256 " : "", x->sha,
		       theirs ? ", as the server states it in " : "", theirs ? x->publisher_from : "",
		       x->cached ? ", from the stamp" : "");
	}
	if (x->status == FETCH_MISMATCH) {
		char want_b[32] = "", got_b[32];
		if (f->has_bytes)
			cmd_commas(f->bytes, want_b, sizeof(want_b));
		cmd_commas(x->bytes, got_b, sizeof(got_b));
		if (x->rejected && x->publisher[0] && strcmp(x->publisher, x->sha) != 0)
			cmd_fail(EXIT_NO,
				 "fetch: %s: the download does not match the SHA-256 the server states (%s %s): it "
				 "hashes to %s; kept as '%s' (the file in place, if any, is untouched)",
				 f->kind, x->publisher_from, x->publisher, x->sha, x->rejected);
		else if (x->rejected)
			cmd_fail(EXIT_NO,
				 "fetch: %s: the download does not match its pins: %s bytes, SHA-256 %s; %s_BYTES "
				 "%s, %s_SHA256 %s; kept as '%s' (the file in place, if any, is untouched)",
				 f->kind, got_b, x->sha, f->kind, f->has_bytes ? want_b : "unpinned", f->kind,
				 f->has_sha ? f->sha : "unpinned", x->rejected);
		else if (!e)
			cmd_fail(EXIT_NO,
				 "fetch: %s: '%s' does not match its pins: %s bytes, SHA-256 %s; %s_BYTES %s, "
				 "%s_SHA256 %s%s",
				 f->kind, f->path, got_b, x->sha[0] ? x->sha : "(not hashed)", f->kind,
				 f->has_bytes ? want_b : "unpinned", f->kind, f->has_sha ? f->sha : "unpinned",
				 verify_only ? "" : "; -f fetches a replacement (this file stays until it verifies)");
		else
			cmd_fail(EXIT_NO, "fetch: %s: %s", f->kind, e);
	} else if (x->status == FETCH_MISSING) {
		cmd_fail(EXIT_NO, "fetch: %s: '%s' is missing (--verify-only downloads nothing)", f->kind, f->path);
	}
}

/* Every file fetched (or verified) and reported as it ends; the worst
 * exit status among them. */
static int fetch_files(const struct fetch_list *l, struct fetch_result *res, int verify_only, int force,
		       const struct fetch_opts *fo, struct ui *u, uint64_t *requests, uint64_t *bytes)
{
	int worst = EXIT_OK;
	for (size_t i = 0; i < l->n; i++) {
		const struct fetch_file *f = &l->v[i];
		char *e = NULL;
		int r = fetch_one(f, verify_only, force, fo, &res[i], &e);
		*requests += res[i].requests;
		*bytes += res[i].transferred;
		if (u->shown) {
			fputc('\n', stderr);
			u->shown = 0;
		}
		report_file(f, &res[i], e, u->json, verify_only);
		if (r < 0) {
			worst = cmd_fail(cmd_exit(ZE_IO), "fetch: %s: %s", f->kind, e);
		} else if (r > 0 && worst == EXIT_OK) {
			worst = EXIT_NO;
		}
		free(e);
	}
	return worst;
}

/* The pins to add (every kind whose files were all hashed and lack one):
 * printed, and with --pin written into the file; -1 when that fails. */
static int add_pins(const struct endpoint *ep, const struct fetch_list *l, const struct fetch_result *res, int pin,
		    int json, char **err)
{
	int rc = 0;
	struct fetch_pins pins;
	fetch_pins_missing(ep, l, res, &pins);
	if (pins.n) {
		if (json) {
			for (size_t i = 0; i < pins.n; i++)
				emit_json(json_pack("{s:s,s:s,s:s,s:b}", "event", "pin", "key", pins.keys[i], "value",
						    pins.values[i], "written", pin));
		} else {
			printf("# pins for %s%s\n", ep->path, pin ? " (written)" : " (zealot fetch --pin writes them)");
			for (size_t i = 0; i < pins.n; i++)
				printf("%s=%s\n", pins.keys[i], pins.values[i]);
		}
		if (pin && fetch_pin_write(ep->path, pins.keys, pins.values, pins.anchors, pins.n, err)) {
			cmd_fail(cmd_exit(ZE_IO), "fetch: --pin: %s", *err);
			rc = -1;
		}
	}
	fetch_pins_release(&pins);
	return rc;
}

/* An era's endpoint, from the text the store recorded (its secret values
 * put back when the store keeps them): what it named is fetched even when
 * its file and payloads are gone. The era is left in *e for era_pins. */
static struct endpoint *load_era(const char *arg, uint64_t id, struct store_era *e, int *rc, char **err)
{
	char *name = NULL;
	struct store *st = NULL;
	struct endpoint *ep = NULL;
	if ((*rc = cmd_exit(eras_find(arg, &name, &st, err))) != EXIT_OK)
		goto out;
	int got = st ? store_era_get(st, name, (int64_t)id, e, err) : 1;
	*rc = got < 0 ? EXIT_IO : got ? EXIT_USAGE : EXIT_OK;
	if (got > 0)
		errorf(err, "no era %llu of '%s' is recorded (see zealot history %s)", (unsigned long long)id, name,
		       name);
	if (got)
		goto out;
	char *live =
	    e->endpoint_path && *e->endpoint_path ? read_file(e->endpoint_path, 1u << 20, 0, NULL, NULL, NULL) : NULL;
	char *lost = NULL;
	if (store_era_secrets(st, e, live, &lost)) /* a lost secret costs only what needs it */
		cmd_fail(0, "fetch: warning: era %llu: %s", (unsigned long long)id, lost);
	free(lost);
	free(live);
	if (!(ep = eras_endpoint(e, err)))
		*rc = EXIT_USAGE;
out:
	free(name);
	store_close(st);
	return ep;
}

/* Each file the era recorded is held to the size and hash its deploy
 * took, where the era's text pins nothing else. -1 with *err when the
 * text pins another hash than the record. */
static int era_pins(const struct store_era *e, struct fetch_list *l, char **err)
{
	for (size_t i = 0; i < l->n; i++) {
		struct fetch_file *f = &l->v[i];
		char key[32], sha[65], *path = NULL;
		uint64_t bytes = 0;
		snprintf(key, sizeof(key), "%s_FILE", f->kind);
		if (eras_recorded_pin(e, key, &path, &bytes, sha))
			continue;
		int same = strcmp(path, f->path) == 0;
		free(path);
		if (!same)
			continue;
		if ((f->has_sha && strcmp(f->sha, sha) != 0) || (f->has_bytes && f->bytes != bytes))
			return errorf(err,
				      "era %lld's text pins %s otherwise than its deploy recorded (%s, %llu bytes)",
				      (long long)e->id, f->kind, sha, (unsigned long long)bytes);
		f->has_sha = f->has_bytes = 1;
		memcpy(f->sha, sha, sizeof(f->sha));
		f->bytes = bytes;
	}
	return 0;
}

static int verify_only, force, pin, json;
static uint64_t connections = 4, stall = 30, connect_s = 15, era;
static const struct opt opts[] = {
    OPT_FLAG(0, "verify-only", &verify_only, "download nothing: verify the files on disk against their pins"),
    OPT_FLAG('f', "force", &force, "replace a file that does not verify (or has no pins), once the new one verifies"),
    OPT_FLAG(0, "pin", &pin, "write the missing *_BYTES / *_SHA256 pins (RUNTIME_SHA256 too) into the endpoint file"),
    OPT_FLAG(0, "json", &json, "one JSON event per line on stdout"),
    OPT_U64(0, "connections", &connections, "N", 1, 16, "parallel ranged connections per file (default 4)"),
    OPT_U64(0, "stall-timeout", &stall, "S", 1, 86400, "end a transfer after S seconds without a byte (30)"),
    OPT_U64(0, "connect-timeout", &connect_s, "S", 1, 3600, "give up connecting after S seconds (15)"),
    OPT_U64(0, "era", &era, "N", 1, INT64_MAX,
	    "fetch what era N (zealot history) named, from its recorded text, to the hashes it recorded"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	int rc = EXIT_OK;
	char *err = NULL, *token = NULL, *token_file = NULL, *stamps = NULL;
	struct fetch_list l = {0};
	struct fetch_result *res = NULL;
	struct store_era e = {0};
	if (era && pin) {
		rc = cmd_fail(EXIT_USAGE,
			      "fetch: --pin writes an endpoint file; --era %llu fetches from the store's "
			      "text, which is not one (drop --pin)",
			      (unsigned long long)era);
		return rc;
	}
	struct endpoint *ep =
	    era ? load_era(args->v[0], era, &e, &rc, &err) : cmd_load_endpoint(args->v[0], NULL, &rc, &err);
	if (!ep) {
		cmd_fail(rc, "fetch: %s", err);
		goto done;
	}
	if (fetch_list(ep, &l, &err) || (era && era_pins(&e, &l, &err))) {
		rc = cmd_fail(EXIT_USAGE, "fetch: %s", err);
		goto done;
	}
	if (!l.n) {
		rc = cmd_fail(EXIT_USAGE, "fetch: %s names no payload file (MODEL_FILE)", ep->path);
		goto done;
	}
	token_file = endpoint_path(ep, "TOKEN_FILE");
	if (!verify_only && remote_token(token_file, &token, &err)) {
		rc = cmd_fail(cmd_exit(ZE_IO), "fetch: %s", err);
		goto done;
	}
	stamps = pin_stamp_dir();
	struct ui u = {json, !json && isatty(STDERR_FILENO), 0};
	struct fetch_opts fo = {
	    .net = {.token = token, .connect_s = (long)connect_s, .stall_s = (long)stall},
	    .connections = (unsigned)connections,
	    .stamp_dir = stamps,
	    .event = on_event,
	    .arg = &u,
	};
	res = xcalloc(l.n, sizeof(*res));
	uint64_t requests = 0, bytes = 0;
	int worst = fetch_files(&l, res, verify_only, force, &fo, &u, &requests, &bytes);
	if (add_pins(ep, &l, res, pin, json, &err))
		worst = cmd_exit(ZE_IO);
	if (json)
		emit_json(json_pack("{s:s,s:i,s:{s:I,s:I}}", "event", "done", "exit", worst, "remote", "requests",
				    (json_int_t)requests, "bytes", (json_int_t)bytes));
	rc = worst;
done:
	for (size_t i = 0; res && i < l.n; i++)
		fetch_result_release(&res[i]);
	free(res);
	fetch_list_release(&l);
	if (token) {
		memset(token, 0, strlen(token));
		free(token);
	}
	free(token_file);
	free(stamps);
	free(err);
	endpoint_free(ep);
	store_era_release(&e);
	return rc;
}

const struct command cmd_fetch = {"fetch", &help, opts, run, NULL};
