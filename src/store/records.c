/* store: the records (see store.h): eras and their secret files, boots,
 * attempts and their steps, the runtime version cache, behaviour
 * baselines and arms, over the statements of store_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/redact.h"
#include "../base/util.h"
#include "store.h"
#include "store_int.h"

/* --- rows ---------------------------------------------------------------- */

/* Step s to its end, one record of `size` bytes per row, zeroed and then
 * filled by read(); finalizes s. *v and *n hold what was read whatever the
 * outcome. Returns SQLITE_DONE, or the code of the step that failed. */
static int rows_collect(sqlite3_stmt *s, size_t size, void (*read)(sqlite3_stmt *, void *), void **v, size_t *n)
{
	size_t cap = *n;
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		if (*n == cap) {
			cap = cap ? cap * 2 : 8;
			*v = xreallocarray(*v, cap, size);
		}
		void *row = (char *)*v + *n * size;
		memset(row, 0, size);
		read(s, row);
		(*n)++;
	}
	sqlite3_finalize(s);
	return rc;
}

typedef void row_fn(sqlite3_stmt *s, void *row);

/* A kind of record read back: its size, how a row fills one, how one is
 * released, and what a failed list says. */
struct rows {
	size_t size;
	row_fn *read;
	void (*release)(void *row);
	const char *what;
};

/* n records of a kind at v, each released, and v freed. */
static void records_free(void *v, size_t n, const struct rows *k)
{
	for (size_t i = 0; v && i < n; i++)
		k->release((char *)v + i * k->size);
	free(v);
}

/* The one row s selects (its parameters bound), read into out: 0, 1 when
 * it selects none, -1 with *err (what). Finalizes s. */
static int row_get(struct store *st, sqlite3_stmt *s, row_fn *read, void *out, char **err, const char *what)
{
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		read(s, out);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return store_db_err(st, err, what);
}

/* Every row sql selects (?1 the text, ?2 the number, where it has them)
 * as records of kind k in *out and *n: 0, or -1 with *err and nothing
 * kept. */
static int rows_query(struct store *st, const char *sql, const char *text, int64_t num, const struct rows *k,
		      void **out, size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = store_prep(st, sql, err);
	if (!s)
		return -1;
	if (sqlite3_bind_parameter_count(s) >= 1)
		store_bind(s, 1, text);
	if (sqlite3_bind_parameter_count(s) >= 2)
		sqlite3_bind_int64(s, 2, num);
	if (rows_collect(s, k->size, k->read, out, n) == SQLITE_DONE)
		return 0;
	records_free(*out, *n, k);
	*out = NULL;
	*n = 0;
	return store_db_err(st, err, k->what);
}

/* --- eras ---------------------------------------------------------------- */

#define ERA_COLS                                                                                                       \
	"id, endpoint, endpoint_path, env_text, env_sha256, pins_json, runtime, runtime_version, argv_json, "          \
	"plan_json, unit_text, unit_name, reason, started, ended"

static void era_row(sqlite3_stmt *s, void *row)
{
	struct store_era *e = row;
	e->id = sqlite3_column_int64(s, 0);
	e->endpoint = store_col_text(s, 1, 0);
	e->endpoint_path = store_col_text(s, 2, 0);
	e->env_text = store_col_text(s, 3, 0);
	e->env_sha256 = store_col_text(s, 4, 0);
	e->pins_json = store_col_text(s, 5, 0);
	e->runtime = store_col_text(s, 6, 0);
	e->runtime_version = store_col_text(s, 7, 0);
	e->argv_json = store_col_text(s, 8, 0);
	e->plan_json = store_col_text(s, 9, 0);
	e->unit_text = store_col_text(s, 10, 0);
	e->unit_name = store_col_text(s, 11, 0);
	e->reason = store_col_text(s, 12, 0);
	e->started = sqlite3_column_int64(s, 13);
	e->ended = sqlite3_column_int64(s, 14);
}

