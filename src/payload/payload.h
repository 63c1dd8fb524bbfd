/* payload: open a payload's header wherever it is — a local file or a URL,
 * one file or the shards of a split payload — with one piece of code.
 *
 * The header is read through a window that grows as the parser asks: a
 * first 1 MiB, then as far as the parser projects the header to reach
 * plus a margin. A local file is mapped, so its window is the whole file
 * at once and inspect stays as fast as a plain map; a URL is read by range
 * requests, so a 20 GB payload is priced from a few megabytes.
 */
#ifndef ZEALOT_PAYLOAD_H
#define ZEALOT_PAYLOAD_H

#include "gguf.h"
#include "remote.h"

#define PAYLOAD_FIRST_WINDOW (1u << 20)
#define PAYLOAD_MARGIN	     (512u << 10)

/* Open where (a path or an http(s) URL). When it is the first shard of a
 * split payload (split.count > 1), every shard is opened by the engine's
 * naming and f->g merges them (f->shards[i] is shard i). o may be NULL;
 * st (may be NULL) accumulates the requests and bytes of remote reads.
 * NULL with *err: a missing or foreign shard names the shard. */
struct gguf_file *payload_open(const char *where, const struct remote_opts *o, struct remote_stats *st, char **err);

#endif
