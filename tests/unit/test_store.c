#include <signal.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/util.h"
#include "store/eras.h"
#include "store/store.h"
#include "tap.h"

static char *tmpdir(void)
{
	char t[] = "/tmp/zealot-store-XXXXXX";
	return xstrdup(mkdtemp(t) ? t : "/nonexistent");
}

static void rmrf(const char *dir)
{
	struct sb c = {0};
	sb_addf(&c, "rm -rf '%s'", dir);
	if (system(c.s) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	sb_release(&c);
}

static char *db_path(const char *dir)
{
	struct sb b = {0};
	sb_addf(&b, "%s/zealot.db", dir);
	return sb_detach(&b);
}

/* Straight through SQLite, beside the store: what a file really holds. */
static int raw_int(const char *path, const char *sql)
{
	sqlite3 *db;
	int v = -1;
	if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK) {
		sqlite3_stmt *s;
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
			if (sqlite3_step(s) == SQLITE_ROW)
				v = sqlite3_column_int(s, 0);
			sqlite3_finalize(s);
		}
	}
	sqlite3_close(db);
	return v;
}

static int raw_exec(const char *path, const char *sql)
{
	sqlite3 *db;
	int rc = sqlite3_open(path, &db);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
	sqlite3_close(db);
	return rc == SQLITE_OK ? 0 : -1;
}