/* --- an era's secret values, kept out of the database --------------------
 *
 * The era row holds the endpoint file's text with every secret value
 * redacted (redact_text: URL userinfo, values of KEY/TOKEN/PASSWORD/...
 * names). When that differs from the text, the whole text is kept in
 * DIR/secrets/era-ID.env, 0600 in a 0700 directory, for a rollback to
 * restore. history, diff and every copy of the database (the backups
 * migrate takes, a copy a person makes) carry no secret. */

static char *secret_path(const struct store *st, int64_t id)
{
	struct sb b = {0};
	sb_addf(&b, "%s/secrets/era-%lld.env", st->dir, (long long)id);
	return sb_detach(&b);
}

static int secret_write(struct store *st, int64_t id, const char *text, char **err)
{
	struct sb d = {0};
	sb_addf(&d, "%s/secrets", st->dir);
	int rc = store_mkdirs(d.s, err);
	if (rc == 0)
		store_tighten(d.s);
	sb_release(&d);
	if (rc)
		return -1;
	char *path = secret_path(st, id);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	size_t n = strlen(text);
	rc = fd >= 0 && fchmod(fd, 0600) == 0 && write(fd, text, n) == (ssize_t)n && fsync(fd) == 0 ? 0 : -1;
	if (rc)
		errorf(err, "cannot write '%s': %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	free(path);
	return rc;
}

/* Every era row whose text still holds a secret (one recorded before
 * zealot kept them apart): its text to DIR/secrets, the row redacted. In
 * the caller's transaction. */
static int era_seal_all(struct store *st, char **err)
{
	sqlite3_stmt *s = store_prep(st, "SELECT id, env_text FROM eras", err);
	if (!s)
		return -1;
	int64_t *ids = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	while (sqlite3_step(s) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(s, 1);
		char *red = t ? redact_text(t) : NULL;
		if (red && strcmp(red, t) != 0) {
			if (secret_write(st, sqlite3_column_int64(s, 0), t, err)) {
				free(red);
				rc = -1;
				break;
			}
			if (n == cap) {
				cap = cap ? cap * 2 : 8;
				ids = xreallocarray(ids, cap, sizeof(*ids));
			}
			ids[n++] = sqlite3_column_int64(s, 0);
		}
		free(red);
	}
	sqlite3_finalize(s);
	for (size_t i = 0; rc == 0 && i < n; i++) {
		s = store_prep(st, "SELECT env_text FROM eras WHERE id = ?1", err);
		if (!s) {
			rc = -1;
			break;
		}
		sqlite3_bind_int64(s, 1, ids[i]);
		char *red = sqlite3_step(s) == SQLITE_ROW ? redact_text((const char *)sqlite3_column_text(s, 0)) : NULL;
		sqlite3_finalize(s);
		s = store_prep(st, "UPDATE eras SET env_text = ?1 WHERE id = ?2", err);
		if (!s) {
			free(red);
			rc = -1;
			break;
		}
		store_bind(s, 1, red);
		sqlite3_bind_int64(s, 2, ids[i]);
		rc = store_step_done(st, s, err, "cannot redact an era's text");
		sqlite3_finalize(s);
		free(red);
	}
	free(ids);
	return rc;
}

int store_era_secrets(struct store *st, struct store_era *e, const char *live, char **err)
{
	if (!e->env_text)
		return 0;
	char *path = secret_path(st, e->id);
	size_t n = 0;
	char *full = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd >= 0) {
		struct sb b = {0};
		char buf[4096];
		ssize_t r;
		while ((r = read(fd, buf, sizeof(buf))) > 0)
			sb_add(&b, buf, (size_t)r);
		close(fd);
		n = b.len;
		full = sb_detach(&b);
	}
	const char *why = NULL;
	if (full && strlen(full) == n) {
		char *red = redact_text(full);
		int same = strcmp(red, e->env_text) == 0;
		free(red);
		if (same) {
			free(e->env_text);
			e->env_text = full;
			free(path);
			return 0;
		}
		why = "does not match the era's text";
	} else if (!strstr(e->env_text, REDACT_MARK)) {
		free(full);
		free(path);
		return 0; /* the era held no secret */
	} else {
		why = "is missing";
	}
	free(full);
	/* the live endpoint file, when it is this era's text with its secrets */
	if (live) {
		char *red = redact_text(live);
		int same = strcmp(red, e->env_text) == 0;
		free(red);
		if (same) {
			free(e->env_text);
			e->env_text = xstrdup(live);
			free(path);
			return 0;
		}
	}
	errorf(err,
	       "era %lld's endpoint file held secret values, kept in '%s', which %s, and the installed endpoint "
	       "file is not that era's text: put the file back (a backup of %s/secrets), or deploy the endpoint "
	       "file anew",
	       (long long)e->id, path, why, st->dir);
	free(path);
	return -1;
}

