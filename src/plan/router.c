#include "router.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/util.h"

#define MIB ((uint64_t)1 << 20)

/* The router_dev named name, added when new. */
static unsigned dev_index(struct router_price *rp, const struct plan_dev *d, int is_host)
{
	for (unsigned i = 0; i < rp->n_devs; i++)
		if (strcmp(rp->devs[i].name, d->name) == 0)
			return i;
	struct router_dev *n = &rp->devs[rp->n_devs];
	snprintf(n->name, sizeof(n->name), "%s", d->name);
	n->addressable = d->addressable;
	n->slack = d->slack;
	n->is_host = is_host;
	return rp->n_devs++;
}

static uint64_t file_bytes(const char *path)
{
	struct stat st;
	return path && stat(path, &st) == 0 ? (uint64_t)st.st_size : 0;
}

/* One sequence's checkpoint: what the engine cannot roll back (the
 * window's cells of one stream and one sequence's recurrent state), taken
 * only by a model with a window or a recurrent state. */
static uint64_t checkpoint_bytes(const struct plan *p)
{
	uint64_t b = 0;
	if (p->kv_swa.present && p->kv_swa.streams)
		b += (p->kv_swa.k_bytes + p->kv_swa.v_bytes) / p->kv_swa.streams;
	if (p->rs.present && p->rs.cells)
		b += (p->rs.r_bytes + p->rs.s_bytes) / p->rs.cells;
	return b;
}

/* A member's host figures beyond its boot buffers, and its swap. */
static int extras(struct router_price *rp, size_t i, char **err)
{
	struct router_priced *m = &rp->m[i];
	const struct endpoint *ep = rp->r.m[i].ep;
	uint64_t cram, ckpt;
	if (router_cache_ram_mib(ep, &cram, err) || router_checkpoints(ep, &ckpt, err))
		return -1;
	if (cram == UINT64_MAX)
		return errorf(err,
			      "%s: --cache-ram -1 gives the child's prompt cache no bound: no set of members can be "
			      "priced (law M13)",
			      rp->r.m[i].path);
	m->cache_ram = cram * MIB;
	m->checkpoints = (uint64_t)m->p.n_seq * ckpt * checkpoint_bytes(&m->p);
	m->disk_bytes = file_bytes(m->c.model_path) + file_bytes(m->c.projector_path) + file_bytes(m->c.lora_path);
	for (unsigned b = 0; b < m->p.n_model; b++)
		if (m->p.model[b].on_device)
			m->card_bytes += m->p.model[b].bytes;
	m->swap_ms = (double)m->disk_bytes / (ROUTER_DISK_GBS * 1e6) + (double)m->card_bytes / (ROUTER_PCIE_GBS * 1e6);
	return 0;
}

static int price_member(struct router_price *rp, size_t i, const char *device_override, enum zerr *kind, char **err)
{
	struct router_priced *m = &rp->m[i];
	int io = 0;
	if (shape_load(rp->r.m[i].ep, device_override, &m->c, &io, err)) {
		zerr_set(kind, io ? ZE_IO : ZE_USAGE);
		return -1;
	}
	if (plan_make(m->c.census->model, m->c.model->g, &m->c.shape, m->c.dev, &m->c.extras, &m->p, err)) {
		zerr_set(kind, ZE_USAGE);
		return -1;
	}
	m->loaded = 1;
	if (extras(rp, i, err)) {
		zerr_set(kind, ZE_USAGE);
		return -1;
	}
	unsigned host = 0;
	for (unsigned d = 0; d < m->p.n_devs; d++) {
		unsigned x = dev_index(rp, &m->p.devs[d], d == m->p.n_cards);
		if (d == m->p.n_cards)
			host = x;
		m->on[x] += m->p.devs[d].total;
	}
	m->on[host] += m->cache_ram + m->checkpoints;
	for (unsigned d = 0; d < PLAN_MAX_DEVS; d++)
		m->total += m->on[d];
	return 0;
}

uint64_t router_set_on(const struct router_price *rp, uint32_t mask, unsigned d)
{
	uint64_t s = rp->devs[d].is_host ? rp->self : 0;
	for (size_t i = 0; i < rp->r.n; i++)
		if (mask & (1u << i))
			s += rp->m[i].on[d];
	return s;
}

