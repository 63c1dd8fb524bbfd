/* install: the files a deploy puts in place, written so a crash or a
 * kill -9 at any instant leaves either the old file or the new one, never a
 * torn one: write a temporary file in the same directory, fsync it, rename
 * it over the target, fsync the directory.
 */
#ifndef ZEALOT_INSTALL_H
#define ZEALOT_INSTALL_H

#include <stddef.h>

#include "../endpoint/endpoint.h"

/* Write text to path atomically with the given mode, creating the
 * directory (0755) when missing. Returns 0, or -1 with *err. */
int install_write(const char *path, const char *text, size_t len, unsigned mode, char **err);

/* The mode an endpoint file is installed with, and its group in *gid
 * (-1: left as created): the source file's permission bits (src NULL or
 * missing: 0644), never wider than 0644; without other's read when a
 * value is a secret (what redact_text hides: a URL's user:password@, a
 * *KEY*, *TOKEN*, *PASSWORD* value); and when USER names another user
 * who could not read it then, group USER's and 0640 (serve runs as USER
 * and reads the file; systemd reads it as root). */
unsigned install_env_mode(const char *text, size_t len, const char *src, long *gid);

/* install_write of an endpoint file with install_env_mode's mode and
 * group. */
int install_env(const char *path, const char *text, size_t len, const char *src, char **err);

/* Remove path (absent is fine) and fsync its directory. */
int install_remove(const char *path, char **err);

/* The whole file at path, allocated, with its length in *len; NULL when it
 * does not exist (*err untouched) or cannot be read (*err set). Capped at
 * 16 MiB: units and endpoint files are small. */
char *install_read(const char *path, size_t *len, char **err);

/* The endpoint file as it is installed: the source text with every
 * relative path key (MODEL_FILE, MMPROJ_FILE, LORA_FILE, API_KEY_FILE, a
 * RUNTIME with a '/') rewritten to the absolute path it means, since the
 * installed copy lives in another directory. Other lines, comments included, are kept as written, and every line keeps
 * its number (a rewritten value that was continued over several lines
 * leaves empty lines), so findings name the same lines in both. */
char *install_env_text(const struct endpoint *ep, const char *src, size_t len);
/* install_env_text with the line that sets key written key=value instead
 * (a router's MODELS, its members' installed directory). */
char *install_env_text_set(const struct endpoint *ep, const char *src, size_t len, const char *key, const char *value);

#endif
