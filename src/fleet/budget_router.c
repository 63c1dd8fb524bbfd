/* fleet/budget: a router endpoint (plan/router.h) billed to its cards as
 * the worst co-resident set of MODELS_MAX members on each, the router
 * process on the host: the price plan ROUTER.env gives. */
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../plan/router.h"
#include "budget.h"

/* The profile the members' plans give device name (the first found). */
static const char *profile_of(const struct router_price *rp, const char *name)
{
	for (size_t i = 0; i < rp->r.n; i++)
		for (unsigned d = 0; d < rp->m[i].p.n_devs; d++)
			if (!strcmp(rp->m[i].p.devs[d].name, name) && rp->m[i].p.devs[d].profile)
				return rp->m[i].p.devs[d].profile;
	return "host";
}

/* The member's summary plan: what the fleet's report reads of it (its
 * device, the worst set's figures, the verdict). */
static void summary(const struct router_price *rp, struct plan *p)
{
	memset(p, 0, sizeof(*p));
	const struct plan *first = &rp->m[0].p;
	p->device = first->device;
	p->n_cards = first->n_cards;
	p->n_devs = first->n_devs;
	p->fits = rp->fits;
	for (unsigned d = 0; d < rp->n_devs; d++) {
		if (rp->devs[d].is_host)
			p->host_total = rp->devs[d].worst;
		else if (!p->device_total)
			p->device_total = rp->devs[d].worst;
	}
	if (!p->n_cards)
		p->device_total = p->host_total;
}

int budget_router(const struct fleet *f, size_t i, struct fleet_budget *b, char **err)
{
	struct router_price rp;
	enum zerr kind;
	const struct fleet_member *m = &f->m[i];
	if (router_price(m->ep, NULL, &rp, &kind, err)) {
		router_price_release(&rp);
		char *e = *err;
		*err = NULL;
		errorf(err, "%s: %s", m->name, e ? e : "cannot be priced");
		free(e);
		return -1;
	}
	summary(&rp, &b->m[i].p);
	unsigned ord = 0;
	for (unsigned d = 0; d < rp.n_devs; d++) {
		const struct router_dev *v = &rp.devs[d];
		if (!v->is_host && !strncmp(v->name, "RPC", 3))
			continue;
		int gpu = v->is_host ? -1 : (m->gpu >= 0 ? m->gpu : (int)ord);
		if (!v->is_host)
			ord++;
		b->fb = xreallocarray(b->fb, b->nb + 1, sizeof(*b->fb));
		b->bv = xreallocarray(b->bv, b->nb + 1, sizeof(*b->bv));
		b->fb[b->nb] = (struct fleet_bill){i, gpu};
		const char *src = endpoint_value(m->ep, K_ADDRESSABLE_MIB) && *endpoint_value(m->ep, K_ADDRESSABLE_MIB)
				      ? "ADDRESSABLE_MIB"
				  : v->is_host ? "MemAvailable"
					       : "profile";
		b->bv[b->nb] = (struct budget_bill){v->worst, v->addressable, v->slack,
						    v->is_host ? "host" : profile_of(&rp, v->name), src};
		b->nb++;
	}
	router_price_release(&rp);
	return 0;
}
