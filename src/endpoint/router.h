/* router: a router endpoint, llama-server in router mode. Its file sets
 * MODELS, a directory of member endpoint files (one per model, each
 * payload, shape and probes, no port of its own), and MODELS_MAX; the
 * engine runs with no model of its own and starts one child llama-server
 * per member on demand, each with the preset's arguments (models.ini).
 *
 * A member is priced, rendered and gated as the child the router starts:
 * its own file with what the router sets laid over it (router_member_keys:
 * the runtime, the device and its memory, the host's CPU; the child's
 * address and alias are the router's to give). Which keys each side may
 * set is one table here, read by the laws (judge/router_laws.c) and by the
 * loader alike.
 */
#ifndef ZEALOT_ENDPOINT_ROUTER_H
#define ZEALOT_ENDPOINT_ROUTER_H

#include <stddef.h>

#include "../base/zerr.h"
#include "endpoint.h"

/* The most members a router takes (the co-resident sets are enumerated
 * as bit masks). */
#define ROUTER_MAX_MEMBERS 16

struct router_member {
	char *name;	      /* the file's name without .env: the preset's section, the model id */
	char *path;	      /* the member file, absolute */
	struct endpoint *ep;  /* the member file with the router's keys laid over it */
	struct endpoint *own; /* the member file as written (what the laws judge) */
};

struct router {
	const struct endpoint *ep; /* the router's file (not owned) */
	char *dir;		   /* MODELS, absolute */
	struct router_member *m;
	size_t n;
	unsigned models_max;
};

/* Whether the endpoint is a router (MODELS set, not empty). */
int router_is(const struct endpoint *ep);

/* Which side sets a key: ROUTER_ONLY keys a member may not set (the router
 * gives them to every child), MEMBER_ONLY keys the router may not set (a
 * model's payload and shape), and BOTH (the probes' timeouts, nothing
 * priced). */
enum router_side { ROUTER_BOTH, ROUTER_ONLY, MEMBER_ONLY };
enum router_side router_side_of(enum key_id id);

/* Load the router's members: every *.env file in MODELS, sorted by name,
 * each parsed (its errors named by file and line) and overlaid with the
 * router's keys. Returns 0, or -1 with *err and *kind (ZE_NOTFOUND, ZE_IO
 * for a directory or file that cannot be read, ZE_USAGE for a file that is
 * no endpoint, an empty set or more than ROUTER_MAX_MEMBERS). */
int router_load(const struct endpoint *ep, struct router *r, enum zerr *kind, char **err);
void router_release(struct router *r);

/* The member named name, or NULL. */
const struct router_member *router_member(const struct router *r, const char *name);

/* The engine's --cache-ram default (common/common.h cache_ram_mib) and a
 * member's figure in force: EXTRA_ARGS's --cache-ram/-cram N, else the
 * default. -1 is the engine's "no limit": *out is then UINT64_MAX. Returns
 * 0, or -1 with *err when the word after the flag is no number. */
#define ROUTER_CACHE_RAM_DEFAULT_MIB 8192
int router_cache_ram_mib(const struct endpoint *member, uint64_t *out, char **err);
/* The engine's --ctx-checkpoints default (n_ctx_checkpoints) and a
 * member's figure in force, read the same way. */
#define ROUTER_CHECKPOINTS_DEFAULT 32
int router_checkpoints(const struct endpoint *member, uint64_t *out, char **err);

#endif
