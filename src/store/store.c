/* store: the database's lifecycle (see store.h): the schema and its
 * migrations, open (the directory, the checks, WAL), damage and its
 * recovery text, `zealot store check`, the statements every record uses
 * (store_int.h) and the per-endpoint lock. The records are records.c's. */
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
#include "../base/util.h"
#include "store.h"
#include "store_int.h"

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
    /* 4 -> 5: a router endpoint's members (endpoint/router.h), each
     * member file's whole text as the era installed it: a rollback writes
     * them back, history and diff name what changed */
    "CREATE TABLE era_members (era_id INTEGER PRIMARY KEY, members_json TEXT NOT NULL);",
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
int store_mkdirs(const char *dir, char **err)
{
	return dir_private(dir, err);
}

int store_db_err(struct store *st, char **err, const char *what)
{
	return errorf(err, "%s: %s: %s", st->path, what, sqlite3_errmsg(st->db));
}

int store_exec(struct store *st, const char *sql, char **err)
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
		return store_db_err(st, err, "cannot read the schema version");
	int rc = sqlite3_step(s);
	*v = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
	sqlite3_finalize(s);
	return rc == SQLITE_ROW ? 0 : store_db_err(st, err, "cannot read the schema version");
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
		rc = store_exec(st, sql, err);
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
	if (store_exec(st, "BEGIN IMMEDIATE", err))
		return -1;
	/* another process may have migrated while we waited for the lock */
	if (user_version(st, &v, err))
		goto fail;
	for (int i = v; i < want; i++)
		if (store_exec(st, migrations[i], err))
			goto fail;
	if (v < want) {
		char sql[64];
		snprintf(sql, sizeof(sql), "PRAGMA user_version = %d", want);
		if (store_exec(st, sql, err))
			goto fail;
	}
	return store_exec(st, "COMMIT", err);
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return -1;
}

/* Take group and other bits off a path zealot owns (a store made before
 * it kept them 0600/0700). */
void store_tighten(const char *path)
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
		store_tighten(b.s);
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
	if (store_mkdirs(st->dir, err) || writable(st->dir, st->path, err)) {
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
			store_db_err(st, err, "not a database zealot can use");
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
			store_db_err(st, err, "cannot switch to WAL mode (is it a database?)");
		goto fail;
	}
	/* secure_delete: a row rewritten without a secret (era_seal) leaves no
	 * copy of the old text in a free page */
	if (store_exec(st, "PRAGMA synchronous=FULL; PRAGMA foreign_keys=ON; PRAGMA secure_delete=ON", err))
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

sqlite3_stmt *store_prep(struct store *st, const char *sql, char **err)
{
	sqlite3_stmt *s = NULL;
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
		store_db_err(st, err, "cannot prepare a statement");
		return NULL;
	}
	return s;
}

void store_bind(sqlite3_stmt *s, int i, const char *v)
{
	if (v)
		sqlite3_bind_text(s, i, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, i);
}

/* A text column: "" for NULL unless keep_null. */
char *store_col_text(sqlite3_stmt *s, int i, int keep_null)
{
	const unsigned char *t = sqlite3_column_text(s, i);
	if (!t)
		return keep_null ? NULL : xstrdup("");
	return xstrndup((const char *)t, (size_t)sqlite3_column_bytes(s, i));
}

/* Run a statement that returns no rows. Outside BEGIN ... COMMIT the
 * statement is its own transaction: the store's fault points bracket it
 * as they bracket store_commit() (src/base/fault.h). */
int store_step_done(struct store *st, sqlite3_stmt *s, char **err, const char *what)
{
	int own = sqlite3_get_autocommit(st->db);
	if (own)
		fault_point("store", "before-commit");
	int rc = sqlite3_step(s);
	if (rc != SQLITE_DONE) {
		store_db_err(st, err, what);
		return -1;
	}
	if (own)
		fault_point("store", "after-commit");
	return 0;
}

int store_begin(struct store *st, char **err)
{
	return store_exec(st, "BEGIN IMMEDIATE", err);
}

int store_commit(struct store *st, char **err)
{
	fault_point("store", "before-commit"); /* every write of the transaction made, none committed */
	if (store_exec(st, "COMMIT", err)) {
		sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
		return -1;
	}
	fault_point("store", "after-commit");
	return 0;
}

void store_rollback(struct store *st)
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
	sqlite3_stmt *s = store_prep(st,
				     "UPDATE attempts SET outcome = 'interrupted', ended = ?1 "
				     "WHERE endpoint = ?2 AND outcome IS NULL",
				     NULL);
	if (!s)
		return;
	sqlite3_bind_int64(s, 1, (sqlite3_int64)time(NULL));
	store_bind(s, 2, endpoint);
	sqlite3_step(s);
	sqlite3_finalize(s);
}

int store_lock(struct store *st, const char *endpoint, char **err)
{
	if (store_name_ok(endpoint, err))
		return -1;
	struct sb d = {0};
	sb_addf(&d, "%s/locks", st->dir);
	int rc = store_mkdirs(d.s, err);
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

int store_integrity(struct store *st, char **err)
{
	sqlite3_stmt *s = store_prep(st, "PRAGMA integrity_check", err);
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
