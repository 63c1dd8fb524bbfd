/* archs: the architectures the pinned engine knows by name
 * (general.architecture), as its own llm_arch_from_string reads them.
 * A payload whose architecture is not among them is refused by the engine
 * at load ("unknown model architecture"), whatever its shape.
 */
#ifndef ZEALOT_ARCHS_H
#define ZEALOT_ARCHS_H

#include <stddef.h>

/* The names, in the engine's order, and where they were read from
 * (archs.c is generated: scripts/gen-archs.sh). */
extern const char *const archs_engine[];
extern const size_t archs_engine_count;
extern const char *const archs_engine_source;

/* 1 when the pinned engine knows the architecture name, else 0. */
int archs_known(const char *arch);

/* Why llama-server cannot serve the architecture as a model of its own
 * (a tower, a vocoder, a speech head, a drafter, a diffusion decoder), read
 * from the engine's
 * source; NULL when it serves it. */
const char *archs_unserved(const char *arch);

/* The projector types (clip.projector_type) the pinned engine's
 * tools/mtmd/clip-impl.h names (PROJECTOR_TYPE_NAMES), in its order. */
extern const char *const archs_projectors[];
extern const size_t archs_projector_count;

#endif
