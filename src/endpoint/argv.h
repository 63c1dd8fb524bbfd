/* argv: the exact llama-server command line for an endpoint, deterministic
 * and explicit: every shape flag is spelled out (never left to the engine's
 * auto modes), --fit off (law S01), --metrics and --log-verbosity 4 by
 * default (C04, C05), the speculative set as one unit or not at all (S05),
 * the API key by file only (its value never reaches argv), EXTRA_ARGS last
 * and never naming a flag a key owns (law C09). Each flag comes from its
 * key's row in the key table (keys.h).
 */
#ifndef ZEALOT_ARGV_H
#define ZEALOT_ARGV_H

#include <stddef.h>

#include "endpoint.h"

struct argv_list {
	char **v; /* NULL-terminated */
	size_t n;
};

/* Render the argv. Returns 0, or -1 with *err naming the key whose value
 * cannot be rendered. */
int argv_render(const struct endpoint *ep, struct argv_list *out, char **err);
void argv_release(struct argv_list *a);

#endif
