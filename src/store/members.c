/* store: a router era's members (store.h, schema version 5), one JSON
 * text a row beside the era, and what history and diff show of them
 * (eras.h). */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "eras.h"
#include "store.h"
#include "store_int.h"

int store_era_members_put(struct store *st, int64_t era_id, const char *members_json, char **err)
{
	sqlite3_stmt *s =
	    store_prep(st, "INSERT OR REPLACE INTO era_members (era_id, members_json) VALUES (?1, ?2)", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, era_id);
	store_bind(s, 2, members_json);
	int rc = store_step_done(st, s, err, "cannot record the era's members");
	sqlite3_finalize(s);
	return rc;
}

int store_era_members_get(struct store *st, int64_t era_id, char **members_json, char **err)
{
	*members_json = NULL;
	sqlite3_stmt *s = store_prep(st, "SELECT members_json FROM era_members WHERE era_id = ?1", err);
	if (!s)
		return -1;
	sqlite3_bind_int64(s, 1, era_id);
	int rc = sqlite3_step(s);
	if (rc == SQLITE_ROW)
		*members_json = store_col_text(s, 0, 0);
	sqlite3_finalize(s);
	if (rc == SQLITE_ROW)
		return 0;
	if (rc == SQLITE_DONE)
		return 1;
	return store_db_err(st, err, "cannot read the era's members");
}

/* One member of an era's record parsed back as an endpoint (named by its
 * file: NAME.env), or NULL. */
static struct endpoint *member_ep(json_t *m)
{
	const char *text = json_string_value(json_object_get(m, "text"));
	const char *name = json_string_value(json_object_get(m, "name"));
	if (!text || !name)
		return NULL;
	char *path = xstrf("%s.env", name);
	struct endpoint *ep = endpoint_parse(text, strlen(text), path, NULL);
	free(path);
	return ep;
}

static json_t *member_named(json_t *ms, const char *name)
{
	size_t i;
	json_t *m;
	json_array_foreach(ms, i, m)
	{
		const char *n = json_string_value(json_object_get(m, "name"));
		if (n && strcmp(n, name) == 0)
			return m;
	}
	return NULL;
}

/* The changes of one side's members against the other's, appended. */
static void changes_of(json_t *from, json_t *to, int from_side, json_t *out)
{
	size_t i;
	json_t *m;
	json_array_foreach(from_side ? from : to, i, m)
	{
		const char *name = json_string_value(json_object_get(m, "name"));
		json_t *other = member_named(from_side ? to : from, name ? name : "");
		if (!name || (other && from_side))
			continue; /* (a member on both sides is the to side's) */
		if (!other) {
			json_array_append_new(out, json_pack("{s:s, s:s, s:[]}", "name", name, "change",
							     from_side ? "removed" : "added", "keys"));
			continue;
		}
		struct endpoint *a = member_ep(other), *b = member_ep(m);
		json_t *keys = a && b ? eras_key_changes(a, b) : json_array();
		const char *sa = json_string_value(json_object_get(other, "sha256"));
		const char *sb = json_string_value(json_object_get(m, "sha256"));
		if (json_array_size(keys) || !sa || !sb || strcmp(sa, sb))
			json_array_append_new(
			    out, json_pack("{s:s, s:s, s:O}", "name", name, "change", "changed", "keys", keys));
		json_decref(keys);
		endpoint_free(a);
		endpoint_free(b);
	}
}

json_t *eras_members_changes(const char *from_json, const char *to_json)
{
	json_t *from = from_json ? json_loads(from_json, 0, NULL) : NULL;
	json_t *to = to_json ? json_loads(to_json, 0, NULL) : NULL;
	json_t *out = json_array();
	if (!json_is_array(from))
		from = (json_decref(from), json_array());
	if (!json_is_array(to))
		to = (json_decref(to), json_array());
	changes_of(from, to, 0, out);
	changes_of(from, to, 1, out);
	json_decref(from);
	json_decref(to);
	return out;
}

json_t *eras_members_json(struct store *st, const struct store_era *e, const struct store_era *prev, char **err)
{
	char *mine = NULL, *before = NULL;
	int got = store_era_members_get(st, e->id, &mine, err);
	if (got)
		return got < 0 ? NULL : json_null();
	if (prev && store_era_members_get(st, prev->id, &before, err) < 0) {
		free(mine);
		return NULL;
	}
	json_t *ms = json_loads(mine, 0, NULL), *names = json_array();
	size_t i;
	json_t *m;
	json_array_foreach(ms, i, m)
	{
		struct endpoint *ep = member_ep(m);
		char *shape = ep ? eras_shape(ep) : NULL, *pay = ep ? eras_payload(ep, NULL) : NULL;
		json_t *x =
		    json_pack("{s:O, s:O}", "name", json_object_get(m, "name"), "sha256", json_object_get(m, "sha256"));
		json_object_set_new(x, "shape", shape ? json_string(shape) : json_null());
		json_object_set_new(x, "payload", pay ? json_string(pay) : json_null());
		json_array_append_new(names, x);
		free(shape);
		free(pay);
		endpoint_free(ep);
	}
	json_t *o = json_pack("{s:o}", "names", names);
	json_object_set_new(o, "changes", prev ? eras_members_changes(before, mine) : json_null());
	json_decref(ms);
	free(mine);
	free(before);
	return o;
}