int store_era_add(struct store *st, struct store_era *e, char **err)
{
	if (store_name_ok(e->endpoint, err))
		return -1;
	if (e->started <= 0)
		e->started = (int64_t)time(NULL);
	if (store_begin(st, err))
		return -1;
	sqlite3_stmt *s = store_prep(st, "UPDATE eras SET ended = ?1 WHERE endpoint = ?2 AND ended = 0", err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, e->started);
	store_bind(s, 2, e->endpoint);
	int rc = store_step_done(st, s, err, "cannot end the previous era");
	sqlite3_finalize(s);
	if (rc)
		goto fail;
	s = store_prep(st,
		       "INSERT INTO eras (endpoint, endpoint_path, env_text, env_sha256, pins_json, runtime, "
		       "runtime_version, argv_json, plan_json, unit_text, unit_name, reason, started, ended) "
		       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 0)",
		       err);
	if (!s)
		goto fail;
	const char *v[] = {e->endpoint,	       e->endpoint_path, e->env_text,  e->env_sha256, e->pins_json, e->runtime,
			   e->runtime_version, e->argv_json,	 e->plan_json, e->unit_text,  e->unit_name, e->reason};
	char *reason = redact_text(e->reason); /* a history row holds no secret */
	v[11] = reason;
	char *env = redact_text(e->env_text); /* nor an era's text: its secrets go to DIR/secrets */
	v[2] = env;
	for (int i = 0; i < (int)ARRAY_SIZE(v); i++)
		store_bind(s, i + 1, v[i]);
	free(reason);
	sqlite3_bind_int64(s, 13, e->started);
	rc = store_step_done(st, s, err, "cannot record the era");
	sqlite3_finalize(s);
	if (rc) {
		free(env);
		goto fail;
	}
	e->id = sqlite3_last_insert_rowid(st->db);
	e->ended = 0;
	rc = env && strcmp(env, e->env_text) != 0 ? secret_write(st, e->id, e->env_text, err) : 0;
	free(env);
	if (rc || era_seal_all(st, err))
		goto fail;
	if (store_commit(st, err))
		return -1;
	/* the WAL's frames held the rows as they were before era_seal_all */
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	return 0;
fail:
	store_rollback(st);
	return -1;
}

static void era_release(void *row)
{
	store_era_release(row);
}

static const struct rows eras = {sizeof(struct store_era), era_row, era_release, "cannot list the eras"};

int store_era_list(struct store *st, const char *endpoint, struct store_era **out, size_t *n, char **err)
{
	void *v;
	int rc = rows_query(st, "SELECT " ERA_COLS " FROM eras WHERE ?1 IS NULL OR endpoint = ?1 ORDER BY id", endpoint,
			    0, &eras, &v, n, err);
	*out = v;
	return rc;
}

int store_era_get(struct store *st, const char *endpoint, int64_t id, struct store_era *out, char **err)
{
	memset(out, 0, sizeof(*out));
	const char *sql;
	if (id > 0)
		sql = "SELECT " ERA_COLS " FROM eras WHERE id = ?2 AND (?1 IS NULL OR endpoint = ?1)";
	else if (id == 0)
		sql = "SELECT " ERA_COLS " FROM eras WHERE endpoint = ?1 AND ended = 0";
	else
		sql = "SELECT " ERA_COLS " FROM eras WHERE endpoint = ?1 AND "
		      "id < (SELECT id FROM eras WHERE endpoint = ?1 AND ended = 0) ORDER BY id DESC LIMIT 1";
	sqlite3_stmt *s = store_prep(st, sql, err);
	if (!s)
		return -1;
	store_bind(s, 1, endpoint);
	if (id > 0)
		sqlite3_bind_int64(s, 2, id);
	return row_get(st, s, era_row, out, err, "cannot read the era");
}

