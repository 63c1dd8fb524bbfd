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

#include <stddef.h>
#include <stdint.h>

enum device_backend {
	DEVICE_CPU,    /* everything in host memory */
	DEVICE_CUDA,   /* offloaded buffers on the card, the rest host */
	DEVICE_RPC,    /* an rpc-server (ggml-rpc-server) on a CPU backend: a
			* GPU-class device to the engine, CPU-class buffers */
	DEVICE_VULKAN, /* ggml-vulkan: offloaded buffers on the device
			* (VulkanN), the host's in Vulkan_Host (vulkan.h) */
};

struct device {
	const char *name;
	enum device_backend backend;
	uint64_t advertised_mib;
	uint64_t addressable_mib; /* 0 for cpu and rpc: read from the host */
	uint64_t overhead_mib;	  /* runtime context once the engine runs */
	const char *note;
	unsigned bandwidth_gbs; /* published memory bandwidth, GB/s (decode, law A06); 0 unknown */
};

extern const struct device device_profiles[];
extern const unsigned device_n_profiles;

const struct device *device_find(const char *name);
/* Why name is no profile, for an error after "'NAME' is not a known
 * profile": the nearest profile when one is close (rtx-3090, RTX3090 and
 * 3090 all mean rtx3090: case, dashes and a bare model number aside), the
 * list's place, and how to price a card that is not listed. Into buf. */
const char *device_unknown_hint(const char *name, char *buf, size_t n);

/* A GPU-class device whose buffers are the card's own and whose host
 * buffer is pinned (CUDA, Vulkan): not the host, not an rpc-server. */
int device_is_card(const struct device *d);

/* The engine's name for card n of a profile's backend ("CUDA0",
 * "Vulkan1") into out. */
void device_card_name(const struct device *d, unsigned n, char *out, unsigned size);

/* The pinned host buffer type of a card's backend: "CUDA_Host",
 * "Vulkan_Host"; "CPU" for anything else. */
const char *device_host_buft(const struct device *d);
/* The variable that chooses the engine's card on this device's backend
 * (GGML_VK_VISIBLE_DEVICES for Vulkan, else CUDA_VISIBLE_DEVICES): the unit
 * sets it from GPU, and serve passes it on only with GPU's value. */
const char *device_visible_var(const struct device *d);

/* The host's available memory in MiB (MemAvailable), 0 if unknown. */
uint64_t device_host_available_mib(void);

/* nvidia-smi's FIELD (memory.free, memory.used) in MiB for the card
 * (nvidia-smi -i CARD), or -1 when there is none or it cannot be run. */
int64_t device_nvidia_mib(unsigned card, const char *field);
/* Free MiB on the card per nvidia-smi, or -1 (none, zero, no nvidia-smi). */
int64_t device_nvidia_free_mib(unsigned card);
/* The card a GPU value names (its index; unset or empty: card 0). */
unsigned device_card_of(const char *gpu);

#endif
