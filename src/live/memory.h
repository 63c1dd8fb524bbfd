/* memory: what a running engine holds once it has settled, against its
 * plan (law M10: a KV cache spilled into host or unified memory halves
 * decode and reports no error; law M09: memory beyond the plan eats the
 * slack band). deploy's verify and `zealot audit` use it.
 *
 * Measured: the process's resident memory (/proc/PID/status: VmRSS,
 * RssAnon, RssFile) and, on a CUDA card, the memory nvidia-smi lists for
 * the process on the endpoint's card (`nvidia-smi
 * --query-compute-apps=pid,used_memory -i GPU`). Held to the plan's card
 * total (every term billed there, the runtime context included) and its
 * host total; the boot ledger's figures stand beside them when there is
 * one.
 *
 * The band: a difference within MEMORY_TOL_MIB or MEMORY_TOL_PCT of the
 * plan (the larger) is noise. On the card, less than the plan by more
 * than the band is a spill (M10, an error: deploy fails its memory step),
 * more is the slack band eaten (M09, a warning). On the host, more than
 * the plan by more than the band is a warning (M10 on a card endpoint:
 * memory meant for the card may be held on the host; M09 on a cpu one);
 * on a card endpoint the host's band is MEMORY_HOST_RUNTIME_MIB at least
 * (the CUDA runtime's own host memory, which no plan term prices). Less
 * on the host is no finding: a mapped payload's pages need not be
 * resident.
 */
#ifndef ZEALOT_MEMORY_H
#define ZEALOT_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "../plan/plan_base.h"
#include "ledger.h"

#define MEMORY_TOL_MIB		256.0
#define MEMORY_TOL_PCT		5.0
#define MEMORY_HOST_RUNTIME_MIB 1024.0

struct memory_settled {
	long pid;
	int64_t rss_mib, anon_mib, file_mib; /* /proc/PID/status; -1 unread */
	int card;			     /* the card asked about; -1 none (a cpu plan) */
	int64_t card_used_mib;		     /* the process's memory on the card; -1 unknown */
	char card_note[160];		     /* why card_used_mib is unknown ("" when known) */
};

/* Read the process's memory, and with card >= 0 its memory on that card
 * (nvidia-smi; absent, silent or not listing the process: card_used_mib
 * -1 and card_note says which). Returns 0, or -1 with *err when
 * /proc/PID/status cannot be read. */
int memory_read(long pid, int card, struct memory_settled *out, char **err);

struct memory_row {
	char what[48];	    /* "card 0" (nvidia-smi, the process), "host" (its RSS) */
	double plan_mib;    /* the plan's total there */
	double ledger_mib;  /* the boot ledger's buffers there; -1 no ledger */
	double settled_mib; /* measured; -1 unknown */
	double diff_mib;    /* settled - plan (0 when unknown) */
	double band_mib;    /* the noise band */
	const char *law;    /* NULL: within the band or not measured */
	int error;	    /* 1: a spill (M10 on the card) */
	char why[320];	    /* one sentence */
};

struct memory_report {
	struct memory_row rows[2]; /* the card (when the plan has one), then the host */
	size_t n;
	size_t errors, warnings;
};

/* Judge m against p (and l, may be NULL). Never fails. */
void memory_judge(const struct plan *p, const struct ledger *l, const struct memory_settled *m,
		  struct memory_report *out);

/* {pid, rss_mib, anon_mib, file_mib, card, card_used_mib, card_note, rows:
 * [{what, plan_mib, ledger_mib, settled_mib, diff_mib, band_mib, law,
 * error, why}], errors, warnings}: a new reference. */
struct json_t;
struct json_t *memory_json(const struct memory_report *r, const struct memory_settled *m);

/* One line for a step's detail: each row's plan, settled and difference
 * ("card 0 plan 5,120.00, held 5,100.00 (-20.00 MiB); host ..."),
 * allocated. */
char *memory_summary(const struct memory_report *r);

#endif
