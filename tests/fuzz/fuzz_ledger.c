/* libFuzzer target: the boot-log (ledger) parser. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "live/ledger.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ledger *l = malloc(sizeof(*l));
	ledger_parse((const char *)data, size, l);
	free(l);
	return 0;
}