static void test_open_migrate(void)
{
	char *err = NULL;
	char *dir = tmpdir();
	struct sb sub = {0};
	sb_addf(&sub, "%s/a/b", dir); /* created, parents too */
	struct store *st = store_open(sub.s, &err);
	ok(st != NULL, "open creates the directory and the database (%s)", tap_s(err));
	char *p = db_path(sub.s);
	ok(st && strcmp(store_path(st), p) == 0, "the database is <dir>/zealot.db");
	store_close(st);
	ok(raw_int(p, "PRAGMA user_version") == store_schema_version() && store_schema_version() >= 1,
	   "a new database is at the current schema version %d", store_schema_version());
	ok(raw_int(p, "SELECT count(*) FROM sqlite_master WHERE name IN ('eras','boots','attempts','steps')") == 4,
	   "eras, boots, attempts and steps exist");
	st = store_open(sub.s, &err);
	ok(st != NULL, "a database at the current version opens again");
	ok(st && raw_int(p, "SELECT count(*) FROM sqlite_master WHERE name = 'eras'") == 1,
	   "reopening does not re-run a migration");
	store_close(st);
	sqlite3 *db;
	sqlite3_open(p, &db);
	sqlite3_stmt *s;
	sqlite3_prepare_v2(db, "PRAGMA journal_mode", -1, &s, NULL);
	sqlite3_step(s);
	ok(strcmp((const char *)sqlite3_column_text(s, 0), "wal") == 0, "the database is in WAL mode");
	sqlite3_finalize(s);
	sqlite3_close(db);
	free(p);
	sb_release(&sub);

	/* a zero-length file (what `touch` leaves) is a v0 database */
	sb_addf(&sub, "%s/empty", dir);
	store_close(store_open(sub.s, &err)); /* makes the dir */
	free(err);
	err = NULL;
	p = db_path(sub.s);
	unlink(p);
	FILE *f = fopen(p, "w");
	if (f)
		fclose(f);
	st = store_open(sub.s, &err);
	ok(st != NULL && raw_int(p, "PRAGMA user_version") == store_schema_version(),
	   "a zero-length file migrates to the current version");
	store_close(st);
	free(p);
	sb_release(&sub);

	/* a v0 database that already holds something of its own */
	sb_addf(&sub, "%s/v0", dir);
	store_close(store_open(sub.s, NULL));
	p = db_path(sub.s);
	unlink(p);
	ok(raw_exec(p, "CREATE TABLE notes(x); INSERT INTO notes VALUES (42)") == 0, "a v0 database made by hand");
	st = store_open(sub.s, &err);
	ok(st != NULL && raw_int(p, "PRAGMA user_version") == store_schema_version() &&
	       raw_int(p, "SELECT x FROM notes") == 42,
	   "a v0 database migrates in place and keeps its rows");
	store_close(st);

	/* a database one step behind (version 1: before the runtime version
	 * cache) with an era in it: the later step runs, the era stays */
	ok(raw_exec(p, "INSERT INTO eras (endpoint, started) VALUES ('old', 1); DROP TABLE runtime_versions; "
		       "DROP TABLE baselines; DROP TABLE arms; DROP TABLE era_members; "
		       "PRAGMA user_version = 1") == 0,
	   "a version-1 database holding an era");
	st = store_open(sub.s, &err);
	ok(st != NULL && raw_int(p, "PRAGMA user_version") == store_schema_version() &&
	       raw_int(p, "SELECT count(*) FROM runtime_versions") == 0 &&
	       raw_int(p, "SELECT count(*) FROM eras WHERE endpoint = 'old'") == 1,
	   "it migrates by the later step alone and keeps its era");
	char *ver = NULL;
	ok(st && store_runtime_version_get(st, "/rt", "1:2:3:4", &ver, &err) == 1, "no runtime version cached yet");
	ok(st && store_runtime_version_put(st, "/rt", "1:2:3:4", "version: x (build 5, commit y)", &err) == 0 &&
	       store_runtime_version_get(st, "/rt", "1:2:3:4", &ver, &err) == 0 && ver &&
	       strcmp(ver, "version: x (build 5, commit y)") == 0,
	   "a runtime's version is cached by path and stamp");
	free(ver);
	ok(st && store_runtime_version_get(st, "/rt", "1:2:3:5", &ver, &err) == 1,
	   "a rebuilt runtime (another stamp) is not");

	/* an era's behaviour baseline: recorded, else its latest boot's probes */
	char *ans = NULL, *src = NULL;
	ok(st && store_baseline_get(st, 7, &ans, &src, &err) == 1 && !ans, "no baseline for an era without one");

	/* arms (schema 4): a candidate's keys, reason and figures, by endpoint */
	struct store_arm arm = {0}, *arms = NULL;
	size_t n_arms = 0;
	arm.endpoint = "old";
	arm.era_id = 7;
	arm.boot_id = 3;
	arm.at = 100;
	arm.keys_json = "{\"UBATCH_SIZE\":\"256\"}";
	arm.reason = "ubatch";
	arm.bench_json = "{\"decode_tps\":{\"median\":12.5}}";
	ok(st && store_arm_add(st, &arm, &err) == 0 && arm.id > 0 &&
	       store_arm_list(st, "old", &arms, &n_arms, &err) == 0 && n_arms == 1 && arms[0].era_id == 7 &&
	       arms[0].boot_id == 3 && strcmp(arms[0].keys_json, arm.keys_json) == 0 &&
	       strcmp(arms[0].reason, "ubatch") == 0 && strcmp(arms[0].bench_json, arm.bench_json) == 0,
	   "an arm is recorded and read back with its keys, reason and figures");
	store_arms_free(arms, n_arms);
	ok(st && store_arm_list(st, "other", &arms, &n_arms, &err) == 0 && n_arms == 0, "arms are per endpoint");
	store_arms_free(arms, n_arms);
	struct store_boot bb = {0};
	bb.era_id = 7;
	bb.endpoint = "old";
	bb.source = "deploy";
	bb.probes_json = "[{\"name\":\"chat\",\"answer\":\"a\"}]";
	ok(st && store_boot_add(st, &bb, &err) == 0 && store_baseline_get(st, 7, &ans, &src, &err) == 0 && ans &&
	       strstr(ans, "\"a\"") && strcmp(src, "deploy") == 0,
	   "an era's baseline falls back to its latest boot's probes");
	free(ans);
	free(src);
	ok(st &&
	       store_baseline_put(st, "old", 7, "probe --record", "[{\"name\":\"chat\",\"answer\":\"b\"}]", &err) ==
		   0 &&
	       store_baseline_get(st, 7, &ans, &src, &err) == 0 && ans && strstr(ans, "\"b\"") &&
	       strcmp(src, "probe --record") == 0,
	   "a recorded baseline is the era's");
	free(ans);
	free(src);
	/* a router era's members (schema version 5) */
	char *mj = NULL;
	ok(st && store_era_members_get(st, 7, &mj, &err) == 1 && !mj, "an era without members has none");
	ok(st && store_era_members_put(st, 7, "[{\"name\":\"a\",\"text\":\"CTX_SIZE=1\\n\"}]", &err) == 0 &&
	       store_era_members_get(st, 7, &mj, &err) == 0 && mj && strstr(mj, "CTX_SIZE=1"),
	   "an era's members are recorded and read back");
	free(mj);
	json_t *ch = eras_members_changes("[{\"name\":\"a\",\"text\":\"CTX_SIZE=1\\n\",\"sha256\":\"x\"},"
					  "{\"name\":\"b\",\"text\":\"\",\"sha256\":\"y\"}]",
					  "[{\"name\":\"a\",\"text\":\"CTX_SIZE=2\\n\",\"sha256\":\"z\"},"
					  "{\"name\":\"c\",\"text\":\"\",\"sha256\":\"w\"}]");
	char *cs = json_dumps(ch, JSON_COMPACT);
	ok(cs &&
	       strstr(cs, "{\"name\":\"a\",\"change\":\"changed\",\"keys\":[{\"key\":\"CTX_SIZE\",\"from\":\"1\","
			  "\"to\":\"2\"") &&
	       strstr(cs, "{\"name\":\"c\",\"change\":\"added\"") &&
	       strstr(cs, "{\"name\":\"b\",\"change\":\"removed\""),
	   "member changes: one changed (its key), one added, one removed (%s)", tap_s(cs));
	free(cs);
	json_decref(ch);
	store_close(st);

	/* from the future: refused, untouched */
	ok(raw_exec(p, "PRAGMA user_version = 99") == 0, "the same database stamped version 99");
	free(err);
	err = NULL;
	st = store_open(sub.s, &err);
	ok(st == NULL && err && strstr(err, "schema version 99") && strstr(err, "newer"),
	   "a database from a newer zealot is refused, naming its version (%s)", tap_s(err));
	ok(raw_int(p, "PRAGMA user_version") == 99 && raw_int(p, "SELECT x FROM notes") == 42,
	   "the newer database is left untouched");
	free(err);
	err = NULL;
	free(p);
	sb_release(&sub);

	/* not a database at all */
	sb_addf(&sub, "%s/junk", dir);
	store_close(store_open(sub.s, NULL));
	p = db_path(sub.s);
	unlink(p);
	f = fopen(p, "w");
	if (f) {
		fputs("this is not an SQLite database, but it is long enough to have a header...\n", f);
		fclose(f);
	}
	st = store_open(sub.s, &err);
	ok(st == NULL && err && strstr(err, p), "a file that is not a database is refused, naming it (%s)", tap_s(err));
	free(err);
	free(p);
	sb_release(&sub);
	rmrf(dir);
	free(dir);
}

