/* rename: an endpoint renamed with its history (`zealot rename FROM TO`).
 *
 *   gates     TO is a name (store_name_ok, deploy_unit_name_ok) nobody
 *             holds: no era of it in the store, no TO.env or TO.service
 *             other than the ones this rename writes; FROM is deployed
 *             (a current era, its file installed) and no router
 *   install   TO.env (FROM's installed text, secrets included) and
 *             TO.service (the unit emitted for TO.env), daemon-reload
 *   stop      FROM.service disabled and stopped: nothing serves twice
 *   start     TO.service enabled and started, /health 200
 *   record    the store's rows move to TO in one transaction
 *   retire    FROM.service and FROM.env removed, daemon-reload
 *
 * A failed start or record stops TO, removes its files and starts FROM
 * again. A fault point follows each step (rename:after-STEP). A run cut
 * anywhere is completed by running it again: before record FROM's era is
 * current and TO's files are this rename's own, so they are taken over;
 * after record the rerun only retires FROM's files. Until start, FROM
 * serves. The module prints nothing.
 */
#ifndef ZEALOT_RENAME_H
#define ZEALOT_RENAME_H

#include <stddef.h>
#include <stdint.h>

#include "../store/store.h"

struct rename_opts {
	const char *from, *to;
	const char *unit_dir; /* NULL: /etc/systemd/system */
	const char *env_dir;  /* NULL: /etc/zealot */
	const char *zealot;   /* the binary TO's unit runs */
	long boot_timeout_ms; /* how long TO may take to answer /health */
	int dry_run;	      /* gates only: say what would be done */
};

enum rename_outcome {
	RENAME_RENAMED,	    /* TO serves with FROM's history; FROM is gone */
	RENAME_DRY_RUN,	    /* the gates passed; nothing was touched */
	RENAME_REFUSED,	    /* a gate said no; nothing was touched */
	RENAME_ROLLED_BACK, /* start or record failed; FROM serves again */
	RENAME_FAILED,	    /* and putting FROM back failed too */
};

struct rename_result {
	enum rename_outcome outcome;
	char *from_unit, *to_unit, *from_env, *to_env; /* unit names and endpoint file paths */
	int64_t era;				       /* the current era, now TO's */
	size_t n_eras;				       /* eras moved */
	int resumed;				       /* a cut run's work was found and carried on */
	char **steps;				       /* "STEP: what was done" (dry run: would be) */
	size_t n_steps;
	char *why; /* not renamed: why */
};

enum rename_outcome rename_run(struct store *st, const struct rename_opts *o, struct rename_result *r);
void rename_result_release(struct rename_result *r);
const char *rename_outcome_name(enum rename_outcome o);

#endif
