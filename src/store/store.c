/* store: eras, boots and attempts in SQLite (see store.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../base/fault.h"
#include "../base/file.h"
#include "../base/redact.h"
#include "../base/util.h"
#include "store.h"

struct store {
	sqlite3 *db;
	char *dir;
	char *path;
	int reader; /* store_open_read's read-only connection */
};

/* The schema, one step per version: migrations[i] takes a database at
 * user_version i to i + 1. A later version appends a step and never edits
 * one already shipped, so every database reaches the current schema by the
 * same path. */
static const char *const migrations[] = {
    /* 0 -> 1 */
    "CREATE TABLE eras ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " endpoint TEXT NOT NULL,"
    " endpoint_path TEXT, env_text TEXT, env_sha256 TEXT, pins_json TEXT,"
    " runtime TEXT, runtime_version TEXT, argv_json TEXT, plan_json TEXT,"
    " unit_text TEXT, unit_name TEXT, reason TEXT,"
    " started INTEGER NOT NULL, ended INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX eras_by_endpoint ON eras(endpoint, id);"
    "CREATE UNIQUE INDEX eras_one_current ON eras(endpoint) WHERE ended = 0;"
    "CREATE TABLE boots ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " era_id INTEGER NOT NULL DEFAULT 0,"
    " endpoint TEXT NOT NULL, at INTEGER NOT NULL, source TEXT,"
    " runtime TEXT, runtime_version TEXT, device TEXT,"
    " payload_sha256 TEXT, payload_bytes INTEGER NOT NULL DEFAULT 0,"
    " ledger_json TEXT, plan_json TEXT, settled_used_mib INTEGER NOT NULL DEFAULT -1,"
    " probes_json TEXT, bench_json TEXT);"
    "CREATE INDEX boots_by_identity ON boots(runtime_version, device, id);"
    "CREATE INDEX boots_by_era ON boots(era_id, id);"
    "CREATE TABLE attempts ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " endpoint TEXT NOT NULL, kind TEXT NOT NULL, reason TEXT,"
    " outcome TEXT, started INTEGER NOT NULL, ended INTEGER NOT NULL DEFAULT 0,"
    " era_id INTEGER NOT NULL DEFAULT 0, pid INTEGER NOT NULL DEFAULT 0);"
    "CREATE INDEX attempts_by_endpoint ON attempts(endpoint, id);"
    "CREATE TABLE steps ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " attempt_id INTEGER NOT NULL REFERENCES attempts(id),"
    " step TEXT NOT NULL, status TEXT NOT NULL, seconds REAL NOT NULL DEFAULT 0,"
    " detail TEXT, at INTEGER NOT NULL);"
    "CREATE INDEX steps_by_attempt ON steps(attempt_id, id);",
    /* 1 -> 2: the runtime's --version text, cached by the binary's identity
     * so plan reads it without running the engine every time */
    "CREATE TABLE runtime_versions ("
    " path TEXT PRIMARY KEY, stamp TEXT NOT NULL, version TEXT NOT NULL, at INTEGER NOT NULL);",
    /* 2 -> 3: an era's behaviour baseline: the probes' answers (`probe
     * --record`), which the next deploy compares with */
    "CREATE TABLE baselines ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " era_id INTEGER NOT NULL, endpoint TEXT NOT NULL, at INTEGER NOT NULL,"
    " source TEXT, answers_json TEXT NOT NULL);"
    "CREATE INDEX baselines_by_era ON baselines(era_id, id);",
    /* 3 -> 4: a candidate shape benched in a window against production
     * (`zealot arm`): its keys, reason and figures; production's figures
     * of the same window are the boot row (boot_id) of its era */
    "CREATE TABLE arms ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " endpoint TEXT NOT NULL, era_id INTEGER NOT NULL, boot_id INTEGER NOT NULL DEFAULT 0,"
    " at INTEGER NOT NULL, keys_json TEXT NOT NULL, reason TEXT, bench_json TEXT);"
    "CREATE INDEX arms_by_endpoint ON arms(endpoint, id);",
};

int store_schema_version(void)
{
	return (int)ARRAY_SIZE(migrations);
}

char *store_state_dir(void)
{
	return state_dir();
}

int store_name_ok(const char *name, char **err)
{
	if (!name || !*name)
		return errorf(err, "an endpoint name may not be empty");
	size_t n = strlen(name);
	if (n > 200)
		return errorf(err, "endpoint name '%.40s...' is longer than 200 bytes", name);
	if (name[0] == '.' || strstr(name, ".."))
		return errorf(err, "endpoint name '%s' may not start with '.' or contain '..'", name);
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)name[i];
		if (c == '/')
			return errorf(err, "endpoint name '%s' may not contain '/'", name);
		if (c < 0x20 || c == 0x7f)
			return errorf(err, "endpoint name may not contain control characters (byte 0x%02x at %zu)", c,
				      i);
	}
	return 0;
}

/* mkdir -p, each component 0700 when created; then the directory must
 * be this user's own and no one else's to change (the state directory,
 * locks/, secrets/: dir_private in base/file.c). */
static int mkdirs(const char *dir, char **err)
{
	return dir_private(dir, err);
}