/* store_open_read: a read-only connection to a whole, current store, and
 * store_open itself (its migration, its refusals, word for word) for
 * anything else. */
static void test_open_read(void)
{
	char *err = NULL, *err2 = NULL;
	char *dir = tmpdir();
	store_close(store_open(dir, NULL));
	char *p = db_path(dir);
	struct store *st = store_open_read(dir, &err);
	ok(st != NULL, "a whole store at the current version opens for reading (%s)", tap_s(err));
	char *ver = NULL;
	ok(st && store_runtime_version_put(st, "/rt", "1:2:3:4", "version: r (build 9, commit z)", &err) == 0 &&
	       store_runtime_version_get(st, "/rt", "1:2:3:4", &ver, &err) == 0 && ver &&
	       strcmp(ver, "version: r (build 9, commit z)") == 0,
	   "a reader caches a runtime's version (on a connection of its own) and reads it back (%s)", tap_s(err));
	free(ver);
	store_close(st);
	ok(raw_int(p, "SELECT count(*) FROM runtime_versions WHERE path = '/rt'") == 1,
	   "the cached version is in the file");

	/* behind the schema (a zero-length file is version 0): the reader is
	 * store_open, which migrates */
	unlink(p);
	FILE *f = fopen(p, "w");
	if (f)
		fclose(f);
	st = store_open_read(dir, &err);
	ok(st != NULL && raw_int(p, "PRAGMA user_version") == store_schema_version() &&
	       raw_int(p, "SELECT count(*) FROM sqlite_master WHERE name = 'eras'") == 1,
	   "a reader of an older store migrates it as store_open does (%s)", tap_s(err));
	store_close(st);

	/* refusals: the same words as store_open's */
	ok(raw_exec(p, "PRAGMA user_version = 99") == 0, "the store stamped version 99");
	st = store_open_read(dir, &err);
	struct store *st2 = store_open(dir, &err2);
	ok(!st && !st2 && err && err2 && strcmp(err, err2) == 0 && strstr(err, "newer"),
	   "a store from a newer zealot: the reader refuses it in store_open's words (%s)", tap_s(err));
	free(err);
	free(err2);
	err = err2 = NULL;
	unlink(p);
	f = fopen(p, "w");
	if (f) {
		fputs("this is not an SQLite database, but it is long enough to have a header...\n", f);
		fclose(f);
	}
	st = store_open_read(dir, &err);
	st2 = store_open(dir, &err2);
	ok(!st && !st2 && err && err2 && strcmp(err, err2) == 0 && strstr(err, p),
	   "a file that is not a database: the reader refuses it in store_open's words (%s)", tap_s(err));
	free(err);
	free(err2);
	free(p);
	rmrf(dir);
	free(dir);
}

