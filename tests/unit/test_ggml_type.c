#include "payload/ggml_type.h"
#include "tap.h"

void test_ggml_type(void)
{
	/* Law M02: the real block sizes. */
	static const struct {
		const char *name;
		uint64_t n, bytes;
	} rows[] = {
	    {"f32", 32, 128}, {"f16", 32, 64},	  {"bf16", 32, 64},   {"q8_0", 32, 34},
	    {"q4_0", 32, 18}, {"iq4_nl", 32, 18}, {"q4_1", 32, 20},   {"q5_0", 32, 22},
	    {"q5_1", 32, 24}, {"q4_K", 256, 144}, {"q6_K", 256, 210}, {"iq3_xxs", 256, 98},
	};
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct ggml_type_info *t = ggml_type_by_name(rows[i].name);
		ok(t && ggml_row_bytes(t, rows[i].n) == rows[i].bytes, "%s: %llu elements = %llu bytes", rows[i].name,
		   (unsigned long long)rows[i].n, (unsigned long long)rows[i].bytes);
	}
	/* 8 full layers x 4 heads x 256 = 8,192 elements per cache per token:
	 * f16 16,384 B and q8_0 8,704 B, the seeds' 25,088 B/token pair. */
	ok(ggml_row_bytes(ggml_type_by_name("f16"), 8192) + ggml_row_bytes(ggml_type_by_name("q8_0"), 8192) == 25088,
	   "f16 K + q8_0 V = 25,088 B/token on the 9B");
	ok(ggml_type_get(142) == NULL, "type 142 (PQ2_0) is custom");
	ok(ggml_type_get(8) && ggml_type_get(8)->size == 34, "type 8 is q8_0");
	ok(ggml_row_bytes(ggml_type_by_name("q8_0"), 33) == 0, "partial block is refused");
	ok(ggml_type_by_name("fp8") == NULL, "no fp8 type (law S04)");
}
