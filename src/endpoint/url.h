/* url: where a payload file is fetched from, the one reading of *_URL and
 * *_URL_FILE that fetch, plan and the laws share. */
#ifndef ZEALOT_ENDPOINT_URL_H
#define ZEALOT_ENDPOINT_URL_H

#include "endpoint.h"
#include "keys.h"

/* The *_URL_FILE key of a payload's *_FILE key (K_MODEL_URL_FILE for
 * K_MODEL_FILE), or K__COUNT when the key has none. */
enum key_id endpoint_url_file_key(enum key_id file);

/* Whether the endpoint names a URL for file (K_MODEL_FILE, K_MMPROJ_FILE,
 * K_LORA_FILE): *_URL set and not empty, or *_URL_FILE set. Reads
 * nothing. */
int endpoint_has_url(const struct endpoint *ep, enum key_id file);

/* The URL file is fetched from: *_URL, or the first line of the file
 * *_URL_FILE names (blanks around it dropped), so a URL with a password
 * or a token need not sit in the endpoint file. *url allocated, NULL when
 * neither is set. 0, or -1 with *err when both are set, the file cannot be
 * read or its first line is empty. */
int endpoint_url(const struct endpoint *ep, enum key_id file, char **url, char **err);

#endif
