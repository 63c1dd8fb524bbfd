#include "vulkan.h"

#include <string.h>

#include "../base/util.h"

enum { T_F32 = 0, T_F16 = 1, T_Q4_0 = 2, T_Q4_1 = 3, T_Q5_0 = 6, T_Q5_1 = 7, T_Q8_0 = 8, T_IQ4_NL = 20, T_BF16 = 30 };

/* lavapipe: vkGetPhysicalDeviceProperties2 on this machine (Mesa 22.3.6,
 * llvmpipe LLVM 15, Debian 12), 2026-12: minStorageBufferOffsetAlignment
 * 16, minMemoryMapAlignment 64, maxStorageBufferRange 134,217,728,
 * maxMemoryAllocationSize 2 GiB, no VK_EXT_shader_64bit_indexing; its
 * flash attention runs (boots here). The cards' figures are their drivers'
 * reports as published on vulkan.gpuinfo.org (RADV, ANV, NVIDIA's
 * proprietary driver), not measured here: replace them with the card's
 * own `vulkaninfo` before trusting a compute figure to the byte. */
static const struct vulkan_limits limits[] = {
    {"lavapipe", 16, 64, 134217728ull, 2147483648ull, 1, "measured here (Mesa 22.3.6 lavapipe)"},
    {"rx7900xtx", 4, 4096, 4294967295ull, 4294967292ull, 1, "RADV's report (gpuinfo), not measured here"},
    {"arc-a770", 4, 4096, 4294967295ull, 4294967295ull, 1, "ANV's report (gpuinfo), not measured here"},
    {"rtx3090-vk", 16, 64, 4294967295ull, 4294967295ull, 1, "NVIDIA driver's report (gpuinfo), not measured here"},
};

const struct vulkan_limits *vulkan_limits_of(const char *profile)
{
	for (size_t i = 0; profile && i < ARRAY_SIZE(limits); i++)
		if (strcmp(limits[i].profile, profile) == 0)
			return &limits[i];
	return NULL;
}

static int fa_type_ok(uint32_t t)
{
	static const uint32_t ok[] = {T_F32, T_F16, T_BF16, T_Q8_0, T_Q5_1, T_Q5_0, T_Q4_1, T_Q4_0, T_IQ4_NL};
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++)
		if (ok[i] == t)
			return 1;
	return 0;
}

int vulkan_fa_ok(const struct vulkan_limits *l, uint32_t k_type, uint32_t v_type, int64_t dk, int64_t dv)
{
	if (dk % 8 || dv % 8)
		return 0;
	if (!fa_type_ok(k_type) || !fa_type_ok(v_type))
		return 0;
	if ((k_type == T_BF16) != (v_type == T_BF16))
		return 0;
	return l ? l->subgroup_fa : 1;
}

/* ggml_backend_vk_device_supports_op's tensor_size_supported */
static int size_ok(const struct vulkan_limits *l, uint64_t bytes)
{
	if (bytes > l->max_alloc)
		return 0;
	return !l->max_storage_range || bytes <= l->max_storage_range;
}

int vulkan_supports_op(const struct ga_graph *g, int t, int backend, const void *rules)
{
	const struct vulkan_rules *r = rules;
	if (backend < 0 || backend >= 16 || !r->lim[backend])
		return 1;
	const struct vulkan_limits *l = r->lim[backend];
	const struct ga_tensor *x = &g->t[t];
	if (!size_ok(l, x->bytes))
		return 0;
	for (int s = 0; s < x->n_src; s++)
		if (x->src[s] >= 0 && !size_ok(l, g->t[x->src[s]].bytes))
			return 0;
	if (x->op == GA_OP_MUL_MAT && x->quant_strided)
		return 0;
	/* an FA node a builder did not describe (dk 0) is assumed to run */
	if (x->op == GA_OP_FA && x->fa.dk)
		return vulkan_fa_ok(l, x->fa.k_type, x->fa.v_type, x->fa.dk, x->fa.dv);
	return 1;
}
