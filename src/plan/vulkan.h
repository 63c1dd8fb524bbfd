/* vulkan: the Vulkan backend's own rules, from
 * ggml/src/ggml-vulkan/ggml-vulkan.cpp of the pinned engine (node-llama-cpp
 * 3.21.1, llama.cpp of 2026-09-12), and the device limits they read.
 * Measured here on Mesa's lavapipe (tests/live/vulkan.sh); on a real card
 * the same rules with that card's limits (its profile's, stated with their
 * source, not measured here).
 *
 *   buffer type  "VulkanN": alignment minStorageBufferOffsetAlignment,
 *                get_alloc_size ggml_nbytes (no row padding, unlike CUDA),
 *                max size the suballocation block (1 GiB, or
 *                maxMemoryAllocationSize when smaller)
 *   host buffer  "Vulkan_Host" (pinned): alignment minMemoryMapAlignment
 *                of device 0, the CPU's alloc size; the scheduler's graph
 *                inputs, CPU-run nodes and their copies land there
 *   supports_op  any op whose tensor or source exceeds maxStorageBufferRange
 *                (without 64-bit indexing) runs on the CPU; FLASH_ATTN_EXT
 *                needs head sizes that are multiples of 8, K and V each of
 *                f32, f16, bf16, q8_0, q5_1, q5_0, q4_1, q4_0, iq4_nl, bf16
 *                on both or neither, and subgroup shuffle and vote; MUL_MAT
 *                needs a quantized src0 contiguous in dims 0-1, so a
 *                quantized K cache read without flash attention (its view
 *                strided by the KV heads or streams) sends KQ to the CPU; MUL_MAT
 *                needs src0's ne[3] equal to src1's, so a weight (1) over a
 *                product of several streams (MLA's v_mla) runs on the CPU
 *   offload_op   an op on a host weight of 32+ rows (GGML_OP_OFFLOAD_MIN_BATCH)
 *   weights      the loader probes each weight with the op it is used by
 *                (weight_buft_supported) and keeps one the device refuses
 *                on the CPU: SSM_SCAN's A (ssm_a) unless Mamba-2's layout,
 *                a state of 128 or 256 and heads a multiple of 16 wide
 *                (vulkan_ssm_scan_ok; place.c moves the weight, and the
 *                scheduler then runs the scan on the CPU, a split a layer)
 *
 *   graph_optimize  each split's nodes reordered before the allocator
 *                sizes the buffer (vulkan_graph_optimize; off with
 *                GGML_VK_DISABLE_GRAPH_OPTIMIZE, which the plan reads as
 *                the engine does). The ops its rules name come from the
 *                builders' tags (galloc.h's gop: norms, residual adds, the
 *                MoE routing) or the scheduler's kinds; a norm tagged
 *                rms_norm that the engine builds as a layer norm (RWKV's)
 *                is taken as one.
 *
 * What is not mirrored: ops other than MUL_MAT and FLASH_ATTN_EXT whose support reads
 * types (every op the planner's graphs use is taken to run; SSM_SCAN's
 * rule moves its weight, which sends the scan to the CPU too), the
 * loader's probe of other weights (a norm or bias neither f32 nor f16
 * would fail ADD and MUL's; converters write them f32), MUL_MAT_ID's
 * shared-memory fallback, buffers split at the suballocation block, and
 * graph_optimize's snake and QSA fusion patterns (no mirrored family
 * builds them).
 */
#ifndef ZEALOT_VULKAN_H
#define ZEALOT_VULKAN_H

#include <stdint.h>

#include "graph/galloc.h"

/* A Vulkan device's limits that move memory or placement. */
struct vulkan_limits {
	const char *profile;
	uint32_t ssbo_align;	    /* minStorageBufferOffsetAlignment */
	uint32_t map_align;	    /* minMemoryMapAlignment (Vulkan_Host) */
	uint64_t max_storage_range; /* maxStorageBufferRange, 0: not binding (64-bit indexing) */
	uint64_t max_alloc;	    /* maxMemoryAllocationSize */
	uint8_t subgroup_fa;	    /* subgroup shuffle and vote: flash attention runs */
	const char *source;	    /* where the figures came from */
	uint8_t cpu_type;	    /* VK_PHYSICAL_DEVICE_TYPE_CPU: used only when GGML_VK_VISIBLE_DEVICES lists it */
};

/* The limits of a Vulkan profile (device.c), or NULL for another. */
const struct vulkan_limits *vulkan_limits_of(const char *profile);

/* Whether a K/V type pair (ggml ids) at head sizes dk, dv has a
 * flash-attention path on device l. */
int vulkan_fa_ok(const struct vulkan_limits *l, uint32_t k_type, uint32_t v_type, int64_t dk, int64_t dv);

/* Whether device l runs SSM_SCAN over an A weight (ssm_a) of that
 * layout (quantized, bytes per row) at the state size and head width the
 * loader's probe reads; when not, the loader keeps the weight on the CPU
 * (place.h) and the scan runs there. */
int vulkan_ssm_scan_ok(const struct vulkan_limits *l, int a_quantized, uint64_t a_nb1, int64_t d_state,
		       int64_t head_dim);

/* The scheduler's hooks (sched.h): lim[b] is backend b's limits, NULL for
 * a backend that is not a Vulkan device. */
struct vulkan_rules {
	const struct vulkan_limits *lim[16];
	uint8_t reorder; /* graph_optimize on (GGML_VK_DISABLE_GRAPH_OPTIMIZE unset) */
};

/* It reads every tensor's size (the storage limit), which the memo cannot
 * follow: a Vulkan device's graphs are replayed plainly (no fa_interval). */
int vulkan_supports_op(const struct ga_graph *g, int t, int backend, const void *rules);

/* ggml_vk_graph_optimize over one split of a Vulkan backend (sched.h's
 * optimize hook): sets of nodes that depend on no pending node within the
 * next 20, fusable pairs (RMS_NORM + MUL, MUL_MAT + ADD, ADD + ADD ...)
 * and their chains (the ROPE of a normed input, the K view and SET_ROWS
 * of a ROPE) pulled together, views after, the MoE routing's fusion
 * patterns kept in order. Nothing when rules->reorder is 0. */
void vulkan_graph_optimize(const struct ga_graph *g, int *nodes, int n, int backend, const void *rules);

#endif
