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
 *                                     at the draft cache types, nextn layers only;
 *                                     a drafter model (draft-simple): its own
 *                                     weights, and a context of the target's
 *                                     n_ctx and slots at the draft cache types,
 *                                     one output per slot, priced as a plan of
 *                                     its own
 *   model     src/llama-model.cpp     mmap'd host range for CPU tensors; the
 *                                     offloaded tensors' padded sizes on the card
 *   placement place.h                 which device holds each layer, weight and
 *                                     cache (NGL, TENSOR_SPLIT, OVERRIDE_TENSOR,
 *                                     N_CPU_MOE, KV_OFFLOAD, RPC, DEVICES); every
 *                                     term per device buffer
 *
 * Model, KV, state, draft KV and output are exact (to the byte). Compute
 * buffers are modelled, not enumerated (see plan_compute_model()).
 */
#ifndef ZEALOT_PLAN_H
#define ZEALOT_PLAN_H

#include "plan_base.h"

struct plan_extras {
	const struct gguf *projector; /* the mmproj header, or NULL */
	const struct gguf *lora;      /* the adapter header, or NULL */
	uint64_t addressable_mib;     /* 0: the profile's (or the host's for cpu) */
	uint64_t slack_mib;
	struct memo *memo; /* reuse between candidate plans (memo.h), or NULL */
	/* the drafter model of SPEC_TYPE=draft-simple (SPEC_DRAFT_MODEL_FILE), or NULL */
	const struct model *draft_m;
	const struct gguf *draft_g;
};

/* Price the shape. m and g are the payload's geometry and header. Returns 0
 * or -1 with *err when the shape cannot exist (e.g. 0 slots) or its
 * placement cannot (a pattern, a buffer or a split the engine refuses). */
int plan_make(const struct model *m, const struct gguf *g, const struct plan_shape *s, const struct device *dev,
	      const struct plan_extras *x, struct plan *out, char **err);

/* Sum every buffer into its device's total (a buffer not on a device
 * bills the host), then each device's free memory and verdict against its
 * addressable memory and slack, and the single-device figures
 * (device_total, host_total, free_bytes, fits). plan_make ends with it; a
 * step that changes terms afterwards (plan_calibrate) calls it again. */
void plan_bill(struct plan *p);

/* Names of the terms the planner calls exact (ledger diffs fail on these). */
int plan_term_exact(const char *term);
/* llama_model::create_memory makes no memory for arch (an encoder, a
 * diffusion model): no KV cache. */
int plan_arch_memoryless(const char *arch);

/* Whether the engine feeds the weight to a matrix multiply (MUL_MAT, or
 * MUL_MAT_ID for a 3-D expert stack): the only weights the CPU backend's
 * extra buffer types (CPU_REPACK, AMX) take. */
int plan_weight_is_matmul(const struct gguf_tensor *t);

#endif
