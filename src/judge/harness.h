/* harness: a client harness file held to the window the endpoint serves.
 * llama.cpp divides the pool across slots and answers a prompt past the
 * per-slot window with HTTP 400 (law M03), so a client told a larger
 * window fails at the edge the endpoint never promised. The file is read
 * line by line, as zealot emit harness writes it and as the seeds'
 * models.yml holds it: each `id:` starts an entry, its `contextWindow:`
 * follows.
 */
#ifndef ZEALOT_HARNESS_H
#define ZEALOT_HARNESS_H

#include <stddef.h>
#include <stdint.h>

#include "laws.h"

/* Each entry of text whose id is the endpoint's wire id (its ALIAS):
 * a contextWindow above n_ctx_seq is an M03 error, one below it a
 * warning (the client wastes the slot), none a warning; no entry for id
 * at all is a warning. path names the file in the findings. Returns the
 * number of entries for id. */
size_t harness_check(const char *text, size_t n, const char *path, const char *id, uint32_t n_ctx_seq,
		     struct findings *out);

struct sb;
struct endpoint;
struct census;
struct plan;

/* The entry of an embedding endpoint (EMBEDDINGS=on), after its id and
 * baseUrl: kind embedding, the per-slot window, the longest input the
 * engine takes whole, the embeddings path, width and pooling, the rerank
 * path (POOLING=rank), and no completions for an encoder the engine gives
 * no memory. Returns 0 (nothing written) when EMBEDDINGS is not on. */
int harness_embedding(struct sb *b, const struct endpoint *ep, const struct census *c, const struct plan *p);

#endif
