/* The runtime laws: C03 and C08 (the start command is there and
 * executable), S14 (the flash-attention pairs its build compiled), R01
 * (RUNTIME_SHA256 and RUNTIME_MIN_BUILD) and R02 (every rendered flag is
 * one its --help lists). */
#include "laws.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/util.h"
#include "../endpoint/argv.h"
#include "../plan/cand.h"
#include "law_util.h"
#include "runtime.h"

/* The runtime's build tree: the CMakeCache.txt of the build the binary
 * came from (build/bin/llama-server -> build/CMakeCache.txt, or beside
 * it). A new path, or NULL when there is none to read. */
char *runtime_cmake_cache(const char *bin)
{
	static const char *const rel[] = {"/../CMakeCache.txt", "/../../CMakeCache.txt", "/CMakeCache.txt"};
	const char *slash = strrchr(bin, '/');
	if (!slash)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		struct sb b = {0};
		sb_addf(&b, "%.*s%s", (int)(slash - bin), bin, rel[i]);
		char *real = access(b.s, R_OK) == 0 ? realpath(b.s, NULL) : NULL;
		sb_release(&b);
		if (real)
			return real;
	}
	return NULL;
}

/* The runtime's executable as the unit would exec it, or NULL. */
char *runtime_path(const struct endpoint *ep)
{
	const char *rt = val(ep, K_RUNTIME);
	if (!*rt)
		return NULL;
	return strchr(rt, '/') ? endpoint_path(ep, K_RUNTIME) : path_which(rt);
}

/* R01: the runtime is pinned like the payload: RUNTIME_SHA256 its bytes
 * (through serve's stamp cache), RUNTIME_MIN_BUILD the lowest build its
 * --version may report (the seeds' floor b10776 pairs MTP with a quantized
 * V; an older fork build refuses the adapter). */
static void law_runtime_pin(const struct endpoint *ep, const char *path, struct findings *out)
{
	const char *pin = val(ep, K_RUNTIME_SHA256), *floor = val(ep, K_RUNTIME_MIN_BUILD);
	if (!*pin && !*floor)
		return;
	char hex[65], *err = NULL;
	if (runtime_sha256(path, hex, NULL, &err)) {
		add(out, "R01", SEV_ERROR, ep, *pin ? K_RUNTIME_SHA256 : K_RUNTIME_MIN_BUILD,
		    "make the runtime readable", "cannot hash RUNTIME: %s", err);
		free(err);
		return;
	}
	if (*pin && strcasecmp(pin, hex) != 0)
		add(out, "R01", SEV_ERROR, ep, K_RUNTIME_SHA256,
		    "put the pinned runtime back, or pin this one (zealot fetch --pin) after checking it",
		    "RUNTIME '%s' has SHA-256 %s, RUNTIME_SHA256 pins %s: another runtime than the era's", path, hex,
		    pin);
	if (!*floor)
		return;
	const char *who = NULL;
	char *v = runtime_ask(ep, path, hex, "version", &who, &err);
	long build = runtime_build(v);
	if (!v)
		add(out, "R01", SEV_ERROR, ep, K_RUNTIME_MIN_BUILD, "make `RUNTIME --version` answer",
		    "cannot read RUNTIME's build: %s", err);
	else if (build < 0)
		add(out, "R01", SEV_ERROR, ep, K_RUNTIME_MIN_BUILD, "point RUNTIME at a llama-server build",
		    "RUNTIME '%s' --version names no build number, RUNTIME_MIN_BUILD is %s", path, floor);
	else if ((unsigned long long)build < strtoull(floor, NULL, 10))
		add(out, "R01", SEV_ERROR, ep, K_RUNTIME_MIN_BUILD, "use a newer build of the runtime",
		    "RUNTIME '%s' is build %ld, below RUNTIME_MIN_BUILD %s", path, build, floor);
	free(err);
	free(v);
}

/* R02: every flag zealot renders must be one the runtime's --help lists;
 * an unknown argument is otherwise found only when the engine exits at
 * boot. The help is read once per runtime (by its SHA-256), unprivileged. */
