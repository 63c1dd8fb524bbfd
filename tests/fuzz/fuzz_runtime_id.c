/* libFuzzer target: the runtime build id read from `--version` output or a
 * boot log's build line (store_runtime_id). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	free(store_runtime_id(s));
	free(s);
	return 0;
}
