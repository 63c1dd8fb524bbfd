/* libFuzzer target: the GGUF header parser and everything inspect derives
 * from a parsed header (geometry, census, template facts, the loader's
 * shape refusals, the 1 GiB header cap). Any crash,
 * sanitizer report, leak or timeout is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "payload/census.h"
#include "payload/gguf.h"
#include "payload/loader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	/* Once as a whole file, once as the header of a 1 TiB file (so tensor data bounds pass). */
	for (int pass = 0; pass < 2; pass++) {
		uint64_t file_size = pass ? (uint64_t)1 << 40 : size;
		struct gguf *g = gguf_parse(data, size, file_size, &err);
		if (g) {
			struct census *c = census_take(g, &err);
			if (c && c->model) {
				free(err);
				err = NULL;
				loader_check(g, c->model, &err);
			}
			census_free(c);
			gguf_free(g);
		}
		free(err);
		err = NULL;
	}
	/* As a window on a longer file (a remote header read): a cut must
	 * ask for more bytes than it has, never fewer. */
	uint64_t want = 0;
	struct gguf *g = gguf_parse_window(data, size, (uint64_t)size + 65536, &want, &err);
	if (!g && want && want <= size)
		abort();
	gguf_free(g);
	free(err);
	return 0;
}
