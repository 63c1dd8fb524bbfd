/* slurp: a whole file in memory, for the C tests and their fixtures (one
 * copy; tests/unit and tests/store-fixture.c include it). */
#ifndef ZEALOT_TEST_SLURP_H
#define ZEALOT_TEST_SLURP_H

#include <stdio.h>

#include "base/util.h"

/* The bytes of path, NUL-terminated ("" for an empty file), their count in
 * *len when len is not NULL; NULL when it cannot be opened. */
static inline char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	struct sb b = {0};
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof(buf), f)) > 0)
		sb_add(&b, buf, n);
	fclose(f);
	if (len)
		*len = b.len;
	return b.s ? sb_detach(&b) : xstrdup("");
}

#endif