static void test_names(void)
{
	char *err = NULL;
	ok(store_name_ok("frank-zealot", NULL) == 0 && store_name_ok("a.b_c@1", NULL) == 0, "plain names pass");
	const char *bad[] = {"", "a/b", "..", "../x", "a..b", ".hidden", "tab\there", "nl\n", "del\x7f"};
	int all = 1;
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		all &= store_name_ok(bad[i], &err) == -1 && err != NULL;
		free(err);
		err = NULL;
	}
	ok(all, "'/', '..', a leading '.', control characters and the empty name are refused");
	char *dir = tmpdir();
	struct store *st = store_open(dir, NULL);
	ok(st && store_lock(st, "../../etc/passwd", &err) == -1 && err && strstr(err, ".."),
	   "a lock for a name that climbs out is refused (%s)", tap_s(err));
	free(err);
	err = NULL;
	struct store_era e = {.endpoint = "a/b"};
	ok(st && store_era_add(st, &e, &err) == -1, "an era for an unsafe name is refused");
	free(err);
	store_close(st);
	rmrf(dir);
	free(dir);
}

static void test_eras(void)
{
	char *err = NULL;
	char *dir = tmpdir();
	struct store *st = store_open(dir, &err);
	struct store_era e = {
	    .endpoint = "fz",
	    .env_text = "MODEL_FILE=a.gguf\nCTX_SIZE=4096\n",
	    .env_sha256 = "00",
	    .runtime = "/bin/llama-server",
	    .runtime_version = "version: 1 (build 7, commit abc)",
	    .argv_json = "[\"llama-server\"]",
	    .plan_json = "{}",
	    .reason = "first",
	    .started = 1000,
	};
	ok(st && store_era_add(st, &e, &err) == 0 && e.id > 0, "an era is recorded (%s)", tap_s(err));
	int64_t first = e.id;
	struct store_era cur;
	ok(store_era_get(st, "fz", 0, &cur, &err) == 0 && cur.id == first && cur.ended == 0 &&
	       strcmp(cur.reason, "first") == 0 && strcmp(cur.env_text, e.env_text) == 0,
	   "it is the current era, text and reason intact");
	ok(strcmp(cur.unit_text, "") == 0, "a field never given reads as \"\"");
	store_era_release(&cur);
	ok(store_era_get(st, "fz", -1, &cur, &err) == 1, "no era before the first");
	e.reason = "second";
	e.started = 2000;
	e.env_text = "MODEL_FILE=b.gguf\nCTX_SIZE=8192\n";
	ok(store_era_add(st, &e, &err) == 0 && e.id > first, "a second era");
	struct store_era *v;
	size_t n;
	ok(store_era_list(st, "fz", &v, &n, &err) == 0 && n == 2 && v[0].id == first && v[0].ended == 2000 &&
	       v[1].ended == 0,
	   "the first era ended when the second started; oldest first");
	store_eras_free(v, n);
	ok(store_era_get(st, "fz", -1, &cur, &err) == 0 && cur.id == first, "-1 is the era before the current");
	store_era_release(&cur);
	ok(store_era_get(st, "fz", first, &cur, &err) == 0 && strcmp(cur.reason, "first") == 0, "an era by id");
	store_era_release(&cur);
	ok(store_era_get(st, "other", first, &cur, &err) == 1, "an id of another endpoint is not found");
	e.endpoint = "other";
	e.started = 3000;
	store_era_add(st, &e, &err);
	ok(store_era_list(st, NULL, &v, &n, &err) == 0 && n == 3, "every endpoint's eras");
	store_eras_free(v, n);
	ok(store_era_list(st, "fz", &v, &n, &err) == 0 && n == 2 && v[1].ended == 0,
	   "another endpoint's era ends none of this one's");
	store_eras_free(v, n);
	ok(raw_exec(store_path(st), "INSERT INTO eras (endpoint, started) VALUES ('fz', 5)") == -1,
	   "the schema itself refuses a second current era");
	store_close(st);
	free(err);
	rmrf(dir);
	free(dir);
}

