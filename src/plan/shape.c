#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/util.h"
#include "../payload/payload.h"

static const char *const cache_types[] = {"f32", "f16", "bf16", "q8_0", "q4_0", "q4_1", "iq4_nl", "q5_0", "q5_1"};

const struct ggml_type_info *shape_cache_type(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(cache_types); i++)
		if (strcmp(name, cache_types[i]) == 0)
			return ggml_type_by_name(name);
	return NULL;
}

const char *shape_cache_types(void)
{
	return "f32, f16, bf16, q8_0, q4_0, q4_1, iq4_nl, q5_0, q5_1";
}

static int cache_key(const struct endpoint *ep, const char *key, const struct ggml_type_info **out, char **err)
{
	const char *v = endpoint_value(ep, key);
	*out = v ? shape_cache_type(v) : NULL;
	if (!*out) {
		char *w = endpoint_where(ep, key);
		errorf(err,
		       "%s: '%s' is not a KV cache type the engine accepts (%s; there is no fp8: q8_0 is the 8-bit "
		       "class, law S04)",
		       w, v ? v : "", shape_cache_types());
		free(w);
		return -1;
	}
	return 0;
}

static int u32_key(const struct endpoint *ep, const char *key, uint32_t *out, char **err)
{
	uint64_t v;
	if (endpoint_uint(ep, key, &v, err))
		return -1;
	if (v > UINT32_MAX) {
		char *w = endpoint_where(ep, key);
		errorf(err, "%s: %llu is out of range", w, (unsigned long long)v);
		free(w);
		return -1;
	}
	*out = (uint32_t)v;
	return 0;
}

/* A payload's header: the file when it is there; when it is not and the
 * endpoint names a *_URL, the URL's header through range requests (the
 * same reader: a 20 GB payload is priced before it is downloaded). A split
 * payload's every shard is read and merged. */
static struct gguf_file *open_payload(const struct endpoint *ep, struct shape_ctx *c, const char *path, const char *key,
				      int *io, char **err)
{
	char *e = NULL;
	char ukey[32];
	snprintf(ukey, sizeof(ukey), "%.*s_URL", (int)(strlen(key) - 5), key);
	const char *url = endpoint_value(ep, ukey);
	struct stat st;
	struct gguf_file *f = NULL;
	if (url && *url && remote_is_url(url) && stat(path, &st) != 0) {
		char *tf = endpoint_path(ep, "TOKEN_FILE"), *token = NULL;
		if (remote_token(tf, &token, &e) == 0)
			f = payload_open(url, &(struct remote_opts){.token = token}, &c->remote, &e);
		if (token) {
			memset(token, 0, strlen(token));
			free(token);
		}
		free(tf);
		c->remote_reads++;
		if (!f)
			errorf(err, "%s: '%s' is not there and %s: %s", key, path, ukey, e);
	} else {
		f = payload_open(path, NULL, NULL, &e);
		if (!f)
			errorf(err, "%s: %s", key, e);
	}
	if (!f)
		*io = 1;
	free(e);
	return f;
}

/* A CUDA runtime's build flags (law S14): its CMakeCache.txt when
 * readable (beside RUNTIME's build/bin), else CUDA_FA_QUANTS and
 * CUDA_FA_SCRATCH, else the pinned engine's defaults. */
static int cuda_flags(const struct endpoint *ep, struct cuda_build *b, char **err)
{
	memset(b, 0, sizeof(*b));
	int scratch = 1;
	if (endpoint_bool(ep, "CUDA_FA_SCRATCH", &scratch, err))
		return -1;
	b->no_scratch = !scratch;
	const char *q = endpoint_value(ep, "CUDA_FA_QUANTS");
	if (q && *q) {
		if (cuda_build_set_pairs(b, q)) {
			char *w = endpoint_where(ep, "CUDA_FA_QUANTS");
			errorf(err, "%s: '%s' is not 'all' or a list of K-V cache type pairs (f16-q8_0;q8_0-q8_0)", w,
			       q);
			free(w);
			return -1;
		}
		snprintf(b->source, sizeof(b->source), "CUDA_FA_QUANTS=%s", q);
	}
	const char *rt = endpoint_value(ep, "RUNTIME");
	char *path = rt && strchr(rt, '/') ? endpoint_path(ep, "RUNTIME") : NULL;
	char *cache = path ? cuda_cmake_cache_of(path) : NULL;
	if (cache)
		cuda_build_from_cmake(cache, b);
	free(cache);
	free(path);
	return 0;
}

