/* fleet/budget: a fleet's memory held card by card (law M09). Every member
 * is priced as `zealot plan` prices it (calibrated from this host's store
 * when it is local), what it bills is grouped by (host, card), and each
 * group must hold the sum of its members' bills plus the largest slack
 * band once, within the smallest addressable figure any member gives it.
 * Two members of one host on one port clash. Nothing is printed.
 */
#ifndef ZEALOT_FLEET_BUDGET_H
#define ZEALOT_FLEET_BUDGET_H

#include <jansson.h>
#include <stdint.h>

#include "../base/util.h"
#include "../plan/plan.h"
#include "fleet.h"

/* What one member bills on one card or host memory. */
struct budget_bill {
	uint64_t bytes, addressable, slack;
	const char *profile;
	const char *source; /* where addressable comes from: profile, ADDRESSABLE_MIB, MemAvailable */
};

/* A member's plan. */
struct budget_member {
	struct plan p;
	int calibrated;
	char *warn; /* why a local member is not calibrated, or NULL */
};

/* The figures of one card (or host memory): sums over its bills. */
struct budget_card {
	uint64_t total, addressable, slack;
	const char *source;
	struct sb profile; /* distinct profiles, '/'-joined */
	int64_t free_bytes;
	int fits;
};

/* Two members of one host that listen on one port. */
struct budget_clash {
	size_t a, b;
	char *host;
	const char *port;
};

struct fleet_budget {
	struct budget_member *m; /* one per fleet member */
	size_t nm;
	struct fleet_bill *fb;	/* who bills where ... */
	struct budget_bill *bv; /* ... and what, parallel to fb */
	size_t nb;
	struct fleet_card *cards; /* bills grouped (fleet_group) */
	struct budget_card *sums; /* parallel to cards */
	size_t nc;
	struct budget_clash *clash;
	size_t ncl;
	int fits; /* every card holds its bills and no port clashes */
};

/* Price and hold the fleet f. ZE_OK, else the kind with *err naming the
 * member that could not be priced. */
enum zerr fleet_budget_make(const struct fleet *f, struct fleet_budget *b, char **err);
/* The `fleet plan --json` object. */
json_t *fleet_budget_json(const struct fleet *f, const struct fleet_budget *b);
void fleet_budget_release(struct fleet_budget *b);

/* A router endpoint's bills (fleet/budget_router.c): on each card and the
 * host, the worst co-resident set of MODELS_MAX members (law M13), as
 * `zealot plan ROUTER.env` prices it. 0, or -1 with *err. */
int budget_router(const struct fleet *f, size_t i, struct fleet_budget *b, char **err);

#endif
