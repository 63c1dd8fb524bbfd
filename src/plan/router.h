/* plan/router: a router endpoint priced as the engine runs it. Every member
 * is planned as the child the router starts (its own plan: its runtime
 * context on a card, its compute buffers, its weights), plus what a child
 * holds on the host beyond its boot buffers: the prompt cache up to its
 * --cache-ram (the engine's 8,192 MiB default per child) and, for a model
 * with a sliding window or a recurrent state, its context checkpoints (up
 * to --ctx-checkpoints per slot, each one sequence's window and state).
 * The router process itself bills the host.
 *
 * The engine evicts by count, never by memory: once MODELS_MAX children
 * run, the least recently used goes. So any MODELS_MAX members may be
 * resident together, and the set that matters on a device is its MODELS_MAX
 * largest there (the worst co-resident set). A set fits when, on every
 * device, its members' sum (and the router's own, on the host) leaves the
 * slack band free, the single endpoint's rule (law M09) summed (law M13).
 */
#ifndef ZEALOT_PLAN_ROUTER_H
#define ZEALOT_PLAN_ROUTER_H

#include <jansson.h>
#include <stdint.h>

#include "../endpoint/router.h"
#include "shape.h"

/* The router process (no model, no context): measured 15.0 MiB VmHWM idle
 * on the pinned build; billed with room for the requests it proxies. */
#define ROUTER_SELF_MIB 64
/* Stated rates for a swap's time when nothing measured says otherwise:
 * a payload read from disk, and weights copied to a card. */
#define ROUTER_DISK_GBS 2.0
#define ROUTER_PCIE_GBS 12.0
#define MIB_D		(1024.0 * 1024.0)

struct router_dev {
	char name[48];
	uint64_t addressable, slack; /* addressable 0: a card plan's unknown host memory, no gate */
	int is_host;
	uint64_t worst;	    /* the sum of the MODELS_MAX largest members here (+ the router on the host) */
	uint32_t worst_set; /* those members */
	int fits;
};

struct router_priced {
	struct shape_ctx c;
	struct plan p;
	int loaded;		    /* c and p hold a plan */
	uint64_t on[PLAN_MAX_DEVS]; /* bytes billed on each router_dev */
	uint64_t total;
	uint64_t cache_ram;   /* bytes: the prompt cache's ceiling */
	uint64_t checkpoints; /* bytes: slots x checkpoints x one sequence's window and state */
	uint64_t disk_bytes, card_bytes;
	double swap_ms;
};

struct router_price {
	struct router r;
	struct router_priced *m; /* r.n of them */
	struct router_dev devs[PLAN_MAX_DEVS];
	unsigned n_devs;
	uint64_t self;	   /* the router process, on the host */
	unsigned safe_max; /* the largest MODELS_MAX whose worst set fits everywhere (0: a member alone does not) */
	int fits;	   /* the worst set of MODELS_MAX fits on every device */
	/* members that fit together and admit no other (bit i: member i) */
	uint32_t *maximal;
	size_t n_maximal;
	/* pairs that never fit together: bit masks of two */
	uint32_t *apart;
	size_t n_apart;
};

/* Load the router's members and price them (device_override: NULL for the
 * router's DEVICE). Returns 0, or -1 with *err and *kind (ZE_IO a file
 * unread, ZE_USAGE a file or value refused; the member is named). */
int router_price(const struct endpoint *ep, const char *device_override, struct router_price *rp, enum zerr *kind,
		 char **err);
void router_price_release(struct router_price *rp);

/* Whether the members of mask fit together on every device. */
int router_set_fits(const struct router_price *rp, uint32_t mask);
/* The sum of mask's members on device d (and the router's own on the host). */
uint64_t router_set_on(const struct router_price *rp, uint32_t mask, unsigned d);

/* plan --json of a router: members [{name, path, total_mib, cache_ram_mib,
 * checkpoints_mib, swap: {disk_bytes, card_bytes, ms}, plan}], devices
 * [{device, addressable_mib, slack_mib, worst_mib, worst_set, fits}],
 * router_mib, models_max, safe_models_max, never_together, maximal_sets,
 * verdict. */
json_t *router_price_json(const struct router_price *rp);

#endif
