/* file: a whole file read or written at once. */
#ifndef ZEALOT_BASE_FILE_H
#define ZEALOT_BASE_FILE_H

#include <stddef.h>

#include "zerr.h"

enum {
	READ_TRUNCATE = 1, /* keep a larger file's first cap bytes instead of refusing it */
	READ_STDIN = 2,	   /* "-" is standard input (read as it comes, within cap) */
};

/* The file at path, whole and NUL-terminated (*len its bytes without the
 * NUL, when len is not NULL), at most cap bytes: a larger file is refused
 * ("'PATH' is larger than N MiB"), or with READ_TRUNCATE cut at cap. Only
 * a regular file is read: a FIFO, a device, a socket or a directory is
 * refused before a byte is read (it could block, or never end). NULL with
 * *err and *kind (when not NULL): ZE_NOTFOUND; ZE_IO when it cannot be read
 * or is not a regular file; ZE_USAGE when it is larger than cap. */
char *read_file(const char *path, size_t cap, unsigned flags, size_t *len, enum zerr *kind, char **err);

/* "NAME:TYPE=VALUE" in a CMakeCache.txt's text: the value (a line's \r
 * dropped) into out, and out; NULL when there is no such entry. */
const char *cmake_cache_value(const char *text, const char *name, char *out, size_t n);
/* Whether the entry exists and is true the way CMake reads a boolean (ON,
 * YES, TRUE, Y, 1, in any case). */
int cmake_cache_true(const char *text, const char *name);

/* fsync the directory that holds path (after a rename into it). */
void fsync_parent(const char *path);

/* Write text to path through path.tmp, renamed into place. 0, or -1 with
 * *err. */
int write_file(const char *path, const char *text, char **err);

#endif
