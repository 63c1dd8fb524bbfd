/* store-fixture: writes to the store the way deploy does, for the shell
 * tests of history, diff and the store's crash safety, without a systemd.
 * Built by the tests themselves:
 *
 *   store_fixture OUT (tests/lib.sh): cc tests/store-fixture.c src/store/store.c, every src/base module,
 *      -lsqlite3 -lpthread
 *
 *   era DIR ENDPOINT ENV_FILE PLAN_JSON_FILE STARTED REASON   prints the era id
 *                          ($FIXTURE_PINS: its pins JSON, $FIXTURE_RUNTIME_VERSION)
 *   boot DIR ENDPOINT ERA LEDGER_JSON_FILE PROBES_JSON_FILE|-  prints the boot id
 *   attempt DIR ENDPOINT KIND REASON OUTCOME|- STEP:STATUS:SECONDS:DETAIL...
 *   lock DIR ENDPOINT      takes the lock, begins an attempt, prints
 *                          "locked PID", sleeps
 *   hammer DIR SEED        writes eras, attempts and boots until killed,
 *                          printing each committed era id
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "slurp.h"
#include "store/store.h"

/* the file's text, or exit 3 */
static char *read_or_die(const char *path)
{
	char *s = slurp(path, NULL);
	if (!s) {
		fprintf(stderr, "store-fixture: cannot open %s\n", path);
		exit(3);
	}
	return s;
}

static int die(char *err)
{
	fprintf(stderr, "store-fixture: %s\n", err ? err : "failed");
	free(err);
	return 3;
}

int main(int argc, char **argv)
{
	char *err = NULL;
	if (argc < 3)
		return 2;
	struct store *st = store_open(argv[2], &err);
	if (!st)
		return die(err);
	const char *cmd = argv[1];
	if (strcmp(cmd, "era") == 0 && argc == 8) {
		struct store_era e = {0};
		e.endpoint = argv[3];
		e.endpoint_path = argv[4];
		e.env_text = read_or_die(argv[4]);
		e.plan_json = read_or_die(argv[5]);
		e.started = strtoll(argv[6], NULL, 10);
		e.reason = argv[7];
		e.runtime = "/opt/llama/llama-server";
		e.runtime_version = "version: 1 (build 10777, commit e3de71522)";
		/* a deploy's pins (the runtime's SHA-256 among them) and version line */
		if (getenv("FIXTURE_PINS"))
			e.pins_json = getenv("FIXTURE_PINS");
		if (getenv("FIXTURE_RUNTIME_VERSION"))
			e.runtime_version = getenv("FIXTURE_RUNTIME_VERSION");
		e.argv_json = "[\"llama-server\"]";
		e.unit_name = "zealot-fixture.service";
		int rc = store_era_add(st, &e, &err);
		free(e.env_text);
		free(e.plan_json);
		if (rc)
			return die(err);
		printf("%lld\n", (long long)e.id);
	} else if (strcmp(cmd, "boot") == 0 && argc == 7) {
		struct store_boot b = {0};
		b.endpoint = argv[3];
		b.era_id = strtoll(argv[4], NULL, 10);
		b.source = "deploy";
		b.runtime = "/opt/llama/llama-server";
		b.runtime_version = "b10777-e3de71522";
		b.device = "cpu";
		b.ledger_json = read_or_die(argv[5]);
		b.plan_json = "{}";
		b.settled_used_mib = -1;
		b.probes_json = strcmp(argv[6], "-") ? read_or_die(argv[6]) : NULL;
		int rc = store_boot_add(st, &b, &err);
		free(b.ledger_json);
		free(b.probes_json);
		if (rc)
			return die(err);
		printf("%lld\n", (long long)b.id);
	} else if (strcmp(cmd, "attempt") == 0 && argc >= 7) {
		int64_t a = store_attempt_begin(st, argv[3], argv[4], argv[5], &err);
		if (a < 0)
			return die(err);
		for (int i = 7; i < argc; i++) {
			char *s = xstrdup(argv[i]);
			char *f[4] = {s, "", "0", ""};
			for (int k = 1; k < 4; k++) {
				char *c = strchr(f[k - 1], ':');
				if (!c)
					break;
				*c = '\0';
				f[k] = c + 1;
			}
			int rc = store_attempt_step(st, a, f[0], f[1], strtod(f[2], NULL), f[3], &err);
			free(s);
			if (rc)
				return die(err);
		}
		if (strcmp(argv[6], "-") && store_attempt_end(st, a, argv[6], 0, &err))
			return die(err);
		printf("%lld\n", (long long)a);
	} else if (strcmp(cmd, "lock") == 0 && argc == 4) {
		int fd = store_lock(st, argv[3], &err);
		if (fd < 0)
			return die(err);
		/* as deploy does: the lock, then an attempt that stays open */
		int64_t a = store_attempt_begin(st, argv[3], "deploy", "holding the lock", &err);
		if (a < 0 || store_attempt_step(st, a, "gates", "ok", 0.1, "fixture", &err))
			return die(err);
		printf("locked %ld\n", (long)getpid());
		fflush(stdout);
		pause();
	} else if (strcmp(cmd, "hammer") == 0 && argc == 4) {
		srand((unsigned)strtoul(argv[3], NULL, 10));
		char env[256], ledger[512];
		for (long i = 1;; i++) {
			const char *ep = rand() % 2 ? "alpha" : "beta";
			snprintf(env, sizeof(env), "MODEL_FILE=m.gguf\nCTX_SIZE=%ld\nPARALLEL=1\n", 256 * (1 + i % 64));
			int64_t a = store_attempt_begin(st, ep, "deploy", "hammer", &err);
			if (a < 0)
				return die(err);
			if (store_attempt_step(st, a, "gates", "ok", 0.01, "fixture", &err))
				return die(err);
			struct store_era e = {.endpoint = (char *)ep,
					      .env_text = env,
					      .plan_json = "{}",
					      .reason = "hammer",
					      .started = 1000 + i};
			if (store_era_add(st, &e, &err))
				return die(err);
			snprintf(ledger, sizeof(ledger), "{\"target\": {\"kv\": {\"mib\": %ld}}, \"n\": %ld}", i, i);
			struct store_boot b = {.endpoint = (char *)ep,
					       .era_id = e.id,
					       .source = "deploy",
					       .runtime_version = "b1-x",
					       .device = "cpu",
					       .ledger_json = ledger,
					       .plan_json = "{}",
					       .settled_used_mib = -1};
			if (store_boot_add(st, &b, &err))
				return die(err);
			if (store_attempt_end(st, a, "deployed", e.id, &err))
				return die(err);
			printf("%lld\n", (long long)e.id);
			fflush(stdout);
		}
	} else {
		fprintf(stderr, "store-fixture: unknown command or arguments\n");
		store_close(st);
		return 2;
	}
	store_close(st);
	return 0;
}