static int db_err(struct store *st, char **err, const char *what)
{
	return errorf(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

static int exec_sql(struct store *st, const char *sql, char **err)
{
	char *msg = NULL;
	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		errorf(err, "%s: %s", st->path, msg ? msg : sqlite3_errmsg(st->db));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

static int user_version(struct store *st, int *v, char **err)
{
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, "PRAGMA user_version", -1, &s, NULL) != SQLITE_OK)
		return db_err(st, err, "cannot read the schema version");
	int rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : db_err(st, err, "cannot read the schema version");
}

/* --- damage, backups, a read-only directory ------------------------------- */

#define CHECK_LINES 100 /* problems a check reports, at most */

/* The backups migrate() takes, `zealot.db.vN.bak` beside the database
 * (N the version it held), sorted by N; allocated names. */
static size_t backups_list(const char *dir, char ***out)
{
	*out = NULL;
	size_t n = 0;
	DIR *d = opendir(dir);
	if (!d)
		return 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		unsigned v;
		char tail[8];
		if (sscanf(e->d_name, "zealot.db.v%u.%7s", &v, tail) == 2 && strcmp(tail, "bak") == 0) {
			*out = xreallocarray(*out, n + 1, sizeof(char *));
			struct sb b = {0};
			sb_addf(&b, "%s/%s", dir, e->d_name);
			(*out)[n++] = sb_detach(&b);
		}
	}
	closedir(d);
	for (size_t i = 1; i < n; i++) /* few: insertion sort on the version */
		for (size_t j = i; j > 0; j--) {
			unsigned a = 0, b = 0;
			sscanf(strrchr((*out)[j - 1], '/') + 1, "zealot.db.v%u", &a);
			sscanf(strrchr((*out)[j], '/') + 1, "zealot.db.v%u", &b);
			if (a <= b)
				break;
			char *t = (*out)[j];
			(*out)[j] = (*out)[j - 1];
			(*out)[j - 1] = t;
		}
	return n;
}

