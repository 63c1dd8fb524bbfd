/* promfile: zealot's own knowledge of an endpoint as metrics, in the text
 * format of prometheus-node-exporter's textfile collector (a *.prom file
 * in --collector.textfile.directory). llama.cpp's /metrics carries no
 * memory figure; the plan, the boot ledger and the settled figure are
 * zealot's:
 *
 *   zealot_memory_mib{endpoint,term,buffer,source="plan|ledger|settled"}
 *   zealot_slack_mib{endpoint,source="plan|settled"}   free after every term
 *   zealot_era{endpoint}                                the current era's id
 *   zealot_probe_pass{endpoint,probe}                   1 pass, 0 fail
 *
 * The file is written atomically (a temporary file in the same directory,
 * renamed over it), so the collector never reads half of one.
 */
#ifndef ZEALOT_PROMFILE_H
#define ZEALOT_PROMFILE_H

#include <stdint.h>

#include "../plan/plan.h"
#include "ledger.h"
#include "probe.h"

struct promfile {
	const char *endpoint;
	const struct plan *plan;	    /* NULL: none */
	const struct ledger *ledger;	    /* NULL: none (needs plan: rows by term) */
	int64_t settled_used_mib;	    /* -1: not measured */
	int64_t era;			    /* 0: none */
	const struct probe_results *probes; /* NULL: none */
};

/* The collector's text (allocated). */
char *promfile_text(const struct promfile *f);
/* text into path, atomically. 0, or -1 with *err. */
int promfile_write(const char *path, const char *text, char **err);

#endif