/* Whether the file at path holds needle (bytes, NULs and all). */
static int file_has(const char *path, const char *needle)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return 0;
	struct sb b = {0};
	char buf[65536];
	size_t r;
	while ((r = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&b, buf, r);
	fclose(f);
	int has = 0;
	for (size_t i = 0; b.len >= strlen(needle) && i <= b.len - strlen(needle) && !has; i++)
		has = memcmp(b.s + i, needle, strlen(needle)) == 0;
	sb_release(&b);
	return has;
}

static unsigned mode_of(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 ? (unsigned)(sb.st_mode & 07777) : 0;
}

static void test_era_secrets(void)
{
	char *err = NULL;
	char *dir = tmpdir();
	struct sb p = {0};
	sb_addf(&p, "%s/state", dir);
	char *sdir = sb_detach(&p);
	struct store *st = store_open(sdir, &err);
	char *db = db_path(sdir);
	ok(st && mode_of(sdir) == 0700 && mode_of(db) == 0600,
	   "the state directory is 0700, the database 0600 (%o, %o)", mode_of(sdir), mode_of(db));
	const char *full = "MODEL_FILE=a.gguf\nMODEL_URL=http://u:pw-MARK-1@h/a.gguf\nCTX_SIZE=4096\n";
	struct store_era e = {
	    .endpoint = "sx", .env_text = (char *)full, .env_sha256 = "00", .reason = "r", .started = 1};
	ok(st && store_era_add(st, &e, &err) == 0, "an era whose file holds a URL password is recorded (%s)",
	   tap_s(err));
	struct store_era cur;
	ok(store_era_get(st, "sx", 0, &cur, &err) == 0 && !strstr(cur.env_text, "pw-MARK-1") &&
	       strstr(cur.env_text, "MODEL_URL=http://<redacted>@h/a.gguf"),
	   "read back, the era's text has the password redacted");
	p = (struct sb){0};
	sb_addf(&p, "%s/secrets/era-%lld.env", sdir, (long long)cur.id);
	char *sec = sb_detach(&p);
	p = (struct sb){0};
	sb_addf(&p, "%s/secrets", sdir);
	char *secd = sb_detach(&p);
	ok(mode_of(sec) == 0600 && mode_of(secd) == 0700 && file_has(sec, "pw-MARK-1"),
	   "the whole text is in secrets/era-N.env, 0600 in a 0700 directory");
	ok(store_era_secrets(st, &cur, NULL, &err) == 0 && strcmp(cur.env_text, full) == 0,
	   "store_era_secrets gives the whole text back");
	store_era_release(&cur);
	/* a row written by an older zealot, the URL in full: sealed by the next era */
	ok(raw_exec(db, "INSERT INTO eras (endpoint, env_text, started, ended) VALUES ('old', "
			"'MODEL_URL=https://tok-MARK-2@h/x.gguf', 1, 0)") == 0,
	   "an older row with a token in its text");
	e.env_text = "MODEL_FILE=b.gguf\n";
	e.started = 2;
	ok(store_era_add(st, &e, &err) == 0, "a second era (no secret)");
	store_close(st);
	st = NULL;
	int leak = 0;
	static const char *const ext[] = {"", "-wal", "-shm"};
	for (size_t i = 0; i < 3; i++) {
		p = (struct sb){0};
		sb_addf(&p, "%s%s", db, ext[i]);
		leak |= file_has(p.s, "pw-MARK-1") || file_has(p.s, "tok-MARK-2");
		sb_release(&p);
	}
	ok(!leak, "no secret in the database, its WAL or its shared memory");
	st = store_open(sdir, &err);
	ok(st && store_era_get(st, "old", 0, &cur, &err) == 0 && !strstr(cur.env_text, "tok-MARK-2") &&
	       store_era_secrets(st, &cur, NULL, &err) == 0 && strstr(cur.env_text, "tok-MARK-2"),
	   "the older row is redacted, its text kept in secrets");
	store_era_release(&cur);
	/* the secrets file lost: the live file serves when it is the era's text */
	ok(store_era_get(st, "sx", 1, &cur, &err) == 0, "the first era again");
	unlink(sec);
	ok(store_era_secrets(st, &cur, "MODEL_FILE=a.gguf\nMODEL_URL=http://u:OTHER@h/b.gguf\nCTX_SIZE=4096\n", &err) ==
		   -1 &&
	       strstr(err, "held secret values") && strstr(err, "is missing"),
	   "lost, and the live file another: refused, saying so (%s)", tap_s(err));
	ok(store_era_secrets(st, &cur, full, &err) == 0 && strcmp(cur.env_text, full) == 0,
	   "lost, and the live file the era's own: taken from it");
	store_era_release(&cur);
	store_close(st);
	free(sec);
	free(secd);
	free(db);
	free(sdir);
	free(err);
	rmrf(dir);
	free(dir);
}

