/* pin: a payload file's identity — its byte count and SHA-256 — checked
 * against the endpoint's pins before every launch.
 *
 * Hashing a 10 GB payload at every boot is minutes of I/O, so a verified
 * hash is cached in a stamp keyed by the file's path, size, mtime, ctime,
 * inode and device: an untouched file is hashed once. A stamp is a cache,
 * never a source of truth: any change to those six facts re-hashes, and a
 * writer cannot put ctime back. Stamps are read and written only in a
 * state directory dir_trusted holds to be this user's own (file.h).
 */
#ifndef ZEALOT_PIN_H
#define ZEALOT_PIN_H

#include <stdint.h>

/* Progress callback: bytes hashed so far of total. */
typedef void (*pin_progress_fn)(const char *path, uint64_t done, uint64_t total, void *arg);

/* The SHA-256 of the file at path as 64 lowercase hex digits in hex[65].
 * stamp_dir may be NULL (no cache). *cached tells whether the stamp
 * answered. Returns 0, or -1 with *err. */
int pin_sha256(const char *path, const char *stamp_dir, char hex[65], int *cached, pin_progress_fn progress, void *arg,
	       char **err);

/* Record hex as the SHA-256 of the file at path as it is now (a file
 * just hashed while it was written, so serve need not hash it again).
 * Returns 0, or -1 when no stamp could be written (only a cost). */
int pin_stamp_put(const char *path, const char *stamp_dir, const char hex[65]);

/* The stamp directory: state_dir() (util.h). Caller frees. */
char *pin_stamp_dir(void);

#endif
