/* ggml_type: the tensor types ggml defines, with their real block sizes.
 *
 * Figures mirror ggml's type_traits table (ggml/src/ggml.c of the pinned
 * engine): a row of n elements of a type costs n / blck * size bytes.
 * A type id not in the table is a custom type (a fork's, e.g. PrismML's
 * PQ2_0 = 142): it is not an error, but its size can only be derived from
 * where its data ends in the file.
 */
#ifndef ZEALOT_GGML_TYPE_H
#define ZEALOT_GGML_TYPE_H

#include <stdint.h>

/* ggml.h's GGML_TYPE_COUNT: ids below it that the table lacks are types
 * ggml removed (block size 0, refused by the engine's reader); ids at or
 * above it are custom types. */
#define GGML_TYPE_COUNT 43

struct ggml_type_info {
	uint32_t id;
	const char *name;
	uint32_t blck; /* elements per block */
	uint32_t size; /* bytes per block */
};

/* The info for a type id, or NULL for an id stock ggml does not define. */
const struct ggml_type_info *ggml_type_get(uint32_t id);
/* By the engine's spelling ("q8_0", "f16", "iq4_nl" ...), case-sensitive
 * except that K-quants also match lowercase ("q4_k"). NULL if unknown. */
const struct ggml_type_info *ggml_type_by_name(const char *name);
/* general.file_type's name: the pinned engine's llama_ftype_name for an
 * id in its llama_ftype list (*custom 0: "Q4_K - Medium"); else *custom 1
 * and a fork's name where zealot knows it ("PQ2_0" for 141), or NULL. */
const char *ggml_ftype_name(int64_t ft, int *custom);
/* A tensor type id past ggml's list: a fork's name where zealot knows it
 * ("PQ2_0" for 142), or NULL. The engine cannot load either (law S10). */
const char *ggml_custom_type_name(uint32_t id);
/* Bytes of a row of n elements; 0 when n is not a whole number of blocks. */
uint64_t ggml_row_bytes(const struct ggml_type_info *t, uint64_t n);

#endif
