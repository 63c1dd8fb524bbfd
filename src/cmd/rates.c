/* Rates per era and per arm, for history and diff: the figures of the bench
 * recorded on an era's latest boot that has one (`zealot arm` writes it),
 * and each arm's figures with its change against production's. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../live/bench.h"
#include "../plan/cand.h"
#include "../plan/rate.h"
#include "../store/calib.h"
#include "../store/eras.h"
#include "../store/store.h"
#include "cmd.h"

json_t *cmd_rates_figures(const char *bench_json)
{
	json_t *b = bench_json ? json_loads(bench_json, 0, NULL) : NULL;
	struct bench_figure f[32];
	size_t n = b ? bench_figures(b, f, 32) : 0;
	json_decref(b);
	if (!n)
		return json_null();
	json_t *o = json_object();
	for (size_t i = 0; i < n; i++)
		json_object_set_new(o, f[i].name, json_real(f[i].value));
	return o;
}

const char *cmd_change_word(const char *figure, double pct)
{
	int rate = strstr(figure, "_tps") != NULL;
	if (pct > 0)
		return rate ? "faster" : "higher";
	if (pct < 0)
		return rate ? "slower" : "lower";
	return "the same";
}

json_t *cmd_rates_delta(json_t *prod, json_t *arm)
{
	json_t *d = json_object();
	const char *k;
	json_t *v;
	json_object_foreach(arm, k, v)
	{
		double p = json_number_value(json_object_get(prod, k));
		if (json_is_number(json_object_get(prod, k)) && p != 0)
			json_object_set_new(d, k, json_real((json_number_value(v) - p) * 100.0 / p));
	}
	return d;
}

/* The arm's memory census (zealot arm keeps it in the arm's figures:
 * {ledger, ledger_law, memory}), or null for an arm recorded before it. */
static json_t *arm_census(const char *bench_json)
{
	json_t *b = bench_json ? json_loads(bench_json, 0, NULL) : NULL;
	json_t *c = json_object_get(b, "census");
	json_t *o = json_is_object(c) ? json_incref(c) : json_null();
	json_decref(b);
	return o;
}

int cmd_rates_era(struct store *st, json_t *era, int64_t era_id, char **err)
{
	struct store_boot *b;
	size_t n;
	if (store_boot_list(st, era_id, &b, &n, err))
		return -1;
	json_t *rates = json_null();
	for (size_t i = n; i-- > 0 && json_is_null(rates);)
		if (b[i].bench_json) {
			json_t *f = cmd_rates_figures(b[i].bench_json);
			if (!json_is_null(f))
				rates = json_pack("{s:I,s:I,s:s,s:o}", "boot", (json_int_t)b[i].id, "at",
						  (json_int_t)b[i].at, "source", b[i].source ? b[i].source : "",
						  "figures", f);
		}
	store_boots_free(b, n);
	json_object_set_new(era, "rates", rates);
	struct store_arm *a;
	const char *name = json_string_value(json_object_get(era, "endpoint"));
	if (store_arm_list(st, name, &a, &n, err))
		return -1;
	json_t *arms = json_array();
	for (size_t i = 0; i < n; i++) {
		if (a[i].era_id != era_id)
			continue;
		json_t *f = cmd_rates_figures(a[i].bench_json);
		json_t *keys = json_loads(a[i].keys_json, 0, NULL);
		/* against production's figures of the same window (its boot) */
		json_t *prod = json_null();
		struct store_boot pb;
		if (a[i].boot_id && store_boot_get(st, a[i].boot_id, &pb, NULL) == 0) {
			json_decref(prod);
			prod = cmd_rates_figures(pb.bench_json);
			store_boot_release(&pb);
		}
		json_t *o = json_pack("{s:I,s:I,s:o,s:s,s:I}", "id", (json_int_t)a[i].id, "at", (json_int_t)a[i].at,
				      "keys", keys ? keys : json_object(), "reason", a[i].reason ? a[i].reason : "",
				      "boot", (json_int_t)a[i].boot_id);
		json_object_set_new(o, "rates", json_is_null(f) ? json_null() : json_pack("{s:O}", "figures", f));
		json_object_set_new(o, "delta",
				    json_is_object(prod) && json_is_object(f) ? cmd_rates_delta(prod, f) : json_null());
		json_object_set_new(o, "census", arm_census(a[i].bench_json));
		json_decref(f);
		json_decref(prod);
		json_array_append_new(arms, o);
	}
	store_arms_free(a, n);
	json_object_set_new(era, "arms", arms);
	return 0;
}

