#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/util.h"
#include "../endpoint/url.h"
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

int shape_set(struct plan_shape *s, struct plan_extras *x, enum key_id id, const char *v, char **err)
{
	const struct key_def *k = keys_at(id);
	uint64_t u = 0;
	int on = 0;
	unsigned e = 0;
	const struct ggml_type_info *t = NULL;
	if (!k || k->target == KEY_T_NONE)
		return errorf(err, "%s: not a key of the priced shape", k ? k->name : "?");
	if (!*v && !k->optout)
		return errorf(err, "%s is empty, and empty is no opt-out for this key (law C02)", k->name);
	if (*v) {
		switch (k->kind) {
		case KEY_UINT:
			if (key_parse_uint(k, v, &u, err))
				return -1;
			break;
		case KEY_BOOL:
			if (key_parse_bool(k, v, &on, err))
				return -1;
			break;
		case KEY_ENUM:
			if (key_parse_enum(k, v, &e, err))
				return -1;
			break;
		case KEY_TYPE:
			t = shape_cache_type(v);
			if (!t)
				return errorf(
				    err,
				    "%s=%s is not a KV cache type the engine accepts (%s; there is no fp8: q8_0 "
				    "is the 8-bit class, law S04)",
				    k->name, v, shape_cache_types());
			break;
		default: break;
		}
	}
	/* every range is within its field: the table's max for a uint32_t
	 * field is INT32_MAX (the engine's int) */
	switch (id) {
	case K_CTX_SIZE: s->ctx_size = u; break;
	case K_PARALLEL: s->parallel = (uint32_t)u; break;
	case K_KV_UNIFIED: s->kv_unified = on; break;
	case K_CACHE_TYPE_K: s->type_k = t; break;
	case K_CACHE_TYPE_V: s->type_v = t; break;
	case K_FLASH_ATTN: s->flash_attn = strcmp(v, "off") != 0; break;
	case K_BATCH_SIZE: s->n_batch = (uint32_t)u; break;
	case K_UBATCH_SIZE: s->n_ubatch = (uint32_t)u; break;
	case K_REPACK: s->repack = on; break;
	case K_EMBEDDINGS: s->embeddings = on; break;
	case K_POOLING: s->pooling = *v ? (int)e + 1 : 0; break;
	case K_NGL: s->ngl = s->place.ngl = (uint32_t)u; break;
	case K_N_CPU_MOE: s->place.n_cpu_moe = (uint32_t)u; break;
	case K_KV_OFFLOAD: s->place.kv_offload = on; break;
	case K_SPEC_TYPE:
		s->spec_mtp = strstr(v, "draft-mtp") != NULL;
		s->spec_model = strstr(v, "draft-simple") != NULL;
		s->spec_hidden = strstr(v, "draft-eagle3") || strstr(v, "draft-dflash");
		break;
	case K_SPEC_DRAFT_N_MAX: s->spec_n_max = (uint32_t)u; break;
	case K_SPEC_DRAFT_TYPE_K: s->draft_k = t; break;
	case K_SPEC_DRAFT_TYPE_V: s->draft_v = t; break;
	case K_SLACK_MIB: x->slack_mib = u; break;
	case K_ADDRESSABLE_MIB: x->addressable_mib = u; break; /* empty: the profile's */
	case K_MMPROJ_FILE:
	case K_LORA_FILE:
		/* a candidate drops a payload; it never names another file */
		if (*v)
			return errorf(err, "%s: only the opt-out (empty) is a candidate, not another file", k->name);
		if (id == K_MMPROJ_FILE)
			x->projector = NULL;
		else
			x->lora = NULL;
		break;
	default: return errorf(err, "%s: not a key of the priced shape", k->name);
	}
	(void)e;
	return 0;
}

void shape_clamp(struct plan_shape *s, uint64_t batch, uint64_t ubatch)
{
	s->n_batch = (uint32_t)(batch > s->ctx_size ? s->ctx_size : batch);
	s->n_ubatch = (uint32_t)(ubatch > s->n_batch ? s->n_batch : ubatch);
	/* llama-server with embeddings sets n_batch = n_ubatch (an embedding
	 * is computed within one ubatch) */
	if (s->embeddings)
		s->n_batch = s->n_ubatch;
}

