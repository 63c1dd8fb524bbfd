/* deploy/router: a router endpoint's gates (endpoint/router.h), one place
 * for `zealot serve` (at every start of the unit) and `zealot deploy`
 * (before it installs anything): C12 on the set, every member's own gates
 * as serve runs them on one endpoint (its laws and files, its pins, its
 * payload against its shape and its own fit), then M13 on the worst
 * co-resident set. The module prints nothing: a refusal names the gate,
 * the file and the findings.
 */
#ifndef ZEALOT_DEPLOY_ROUTER_H
#define ZEALOT_DEPLOY_ROUTER_H

#include "../judge/laws.h"
#include "../plan/router.h"

struct deploy_router_refusal {
	const char *gate;   /* "laws", "pins" or "fit" (static) */
	const char *law;    /* the first error's law, or NULL (static or the findings') */
	char *who;	    /* the file the refusal is about: the router's or a member's */
	struct findings fs; /* its findings (the errors say why), or none and err */
	char *err;
};

/* Price the router into *rp (released by the caller with
 * router_price_release, also after a refusal) and run every gate. 0 when
 * all pass; -1 with *rf filled (deploy_router_refusal_release). */
int deploy_router_gates(const struct endpoint *ep, struct router_price *rp, struct deploy_router_refusal *rf);
void deploy_router_refusal_release(struct deploy_router_refusal *rf);
/* The refusal in one line: "LAW FILE KEY: reason; ..." (allocated). */
char *deploy_router_refusal_text(const struct deploy_router_refusal *rf);

/* The members the router file's MODELS holds, as deploy would install and
 * record them: a JSON text [{name, text, sha256}], each text with its
 * relative paths made absolute against its own file (what `zealot diff`
 * holds the current era's members to). NULL with *err. */
char *deploy_router_members(const struct endpoint *ep, char **err);

/* An endpoint's payload pins, as serve holds them at every start: every
 * file (every shard of a split payload) against its *_BYTES and its
 * *_SHA256. 0, or -1 with *err naming the file and both figures. */
int deploy_pins_hold(const struct endpoint *ep, char **err);

#endif
