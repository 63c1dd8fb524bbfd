/* fetch: pinned, resumable, atomic downloads of an endpoint's payloads.
 *
 * A file downloads into FILE.part beside it, with its progress and the
 * server's validator in FILE.part.state. A rerun resumes with Range,
 * guarded by If-Range on the ETag (or Last-Modified): a server that
 * ignores the range (200 instead of 206), answers 416, or changes the
 * validator restarts the file from byte 0, so two versions are never
 * spliced. The SHA-256 is taken from the bytes as they arrive (a
 * resumed .part is re-hashed from disk, never downloaded again). The
 * state claims bytes as durable only after an fdatasync of the .part
 * (every 64 MiB), and names the boot it was written in: after a reboot a
 * rerun resumes from the durable bytes alone. When the bytes are all
 * there they are checked against the pins, then fsync, rename, fsync of
 * the directory: FILE is either the old file or the whole verified new
 * one. A file that does not verify is kept as FILE.rejected.
 *
 * The publisher's checksum counts as a pin: when the server states the
 * file's SHA-256 (X-Linked-Etag, as a Hugging Face resolve's redirect
 * does, or a strong ETag of 64 hex digits), a download whose bytes hash
 * otherwise is a mismatch, and one whose stated SHA-256 is not the pinned
 * one is refused before its body.
 *
 * One writer per target: a download holds a lock on FILE.part.lock (a
 * POSIX record lock, dropped by the kernel when the process ends), and a
 * second fetch of the same file refuses at once, naming the first one's
 * pid. A fetch that died leaves its .part and .part.state to be resumed.
 *
 * Large files on a server that honours ranges are fetched over several
 * connections at once (each a range of the file); the hash still runs in
 * file order behind them.
 */
#ifndef ZEALOT_FETCH_H
#define ZEALOT_FETCH_H

#include <stddef.h>
#include <stdint.h>

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../payload/remote.h"

/* One file to fetch or verify: a payload or one shard of a split one. */
struct fetch_file {
	const char *kind; /* "MODEL", "MMPROJ", "LORA", "SPEC_DRAFT_MODEL" */
	unsigned shard;	  /* 1-based */
	unsigned n_shards;
	char *path;
	char *url; /* NULL: no *_URL */
	int has_bytes;
	uint64_t bytes;
	int has_sha;
	char sha[65]; /* lowercase */
};

struct fetch_list {
	struct fetch_file *v;
	size_t n;
};

/* Every file the endpoint names (MODEL_FILE, MMPROJ_FILE, LORA_FILE; a
 * split payload's every shard), with its URL and pins. Pins of a split
 * payload are comma-separated in shard order. Returns 0, or -1 with *err
 * naming the key whose value does not fit. */
int fetch_list(const struct endpoint *ep, struct fetch_list *out, char **err);
void fetch_list_release(struct fetch_list *l);

enum fetch_event_kind {
	FETCH_EV_START,	      /* a transfer begins (resumed when done > 0) */
	FETCH_EV_PROGRESS,    /* a few times a second */
	FETCH_EV_RESTART,     /* the .part was discarded: why */
	FETCH_EV_RETRY,	      /* a transfer failed and is retried: why */
	FETCH_EV_CONNECTIONS, /* the file is fetched over done connections */
};

struct fetch_event {
	enum fetch_event_kind kind;
	const struct fetch_file *f;
	uint64_t done, total; /* bytes on disk, file size (0 unknown) */
	uint64_t hashed;
	double rate; /* bytes per second over this run */
	const char *why;
};

typedef void (*fetch_event_fn)(const struct fetch_event *e, void *arg);

struct fetch_opts {
	struct remote_opts net;
	unsigned connections;  /* at most this many at once (0: 4) */
	uint64_t parallel_min; /* files below this use one connection (0: 64 MiB) */
	unsigned attempts;     /* consecutive attempts without progress (0: 6) */
	unsigned retry_ms;     /* first retry delay, doubled each time (0: 250) */
	const char *stamp_dir; /* serve's stamp cache, or NULL */
	fetch_event_fn event;
	void *arg;
};

enum fetch_status {
	FETCH_VERIFIED,	  /* the file on disk matches its pins (untouched) */
	FETCH_UNPINNED,	  /* the file on disk has no pins to verify (untouched) */
	FETCH_DOWNLOADED, /* downloaded, verified (or unpinned) and moved into place */
	FETCH_MISMATCH,	  /* a file that does not verify: an existing one, or a
			     download kept as FILE.rejected */
	FETCH_MISSING,	  /* --verify-only: no such file */
	FETCH_FAILED,	  /* network, disk or server failure (*err) */
};

struct fetch_result {
	enum fetch_status status;
	uint64_t bytes;
	char sha[65];		    /* what the bytes hash to ("" when not hashed) */
	int cached;		    /* the sha came from serve's stamp cache */
	char *rejected;		    /* FETCH_MISMATCH of a download: where the bytes are */
	char publisher[65];	    /* the SHA-256 the server stated ("" when none) */
	const char *publisher_from; /* the header that stated it: "X-Linked-Etag", "ETag" */
	uint64_t transferred;	    /* body bytes received from the network */
	uint64_t requests;
};

/* Verify f on disk, and unless verify_only, download it when it is
 * missing, or when force is set and it does not verify (or has no pins).
 * A file that verifies is never touched. Fills r; returns 0 for
 * FETCH_VERIFIED, FETCH_UNPINNED and FETCH_DOWNLOADED, 1 for
 * FETCH_MISMATCH and FETCH_MISSING, -1 for FETCH_FAILED with *err (also
 * when another process is downloading the same file: *err names its
 * pid). */
int fetch_one(const struct fetch_file *f, int verify_only, int force, const struct fetch_opts *o,
	      struct fetch_result *r, char **err);
void fetch_result_release(struct fetch_result *r);

/* The pin lines an endpoint file lacks after a fetch: for every kind
 * (MODEL, MMPROJ, LORA) whose files were all hashed, *_BYTES and
 * *_SHA256 where a shard lacks one (one value per shard, comma-separated),
 * each with the key it goes after: the kind's URL line, else its FILE
 * line; a SHA256 after its BYTES line when there is one. keys, values and
 * anchors are what fetch_pin_write takes. */
#define FETCH_PINS_MAX 9
struct fetch_pins {
	size_t n;
	const char *keys[FETCH_PINS_MAX], *values[FETCH_PINS_MAX], *anchors[FETCH_PINS_MAX];
	char key[FETCH_PINS_MAX][32], anchor[FETCH_PINS_MAX][32];
	struct sb value[FETCH_PINS_MAX];
};
void fetch_pins_missing(const struct endpoint *ep, const struct fetch_list *l, const struct fetch_result *r,
			struct fetch_pins *p);
void fetch_pins_release(struct fetch_pins *p);

/* Rewrite the endpoint file at path with KEY=VALUE for each key, in
 * place of the key's line when it has one, else after the line of
 * anchor[i] (the *_URL or *_FILE key) or at the end; comments, blank lines
 * and every other line stay as they were. Atomic: a temporary file in the
 * same directory, fsync, rename, fsync of the directory. */
int fetch_pin_write(const char *path, const char *const *keys, const char *const *values, const char *const *anchors,
		    size_t n, char **err);

/* The text form of the rewrite, from memory (for tests and fuzzing):
 * returns the new text. */
char *fetch_pin_edit(const char *text, size_t len, const char *const *keys, const char *const *values,
		     const char *const *anchors, size_t n);

#endif
