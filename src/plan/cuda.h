/* cuda: the CUDA backend's own rules, from ggml/src/ggml-cuda/ of the
 * pinned engine (node-llama-cpp 3.21.1, llama.cpp of 2026-09-12), for a
 * build described by its flags. Modelled from source, not measured on a
 * GPU here.
 *
 *   supports_op  every op the planner's graphs use runs on the card
 *                (GATED_DELTA_NET included, MUSA aside), except
 *                FLASH_ATTN_EXT, which needs a kernel for its K/V type
 *                pair and head sizes (fattn.cu
 *                ggml_cuda_get_best_fattn_kernel): without
 *                GGML_CUDA_FA_ALL_QUANTS only the same-type pairs of f16,
 *                q4_0, q8_0 and bf16 are compiled; an op the card cannot
 *                run goes to the CPU, and the scheduler copies its inputs
 *                into the host buffer
 *   get_alloc_size
 *                a quantized row padded to 512 elements
 *                (MATRIX_ROW_PADDING), and a FLASH_ATTN_EXT node reserves
 *                the f16 copies of a K or V its kernel cannot read as is
 *                (the tile and MMA kernels read f16 only; the vector
 *                kernel reads the quantized types): nelements x 2 bytes
 *                each, 128-aligned, behind the output (upstream PR #23907,
 *                "reserve space for quantized kv-cache at startup");
 *                alignment 128
 *   host buffer  the CPU backend's buffer is CUDA_Host (pinned memory):
 *                graph inputs (masks, positions, indices), CPU-run nodes
 *                and the copies of their inputs
 *
 * The kernel choice reads the card's compute capability; the profiles'
 * are in cuda.c.
 */
#ifndef ZEALOT_CUDA_H
#define ZEALOT_CUDA_H

#include <stdint.h>

#include "graph/galloc.h"

/* A CUDA build's facts that move memory. */
struct cuda_build {
	int fa_all;	    /* every K/V pair has a kernel (GGML_CUDA_FA_ALL_QUANTS=ON, FA_QUANTS=all) */
	char fa_pairs[256]; /* else the pairs compiled, "k-v;k-v" (f32 reads as f16); "" the default */
	int no_scratch;	    /* FLASH_ATTN_EXT keeps its f16 K/V out of the compute buffer (builds before #23907) */
	char source[512];   /* where the facts came from, for the plan's text ("" the defaults) */
};

/* The pinned engine's defaults (a zeroed struct means them):
 * GGML_CUDA_FA_ALL_QUANTS=OFF, the scratch reserved. */
#define CUDA_FA_DEFAULT_PAIRS "f16-f16;q4_0-q4_0;q8_0-q8_0;bf16-bf16"

void cuda_build_default(struct cuda_build *b);

/* Read the build's flags from a CMakeCache.txt (GGML_CUDA_FA_ALL_QUANTS,
 * GGML_CUDA_FA_QUANTS): 1 read (b updated, its source names the file), 0
 * no CUDA build there (GGML_CUDA off), -1 unreadable. */
int cuda_build_from_cmake(const char *cache, struct cuda_build *b);

/* The CMakeCache.txt of the build a runtime binary came from
 * (build/bin/llama-server -> build/CMakeCache.txt, or beside it): a new
 * path, or NULL. */
char *cuda_cmake_cache_of(const char *runtime);

/* Parse a pair list as GGML_CUDA_FA_QUANTS spells it ("all", or
 * "f16-q8_0;q8_0-q8_0"): 0, or -1 when a type is not a cache type. */
int cuda_build_set_pairs(struct cuda_build *b, const char *list);

/* A device profile's compute capability (major*10 + minor), 0 unknown
 * (then 86, the seeds' RTX 3090, is assumed). */
int cuda_cc(const char *profile);

enum cuda_fa_kernel { CUDA_FA_NONE = 0, CUDA_FA_VEC, CUDA_FA_TILE, CUDA_FA_MMA };

/* ggml_cuda_get_best_fattn_kernel for an NVIDIA card of capability cc. */
enum cuda_fa_kernel cuda_fa_kernel(const struct cuda_build *b, int cc, const struct ga_fa *fa);

/* Whether the build has a kernel for K/V types (ggml ids) at head size d. */
int cuda_fa_pair_compiled(const struct cuda_build *b, uint32_t k_type, uint32_t v_type);

/* The scheduler's hooks (sched.h) for a set of backends: cc[b] is backend
 * b's compute capability, 0 for a backend that is not a CUDA device. */
struct cuda_rules {
	const struct cuda_build *build;
	int cc[16];
};

int cuda_supports_op(const struct ga_graph *g, int t, int backend, const void *rules);
/* sched.h's fa_interval for the two above: the n over which they read a
 * flash-attention node built at n0 (a) and n0 + step (b) alike. */
int cuda_fa_interval(const struct ga_fa *a, const struct ga_fa *b, int64_t n0, int64_t step, int64_t *lo, int64_t *hi);
uint64_t cuda_alloc_size(const struct ga_graph *g, int t, int backend, const void *rules);

#endif
