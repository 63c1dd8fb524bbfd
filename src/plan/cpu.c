#include "cpu.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <sys/prctl.h>
#endif

#include "../base/util.h"

/* Each feature: zealot's name (the engine's system_info name, lower case),
 * the engine's spelling, and the /proc/cpuinfo spelling. */
static const struct {
	unsigned bit;
	const char *name, *engine, *cpuinfo;
} features[] = {
    {CPU_AVX2, "avx2", "AVX2", "avx2"},
    {CPU_AVX512, "avx512", "AVX512", "avx512f"},
    {CPU_AVX512_VNNI, "avx512_vnni", "AVX512_VNNI", "avx512_vnni"},
    {CPU_AMX_INT8, "amx_int8", "AMX_INT8", "amx_int8"},
    {CPU_NEON, "neon", "NEON", "asimd"},
    {CPU_DOTPROD, "dotprod", "DOTPROD", "asimddp"},
    {CPU_MATMUL_INT8, "matmul_int8", "MATMUL_INT8", "i8mm"},
    {CPU_SVE, "sve", "SVE", "sve"},
};

/* Other spellings people type. */
static const struct {
	const char *alias;
	unsigned bit;
} aliases[] = {
    {"avx512f", CPU_AVX512},   {"avx512vnni", CPU_AVX512_VNNI}, {"amx", CPU_AMX_INT8},
    {"i8mm", CPU_MATMUL_INT8}, {"asimddp", CPU_DOTPROD},	{"asimd", CPU_NEON},
};

const char *cpu_features_known(void)
{
	return "avx2, avx512, avx512_vnni, amx_int8, neon, dotprod, matmul_int8, sve (or none)";
}

const char *cpu_features_format(const struct cpu_features *f, char *buf, size_t n)
{
	size_t o = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(features); i++) {
		if (!(f->bits & features[i].bit))
			continue;
		int w = snprintf(buf + o, n - o, "%s%s", o ? "," : "", features[i].name);
		if (w < 0 || (size_t)w >= n - o)
			break;
		o += (size_t)w;
	}
	if (!o)
		snprintf(buf, n, "none");
	return buf;
}

static int word_is(const char *s, size_t n, const char *w)
{
	return strlen(w) == n && strncasecmp(s, w, n) == 0;
}

int cpu_features_parse(const char *list, const char *source, struct cpu_features *f, char **err)
{
	memset(f, 0, sizeof(*f));
	f->source = source;
	const char *p = list;
	while (*p) {
		p += strspn(p, ", \t");
		size_t n = strcspn(p, ", \t");
		if (!n)
			break;
		unsigned bit = 0;
		int none = word_is(p, n, "none");
		for (size_t i = 0; i < ARRAY_SIZE(features) && !bit; i++)
			if (word_is(p, n, features[i].name))
				bit = features[i].bit;
		for (size_t i = 0; i < ARRAY_SIZE(aliases) && !bit; i++)
			if (word_is(p, n, aliases[i].alias))
				bit = aliases[i].bit;
		if (!bit && !none)
			return errorf(err, "'%.*s' is not a CPU feature zealot knows (%s)", (int)(n < 40 ? n : 40), p,
				      cpu_features_known());
		f->bits |= bit;
		p += n;
	}
	return 0;
}

void cpu_features_from_cpuinfo(const char *text, size_t n, struct cpu_features *f)
{
	memset(f, 0, sizeof(*f));
	f->source = "host /proc/cpuinfo";
	const char *end = text + n, *line = text;
	while (line < end) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = nl ? (size_t)(nl - line) : (size_t)(end - line);
		/* x86 "flags\t\t: ...", ARM "Features\t: ..." */
		if ((len > 5 && strncmp(line, "flags", 5) == 0) || (len > 8 && strncmp(line, "Features", 8) == 0)) {
			const char *c = memchr(line, ':', len);
			if (c) {
				const char *p = c + 1, *e = line + len;
				while (p < e) {
					while (p < e && (*p == ' ' || *p == '\t'))
						p++;
					const char *w = p;
					while (p < e && *p != ' ' && *p != '\t')
						p++;
					for (size_t i = 0; i < ARRAY_SIZE(features); i++)
						if (word_is(w, (size_t)(p - w), features[i].cpuinfo))
							f->bits |= features[i].bit;
				}
				return; /* the first processor speaks for all */
			}
		}
		line += len + 1;
	}
}