static void strings_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* How to get a usable store back from a damaged one: the WAL still beside
 * it is part of the database (sqlite's .recover reads through it), and the
 * newest backup migrate() took is a last resort. Allocated. */
static char *recovery_text(const char *dir, const char *path, int version)
{
	struct sb b = {0};
	/* .dump reads the tables (a damaged index does not stop it) and
	 * .recover what is left of damaged tables; neither carries the
	 * schema version, which zealot migrates from */
	sb_addf(&b,
		"to recover: stop every zealot that uses it; copy '%s' and its -wal and -shm files aside (the "
		"-wal holds the newest records: keep it beside the database); `sqlite3 '%s' .dump >dump.sql` "
		"reads every table, WAL included (`.recover` instead when a table is damaged too); `sqlite3 "
		"new.db <dump.sql` and `sqlite3 new.db 'PRAGMA user_version = %d'` rebuild it; move new.db to "
		"'%s' and remove the old -wal and -shm",
		path, path, version, path);
	char **v;
	size_t n = backups_list(dir, &v);
	if (n)
		sb_addf(&b, "; or copy the backup taken before the last schema migration, '%s', to '%s'", v[n - 1],
			path);
	else
		sb_adds(&b, "; there is no backup (one is taken before each schema migration; none has run here)");
	strings_free(v, n);
	return sb_detach(&b);
}

static int damaged(struct store *st, char **err, const char *what)
{
	int v = 0;
	char *e = NULL;
	if (user_version(st, &v, &e) || v <= 0)
		v = store_schema_version();
	free(e);
	char *how = recovery_text(st->dir, st->path, v);
	errorf(err, "%s is damaged (%s): zealot writes nothing to a damaged store; %s", st->path, what, how);
	free(how);
	return -1;
}

static int is_corrupt(int code)
{
	code &= 0xff;
	return code == SQLITE_CORRUPT || code == SQLITE_NOTADB;
}

/* PRAGMA quick_check (or integrity_check when full): 0 when "ok", 1 when
 * it found damage (its lines in *lines, at most CHECK_LINES), -1 when it
 * could not run (*why). */
static int run_check(sqlite3 *db, int full, char ***lines, size_t *n, char **why)
{
	*lines = NULL;
	*n = 0;
	sqlite3_stmt *s = NULL;
	char sql[48];
	snprintf(sql, sizeof(sql), "PRAGMA %s(%d)", full ? "integrity_check" : "quick_check", CHECK_LINES);
	int rc = sqlite3_prepare_v2(db, sql, -1, &s, NULL);
	while (rc == SQLITE_OK || rc == SQLITE_ROW) {
		if ((rc = sqlite3_step(s)) != SQLITE_ROW)
			break;
		const char *t = (const char *)sqlite3_column_text(s, 0);
		if (t && strcmp(t, "ok") == 0 && *n == 0)
			continue;
		*lines = xreallocarray(*lines, *n + 1, sizeof(char *));
		(*lines)[(*n)++] = xstrdup(t ? t : "?");
	}
	int code = sqlite3_extended_errcode(db);
	char *msg = xstrdup(sqlite3_errmsg(db)); /* before finalize resets it */
	sqlite3_finalize(s);
	if (rc == SQLITE_DONE) {
		free(msg);
		return *n ? 1 : 0;
	}
	if (is_corrupt(code)) {
		*lines = xreallocarray(*lines, *n + 1, sizeof(char *));
		(*lines)[(*n)++] = msg;
		return 1;
	}
	*why = msg;
	return -1;
}

/* The store is whole before anything writes to it. */
static int quick_check(struct store *st, char **err)
{
	char **lines, *why = NULL;
	size_t n;
	int rc = run_check(st->db, 0, &lines, &n, &why);
	if (rc < 0)
		errorf(err, "%s: cannot check the store: %s", st->path, why);
	else if (rc > 0)
		damaged(st, err, lines[0]);
	strings_free(lines, n);
	free(why);
	return rc ? -1 : 0;
}

/* A state directory (or database) zealot may not write is named as such:
 * sqlite would say "unable to open" or "readonly database" further on. */
static int writable(const char *dir, const char *path, char **err)
{
	if (access(dir, W_OK) != 0)
		return errorf(err,
			      "the state directory '%s' is read-only (%s): zealot keeps zealot.db and its -wal "
			      "and -shm files there; make it writable, or set ZEALOT_STATE_DIR to a directory "
			      "that is",
			      dir, strerror(errno));
	if (access(path, W_OK) != 0 && errno != ENOENT)
		return errorf(err, "'%s' is read-only (%s): zealot writes its records there", path, strerror(errno));
	return 0;
}

/* Before a migration rewrites the schema: a copy of the database as it
 * was, `zealot.db.vN.bak` (N its version), taken with VACUUM INTO (a
 * consistent copy, WAL included). One per version: a copy already there
 * is kept. */
static int backup(struct store *st, int v, char **err)
{
	struct sb b = {0};
	sb_addf(&b, "%s.v%d.bak", st->path, v);
	int rc = 0;
	if (access(b.s, F_OK) != 0) {
		/* VACUUM INTO fills an empty file: made 0600 first, like the database */
		int fd = open(b.s, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
		if (fd >= 0)
			close(fd);
		char *sql = sqlite3_mprintf("VACUUM INTO %Q", b.s);
		rc = exec_sql(st, sql, err);
		sqlite3_free(sql);
		if (rc && access(b.s, F_OK) == 0)
			rc = 0; /* another zealot took it meanwhile */
	}
	sb_release(&b);
	return rc;
}

/* Bring the schema to the current version: one transaction for all the
 * steps and the new user_version, so a kill -9 mid-way leaves the old
 * version whole. A database from a newer zealot is refused untouched. */
static int migrate(struct store *st, char **err)
{
	int v;
	if (user_version(st, &v, err))
		return -1;
	int want = store_schema_version();
	if (v > want)
		return errorf(err,
			      "%s: schema version %d is newer than this zealot's %d: a newer zealot wrote it; "
			      "run that zealot (the store was left untouched)",
			      st->path, v, want);
	if (v == want)
		return 0;
	if (v > 0 && backup(st, v, err))
		return -1;
	if (exec_sql(st, "BEGIN IMMEDIATE", err))
		return -1;
	/* another process may have migrated while we waited for the lock */
	if (user_version(st, &v, err))
		goto fail;
	for (int i = v; i < want; i++)
		if (exec_sql(st, migrations[i], err))
			goto fail;
	if (v < want) {
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", want);
		if (exec_sql(st, sql, err))
			goto fail;
	}
	return exec_sql(st, "COMMIT", err);
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Take group and other bits off a path zealot owns (a store made before
 * it kept them 0600/0700). */
static void tighten(const char *path)
{
	struct stat sb;
	if (lstat(path, &sb) == 0 && sb.st_uid == geteuid() && (sb.st_mode & 077) &&
	    (S_ISREG(sb.st_mode) || S_ISDIR(sb.st_mode)))
		chmod(path, sb.st_mode & 07700);
}

/* The database and its WAL and shared-memory files: created 0600 (SQLite
 * gives the -wal and -shm files the database's mode), older ones tightened.
 * The directory is made 0700 (mkdirs); one that was there already is left
 * as it is (it may be a directory others share). */
static void private_files(const struct store *st)
{
	int fd = open(st->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd >= 0)
		close(fd);
	static const char *const ext[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
		struct sb b = {0};
		sb_addf(&b, "%s%s", st->path, ext[i]);
		tighten(b.s);
		sb_release(&b);
	}
}

/* A store handle for dir (NULL: store_state_dir()), its directory made
 * and held writable; NULL with *err when it is not. */
static struct store *store_at(const char *dir, char **err)
{
	struct store *st = xcalloc(1, sizeof(*st));
	st->dir = dir ? xstrdup(dir) : store_state_dir();
	struct sb p = {0};
	sb_addf(&p, "%s/zealot.db", st->dir);
	st->path = sb_detach(&p);
	if (mkdirs(st->dir, err) || writable(st->dir, st->path, err)) {
		store_close(st);
		return NULL;
	}
	return st;
}

struct store *store_open(const char *dir, char **err)
{
	struct store *st = store_at(dir, err);
	if (!st)
		return NULL;
	private_files(st);
	if (sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
		errorf(err, "cannot open '%s': %s", st->path, st->db ? sqlite3_errmsg(st->db) : "out of memory");
		goto fail;
	}
	sqlite3_busy_timeout(st->db, 10000);
	sqlite3_extended_result_codes(st->db, 1);
	/* WAL: readers never block the writer; synchronous FULL so a record
	 * that was reported written survives a power cut too */
	/* every command that opens the store may write to it: a damaged one
	 * is refused before anything is written (the WAL switch included) */
	if (quick_check(st, err))
		goto fail;
	sqlite3_stmt *s;
	if (sqlite3_prepare_v2(st->db, "PRAGMA journal_mode=WAL", -1, &s, NULL) != SQLITE_OK) {
		if (is_corrupt(sqlite3_extended_errcode(st->db)))
			damaged(st, err, sqlite3_errmsg(st->db));
		else
			db_err(st, err, "not a database zealot can use");
		goto fail;
	}
	int rc = sqlite3_step(s);
	const char *mode = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
	int wal = mode && strcmp(mode, "wal") == 0;
	sqlite3_finalize(s);
	if (!wal) {
		if (is_corrupt(sqlite3_extended_errcode(st->db)))
			damaged(st, err, sqlite3_errmsg(st->db));
		else
			db_err(st, err, "cannot switch to WAL mode (is it a database?)");
		goto fail;
	}
	/* secure_delete: a row rewritten without a secret (era_seal) leaves no
	 * copy of the old text in a free page */
	if (exec_sql(st, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON", err))
		goto fail;
	if (migrate(st, err))
		goto fail;
	return st;
fail:
	store_close(st);
	return NULL;
}

/* A read-only connection costs a third of store_open's (0.16 against
 * 0.54 ms with the close, in process; the difference is mostly sqlite
 * making, and at close removing, the -wal and -shm files of a read-write
 * one):
 * plan and check take it for every calibration lookup. It is taken only
 * when the store holds as it is: the same directory checks, the same
 * quick_check, the current schema; anything else (damage, an old schema
 * to migrate, a hot journal a reader cannot roll back) is store_open's to
 * handle and report, so a reader fails exactly as store_open would. */
struct store *store_open_read(const char *dir, char **err)
{
	struct store *st = store_at(dir, err);
	if (!st)
		return NULL;
	char *e = NULL;
	int v = -1;
	if (sqlite3_open_v2(st->path, &st->db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK) {
		sqlite3_busy_timeout(st->db, 10000);
		sqlite3_extended_result_codes(st->db, 1);
		if (quick_check(st, &e) || user_version(st, &v, &e))
			v = -1;
	}
	free(e);
	if (v != store_schema_version()) {
		store_close(st);
		return store_open(dir, err);
	}
	st->reader = 1;
	return st;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	if (st->db)
		sqlite3_close(st->db);
	free(st->dir);
	free(st->path);
	free(st);
}

const char *store_path(const struct store *st)
{
	return st->path;
}

const char *store_dir(const struct store *st)
{
	return st->dir;
}

/* --- statements ---------------------------------------------------------- */

static sqlite3_stmt *prep(struct store *st, const char *sql, char **err)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		db_err(st, err, "cannot prepare a statement");
		return NULL;
	}
	return s;
}

static void bind_text(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

/* A text column: "" for NULL unless keep_null. */
static char *col_text(sqlite3_stmt *s, int i, int keep_null)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	if (!t)
		return keep_null ? NULL : xstrdup("");
	return xstrndup((const char *)t, (size_t)sqlite3_column_bytes(s, i));
}

/* Run a statement that returns no rows. Outside BEGIN ... COMMIT the
 * statement is its own transaction: the store's fault points bracket it
 * as they bracket commit() (src/base/fault.h). */
static int step_done(struct store *st, sqlite3_stmt *s, char **err, const char *what)
{
	int own = sqlite3_get_autocommit(st->db);
	if (own)
		fault_point("store", "before-commit");
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		db_err(st, err, what);
		return -1;
	}
	if (own)
		fault_point("store", "after-commit");
	return 0;
}

static int begin(struct store *st, char **err)
{
	return exec_sql(st, "BEGIN IMMEDIATE", err);
}

static int commit(struct store *st, char **err)
{
	fault_point("store", "before-commit"); /* every write of the transaction made, none committed */
	if (exec_sql(st, "COMMIT", err)) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	fault_point("store", "after-commit");
	return 0;
}

static void rollback(struct store *st)
{
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
}

/* --- the lock ------------------------------------------------------------ */

static char *lock_path(const struct store *st, const char *endpoint)
{
	struct sb b = {0};
	sb_addf(&b, "%s/locks/%s.lock", st->dir, endpoint);
	return sb_detach(&b);
}

static void mark_interrupted(struct store *st, const char *endpoint)
{
	sqlite3_stmt *s = prep(st,
			       "UPDATE attempts SET outcome = 'interrupted', ended = ?1 "
			       "WHERE endpoint = ?2 AND outcome IS NULL",
			       NULL);
	if (!s)
		return;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)time(NULL));
	bind_text(s, 2, endpoint);
	sqlite3_step(s);
	sqlite3_finalize(s);
}

int store_lock(struct store *st, const char *endpoint, char **err)
{
	if (store_name_ok(endpoint, err))
		return -1;
	struct sb d = {0};
	sb_addf(&d, "%s/locks", st->dir);
	int rc = mkdirs(d.s, err);
	sb_release(&d);
	if (rc)
		return -1;
	char *path = lock_path(st, endpoint);
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0) {
		errorf(err, "cannot open the lock '%s': %s", path, strerror(errno));
		free(path);
		return -1;
	}
	/* a reader (store_attempt_list) may hold it shared for an instant */
	int got = -1;
	for (int i = 0; i < 20 && got != 0; i++) {
		got = flock(fd, LOCK_EX | LOCK_NB);
		if (got != 0 && errno != EWOULDBLOCK && errno != EINTR)
			break;
		if (got != 0)
			usleep(10000);
	}
	if (got != 0) {
		int e = errno;
		char buf[32] = {0};
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		long pid = n > 0 ? strtol(buf, NULL, 10) : 0;
		if (e == EWOULDBLOCK && pid > 0)
			errorf(err,
			       "endpoint '%s' is locked by pid %ld (a deploy or rollback of it is running; "
			       "lock %s)",
			       endpoint, pid, path);
		else if (e == EWOULDBLOCK)
			errorf(err, "endpoint '%s' is locked by another process (lock %s)", endpoint, path);
		else
			errorf(err, "cannot lock '%s': %s", path, strerror(e));
		close(fd);
		free(path);
		return -1;
	}
	char pid[32];
	int n = snprintf(pid, sizeof(pid), "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) != 0 || pwrite(fd, pid, (size_t)n, 0) != n) {
		errorf(err, "cannot write the lock '%s': %s", path, strerror(errno));
		close(fd);
		free(path);
		return -1;
	}
	free(path);
	/* holding the lock, any attempt still open was cut short */
	mark_interrupted(st, endpoint);
	return fd;
}

