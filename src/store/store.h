/* store: what zealot remembers, in SQLite (Debian's libsqlite3).
 *
 * One database per state directory, `$ZEALOT_STATE_DIR/zealot.db`
 * (default $XDG_STATE_HOME/zealot, else ~/.local/state/zealot), in WAL mode
 * (synchronous FULL, a 10 s busy timeout), its schema versioned with
 * PRAGMA user_version and migrated in place on open, one step per version
 * (store.c: migrations[]; version 2 added the runtime version cache).
 * Three record kinds:
 *
 *   eras      one row per shape an endpoint has served: the endpoint file's
 *             text and sha256, payload pins, the runtime's version line,
 *             argv, the plan as JSON, the unit, the reason, start and end.
 *             At most one era per endpoint is current (ended == 0).
 *   boots     one row per engine boot read back: the parsed ledger as JSON,
 *             settled memory where nvidia-smi answered, probe results,
 *             bench figures; the identity calibration matches on (runtime
 *             version, device, payload sha256/bytes).
 *   attempts  one row per deploy or rollback, with its steps (name,
 *             status, seconds, detail) and an outcome.
 *
 * Every write is one transaction, so a kill -9 at any point leaves either
 * the old or the new state. An attempt that never recorded an outcome was
 * interrupted: store_attempt_list reports it so while nobody holds its
 * endpoint's lock, and the next store_lock of the endpoint records it.
 *
 * Strings in the records below are owned by the record; *_release frees
 * them (NULL-safe). Read back, a string never written is "" (probes_json
 * and bench_json: NULL). Functions return 0 on success and -1 with *err
 * set; getters return 1 when there is nothing to get.
 */
#ifndef ZEALOT_STORE_H
#define ZEALOT_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "../base/zerr.h"

struct store;

/* The state directory: $ZEALOT_STATE_DIR, else $XDG_STATE_HOME/zealot,
 * else ~/.local/state/zealot (as the pin stamps). Allocated. */
char *store_state_dir(void);

/* Open (creating the directory and database, migrating the schema) the
 * store in dir (NULL: store_state_dir()). A database whose user_version is
 * newer than store_schema_version() is refused, untouched. */
struct store *store_open(const char *dir, char **err);
/* store_open for a command, with the kind of a failure in *kind: ZE_IO for
 * every one (a store zealot cannot open, that is damaged or that a newer
 * zealot wrote is no verdict on an endpoint: exit 3). */
struct store *store_open_kind(const char *dir, enum zerr *kind, char **err);
/* The same store for looking up (plan, check): a read-only connection when
 * the store is whole and of the current schema, else store_open's. It
 * writes only through store_runtime_version_put (which opens its own). */
struct store *store_open_read(const char *dir, char **err);
void store_close(struct store *st);

/* Added by h-store: */
/* The schema version this zealot writes (PRAGMA user_version). */
int store_schema_version(void);
/* `<dir>/zealot.db` and the state directory of an open store (borrowed). */
const char *store_path(const struct store *st);
const char *store_dir(const struct store *st);
/* 0 when name may name an endpoint in a path (lock files): not empty, at
 * most 200 bytes, no '/', no leading '.', no '..', no control characters;
 * else -1 with *err. Every function taking an endpoint name checks it. */
int store_name_ok(const char *name, char **err);
/* PRAGMA integrity_check: 0 when "ok", else -1 with *err. */
int store_integrity(struct store *st, char **err);

/* Damage. store_open runs PRAGMA quick_check before anything can write
 * (every command that opens the store may): a damaged store is refused,
 * the message saying how to recover (sqlite's .recover through the WAL, or
 * the backup below). Before each schema migration the database is copied
 * to `zealot.db.vN.bak` (N the version it held). A state directory or
 * database zealot cannot write is refused, named as read-only. */
struct store_health {
	char *dir, *path;
	int exists;   /* 0: no store yet (ok) */
	int writable; /* 0: readonly_why says why */
	char *readonly_why;
	int version;	 /* PRAGMA user_version, -1 unknown */
	int ok;		 /* the check found nothing */
	char **problems; /* the check's lines (at most 100) */
	size_t n_problems;
	char **backups; /* zealot.db.vN.bak beside it, oldest version first */
	size_t n_backups;
	char *recovery; /* when !ok: how to recover */
};
/* Check the store in dir (NULL: store_state_dir()) without writing to it
 * (a read-only open, no migration): quick_check, or integrity_check when
 * full. Returns 0 with h filled (h->ok says the verdict), or -1 with *err
 * when the check could not run. */
int store_health_check(const char *dir, int full, struct store_health *h, char **err);
void store_health_release(struct store_health *h);

/* Two deploys of one endpoint must not interleave: an exclusive, non
 * blocking flock on `<dir>/locks/<endpoint>.lock`, released by
 * store_unlock or by the process dying (kill -9 included). Returns the
 * lock's fd, or -1 with *err naming the endpoint and the holder's pid when
 * another process holds it. */
