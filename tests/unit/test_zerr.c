/* Failures carry a kind (src/base/zerr.h), and the command layer maps a
 * kind to an exit status in one place (cmd_exit): the kinds of the calls
 * whose callers tell failures apart, from real files. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file.h"
#include "base/util.h"
#include "base/zerr.h"
#include "cmd/cmd.h"
#include "endpoint/endpoint.h"
#include "fleet/fleet.h"
#include "payload/gguf.h"
#include "payload/synth.h"
#include "tap.h"

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

/* endpoint_load's kind, and the exit status it becomes */
static enum zerr load_kind(const char *path, int *exit_status)
{
	enum zerr k = (enum zerr)99;
	char *err = NULL;
	struct endpoint *ep = endpoint_load(path, &k, &err);
	endpoint_free(ep);
	free(err);
	*exit_status = cmd_exit(k);
	return k;
}

void test_zerr(void)
{
	ok(cmd_exit(ZE_OK) == 0 && cmd_exit(ZE_REFUSED) == 1 && cmd_exit(ZE_USAGE) == 2 && cmd_exit(ZE_NOTFOUND) == 3 &&
	       cmd_exit(ZE_IO) == 3,
	   "cmd_exit: ok 0, refused 1, usage 2, not found and io 3");
	ok(ZE_OK == 0 && ZE_USAGE == 1 && ZE_REFUSED == 2 && ZE_NOTFOUND == 3 && ZE_IO == 4 &&
	       strcmp(zerr_name(ZE_NOTFOUND), "not found") == 0,
	   "the kinds keep their numbers and names");

	char dir[] = "/tmp/zealot-zerr.XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	struct sb p = {0};
	int ex = -1;
	sb_addf(&p, "%s/missing.env", dir);
	ok(load_kind(p.s, &ex) == ZE_NOTFOUND && ex == 3, "endpoint_load: a missing file is ZE_NOTFOUND, exit 3");
	ok(load_kind(dir, &ex) == ZE_IO && ex == 3, "endpoint_load: a directory cannot be read: ZE_IO, exit 3");
	sb_release(&p);
	sb_addf(&p, "%s/bad.env", dir);
	put(p.s, "NO_SUCH_KEY=1\n");
	ok(load_kind(p.s, &ex) == ZE_USAGE && ex == 2, "endpoint_load: an unknown key is ZE_USAGE, exit 2");
	sb_release(&p);
	sb_addf(&p, "%s/good.env", dir);
	put(p.s, "MODEL_FILE=m.gguf\n");
	ok(load_kind(p.s, &ex) == ZE_OK && ex == 0, "endpoint_load: a good file is ZE_OK");

	/* fleet_load: the directory, then a member that is no endpoint */
	struct fleet f;
	enum zerr k = ZE_OK;
	char *err = NULL;
	sb_release(&p);
	sb_addf(&p, "%s/no-fleet", dir);
	ok(fleet_load(p.s, &f, &k, &err) && k == ZE_NOTFOUND, "fleet_load: a missing directory is ZE_NOTFOUND (%s)",
	   tap_s(err));
	free(err);
	err = NULL;
	ok(fleet_load(dir, &f, &k, &err) && k == ZE_USAGE, "fleet_load: a member with an unknown key is ZE_USAGE (%s)",
	   tap_s(err));
	free(err);
	err = NULL;

	/* gguf_open and synth_write */
	sb_release(&p);
	sb_addf(&p, "%s/missing.gguf", dir);
	ok(!gguf_open(p.s, &k, &err) && k == ZE_NOTFOUND, "gguf_open: a missing payload is ZE_NOTFOUND");
	free(err);
	err = NULL;
	sb_release(&p);
	sb_addf(&p, "%s/good.env", dir);
	ok(!gguf_open(p.s, &k, &err) && k == ZE_USAGE, "gguf_open: a file that is no GGUF is ZE_USAGE (%s)",
	   tap_s(err));
	free(err);
	err = NULL;
	struct synth_spec s;
	if (synth_defaults(&s, "llama", &err) == 0) {
		sb_release(&p);
		sb_addf(&p, "%s/no-dir/x.gguf", dir);
		ok(synth_write(&s, p.s, NULL, &k, &err) == -1 && k == ZE_IO,
		   "synth_write: a file that cannot be written is ZE_IO (%s)", tap_s(err));
		free(err);
		err = NULL;
		sb_release(&p);
		sb_addf(&p, "%s/x.gguf", dir);
		ok(synth_set(&s, "heads=3", &err) == 0 && synth_write(&s, p.s, NULL, &k, &err) == -1 && k == ZE_USAGE,
		   "synth_write: a geometry the engine refuses is ZE_USAGE (%s)", tap_s(err));
		unlink(p.s);
	} else {
		ok(0, "synth_defaults llama: %s", tap_s(err));
	}
	free(err);
	err = NULL;

	/* read_file: one capped reader for every whole-file read */
	sb_release(&p);
	sb_addf(&p, "%s/fifo", dir);
	size_t n = 0;
	if (mkfifo(p.s, 0600) == 0) {
		char *t = read_file(p.s, 1024, 0, &n, &k, &err);
		ok(!t && k == ZE_IO && err && strstr(err, "not a regular file"),
		   "read_file: a FIFO is refused before a byte is read (%s)", tap_s(err));
		free(t);
		unlink(p.s);
	} else {
		ok(0, "mkfifo %s", p.s);
	}
	free(err);
	err = NULL;
	char *t = read_file(dir, 1024, 0, &n, &k, &err);
	ok(!t && k == ZE_IO && err && strstr(err, "not a regular file"), "read_file: a directory is refused (%s)",
	   tap_s(err));
	free(err);
	err = NULL;
	sb_release(&p);
	sb_addf(&p, "%s/missing", dir);
	t = read_file(p.s, 1024, 0, &n, &k, &err);
	ok(!t && k == ZE_NOTFOUND && err && strstr(err, "cannot open"), "read_file: a missing file is ZE_NOTFOUND");
	free(err);
	err = NULL;
	sb_release(&p);
	sb_addf(&p, "%s/big", dir);
	FILE *bf = fopen(p.s, "w");
	for (int i = 0; bf && i < (1 << 20) + 10; i++)
		fputc('a' + i % 26, bf);
	if (bf)
		fclose(bf);
	t = read_file(p.s, 1u << 20, 0, &n, &k, &err);
	ok(!t && k == ZE_USAGE && err && strstr(err, "is larger than 1 MiB"),
	   "read_file: a file over the cap is refused, naming the cap (%s)", tap_s(err));
	free(err);
	err = NULL;
	t = read_file(p.s, 1u << 20, READ_TRUNCATE, &n, &k, &err);
	ok(t && k == ZE_OK && n == (1u << 20) && t[n] == '\0' && t[0] == 'a' && t[26] == 'a',
	   "read_file: READ_TRUNCATE keeps the first cap bytes, NUL-terminated (%zu)", n);
	free(t);
	t = read_file(p.s, 2u << 20, 0, &n, &k, &err);
	ok(t && n == (1u << 20) + 10 && strlen(t) == n, "read_file: a file within the cap is read whole (%zu)", n);
	free(t);
	unlink(p.s);
	sb_release(&p);
	sb_addf(&p, "%s/bad.env", dir);
	unlink(p.s);
	sb_release(&p);
	sb_addf(&p, "%s/good.env", dir);
	unlink(p.s);
	sb_release(&p);
	rmdir(dir);
}
