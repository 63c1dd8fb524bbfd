/* libFuzzer target: the chat-template scanner. */
#include <stddef.h>
#include <stdint.h>

#include "payload/template.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct template_facts f;
	template_scan((const char *)data, size, &f);
	template_facts_release(&f);
	return 0;
}