void store_era_release(struct store_era *e)
{
	if (!e)
		return;
	char **v[] = {&e->endpoint,	   &e->endpoint_path, &e->env_text,  &e->env_sha256, &e->pins_json, &e->runtime,
		      &e->runtime_version, &e->argv_json,     &e->plan_json, &e->unit_text,  &e->unit_name, &e->reason};
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		free(*v[i]);
		*v[i] = NULL;
	}
}

void store_eras_free(struct store_era *v, size_t n)
{
	records_free(v, n, &eras);
}

/* --- boots --------------------------------------------------------------- */

char *store_runtime_id(const char *text)
{
	if (!text)
		return xstrdup("");
	/* `--version`: "version: X (build N, commit C)" */
	const char *p = strstr(text, "(build ");
	if (p) {
		p += 7;
		char *end;
		unsigned long long b = strtoull(p, &end, 10);
		const char *c = strstr(end, "commit ");
		if (end > p && c && c - end < 8) {
			c += 7;
			size_t n = strcspn(c, ") \n\t");
			struct sb s = {0};
			sb_addf(&s, "b%llu-%.*s", b, (int)n, c);
			return sb_detach(&s);
		}
	}
	/* the boot log: "... build N (C) with COMPILER for TARGET" */
	for (p = strstr(text, "build "); p; p = strstr(p + 1, "build ")) {
		const char *q = p + 6;
		char *end;
		unsigned long long b = strtoull(q, &end, 10);
		if (end == q || end[0] != ' ' || end[1] != '(')
			continue;
		const char *c = end + 2;
		size_t n = strcspn(c, ")\n");
		if (c[n] != ')')
			continue;
		struct sb s = {0};
		sb_addf(&s, "b%llu-%.*s", b, (int)n, c);
		return sb_detach(&s);
	}
	/* already an id ("b10777-e3de71522"), or something else: kept, trimmed */
	size_t n = strcspn(text, "\n");
	while (n && (text[n - 1] == ' ' || text[n - 1] == '\r' || text[n - 1] == '\t'))
		n--;
	return xstrndup(text, n);
}

#define BOOT_COLS                                                                                                      \
	"id, era_id, endpoint, at, source, runtime, runtime_version, device, payload_sha256, "                         \
	"payload_bytes, ledger_json, plan_json, settled_used_mib, probes_json, bench_json"

static void boot_row(sqlite3_stmt *s, void *row)
{
	struct store_boot *b = row;
	b->id = sqlite3_column_int64(s, 0);
	b->era_id = sqlite3_column_int64(s, 1);
	b->endpoint = store_col_text(s, 2, 0);
	b->at = sqlite3_column_int64(s, 3);
	b->source = store_col_text(s, 4, 0);
	b->runtime = store_col_text(s, 5, 0);
	b->runtime_version = store_col_text(s, 6, 0);
	b->device = store_col_text(s, 7, 0);
	b->payload_sha256 = store_col_text(s, 8, 0);
	b->payload_bytes = (uint64_t)sqlite3_column_int64(s, 9);
	b->ledger_json = store_col_text(s, 10, 0);
	b->plan_json = store_col_text(s, 11, 0);
	b->settled_used_mib = sqlite3_column_int64(s, 12);
	b->probes_json = store_col_text(s, 13, 1);
	b->bench_json = store_col_text(s, 14, 1);
}

static void boot_release(void *row)
{
	store_boot_release(row);
}

