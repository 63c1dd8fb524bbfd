/* S16, the AMX fault: which weights the engine's AMX buffer takes (the
 * planner's own rule, plan/cpu.h), and whether the runtime's build or a
 * boot log says the AMX kernels are there. */
#include "laws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../plan/cand.h"
#include "../plan/cpu.h"
#include "law_util.h"

/* A file's first `cap` bytes as a NUL-terminated string, or NULL. */
static char *slurp(const char *path, size_t cap)
{
	return read_file(path, cap, READ_TRUNCATE, NULL, NULL, NULL);
}

/* Whether this host's CPU has the AMX kernels' instructions (amx_int8 and
 * avx512_vnni), from its /proc/cpuinfo through the planner's reader
 * ($ZEALOT_CPUINFO reads another file: tests, or another host's cpuinfo).
 * 0 when unknown. */
static int host_has_amx(void)
{
	const char *path = getenv("ZEALOT_CPUINFO");
	struct cpu_features f;
	return cpu_features_cpuinfo(path && *path ? path : "/proc/cpuinfo", &f) == 0 && cpu_has_amx(&f);
}

/* Does the build in this CMakeCache.txt carry the AMX buffer type? It is
 * compiled only under __AMX_INT8__ && __AVX512VNNI__ (ggml-cpu.cpp,
 * ggml_backend_cpu_get_extra_buffer_types; amx/amx.cpp). The x86 part of
 * ggml-cpu/CMakeLists.txt defines them: with GGML_NATIVE a bare
 * -march=native (the GGML_AMX_* options are then ignored), so the build
 * host's CPU decides, and the build is assumed made on this host;
 * otherwise -mamx-int8 from GGML_AMX_INT8 and -mavx512vnni from
 * GGML_AVX512_VNNI. With GGML_CPU_ALL_VARIANTS the engine loads the best
 * variant for the host it runs on, the sapphirerapids one (AMX) on an AMX
 * CPU. 1 yes (evidence appended to why), 0 no, -1 unreadable. */
static int build_has_amx(const char *cache, struct sb *why)
{
	char *text = slurp(cache, 8u << 20);
	if (!text)
		return -1;
	int amx = 0;
	int host = host_has_amx();
	if (cmake_cache_true(text, "GGML_CPU_ALL_VARIANTS")) {
		if ((amx = host))
			sb_addf(why,
				"%s has GGML_CPU_ALL_VARIANTS=ON and this host's CPU has amx_int8: the engine "
				"loads its AMX (sapphirerapids) CPU variant",
				cache);
	} else if (cmake_cache_true(text, "GGML_NATIVE")) {
		if ((amx = host))
			sb_addf(why,
				"%s has GGML_NATIVE=ON and this host's CPU has amx_int8 and avx512_vnni (a native "
				"build compiles the AMX kernels exactly when its build host has them)",
				cache);
	} else if (cmake_cache_true(text, "GGML_AMX_INT8") && cmake_cache_true(text, "GGML_AVX512_VNNI")) {
		amx = 1;
		sb_addf(why, "%s has GGML_AMX_INT8=ON and GGML_AVX512_VNNI=ON", cache);
	}
	free(text);
	return amx;
}

/* A boot log of the runtime: its system_info line lists AMX_INT8 = 1 (and
 * AVX512_VNNI = 1) when the CPU backend was compiled with the kernels. */
static int boot_log_amx(const char *log, struct sb *why)
{
	FILE *f = fopen(log, "r");
	if (!f)
		return -1;
	char *line = NULL;
	size_t cap = 0;
	int amx = 0, seen = 0, buffer = 0;
	while (getline(&line, &cap, f) > 0) {
		if (!seen && strstr(line, "system_info:")) {
			seen = 1;
			amx = strstr(line, "AMX_INT8 = 1") && strstr(line, "AVX512_VNNI = 1");
		}
		if (strstr(line, "AMX model buffer size"))
			buffer = 1;
	}
	free(line);
	fclose(f);
	if (amx)
		sb_addf(why, "the boot log %s says AMX_INT8 = 1 in its system_info line%s", log,
			buffer ? " and shows an AMX model buffer" : "");
	return seen ? amx : -1;
}

/* An f16 MLA decompression stack (deepseek2.cpp, mistral4: blk.N.attn_k_b
 * and attn_v_b, 3-D). The loader puts it in the AMX buffer (its check is a
 * matmul by a contiguous operand), but the graph multiplies it by a
 * permuted one: the AMX buffer type's supports_op (amx/amx.cpp) wants both
 * contiguous, no other backend may read a weight in that buffer, and the
 * scheduler's pass 4 aborts on the unassigned node. */
static int amx_mla_b(const struct gguf_tensor *t)
{
	size_t n = strlen(t->name);
	return t->type == 1 /* F16 */ && n > 15 &&
	       (strcmp(t->name + n - 15, "attn_k_b.weight") == 0 || strcmp(t->name + n - 15, "attn_v_b.weight") == 0);
}

/* deepseek4's grouped output projection (deepseek4.cpp: blk.N.attn_output_a,
 * reshaped to 3-D at load, one matrix per group), f16: the AMX buffer takes
 * it, but the graph multiplies it by a permuted operand per group, which
 * the AMX buffer type refuses as amx_mla_b's stacks. */
static int amx_dsv4_wo_a(const struct gguf_tensor *t)
{
	size_t n = strlen(t->name);
	return t->type == 1 /* F16 */ && n > 20 && strcmp(t->name + n - 20, "attn_output_a.weight") == 0;
}

