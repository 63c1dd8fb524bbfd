/* cpu: the host's instruction set, and the CPU backend's extra buffer
 * types that follow from it.
 *
 * The engine's CPU backend (ggml/src/ggml-cpu/) decides at load which
 * weights leave the memory-mapped file for a buffer of their own, and the
 * decision is the host's: a native build compiles exactly the kernels its
 * build host has (`__AVX2__`, `__AVX512F__`, `__AMX_INT8__` ...), and the
 * engine prints them in its `system_info:` line. zealot reads the same
 * facts (the host's /proc/cpuinfo flags or AT_HWCAP; an endpoint's
 * CPU_FEATURES; `plan --cpu-features`; a boot log's system_info) so a plan
 * can be made for a host other than the one zealot runs on.
 *
 * Feature names are the engine's system_info names in lower case.
 */
#ifndef ZEALOT_CPU_H
#define ZEALOT_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "../payload/gguf.h"

enum cpu_feature {
	CPU_AVX2 = 1u << 0,
	CPU_AVX512 = 1u << 1, /* AVX512F */
	CPU_AVX512_VNNI = 1u << 2,
	CPU_AMX_INT8 = 1u << 3,
	CPU_NEON = 1u << 4,
	CPU_DOTPROD = 1u << 5,
	CPU_MATMUL_INT8 = 1u << 6, /* i8mm */
	CPU_SVE = 1u << 7,
};

struct cpu_features {
	unsigned bits;
	unsigned sve_cnt;   /* bytes per SVE vector (the engine's SVE_CNT), 0 unknown */
	const char *source; /* static: where the set came from ("host /proc/cpuinfo", "CPU_FEATURES", ...) */
};

/* The features of the host zealot runs on: x86 /proc/cpuinfo flags, ARM
 * AT_HWCAP/AT_HWCAP2. Never fails: an unreadable source gives the empty
 * set and says so in f->source. */
void cpu_features_host(struct cpu_features *f);

/* Parse the `flags` (x86) or `Features` (ARM) line of a /proc/cpuinfo text. */
void cpu_features_from_cpuinfo(const char *text, size_t n, struct cpu_features *f);
/* The features of the /proc/cpuinfo text in the file at path (the first
 * processor's block): 0, or -1 with the empty set when it cannot be read.
 * The one reader of a cpuinfo file: the host's, or another host's (law
 * S16's $ZEALOT_CPUINFO). */
int cpu_features_cpuinfo(const char *path, struct cpu_features *f);

/* Parse a list of feature names ("avx2,avx512,amx_int8"; commas or
 * blanks; "none" for the empty set). /proc/cpuinfo spellings are accepted
 * too (avx512f, avx512vnni, i8mm, asimddp). Returns -1 naming an unknown
 * feature and the known ones. `source` is stored in f->source. */
int cpu_features_parse(const char *list, const char *source, struct cpu_features *f, char **err);

/* Parse the engine's `system_info:` line ("... | AVX2 = 1 | AMX_INT8 = 1 |
 * ..."). Returns 0, or -1 when the text holds no such line. */
int cpu_features_from_system_info(const char *line, size_t n, struct cpu_features *f);

/* "avx2,avx512,amx_int8" (or "none") into buf. */
const char *cpu_features_format(const struct cpu_features *f, char *buf, size_t n);
/* The names zealot knows, for help texts. */
const char *cpu_features_known(void);

/* The extra buffer type the CPU backend gives weight t, in the engine's
 * order (ggml_backend_cpu_get_extra_buffer_types: AMX, then the repack
 * buffer), or NULL for the plain mapping. `is_matmul` says whether the
 * engine feeds t to MUL_MAT (2-D) or MUL_MAT_ID (3-D expert stack); only
 * those ops have extra kernels. Sets *bytes to what the buffer allocates
 * for t (before the buffer's 32-byte tensor alignment). */
const char *cpu_weight_buft(const struct cpu_features *f, const struct gguf_tensor *t, int is_matmul, uint64_t *bytes);

/* amx/common.h qtype_has_amx_kernels: the types the AMX buffer packs for
 * its tile kernels (q4_0, q4_1, q8_0, q4_K, q5_K, q6_K, iq4_xs). An f16
 * weight is taken by the buffer too, but copied as is and multiplied by
 * AVX-512 code (amx/mmq.cpp), never by tile instructions (law S16). */
int cpu_amx_tiles(uint32_t type);

/* Whether this host's engine has the AMX buffer at all (a native build
 * with AMX_INT8 and AVX512_VNNI). */
int cpu_has_amx(const struct cpu_features *f);

#endif
