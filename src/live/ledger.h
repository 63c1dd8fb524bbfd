/* ledger: what the engine really allocated, read from its boot log at
 * verbosity 4 (law M08: a measured ledger outranks any projection).
 *
 * Reads a log from memory: a plain llama-server log or a journal excerpt
 * (any prefix before the engine's own text is ignored). Lines after
 * "creating MTP draft context" (or "loading draft model") belong to the
 * draft context. Unknown lines are skipped; a truncated log yields the
 * terms it reached.
 */
#ifndef ZEALOT_LEDGER_H
#define ZEALOT_LEDGER_H

#include <stddef.h>
#include <stdint.h>

#include "../plan/cpu.h"

#define LEDGER_MAX_BUFS 12

struct ledger_buf {
	char buft[48]; /* the engine's buffer name: CPU_Mapped, CUDA0, RPC0[127.0.0.1:50061] */
	double mib;
	unsigned lines; /* the lines summed into mib (each rounded to 0.01 MiB) */
};

struct ledger_kv {
	int present;
	double mib, k_mib, v_mib;
	uint32_t cells, layers, seqs, streams;
	char k_type[16], v_type[16];
	int second;	/* a DSA cache's indexer cache follows: its size line adds to the MLA cache's */
	unsigned lines; /* the size lines summed (deepseek4: the raw base and three compressed caches) */
	struct ledger_buf bufs[LEDGER_MAX_BUFS]; /* "KV buffer size" per buffer */
	unsigned n_bufs;
};

struct ledger_rs {
	int present;
	double mib, r_mib, s_mib;
	double p_mib; /* qwen4exp's PLE conv rows (cache_ple_r_l) */
	uint32_t cells, layers, seqs, rs_seq;
	struct ledger_buf bufs[LEDGER_MAX_BUFS]; /* "RS buffer size" per buffer */
	unsigned n_bufs;
};

struct ledger_ctx {
	int present;
	uint32_t n_ctx, n_ctx_seq, n_seq_max, n_batch, n_ubatch, n_rs_seq;
	int kv_unified; /* -1 unknown */
	struct ledger_buf output[LEDGER_MAX_BUFS];
	unsigned n_output;
	struct ledger_kv kv, kv_swa;
	struct ledger_rs rs;
	struct ledger_buf compute[LEDGER_MAX_BUFS];
	unsigned n_compute;
};

struct ledger {
	struct ledger_buf model[LEDGER_MAX_BUFS];
	unsigned n_model;
	struct ledger_ctx target, draft;
	int draft_announced;
	/* a separate drafter's weights ("load_tensors:" after "loading draft model") */
	struct ledger_buf draft_model[LEDGER_MAX_BUFS];
	unsigned n_draft_model;
	/* layers of the cache being read that share another context's (gemma4-assistant) */
	unsigned kv_sharing;

	/* the projector */
	int has_projector;
	double projector_model_mib; /* clip "model size" */
	double projector_worst_mib; /* "[mtmd] estimated worst-case" */
	struct ledger_buf projector_compute[LEDGER_MAX_BUFS];
	unsigned n_projector_compute;

	struct ledger_buf lora[LEDGER_MAX_BUFS];
	unsigned n_lora;

	/* the server */
	uint32_t n_slots;
	uint32_t slot_n_ctx; /* from "new slot, n_ctx = N" */
	uint32_t slot_lines;

	/* the engine's own fit projection (common/fit.cpp) */
	int has_fit;
	double fit_projected_mib, fit_free_mib;
	int fit_short; /* "cannot meet free memory target" */
	double fit_target_mib, fit_reduce_mib;

	/* the engine's CPU features, from its "system_info:" line */
	int has_cpu;
	struct cpu_features cpu;
	/* the engine's build as it names itself ("b10777-e3de71522"), from
	 * "common_params_print_info: build N (COMMIT) with ..."; "" if absent */
	char build[64];

	char engine_error[256]; /* the first fatal line, if the boot failed */
	int lines;		/* lines read */
	int recognised;		/* ledger lines recognised */
};

/* Parse a log held in buf[0..len). Never fails: an empty or foreign log
 * yields an empty ledger (recognised == 0), which callers report. */
void ledger_parse(const char *buf, size_t len, struct ledger *out);

/* The ledger as `zealot ledger --json` prints it (and the store keeps it:
 * calibration and history read these keys): {"build", "model": [{device,
 * mib}], "target"/"draft": {n_ctx, n_ctx_seq, n_seq_max, n_batch, n_ubatch,
 * n_rs_seq, kv_unified, kv, kv_swa, recurrent, output, compute} or null,
 * "lora", "engine_error", "n_slots", "slot_n_ctx", "projector": {model_mib,
 * worst_case_mib, compute} or null, "fit"}. A new reference. */
struct json_t;
struct json_t *ledger_to_json(const struct ledger *l);

/* Sum of a buffer list's MiB. */
double ledger_sum(const struct ledger_buf *b, unsigned n);

#endif
