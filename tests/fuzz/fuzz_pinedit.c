/* libFuzzer target: the endpoint-file rewrite that `fetch --pin` does.
 * Whatever the file holds, the result must hold every key exactly once as
 * KEY=VALUE at a line start, and every line that named no pinned key must
 * survive. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fetch/fetch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t count_lines(const char *t, const char *line)
{
	size_t n = 0, len = strlen(line);
	for (const char *p = t; (p = strstr(p, line)); p += len)
		if ((p == t || p[-1] == '\n') && p[len] == '\n')
			n++;
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *keys[] = {"MODEL_BYTES", "MODEL_SHA256"}, *vals[] = {"123", "feed"},
		   *anchors[] = {"MODEL_URL", "MODEL_BYTES"};
	if (memchr(data, '\0', size))
		return 0;
	char *o = fetch_pin_edit((const char *)data, size, keys, vals, anchors, 2);
	if (count_lines(o, "MODEL_BYTES=123") < 1 || count_lines(o, "MODEL_SHA256=feed") < 1)
		abort();
	free(o);
	return 0;
}
