#include "cuda.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "../base/file.h"
#include "../base/util.h"
#include "../payload/ggml_type.h"

enum { T_F32 = 0, T_F16 = 1, T_Q4_0 = 2, T_Q4_1 = 3, T_Q5_0 = 6, T_Q5_1 = 7, T_Q8_0 = 8, T_BF16 = 30 };

/* fattn-common.cuh FATTN_KQ_STRIDE */
#define KQ_STRIDE 256
/* the vector kernel's limit at gqa > 4 (fattn.cu) */
#define VEC_LARGE_KV 8192

void cuda_build_default(struct cuda_build *b)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->fa_pairs, sizeof(b->fa_pairs), "%s", CUDA_FA_DEFAULT_PAIRS);
}

static const char *type_name(uint32_t id)
{
	if (id == T_F32)
		id = T_F16; /* the kernels read an f32 K or V as f16 */
	const struct ggml_type_info *t = ggml_type_get(id);
	return t ? t->name : "?";
}

int cuda_build_set_pairs(struct cuda_build *b, const char *list)
{
	while (*list == ' ')
		list++;
	if (strcasecmp(list, "all") == 0) {
		b->fa_all = 1;
		b->fa_pairs[0] = '\0';
		return 0;
	}
	/* each pair's types must be cache types */
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", list);
	for (char *p = buf; *p;) {
		size_t n = strcspn(p, ";,");
		char save = p[n];
		p[n] = '\0';
		char *dash = strchr(p, '-');
		if (!dash)
			return -1;
		*dash = '\0';
		if (!ggml_type_by_name(p) || !ggml_type_by_name(dash + 1))
			return -1;
		if (!save)
			break;
		p += n + 1;
	}
	b->fa_all = 0;
	snprintf(b->fa_pairs, sizeof(b->fa_pairs), "%s", list);
	return 0;
}

int cuda_fa_pair_compiled(const struct cuda_build *b, uint32_t k_type, uint32_t v_type)
{
	/* ggml_cuda_fattn_kv_type_supported */
	static const uint32_t base[] = {T_F32, T_F16, T_Q4_0, T_Q8_0, T_BF16};
	static const uint32_t all[] = {T_Q4_1, T_Q5_0, T_Q5_1};
	int ok_k = 0, ok_v = 0;
	for (size_t i = 0; i < ARRAY_SIZE(base); i++) {
		ok_k |= k_type == base[i];
		ok_v |= v_type == base[i];
	}
	if (b->fa_all) {
		for (size_t i = 0; i < ARRAY_SIZE(all); i++) {
			ok_k |= k_type == all[i];
			ok_v |= v_type == all[i];
		}
		return ok_k && ok_v;
	}
	char pair[64];
	snprintf(pair, sizeof(pair), "%s-%s", type_name(k_type), type_name(v_type));
	size_t n = strlen(pair);
	const char *list = *b->fa_pairs ? b->fa_pairs : CUDA_FA_DEFAULT_PAIRS;
	for (const char *p = list; (p = strstr(p, pair)) != NULL; p += n)
		if ((p == list || p[-1] == ';' || p[-1] == ',' || p[-1] == ' ') &&
		    (p[n] == '\0' || p[n] == ';' || p[n] == ','))
			return 1;
	return 0;
}

static int quantized(uint32_t id)
{
	const struct ggml_type_info *t = ggml_type_get(id);
	return t && t->blck > 1;
}

