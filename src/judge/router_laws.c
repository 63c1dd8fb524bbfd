#include "router_laws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB_OF(b) ((double)(b) / (1024.0 * 1024.0))

static void add(struct findings *out, const char *law, const struct endpoint *ep, enum key_id key, char *reason,
		const char *fix)
{
	out->v = xreallocarray(out->v, out->n + 1, sizeof(*out->v));
	struct finding *f = &out->v[out->n++];
	f->law = law;
	f->sev = SEV_ERROR;
	f->key = key < K__COUNT ? key_name(key) : NULL;
	f->line = key < K__COUNT ? endpoint_entry(ep, key)->line : 0;
	f->reason = reason;
	f->fix = xstrdup(fix);
}

static size_t side_laws(const struct endpoint *ep, enum router_side banned, const char *who, struct findings *out)
{
	size_t n = 0;
	for (size_t i = 0; i < keys_count(); i++) {
		enum key_id id = (enum key_id)i;
		if (!endpoint_entry(ep, id)->value || endpoint_entry(ep, id)->line == 0 || router_side_of(id) != banned)
			continue;
		struct sb r = {0};
		sb_addf(&r, "%s: %s sets %s, which %s", ep->path, who, key_name(id),
			banned == ROUTER_ONLY ? "only the router sets (its command line overrides every child's)"
					      : "is a member's (a model's payload, shape or flag), not the router's");
		add(out, "C12", ep, id, r.s,
		    banned == ROUTER_ONLY ? "Set it once in the router's file, or drop it from the member."
					  : "Move it to the member files under MODELS.");
		n++;
	}
	return n;
}

size_t router_laws_keys(const struct router *r, struct findings *out)
{
	size_t n = side_laws(r->ep, MEMBER_ONLY, "the router", out);
	for (size_t i = 0; i < r->n; i++)
		n += side_laws(r->m[i].own, ROUTER_ONLY, "a member", out);
	return n;
}

size_t router_laws_member(const struct router_member *m, const struct router_priced *pm, struct findings *out)
{
	size_t n = laws_check(m->ep, NULL, NULL, LAWS_STATIC | LAWS_FILES, out);
	if (pm->loaded)
		n += laws_check(m->ep, &pm->c, &pm->p, LAWS_PAYLOAD | LAWS_FIT, out);
	return n;
}

static void set_names(struct sb *b, const struct router_price *rp, uint32_t mask, int with_mib, unsigned d)
{
	int first = 1;
	for (size_t i = 0; i < rp->r.n; i++)
		if (mask & (1u << i)) {
			sb_addf(b, "%s%s", first ? "" : " + ", rp->r.m[i].name);
			if (with_mib)
				sb_addf(b, " %.2f", MIB_OF(rp->m[i].on[d]));
			first = 0;
		}
}

size_t router_laws_fit(const struct router_price *rp, struct findings *out)
{
	size_t n = 0;
	for (unsigned d = 0; d < rp->n_devs; d++) {
		const struct router_dev *v = &rp->devs[d];
		if (v->fits)
			continue;
		struct sb s = {0};
		sb_addf(&s, "MODELS_MAX=%u: on %s the worst co-resident set ", rp->r.models_max, v->name);
		set_names(&s, rp, v->worst_set, 1, d);
		if (v->is_host)
			sb_addf(&s, " + the router %.2f", MIB_OF(rp->self));
		sb_addf(&s, " = %.2f MiB leaves %.2f MiB of %.2f addressable, below the %.2f MiB slack band",
			MIB_OF(v->worst), MIB_OF((double)v->addressable - (double)v->worst), MIB_OF(v->addressable),
			MIB_OF(v->slack));
		char fix[160];
		snprintf(fix, sizeof(fix),
			 "Set MODELS_MAX=%u (the largest whose worst set fits), or shrink the members.", rp->safe_max);
		add(out, "M13", rp->r.ep, K_MODELS_MAX, s.s,
		    rp->safe_max ? fix : "A member alone does not fit: shrink it.");
		n++;
	}
	return n;
}

void router_report(struct sb *b, const struct router_price *rp)
{
	sb_addf(b, "plan %s: a router of %zu members, MODELS_MAX=%u (%s)\n\n", rp->r.ep->name, rp->r.n,
		rp->r.models_max, rp->r.dir);
	sb_addf(b, "%-20s %12s %12s %12s %10s  %s\n", "member", "total MiB", "cache_ram", "checkpoints", "swap s",
		"on each device (MiB)");
	for (size_t i = 0; i < rp->r.n; i++) {
		const struct router_priced *m = &rp->m[i];
		sb_addf(b, "%-20s %12.2f %12.2f %12.2f %10.2f ", rp->r.m[i].name, MIB_OF(m->total),
			MIB_OF(m->cache_ram), MIB_OF(m->checkpoints), m->swap_ms / 1000.0);
		for (unsigned d = 0; d < rp->n_devs; d++)
			sb_addf(b, " %s %.2f", rp->devs[d].name, MIB_OF(m->on[d]));
		sb_addf(b, "\n");
	}
	sb_addf(b, "%-20s %12.2f  (the router process, on the host)\n", "router", MIB_OF(rp->self));
	sb_addf(b, "\nworst co-resident set of %u:\n", rp->r.models_max);
	for (unsigned d = 0; d < rp->n_devs; d++) {
		const struct router_dev *v = &rp->devs[d];
		sb_addf(b, "  %-10s %12.2f of %.2f MiB addressable, slack %.2f: %s (", v->name, MIB_OF(v->worst),
			MIB_OF(v->addressable), MIB_OF(v->slack), v->fits ? "fits" : "REFUSED");
		set_names(b, rp, v->worst_set, 0, d);
		sb_addf(b, ")\n");
	}
	sb_addf(b, "\nsafe MODELS_MAX: %u\n", rp->safe_max);
	sb_addf(b, "never resident together:%s", rp->n_apart ? "\n" : " none\n");
	for (size_t i = 0; i < rp->n_apart; i++) {
		sb_addf(b, "  ");
		set_names(b, rp, rp->apart[i], 0, 0);
		sb_addf(b, "\n");
	}
	sb_addf(b, "maximal sets that fit:\n");
	for (size_t i = 0; i < rp->n_maximal; i++) {
		sb_addf(b, "  ");
		set_names(b, rp, rp->maximal[i], 0, 0);
		sb_addf(b, "\n");
	}
	sb_addf(b, "swap times use stated rates: %.1f GB/s from disk, %.1f GB/s to a card\n", ROUTER_DISK_GBS,
		ROUTER_PCIE_GBS);
}
