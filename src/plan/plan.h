/* plan: the memory the engine will allocate for a serving shape, term by
 * term, mirroring the pinned engine's allocation rules:
 *
 *   context   src/llama-context.cpp   n_ctx padded to 256; per-slot n_ctx_seq
 *                                     = pad(n_ctx / n_seq, 256) unless unified;
 *                                     output buffer = n_vocab * n_seq * 4 B
 *   KV        src/llama-kv-cache.cpp  per KV layer: row(type_k, n_embd_k_gqa) +
 *                                     row(type_v, n_embd_v_gqa) per cell, cells =
 *                                     n_ctx_seq per stream, streams = n_seq unless
 *                                     unified; V rows at the widest layer when
 *                                     flash attention is off (transposed V)
 *   SWA       src/llama-kv-cache-iswa.cpp  window layers hold
 *                                     pad(min(n_ctx_seq, n_swa*(unified?n_seq:1) + n_ubatch), 256)
 *   state     src/llama-memory-recurrent.cpp  per recurrent layer and row:
 *                                     (n_embd_r + n_embd_s) * 4 B; rows =
 *                                     max(1, n_seq) * (1 + n_rs_seq), n_rs_seq =
 *                                     the draft depth when an MTP drafter is armed
 *   draft     common/speculative.cpp  the MTP context: the target's whole pool
 *                                     at the draft cache types, nextn layers only
 *   model     src/llama-model.cpp     mmap'd host range for CPU tensors; the
 *                                     offloaded tensors' padded sizes on the card
 *
 * Model, KV, state, draft KV and output are exact (to the byte). Compute
 * buffers are modelled, not enumerated (see plan_compute_model()).
 */
#ifndef ZEALOT_PLAN_H
#define ZEALOT_PLAN_H

#include <stdint.h>

#include "../payload/ggml_type.h"
#include "../payload/gguf.h"
#include "../payload/model.h"
#include "device.h"

struct plan_shape {
	uint64_t ctx_size; /* CTX_SIZE: the total pool asked for */
	uint32_t parallel; /* PARALLEL */
	int kv_unified;
	const struct ggml_type_info *type_k, *type_v;
	int flash_attn; /* 1 on (or auto resolving on), 0 off */
	uint32_t n_batch, n_ubatch;
	uint32_t ngl;
	int spec_mtp; /* SPEC_TYPE includes draft-mtp */
	uint32_t spec_n_max;
	const struct ggml_type_info *draft_k, *draft_v;
	int swa_full;
	int repack; /* REPACK: the CPU backend's extra buffer type may take weights */
};

/* One KV cache as the engine prints it:
 * "size = X MiB (CELLS cells, LAYERS layers, SEQS/STREAMS seqs), K (t): ..., V (t): ..." */
struct plan_kv {
	int present;
	uint32_t cells, layers, seqs, streams;
	uint64_t k_bytes, v_bytes;
	const char *k_type, *v_type;
};

/* The recurrent state: "size = X MiB (CELLS cells, LAYERS layers, SEQS seqs RS rs_seq), R (f32): ..., S (f32): ..." */
struct plan_rs {
	int present;
	uint32_t cells, layers, seqs, rs_seq, recurrent_layers;
	uint64_t r_bytes, s_bytes;
};

/* A buffer on a buffer type ("CPU_Mapped", "CUDA0", "CUDA_Host", "CPU"). */
struct plan_buf {
	char buft[16];
	uint64_t bytes;
	int on_device;	/* bills the card (CUDA profiles) rather than the host */
	int calibrated; /* set by plan_calibrate: the figure comes from a recorded boot */
};

#define PLAN_MAX_BUFS 4

struct plan {
	/* the context as the engine derives it */
	uint32_t n_ctx, n_ctx_seq, n_seq, n_outputs_max;
	int ctx_rounded; /* the engine rounds n_ctx to n_ctx_seq * n_seq */

	struct plan_buf model[PLAN_MAX_BUFS];
	unsigned n_model;
	struct plan_kv kv, kv_swa, draft_kv;
	struct plan_rs rs;
	uint64_t output_bytes;
	struct plan_buf compute[PLAN_MAX_BUFS];
	unsigned n_compute;
	struct plan_buf draft_compute[PLAN_MAX_BUFS];
	unsigned n_draft_compute;
	uint64_t draft_output_bytes;
	int has_draft;

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
};

struct plan_extras {
	const struct gguf *projector; /* the mmproj header, or NULL */
	const struct gguf *lora;      /* the adapter header, or NULL */
	uint64_t addressable_mib;     /* 0: the profile's (or the host's for cpu) */
	uint64_t slack_mib;
};

/* Price the shape. m and g are the payload's geometry and header. Returns 0
 * or -1 with *err when the shape cannot exist (e.g. 0 slots). */
int plan_make(const struct model *m, const struct gguf *g, const struct plan_shape *s, const struct device *dev,
	      const struct plan_extras *x, struct plan *out, char **err);

/* Sum the terms into device_total and host_total (a term's on_device
 * bills the card on a CUDA profile, everything bills the host on cpu), then
 * free_bytes and the verdict against addressable and slack. plan_make ends
 * with it; a step that changes terms afterwards (plan_calibrate) calls it
 * again. */
void plan_bill(struct plan *p);

/* Bytes to MiB the engine's way, for printing with %.2f. */
double plan_mib(uint64_t bytes);

/* Names of the terms the planner calls exact (ledger diffs fail on these). */
int plan_term_exact(const char *term);

#endif