int store_boot_add(struct store *st, struct store_boot *b, char **err)
{
	if (store_name_ok(b->endpoint, err))
		return -1;
	if (b->at <= 0)
		b->at = (int64_t)time(NULL);
	char *rid = store_runtime_id(b->runtime_version);
	sqlite3_stmt *s =
	    store_prep(st,
		       "INSERT INTO boots (era_id, endpoint, at, source, runtime, runtime_version, device, "
		       "payload_sha256, payload_bytes, ledger_json, plan_json, settled_used_mib, probes_json, "
		       "bench_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
		       err);
	if (!s) {
		free(rid);
		return -1;
	}
	sqlite3_bind_int64(s, 1, b->era_id);
	store_bind(s, 2, b->endpoint);
	sqlite3_bind_int64(s, 3, b->at);
	store_bind(s, 4, b->source);
	store_bind(s, 5, b->runtime);
	store_bind(s, 6, rid);
	store_bind(s, 7, b->device);
	store_bind(s, 8, b->payload_sha256 ? b->payload_sha256 : "");
	sqlite3_bind_int64(s, 9, (sqlite3_int64)b->payload_bytes);
	store_bind(s, 10, b->ledger_json);
	store_bind(s, 11, b->plan_json);
	sqlite3_bind_int64(s, 12, b->settled_used_mib);
	store_bind(s, 13, b->probes_json);
	store_bind(s, 14, b->bench_json);
	/* one statement is one (autocommit) transaction */
	int rc = store_step_done(st, s, err, "cannot record the boot");
	sqlite3_finalize(s);
	free(rid);
	if (rc)
		return -1;
	b->id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_boot_match(struct store *st, const char *runtime_version, const char *runtime, const char *device,
		     const char *payload_sha256, uint64_t payload_bytes, struct store_boot *out, char **err)
{
	memset(out, 0, sizeof(*out));
	char *rid = runtime_version && *runtime_version ? store_runtime_id(runtime_version) : NULL;
	sqlite3_stmt *s =
	    store_prep(st,
		       "SELECT " BOOT_COLS " FROM boots WHERE "
		       "(CASE WHEN ?1 IS NOT NULL THEN runtime_version = ?1 OR (?2 != '' AND runtime_version = '' AND "
		       "runtime = ?2) "
		       "WHEN ?2 != '' THEN runtime = ?2 ELSE 1 END) "
		       "AND device = ?3 AND (CASE WHEN ?4 != '' AND payload_sha256 != '' THEN payload_sha256 = ?4 "
		       "ELSE payload_bytes = ?5 END) "
		       "ORDER BY at DESC, id DESC LIMIT 1",
		       err);
	if (!s) {
		free(rid);
		return -1;
	}
	store_bind(s, 1, rid);
	store_bind(s, 2, runtime ? runtime : "");
	store_bind(s, 3, device ? device : "");
	store_bind(s, 4, payload_sha256 ? payload_sha256 : "");
	sqlite3_bind_int64(s, 5, (sqlite3_int64)payload_bytes);
	int rc = row_get(st, s, boot_row, out, err, "cannot read the boots");
	free(rid);
	return rc;
}

int store_boot_latest(struct store *st, const char *runtime_version, const char *device, const char *payload_sha256,
		      uint64_t payload_bytes, struct store_boot *out, char **err)
{
	if (!runtime_version || !*runtime_version) {
		memset(out, 0, sizeof(*out));
		return errorf(err, "a boot is matched on its runtime's version: none was given");
	}
	return store_boot_match(st, runtime_version, NULL, device, payload_sha256, payload_bytes, out, err);
}

static const struct rows boots = {sizeof(struct store_boot), boot_row, boot_release, "cannot list the boots"};

static int boot_query(struct store *st, const char *sql, const char *text, int64_t num, struct store_boot **out,
		      size_t *n, char **err)
{
	void *v;
	int rc = rows_query(st, sql, text, num, &boots, &v, n, err);
	*out = v;
	return rc;
}

int store_boot_list(struct store *st, int64_t era_id, struct store_boot **out, size_t *n, char **err)
{
	return boot_query(
	    st, "SELECT " BOOT_COLS " FROM boots WHERE era_id = ?2 AND (?1 IS NULL OR endpoint = ?1) ORDER BY id", NULL,
	    era_id, out, n, err);
}

int store_boot_list_endpoint(struct store *st, const char *endpoint, struct store_boot **out, size_t *n, char **err)
{
	return boot_query(st,
			  "SELECT " BOOT_COLS
			  " FROM boots WHERE (?1 IS NULL OR endpoint = ?1) AND (?2 = 0 OR era_id = ?2) ORDER BY id",
			  endpoint, 0, out, n, err);
}

int store_boot_get(struct store *st, int64_t id, struct store_boot *out, char **err)
{
	memset(out, 0, sizeof(*out));
	sqlite3_stmt *s = store_prep(st, "SELECT " BOOT_COLS " FROM boots WHERE id = ?1", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	return row_get(st, s, boot_row, out, err, "cannot read the boot");
}

void store_boot_release(struct store_boot *b)
{
	if (!b)
		return;
	char **v[] = {&b->endpoint,	  &b->source,	   &b->runtime,	  &b->runtime_version, &b->device,
		      &b->payload_sha256, &b->ledger_json, &b->plan_json, &b->probes_json,     &b->bench_json};
	for (size_t i = 0; i < ARRAY_SIZE(v); i++) {
		free(*v[i]);
		*v[i] = NULL;
	}
}

void store_boots_free(struct store_boot *v, size_t n)
{
	records_free(v, n, &boots);
}

/* --- attempts ------------------------------------------------------------ */

int64_t store_attempt_begin(struct store *st, const char *endpoint, const char *kind, const char *reason, char **err)
{
	if (store_name_ok(endpoint, err))
		return -1;
	sqlite3_stmt *s = store_prep(st,
				     "INSERT INTO attempts (endpoint, kind, reason, outcome, started, pid) "
				     "VALUES (?1, ?2, ?3, NULL, ?4, ?5)",
				     err);
	if (!s)
		return -1;
	store_bind(s, 1, endpoint);
	store_bind(s, 2, kind ? kind : "deploy");
	char *safe = redact_text(reason); /* a history row holds no secret */
	store_bind(s, 3, safe);
	free(safe);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(s, 5, (sqlite3_int64)getpid());
	int rc = store_step_done(st, s, err, "cannot record the attempt");
	sqlite3_finalize(s);
	return rc ? -1 : (int64_t)sqlite3_last_insert_rowid(st->db);
}

int store_attempt_step(struct store *st, int64_t attempt, const char *step, const char *status, double seconds,
		       const char *detail, char **err)
{
	sqlite3_stmt *s = store_prep(st,
				     "INSERT INTO steps (attempt_id, step, status, seconds, detail, at) "
				     "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
				     err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, attempt);
	store_bind(s, 2, step ? step : "");
	store_bind(s, 3, status ? status : "ok");
	sqlite3_bind_double(s, 4, seconds);
	char *safe = redact_text(detail); /* a history row holds no secret */
	store_bind(s, 5, safe);
	free(safe);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)time(NULL));
	int rc = store_step_done(st, s, err, "cannot record the step");
	sqlite3_finalize(s);
	return rc;
}

