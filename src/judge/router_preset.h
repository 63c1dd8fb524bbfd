/* judge/router_preset: what a router endpoint runs: the preset models.ini
 * (a section per member, named by its file, with every argument `zealot
 * argv` renders for it, `fit = off` among them: nothing left to --fit or
 * to the memory free when the child spawns) and the router's own argv.
 *
 * The engine's router gives each child its host (127.0.0.1), its port and
 * its alias (the section's name) and lays its own command line over every
 * section (tools/server/server-models.cpp), so a section holds none of
 * those and the router's argv holds nothing a member prices.
 */
#ifndef ZEALOT_JUDGE_ROUTER_PRESET_H
#define ZEALOT_JUDGE_ROUTER_PRESET_H

#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../endpoint/router.h"

/* models.ini for the router's members. Returns 0, or -1 with *err naming
 * the member whose argv cannot be rendered. */
int router_preset_render(const struct router *r, struct sb *out, char **err);
/* A member's arguments as the preset's key = value lines, from its argv
 * (argv[0], the runtime, skipped; the flags the router sets dropped). */
void router_preset_section(const struct argv_list *a, struct sb *out);

/* Where the preset lives: $STATE_DIRECTORY (the unit's StateDirectory=)
 * when set, else the router file's directory; NAME.models.ini. */
char *router_preset_path(const struct endpoint *ep);
/* Where the unit `zealot emit unit` writes has serve put it: its
 * StateDirectory=zealot, /var/lib/zealot/NAME.models.ini (what deploy
 * holds the router's command line to). */
#define ROUTER_UNIT_STATE_DIR "/var/lib/zealot"
char *router_preset_unit_path(const struct endpoint *ep);

/* The router's argv: the runtime with no model, its address, port,
 * preset, MODELS_MAX, log level and API key file. */
int router_argv_render(const struct endpoint *ep, const char *preset, struct argv_list *out, char **err);

#endif