void cpu_features_host(struct cpu_features *f)
{
	memset(f, 0, sizeof(*f));
#if defined(__aarch64__) && defined(__linux__)
	unsigned long hw = getauxval(AT_HWCAP), hw2 = getauxval(AT_HWCAP2);
	f->source = "host AT_HWCAP";
	if (hw & (1UL << 1)) /* HWCAP_ASIMD */
		f->bits |= CPU_NEON;
	if (hw & (1UL << 20)) /* HWCAP_ASIMDDP */
		f->bits |= CPU_DOTPROD;
	if (hw & (1UL << 22)) { /* HWCAP_SVE */
		f->bits |= CPU_SVE;
		int vl = prctl(PR_SVE_GET_VL);
		if (vl > 0)
			f->sve_cnt = (unsigned)(vl & PR_SVE_VL_LEN_MASK);
	}
	if (hw2 & (1UL << 13)) /* HWCAP2_I8MM */
		f->bits |= CPU_MATMUL_INT8;
#else
	if (cpu_features_cpuinfo("/proc/cpuinfo", f))
		f->source = "host (no /proc/cpuinfo: none assumed)";
#endif
}

int cpu_features_cpuinfo(const char *path, struct cpu_features *f)
{
	memset(f, 0, sizeof(*f));
	FILE *fp = fopen(path, "r");
	if (!fp)
		return -1;
	/* The first processor's block is well under 64 KiB. */
	char buf[65536];
	size_t n = fread(buf, 1, sizeof(buf), fp);
	fclose(fp);
	cpu_features_from_cpuinfo(buf, n, f);
	return 0;
}

int cpu_features_from_system_info(const char *text, size_t n, struct cpu_features *f)
{
	const char *end = text + n;
	const char *p = memmem(text, n, "system_info:", 12);
	if (!p)
		return -1;
	const char *nl = memchr(p, '\n', (size_t)(end - p));
	const char *e = nl ? nl : end;
	memset(f, 0, sizeof(*f));
	f->source = "boot log system_info";
	/* "| NAME = VALUE |" fields */
	while (p < e) {
		const char *bar = memchr(p, '|', (size_t)(e - p));
		if (!bar)
			break;
		p = bar + 1;
		while (p < e && *p == ' ')
			p++;
		const char *name = p;
		while (p < e && *p != ' ' && *p != '=' && *p != '|')
			p++;
		size_t len = (size_t)(p - name);
		while (p < e && (*p == ' ' || *p == '='))
			p++;
		long v = strtol(p, NULL, 10);
		if (word_is(name, len, "SVE_CNT")) {
			f->sve_cnt = v > 0 ? (unsigned)v : 0;
			continue;
		}
		for (size_t i = 0; i < ARRAY_SIZE(features); i++)
			if (v > 0 && len == strlen(features[i].engine) && strncmp(name, features[i].engine, len) == 0)
				f->bits |= features[i].bit;
	}
	return 0;
}

int cpu_has_amx(const struct cpu_features *f)
{
	/* ggml-cpu.cpp: #if defined(__AMX_INT8__) && defined(__AVX512VNNI__) */
	return (f->bits & CPU_AMX_INT8) && (f->bits & CPU_AVX512_VNNI);
}

/* ggml type ids the extra buffers know. */
enum {
	T_F16 = 1,
	T_Q4_0 = 2,
	T_Q4_1 = 3,
	T_Q8_0 = 8,
	T_Q2_K = 10,
	T_Q4_K = 12,
	T_Q5_K = 13,
	T_Q6_K = 14,
	T_IQ4_NL = 20,
	T_IQ4_XS = 23,
	T_MXFP4 = 39,
};

/* amx/amx.cpp extra_buffer_type::supports_op for the MUL_MAT the loader
 * tries (llama-model.cpp weight_buft_supported: src1 is F32 [ne0, 512]):
 * out features (ne1) a multiple of TILE_N * 2 = 32, in features (ne0) a
 * multiple of the type's alignment. Size: amx/mmq.cpp
 * ggml_backend_amx_get_alloc_size, N rows of get_row_size(K): the blocks,
 * plus an int32 compensation per q8_0 block, plus 4 bytes per q4_K/q5_K
 * block, plus 2 per iq4_xs block; f16 is stored as is. */
