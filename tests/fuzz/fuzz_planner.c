/* libFuzzer target: the planner driven from an arbitrary header, not only
 * the parser. A header that parses and whose geometry model_from_gguf
 * accepts (model_check: every divisor, index and allocation size held to
 * what the engine loads) is priced as plan prices it, on the CPU, at two
 * shapes: one slot of 4096 cells, and four slots of 32768 with a q8_0
 * cache. The seeds are the headers of synth's architectures
 * (tests/data/planner-seeds), so the fuzzer starts from payloads every
 * graph builder prices and mutates their numbers. Any crash, sanitizer
 * report, leak or timeout is a bug. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "payload/census.h"
#include "payload/ggml_type.h"
#include "payload/gguf.h"
#include "plan/device.h"
#include "plan/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void price(const struct model *m, const struct gguf *g, uint64_t ctx, uint32_t slots, const char *cache)
{
	struct plan_shape s;
	memset(&s, 0, sizeof(s));
	s.ctx_size = ctx;
	s.parallel = slots;
	s.kv_unified = slots > 1;
	s.type_k = s.type_v = ggml_type_by_name(cache);
	s.draft_k = s.draft_v = s.type_k;
	s.flash_attn = 1;
	s.n_batch = 2048;
	s.n_ubatch = 512;
	struct plan_extras x;
	memset(&x, 0, sizeof(x));
	x.addressable_mib = 16384;
	struct plan *p = calloc(1, sizeof(*p));
	char *err = NULL;
	plan_make(m, g, &s, device_find("cpu"), &x, p, &err);
	free(err);
	free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *err = NULL;
	/* the header of a 1 TiB file, so every tensor's data bounds pass */
	struct gguf *g = gguf_parse(data, size, (uint64_t)1 << 40, &err);
	free(err);
	err = NULL;
	if (!g)
		return 0;
	struct census *c = census_take(g, &err);
	free(err);
	if (c && c->model) {
		price(c->model, g, 4096, 1, "f16");
		price(c->model, g, 32768, 4, "q8_0");
	}
	census_free(c);
	gguf_free(g);
	return 0;
}
