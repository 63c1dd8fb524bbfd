/* rate: decode is bound by memory bandwidth (law A06), so a shape's decode
 * rate is predicted from the bytes the engine reads per generated token,
 * device by device:
 *
 *   per target step  the weights the trunk multiplies (every block, the
 *                    output head; the input embedding is a gather of one
 *                    row), the adapter, each slot's KV at the stated fill
 *                    (K and V rows of every KV layer over `fill` cells;
 *                    window layers over at most the window), and the
 *                    recurrent state of one sequence;
 *   experts          of an expert stack (ffn_*_exps, ffn_*_chexps: one
 *                    matrix per expert) only the experts the router picks:
 *                    n_expert_used / n_expert of it for one token, and
 *                    1 - (1 - used/n)^k for a step that verifies k tokens
 *                    (independent routing); shared experts, the router and
 *                    every dense tensor are read whole;
 *   per draft token  (an armed MTP drafter, n = SPEC_DRAFT_N_MAX per step)
 *                    the MTP block, the head it projects through, and the
 *                    draft KV at the same fill;
 *   tokens per step  1, or 1 + a + a^2 + ... + a^n with a drafter whose
 *                    per-position acceptance is a.
 *
 * Each byte is read where it lives (place.h: NGL, N_CPU_MOE,
 * OVERRIDE_TENSOR, KV_OFFLOAD, TENSOR_SPLIT), at that device's bandwidth:
 * a card's published figure, the host's HOST_BW_GBS (default: the `cpu`
 * profile's stated figure), and an rpc-server's its host's. The devices
 * run one after another for a token (layer split is a pipeline, not a
 * parallel read), so
 *
 *   time per token = sum over devices of bytes there / that bandwidth,
 *
 * and the ceiling is 1 / that. rungs and solve show a shape's rate as the
 * endpoint's time per token over the shape's (on one device the bandwidth
 * cancels: the ratio of bytes). How close this comes to the seeds'
 * measurements and to published partial-offload figures is in the README.
 */
#ifndef ZEALOT_RATE_H
#define ZEALOT_RATE_H

#include <stdint.h>

#include "../endpoint/endpoint.h"
#include "plan.h"

struct rate_opts {
	uint64_t fill;	    /* tokens of context a slot holds while it decodes */
	double accept;	    /* the drafter's per-position acceptance, 0..1 */
	double host_bw_gbs; /* the host's memory bandwidth, GB/s; 0: the cpu profile's */
};

/* The seeds' drafter: mean accepted length 2.41 at depth 2 (2026-10-19),
 * i.e. 1 + a + a^2 = 2.41. */
#define RATE_ACCEPT_DEFAULT 0.79

/* One device's part of a token (as plan.devs: the cards, then "host"). */
struct rate_dev {
	char name[48];
	const char *profile;
	double bandwidth_gbs;
	double weights, kv, state, draft; /* bytes per target step read here */
	double bytes_per_token;
	double ms_per_token; /* bytes_per_token / bandwidth */
};

struct rate {
	uint64_t fill;		/* the fill used: opts.fill within the window */
	double weights;		/* bytes per target step */
	double kv, state;	/* bytes per target step */
	double draft;		/* bytes per target step spent drafting */
	double tokens_per_step; /* generated tokens per target step */
	double bytes_per_token;
	double expert_share; /* of an expert stack, the part one target step reads (0: no experts) */
	double host_bw_gbs;  /* the host bandwidth used */
	unsigned n_dev;
	struct rate_dev dev[PLAN_MAX_DEVS];
	double ms_per_token; /* the sum over the devices; 0 when a device has no bandwidth */
	double tps_ceiling;  /* 1000 / ms_per_token; 0 when unknown */
};

/* Price decode for the plan p of shape s (x: its adapter). Returns 0, or
 * -1 with *err when the plan has nothing to decode with. */
int rate_of(const struct model *m, const struct gguf *g, const struct plan_shape *s, const struct plan_extras *x,
	    const struct plan *p, const struct rate_opts *o, struct rate *r, char **err);

/* The rate of r against base's (> 1: faster): base time per token over r's,
 * or base bytes over r's when a time is unknown; 0 when r reads nothing. */
double rate_ratio(const struct rate *base, const struct rate *r);

/* The host bandwidth an endpoint states (HOST_BW_GBS), into *gbs; 0 when
 * unset. Returns 0, or -1 with *err naming the key. */
int rate_host_bw(const struct endpoint *ep, double *gbs, char **err);

/* Whether a tensor is an expert stack (one matrix or bias row per expert). */
int rate_is_expert(const struct model *m, const struct gguf_tensor *t);

#endif
