/* judge/router_laws: the laws of a router endpoint's set (C12: which side
 * sets which key; M13: the worst co-resident set fits), as findings, and
 * the plan of a router as text (`zealot plan ROUTER.env`). */
#ifndef ZEALOT_JUDGE_ROUTER_LAWS_H
#define ZEALOT_JUDGE_ROUTER_LAWS_H

#include "../base/util.h"
#include "../plan/router.h"
#include "laws.h"

/* C12 on the router's file and every member's own file (the key a side may
 * not set, by file and line). Returns the count of errors appended. */
size_t router_laws_keys(const struct router *r, struct findings *out);
/* M13 on a priced router: the worst set of MODELS_MAX on each device that
 * does not fit, naming the members and the sums. */
size_t router_laws_fit(const struct router_price *rp, struct findings *out);

/* A member's own laws, as check judges one endpoint (its file with the
 * router's keys laid over it): the static laws and its files, then, when
 * it was priced, its payload against its shape and its own fit. Returns
 * the count of errors appended. */
size_t router_laws_member(const struct router_member *m, const struct router_priced *pm, struct findings *out);

/* The plan of a router as `zealot plan` prints it. */
void router_report(struct sb *b, const struct router_price *rp);

#endif
