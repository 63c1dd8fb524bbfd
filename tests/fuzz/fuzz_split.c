/* libFuzzer target: split-payload names (paths and URLs) and the names of
 * their other shards. A name that parses must round-trip: shard K's name
 * built from it parses back as K of N with the same prefix. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "payload/split.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	size_t pl;
	unsigned k, n;
	if (split_name_parse(s, &pl, &k, &n) == 0) {
		if (k < 1 || k > n || pl >= strlen(s))
			abort();
		for (unsigned j = 1; j <= n && j <= 3; j++) {
			char *o = split_shard_name(s, j, n);
			size_t pl2;
			unsigned k2, n2;
			if (!o || split_name_parse(o, &pl2, &k2, &n2) || k2 != j || n2 != n || pl2 != pl ||
			    memcmp(o, s, pl) != 0)
				abort();
			free(o);
		}
	}
	free(s);
	return 0;
}