static int dev_fits(const struct router_dev *d, uint64_t sum)
{
	/* an unknown host memory beside cards gates nothing (plan_bill) */
	if (!d->addressable && d->is_host)
		return 1;
	return (int64_t)d->addressable - (int64_t)sum >= (int64_t)d->slack;
}

int router_set_fits(const struct router_price *rp, uint32_t mask)
{
	for (unsigned d = 0; d < rp->n_devs; d++)
		if (!dev_fits(&rp->devs[d], router_set_on(rp, mask, d)))
			return 0;
	return 1;
}

/* The k largest members on device d, as a mask. */
static uint32_t largest(const struct router_price *rp, unsigned d, unsigned k)
{
	uint32_t mask = 0;
	for (unsigned j = 0; j < k && j < rp->r.n; j++) {
		int best = -1;
		for (size_t i = 0; i < rp->r.n; i++)
			if (!(mask & (1u << i)) && (best < 0 || rp->m[i].on[d] > rp->m[best].on[d]))
				best = (int)i;
		mask |= 1u << best;
	}
	return mask;
}

static int worst_fits(const struct router_price *rp, unsigned k)
{
	for (unsigned d = 0; d < rp->n_devs; d++)
		if (!dev_fits(&rp->devs[d], router_set_on(rp, largest(rp, d, k), d)))
			return 0;
	return 1;
}

/* Every set that fits and admits no other member, and every pair that
 * never fits: a set that fits fits without any of its members, so the
 * masks are walked once. */
static void sets(struct router_price *rp)
{
	size_t n = rp->r.n;
	uint32_t all = n >= 32 ? UINT32_MAX : (1u << n) - 1;
	unsigned char *ok = xcalloc((size_t)all + 1, 1);
	for (uint32_t mask = 0;; mask++) {
		ok[mask] = (unsigned char)router_set_fits(rp, mask);
		if (mask == all)
			break;
	}
	for (uint32_t mask = 1;; mask++) {
		int maximal = ok[mask];
		for (size_t i = 0; maximal && i < n; i++)
			if (!(mask & (1u << i)) && ok[mask | (1u << i)])
				maximal = 0;
		if (maximal) {
			rp->maximal = xreallocarray(rp->maximal, rp->n_maximal + 1, sizeof(*rp->maximal));
			rp->maximal[rp->n_maximal++] = mask;
		}
		if (mask == all)
			break;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++) {
			uint32_t pair = (1u << i) | (1u << j);
			if (!ok[pair] && ok[1u << i] && ok[1u << j]) {
				rp->apart = xreallocarray(rp->apart, rp->n_apart + 1, sizeof(*rp->apart));
				rp->apart[rp->n_apart++] = pair;
			}
		}
	free(ok);
}

int router_price(const struct endpoint *ep, const char *device_override, struct router_price *rp, enum zerr *kind,
		 char **err)
{
	memset(rp, 0, sizeof(*rp));
	if (router_load(ep, &rp->r, kind, err))
		return -1;
	rp->m = xcalloc(rp->r.n, sizeof(*rp->m));
	rp->self = (uint64_t)ROUTER_SELF_MIB * MIB;
	for (size_t i = 0; i < rp->r.n; i++)
		if (price_member(rp, i, device_override, kind, err)) {
			char *why = err ? *err : NULL;
			if (err) {
				*err = NULL;
				errorf(err, "member %s: %s", rp->r.m[i].name, why ? why : "cannot be priced");
			}
			free(why);
			return -1;
		}
	unsigned k = rp->r.models_max < rp->r.n ? rp->r.models_max : (unsigned)rp->r.n;
	for (unsigned d = 0; d < rp->n_devs; d++) {
		rp->devs[d].worst_set = largest(rp, d, k);
		rp->devs[d].worst = router_set_on(rp, rp->devs[d].worst_set, d);
		rp->devs[d].fits = dev_fits(&rp->devs[d], rp->devs[d].worst);
	}
	rp->fits = worst_fits(rp, k);
	for (unsigned j = 1; j <= rp->r.n && worst_fits(rp, j); j++)
		rp->safe_max = j;
	sets(rp);
	zerr_set(kind, ZE_OK);
	return 0;
}

void router_price_release(struct router_price *rp)
{
	for (size_t i = 0; rp->m && i < rp->r.n; i++)
		shape_release(&rp->m[i].c);
	free(rp->m);
	free(rp->maximal);
	free(rp->apart);
	router_release(&rp->r);
	memset(rp, 0, sizeof(*rp));
}