int shape_read(const struct endpoint *ep, struct plan_shape *s, struct plan_extras *x, struct cand_limits *l,
	       char **err)
{
	memset(s, 0, sizeof(*s));
	memset(x, 0, sizeof(*x));
	memset(l, 0, sizeof(*l));
	if (!endpoint_value(ep, K_CTX_SIZE))
		return errorf(err, "%s: CTX_SIZE is not set: the pool must be explicit (law S01)", ep->path);
	for (size_t i = 0; i < keys_count(); i++) {
		const struct key_def *k = keys_at(i);
		/* the payloads are opened by shape_load, not set here */
		if (k->target == KEY_T_NONE || k->id == K_MMPROJ_FILE || k->id == K_LORA_FILE)
			continue;
		const char *v = endpoint_value(ep, k->id);
		if (!v)
			continue;
		char *e = NULL;
		if (shape_set(s, x, k->id, v, &e)) {
			const struct endpoint_entry *en = endpoint_entry(ep, k->id);
			if (en->line > 0)
				errorf(err, "%s:%d: %s", ep->path, en->line, e);
			else
				errorf(err, "%s%s%s", en->line < 0 ? "--set " : ep->path, en->line < 0 ? "" : ": ", e);
			free(e);
			return -1;
		}
	}
	const char *df = endpoint_value(ep, K_SPEC_DRAFT_MODEL_FILE);
	s->spec_assist = s->spec_mtp && df && *df;
	l->batch_asked = s->n_batch;
	l->ubatch_asked = s->n_ubatch;
	const char *fa = endpoint_value(ep, K_FLASH_ATTN);
	l->fa_on = fa && strcmp(fa, "on") == 0;
	l->window_cap = UINT64_MAX;
	shape_clamp(s, l->batch_asked, l->ubatch_asked);
	return 0;
}

/* A payload's header: the file when it is there; when it is not and the
 * endpoint names a *_URL, the URL's header through range requests (the
 * same reader: a 20 GB payload is priced before it is downloaded). A split
 * payload's every shard is read and merged. */
