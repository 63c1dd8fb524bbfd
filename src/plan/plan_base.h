/* plan_base: the plan's types (the terms, their buffers, the devices they
 * bill) and the small helpers every step of pricing shares. The graph
 * replay (compute.c) and the memo fill a plan through these without
 * reaching back into plan.c, which drives them.
 */
#ifndef ZEALOT_PLAN_BASE_H
#define ZEALOT_PLAN_BASE_H

#include <stdint.h>

#include "../payload/ggml_type.h"
#include "../payload/gguf.h"
#include "../payload/model.h"
#include "cpu.h"
#include "cuda.h"
#include "device.h"
#include "place.h"

struct plan_shape {
	uint64_t ctx_size; /* CTX_SIZE: the total pool asked for */
	uint32_t parallel; /* PARALLEL */
	int kv_unified;
	const struct ggml_type_info *type_k, *type_v;
	int flash_attn; /* 1 on (or auto resolving on), 0 off */
	uint32_t n_batch, n_ubatch;
	uint32_t ngl;
	int spec_mtp;	 /* SPEC_TYPE includes draft-mtp */
	int spec_model;	 /* SPEC_TYPE includes draft-simple: a separate drafter model (SPEC_DRAFT_MODEL_FILE) */
	int spec_assist; /* draft-mtp with SPEC_DRAFT_MODEL_FILE: an MTP drafter of its own (gemma4-assistant) */
	int spec_hidden; /* draft-eagle3 or draft-dflash: a drafter of the target's hidden states */
	uint32_t spec_n_max;
	const struct ggml_type_info *draft_k, *draft_v;
	int swa_full;
	int embeddings;		 /* EMBEDDINGS: the output buffer holds embeddings too */
	int pooling;		 /* POOLING: 0 the payload's, else none, mean, cls, last, rank (1..5) */
	int repack;		 /* REPACK: the CPU backend's extra buffer types may take weights */
	struct cpu_features cpu; /* the host the engine runs on (CPU_FEATURES, else this host) */
	/* placement (place.h): NGL above, then N_CPU_MOE, OVERRIDE_TENSOR,
	 * KV_OFFLOAD, TENSOR_SPLIT, SPLIT_MODE, RPC, DEVICES (ngl is copied in) */
	struct place_request place;
	struct cuda_build cuda; /* a CUDA build's flags (cuda.h; zeroed: the pinned defaults) */
};

/* A buffer on a buffer type ("CPU_Mapped", "CUDA0", "CUDA_Host", "CPU",
 * "RPC0[127.0.0.1:50061]"), named as the engine prints it. */
struct plan_buf {
	char buft[48];
	uint64_t bytes;
	int on_device;	/* bills a device (a card, an RPC server) rather than the host */
	int dev;	/* the device it bills: an index into plan.devs (the host is the last) */
	int calibrated; /* set by plan_calibrate: the figure comes from a recorded boot */
};

#define PLAN_MAX_BUFS  16
#define PLAN_MAX_DEVS  (PLACE_MAX_DEV + 1)
#define PLAN_MAX_NOTES 8

/* A device the plan holds to its memory: each card or RPC server, then the
 * host (always last). */
struct plan_dev {
	char name[48];	     /* the engine's name (CUDA0, RPC0[127.0.0.1:50061]) or "host" */
	const char *profile; /* the device profile */
	uint64_t total;	     /* every buffer billed here */
	uint64_t overhead;   /* of which the profile's runtime context (a CUDA card) */
	uint64_t addressable;
	uint64_t slack; /* SLACK_MIB on every card and on a cpu plan's host; 0 on a card plan's host */
	int64_t free_bytes;
	int fits;
	uint32_t layers; /* repeating layers placed here */
	int output;	 /* the output layer is placed here */
};

/* One KV cache as the engine prints it:
 * "size = X MiB (CELLS cells, LAYERS layers, SEQS/STREAMS seqs), K (t): ..., V (t): ..." */
