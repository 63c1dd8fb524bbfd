#include "device.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/host.h"
#include "../base/proc.h"
#include "../base/util.h"

/* Addressable figures are nvidia-smi's free memory on an idle card. The
 * RTX 3090 figures are the seeds' measurement (24,576 advertised, 24,123
 * addressable); its 387 MiB overhead is the seeds' 2026-10-19 boot: settled
 * 22,870 MiB used against 22,483 MiB of ledger allocations. The other
 * cards carry the same driver reservation ratio and overhead until a boot
 * on them calibrates the figure (ADDRESSABLE_MIB overrides). Bandwidths
 * are the vendors' published figures (A100 and H100: the SXM parts). The
 * host's is a stated default, not a measurement: dual-channel DDR4-3200
 * (2 x 25.6 GB/s, the desktop an RTX 3090 usually sits in), rounded down;
 * HOST_BW_GBS states the real host's (rate.h). An rpc-server's memory is
 * its host's, so the rpc profile carries none of its own. */
const struct device device_profiles[] = {
    {"cpu", DEVICE_CPU, 0, 0, 0, "host memory (MemAvailable at plan time)", 51},
    {"rtx3090", DEVICE_CUDA, 24576, 24123, 387, "measured (seeds)", 936},
    {"rtx4090", DEVICE_CUDA, 24564, 24111, 387, "derived from the 3090", 1008},
    {"rtx2080", DEVICE_CUDA, 8192, 8041, 387, "derived from the 3090", 448},
    {"rtx3060", DEVICE_CUDA, 12288, 11930, 387, "derived from the 3090", 360},
    {"rtx4060ti-16g", DEVICE_CUDA, 16380, 15990, 387, "derived from the 3090", 288},
    {"rtx5090", DEVICE_CUDA, 32607, 32010, 387, "derived from the 3090", 1792},
    {"a100-40g", DEVICE_CUDA, 40960, 40326, 387, "derived from the 3090", 1555},
    {"a100-80g", DEVICE_CUDA, 81920, 80990, 387, "derived from the 3090", 2039},
    {"l40s", DEVICE_CUDA, 46068, 45530, 387, "derived from the 3090", 864},
    {"h100-80g", DEVICE_CUDA, 81559, 80800, 387, "derived from the 3090", 3350},
    /* Vulkan (vulkan.c holds each profile's device limits and their
     * sources). lavapipe is Mesa's CPU driver: it reports one 2,048 MiB
     * heap whatever is allocated (vkGetPhysicalDeviceMemoryProperties,
     * measured here on Mesa 22.3.6), and its memory is the host's. The
     * cards: advertised is the vendor's size; addressable is that less the
     * RTX 3090's measured reservation ratio (1.84 %), not a Vulkan
     * measurement (ADDRESSABLE_MIB overrides); no runtime overhead is
     * measured for Vulkan (0). Bandwidths are the vendors' published
     * figures: AMD RX 7900 XTX 960 GB/s, Intel Arc A770 16 GB 560 GB/s,
     * NVIDIA RTX 3090 936 GB/s. */
    {"lavapipe", DEVICE_VULKAN, 2048, 2048, 0, "Mesa's CPU Vulkan driver: a fixed heap (measured); host memory", 0},
    {"rx7900xtx", DEVICE_VULKAN, 24576, 24123, 0,
     "AMD spec 24 GiB, 960 GB/s; addressable by the 3090's ratio; not measured here", 960},
    {"arc-a770", DEVICE_VULKAN, 16384, 16082, 0,
     "Intel spec 16 GiB, 560 GB/s; addressable by the 3090's ratio; not measured here", 560},
    {"rtx3090-vk", DEVICE_VULKAN, 24576, 24123, 0,
     "the seeds' 3090 as measured under CUDA, NVIDIA spec 936 GB/s; not measured under Vulkan here", 936},
    {"rpc", DEVICE_RPC, 0, 0, 0,
     "an rpc-server on a CPU backend (the RPC key's servers; memory: its host's MemAvailable, or DEVICES=rpc:MIB)", 0},
};
const unsigned device_n_profiles = ARRAY_SIZE(device_profiles);

const struct device *device_find(const char *name)
{
	for (unsigned i = 0; i < device_n_profiles; i++)
		if (strcmp(device_profiles[i].name, name) == 0)
			return &device_profiles[i];
	return NULL;
}

int device_is_card(const struct device *d)
{
	return d && (d->backend == DEVICE_CUDA || d->backend == DEVICE_VULKAN);
}