static void print_figures(json_t *f, json_t *d)
{
	const char *k;
	json_t *v;
	int first = 1;
	json_object_foreach(f, k, v)
	{
		json_t *c = d ? json_object_get(d, k) : NULL;
		printf("%s%s %.1f", first ? "" : ", ", k, json_number_value(v));
		if (json_is_number(c))
			printf(" (%+.1f%%, %s)", json_number_value(c), cmd_change_word(k, json_number_value(c)));
		first = 0;
	}
	printf("\n");
}

/* "census    ledger matches the plan; host plan 34.81, held 65.00 (+30.19 MiB)" */
static void print_census(json_t *c, const char *indent)
{
	if (!json_is_object(c))
		return;
	const char *law = json_string_value(json_object_get(c, "ledger_law"));
	printf("%s%-9s ledger %s%s", indent, "census", law ? "off the plan, " : "matches the plan", law ? law : "");
	size_t i;
	json_t *r;
	json_array_foreach(json_object_get(json_object_get(c, "memory"), "rows"), i, r)
	{
		json_t *held = json_object_get(r, "settled_mib");
		printf("; %s plan %s", json_string_value(json_object_get(r, "what")),
		       FMT_MIB(json_number_value(json_object_get(r, "plan_mib"))));
		if (json_is_number(held))
			printf(", held %s (%s MiB)", FMT_MIB(json_number_value(held)),
			       FMT_MIB_PLUS(json_number_value(json_object_get(r, "diff_mib"))));
		if (json_is_string(json_object_get(r, "law")))
			printf(" %s", json_string_value(json_object_get(r, "law")));
	}
	printf("\n");
}

void cmd_rates_print(json_t *era, const char *indent)
{
	json_t *r = json_object_get(era, "rates");
	if (json_is_object(r)) {
		printf("%s%-9s (boot %lld) ", indent, "rates",
		       (long long)json_integer_value(json_object_get(r, "boot")));
		print_figures(json_object_get(r, "figures"), NULL);
	}
	size_t i;
	json_t *a;
	json_array_foreach(json_object_get(era, "arms"), i, a)
	{
		printf("%sarm %-5lld", indent, (long long)json_integer_value(json_object_get(a, "id")));
		const char *k;
		json_t *v;
		json_object_foreach(json_object_get(a, "keys"), k, v) printf(" %s=%s", k, json_string_value(v));
		printf("  \"%s\"\n%s%-9s ", json_string_value(json_object_get(a, "reason")), indent, "");
		json_t *f = json_object_get(json_object_get(a, "rates"), "figures");
		if (json_is_object(f))
			print_figures(f, json_object_get(a, "delta"));
		else
			printf("(not measured)\n");
		print_census(json_object_get(a, "census"), indent);
	}
}

/* The per-position acceptance a whose expected accepted run over a depth
 * of n, (a + a^2 + ... + a^n) / n, is the recorded share r (bisection: it
 * grows with a). */
static double per_position(double r, uint32_t n)
{
	if (n <= 1)
		return r;
	double lo = 0, hi = 1;
	for (int i = 0; i < 60; i++) {
		double a = (lo + hi) / 2, term = 1, sum = 0;
		for (uint32_t k = 0; k < n; k++) {
			term *= a;
			sum += term;
		}
		if (sum / n < r)
			lo = a;
		else
			hi = a;
	}
	return (lo + hi) / 2;
}

