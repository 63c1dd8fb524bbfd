/* device: the memory a serving shape is priced against (law M01).
 *
 * A profile carries the advertised size (the number on the box) and the
 * addressable size (what `nvidia-smi` reports free on an idle card: the
 * only number to budget against), the runtime's own overhead once the
 * engine runs (CUDA context, cuBLAS workspaces), and the backend kind,
 * which decides where each buffer lands.
 */
#ifndef ZEALOT_DEVICE_H
#define ZEALOT_DEVICE_H

#include <stdint.h>

enum device_backend {
	DEVICE_CPU,  /* everything in host memory */
	DEVICE_CUDA, /* offloaded buffers on the card, the rest host */
};

struct device {
	const char *name;
	enum device_backend backend;
	uint64_t advertised_mib;
	uint64_t addressable_mib; /* 0 for cpu: read from the host */
	uint64_t overhead_mib;	  /* runtime context once the engine runs */
	const char *note;
};

extern const struct device device_profiles[];
extern const unsigned device_n_profiles;

const struct device *device_find(const char *name);

/* The host's available memory in MiB (MemAvailable), 0 if unknown. */
uint64_t device_host_available_mib(void);

/* Free MiB on the first NVIDIA GPU per nvidia-smi, or -1 when there is
 * none or it cannot be run. */
int64_t device_nvidia_free_mib(void);

/* The CPU backend's repack rule (ggml-cpu/repack.cpp,
 * ggml_repack_get_optimal_repack_type) on this host: the row multiple a
 * matrix of ggml type `type` needs to be repacked into the CPU_REPACK
 * buffer (8 or 4), or 0 when this CPU has no repacked kernel for it.
 * Decided by the host's instruction set (AVX2, AVX-512; NEON dot
 * product, i8mm), as the engine decides it at load. */
unsigned device_cpu_repack_rows(uint32_t type);

/* The CPU backend's AMX buffer type (ggml-cpu/amx/amx.cpp, supports_op),
 * when the build carries it (compiled with __AMX_INT8__ and __AVX512VNNI__)
 * and extra buffer types are on (REPACK=1): whether it takes a weight of
 * ggml type `type` with rows of ne0 elements and ne1 rows that the model
 * feeds to a matrix multiply. The engine tries it before CPU_REPACK
 * (ggml_backend_cpu_get_extra_buffer_types). It takes only MUL_MAT, never
 * an expert stack's MUL_MAT_ID (mul_mat_id 1); the weight's rows must
 * come in whole 32-row tiles (the product's ne0 % (TILE_N * 2)), and its
 * row must be a multiple of 32 (q4_0, q4_1, q8_0), 256 (q4_K, q5_K, q6_K,
 * iq4_xs) or 16 (f16). Returns 1 when it takes the weight, else 0. */
int device_amx_takes(uint32_t type, uint64_t ne0, uint64_t ne1, int mul_mat_id);

/* amx/common.h qtype_has_amx_kernels: the types the AMX buffer packs for
 * its tile kernels (q4_0, q4_1, q8_0, q4_K, q5_K, q6_K, iq4_xs). An f16
 * weight is taken by the buffer too but copied as is and multiplied by
 * AVX-512 code (amx/mmq.cpp), never by tile instructions. */
int device_amx_tiles(uint32_t type);

#endif
