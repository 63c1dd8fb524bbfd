/* report: what the commands that weigh shapes share (rungs, solve,
 * plan --svg): JSON for a plan's terms and a decode prediction, a shape
 * in one line, the picture of a plan written to a file. */
#ifndef ZEALOT_PLAN_REPORT_H
#define ZEALOT_PLAN_REPORT_H

#include <jansson.h>
#include <math.h>
#include <stdio.h>

#include "cand.h"
#include "plan.h"
#include "rate.h"
#include "shape.h"

double plan_r2(double mib);
/* {term: MiB billed to the gated budget} for every term */
json_t *plan_terms_json(const struct plan *p);
/* verdict, n_ctx, n_ctx_seq, n_seq, terms, total/host/addressable/free/slack MiB */
json_t *plan_summary_json(const struct plan *p);
/* fill_tokens, bytes_per_token, weights/kv/state/draft MiB, tokens_per_step, ceiling_tps, ratio,
 * ms_per_token, host_bw_gbs, expert_share, devices: [{device, profile, bandwidth_gbs, bytes_per_token,
 * weights/kv/state/draft MiB, ms_per_token}] */
json_t *plan_rate_json(const struct rate *r, double ratio);
json_t *plan_keys_json(const struct cand *c);
/* "3 x 200,704 tokens, f16 K + q8_0 V, MTP drafter armed, ubatch 1024" */
void plan_shape_line(const struct plan *p, const struct plan_shape *s, char *buf, size_t n);
/* plan --svg: the picture of one plan */
int plan_svg_write(const char *path, const char *name, const struct plan *p, const struct plan_shape *s, char **err);

/* `zealot plan --json` of a plan: every term per device, the verdict, the
 * CPU and CUDA facts it was priced with. */
json_t *plan_to_json(const struct endpoint *ep, const struct shape_ctx *c, const struct plan *p);

#endif