static void test_boots(void)
{
	char *err = NULL;
	char *dir = tmpdir();
	struct store *st = store_open(dir, &err);
	char *id = store_runtime_id("version: 0.2.0-dev (build 10777, commit e3de71522)\nbuilt with cc for x\n");
	ok(strcmp(id, "b10777-e3de71522") == 0, "--version text to the build id (%s)", id);
	free(id);
	id = store_runtime_id("0.00.000.5 I cmn  common_param: common_params_print_info: build 10777 (e3de71522) "
			      "with GNU 13 for x86_64-linux-gnu");
	ok(strcmp(id, "b10777-e3de71522") == 0, "a boot log's build line to the same id (%s)", id);
	free(id);
	id = store_runtime_id("b10777-e3de71522\n");
	ok(strcmp(id, "b10777-e3de71522") == 0, "an id stays itself");
	free(id);

	struct store_boot b = {
	    .endpoint = "fz",
	    .source = "ledger x.log",
	    .runtime = "/opt/rt/llama-server",
	    .runtime_version = "build 10777 (e3de71522) with cc for x",
	    .device = "rtx3090",
	    .payload_sha256 = "",
	    .payload_bytes = 1234,
	    .ledger_json = "{\"n\": 1}",
	    .plan_json = "{}",
	    .settled_used_mib = -1,
	    .at = 100,
	};
	ok(st && store_boot_add(st, &b, &err) == 0 && b.id > 0, "a boot is recorded (%s)", tap_s(err));
	int64_t first = b.id;
	b.at = 200;
	b.ledger_json = "{\"n\": 2}";
	b.settled_used_mib = 22870;
	store_boot_add(st, &b, &err);
	int64_t second = b.id;
	b.payload_sha256 = "aa";
	b.payload_bytes = 999;
	b.at = 300;
	b.ledger_json = "{\"n\": 3}";
	store_boot_add(st, &b, &err);
	int64_t hashed = b.id;
	struct store_boot got;
	ok(store_boot_latest(st, "version: x (build 10777, commit e3de71522)", "rtx3090", "", 1234, &got, &err) == 0 &&
	       got.id == second && got.settled_used_mib == 22870 &&
	       strcmp(got.runtime_version, "b10777-e3de71522") == 0,
	   "the latest boot of that build, device and size; its --version matches the log's build line");
	store_boot_release(&got);
	ok(store_boot_latest(st, "b10777-e3de71522", "rtx3090", "bb", 1234, &got, &err) == 0 && got.id == second,
	   "a hash against a boot without one falls back to bytes");
	store_boot_release(&got);
	ok(store_boot_latest(st, "b10777-e3de71522", "rtx3090", "aa", 1, &got, &err) == 0 && got.id == hashed,
	   "two hashes match on the hash, not the size");
	store_boot_release(&got);
	ok(store_boot_latest(st, "b10777-e3de71522", "rtx3090", "cc", 999, &got, &err) == 1,
	   "two different hashes never match");
	ok(store_boot_latest(st, "b10778-e3de71522", "rtx3090", "", 1234, &got, &err) == 1, "another build: none");
	ok(store_boot_latest(st, "b10777-e3de71522", "rtx4090", "", 1234, &got, &err) == 1, "another device: none");
	ok(store_boot_match(st, NULL, "/opt/rt/llama-server", "rtx3090", "", 1234, &got, &err) == 0 && got.id == second,
	   "by the runtime's path when its version cannot be read");
	store_boot_release(&got);
	ok(store_boot_match(st, NULL, "/other/llama-server", "rtx3090", "", 1234, &got, &err) == 1,
	   "another path: none");
	ok(store_boot_match(st, "b99-zz", "/opt/rt/llama-server", "rtx3090", "", 1234, &got, &err) == 1,
	   "a known build that differs never matches by path (a rebuild in place)");
	struct store_boot nover = b;
	nover.runtime_version = "";
	nover.payload_sha256 = "";
	nover.payload_bytes = 777;
	store_boot_add(st, &nover, &err);
	ok(store_boot_match(st, "b99-zz", "/opt/rt/llama-server", "rtx3090", "", 777, &got, &err) == 0 &&
	       got.id == nover.id,
	   "a boot whose log had no build line matches a runtime by its path");
	store_boot_release(&got);
	ok(store_boot_match(st, NULL, NULL, "rtx3090", "", 777, &got, &err) == 0 && got.id == nover.id,
	   "neither version nor path: any runtime");
	store_boot_release(&got);
	struct store_boot *v;
	size_t n;
	ok(store_boot_list(st, 0, &v, &n, &err) == 0 && n == 4 && v[0].id == first && !v[0].probes_json,
	   "boots outside a deploy are era 0; absent probes read NULL");
	store_boots_free(v, n);
	ok(store_boot_list_endpoint(st, "fz", &v, &n, &err) == 0 && n == 4 &&
	       strcmp(v[2].ledger_json, "{\"n\": 3}") == 0,
	   "an endpoint's boots, oldest first");
	store_boots_free(v, n);
	ok(store_boot_get(st, first, &got, &err) == 0 && strcmp(got.source, "ledger x.log") == 0 &&
	       strcmp(got.runtime, "/opt/rt/llama-server") == 0,
	   "a boot by id");
	store_boot_release(&got);
	store_close(st);
	free(err);
	rmrf(dir);
	free(dir);
}