int store_attempt_end(struct store *st, int64_t attempt, const char *outcome, int64_t era_id, char **err)
{
	sqlite3_stmt *s =
	    store_prep(st, "UPDATE attempts SET outcome = ?1, ended = ?2, era_id = ?3 WHERE id = ?4", err);
	if (!s)
		return -1;
	store_bind(s, 1, outcome ? outcome : "deployed");
	sqlite3_bind_int64(s, 2, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(s, 3, era_id);
	sqlite3_bind_int64(s, 4, attempt);
	int rc = store_step_done(st, s, err, "cannot end the attempt");
	sqlite3_finalize(s);
	if (!rc && sqlite3_changes(st->db) != 1)
		return errorf(err, "%s: no attempt %lld", st->path, (long long)attempt);
	return rc;
}

static void step_row(sqlite3_stmt *s, void *row)
{
	struct store_step *p = row;
	p->step = store_col_text(s, 0, 0);
	p->status = store_col_text(s, 1, 0);
	p->seconds = sqlite3_column_double(s, 2);
	p->detail = store_col_text(s, 3, 0);
}

static void attempt_row(sqlite3_stmt *s, void *row)
{
	struct store_attempt *a = row;
	a->id = sqlite3_column_int64(s, 0);
	a->endpoint = store_col_text(s, 1, 0);
	a->kind = store_col_text(s, 2, 0);
	a->reason = store_col_text(s, 3, 0);
	a->outcome = store_col_text(s, 4, 1);
	a->started = sqlite3_column_int64(s, 5);
	a->ended = sqlite3_column_int64(s, 6);
	a->era_id = sqlite3_column_int64(s, 7);
	a->pid = sqlite3_column_int64(s, 8);
}

static void attempt_release(void *row)
{
	struct store_attempt *a = row;
	free(a->endpoint);
	free(a->kind);
	free(a->reason);
	free(a->outcome);
	for (size_t j = 0; j < a->n_steps; j++) {
		free(a->steps[j].step);
		free(a->steps[j].status);
		free(a->steps[j].detail);
	}
	free(a->steps);
}

static int steps_read(struct store *st, struct store_attempt *a, char **err)
{
	sqlite3_stmt *s =
	    store_prep(st, "SELECT step, status, seconds, detail FROM steps WHERE attempt_id = ?1 ORDER BY id", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, a->id);
	void *v = a->steps;
	int rc = rows_collect(s, sizeof(*a->steps), step_row, &v, &a->n_steps);
	a->steps = v;
	return rc == SQLITE_DONE ? 0 : store_db_err(st, err, "cannot list the steps");
}

static const struct rows attempts = {sizeof(struct store_attempt), attempt_row, attempt_release,
				     "cannot list the attempts"};

int store_attempt_list(struct store *st, const char *endpoint, struct store_attempt **out, size_t *n, char **err)
{
	void *v;
	int rc = rows_query(st,
			    "SELECT id, endpoint, kind, reason, outcome, started, ended, era_id, pid FROM attempts "
			    "WHERE ?1 IS NULL OR endpoint = ?1 ORDER BY id",
			    endpoint, 0, &attempts, &v, n, err);
	*out = v;
	for (size_t i = 0; i < *n; i++) { /* none when rows_get failed */
		struct store_attempt *a = &(*out)[i];
		if (!a->outcome)
			a->outcome = xstrdup(store_locked(st, a->endpoint) ? "running" : "interrupted");
		if (steps_read(st, a, err)) {
			store_attempts_free(*out, *n);
			*out = NULL;
			*n = 0;
			return -1;
		}
	}
	return rc;
}

void store_attempts_free(struct store_attempt *v, size_t n)
{
	records_free(v, n, &attempts);
}

/* --- the runtime version cache --------------------------------------------- */

/* A row's first column, as text ("" for NULL), into *(char **)row. */
static void text_row(sqlite3_stmt *s, void *row)
{
	*(char **)row = store_col_text(s, 0, 0);
}

int store_runtime_version_get(struct store *st, const char *path, const char *stamp, char **version, char **err)
{
	*version = NULL;
	sqlite3_stmt *s = store_prep(st, "SELECT version FROM runtime_versions WHERE path = ?1 AND stamp = ?2", err);
	if (!s)
		return -1;
	store_bind(s, 1, path);
	store_bind(s, 2, stamp);
	return row_get(st, s, text_row, version, err, "cannot read the runtime versions");
}

int store_runtime_version_put(struct store *st, const char *path, const char *stamp, const char *version, char **err)
{
	if (st->reader) { /* the one write a reader makes: on a connection of its own */
		struct store *w = store_open(st->dir, err);
		int rc = w ? store_runtime_version_put(w, path, stamp, version, err) : -1;
		store_close(w);
		return rc;
	}
	sqlite3_stmt *s = store_prep(st,
				     "INSERT OR REPLACE INTO runtime_versions (path, stamp, version, at) "
				     "VALUES (?1, ?2, ?3, ?4)",
				     err);
	if (!s)
		return -1;
	store_bind(s, 1, path);
	store_bind(s, 2, stamp);
	store_bind(s, 3, version ? version : "");
	sqlite3_bind_int64(s, 4, (sqlite3_int64)time(NULL));
	int rc = store_step_done(st, s, err, "cannot cache the runtime version");
	sqlite3_finalize(s);
	return rc;
}

/* --- behaviour baselines --------------------------------------------------- */

int store_baseline_put(struct store *st, const char *endpoint, int64_t era_id, const char *source,
		       const char *answers_json, char **err)
{
	if (store_name_ok(endpoint, err))
		return -1;
	sqlite3_stmt *s = store_prep(st,
				     "INSERT INTO baselines (era_id, endpoint, at, source, answers_json) "
				     "VALUES (?1, ?2, ?3, ?4, ?5)",
				     err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, era_id);
	store_bind(s, 2, endpoint);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)time(NULL));
	store_bind(s, 4, source);
	store_bind(s, 5, answers_json ? answers_json : "[]");
	int rc = store_step_done(st, s, err, "cannot record the baseline");
	sqlite3_finalize(s);
	return rc;
}

