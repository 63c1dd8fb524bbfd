#include "budget.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../endpoint/router.h"
#include "../plan/shape.h"
#include "../store/calib.h"

static double mib(int64_t b)
{
	return round((double)b / (1024.0 * 1024.0) * 100) / 100;
}

/* The bills of member i, appended to b's. */
static int bill_member(const struct fleet *f, size_t i, const struct plan *p, const struct shape_ctx *c,
		       struct fleet_budget *b, char **err)
{
	const struct fleet_member *m = &f->m[i];
	unsigned cuda = 0;
	for (unsigned d = 0; d < p->n_cards; d++)
		cuda += strncmp(p->devs[d].name, "RPC", 3) != 0;
	if (m->gpu >= 0 && cuda > 1)
		return errorf(err, "%s: GPU=%d shows the engine one card, but the plan places it on %u (DEVICES)",
			      m->path, m->gpu, cuda);
	unsigned ord = 0;
	for (unsigned d = 0; d < p->n_devs; d++) {
		const struct plan_dev *pd = &p->devs[d];
		int host = d == p->n_cards;
		if (!host && strncmp(pd->name, "RPC", 3) == 0)
			continue;
		int gpu = host ? -1 : (m->gpu >= 0 ? m->gpu : (int)ord);
		if (!host)
			ord++;
		b->fb = xreallocarray(b->fb, b->nb + 1, sizeof(*b->fb));
		b->bv = xreallocarray(b->bv, b->nb + 1, sizeof(*b->bv));
		b->fb[b->nb] = (struct fleet_bill){i, gpu};
		const char *src =
		    host ? (p->n_cards == 0 && c->extras.addressable_mib ? "ADDRESSABLE_MIB" : "MemAvailable")
			 : (c->extras.addressable_mib && d == p->main_dev ? "ADDRESSABLE_MIB" : "profile");
		b->bv[b->nb] =
		    (struct budget_bill){pd->total, pd->addressable, pd->slack, host ? "host" : pd->profile, src};
		b->nb++;
	}
	return 0;
}

/* Member i priced as `zealot plan` prices it and billed to its cards. */
static enum zerr price_member(const struct fleet *f, size_t i, struct fleet_budget *b, char **err)
{
	struct shape_ctx c = {0};
	struct budget_member *bm = &b->m[i];
	if (router_is(f->m[i].ep) && budget_router(f, i, b, err) == 0)
		return ZE_OK;
	if (router_is(f->m[i].ep))
		return ZE_USAGE;
	json_t *cal = NULL;
	char *cal_text = NULL;
	/* the store here holds boots of this host's endpoints only */
	enum zerr k = calib_price(f->m[i].ep, NULL, NULL, !f->m[i].remote, &c, &bm->p, &cal, &cal_text, &bm->warn, err);
	bm->calibrated = cal != NULL;
	json_decref(cal);
	free(cal_text);
	if (k == ZE_OK && bill_member(f, i, &bm->p, &c, b, err))
		k = ZE_USAGE;
	shape_release(&c);
	if (k != ZE_OK) {
		char *e = *err;
		*err = NULL;
		errorf(err, "%s: %s", f->m[i].name, e);
		free(e);
	}
	return k;
}

static void sum_card(const struct fleet_card *k, const struct budget_bill *bv, struct budget_card *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t j = 0; j < k->n; j++) {
		const struct budget_bill *b = &bv[k->idx[j]];
		s->total += b->bytes;
		if (b->addressable && (!s->addressable || b->addressable < s->addressable)) {
			s->addressable = b->addressable;
			s->source = b->source;
		}
		if (b->slack > s->slack)
			s->slack = b->slack;
		/* distinct profiles, in order: two profiles for one card is a disagreement worth seeing */
		size_t pl = strlen(b->profile);
		const char *hit = s->profile.s ? strstr(s->profile.s, b->profile) : NULL;
		if (!hit || (hit[pl] && hit[pl] != '/'))
			sb_addf(&s->profile, "%s%s", s->profile.len ? "/" : "", b->profile);
	}
	s->free_bytes = (int64_t)s->addressable - (int64_t)s->total;
	/* an unknown host memory gates nothing (as plan: only beside cards) */
	s->fits = !s->addressable || s->free_bytes >= (int64_t)s->slack;
}

/* Only one of two binds can hold a port when they overlap (a wildcard bind
 * takes every address). */
static int binds_overlap(const char *x, const char *y)
{
	int wx = !strcmp(x, "0.0.0.0") || !strcmp(x, "::"), wy = !strcmp(y, "0.0.0.0") || !strcmp(y, "::");
	return wx || wy || strcmp(x, y) == 0;
}

