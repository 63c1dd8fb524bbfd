/* split: payloads cut into shards the engine's way (llama_split_path):
 * NAME-00001-of-00003.gguf ... NAME-00003-of-00003.gguf. The first shard
 * carries the metadata and `split.count`, every shard its `split.no`
 * (0-based), and the first `split.tensors.count`, the tensors of all of
 * them. The engine is given the first shard and finds the others by name.
 */
#ifndef ZEALOT_SPLIT_H
#define ZEALOT_SPLIT_H

#include <stddef.h>
#include <stdint.h>

#include "gguf.h"

/* The shard count the engine's naming allows (five digits). */
#define SPLIT_MAX 99999

/* Parse a shard's name (a path or a URL; a URL's ?query and #fragment are
 * not part of the name). Returns 0 and fills *prefix_len (the bytes before
 * "-0000K-of-0000N.gguf"), *no (1-based K) and *count (N) when name ends
 * with that pattern (K and N five digits, 1 <= K <= N), else -1. */
int split_name_parse(const char *name, size_t *prefix_len, unsigned *no, unsigned *count);

/* The name of shard k (1-based) of n, made from the name of any shard:
 * the prefix, the new suffix, then the URL's ?query as it was. NULL when
 * name is not a shard's name. Caller frees. */
char *split_shard_name(const char *name, unsigned k, unsigned n);

/* The header's split keys: *count 0 when split.count is absent or 1. */
int split_keys(const struct gguf *g, unsigned *no, unsigned *count, uint64_t *tensors, char **err);

/* One header for a split payload: the first shard's metadata (borrowed
 * from shards[0]'s buffer: keep the shards alive as long as the result)
 * and every shard's tensors, each tagged with its shard. Checks that
 * shard i says split.no = i and split.count = n, and that the tensors
 * add up to split.tensors.count; a shard that does not is foreign.
 * names[i] names shard i in errors. NULL with *err. */
struct gguf *split_merge(struct gguf *const *shards, const char *const *names, unsigned n, char **err);

/* Write the payload at path as n shards named from out (which must be a
 * shard's name, e.g. model-00001-of-00003.gguf), the way the engine's
 * gguf-split does: metadata in the first, split keys in each, tensors
 * spread in order, data copied sparsely (zero blocks stay holes). */
int split_write(const char *path, unsigned n, const char *out, char **err);

#endif
