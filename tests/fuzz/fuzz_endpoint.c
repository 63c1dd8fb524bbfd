/* libFuzzer target: the endpoint-file parser, its typed getters and the
 * argv renderer on whatever it accepts. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "endpoint/argv.h"
#include "endpoint/endpoint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	struct endpoint *ep = endpoint_parse((const char *)data, size, "/fuzz/e.env", &err);
	if (ep) {
		uint64_t v;
		int b;
		double d;
		endpoint_uint(ep, "CTX_SIZE", &v, &err);
		endpoint_bool(ep, "KV_UNIFIED", &b, &err);
		endpoint_number(ep, "LORA_SCALE", &d, &err);
		struct argv_list a;
		if (argv_render(ep, &a, &err) == 0)
			argv_release(&a);
		endpoint_free(ep);
	}
	free(err);
	return 0;
}
