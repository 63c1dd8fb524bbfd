#include <stdlib.h>
#include <string.h>

#include "plan/cpu.h"
#include "tap.h"

/* A tensor of the shape the loader tests (ne0 in features, ne1 out). */
static struct gguf_tensor mat(const char *name, uint32_t type, uint64_t ne0, uint64_t ne1, uint64_t bytes)
{
	struct gguf_tensor t;
	memset(&t, 0, sizeof(t));
	t.name = (char *)name;
	t.n_dims = 2;
	t.ne[0] = ne0;
	t.ne[1] = ne1;
	t.type = type;
	t.bytes = bytes;
	return t;
}

void test_cpu(void)
{
	struct cpu_features f;
	char buf[128], *err = NULL;

	/* /proc/cpuinfo: the first processor's flags; other lines ignored */
	static const char x86[] = "processor\t: 0\nmodel name\t: Intel(R) Xeon(R)\n"
				  "flags\t\t: fpu sse2 avx2 avx512f avx512_vnni amx_tile amx_int8 amx_bf16\n"
				  "processor\t: 1\nflags\t\t: fpu\n";
	cpu_features_from_cpuinfo(x86, sizeof(x86) - 1, &f);
	ok(strcmp(cpu_features_format(&f, buf, sizeof(buf)), "avx2,avx512,avx512_vnni,amx_int8") == 0,
	   "cpuinfo flags of an AMX Xeon: %s", buf);
	ok(cpu_has_amx(&f), "amx_int8 + avx512_vnni: the AMX buffer exists");
	static const char arm[] = "processor\t: 0\nFeatures\t: fp asimd evtstrm aes asimddp sve i8mm\n";
	cpu_features_from_cpuinfo(arm, sizeof(arm) - 1, &f);
	ok(strcmp(cpu_features_format(&f, buf, sizeof(buf)), "neon,dotprod,matmul_int8,sve") == 0,
	   "cpuinfo Features of an ARM host: %s", buf);
	cpu_features_from_cpuinfo("", 0, &f);
	ok(f.bits == 0 && strcmp(cpu_features_format(&f, buf, sizeof(buf)), "none") == 0, "no flags line: none");
	/* the one reader of a cpuinfo file (the host's, and law S16's $ZEALOT_CPUINFO) */
	ok(cpu_features_cpuinfo("tests/data/cpuinfo/xeon-amx.txt", &f) == 0 && cpu_has_amx(&f),
	   "a cpuinfo file of an AMX Xeon: the AMX buffer exists");
	ok(cpu_features_cpuinfo("tests/data/cpuinfo/epyc-avx2.txt", &f) == 0 && !cpu_has_amx(&f) && (f.bits & CPU_AVX2),
	   "a cpuinfo file of an AVX2 EPYC: no AMX buffer");
	f.bits = CPU_AVX2;
	ok(cpu_features_cpuinfo("tests/data/cpuinfo/no-such.txt", &f) == -1 && f.bits == 0,
	   "a cpuinfo file that is not there: -1 and the empty set");

	/* the engine's system_info line */
	static const char si[] = "0.00.004 I cmn  common_param: system_info: n_threads = 2 (n_threads_batch = 2) / 2 "
				 "| CPU : SSE3 = 1 | AVX2 = 1 | AVX512 = 1 | AVX512_VNNI = 1 | AVX512_BF16 = 1 | "
				 "AMX_INT8 = 1 | SVE_CNT = 0 | REPACK = 1 | \nnext line AVX2 = 1";
	ok(cpu_features_from_system_info(si, sizeof(si) - 1, &f) == 0 &&
	       strcmp(cpu_features_format(&f, buf, sizeof(buf)), "avx2,avx512,avx512_vnni,amx_int8") == 0,
	   "system_info: %s", buf);
	ok(cpu_features_from_system_info("no such line", 12, &f) == -1, "a log without system_info");
	static const char si0[] = "system_info: | CPU : AVX2 = 0 | NEON = 1 | SVE = 1 | SVE_CNT = 32 |";
	ok(cpu_features_from_system_info(si0, sizeof(si0) - 1, &f) == 0 && f.bits == (CPU_NEON | CPU_SVE) &&
	       f.sve_cnt == 32,
	   "a feature at 0 is absent; SVE_CNT is read");

	/* lists */
	ok(cpu_features_parse("avx2, avx512f amx", "t", &f, &err) == 0 &&
	       f.bits == (CPU_AVX2 | CPU_AVX512 | CPU_AMX_INT8) && strcmp(f.source, "t") == 0,
	   "a list with commas, blanks and cpuinfo spellings");
	ok(cpu_features_parse("none", "t", &f, &err) == 0 && f.bits == 0, "none");
	ok(cpu_features_parse("avx2,fp8", "t", &f, &err) == -1 && err && strstr(err, "'fp8'"), "unknown: %s",
	   tap_s(err));
	free(err);
	err = NULL;

	/* the extra buffers, in the engine's order */
	uint64_t bytes = 0;
	struct cpu_features amx = {CPU_AVX2 | CPU_AVX512 | CPU_AVX512_VNNI | CPU_AMX_INT8, 0, "t"};
	struct cpu_features avx2 = {CPU_AVX2, 0, "t"};
	struct cpu_features none = {0, 0, "t"};
	struct gguf_tensor q80 = mat("blk.0.ffn_up.weight", 8, 512, 1024, 512 / 32 * 34 * 1024);
	ok(strcmp(tap_s(cpu_weight_buft(&amx, &q80, 1, &bytes)), "AMX") == 0 && bytes == 1024 * 16 * (34 + 4),
	   "q8_0 in AMX with an int32 compensation per block");
	ok(cpu_weight_buft(&avx2, &q80, 1, &bytes) == NULL, "q8_0 has no x86 repack kernel");
	struct gguf_tensor q40 = mat("output.weight", 2, 512, 3000, 512 / 32 * 18 * 3000);
	ok(strcmp(tap_s(cpu_weight_buft(&amx, &q40, 1, &bytes)), "CPU_REPACK") == 0 && bytes == q40.bytes,
	   "3000 out features are not 32-aligned for AMX: the repack buffer takes it");
	ok(cpu_weight_buft(&none, &q40, 1, &bytes) == NULL, "no features: mapped");
	ok(cpu_weight_buft(&amx, &q40, 0, &bytes) == NULL, "not a matmul (token_embd is GET_ROWS): mapped");
	struct gguf_tensor q4k = mat("blk.0.ssm_out.weight", 12, 128 * 2, 64, 144 * 64);
	ok(strcmp(tap_s(cpu_weight_buft(&amx, &q4k, 1, &bytes)), "AMX") == 0 && bytes == 64 * (144 + 4),
	   "q4_K in AMX with 4 bytes per block");
	struct gguf_tensor f16 = mat("blk.0.attn_q.weight", 1, 512, 512, 512 * 512 * 2);
	ok(strcmp(tap_s(cpu_weight_buft(&amx, &f16, 1, &bytes)), "AMX") == 0 && bytes == f16.bytes,
	   "f16 in AMX, stored as is");
	struct gguf_tensor bf16 = mat("blk.0.attn_q.weight", 30, 512, 512, 512 * 512 * 2);
	ok(cpu_weight_buft(&amx, &bf16, 1, &bytes) == NULL, "bf16: no AMX kernel, no repack");
	struct gguf_tensor exps = mat("blk.0.ffn_up_exps.weight", 2, 512, 256, 0);
	exps.n_dims = 3;
	exps.ne[2] = 8;
	ok(strcmp(tap_s(cpu_weight_buft(&amx, &exps, 1, &bytes)), "CPU_REPACK") == 0,
	   "an expert stack (MUL_MAT_ID) skips AMX and is repacked");
	struct cpu_features arm_dot = {CPU_NEON | CPU_DOTPROD, 0, "t"};
	ok(strcmp(tap_s(cpu_weight_buft(&arm_dot, &q80, 1, &bytes)), "CPU_REPACK") == 0, "ARM dotprod repacks q8_0");
}
