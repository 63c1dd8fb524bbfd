/* What rungs, solve and plan --svg share: a plan's terms as JSON, a
 * decode prediction as JSON and words, an endpoint's shape in one line, a
 * file written whole, the device list for --help. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../plan/svg.h"
#include "../plan/terms.h"
#include "cmd.h"
#include "shapes.h"

/* Two decimals as the engine prints them. */
double cmd_r2(double mib)
{
	char buf[64];
	snprintf(buf, sizeof(buf), "%.2f", mib);
	return strtod(buf, NULL);
}

json_t *cmd_terms_json(const struct plan *p)
{
	struct term t[TERM_N];
	terms_of(p, t);
	json_t *o = json_object();
	for (int i = 0; i < TERM_N; i++)
		json_object_set_new(o, t[i].name, json_real(cmd_r2(cmd_mib(t[i].gated))));
	return o;
}

json_t *cmd_plan_summary_json(const struct plan *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "verdict", json_string(p->fits ? "fits" : "refused"));
	json_object_set_new(o, "n_ctx", json_integer(p->n_ctx));
	json_object_set_new(o, "n_ctx_seq", json_integer(p->n_ctx_seq));
	json_object_set_new(o, "n_seq", json_integer(p->n_seq));
	json_object_set_new(o, "terms", cmd_terms_json(p));
	json_object_set_new(o, "total_mib", json_real(cmd_r2(cmd_mib(p->device_total))));
	json_object_set_new(o, "host_mib", json_real(cmd_r2(cmd_mib(p->host_total))));
	json_object_set_new(o, "addressable_mib", json_real(cmd_r2(cmd_mib(p->addressable))));
	json_object_set_new(o, "free_mib", json_real(cmd_r2((double)p->free_bytes / (1024.0 * 1024.0))));
	json_object_set_new(o, "slack_mib", json_real(cmd_r2(cmd_mib(p->slack))));
	return o;
}

json_t *cmd_rate_json(const struct rate *r, double ratio)
{
	json_t *o = json_object();
	json_object_set_new(o, "fill_tokens", json_integer((json_int_t)r->fill));
	json_object_set_new(o, "bytes_per_token", json_integer((json_int_t)(r->bytes_per_token + 0.5)));
	json_object_set_new(o, "weights_mib", json_real(cmd_r2(r->weights / 1048576.0)));
	json_object_set_new(o, "kv_mib", json_real(cmd_r2(r->kv / 1048576.0)));
	json_object_set_new(o, "state_mib", json_real(cmd_r2(r->state / 1048576.0)));
	json_object_set_new(o, "draft_mib", json_real(cmd_r2(r->draft / 1048576.0)));
	json_object_set_new(o, "tokens_per_step", json_real(cmd_r2(r->tokens_per_step)));
	json_object_set_new(o, "ceiling_tps", r->tps_ceiling > 0 ? json_real(cmd_r2(r->tps_ceiling)) : json_null());
	json_object_set_new(o, "ratio", json_real(round(ratio * 10000) / 10000));
	json_object_set_new(o, "ms_per_token",
			    r->ms_per_token > 0 ? json_real(round(r->ms_per_token * 1e4) / 1e4) : json_null());
	json_object_set_new(o, "host_bw_gbs", json_real(r->host_bw_gbs));
	json_object_set_new(o, "expert_share", json_real(round(r->expert_share * 1e6) / 1e6));
	json_t *a = json_array();
	for (unsigned i = 0; i < r->n_dev; i++) {
		const struct rate_dev *d = &r->dev[i];
		json_t *x = json_object();
		json_object_set_new(x, "device", json_string(d->name));
		json_object_set_new(x, "profile", d->profile ? json_string(d->profile) : json_null());
		json_object_set_new(x, "bandwidth_gbs", json_real(d->bandwidth_gbs));
		json_object_set_new(x, "bytes_per_token", json_integer((json_int_t)(d->bytes_per_token + 0.5)));
		json_object_set_new(x, "weights_mib", json_real(cmd_r2(d->weights / 1048576.0)));
		json_object_set_new(x, "kv_mib", json_real(cmd_r2(d->kv / 1048576.0)));
		json_object_set_new(x, "state_mib", json_real(cmd_r2(d->state / 1048576.0)));
		json_object_set_new(x, "draft_mib", json_real(cmd_r2(d->draft / 1048576.0)));
		json_object_set_new(x, "ms_per_token", json_real(round(d->ms_per_token * 1e4) / 1e4));
		json_array_append_new(a, x);
	}
	json_object_set_new(o, "devices", a);
	return o;
}

json_t *cmd_keys_json(const struct cand *c)
{
	json_t *o = json_object();
	for (unsigned i = 0; i < c->n; i++)
		json_object_set_new(o, key_name(c->key[i]), json_string(c->val[i]));
	return o;
}

void cmd_print_json(json_t *o)
{
	char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	puts(s);
	free(s);
}

int cmd_write_file(const char *path, const char *text, char **err)
{
	char *tmp = NULL;
	struct sb b = {0};
	sb_addf(&b, "%s.tmp", path);
	tmp = sb_detach(&b);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		errorf(err, "cannot write '%s': %s", tmp, strerror(errno));
		free(tmp);
		return -1;
	}
	size_t n = strlen(text);
	int bad = fwrite(text, 1, n, f) != n;
	bad |= fclose(f) != 0;
	if (bad || rename(tmp, path) != 0) {
		errorf(err, "cannot write '%s': %s", path, strerror(errno));
		remove(tmp);
		free(tmp);
		return -1;
	}
	free(tmp);
	return 0;
}

void cmd_shape_line(const struct plan *p, const struct plan_shape *s, char *buf, size_t n)
{
	char w[32];
	snprintf(buf, n, "%u x %s tokens, %s K + %s V, %s, ubatch %u", p->n_seq, cmd_commas(p->n_ctx_seq, w, sizeof(w)),
		 s->type_k->name, s->type_v->name, p->has_draft ? "MTP drafter armed" : "no drafter", s->n_ubatch);
}

int cmd_plan_svg(const char *path, const char *name, const struct plan *p, const struct plan_shape *s, char **err)
{
	char line[256];
	struct sb t = {0};
	cmd_shape_line(p, s, line, sizeof(line));
	sb_addf(&t, "%s on %s: %s", name, p->device->name, line);
	char *svg = svg_plan(t.s, p);
	int rc = cmd_write_file(path, svg, err);
	free(svg);
	sb_release(&t);
	return rc;
}

void cmd_devices(FILE *f)
{
	fprintf(f, "devices:\n");
	for (unsigned i = 0; i < device_n_profiles; i++) {
		const struct device *d = &device_profiles[i];
		if (d->backend == DEVICE_CPU)
			fprintf(f, "  %-14s %s\n", d->name, d->note);
		else
			fprintf(f, "  %-14s %6llu MiB advertised, %6llu addressable, %4u GB/s\n", d->name,
				(unsigned long long)d->advertised_mib, (unsigned long long)d->addressable_mib,
				d->bandwidth_gbs);
	}
}