static void test_attempts_lock(void)
{
	char *err = NULL;
	char *dir = tmpdir();
	struct store *st = store_open(dir, &err);
	int fd = st ? store_lock(st, "fz", &err) : -1;
	ok(fd >= 0, "the lock is taken (%s)", tap_s(err));
	struct sb lp = {0};
	sb_addf(&lp, "%s/locks/fz.lock", dir);
	FILE *f = fopen(lp.s, "r");
	long pid = 0;
	ok(f && fscanf(f, "%ld", &pid) == 1 && pid == (long)getpid(), "the lock file holds the holder's pid");
	if (f)
		fclose(f);
	ok(store_locked(st, "fz") == 1 && store_locked(st, "other") == 0, "store_locked sees it held");
	int fd2 = store_lock(st, "fz", &err);
	char want[64];
	snprintf(want, sizeof(want), "pid %ld", (long)getpid());
	ok(fd2 == -1 && err && strstr(err, want) && strstr(err, "'fz'"),
	   "a second lock is refused, naming the endpoint and the holder's pid (%s)", tap_s(err));
	free(err);
	err = NULL;

	int64_t a = store_attempt_begin(st, "fz", "deploy", "why not", &err);
	ok(a > 0, "an attempt begins");
	ok(store_attempt_step(st, a, "gates", "ok", 0.25, "check clean", &err) == 0 &&
	       store_attempt_step(st, a, "install", "ok", 0.5, NULL, &err) == 0,
	   "steps are recorded");
	struct store_attempt *v;
	size_t n;
	ok(store_attempt_list(st, "fz", &v, &n, &err) == 0 && n == 1 && strcmp(v[0].outcome, "running") == 0 &&
	       v[0].n_steps == 2 && strcmp(v[0].steps[0].step, "gates") == 0 && v[0].steps[0].seconds == 0.25 &&
	       v[0].pid == getpid(),
	   "an open attempt under a held lock is running, its steps in order");
	store_attempts_free(v, n);
	store_unlock(fd);
	ok(store_locked(st, "fz") == 0, "unlocked");
	ok(store_attempt_list(st, "fz", &v, &n, &err) == 0 && n == 1 && strcmp(v[0].outcome, "interrupted") == 0,
	   "an attempt never ended, its lock free, is interrupted");
	store_attempts_free(v, n);
	fd = store_lock(st, "fz", &err);
	ok(fd >= 0 && raw_int(store_path(st), "SELECT count(*) FROM attempts WHERE outcome = 'interrupted'") == 1,
	   "the next lock records it as interrupted");
	int64_t b = store_attempt_begin(st, "fz", "rollback", "back", &err);
	ok(store_attempt_end(st, b, "rolled-back", 7, &err) == 0, "an attempt ends");
	ok(store_attempt_end(st, 99999, "deployed", 0, &err) == -1, "ending an attempt that does not exist fails");
	free(err);
	err = NULL;
	ok(store_attempt_list(st, NULL, &v, &n, &err) == 0 && n == 2 && strcmp(v[1].outcome, "rolled-back") == 0 &&
	       v[1].era_id == 7 && strcmp(v[1].kind, "rollback") == 0,
	   "its outcome and era");
	store_attempts_free(v, n);
	store_unlock(fd);

	/* a holder killed with -9 releases the lock; its pid was named */
	int pfd[2];
	if (pipe(pfd) == 0) {
		pid_t child = fork();
		if (child == 0) {
			struct store *cs = store_open(dir, NULL);
			int cfd = cs ? store_lock(cs, "fz", NULL) : -1;
			char c = cfd >= 0 ? 'y' : 'n';
			if (write(pfd[1], &c, 1) != 1)
				_exit(1);
			pause();
			_exit(0);
		}
		char c = 0;
		if (read(pfd[0], &c, 1) != 1)
			c = 0;
		snprintf(want, sizeof(want), "pid %ld", (long)child);
		ok(c == 'y' && store_lock(st, "fz", &err) == -1 && err && strstr(err, want),
		   "another process's lock is refused naming its pid (%s)", tap_s(err));
		free(err);
		err = NULL;
		kill(child, SIGKILL);
		waitpid(child, NULL, 0);
		fd = store_lock(st, "fz", &err);
		ok(fd >= 0, "after kill -9 of the holder the lock is free");
		store_unlock(fd);
		close(pfd[0]);
		close(pfd[1]);
	}
	store_close(st);
	sb_release(&lp);
	free(err);
	rmrf(dir);
	free(dir);
}

