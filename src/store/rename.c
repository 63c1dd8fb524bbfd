/* store: an endpoint renamed with its history (store.h): every row that
 * names the endpoint moves to the new name in one transaction. */
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "store.h"
#include "store_int.h"

/* Rows of table naming endpoint name: > 0, 0, or -1 with *err. */
static int64_t count_rows(struct store *st, const char *name, char **err)
{
	sqlite3_stmt *s = store_prep(st, "SELECT count(*) FROM eras WHERE endpoint = ?1", err);
	if (!s)
		return -1;
	store_bind(s, 1, name);
	int64_t n = sqlite3_step(s) == SQLITE_ROW ? sqlite3_column_int64(s, 0) : -1;
	sqlite3_finalize(s);
	if (n < 0)
		return store_db_err(st, err, "cannot count the endpoint's eras");
	return n;
}

/* One UPDATE of the rename, its text binding ?1 from, ?2 to and the rest. */
static int update(struct store *st, const char *sql, const char *const *v, size_t n, char **err)
{
	sqlite3_stmt *s = store_prep(st, sql, err);
	if (!s)
		return -1;
	for (size_t i = 0; i < n; i++)
		store_bind(s, (int)i + 1, v[i]);
	int rc = sqlite3_step(s) == SQLITE_DONE ? 0 : store_db_err(st, err, "cannot rename the endpoint's rows");
	sqlite3_finalize(s);
	return rc;
}

int store_rename(struct store *st, const struct store_rename *r, size_t *n_eras, char **err)
{
	if (store_name_ok(r->from, err) || store_name_ok(r->to, err))
		return -1;
	if (store_begin(st, err))
		return -1;
	int64_t taken = count_rows(st, r->to, err), eras = taken < 0 ? -1 : count_rows(st, r->from, err);
	if (taken > 0 || eras == 0) {
		store_rollback(st);
		return taken > 0 ? errorf(err, "the store already holds %lld era(s) of %s", (long long)taken, r->to)
				 : errorf(err, "the store holds no era of %s", r->from);
	}
	const char *v[] = {r->from, r->to, r->env_from, r->env_to, r->unit_name, r->unit_text};
	static const char *const others[] = {
	    "UPDATE boots SET endpoint = ?2 WHERE endpoint = ?1",
	    "UPDATE attempts SET endpoint = ?2 WHERE endpoint = ?1",
	    "UPDATE baselines SET endpoint = ?2 WHERE endpoint = ?1",
	    "UPDATE arms SET endpoint = ?2 WHERE endpoint = ?1",
	};
	int rc =
	    eras < 0 || update(st,
			       "UPDATE eras SET endpoint = ?2, unit_name = ?5, endpoint_path = CASE WHEN "
			       "endpoint_path = ?3 THEN ?4 ELSE endpoint_path END, unit_text = CASE WHEN ended = 0 "
			       "THEN ?6 ELSE unit_text END WHERE endpoint = ?1",
			       v, 6, err);
	for (size_t i = 0; !rc && i < ARRAY_SIZE(others); i++)
		rc = update(st, others[i], v, 2, err);
	if (rc) {
		store_rollback(st);
		return -1;
	}
	if (store_commit(st, err))
		return -1;
	*n_eras = (size_t)eras;
	return 0;
}
