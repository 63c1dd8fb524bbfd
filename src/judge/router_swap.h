/* judge/router_swap: a llama-swap configuration for a router's members
 * (llama-swap's published config schema, config-schema.json: `models`
 * with a `cmd` each, and `routing.router` using its `matrix` engine).
 * Each model's cmd runs `zealot serve` of its member file on llama-swap's
 * ${PORT}, with the router's keys set as the router would lay them. The
 * matrix lists every maximal set of members that fits together on every
 * device (plan/router.h), so llama-swap never runs a set zealot did not
 * price, and each member's eviction cost is its swap time in
 * milliseconds (at least 1: the schema's minimum).
 */
#ifndef ZEALOT_JUDGE_ROUTER_SWAP_H
#define ZEALOT_JUDGE_ROUTER_SWAP_H

#include "../base/util.h"
#include "../plan/router.h"

/* The YAML text; zealot is the binary the cmds run. */
void router_swap_render(const struct router_price *rp, const char *zealot, struct sb *out);

#endif
