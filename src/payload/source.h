/* source: the bytes of a payload's beginning, from a local file or a URL,
 * behind one interface, so the header reader is the same code for both.
 *
 * A file is mapped whole (free until pages are touched), so its prefix is
 * always all of it. A URL is read by range requests: source_prefix asks
 * for the bytes it does not hold yet and appends them, so growing a window
 * never transfers a byte twice (unless the server ignores ranges, when
 * each growth is a fresh transfer from byte 0, capped where asked).
 */
#ifndef ZEALOT_SOURCE_H
#define ZEALOT_SOURCE_H

#include <stdint.h>

#include "remote.h"

/* Why a bound exists: a GGUF header past this is not a header but an
 * attack on the reader's memory. */
#define SOURCE_MAX_WINDOW (1024ull << 20)

struct source;

/* A path or an http(s):// URL. A URL costs nothing until the first read.
 * o (may be NULL) governs every request. NULL with *err on failure. */
struct source *source_open(const char *where, const struct remote_opts *o, char **err);
void source_free(struct source *s);

/* The first bytes of the payload: returns a pointer to *have bytes with
 * *have >= min(want, size), valid until the next call or source_free.
 * NULL with *err on failure. */
const uint8_t *source_prefix(struct source *s, uint64_t want, uint64_t *have, char **err);

/* The payload's size in bytes (a URL's after its first read). */
uint64_t source_size(const struct source *s);
const char *source_name(const struct source *s);
int source_is_remote(const struct source *s);
/* Requests made and bytes received (zero for a file). */
struct remote_stats source_stats(const struct source *s);

#endif
