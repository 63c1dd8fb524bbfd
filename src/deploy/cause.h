/* cause: why an engine start failed (or booted wrong), named from the
 * journal of that start, so a failed deploy says what to do instead of
 * "the unit failed":
 *
 *   A09  No CUDA GPUs are available / no CUDA-capable device: the device
 *        node is missing after a reboot (nvidia-modprobe -u -c=0), not a
 *        payload fault
 *   M09  cudaMalloc out of memory, and which ledger term asked for it (kv,
 *        recurrent, compute, output, model, the draft's, the projector's)
 *   C08  203/EXEC: the start command is not directly executable
 *   C03  (or the law serve named) status 78: zealot serve refused at a gate
 *   M10  KV placed in host memory on a GPU device: decode halves silently
 *   A02  the port is taken (couldn't bind): a leftover engine answers it
 *
 * and a few the operator also meets: the unit's sandbox could not be set up
 * (226/NAMESPACE), the runtime's libraries do not load, the host OOM killer,
 * the engine's own fatal line. A plain function over text, so it is tested on
 * journal fixtures and fuzzed.
 */
#ifndef ZEALOT_CAUSE_H
#define ZEALOT_CAUSE_H

#include <stddef.h>

struct cause {
	char law[8];	  /* the law's id, or "" when none applies */
	const char *what; /* one sentence (static) */
	const char *fix;  /* what to do (static), or NULL */
	char *line;	  /* the journal line that says so, trimmed (allocated) */
	char *term;	  /* M09: the term that asked for the memory, or NULL */
	int partial;	  /* status 78 without serve's own refusal line: journald
			   * reads a unit's stderr apart from systemd's messages,
			   * so that line may land later; read the journal again */
};

/* Classify the journal text of one start. gpu: the endpoint's device is a
 * GPU profile (M10 only applies there). Returns 1 with *out filled when a
 * cause is recognised, 0 (and *out zeroed) when none is. */
int cause_classify(const char *journal, size_t len, int gpu, struct cause *out);
void cause_release(struct cause *c);

#endif