int store_lock(struct store *st, const char *endpoint, char **err);
void store_unlock(int fd);
/* Added: whether another open file holds the endpoint's lock right now (a
 * shared, non-blocking probe released at once; store_lock retries for
 * ~200 ms so a probe never refuses a deploy). Taking the lock also records
 * every attempt of the endpoint still without an outcome as "interrupted":
 * whoever ran it no longer holds the lock. */
int store_locked(struct store *st, const char *endpoint);

struct store_era {
	int64_t id;	       /* filled by store_era_add; what history shows and rollback takes */
	char *endpoint;	       /* the endpoint's name */
	char *endpoint_path;   /* where its file was installed */
	char *env_text;	       /* the endpoint file's whole text */
	char *env_sha256;      /* hex */
	char *pins_json;       /* {"MODEL_FILE": {"path", "bytes", "sha256"}, ...} */
	char *runtime;	       /* the runtime's path */
	char *runtime_version; /* its `--version` line(s) */
	char *argv_json;       /* ["llama-server", ...] */
	char *plan_json;       /* `zealot plan --json` of the shape */
	char *unit_text;       /* the unit file installed */
	char *unit_name;
	char *reason;
	int64_t started; /* unix seconds */
	int64_t ended;	 /* 0 while current */
};

/* Record a new current era; in the same transaction, end the endpoint's
 * previous current era at e->started. Sets e->id. The row keeps env_text
 * with its secret values redacted (redact_text); when it held any, the
 * whole text goes to DIR/secrets/era-ID.env, 0600 in a 0700 directory
 * (and so does any older row's still in the database). */
int store_era_add(struct store *st, struct store_era *e, char **err);
/* An era read back holds the redacted text. For a rollback: put the whole
 * text back into e->env_text, from DIR/secrets/era-ID.env when its redacted
 * form is the row's, else from live (the installed endpoint file's text,
 * or NULL) when it is. 0, or -1 with *err saying the secret values are
 * lost and what to do. An era that held no secret is left as it is. */
int store_era_secrets(struct store *st, struct store_era *e, const char *live, char **err);
/* Eras of one endpoint (NULL: every endpoint), oldest first. *out is an
 * allocated array of *n records: free with store_eras_free. */
int store_era_list(struct store *st, const char *endpoint, struct store_era **out, size_t *n, char **err);
/* One era: by id, or the endpoint's current one when id == 0, or the one
 * before the current when id == -1. Returns 1 (and *out zeroed) when there
 * is none. */
int store_era_get(struct store *st, const char *endpoint, int64_t id, struct store_era *out, char **err);
void store_era_release(struct store_era *e);
void store_eras_free(struct store_era *v, size_t n);

struct store_boot {
	int64_t id;
	int64_t era_id; /* 0: not from a deploy (ledger --record) */
	char *endpoint;
	int64_t at;		/* unix seconds of the record */
	char *source;		/* "deploy", "ledger FILE", ... */
	char *runtime_version;	/* calibration matches on it; stored as store_runtime_id() of what is given */
	char *runtime;		/* added: the runtime's path (a match when its version cannot be read) */
	char *device;		/* the plan's device profile name */
	char *payload_sha256;	/* MODEL pin, or "" when unknown */
	uint64_t payload_bytes; /* MODEL_FILE size */
	/* the parsed ledger: ledger_to_json() (src/live/ledger.h), the same as
	 * `zealot ledger --json`; calibration reads target/draft compute, the
	 * projector and the card terms from it */
	char *ledger_json;
	/* the UNCALIBRATED plan of the booted shape (`zealot plan --json
	 * --no-calibration`, plan_to_json() in src/plan/report.c): calibration
	 * takes the model's figures at this shape from compute[],
	 * draft_compute[] ({device, mib}) and projector.compute_mib (or, when
	 * the plan was calibrated, from calibration.terms[].modelled_mib) */
	char *plan_json;
	int64_t settled_used_mib; /* nvidia-smi after settle, -1 unknown */
	char *probes_json;	  /* probe results, or NULL */
	char *bench_json;	  /* bench figures, or NULL */
};

int store_boot_add(struct store *st, struct store_boot *b, char **err);
/* The latest boot whose runtime_version, device and payload identity
 * (sha256 when both have one, else bytes) match. Returns 1 when none. */
int store_boot_latest(struct store *st, const char *runtime_version, const char *device, const char *payload_sha256,
		      uint64_t payload_bytes, struct store_boot *out, char **err);
/* Added: the same match, on the runtime's version when runtime_version is
 * non-empty (or, given runtime too, a boot at that path that recorded no
 * version: a log without a build line), else on its path (runtime): for a
 * runtime that cannot be run here (another host's build) the path is the
 * best identity there is.
 * Both empty or NULL: any runtime (is any boot of this device and payload
 * recorded at all?). */
int store_boot_match(struct store *st, const char *runtime_version, const char *runtime, const char *device,
		     const char *payload_sha256, uint64_t payload_bytes, struct store_boot *out, char **err);
/* Boots of one era (era_id 0: the boots recorded outside a deploy), oldest
 * first. */