int cmd_rates_recorded(const char *name, uint32_t depth, struct cmd_recorded *out)
{
	memset(out, 0, sizeof(*out));
	out->accept = -1;
	struct store *st = NULL;
	char *err = NULL;
	if (!name || eras_open(&st, &err) || !st) {
		free(err);
		return 0;
	}
	struct store_era e;
	struct store_boot *b = NULL;
	size_t n = 0;
	if (store_era_get(st, name, 0, &e, NULL) == 0) {
		out->era = e.id;
		if (store_boot_list(st, e.id, &b, &n, NULL) == 0)
			for (size_t i = n; i-- > 0 && !out->boot;) {
				json_t *j = b[i].bench_json ? json_loads(b[i].bench_json, 0, NULL) : NULL;
				double dec =
				    json_number_value(json_object_get(json_object_get(j, "decode_tps"), "median"));
				if (dec > 0) {
					out->boot = b[i].id;
					out->at = b[i].at;
					out->decode_tps = dec;
					json_t *d = json_object_get(j, "draft");
					out->drafted = (long long)json_integer_value(json_object_get(d, "drafted"));
					out->accepted = (long long)json_integer_value(json_object_get(d, "accepted"));
					if (out->drafted > 0)
						out->accept =
						    per_position((double)out->accepted / (double)out->drafted, depth);
				}
				json_decref(j);
			}
		store_boots_free(b, n);
	}
	store_era_release(&e);
	store_close(st);
	free(err);
	return out->boot > 0;
}

json_t *cmd_rates_used(const struct cmd_recorded *r, double accept, int accept_given)
{
	json_t *o = json_object();
	int rec = !accept_given && r->accept >= 0;
	json_object_set_new(o, "accept", json_real(accept));
	json_object_set_new(o, "accept_source",
			    json_string(accept_given ? "--accept"
					: rec	     ? "recorded"
						     : "default (the seeds' 2.41)"));
	json_object_set_new(o, "recorded_boot", r->boot ? json_integer(r->boot) : json_null());
	json_object_set_new(o, "recorded_decode_tps", r->boot ? json_real(r->decode_tps) : json_null());
	json_object_set_new(o, "recorded_drafted", r->boot && r->drafted ? json_integer(r->drafted) : json_null());
	json_object_set_new(o, "recorded_accepted", r->boot && r->drafted ? json_integer(r->accepted) : json_null());
	return o;
}

void cmd_rates_used_line(const struct cmd_recorded *r, double accept, int accept_given)
{
	char d[64] = "";
	if (r->boot)
		calib_date(r->at, d, sizeof(d));
	if (accept_given)
		printf("rates: the byte model, acceptance %.3f per draft position (--accept)", accept);
	else if (r->accept >= 0)
		printf(
		    "rates: the byte model with the recorded acceptance %.3f per draft position (boot %lld of %s: %lld "
		    "of %lld drafted tokens accepted)",
		    accept, (long long)r->boot, d, r->accepted, r->drafted);
	else
		printf("rates: the byte model, acceptance %.3f per draft position (the seeds' default: none recorded)",
		       accept);
	if (r->boot)
		printf(
		    "; measured decode at era %lld's shape: %.1f t/s (boot %lld, zealot arm), each change scales it by "
		    "its ratio",
		    (long long)r->era, r->decode_tps, (long long)r->boot);
	printf("\n");
}

double cmd_rates_accept(const char *name, uint32_t depth, double accept, struct cmd_recorded *rec)
{
	cmd_rates_recorded(name, depth, rec);
	if (!isnan(accept))
		return accept;
	return rec->accept >= 0 ? rec->accept : RATE_ACCEPT_DEFAULT;
}

int cmd_rate_check(const struct rate_opts *r, char **err)
{
	if (!isnan(r->accept) && (r->accept < 0 || r->accept > 1))
		return errorf(err, "--accept %g: a probability, 0 to 1", r->accept);
	if (r->host_bw_gbs < 0)
		return errorf(err, "--host-bw %g: a bandwidth in GB/s, above 0", r->host_bw_gbs);
	return 0;
}

void cmd_measured_load(const char *name, struct cmd_measured *m)
{
	memset(m, 0, sizeof(*m));
	struct store *st = NULL;
	char *err = NULL;
	struct store_era e;
	if (!name || eras_open(&st, &err) || !st || store_era_get(st, name, 0, &e, NULL)) {
		store_close(st);
		free(err);
		return;
	}
	m->era = e.id;
	json_t *era = json_pack("{s:s}", "endpoint", name), *a;
	size_t i;
	if (cmd_rates_era(st, era, e.id, NULL) == 0)
		json_array_foreach(json_object_get(era, "arms"), i, a)
		{
			json_t *d = json_object_get(json_object_get(a, "delta"), "decode_tps");
			if (!json_is_number(d))
				continue;
			m->v = xreallocarray(m->v, m->n + 1, sizeof(*m->v));
			m->v[m->n++] =
			    (struct cmd_measured_arm){(int64_t)json_integer_value(json_object_get(a, "id")),
						      json_incref(json_object_get(a, "keys")), json_number_value(d)};
		}
	json_decref(era);
	store_era_release(&e);
	store_close(st);
	free(err);
}