static struct gguf_file *open_payload(const struct endpoint *ep, struct shape_ctx *c, const char *path, enum key_id id,
				      int *io, char **err)
{
	char *e = NULL;
	/* a file key with no URL twin (SPEC_DRAFT_MODEL_FILE) names itself */
	const char *key = key_name(id), *ukey = key_url_of(id) < K__COUNT ? key_name(key_url_of(id)) : key;
	char *url = NULL;
	struct stat st;
	struct gguf_file *f = NULL;
	/* *_URL or *_URL_FILE (endpoint_url), read only when the file is not there */
	int gone = stat(path, &st) != 0;
	if (gone && endpoint_has_url(ep, id) && endpoint_url(ep, id, &url, &e)) {
		errorf(err, "%s: '%s' is not there and %s", key, path, e);
		free(e);
		*io = 1;
		return NULL;
	}
	if (endpoint_url_file_key(id) < K__COUNT && endpoint_value(ep, endpoint_url_file_key(id)) &&
	    *endpoint_value(ep, endpoint_url_file_key(id)))
		ukey = key_name(endpoint_url_file_key(id));
	if (url && remote_is_url(url) && gone) {
		char *tf = endpoint_path(ep, K_TOKEN_FILE), *token = NULL;
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
	if (url)
		memset(url, 0, strlen(url)); /* it may hold a password */
	free(url);
	return f;
}

/* An optional payload beside the model (key: MMPROJ_FILE, LORA_FILE):
 * its path, its file and its header for the extras, when the endpoint
 * names one. */
static int open_extra(const struct endpoint *ep, struct shape_ctx *c, enum key_id key, char **path,
		      struct gguf_file **f, const struct gguf **extra, int *io, char **err)
{
	*path = endpoint_path(ep, key);
	if (!*path)
		return 0;
	*f = open_payload(ep, c, *path, key, io, err);
	if (!*f)
		return -1;
	*extra = (*f)->g;
	return 0;
}

/* The census of a model payload (key: MODEL_FILE, SPEC_DRAFT_MODEL_FILE)
 * at path, which must be a model. */
static int model_census(const struct gguf *g, const char *path, enum key_id key, struct census **out, int *io,
			char **err)
{
	char *e = NULL;
	*out = census_take(g, &e);
	if (!*out) {
		*io = 1;
		errorf(err, "%s: %s", path, e);
		free(e);
		return -1;
	}
	if (!(*out)->model)
		return errorf(err, "%s '%s' is not a model payload (an adapter or projector?)", key_name(key), path);
	return 0;
}

/* The drafter model (SPEC_DRAFT_MODEL_FILE) when the endpoint names one:
 * its header and geometry for the extras. */
static int open_drafter(const struct endpoint *ep, struct shape_ctx *c, int *io, char **err)
{
	const struct gguf *g = NULL;
	if (open_extra(ep, c, K_SPEC_DRAFT_MODEL_FILE, &c->draft_path, &c->draft, &g, io, err))
		return -1;
	if (!g)
		return 0;
	if (model_census(g, c->draft_path, K_SPEC_DRAFT_MODEL_FILE, &c->draft_census, io, err))
		return -1;
	c->extras.draft_m = c->draft_census->model;
	c->extras.draft_g = g;
	return 0;
}

/* A CUDA runtime's build flags (law S14): its CMakeCache.txt when
 * readable (beside RUNTIME's build/bin), else CUDA_FA_QUANTS and
 * CUDA_FA_SCRATCH, else the pinned engine's defaults. */
static int cuda_flags(const struct endpoint *ep, struct cuda_build *b, char **err)
{
	memset(b, 0, sizeof(*b));
	int scratch = 1;
	if (endpoint_bool(ep, K_CUDA_FA_SCRATCH, &scratch, err))
		return -1;
	b->no_scratch = !scratch;
	const char *q = endpoint_value(ep, K_CUDA_FA_QUANTS);
	if (q && *q) {
		if (cuda_build_set_pairs(b, q)) {
			char *w = endpoint_where(ep, K_CUDA_FA_QUANTS);
			errorf(err, "%s: '%s' is not 'all' or a list of K-V cache type pairs (f16-q8_0;q8_0-q8_0)", w,
			       q);
			free(w);
			return -1;
		}
		snprintf(b->source, sizeof(b->source), "CUDA_FA_QUANTS=%s", q);
	}
	const char *rt = endpoint_value(ep, K_RUNTIME);
	char *path = rt && strchr(rt, '/') ? endpoint_path(ep, K_RUNTIME) : NULL;
	char *cache = path ? cuda_cmake_cache_of(path) : NULL;
	if (cache)
		cuda_build_from_cmake(cache, b);
	free(cache);
	free(path);
	return 0;
}

uint64_t shape_window_cap(const struct endpoint *ep, const struct model *m)
{
	const char *extra = endpoint_value(ep, K_EXTRA_ARGS);
	int rope = m->rope_scaling || (extra && (strstr(extra, "--rope-scaling") || strstr(extra, "--yarn-orig-ctx")));
	return rope ? UINT64_MAX : m->n_ctx_train;
}

static int load(const struct endpoint *ep, const char *device_override, struct shape_ctx *c, int *io, char **err)
{
	memset(c, 0, sizeof(*c));
	*io = 0;
	struct plan_shape *s = &c->shape;
	const char *dev = device_override ? device_override : endpoint_value(ep, K_DEVICE);
	c->dev = device_find(dev ? dev : "");
	if (!c->dev) {
		/* the flag that gave it, else the file's line or --set */
		char hint[320], *w = device_override ? NULL : endpoint_where(ep, K_DEVICE);
		errorf(err, "%s: '%s' is not a known profile: %s", w ? w : "--device", dev ? dev : "",
		       device_unknown_hint(dev ? dev : "", hint, sizeof(hint)));
		free(w);
		return -1;
	}
	struct cand_limits l;
	if (shape_read(ep, s, &c->extras, &l, err))
		return -1;
	if (cuda_flags(ep, &s->cuda, err))
		return -1;
	const char *cpu = endpoint_value(ep, K_CPU_FEATURES);
	if (cpu && *cpu) {
		char *e = NULL;
		if (cpu_features_parse(cpu, key_name(K_CPU_FEATURES), &s->cpu, &e)) {
			char *w = endpoint_where(ep, K_CPU_FEATURES);
			errorf(err, "%s: %s", w, e);
			free(w);
			free(e);
			return -1;
		}
	} else {
		cpu_features_host(&s->cpu);
	}
	/* placement (place.h): checked by place_make when the plan is made */
	s->place.override_tensor = endpoint_value(ep, K_OVERRIDE_TENSOR);
	s->place.tensor_split = endpoint_value(ep, K_TENSOR_SPLIT);
	s->place.split_mode = endpoint_value(ep, K_SPLIT_MODE);
	s->place.rpc = endpoint_value(ep, K_RPC);
	s->place.devices = endpoint_value(ep, K_DEVICES);
	if (s->place.devices && *s->place.devices && c->dev->backend != DEVICE_CPU)
		return errorf(err, "%s: DEVICES lists every device: leave DEVICE at cpu (it is %s)", ep->path,
			      c->dev->name);

	c->n_batch_asked = l.batch_asked;

	c->model_path = endpoint_path(ep, K_MODEL_FILE);
	if (!c->model_path)
		return errorf(err, "%s: MODEL_FILE is not set", ep->path);
	c->model = open_payload(ep, c, c->model_path, K_MODEL_FILE, io, err);
	if (!c->model)
		return -1;
	if (model_census(c->model->g, c->model_path, K_MODEL_FILE, &c->census, io, err))
		return -1;
	if (open_extra(ep, c, K_MMPROJ_FILE, &c->projector_path, &c->projector, &c->extras.projector, io, err) ||
	    open_extra(ep, c, K_LORA_FILE, &c->lora_path, &c->lora, &c->extras.lora, io, err))
		return -1;
	if (open_drafter(ep, c, io, err))
		return -1;
	l.window_cap = shape_window_cap(ep, c->census->model);
	c->n_breach = shape_laws(c->census->model, s, &l, SHAPE_LAWS_ALL, &c->breach, 1);
	return 0;
}

enum zerr shape_load(const struct endpoint *ep, const char *device_override, struct shape_ctx *c, int *io, char **err)
{
	int unread = 0, r = load(ep, device_override, c, &unread, err);
	if (io)
		*io = unread;
	return r == 0 ? ZE_OK : unread ? ZE_IO : ZE_USAGE;
}

void shape_release(struct shape_ctx *c)
{
	census_free(c->census);
	census_free(c->draft_census);
	gguf_close(c->draft);
	free(c->draft_path);
	gguf_close(c->model);
	gguf_close(c->projector);
	gguf_close(c->lora);
	free(c->model_path);
	free(c->projector_path);
	free(c->lora_path);
	memset(c, 0, sizeof(*c));
}
