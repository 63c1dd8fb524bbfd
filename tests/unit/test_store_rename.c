/* store_rename: an endpoint's rows move to a new name in one transaction,
 * and a taken or absent name moves nothing. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "store/store.h"
#include "tap.h"

static void add_era(struct store *st, const char *name, const char *reason, int64_t at)
{
	char *err = NULL, *path = xstrf("/etc/zealot/%s.env", name), *unit = xstrf("%s.service", name);
	struct store_era e = {.endpoint = (char *)name,
			      .endpoint_path = path,
			      .env_text = "CTX_SIZE=4096\n",
			      .env_sha256 = "00",
			      .unit_text = "[Unit]\n",
			      .unit_name = unit,
			      .reason = (char *)reason,
			      .started = at};
	ok(store_era_add(st, &e, &err) == 0, "era '%s' of %s (%s)", reason, name, tap_s(err));
	free(err);
	free(path);
	free(unit);
}

static size_t n_eras(struct store *st, const char *name)
{
	struct store_era *v = NULL;
	size_t n = 0;
	store_era_list(st, name, &v, &n, NULL);
	store_eras_free(v, n);
	return n;
}

void test_store_rename(void)
{
	char t[] = "/tmp/zealot-rename-XXXXXX", *err = NULL;
	const char *dir = mkdtemp(t);
	struct store *st = dir ? store_open(dir, &err) : NULL;
	ok(st != NULL, "a store (%s)", tap_s(err));
	if (!st)
		return;
	add_era(st, "a", "first", 100);
	add_era(st, "a", "second", 200);
	add_era(st, "c", "other", 300);
	int64_t att = store_attempt_begin(st, "a", "deploy", "x", &err);
	struct store_boot b = {.endpoint = "a", .at = 150, .source = "deploy"};
	store_boot_add(st, &b, &err);

	struct store_rename r = {"a", "b", "/etc/zealot/a.env", "/etc/zealot/b.env", "b.service", "[Unit]\n# b\n"};
	size_t moved = 0;
	ok(store_rename(st, &r, &moved, &err) == 0 && moved == 2, "a's 2 eras move to b (%s)", tap_s(err));
	ok(n_eras(st, "a") == 0 && n_eras(st, "b") == 2 && n_eras(st, "c") == 1, "a has none, b 2, c untouched");
	struct store_era cur, old;
	ok(store_era_get(st, "b", 0, &cur, NULL) == 0 && strcmp(cur.reason, "second") == 0 &&
	       strcmp(cur.unit_name, "b.service") == 0 && strcmp(cur.endpoint_path, "/etc/zealot/b.env") == 0 &&
	       strcmp(cur.unit_text, "[Unit]\n# b\n") == 0,
	   "b's current era is a's, with b's unit and installed file");
	ok(store_era_get(st, "b", -1, &old, NULL) == 0 && strcmp(old.reason, "first") == 0 &&
	       strcmp(old.unit_text, "[Unit]\n") == 0 && strcmp(old.endpoint_path, "/etc/zealot/b.env") == 0,
	   "the era before keeps its unit text, its path follows");
	store_era_release(&cur);
	store_era_release(&old);
	struct store_attempt *av = NULL;
	size_t na = 0;
	struct store_boot *bv = NULL;
	size_t nb = 0;
	ok(store_attempt_list(st, "b", &av, &na, NULL) == 0 && na == 1 && av[0].id == att &&
	       store_boot_list_endpoint(st, "b", &bv, &nb, NULL) == 0 && nb == 1,
	   "the attempt and the boot follow");
	store_attempts_free(av, na);
	store_boots_free(bv, nb);

	free(err);
	err = NULL;
	r.from = "b", r.to = "c";
	ok(store_rename(st, &r, &moved, &err) == -1 && err && strstr(err, "already holds") && n_eras(st, "b") == 2 &&
	       n_eras(st, "c") == 1,
	   "a taken name is refused, nothing moved");
	free(err);
	err = NULL;
	r.from = "nosuch", r.to = "d";
	ok(store_rename(st, &r, &moved, &err) == -1 && err && n_eras(st, "d") == 0, "an absent endpoint is refused");
	free(err);
	err = NULL;
	r.from = "b", r.to = "x/y";
	ok(store_rename(st, &r, &moved, &err) == -1 && n_eras(st, "b") == 2, "an invalid name is refused");
	free(err);
	store_close(st);
	char *rm = xstrf("rm -rf '%s'", dir);
	ok(system(rm) == 0, "cleaned up");
	free(rm);
}
