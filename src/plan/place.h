/* place: where the engine puts each weight, cache and compute buffer when
 * it has devices, mirroring the pinned engine:
 *
 *   devices   src/llama.cpp            RPC servers first (in --rpc order),
 *                                      then the local cards (CUDA0, CUDA1 ...);
 *                                      SPLIT_MODE=none keeps the first only
 *   layers    src/llama-model.cpp      load_tensors: i_gpu_start = max(n_layer
 *                                      + 1 - ngl, 0); layer il >= i_gpu_start
 *                                      goes to the device whose cumulative,
 *                                      normalised TENSOR_SPLIT share first
 *                                      exceeds (il - i_gpu_start) / act_layers
 *                                      (float arithmetic, std::upper_bound);
 *                                      the output layer is layer n_layer; the
 *                                      input layer always stays on the CPU
 *   weights   src/llama-model-loader.cpp create_tensor: the first
 *                                      OVERRIDE_TENSOR pattern found in the
 *                                      tensor's name (std::regex_search) wins;
 *                                      an override to CPU picks from the CPU
 *                                      list (extra buffers included); else the
 *                                      layer's device, unless it refuses the
 *                                      weight's op (place_refusals)
 *   overrides common/arg.cpp          -ot PATTERN=BUFT,...; --n-cpu-moe N adds
 *                                      blk\.i\.ffn_(up|down|gate|gate_up)_(ch|)exps=CPU
 *                                      for i < N, after the -ot patterns (zealot
 *                                      renders -ot first)
 *   caches    src/llama-kv-cache.cpp   a layer's KV (and recurrent state) on
 *                                      its layer's device, or all on the CPU
 *                                      with KV_OFFLOAD=0 (--no-kv-offload)
 *   compute   src/llama-context.cpp    one backend per device, then the CPU
 *                                      (whose buffer is the first device's
 *                                      pinned host type, CUDA_Host, when it has
 *                                      one); pipeline parallelism (4 scheduler
 *                                      copies) with several devices, every
 *                                      layer offloaded, layer split, KV
 *                                      offloaded and no override
 *
 * Patterns: the engine compiles them with std::regex's default grammar
 * (ECMAScript); zealot uses POSIX regcomp(REG_EXTENDED). The two agree on
 * the patterns people write (literals, \., [...], (a|b), *, +, ?, {n}, ^, $);
 * ECMAScript's \d \w \s, lazy quantifiers and look-arounds are not POSIX and
 * are refused by name rather than priced differently.
 */
#ifndef ZEALOT_PLACE_H
#define ZEALOT_PLACE_H

#include <regex.h>
#include <stdint.h>

#include "../payload/gguf.h"
#include "../payload/model.h"
#include "device.h"

#define PLACE_MAX_DEV 8
#define PLACE_HOST    (-1)

enum place_split { PLACE_SPLIT_LAYER, PLACE_SPLIT_NONE, PLACE_SPLIT_ROW, PLACE_SPLIT_TENSOR };

struct place_dev {
	char name[64]; /* the engine's device and buffer name: CUDA0, RPC0[127.0.0.1:50061] */
	const struct device *profile;
	uint64_t addressable_mib; /* 0: the profile's (rpc: the host's) */
};

struct place_override {
	regex_t re;
	int dev; /* a device index, or PLACE_HOST for CPU */
};

/* What an endpoint asks for (the keys, as plan_shape carries them). */
struct place_request {
	uint32_t ngl;
	uint32_t n_cpu_moe;
	const char *override_tensor; /* OVERRIDE_TENSOR or NULL */
	int kv_offload;
	const char *tensor_split; /* TENSOR_SPLIT or NULL */
	const char *split_mode;	  /* SPLIT_MODE or NULL (layer) */
	const char *rpc;	  /* RPC or NULL */
	const char *devices;	  /* DEVICES or NULL */
};

struct placement {
	unsigned n_dev;
	struct place_dev dev[PLACE_MAX_DEV];
	unsigned n_rpc; /* the first n_rpc devices are RPC servers */
	int host_buft;	/* a CUDA device lends the CPU its pinned host buffer type */
	int split_mode; /* enum place_split */
	float split[PLACE_MAX_DEV];
	uint32_t n_layer_all;
	uint32_t ngl;	    /* the engine's n_gpu_layers */
	uint32_t offloaded; /* as the engine prints "offloaded N/M layers" */
	int *layer;	    /* [n_layer_all + 1]: device index or PLACE_HOST; the last is the output layer */
	int kv_offload;
	int pipeline; /* pipeline parallelism: the scheduler keeps 4 copies of its inputs */
	unsigned n_over;
	struct place_override *over;
	/* weights their layer's device refuses (place_refusals): the CPU's */
	unsigned n_refused;
	char **refused;
};

/* Devices only (no model): the GPU-class devices an endpoint's keys give
 * the engine, in its order. `main` is DEVICE's profile. Returns 0, or -1
 * with *err naming the key. */
int place_devices(const struct place_request *r, const struct device *main, struct placement *pl, char **err);

/* The keys alone (devices, split, patterns), for `check`: 0, or -1 with
 * *err starting with the key at fault ("RPC: ...", "OVERRIDE_TENSOR: ..."). */
int place_check(const struct place_request *r, const struct device *main, char **err);

/* How many of the payload's tensors each override pattern takes (what the
 * first-match rule leaves it), into counts[n_over]. */
void place_override_hits(const struct placement *pl, const struct gguf *g, unsigned *counts);

/* The whole placement for a model: devices, layers, overrides. Returns 0,
 * or -1 with *err (a pattern the engine would refuse or zealot cannot
 * mirror, a buffer type no device offers, a split the engine refuses). */
int place_make(const struct place_request *r, const struct device *main, const struct model *m, struct placement *pl,
	       char **err);
void place_release(struct placement *pl);

/* weight_buft_supported (src/llama-model-loader.cpp): the loader probes
 * each weight with the op it is used by on its layer's device and, when
 * the device refuses it, takes the next of the layer's list: the CPU's
 * (the mapping, with mmap). Records the weights of g a Vulkan device
 * refuses (vulkan.h: SSM_SCAN's A), which place_weight then puts on the
 * host; nothing on CUDA, RPC or the CPU. Call after place_make. */
void place_refusals(struct placement *pl, const struct gguf *g, const struct model *m);

/* Which layer a weight of model m belongs to, as the engine's loader
 * assigns it: 0..n-1 for blk.N, -1 the input layer
 * (LLM_TENSOR_LAYER_INPUT: the embeddings, read a row per token), n the
 * output layer. plan's buffers and rate's bytes per token both place by
 * it. */
int64_t place_tensor_layer(const char *name, const struct model *m);
/* Where a weight lands: a device index, or PLACE_HOST (then the CPU list
 * decides between the mapping and an extra buffer). `layer` is the
 * tensor's block (-1 the input layer, n_layer_all the output layer). */
int place_weight(const struct placement *pl, const char *name, int64_t layer);

/* Where layer il's KV cache and recurrent state live. */
int place_cache(const struct placement *pl, uint32_t il);

/* The name of the CPU backend's compute buffer: the first device's pinned
 * host type (CUDA_Host) when it has one, else CPU. */
const char *place_cpu_buft(const struct placement *pl);

#endif