struct plan_kv {
	int present;
	uint32_t cells, layers, seqs, streams;
	uint64_t k_bytes, v_bytes;
	const char *k_type, *v_type;
	/* "KV buffer size" per buffer, in the engine's order (by name) */
	struct plan_buf bufs[PLAN_MAX_DEVS];
	unsigned n_bufs;
};

/* The recurrent state: "size = X MiB (CELLS cells, LAYERS layers, SEQS seqs RS rs_seq), R (f32): ..., S (f32): ..." */
struct plan_rs {
	int present;
	uint32_t cells, layers, seqs, rs_seq, recurrent_layers;
	uint64_t r_bytes, s_bytes;
	uint64_t p_bytes;		     /* of r_bytes: qwen4exp's PLE conv rows (cache_ple_r_l, at R's type) */
	struct plan_buf bufs[PLAN_MAX_DEVS]; /* "RS buffer size" per buffer */
	unsigned n_bufs;
};

struct plan {
	/* the context as the engine derives it */
	uint32_t n_ctx, n_ctx_seq, n_seq, n_outputs_max;
	int ctx_rounded; /* the engine rounds n_ctx to n_ctx_seq * n_seq */

	struct plan_buf model[PLAN_MAX_BUFS];
	unsigned n_model;
	struct plan_kv kv, kv_swa, draft_kv;
	struct plan_rs rs;
	uint64_t output_bytes;
	char output_buft[16]; /* CPU, or CUDA_Host when the output layer is on a card */
	struct plan_buf compute[PLAN_MAX_BUFS];
	unsigned n_compute;
	struct plan_buf draft_compute[PLAN_MAX_BUFS];
	unsigned n_draft_compute;
	uint64_t draft_output_bytes;
	/* draft-eagle3/dflash: the target's extracted layer inputs, n_embd x
	 * n_batch floats a layer, added to its output buffer at its first
	 * decode (output_reserve; the engine logs no line for it) */
	uint64_t extract_bytes;
	int has_draft;
	/* a separate drafter's weights (SPEC_DRAFT_MODEL_FILE), per buffer */
	struct plan_buf draft_model[PLAN_MAX_BUFS];
	unsigned n_draft_model;

	uint64_t projector_weights, projector_compute;
	uint64_t lora_bytes;
	uint64_t overhead_bytes;
	int projector_calibrated, overhead_calibrated; /* set by plan_calibrate */

	/* the budget, in bytes, on the device that gates the fit */
	uint64_t device_total, host_total;
	uint64_t addressable;
	uint64_t slack;
	int64_t free_bytes; /* addressable - device_total (negative: does not fit) */
	int fits;
	const struct device *device;

	/* placement: every device, then the host (plan_dev); the engine's
	 * "offloaded N/M layers to GPU" */
	struct plan_dev devs[PLAN_MAX_DEVS];
	unsigned n_devs, n_cards; /* n_devs = n_cards + 1 (the host) */
	uint32_t offloaded, offloadable;
	int kv_offload, pipeline;
	uint32_t n_overrides;
	unsigned main_dev; /* the device the single-device figures describe (DEVICE's card, or the host) */
	unsigned side_dev; /* the device the projector and adapter bill */

	/* What zealot does not mirror for this payload yet ("compute graph of
	 * 'phi3' (...)"): the figures it touches are estimates, and every
	 * report says so. */
	char unmirrored[PLAN_MAX_NOTES][128];
	unsigned n_unmirrored;
	/* With a CUDA device: how its compute buffers were modelled (cuda.h),
	 * the build's flags and where they came from, and where flash
	 * attention runs; "" without one. */
	char cuda_note[640];
	int cuda_fa_on_card; /* 1 the target's flash attention has a kernel on the card, 0 it runs on the CPU */
};

struct memo;

/* Note a rule the plan could not mirror for this payload (printf-style);
 * the same note twice is kept once. */
void plan_note_unmirrored(struct plan *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Bytes to MiB the engine's way, for printing with %.2f. */
double plan_mib(uint64_t bytes);

#endif