/* The state directory and its locks/ and secrets/ are this user's own or
 * refused: another user's directory, or one others can write, is never
 * written into (docs/hardening.md). Root only: it chowns to nobody. */
static void test_foreign_dirs(void)
{
	if (geteuid() != 0) {
		ok(1, "# SKIP foreign directories need root to chown");
		return;
	}
	char *err = NULL, *dir = tmpdir();
	struct sb p = {0};
	sb_addf(&p, "%s/open", dir);
	mkdir(p.s, 0777);
	chmod(p.s, 0777);
	struct store *st = store_open(p.s, &err);
	ok(!st && err && strstr(err, "writable by others"), "a state directory others can write is refused (%s)",
	   tap_s(err));
	store_close(st);
	free(err);
	err = NULL;
	p.len = 0;
	sb_addf(&p, "%s/state", dir);
	st = store_open(p.s, &err);
	struct sb sub = {0};
	sb_addf(&sub, "%s/locks", p.s);
	ok(st && mkdir(sub.s, 0700) == 0 && chown(sub.s, 65534, 65534) == 0, "locks/ made another user's");
	int fd = st ? store_lock(st, "fl", &err) : -1;
	ok(fd < 0 && err && strstr(err, "belongs to uid 65534"), "store_lock refuses a locks/ of another user's (%s)",
	   tap_s(err));
	free(err);
	err = NULL;
	sub.len = 0;
	sb_addf(&sub, "%s/secrets", p.s);
	ok(mkdir(sub.s, 0700) == 0 && chown(sub.s, 65534, 65534) == 0, "secrets/ made another user's");
	struct store_era e = {.endpoint = "fl",
			      .env_text = "MODEL_URL=http://u:pw-MARK-9@h/a.gguf\n",
			      .env_sha256 = "00",
			      .reason = "r",
			      .started = 1};
	ok(st && store_era_add(st, &e, &err) == -1 && err && strstr(err, "belongs to uid 65534"),
	   "an era with a secret is not written into a secrets/ of another user's (%s)", tap_s(err));
	free(err);
	store_close(st);
	sb_release(&sub);
	sb_release(&p);
	rmrf(dir);
	free(dir);
}

void test_store(void)
{
	test_foreign_dirs();
	test_open_migrate();
	test_open_read();
	test_names();
	test_eras();
	test_era_secrets();
	test_boots();
	test_attempts_lock();
}
