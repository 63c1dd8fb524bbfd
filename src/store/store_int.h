/* store_int: what the store's two halves share, private to src/store/
 * (as SQLite keeps btreeInt.h beside btree.c): the handle's insides and
 * the statements. store.c is the lifecycle (open, migrate, check, lock)
 * and defines these; records.c writes and reads the rows through them.
 * Nothing outside src/store/ includes this header. */
#ifndef ZEALOT_STORE_INT_H
#define ZEALOT_STORE_INT_H

#include <sqlite3.h>

struct store {
	sqlite3 *db;
	char *dir;
	char *path;
	int reader; /* store_open_read's read-only connection */
};

/* mkdir -p, each component 0700 when created. */
int store_mkdirs(const char *dir, char **err);
/* Take group and other bits off a path zealot owns (a store made before
 * it kept them 0600/0700). */
void store_tighten(const char *path);

/* -1, *err "PATH: what: sqlite's message". */
int store_db_err(struct store *st, char **err, const char *what);
/* Run SQL that returns no rows: 0, or -1 with *err. */
int store_exec(struct store *st, const char *sql, char **err);
/* A prepared statement, or NULL with *err. */
sqlite3_stmt *store_prep(struct store *st, const char *sql, char **err);
/* Bind text (NULL binds NULL). */
void store_bind(sqlite3_stmt *s, int i, const char *v);
/* A text column, allocated: "" for NULL unless keep_null. */
char *store_col_text(sqlite3_stmt *s, int i, int keep_null);
/* Run a statement that returns no rows: 0, or -1 with *err (what).
 * Outside BEGIN ... COMMIT the statement is its own transaction: the
 * store's fault points bracket it as they bracket store_commit
 * (src/base/fault.h). */
int store_step_done(struct store *st, sqlite3_stmt *s, char **err, const char *what);
/* BEGIN IMMEDIATE; COMMIT between the store's fault points (rolled back
 * when it fails); ROLLBACK. */
int store_begin(struct store *st, char **err);
int store_commit(struct store *st, char **err);
void store_rollback(struct store *st);

#endif
