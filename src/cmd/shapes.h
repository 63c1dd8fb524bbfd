/* shapes: what the commands that weigh shapes share (rungs, solve,
 * plan --svg): JSON for a plan's terms and a decode prediction, a shape
 * in one line, a file written whole, the device list for --help. */
#ifndef ZEALOT_CMD_SHAPES_H
#define ZEALOT_CMD_SHAPES_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "../plan/cand.h"
#include "../plan/plan.h"
#include "../plan/rate.h"

double cmd_r2(double mib);
/* {term: MiB billed to the gated budget} for every term */
json_t *cmd_terms_json(const struct plan *p);
/* verdict, n_ctx, n_ctx_seq, n_seq, terms, total/host/addressable/free/slack MiB */
json_t *cmd_plan_summary_json(const struct plan *p);
/* fill_tokens, bytes_per_token, weights/kv/state/draft MiB, tokens_per_step, ceiling_tps, ratio,
 * ms_per_token, host_bw_gbs, expert_share, devices: [{device, profile, bandwidth_gbs, bytes_per_token,
 * weights/kv/state/draft MiB, ms_per_token}] */
json_t *cmd_rate_json(const struct rate *r, double ratio);
json_t *cmd_keys_json(const struct cand *c);
void cmd_print_json(json_t *o);
/* Write text to path (through path.tmp, renamed). */
int cmd_write_file(const char *path, const char *text, char **err);
/* "3 x 200,704 tokens, f16 K + q8_0 V, MTP drafter armed, ubatch 1024" */
void cmd_shape_line(const struct plan *p, const struct plan_shape *s, char *buf, size_t n);
/* plan --svg: the picture of one plan */
int cmd_plan_svg(const char *path, const char *name, const struct plan *p, const struct plan_shape *s, char **err);
void cmd_devices(FILE *f);

#endif