static void port_clashes(const struct fleet *f, struct fleet_budget *b)
{
	for (size_t i = 0; i < f->n; i++)
		for (size_t j = i + 1; j < f->n; j++) {
			const struct endpoint *x = f->m[i].ep, *y = f->m[j].ep;
			char *hx = fleet_host_key(&f->m[i]), *hy = fleet_host_key(&f->m[j]);
			const char *px = endpoint_value(x, K_LISTEN_PORT);
			if (!strcmp(hx, hy) && !strcmp(px, endpoint_value(y, K_LISTEN_PORT)) &&
			    binds_overlap(endpoint_value(x, K_BIND_ADDR), endpoint_value(y, K_BIND_ADDR))) {
				b->clash = xreallocarray(b->clash, b->ncl + 1, sizeof(*b->clash));
				b->clash[b->ncl++] = (struct budget_clash){i, j, hx, px};
				hx = NULL;
			}
			free(hx);
			free(hy);
		}
}

enum zerr fleet_budget_make(const struct fleet *f, struct fleet_budget *b, char **err)
{
	memset(b, 0, sizeof(*b));
	b->m = xcalloc(f->n ? f->n : 1, sizeof(*b->m));
	b->nm = f->n;
	for (size_t i = 0; i < f->n; i++) {
		enum zerr k = price_member(f, i, b, err);
		if (k != ZE_OK)
			return k;
	}
	b->nc = fleet_group(f, b->fb, b->nb, &b->cards);
	b->sums = xcalloc(b->nc ? b->nc : 1, sizeof(*b->sums));
	b->fits = 1;
	for (size_t k = 0; k < b->nc; k++) {
		sum_card(&b->cards[k], b->bv, &b->sums[k]);
		b->fits &= b->sums[k].fits;
	}
	port_clashes(f, b);
	b->fits &= !b->ncl;
	return ZE_OK;
}

static json_t *members_json(const struct fleet *f, const struct fleet_budget *b)
{
	json_t *eps = json_array();
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_member *m = &f->m[i];
		const struct plan *p = &b->m[i].p;
		char *host = fleet_host_key(m);
		json_array_append_new(
		    eps,
		    json_pack("{s:s,s:s,s:s,s:o,s:o,s:s,s:s,s:b,s:i,s:i,s:f,s:f}", "name", m->name, "path", m->path,
			      "host", host, "dest", m->remote ? json_string(m->host.dest) : json_null(), "gpu",
			      m->gpu >= 0 ? json_integer(m->gpu) : json_null(), "device", p->device->name, "verdict",
			      p->fits ? "fits" : "refused", "calibrated", b->m[i].calibrated, "n_ctx_seq",
			      (json_int_t)p->n_ctx_seq, "n_seq", (json_int_t)p->n_seq, "total_mib",
			      mib((int64_t)p->device_total), "host_mib", mib(p->n_cards ? (int64_t)p->host_total : 0)));
		free(host);
	}
	return eps;
}

static json_t *cards_json(const struct fleet *f, const struct fleet_budget *b)
{
	json_t *ca = json_array();
	for (size_t k = 0; k < b->nc; k++) {
		const struct budget_card *s = &b->sums[k];
		const struct fleet_card *c = &b->cards[k];
		json_t *who = json_array();
		for (size_t j = 0; j < c->n; j++)
			json_array_append_new(who, json_pack("{s:s,s:f}", "name", f->m[b->fb[c->idx[j]].member].name,
							     "mib", mib((int64_t)b->bv[c->idx[j]].bytes)));
		json_array_append_new(
		    ca, json_pack("{s:s,s:o,s:s,s:o,s:f,s:o,s:o,s:f,s:o,s:b,s:b}", "host", c->host, "card",
				  c->gpu >= 0 ? json_integer(c->gpu) : json_null(), "profile", s->profile.s,
				  "endpoints", who, "total_mib", mib((int64_t)s->total), "addressable_mib",
				  s->addressable ? json_real(mib((int64_t)s->addressable)) : json_null(),
				  "addressable_source", s->addressable ? json_string(s->source) : json_null(),
				  "slack_mib", mib((int64_t)s->slack), "free_mib",
				  s->addressable ? json_real(mib(s->free_bytes)) : json_null(), "shared", c->n > 1,
				  "fits", s->fits));
	}
	return ca;
}

json_t *fleet_budget_json(const struct fleet *f, const struct fleet_budget *b)
{
	json_t *cl = json_array();
	for (size_t i = 0; i < b->ncl; i++)
		json_array_append_new(cl,
				      json_pack("{s:s,s:s,s:[s,s]}", "host", b->clash[i].host, "port", b->clash[i].port,
						"endpoints", f->m[b->clash[i].a].name, f->m[b->clash[i].b].name));
	return json_pack("{s:s,s:s,s:o,s:o,s:o}", "dir", f->dir, "verdict", b->fits ? "fits" : "refused", "endpoints",
			 members_json(f, b), "cards", cards_json(f, b), "port_clashes", cl);
}

void fleet_budget_release(struct fleet_budget *b)
{
	for (size_t k = 0; k < b->nc; k++)
		sb_release(&b->sums[k].profile);
	free(b->sums);
	fleet_cards_free(b->cards, b->nc);
	for (size_t i = 0; i < b->ncl; i++)
		free(b->clash[i].host);
	free(b->clash);
	free(b->fb);
	free(b->bv);
	for (size_t i = 0; i < b->nm; i++)
		free(b->m[i].warn);
	free(b->m);
	memset(b, 0, sizeof(*b));
}
