/* libFuzzer target: what zealot makes of an engine's JSON answer. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "live/probe.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const long statuses[] = {200, 400, 500};
	for (int i = 0; i < 3; i++) {
		char *ev = NULL;
		probe_judge_chat(statuses[i], (const char *)data, size, &ev);
		free(ev);
	}
	return 0;
}