void store_unlock(int fd)
{
	if (fd < 0)
		return;
	if (ftruncate(fd, 0) != 0) {
		/* the pid stays; harmless, the next holder overwrites it */
	}
	close(fd);
}

int store_locked(struct store *st, const char *endpoint)
{
	if (store_name_ok(endpoint, NULL))
		return 0;
	char *path = lock_path(st, endpoint);
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	free(path);
	if (fd < 0)
		return 0;
	int held = flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
	close(fd); /* releases the shared probe at once */
	return held;
}

/* --- eras ---------------------------------------------------------------- */

#define ERA_COLS                                                                                                       \
	"id, endpoint, endpoint_path, env_text, env_sha256, pins_json, runtime, runtime_version, argv_json, "          \
	"plan_json, unit_text, unit_name, reason, started, ended"

static void era_read(sqlite3_stmt *s, struct store_era *e)
{
	e->id = sqlite3_column_int64(s, 0);
	e->endpoint = col_text(s, 1, 0);
	e->endpoint_path = col_text(s, 2, 0);
	e->env_text = col_text(s, 3, 0);
	e->env_sha256 = col_text(s, 4, 0);
	e->pins_json = col_text(s, 5, 0);
	e->runtime = col_text(s, 6, 0);
	e->runtime_version = col_text(s, 7, 0);
	e->argv_json = col_text(s, 8, 0);
	e->plan_json = col_text(s, 9, 0);
	e->unit_text = col_text(s, 10, 0);
	e->unit_name = col_text(s, 11, 0);
	e->reason = col_text(s, 12, 0);
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
	int rc = mkdirs(d.s, err);
	if (rc == 0)
		tighten(d.s);
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
	sqlite3_stmt *s = prep(st, "SELECT id, env_text FROM eras", err);
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
		s = prep(st, "SELECT env_text FROM eras WHERE id = ?1", err);
		if (!s) {
			rc = -1;
			break;
		}
		sqlite3_bind_int64(s, 1, ids[i]);
		char *red = sqlite3_step(s) == SQLITE_ROW ? redact_text((const char *)sqlite3_column_text(s, 0)) : NULL;
		sqlite3_finalize(s);
		s = prep(st, "UPDATE eras SET env_text = ?1 WHERE id = ?2", err);
		if (!s) {
			free(red);
			rc = -1;
			break;
		}
		bind_text(s, 1, red);
		sqlite3_bind_int64(s, 2, ids[i]);
		rc = step_done(st, s, err, "cannot redact an era's text");
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
	if (begin(st, err))
		return -1;
	sqlite3_stmt *s = prep(st, "UPDATE eras SET ended = ?1 WHERE endpoint = ?2 AND ended = 0", err);
	if (!s)
		goto fail;
	sqlite3_bind_int64(s, 1, e->started);
	bind_text(s, 2, e->endpoint);
	int rc = step_done(st, s, err, "cannot end the previous era");
	sqlite3_finalize(s);
	if (rc)
		goto fail;
	s = prep(st,
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
		bind_text(s, i + 1, v[i]);
	free(reason);
	sqlite3_bind_int64(s, 13, e->started);
	rc = step_done(st, s, err, "cannot record the era");
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
	if (commit(st, err))
		return -1;
	/* the WAL's frames held the rows as they were before era_seal_all */
	sqlite3_wal_checkpoint_v2(st->db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
	return 0;
fail:
	rollback(st);
	return -1;
}

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

static void era_row(sqlite3_stmt *s, void *row)
{
	era_read(s, row);
}

int store_era_list(struct store *st, const char *endpoint, struct store_era **out, size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st, "SELECT " ERA_COLS " FROM eras WHERE ?1 IS NULL OR endpoint = ?1 ORDER BY id", err);
	if (!s)
		return -1;
	bind_text(s, 1, endpoint);
	void *v = NULL;
	int rc = rows_collect(s, sizeof(**out), era_row, &v, n);
	*out = v;
	if (rc != SQLITE_DONE) {
		store_eras_free(*out, *n);
		*out = NULL;
		*n = 0;
		return db_err(st, err, "cannot list the eras");
	}
	return 0;
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
	sqlite3_stmt *s = prep(st, sql, err);
	if (!s)
		return -1;
	bind_text(s, 1, endpoint);
	if (id > 0)
		sqlite3_bind_int64(s, 2, id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		era_read(s, out);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return db_err(st, err, "cannot read the era");
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
	for (size_t i = 0; v && i < n; i++)
		store_era_release(&v[i]);
	free(v);
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

static void boot_read(sqlite3_stmt *s, struct store_boot *b)
{
	b->id = sqlite3_column_int64(s, 0);
	b->era_id = sqlite3_column_int64(s, 1);
	b->endpoint = col_text(s, 2, 0);
	b->at = sqlite3_column_int64(s, 3);
	b->source = col_text(s, 4, 0);
	b->runtime = col_text(s, 5, 0);
	b->runtime_version = col_text(s, 6, 0);
	b->device = col_text(s, 7, 0);
	b->payload_sha256 = col_text(s, 8, 0);
	b->payload_bytes = (uint64_t)sqlite3_column_int64(s, 9);
	b->ledger_json = col_text(s, 10, 0);
	b->plan_json = col_text(s, 11, 0);
	b->settled_used_mib = sqlite3_column_int64(s, 12);
	b->probes_json = col_text(s, 13, 1);
	b->bench_json = col_text(s, 14, 1);
}

static void boot_row(sqlite3_stmt *s, void *row)
{
	boot_read(s, row);
}

int store_boot_add(struct store *st, struct store_boot *b, char **err)
{
	if (store_name_ok(b->endpoint, err))
		return -1;
	if (b->at <= 0)
		b->at = (int64_t)time(NULL);
	char *rid = store_runtime_id(b->runtime_version);
	sqlite3_stmt *s = prep(st,
			       "INSERT INTO boots (era_id, endpoint, at, source, runtime, runtime_version, device, "
			       "payload_sha256, payload_bytes, ledger_json, plan_json, settled_used_mib, probes_json, "
			       "bench_json) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
			       err);
	if (!s) {
		free(rid);
		return -1;
	}
	sqlite3_bind_int64(s, 1, b->era_id);
	bind_text(s, 2, b->endpoint);
	sqlite3_bind_int64(s, 3, b->at);
	bind_text(s, 4, b->source);
	bind_text(s, 5, b->runtime);
	bind_text(s, 6, rid);
	bind_text(s, 7, b->device);
	bind_text(s, 8, b->payload_sha256 ? b->payload_sha256 : "");
	sqlite3_bind_int64(s, 9, (sqlite3_int64)b->payload_bytes);
	bind_text(s, 10, b->ledger_json);
	bind_text(s, 11, b->plan_json);
	sqlite3_bind_int64(s, 12, b->settled_used_mib);
	bind_text(s, 13, b->probes_json);
	bind_text(s, 14, b->bench_json);
	/* one statement is one (autocommit) transaction */
	int rc = step_done(st, s, err, "cannot record the boot");
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
	    prep(st,
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
	bind_text(s, 1, rid);
	bind_text(s, 2, runtime ? runtime : "");
	bind_text(s, 3, device ? device : "");
	bind_text(s, 4, payload_sha256 ? payload_sha256 : "");
	sqlite3_bind_int64(s, 5, (sqlite3_int64)payload_bytes);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		boot_read(s, out);
	sqlite3_finalize(s);
	free(rid);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return db_err(st, err, "cannot read the boots");
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

static int boot_query(struct store *st, const char *sql, const char *text, int64_t num, struct store_boot **out,
		      size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st, sql, err);
	if (!s)
		return -1;
	bind_text(s, 1, text);
	sqlite3_bind_int64(s, 2, num);
	void *v = NULL;
	int rc = rows_collect(s, sizeof(**out), boot_row, &v, n);
	*out = v;
	if (rc != SQLITE_DONE) {
		store_boots_free(*out, *n);
		*out = NULL;
		*n = 0;
		return db_err(st, err, "cannot list the boots");
	}
	return 0;
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
	sqlite3_stmt *s = prep(st, "SELECT " BOOT_COLS " FROM boots WHERE id = ?1", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		boot_read(s, out);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return db_err(st, err, "cannot read the boot");
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
	for (size_t i = 0; v && i < n; i++)
		store_boot_release(&v[i]);
	free(v);
}

/* --- attempts ------------------------------------------------------------ */

int64_t store_attempt_begin(struct store *st, const char *endpoint, const char *kind, const char *reason, char **err)
{
	if (store_name_ok(endpoint, err))
		return -1;
	sqlite3_stmt *s = prep(st,
			       "INSERT INTO attempts (endpoint, kind, reason, outcome, started, pid) "
			       "VALUES (?1, ?2, ?3, NULL, ?4, ?5)",
			       err);
	if (!s)
		return -1;
	bind_text(s, 1, endpoint);
	bind_text(s, 2, kind ? kind : "deploy");
	char *safe = redact_text(reason); /* a history row holds no secret */
	bind_text(s, 3, safe);
	free(safe);
	sqlite3_bind_int64(s, 4, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(s, 5, (sqlite3_int64)getpid());
	int rc = step_done(st, s, err, "cannot record the attempt");
	sqlite3_finalize(s);
	return rc ? -1 : (int64_t)sqlite3_last_insert_rowid(st->db);
}

int store_attempt_step(struct store *st, int64_t attempt, const char *step, const char *status, double seconds,
		       const char *detail, char **err)
{
	sqlite3_stmt *s = prep(st,
			       "INSERT INTO steps (attempt_id, step, status, seconds, detail, at) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
			       err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, attempt);
	bind_text(s, 2, step ? step : "");
	bind_text(s, 3, status ? status : "ok");
	sqlite3_bind_double(s, 4, seconds);
	char *safe = redact_text(detail); /* a history row holds no secret */
	bind_text(s, 5, safe);
	free(safe);
	sqlite3_bind_int64(s, 6, (sqlite3_int64)time(NULL));
	int rc = step_done(st, s, err, "cannot record the step");
	sqlite3_finalize(s);
	return rc;
}

int store_attempt_end(struct store *st, int64_t attempt, const char *outcome, int64_t era_id, char **err)
{
	sqlite3_stmt *s = prep(st, "UPDATE attempts SET outcome = ?1, ended = ?2, era_id = ?3 WHERE id = ?4", err);
	if (!s)
		return -1;
	bind_text(s, 1, outcome ? outcome : "deployed");
	sqlite3_bind_int64(s, 2, (sqlite3_int64)time(NULL));
	sqlite3_bind_int64(s, 3, era_id);
	sqlite3_bind_int64(s, 4, attempt);
	int rc = step_done(st, s, err, "cannot end the attempt");
	sqlite3_finalize(s);
	if (!rc && sqlite3_changes(st->db) != 1)
		return errorf(err, "%s: no attempt %lld", st->path, (long long)attempt);
	return rc;
}

static void step_row(sqlite3_stmt *s, void *row)
{
	struct store_step *p = row;
	p->step = col_text(s, 0, 0);
	p->status = col_text(s, 1, 0);
	p->seconds = sqlite3_column_double(s, 2);
	p->detail = col_text(s, 3, 0);
}

static void attempt_row(sqlite3_stmt *s, void *row)
{
	struct store_attempt *a = row;
	a->id = sqlite3_column_int64(s, 0);
	a->endpoint = col_text(s, 1, 0);
	a->kind = col_text(s, 2, 0);
	a->reason = col_text(s, 3, 0);
	a->outcome = col_text(s, 4, 1);
	a->started = sqlite3_column_int64(s, 5);
	a->ended = sqlite3_column_int64(s, 6);
	a->era_id = sqlite3_column_int64(s, 7);
	a->pid = sqlite3_column_int64(s, 8);
}

static int steps_read(struct store *st, struct store_attempt *a, char **err)
{
	sqlite3_stmt *s =
	    prep(st, "SELECT step, status, seconds, detail FROM steps WHERE attempt_id = ?1 ORDER BY id", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, a->id);
	void *v = a->steps;
	int rc = rows_collect(s, sizeof(*a->steps), step_row, &v, &a->n_steps);
	a->steps = v;
	return rc == SQLITE_DONE ? 0 : db_err(st, err, "cannot list the steps");
}

int store_attempt_list(struct store *st, const char *endpoint, struct store_attempt **out, size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st,
			       "SELECT id, endpoint, kind, reason, outcome, started, ended, era_id, pid FROM attempts "
			       "WHERE ?1 IS NULL OR endpoint = ?1 ORDER BY id",
			       err);
	if (!s)
		return -1;
	bind_text(s, 1, endpoint);
	void *v = NULL;
	int rc = rows_collect(s, sizeof(**out), attempt_row, &v, n);
	*out = v;
	if (rc != SQLITE_DONE) {
		store_attempts_free(*out, *n);
		*out = NULL;
		*n = 0;
		return db_err(st, err, "cannot list the attempts");
	}
	for (size_t i = 0; i < *n; i++) {
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
	return 0;
}

void store_attempts_free(struct store_attempt *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		struct store_attempt *a = &v[i];
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
	free(v);
}

int store_integrity(struct store *st, char **err)
{
	sqlite3_stmt *s = prep(st, "PRAGMA integrity_check", err);
	if (!s)
		return -1;
	int rc = sqlite3_step(s);
	const char *r = rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0) : NULL;
	int okay = r && strcmp(r, "ok") == 0;
	if (!okay)
		errorf(err, "%s: integrity check: %s", st->path, r ? r : sqlite3_errmsg(st->db));
	sqlite3_finalize(s);
	return okay ? 0 : -1;
}

/* --- the runtime version cache --------------------------------------------- */

int store_runtime_version_get(struct store *st, const char *path, const char *stamp, char **version, char **err)
{
	*version = NULL;
	sqlite3_stmt *s = prep(st, "SELECT version FROM runtime_versions WHERE path = ?1 AND stamp = ?2", err);
	if (!s)
		return -1;
	bind_text(s, 1, path);
	bind_text(s, 2, stamp);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*version = col_text(s, 0, 0);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return db_err(st, err, "cannot read the runtime versions");
}

int store_runtime_version_put(struct store *st, const char *path, const char *stamp, const char *version, char **err)
{
	if (st->reader) { /* the one write a reader makes: on a connection of its own */
		struct store *w = store_open(st->dir, err);
		int rc = w ? store_runtime_version_put(w, path, stamp, version, err) : -1;
		store_close(w);
		return rc;
	}
	sqlite3_stmt *s = prep(st,
			       "INSERT OR REPLACE INTO runtime_versions (path, stamp, version, at) "
			       "VALUES (?1, ?2, ?3, ?4)",
			       err);
	if (!s)
		return -1;
	bind_text(s, 1, path);
	bind_text(s, 2, stamp);
	bind_text(s, 3, version ? version : "");
	sqlite3_bind_int64(s, 4, (sqlite3_int64)time(NULL));
	int rc = step_done(st, s, err, "cannot cache the runtime version");
	sqlite3_finalize(s);
	return rc;
}

/* --- zealot store check ---------------------------------------------------- */

int store_health_check(const char *dir, int full, struct store_health *h, char **err)
{
	memset(h, 0, sizeof(*h));
	h->version = -1;
	h->dir = dir ? xstrdup(dir) : store_state_dir();
	struct sb p = {0};
	sb_addf(&p, "%s/zealot.db", h->dir);
	h->path = sb_detach(&p);
	h->n_backups = backups_list(h->dir, &h->backups);
	struct stat sb;
	if (stat(h->path, &sb) != 0) {
		if (errno != ENOENT)
			return errorf(err, "cannot stat '%s': %s", h->path, strerror(errno));
		h->ok = 1; /* no store yet: nothing to be damaged */
		return 0;
	}
	h->exists = 1;
	char *why = NULL;
	h->writable = writable(h->dir, h->path, &why) == 0;
	if (!h->writable) {
		h->readonly_why = why;
		why = NULL;
	}
	sqlite3 *db = NULL;
	if (sqlite3_open_v2(h->path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
		errorf(err, "cannot open '%s': %s", h->path, db ? sqlite3_errmsg(db) : "out of memory");
		sqlite3_close(db);
		return -1;
	}
	sqlite3_busy_timeout(db, 10000);
	sqlite3_extended_result_codes(db, 1);
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
		h->version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	int rc = run_check(db, full, &h->problems, &h->n_problems, &why);
	sqlite3_close(db);
	if (rc < 0) {
		errorf(err, "%s: cannot check the store: %s", h->path, why);
		free(why);
		return -1;
	}
	h->ok = rc == 0;
	if (!h->ok)
		h->recovery = recovery_text(h->dir, h->path, h->version > 0 ? h->version : store_schema_version());
	return 0;
}

void store_health_release(struct store_health *h)
{
	if (!h)
		return;
	free(h->dir);
	free(h->path);
	free(h->readonly_why);
	free(h->recovery);
	strings_free(h->problems, h->n_problems);
	strings_free(h->backups, h->n_backups);
	memset(h, 0, sizeof(*h));
}

/* --- behaviour baselines --------------------------------------------------- */

int store_baseline_put(struct store *st, const char *endpoint, int64_t era_id, const char *source,
		       const char *answers_json, char **err)
{
	if (store_name_ok(endpoint, err))
		return -1;
	sqlite3_stmt *s = prep(st,
			       "INSERT INTO baselines (era_id, endpoint, at, source, answers_json) "
			       "VALUES (?1, ?2, ?3, ?4, ?5)",
			       err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, era_id);
	bind_text(s, 2, endpoint);
	sqlite3_bind_int64(s, 3, (sqlite3_int64)time(NULL));
	bind_text(s, 4, source);
	bind_text(s, 5, answers_json ? answers_json : "[]");
	int rc = step_done(st, s, err, "cannot record the baseline");
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
		sqlite3_stmt *s = prep(st, sql[i], err);
		if (!s)
			return -1;
		sqlite3_bind_int64(s, 1, era_id);
		int rc = sqlite3_step(s);
		if (rc == SQLITE_ROW) {
			*answers_json = col_text(s, 0, 1);
			if (source) {
				free(*source);
				*source = col_text(s, 1, 0);
			}
		} else if (rc != SQLITE_DONE) {
			db_err(st, err, "cannot read the baseline");
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
	sqlite3_stmt *s = prep(st,
			       "INSERT INTO arms (endpoint, era_id, boot_id, at, keys_json, reason, bench_json) "
			       "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
			       err);
	if (!s)
		return -1;
	bind_text(s, 1, a->endpoint);
	sqlite3_bind_int64(s, 2, a->era_id);
	sqlite3_bind_int64(s, 3, a->boot_id);
	sqlite3_bind_int64(s, 4, a->at);
	bind_text(s, 5, a->keys_json ? a->keys_json : "{}");
	bind_text(s, 6, a->reason);
	bind_text(s, 7, a->bench_json);
	int rc = step_done(st, s, err, "cannot record the arm");
	sqlite3_finalize(s);
	if (rc)
		return -1;
	a->id = sqlite3_last_insert_rowid(st->db);
	return 0;
}

int store_arm_list(struct store *st, const char *endpoint, struct store_arm **out, size_t *n, char **err)
{
	*out = NULL;
	*n = 0;
	sqlite3_stmt *s = prep(st,
			       "SELECT id, endpoint, era_id, boot_id, at, keys_json, reason, bench_json FROM arms "
			       "WHERE (?1 IS NULL OR endpoint = ?1) ORDER BY id",
			       err);
	if (!s)
		return -1;
	bind_text(s, 1, endpoint);
	int rc;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		*out = xreallocarray(*out, *n + 1, sizeof(**out));
		struct store_arm *a = &(*out)[(*n)++];
		a->id = sqlite3_column_int64(s, 0);
		a->endpoint = col_text(s, 1, 0);
		a->era_id = sqlite3_column_int64(s, 2);
		a->boot_id = sqlite3_column_int64(s, 3);
		a->at = sqlite3_column_int64(s, 4);
		a->keys_json = col_text(s, 5, 0);
		a->reason = col_text(s, 6, 0);
		a->bench_json = col_text(s, 7, 1);
	}
	sqlite3_finalize(s);
	if (rc != SQLITE_DONE) {
		store_arms_free(*out, *n);
		*out = NULL;
		*n = 0;
		return db_err(st, err, "cannot list the arms");
	}
	return 0;
}

void store_arms_free(struct store_arm *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++) {
		free(v[i].endpoint);
		free(v[i].keys_json);
		free(v[i].reason);
		free(v[i].bench_json);
	}
	free(v);
}
