/* ledger_compare: the plan held against a boot ledger, term by term (law
 * M08: the measured ledger outranks the projection). `zealot ledger
 * --endpoint` prints it; `zealot deploy` refuses a boot whose exact terms
 * differ from the plan it was gated on.
 *
 * Terms the planner calls exact (context, model, kv, kv_swa, recurrent,
 * draft_kv, output) must agree to 0.01 MiB as the engine prints them (two
 * decimals, printf's rounding); compute, lora and projector are modelled and
 * only their error is reported.
 */
#ifndef ZEALOT_LEDGER_COMPARE_H
#define ZEALOT_LEDGER_COMPARE_H

#include <stddef.h>

#include "../plan/plan.h"
#include "ledger.h"

struct ledger_row {
	const char *term; /* "kv", "model", "context" ... (static) */
	char part[48];	  /* "k_mib", "cells", a buffer type (RPC0[127.0.0.1:50061]) ... */
	double plan, ledger, diff, error_pct;
	int exact, match;
	int count; /* a count (cells, layers, n_ctx), not MiB */
};

struct ledger_comparison {
	struct ledger_row *v;
	size_t n;
	int diverged; /* an exact term differs */
};

void ledger_compare(const struct plan *p, const struct ledger *l, struct ledger_comparison *out);
void ledger_comparison_release(struct ledger_comparison *c);

/* The rows that differ, as "kv.cells plan 4096 ledger 8192; ..." (allocated),
 * at most max of them; "" when none. */
char *ledger_comparison_summary(const struct ledger_comparison *c, size_t max);

#endif