int store_baseline_get(struct store *st, int64_t era_id, char **answers_json, char **source, char **err)
{
	*answers_json = NULL;
	if (source)
		*source = NULL;
	static const char *const sql[] = {
	    "SELECT answers_json, source FROM baselines WHERE era_id = ?1 ORDER BY id DESC LIMIT 1",
	    "SELECT probes_json, source FROM boots WHERE era_id = ?1 AND probes_json IS NOT NULL "
	    "ORDER BY id DESC LIMIT 1",
	};
	for (size_t i = 0; i < 2 && !*answers_json; i++) {
		sqlite3_stmt *s = store_prep(st, sql[i], err);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, era_id);
		int rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			*answers_json = store_col_text(s, 0, 1);
			if (source) {
				free(*source);
				*source = store_col_text(s, 1, 0);
			}
		} else if (rc != SQLITE_DONE) {
			store_db_err(st, err, "cannot read the baseline");
			sqlite3_finalize(s);
			return -1;
		}
		sqlite3_finalize(s);
	}
	return *answers_json ? 0 : 1;
}

/* --- arms ------------------------------------------------------------------ */

int store_arm_add(struct store *st, struct store_arm *a, char **err)
{
	if (store_name_ok(a->endpoint, err))
		return -1;
	sqlite3_stmt *s = store_prep(st,
				     "INSERT INTO arms (endpoint, era_id, boot_id, at, keys_json, reason, bench_json) "
				     "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
				     err);
	if (!s)
		return -1;
	store_bind(s, 1, a->endpoint);
	sqlite3_bind_int64(s, 2, a->era_id);
	sqlite3_bind_int64(s, 3, a->boot_id);
	sqlite3_bind_int64(s, 4, a->at);
	store_bind(s, 5, a->keys_json ? a->keys_json : "{}");
	store_bind(s, 6, a->reason);
	store_bind(s, 7, a->bench_json);
	int rc = store_step_done(st, s, err, "cannot record the arm");
	sqlite3_finalize(s);
	if (rc)
		return -1;
	a->id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

static void arm_row(sqlite3_stmt *s, void *row)
{
	struct store_arm *a = row;
	a->id = sqlite3_column_int64(s, 0);
	a->endpoint = store_col_text(s, 1, 0);
	a->era_id = sqlite3_column_int64(s, 2);
	a->boot_id = sqlite3_column_int64(s, 3);
	a->at = sqlite3_column_int64(s, 4);
	a->keys_json = store_col_text(s, 5, 0);
	a->reason = store_col_text(s, 6, 0);
	a->bench_json = store_col_text(s, 7, 1);
}

static void arm_release(void *row)
{
	struct store_arm *a = row;
	free(a->endpoint);
	free(a->keys_json);
	free(a->reason);
	free(a->bench_json);
}

static const struct rows arms = {sizeof(struct store_arm), arm_row, arm_release, "cannot list the arms"};

int store_arm_list(struct store *st, const char *endpoint, struct store_arm **out, size_t *n, char **err)
{
	void *v;
	int rc = rows_query(st,
			    "SELECT id, endpoint, era_id, boot_id, at, keys_json, reason, bench_json FROM arms "
			    "WHERE (?1 IS NULL OR endpoint = ?1) ORDER BY id",
			    endpoint, 0, &arms, &v, n, err);
	*out = v;
	return rc;
}

void store_arms_free(struct store_arm *v, size_t n)
{
	records_free(v, n, &arms);
}
