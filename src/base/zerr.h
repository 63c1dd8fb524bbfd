/* zerr: the kind of a failure, in the spirit of curl's CURLcode. A library
 * call that fails says why in words (*err, for people) and, where its
 * callers must tell failures apart, of what kind (for programs): a small
 * enum with stable numbers. Only the command layer turns a kind into an
 * exit status, in one place (cmd_exit, src/cmd/common.c). Nothing reads a
 * kind out of the words.
 */
#ifndef ZEALOT_BASE_ZERR_H
#define ZEALOT_BASE_ZERR_H

enum zerr {
	ZE_OK = 0,
	ZE_USAGE = 1,	 /* the input is not what the call takes: syntax, a key, a value */
	ZE_REFUSED = 2,	 /* a law or a verdict said no */
	ZE_NOTFOUND = 3, /* a file, directory or record it names does not exist */
	ZE_IO = 4,	 /* reading, writing, a child process, the network failed */
};

/* "ok", "usage", "refused", "not found", "io" */
const char *zerr_name(enum zerr k);

/* Set *kind when kind is not NULL. */
static inline void zerr_set(enum zerr *kind, enum zerr k)
{
	if (kind)
		*kind = k;
}

/* The kind of a failed open, read or write from its errno: ZE_NOTFOUND for
 * ENOENT, else ZE_IO. */
enum zerr zerr_of_errno(int e);

#endif
