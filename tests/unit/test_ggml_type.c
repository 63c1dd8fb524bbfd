#include "payload/ggml_type.h"
#include <string.h>

#include "plan/cpu.h"
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

	/* The AMX buffer type's supports_op (ggml-cpu/amx/amx.cpp), checked
	 * against the boots of tests/data/amx-boots: llama 512-wide layers go
	 * to AMX, the 3000-row output does not (3000 % 32), f16 is taken but
	 * has no tile kernels, bf16 and iq4_nl are never taken. */
	static const struct {
		const char *type;
		uint64_t ne0, ne1;
		int mul_mat_id, takes, tiles;
	} amx[] = {
	    {"q4_0", 512, 512, 0, 1, 1},   {"q4_0", 512, 3000, 0, 0, 1}, {"q4_1", 512, 256, 0, 1, 1},
	    {"q8_0", 256, 512, 0, 1, 1},   {"q4_K", 512, 512, 0, 1, 1},	 {"q4_K", 128, 512, 0, 0, 1},
	    {"q5_K", 512, 512, 0, 1, 1},   {"q6_K", 256, 512, 0, 1, 1},	 {"iq4_xs", 256, 512, 0, 1, 1},
	    {"f16", 512, 512, 0, 1, 0},	   {"f16", 520, 512, 0, 0, 0},	 {"bf16", 512, 512, 0, 0, 0},
	    {"iq4_nl", 512, 512, 0, 0, 0}, {"q8_0", 512, 512, 1, 0, 1},	 {"q4_0", 544, 64, 0, 1, 1},
	};
	struct cpu_features host = {CPU_AMX_INT8 | CPU_AVX512_VNNI, 0, "test"};
	for (size_t i = 0; i < sizeof(amx) / sizeof(amx[0]); i++) {
		uint32_t id = ggml_type_by_name(amx[i].type)->id;
		struct gguf_tensor w = {0};
		w.name = (char *)(amx[i].mul_mat_id ? "blk.0.ffn_up_exps.weight" : "blk.0.ffn_up.weight");
		w.n_dims = amx[i].mul_mat_id ? 3 : 2;
		w.ne[0] = amx[i].ne0;
		w.ne[1] = amx[i].ne1;
		w.ne[2] = 1;
		w.type = id;
		uint64_t bytes;
		const char *b = cpu_weight_buft(&host, &w, 1, &bytes);
		ok((b && strcmp(b, "AMX") == 0) == amx[i].takes && cpu_amx_tiles(id) == amx[i].tiles,
		   "AMX %s [%llu, %llu]%s: %s, %s", amx[i].type, (unsigned long long)amx[i].ne0,
		   (unsigned long long)amx[i].ne1, amx[i].mul_mat_id ? " MUL_MAT_ID" : "",
		   amx[i].takes ? "taken" : "not taken", amx[i].tiles ? "tile kernels" : "no tile kernels");
	}
}
