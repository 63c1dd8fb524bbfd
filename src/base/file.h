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

/* Create tmp for writing with O_EXCL | O_NOFOLLOW (a name found there is
 * never written through: a leftover is unlinked and made again). fd, or
 * -1 with errno. */
int open_tmp(const char *tmp, unsigned mode);

/* open(2) path with O_NOFOLLOW | O_CLOEXEC added, held to a regular file
 * of this user's own (the euid's) with one link: a symbolic link, another
 * user's file, a hard link or anything but a regular file planted where
 * zealot writes is refused. fd, or -1 with *err and errno (ELOOP, EPERM,
 * or open's own: ENOENT when it is missing). */
int open_own(const char *path, int flags, unsigned mode, char **err);

/* Whether dir is this user's own and no one else can change what it
 * holds: dir owned by the euid and writable by no one else, every
 * directory on the way to it (from '/', as the kernel resolves it) owned
 * by root or the euid and writable by no one else unless sticky, and every
 * symbolic link on the way owned by root or the euid. 0, or -1 with *err
 * naming the first that is not. */
int dir_trusted(const char *dir, char **err);

/* mkdir -p dir (each directory it creates 0700), then dir_trusted. */
int dir_private(const char *dir, char **err);

#endif