void law_runtime_flags(const struct endpoint *ep, struct findings *out)
{
	char *path = runtime_resolve(ep);
	struct stat st;
	if (!path || stat(path, &st) != 0 || !S_ISREG(st.st_mode) || access(path, X_OK) != 0) {
		free(path); /* C03 / C08 say why */
		return;
	}
	char hex[65], *err = NULL;
	const char *who = NULL;
	char *help = NULL, *v = NULL;
	if (runtime_sha256(path, hex, NULL, &err) == 0)
		help = runtime_ask(ep, path, hex, "help", &who, &err);
	if (!help) {
		add(out, "R02", SEV_INFO, ep, K_RUNTIME, "make the runtime readable and executable by the unit's user",
		    "flags unchecked: cannot read RUNTIME --help as %s: %s", who ? who : "nobody", err);
		goto done;
	}
	if (!runtime_flag_listed(help, "--model")) {
		add(out, "R02", SEV_INFO, ep, K_RUNTIME, "point RUNTIME at llama-server",
		    "flags unchecked: RUNTIME '%s' --help lists no --model (not llama-server's help)", path);
		goto done;
	}
	struct argv_list a = {0};
	if (argv_render(ep, &a, &err))
		goto done;
	v = runtime_ask(ep, path, hex, "version", &who, &err);
	long build = runtime_build(v);
	struct sb b = {0};
	if (build >= 0)
		sb_addf(&b, "build %ld", build);
	else
		sb_adds(&b, "a build of unknown number");
	if (!v) /* the flags are still checked against the help */
		add(out, "R02", SEV_INFO, ep, K_RUNTIME, "make `RUNTIME --version` answer as the unit's user",
		    "build unknown: cannot read RUNTIME --version as %s: %s", who ? who : "nobody", err);
	for (size_t i = 1; i < a.n; i++) {
		const char *f = a.v[i];
		if (f[0] != '-' || strspn(f, "-") > 2 ||
		    !((f[1] >= 'a' && f[1] <= 'z') || (f[1] >= 'A' && f[1] <= 'Z') || (f[1] == '-' && f[2])))
			continue; /* a value ("-1" included), not a flag */
		int seen = 0;
		for (size_t j = 1; j < i; j++)
			seen |= strcmp(a.v[j], f) == 0;
		if (!seen && !runtime_flag_listed(help, f))
			add(out, "R02", SEV_ERROR, ep, K_RUNTIME,
			    "use a runtime that knows it, or drop the key (or EXTRA_ARGS word) that renders it",
			    "zealot renders %s, which RUNTIME '%s' (%s) does not list in its --help: the engine "
			    "would exit at boot on an unknown argument",
			    f, path, b.s);
	}
	sb_release(&b);
	argv_release(&a);
done:
	free(v);
	free(help);
	free(err);
	free(path);
}

/* C08: the start command must be directly executable; a script needs its
 * shebang or it is a 203/EXEC boot loop. */
void law_runtime(const struct endpoint *ep, struct findings *out)
{
	const char *rt = val(ep, K_RUNTIME);
	if (!*rt)
		return;
	char *path = runtime_path(ep);
	if (!path) {
		add(out, "C03", SEV_ERROR, ep, K_RUNTIME, "install llama-server or give RUNTIME its absolute path",
		    "RUNTIME '%s' is not in PATH", rt);
		return;
	}
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
		add(out, "C03", SEV_ERROR, ep, K_RUNTIME, "build or install the runtime, or correct the path",
		    "RUNTIME '%s' does not exist", path);
	} else if (access(path, X_OK) != 0) {
		add(out, "C08", SEV_ERROR, ep, K_RUNTIME, "chmod +x it", "RUNTIME '%s' is not executable", path);
	} else {
		FILE *f = fopen(path, "rb");
		unsigned char head[4] = {0};
		size_t n = f ? fread(head, 1, 4, f) : 0;
		if (f)
			fclose(f);
		int elf = n == 4 && head[0] == 0x7f && head[1] == 'E' && head[2] == 'L' && head[3] == 'F';
		int shebang = n >= 2 && head[0] == '#' && head[1] == '!';
		if (!elf && !shebang)
			add(out, "C08", SEV_ERROR, ep, K_RUNTIME, "add a #! line, or point RUNTIME at the binary",
			    "RUNTIME '%s' is neither a binary nor a script with a shebang: exec fails (203/EXEC)",
			    path);
		/* S14: the build tree says which FA pairs were compiled (cuda.c
		 * reads GGML_CUDA_FA_QUANTS, else GGML_CUDA_FA_ALL_QUANTS) */
		char *cache = runtime_cmake_cache(path);
		struct cuda_build b;
		memset(&b, 0, sizeof(b));
		if (cache && cuda_build_from_cmake(cache, &b) == 1 && strcmp(val(ep, K_FLASH_ATTN), "off") != 0) {
			const char *k = val(ep, K_CACHE_TYPE_K), *v = val(ep, K_CACHE_TYPE_V);
			const struct ggml_type_info *tk = shape_cache_type(k), *tv = shape_cache_type(v);
			if (tk && tv && !cuda_fa_pair_compiled(&b, tk->id, tv->id))
				add(out, "S14", SEV_WARNING, ep, K_CACHE_TYPE_V,
				    "rebuild with GGML_CUDA_FA_QUANTS including the pair (or all), or set the cache "
				    "types to a compiled pair",
				    "%s compiles no flash-attention kernel for %s K + %s V (%s): the op runs on the "
				    "CPU and its cache is copied to the host at every step",
				    cache, k, v,
				    b.fa_all	  ? "all"
				    : *b.fa_pairs ? b.fa_pairs
						  : CUDA_FA_DEFAULT_PAIRS);
		}
		free(cache);
		law_runtime_pin(ep, path, out);
	}
	free(path);
}