void cmd_measured_release(struct cmd_measured *m)
{
	for (size_t i = 0; i < m->n; i++)
		json_decref(m->v[i].keys);
	free(m->v);
	memset(m, 0, sizeof(*m));
}

/* The value key has in ep ("" unset); NULL ep: none equals. */
static int same_as_endpoint(const struct endpoint *ep, enum key_id key, const char *val)
{
	const char *v = ep ? endpoint_value(ep, key) : NULL;
	return ep && strcmp(v ? v : "", val) == 0;
}

const struct cmd_measured_arm *cmd_measured_for(const struct cmd_measured *m, const struct endpoint *ep,
						const struct cand *keys)
{
	const struct cmd_measured_arm *hit = NULL;
	for (size_t i = 0; m && i < m->n; i++) {
		size_t changed = 0;
		int same = 1;
		for (unsigned k = 0; same && k < keys->n; k++) {
			/* the window is no rate key: decode is priced at a fill */
			if (keys->key[k] == K_CTX_SIZE || same_as_endpoint(ep, keys->key[k], keys->val[k]))
				continue;
			const char *v = json_string_value(json_object_get(m->v[i].keys, key_name(keys->key[k])));
			same = v && strcmp(v, keys->val[k]) == 0;
			changed++;
		}
		if (same && changed && json_object_size(m->v[i].keys) == changed)
			hit = &m->v[i]; /* the latest arm of that change */
	}
	return hit;
}

json_t *cmd_measured_json(const struct cmd_measured *m, const struct endpoint *ep, const struct cand *keys,
			  double ratio)
{
	const struct cmd_measured_arm *a = cmd_measured_for(m, ep, keys);
	double model = round((ratio - 1) * 1000) / 10;
	if (!a)
		return json_pack("{s:s,s:f,s:n,s:n,s:n}", "source", "byte model", "model_pct", model, "measured_pct",
				 "arm", "off_points");
	double got = round(a->decode_pct * 10) / 10;
	return json_pack("{s:s,s:f,s:f,s:I,s:f}", "source", "arm", "model_pct", model, "measured_pct", got, "arm",
			 (json_int_t)a->id, "off_points", round((model - got) * 10) / 10);
}

const char *cmd_measured_cell(const struct cmd_measured *m, const struct endpoint *ep, const struct cand *keys,
			      double ratio, char *buf, size_t n)
{
	const struct cmd_measured_arm *a = cmd_measured_for(m, ep, keys);
	if (a)
		snprintf(buf, n, "%+.1f %% m", a->decode_pct);
	else
		snprintf(buf, n, "%+.1f %%", (ratio - 1) * 100);
	return buf;
}

void cmd_measured_line(const char *head, const struct cmd_measured *m, const struct endpoint *ep,
		       const struct cand *keys, double ratio)
{
	const struct cmd_measured_arm *a = cmd_measured_for(m, ep, keys);
	if (!a)
		return;
	double model = (ratio - 1) * 100;
	char text[256];
	snprintf(text, sizeof(text),
		 "decode %+.1f %% measured by arm %lld of era %lld (zealot arm's bench, against production in the same "
		 "window); the byte model said %+.1f %%: %.1f points off",
		 a->decode_pct, (long long)a->id, (long long)m->era, model, fabs(model - a->decode_pct));
	cmd_wrap(stdout, head, strlen(head), text);
}

void cmd_measured_note(const struct cmd_measured *m)
{
	if (m->n)
		printf("measured: a decode marked m is zealot arm's: %zu change%s benched on era %lld, each against "
		       "production in the same window\n",
		       m->n, m->n == 1 ? "" : "s", (long long)m->era);
}