enum cuda_fa_kernel cuda_fa_kernel(const struct cuda_build *b, int cc, const struct ga_fa *fa)
{
	if (!cc)
		cc = 86;
	int64_t gqa = fa->hkv ? fa->h / fa->hkv : 1;
	/* strides of 16 bytes hold for the f16/f32 rows the graphs build */
	int gqa_opt = gqa >= 2 && fa->mask && fa->n_kv % KQ_STRIDE == 0;
	switch (fa->dk) {
	case 40:
	case 64:
	case 72:
	case 80:
	case 96:
	case 112:
	case 128:
	case 256:
		if (fa->dv != fa->dk)
			return CUDA_FA_NONE;
		break;
	case 192:
		if (fa->dv != 128 || !gqa_opt || gqa % 8)
			return CUDA_FA_NONE;
		break;
	case 320:
		if (fa->dv != 256 || !gqa_opt || gqa % 32)
			return CUDA_FA_NONE;
		break;
	case 512:
		if (fa->dv != fa->dk || !gqa_opt)
			return CUDA_FA_NONE;
		break;
	case 576:
		if (fa->dv != 512 || !gqa_opt)
			return CUDA_FA_NONE;
		break;
	default: return CUDA_FA_NONE;
	}
	if (!cuda_fa_pair_compiled(b, fa->k_type, fa->v_type))
		return CUDA_FA_NONE;
	int quant = quantized(fa->k_type) || quantized(fa->v_type);
	int vec_ok = fa->dk <= 256 && fa->dk % 64 == 0 && fa->dk != 192 && fa->n_kv % KQ_STRIDE == 0;
	if (cc >= 75 && fa->dk != 40 && fa->dk != 72) { /* Turing tensor cores */
		if (vec_ok) {
			if (!quant) {
				if (cc >= 89 && fa->q_tok == 1 && fa->n_stream == 1 &&
				    !(gqa > 4 && fa->n_kv >= VEC_LARGE_KV))
					return CUDA_FA_VEC;
			} else if (cc >= 89 ? fa->q_tok <= 2 : fa->q_tok == 1) {
				return CUDA_FA_VEC;
			}
			if (!gqa_opt && fa->q_tok == 1)
				return CUDA_FA_VEC;
		}
		return CUDA_FA_MMA;
	}
	int ncols2_max = fa->dk == 320 ? 32 : (fa->dk == 576 || fa->dk == 192) ? 16 : 8;
	int64_t eff = 1;
	while (gqa % (2 * eff) == 0 && eff < ncols2_max)
		eff *= 2;
	if (cc >= 70 && fa->dk != 40 && fa->dk != 72) { /* Volta */
		if (vec_ok && fa->q_tok * eff <= 2)
			return CUDA_FA_VEC;
		return fa->q_tok * eff <= 16 ? CUDA_FA_TILE : CUDA_FA_MMA;
	}
	if (vec_ok) {
		if (!quant) {
			if (fa->q_tok == 1 && !gqa_opt)
				return CUDA_FA_VEC;
		} else if (fa->q_tok <= 2) {
			return CUDA_FA_VEC;
		}
	}
	return CUDA_FA_TILE;
}

/* cuda_fa_kernel reads n_kv twice: n_kv % KQ_STRIDE (gqa_opt, vec_ok)
 * and n_kv >= VEC_LARGE_KV; get_alloc_size reads it linearly (the f16
 * copies of K and V). Every other field must be the same in both builds. */

int cuda_fa_interval(const struct ga_fa *a, const struct ga_fa *b, int64_t n0, int64_t step, int64_t *lo, int64_t *hi)
{
	if (a->k_type != b->k_type || a->v_type != b->v_type || a->dk != b->dk || a->dv != b->dv || a->hkv != b->hkv ||
	    a->h != b->h || a->q_tok != b->q_tok || a->n_stream != b->n_stream || a->mask != b->mask ||
	    a->v_is_k != b->v_is_k)
		return -1;
	int64_t d = b->n_kv - a->n_kv; /* n_kv at n0 + k*step is a->n_kv + k*d */
	if (d == 0)
		return 0;
	if (d < 0 || d % KQ_STRIDE) /* the residue would move */
		return -1;
	if (a->n_kv >= VEC_LARGE_KV) { /* k >= -floor((n_kv - 8192) / d) */
		int64_t k = -((a->n_kv - VEC_LARGE_KV) / d);
		if (n0 + k * step > *lo)
			*lo = n0 + k * step;
	} else { /* k <= ceil((8192 - n_kv) / d) - 1 */
		int64_t k = (VEC_LARGE_KV - a->n_kv + d - 1) / d - 1;
		if (n0 + k * step < *hi)
			*hi = n0 + k * step;
	}
	return 0;
}

/* Compute capabilities of the device profiles (device.c). */
int cuda_cc(const char *profile)
{
	static const struct {
		const char *name;
		int cc;
	} t[] = {
	    {"rtx3090", 86},  {"rtx3060", 86},	{"rtx4090", 89},  {"rtx4060ti-16g", 89}, {"l40s", 89},
	    {"rtx5090", 120}, {"a100-40g", 80}, {"a100-80g", 80}, {"h100-80g", 90},
	};
	for (size_t i = 0; profile && i < ARRAY_SIZE(t); i++)
		if (strcmp(t[i].name, profile) == 0)
			return t[i].cc;
	return 0;
}

int cuda_supports_op(const struct ga_graph *g, int t, int backend, const void *rules)
{
	const struct cuda_rules *r = rules;
	const struct ga_tensor *x = &g->t[t];
	/* an FA node a builder did not describe (dk 0) is assumed to run */
	if (backend < 0 || backend >= 16 || !r->cc[backend] || x->op != GA_OP_FA || !x->fa.dk)
		return 1;
	return cuda_fa_kernel(r->build, r->cc[backend], &x->fa) != CUDA_FA_NONE;
}