int shape_load(const struct endpoint *ep, const char *device_override, struct shape_ctx *c, int *io, char **err)
{
	memset(c, 0, sizeof(*c));
	*io = 0;
	struct plan_shape *s = &c->shape;
	const char *dev = device_override ? device_override : endpoint_value(ep, "DEVICE");
	c->dev = device_find(dev ? dev : "");
	if (!c->dev)
		return errorf(err, "%s: DEVICE '%s' is not a known profile (zealot plan --help lists them)", ep->path,
			      dev ? dev : "");
	if (!endpoint_value(ep, "CTX_SIZE"))
		return errorf(err, "%s: CTX_SIZE is not set: the pool must be explicit (law S01)", ep->path);
	if (endpoint_uint(ep, "CTX_SIZE", &s->ctx_size, err) || u32_key(ep, "PARALLEL", &s->parallel, err) ||
	    endpoint_bool(ep, "KV_UNIFIED", &s->kv_unified, err) || endpoint_bool(ep, "REPACK", &s->repack, err) ||
	    cache_key(ep, "CACHE_TYPE_K", &s->type_k, err) || cache_key(ep, "CACHE_TYPE_V", &s->type_v, err) ||
	    u32_key(ep, "BATCH_SIZE", &s->n_batch, err) || u32_key(ep, "UBATCH_SIZE", &s->n_ubatch, err) ||
	    u32_key(ep, "NGL", &s->ngl, err) || u32_key(ep, "SPEC_DRAFT_N_MAX", &s->spec_n_max, err) ||
	    cache_key(ep, "SPEC_DRAFT_TYPE_K", &s->draft_k, err) ||
	    cache_key(ep, "SPEC_DRAFT_TYPE_V", &s->draft_v, err))
		return -1;
	if (cuda_flags(ep, &s->cuda, err))
		return -1;
	const char *cpu = endpoint_value(ep, "CPU_FEATURES");
	if (cpu && *cpu) {
		char *e = NULL;
		if (cpu_features_parse(cpu, "CPU_FEATURES", &s->cpu, &e)) {
			char *w = endpoint_where(ep, "CPU_FEATURES");
			errorf(err, "%s: %s", w, e);
			free(w);
			free(e);
			return -1;
		}
	} else {
		cpu_features_host(&s->cpu);
	}
	/* placement (place.h): checked by place_make when the plan is made */
	if (u32_key(ep, "N_CPU_MOE", &s->place.n_cpu_moe, err) ||
	    endpoint_bool(ep, "KV_OFFLOAD", &s->place.kv_offload, err))
		return -1;
	s->place.override_tensor = endpoint_value(ep, "OVERRIDE_TENSOR");
	s->place.tensor_split = endpoint_value(ep, "TENSOR_SPLIT");
	s->place.split_mode = endpoint_value(ep, "SPLIT_MODE");
	s->place.rpc = endpoint_value(ep, "RPC");
	s->place.devices = endpoint_value(ep, "DEVICES");
	s->place.ngl = s->ngl;
	if (s->place.devices && *s->place.devices && c->dev->backend != DEVICE_CPU)
		return errorf(err, "%s: DEVICES lists every device: leave DEVICE at cpu (it is %s)", ep->path,
			      c->dev->name);

	const char *fa = endpoint_value(ep, "FLASH_ATTN");
	s->flash_attn = !fa || strcmp(fa, "off") != 0;
	const char *spec = endpoint_value(ep, "SPEC_TYPE");
	s->spec_mtp = spec && strstr(spec, "draft-mtp") != NULL;
	/* The engine clamps: n_batch <= n_ctx, n_ubatch <= n_batch. */
	c->n_batch_asked = s->n_batch;
	if (s->n_batch > s->ctx_size)
		s->n_batch = (uint32_t)s->ctx_size;
	if (s->n_ubatch > s->n_batch)
		s->n_ubatch = s->n_batch;

	uint64_t v;
	c->extras.slack_mib = 1024;
	if (endpoint_uint(ep, "SLACK_MIB", &v, err))
		return -1;
	c->extras.slack_mib = v;
	if (endpoint_value(ep, "ADDRESSABLE_MIB") && !endpoint_is_empty(ep, "ADDRESSABLE_MIB")) {
		if (endpoint_uint(ep, "ADDRESSABLE_MIB", &v, err))
			return -1;
		c->extras.addressable_mib = v;
	}

	c->model_path = endpoint_path(ep, "MODEL_FILE");
	if (!c->model_path)
		return errorf(err, "%s: MODEL_FILE is not set", ep->path);
	c->model = open_payload(ep, c, c->model_path, "MODEL_FILE", io, err);
	if (!c->model)
		return -1;
	c->census = census_take(c->model->g, err);
	if (!c->census) {
		*io = 1;
		return -1;
	}
	if (!c->census->model)
		return errorf(err, "MODEL_FILE '%s' is not a model payload (an adapter or projector?)", c->model_path);
	c->projector_path = endpoint_path(ep, "MMPROJ_FILE");
	if (c->projector_path) {
		c->projector = open_payload(ep, c, c->projector_path, "MMPROJ_FILE", io, err);
		if (!c->projector)
			return -1;
		c->extras.projector = c->projector->g;
	}
	c->lora_path = endpoint_path(ep, "LORA_FILE");
	if (c->lora_path) {
		c->lora = open_payload(ep, c, c->lora_path, "LORA_FILE", io, err);
		if (!c->lora)
			return -1;
		c->extras.lora = c->lora->g;
	}
	return 0;
}

void shape_release(struct shape_ctx *c)
{
	census_free(c->census);
	gguf_close(c->model);
	gguf_close(c->projector);
	gguf_close(c->lora);
	free(c->model_path);
	free(c->projector_path);
	free(c->lora_path);
	memset(c, 0, sizeof(*c));
}