static int amx_takes(const struct gguf_tensor *t, uint64_t *bytes)
{
	uint64_t k = t->ne[0], nrow = t->ne[1], align, extra = 0, blck = 0, size = 0;
	switch (t->type) {
	case T_Q4_0: align = 32, blck = 32, size = 18; break;
	case T_Q4_1: align = 32, blck = 32, size = 20; break;
	case T_Q8_0: align = 32, blck = 32, size = 34, extra = 4; break;
	case T_Q4_K: align = 256, blck = 256, size = 144, extra = 4; break;
	case T_Q5_K: align = 256, blck = 256, size = 176, extra = 4; break;
	case T_Q6_K: align = 256, blck = 256, size = 210; break;
	case T_IQ4_XS: align = 256, blck = 256, size = 136, extra = 2; break;
	case T_F16: align = 16; break;
	default: return 0;
	}
	if (nrow % 32 || k % align)
		return 0;
	*bytes = blck ? nrow * (k / blck) * (size + extra) : t->bytes;
	return 1;
}

/* repack.cpp ggml_repack_get_optimal_repack_type: whether this host has a
 * kernel for a type, given the rows the layout interleaves (ne1). */
static int repack_ok(const struct cpu_features *f, uint32_t type, uint64_t ne1)
{
	int avx2 = (f->bits & CPU_AVX2) != 0, avx512 = (f->bits & CPU_AVX512) != 0;
	int neon = (f->bits & CPU_NEON) != 0, i8mm = neon && (f->bits & CPU_MATMUL_INT8);
	int dot = neon && (f->bits & CPU_DOTPROD);
	int sve32 = (f->bits & CPU_SVE) && (f->bits & CPU_MATMUL_INT8) && f->sve_cnt == 32;
	int by8 = ne1 % 8 == 0, by4 = ne1 % 4 == 0;
	switch (type) {
	case T_Q4_0: return ((avx2 || sve32) && by8) || ((i8mm || dot) && by4);
	case T_Q4_K: return (avx2 || i8mm || dot) && by8;
	case T_Q2_K: return avx512 && by8;
	case T_Q5_K:
	case T_Q6_K: return (i8mm || dot) && by8;
	case T_IQ4_NL:
	case T_MXFP4: return (avx2 && by8) || (dot && by4);
	case T_Q8_0: return (i8mm || dot) && by4;
	default: return 0;
	}
}

int cpu_amx_tiles(uint32_t type)
{
	/* amx/common.h qtype_has_amx_kernels */
	switch (type) {
	case T_Q4_0:
	case T_Q4_1:
	case T_Q8_0:
	case T_Q4_K:
	case T_Q5_K:
	case T_Q6_K:
	case T_IQ4_XS: return 1;
	default: return 0;
	}
}

const char *cpu_weight_buft(const struct cpu_features *f, const struct gguf_tensor *t, int is_matmul, uint64_t *bytes)
{
	if (!is_matmul || t->n_dims < 2)
		return NULL;
	/* AMX takes MUL_MAT only: an expert stack (MUL_MAT_ID) is not its op
	 * (grovemoe's chunk experts, _chexps, are stacks too; graniteswitch's
	 * embedded adapters, .lora_a and .lora_b, are used with MUL_MAT_ID:
	 * llama-model-loader.cpp) */
	int expert = t->n_dims == 3 && (strstr(t->name, "_exps.") != NULL || strstr(t->name, "_chexps.") != NULL ||
					strstr(t->name, ".lora_a") != NULL || strstr(t->name, ".lora_b") != NULL);
	if (cpu_has_amx(f) && !expert && amx_takes(t, bytes))
		return "AMX";
	/* repack: a 2-D MUL_MAT weight, or a 3-D MUL_MAT_ID expert stack */
	if (repack_ok(f, t->type, t->ne[1]) && (t->n_dims == 2 || expert)) {
		*bytes = t->bytes;
		return "CPU_REPACK";
	}
	return NULL;
}