static uint64_t pad(uint64_t x, uint64_t a)
{
	return (x + a - 1) / a * a;
}

/* ggml-cuda.cu MATRIX_ROW_PADDING */
#define ROW_PADDING 512

uint64_t cuda_alloc_size(const struct ga_graph *g, int t, int backend, const void *rules)
{
	const struct cuda_rules *r = rules;
	const struct ga_tensor *x = &g->t[t];
	if (backend < 0 || backend >= 16 || !r->cc[backend])
		return 0;
	if (x->qtype && quantized(x->qtype - 1) && x->ne[0] % ROW_PADDING) {
		/* [TAG_ALLOC_SIZE_EXPAND]: a quantized row padded to 512 (a
		 * weight copied to the card for an offloaded op) */
		const struct ggml_type_info *ti = ggml_type_get(x->qtype - 1);
		/* ggml_row_size: type_size * n / blck_size, in whole bytes */
		return x->bytes + (uint64_t)ti->size * (uint64_t)(ROW_PADDING - x->ne[0] % ROW_PADDING) / ti->blck;
	}
	if (x->op != GA_OP_FA || r->build->no_scratch)
		return 0;
	const struct ga_fa *fa = &x->fa;
	if (!fa->dk)
		return 0;
	enum cuda_fa_kernel k = cuda_fa_kernel(r->build, r->cc[backend], fa);
	int need_k = 0, need_v = 0;
	if (k == CUDA_FA_TILE || k == CUDA_FA_MMA)
		need_k = need_v = 1;
	else if (k == CUDA_FA_VEC) {
		need_k = fa->k_type == T_F32;
		need_v = fa->v_type == T_F32;
	}
	uint64_t end = x->bytes;
	uint64_t nk = (uint64_t)fa->dk * (uint64_t)fa->n_kv * (uint64_t)fa->hkv * (uint64_t)fa->n_stream;
	uint64_t nv = (uint64_t)fa->dv * (uint64_t)fa->n_kv * (uint64_t)fa->hkv * (uint64_t)fa->n_stream;
	if (need_k && fa->k_type != T_F16)
		end = pad(end, 128) + nk * 2;
	if (need_v && fa->v_type != T_F16 && !fa->v_is_k)
		end = pad(end, 128) + nv * 2;
	return end == x->bytes ? 0 : end;
}

int cuda_build_from_cmake(const char *cache, struct cuda_build *b)
{
	struct sb text = {0};
	text.s = read_file(cache, 8u << 20, READ_TRUNCATE, &text.len, NULL, NULL);
	text.cap = text.len + 1;
	if (!text.s)
		return -1;
	char v[256];
	if (!cmake_cache_true(text.s, "GGML_CUDA")) {
		sb_release(&text);
		return 0;
	}
	const char *quants = cmake_cache_value(text.s, "GGML_CUDA_FA_QUANTS", v, sizeof(v));
	if (quants && *quants && cuda_build_set_pairs(b, quants) == 0) {
		snprintf(b->source, sizeof(b->source), "%s: GGML_CUDA_FA_QUANTS=%s", cache, quants);
	} else if (cmake_cache_true(text.s, "GGML_CUDA_FA_ALL_QUANTS")) {
		b->fa_all = 1;
		b->fa_pairs[0] = '\0';
		snprintf(b->source, sizeof(b->source), "%s: GGML_CUDA_FA_ALL_QUANTS=ON", cache);
	} else {
		b->fa_all = 0;
		snprintf(b->fa_pairs, sizeof(b->fa_pairs), "%s", CUDA_FA_DEFAULT_PAIRS);
		snprintf(b->source, sizeof(b->source), "%s: GGML_CUDA_FA_ALL_QUANTS=OFF", cache);
	}
	sb_release(&text);
	return 1;
}

char *cuda_cmake_cache_of(const char *runtime)
{
	static const char *const rel[] = {"/../CMakeCache.txt", "/../../CMakeCache.txt", "/CMakeCache.txt"};
	const char *slash = runtime ? strrchr(runtime, '/') : NULL;
	if (!slash)
		return NULL;
	for (size_t i = 0; i < ARRAY_SIZE(rel); i++) {
		struct sb b = {0};
		sb_addf(&b, "%.*s%s", (int)(slash - runtime), runtime, rel[i]);
		if (access(b.s, R_OK) == 0)
			return sb_detach(&b);
		sb_release(&b);
	}
	return NULL;
}