int store_boot_list(struct store *st, int64_t era_id, struct store_boot **out, size_t *n, char **err);
/* Added: every boot of an endpoint (NULL: all), oldest first. */
int store_boot_list_endpoint(struct store *st, const char *endpoint, struct store_boot **out, size_t *n, char **err);
/* Added: one boot by id; 1 when there is none. */
int store_boot_get(struct store *st, int64_t id, struct store_boot *out, char **err);
/* Added: the engine's build identity, as it names itself (llama_build_info,
 * "b10777-e3de71522"), from `llama-server --version` ("version: X (build
 * N, commit C)") or its boot log ("build N (C) with CC for TARGET");
 * anything else is kept as its first line. Allocated. Boots store it, and
 * store_boot_latest/match normalise their query with it, so a --version
 * text and a log line of the same build match. */
char *store_runtime_id(const char *text);
void store_boot_release(struct store_boot *b);
void store_boots_free(struct store_boot *v, size_t n);

/* A deploy or rollback attempt and its steps. */
int64_t store_attempt_begin(struct store *st, const char *endpoint, const char *kind /* deploy|rollback */,
			    const char *reason, char **err);
int store_attempt_step(struct store *st, int64_t attempt, const char *step, const char *status /* ok|failed|skipped */,
		       double seconds, const char *detail, char **err);
/* outcome: deployed, refused, rolled-back, failed, rollback-failed. era_id: the era
 * it made current, 0 when none. */
int store_attempt_end(struct store *st, int64_t attempt, const char *outcome, int64_t era_id, char **err);

struct store_step {
	char *step, *status, *detail;
	double seconds;
};
struct store_attempt {
	int64_t id;
	char *endpoint, *kind, *reason, *outcome; /* outcome "interrupted" when never ended */
	int64_t started, ended, era_id;
	int64_t pid; /* added: the process that began it */
	struct store_step *steps;
	size_t n_steps;
};
/* Attempts (NULL: every endpoint), oldest first, with their steps. One
 * never ended reads "running" while its endpoint's lock is held, else
 * "interrupted". */
int store_attempt_list(struct store *st, const char *endpoint, struct store_attempt **out, size_t *n, char **err);
void store_attempts_free(struct store_attempt *v, size_t n);

/* Added (schema version 2): a runtime's `--version` text cached by its
 * path and a stamp of the binary (size, mtime, inode, device: any rebuild
 * changes it), so a plan does not run the engine each time. get returns 1
 * when nothing is cached for that path and stamp. */
int store_runtime_version_get(struct store *st, const char *path, const char *stamp, char **version, char **err);
int store_runtime_version_put(struct store *st, const char *path, const char *stamp, const char *version, char **err);

/* An era's behaviour baseline: the probes' answers as JSON (an array of
 * probe results with name, expected, answer and, for the refusal probe,
 * prompts). store_baseline_get reads the era's latest recorded baseline or,
 * when none was recorded, the probes of its latest boot (deploy stores
 * them); returns 1 (and *answers_json NULL) when the era has neither. */
int store_baseline_put(struct store *st, const char *endpoint, int64_t era_id, const char *source,
		       const char *answers_json, char **err);
int store_baseline_get(struct store *st, int64_t era_id, char **answers_json, char **source, char **err);

/* Added (schema version 4): an arm, a candidate shape `zealot arm` booted
 * in a transient unit and benched against production in one window: the
 * keys it changed ({"KEY": "VALUE"}), the reason, its figures (bench JSON);
 * production's figures of the same window are boot boot_id's bench_json in
 * era era_id. */
struct store_arm {
	int64_t id;
	char *endpoint;
	int64_t era_id, boot_id;
	int64_t at; /* unix seconds */
	char *keys_json, *reason;
	char *bench_json; /* NULL when not measured */
};
int store_arm_add(struct store *st, struct store_arm *a, char **err);
/* Arms of one endpoint (NULL: all), oldest first; free with store_arms_free. */
int store_arm_list(struct store *st, const char *endpoint, struct store_arm **out, size_t *n, char **err);
void store_arms_free(struct store_arm *v, size_t n);

/* Added (schema version 5): a router endpoint's members as an era
 * installed them, a JSON array [{"name", "text", "sha256"}] (each member
 * file's whole text). A rollback writes them back; history and diff name
 * what changed. store_era_members_get returns 1 (*members_json NULL) when
 * the era recorded none (it is no router's). */
int store_era_members_put(struct store *st, int64_t era_id, const char *members_json, char **err);
int store_era_members_get(struct store *st, int64_t era_id, char **members_json, char **err);

/* Added: an endpoint renamed with its history (`zealot rename`): in one
 * transaction every era, boot, attempt, baseline and arm of from moves to
 * to; the eras' unit name becomes unit_name, an installed path env_from
 * becomes env_to, and the current era's unit text becomes unit_text (what
 * is installed now, what a failed deploy would put back). Refused (-1,
 * nothing written) when to already has eras or from has none; *n_eras the
 * eras moved. */
struct store_rename {
	const char *from, *to;
	const char *env_from, *env_to;
	const char *unit_name, *unit_text;
};
int store_rename(struct store *st, const struct store_rename *r, size_t *n_eras, char **err);

#endif
