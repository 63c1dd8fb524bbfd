/* Rates per era and per arm, for history and diff: the figures of the bench
 * recorded on an era's latest boot that has one (`zealot arm` writes it),
 * and each arm's figures with its change against production's. */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../live/bench.h"
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

static json_t *delta(json_t *prod, json_t *arm)
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
				    json_is_object(prod) && json_is_object(f) ? delta(prod, f) : json_null());
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
			printf(" (%+.1f%%)", json_number_value(c));
		first = 0;
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
	}
}