/* S16: on an Intel host with AMX, the pinned engine built natively puts
 * matmul weights of the tile-kernel types into its AMX buffer and dies
 * with SIGILL at warm-up (tilezero in tinygemm_kernel_amx, on a worker
 * thread); --no-repack (REPACK=0) keeps every extra buffer type out and
 * the same payload boots. Only the cpu device: a CUDA build's host layers
 * take the CUDA host buffer type first, as the planner's CPU_REPACK rule. */
void law_amx(const struct endpoint *ep, const struct shape_ctx *c, const struct laws_evidence *ev, struct findings *out)
{
	const struct plan_shape *s = &c->shape;
	if (!c->dev || c->dev->backend != DEVICE_CPU || !s->repack || extra_has(ep, "--no-repack") ||
	    extra_has(ep, "-nr"))
		return;
	const struct model *m = c->census->model;
	const struct gguf *g = c->model->g;
	uint64_t n = 0, trunk = m->n_layer_all - m->n_nextn;
	uint32_t types[8];
	size_t n_types = 0;
	uint64_t n_mla = 0;  /* f16 MLA decompression stacks the AMX buffer takes */
	uint64_t n_wo_a = 0; /* f16 deepseek4 output projections it takes */
	const struct gguf_tensor *embd = gguf_tensor_find(g, "token_embd.weight");
	int tied = embd && !gguf_tensor_find(g, "output.weight");
	struct cpu_features amx_host = s->cpu;
	amx_host.bits |= CPU_AMX_INT8 | CPU_AVX512_VNNI;
	for (uint64_t i = 0; i <= g->n_tensors; i++) {
		/* past the last tensor: a tied output layer multiplies by a copy
		 * of token_embd (a MUL_MAT weight of its own) */
		const struct gguf_tensor *t = i < g->n_tensors ? &g->tensors[i] : tied ? embd : NULL;
		if (!t || (i < g->n_tensors && !plan_weight_is_matmul(t)))
			continue;
		if (strncmp(t->name, "blk.", 4) == 0 && strtoull(t->name + 4, NULL, 10) >= trunk && !s->spec_mtp)
			continue; /* MTP blocks load only with a drafter */
		/* the planner's own rule, on a host whose build has the AMX buffer */
		uint64_t bytes;
		const char *buft = cpu_weight_buft(&amx_host, t, 1, &bytes);
		if (!buft || strcmp(buft, "AMX") != 0)
			continue;
		if (!cpu_amx_tiles(t->type)) {
			if (amx_mla_b(t))
				n_mla++;
			else if (amx_dsv4_wo_a(t))
				n_wo_a++;
			continue;
		}
		n++;
		size_t k = 0;
		while (k < n_types && types[k] != t->type)
			k++;
		if (k == n_types && n_types < ARRAY_SIZE(types))
			types[n_types++] = t->type;
	}
	if (!n && !n_mla && !n_wo_a)
		return;
	struct sb why = {0};
	char *rt = runtime_path(ep);
	char *cache = rt ? runtime_cmake_cache(rt) : NULL;
	int build = cache ? build_has_amx(cache, &why) : -1;
	int boot = -1;
	if (ev && ev->boot_log) {
		struct sb lw = {0};
		boot = boot_log_amx(ev->boot_log, &lw);
		if (boot == 1)
			sb_addf(&why, "%s%s", why.len ? "; " : "", lw.s);
		sb_release(&lw);
	}
	if ((build == 1 || boot == 1) && !n && !n_mla) {
		add(out, "S16", SEV_ERROR, ep, K_REPACK,
		    "set REPACK=0 (--no-repack): the weights stay mapped and the plain CPU kernels run them",
		    "the runtime's build carries the AMX kernels (%s) and REPACK is on: %llu f16 grouped output "
		    "projections (deepseek4's attn_output_a) go to the AMX buffer, which refuses their matmul by a "
		    "permuted operand, and no other backend may read them: the pinned engine aborts while reserving "
		    "the graph (ggml-backend.cpp: GGML_ASSERT(*cur_backend_id != -1) failed)",
		    why.s, (unsigned long long)n_wo_a);
	} else if ((build == 1 || boot == 1) && !n) {
		add(out, "S16", SEV_ERROR, ep, K_REPACK,
		    "set REPACK=0 (--no-repack): the weights stay mapped and the plain CPU kernels run them",
		    "the runtime's build carries the AMX kernels (%s) and REPACK is on: %llu f16 MLA decompression "
		    "stacks (attn_k_b/attn_v_b) go to the AMX buffer, which refuses their matmul by a permuted "
		    "operand, and no other backend may read them: the pinned engine aborts while reserving the "
		    "graph (ggml-backend.cpp: GGML_ASSERT(*cur_backend_id != -1) failed)",
		    why.s, (unsigned long long)n_mla);
	} else if (build == 1 || boot == 1) {
		struct sb tn = {0};
		for (size_t k = 0; k < n_types; k++)
			sb_addf(&tn, "%s%s", k ? ", " : "", ggml_type_get(types[k])->name);
		add(out, "S16", SEV_ERROR, ep, K_REPACK,
		    "set REPACK=0 (--no-repack): the weights stay mapped and the plain CPU kernels run them",
		    "the runtime's build carries the AMX kernels (%s) and REPACK is on: %llu matmul weights (%s) go "
		    "to the AMX buffer, where the pinned engine dies with SIGILL at warm-up (tilezero in "
		    "tinygemm_kernel_amx)",
		    why.s, (unsigned long long)n, tn.s);
		sb_release(&tn);
	}
	sb_release(&why);
	free(cache);
	free(rt);
}