void device_card_name(const struct device *d, unsigned n, char *out, unsigned size)
{
	snprintf(out, size, "%s%u", d && d->backend == DEVICE_VULKAN ? "Vulkan" : "CUDA", n);
}

const char *device_visible_var(const struct device *d)
{
	return d && d->backend == DEVICE_VULKAN ? "GGML_VK_VISIBLE_DEVICES" : "CUDA_VISIBLE_DEVICES";
}

const char *device_host_buft(const struct device *d)
{
	if (d && d->backend == DEVICE_VULKAN)
		return "Vulkan_Host";
	return d && d->backend == DEVICE_CUDA ? "CUDA_Host" : "CPU";
}

/* name lowercased, letters and digits only (rtx-3090, RTX 3090: rtx3090) */
static void squeeze(const char *name, char *out, size_t n)
{
	size_t j = 0;
	for (const char *p = name; *p && j + 1 < n; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9'))
			out[j++] = *p;
		else if (*p >= 'A' && *p <= 'Z')
			out[j++] = (char)(*p - 'A' + 'a');
	out[j] = '\0';
}

/* The profiles name means, into v (at most 4): the same letters and digits,
 * else every profile that holds them (3090; a100: both), else the nearest
 * within two edits. Returns how many. */
static unsigned device_nearest(const char *name, const struct device **v)
{
	char want[64], have[64];
	squeeze(name, want, sizeof(want));
	if (!*want)
		return 0;
	const struct device *near = NULL;
	unsigned n = 0;
	size_t best = 3;
	for (unsigned i = 0; i < device_n_profiles; i++) {
		squeeze(device_profiles[i].name, have, sizeof(have));
		if (strcmp(want, have) == 0) {
			v[0] = &device_profiles[i];
			return 1;
		}
		if (strlen(want) >= 3 && strstr(have, want) && n < 4)
			v[n++] = &device_profiles[i];
		size_t d = edit_distance(want, have);
		if (d < best) {
			best = d;
			near = &device_profiles[i];
		}
	}
	if (!n && near)
		v[n++] = near;
	return n;
}

const char *device_unknown_hint(const char *name, char *buf, size_t n)
{
	const struct device *v[4];
	unsigned m = device_nearest(name, v);
	size_t k = 0;
	buf[0] = '\0';
	for (unsigned i = 0; i < m && k < n; i++) {
		int w = snprintf(buf + k, n - k, "%s%s",
				 i == 0	      ? "did you mean "
				 : i + 1 == m ? " or "
					      : ", ",
				 v[i]->name);
		k += w > 0 ? (size_t)w : 0;
	}
	if (m && k < n) {
		int w = snprintf(buf + k, n - k, "? ");
		k += w > 0 ? (size_t)w : 0;
	}
	if (k < n)
		snprintf(buf + k, n - k,
			 "zealot plan --help lists the profiles; a card not listed is priced as the profile "
			 "nearest it with ADDRESSABLE_MIB=its free MiB (nvidia-smi), or DEVICES=PROFILE:MIB per "
			 "card");
	return buf;
}

/* Read once per process (base/host.c): every plan a command makes holds
 * the host to the same figure (a solver's thousand candidate plans must
 * agree). */
uint64_t device_host_available_mib(void)
{
	return host_available_mib();
}

int64_t device_nvidia_mib(unsigned card, const char *field)
{
	char query[64], index[16];
	snprintf(query, sizeof(query), "--query-gpu=%s", field);
	snprintf(index, sizeof(index), "%u", card);
	/* -i: the endpoint's card, never whichever nvidia-smi lists first */
	const char *argv[] = {"nvidia-smi", query, "--format=csv,noheader,nounits", "-i", index, NULL};
	struct proc_result r;
	char *err = NULL;
	long long v = -1;
	if (proc_run(argv, 20000, 4096, &r, &err) == 0) {
		if (r.status == 0 && r.out.len)
			v = strtoll(r.out.s, NULL, 10);
		proc_result_release(&r);
	}
	free(err);
	return v >= 0 ? v : -1;
}

int64_t device_nvidia_free_mib(unsigned card)
{
	int64_t v = device_nvidia_mib(card, "memory.free");
	return v > 0 ? v : -1;
}

unsigned device_card_of(const char *gpu)
{
	return gpu && *gpu ? (unsigned)strtoul(gpu, NULL, 10) : 0;
}
