#include "census.h"

#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "ggml_type.h"

static char *str_of(const struct gguf *g, const char *key)
{
	const struct gguf_kv *kv = gguf_find(g, key);
	if (!kv || kv->type != GGUF_STRING)
		return NULL;
	return xstrndup(kv->v.s.p, (size_t)kv->v.s.n);
}

static int type_cmp(const void *a, const void *b)
{
	const struct census_type *x = a, *y = b;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? 1 : -1;
	return x->type < y->type ? -1 : x->type > y->type;
}

static void histogram(const struct gguf *g, struct census *c)
{
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		size_t j;
		for (j = 0; j < c->n_types; j++)
			if (c->types[j].type == t->type)
				break;
		if (j == c->n_types) {
			c->types = xreallocarray(c->types, c->n_types + 1, sizeof(*c->types));
			const struct ggml_type_info *ti = ggml_type_get(t->type);
			c->types[j] = (struct census_type){t->type, ti ? ti->name : NULL, 0, 0};
			c->n_types++;
		}
		c->types[j].count++;
		c->types[j].bytes += t->bytes;
		c->weights_bytes += t->bytes;
		if (t->custom)
			c->custom_tensors++;
	}
	if (c->n_types > 1)
		qsort(c->types, c->n_types, sizeof(*c->types), type_cmp);
}

static void sampling(const struct gguf *g, struct census *c)
{
	static const char prefix[] = "general.sampling.";
	for (uint64_t i = 0; i < g->n_kv; i++) {
		const struct gguf_kv *kv = &g->kv[i];
		double v;
		if (strncmp(kv->key, prefix, sizeof(prefix) - 1) != 0 || gguf_kv_f64(kv, &v))
			continue;
		c->sampling = xreallocarray(c->sampling, c->n_sampling + 1, sizeof(*c->sampling));
		c->sampling[c->n_sampling++] = (struct census_kv){xstrdup(kv->key + sizeof(prefix) - 1), v};
	}
}

/* Key families the format and the stock tools define; anything else is a
 * vendor's, worth naming (a transform a stock loader ignores, S10). */
static int standard_family(const char *prefix, size_t n, const char *arch)
{
	static const char *const known[] = {"general", "tokenizer", "adapter", "clip", "split", "quantize", "mtmd"};
	for (size_t i = 0; i < ARRAY_SIZE(known); i++)
		if (strlen(known[i]) == n && memcmp(known[i], prefix, n) == 0)
			return 1;
	return arch && strlen(arch) == n && memcmp(arch, prefix, n) == 0;
}

static void families(const struct gguf *g, struct census *c, const char *arch)
{
	for (uint64_t i = 0; i < g->n_kv; i++) {
		const char *key = g->kv[i].key;
		const char *dot = strchr(key, '.');
		if (!dot)
			continue;
		/* name the family by its first two components (prism.hadamard) */
		const char *dot2 = strchr(dot + 1, '.');
		size_t first = (size_t)(dot - key);
		if (standard_family(key, first, arch))
			continue;
		size_t n = dot2 ? (size_t)(dot2 - key) : first;
		size_t j;
		for (j = 0; j < c->n_families; j++)
			if (strlen(c->families[j].prefix) == n && memcmp(c->families[j].prefix, key, n) == 0)
				break;
		if (j == c->n_families) {
			c->families = xreallocarray(c->families, c->n_families + 1, sizeof(*c->families));
			c->families[j] = (struct census_family){xstrndup(key, n), 0};
			c->n_families++;
		}
		c->families[j].keys++;
	}
}

static void adapter(const struct gguf *g, struct census *c)
{
	c->adapter_type = str_of(g, "adapter.type");
	char *gt = str_of(g, "general.type");
	c->is_adapter = c->adapter_type != NULL || (gt && strcmp(gt, "adapter") == 0);
	free(gt);
	if (!c->is_adapter)
		return;
	c->has_alpha = gguf_kv_f64(gguf_find(g, "adapter.lora.alpha"), &c->adapter_alpha) == 0;
	for (uint64_t i = 0; i < g->n_kv && !c->adapter_base; i++) {
		const struct gguf_kv *kv = &g->kv[i];
		size_t n = strlen(kv->key);
		if (kv->type == GGUF_STRING && ((n >= 9 && strcmp(kv->key + n - 9, "base_gguf") == 0) ||
						strcmp(kv->key, "general.base_model.0.name") == 0))
			c->adapter_base = xstrndup(kv->v.s.p, (size_t)kv->v.s.n);
	}
	for (uint64_t i = 0; i < g->n_tensors; i++)
		if (strncmp(g->tensors[i].name, "token_embd", 10) == 0)
			c->touches_token_embd = 1;
}

static void projector(const struct gguf *g, struct census *c, const char *arch)
{
	if (!arch || strcmp(arch, "clip") != 0)
		return;
	c->is_projector = 1;
	c->projector_type = str_of(g, "clip.projector_type");
	if (!c->projector_type)
		c->projector_type = str_of(g, "clip.vision.projector_type");
	gguf_kv_bool(gguf_find(g, "clip.has_vision_encoder"), &c->has_vision);
	gguf_kv_bool(gguf_find(g, "clip.has_audio_encoder"), &c->has_audio);
	gguf_kv_u64(gguf_find(g, "clip.vision.image_size"), &c->image_size);
	gguf_kv_u64(gguf_find(g, "clip.vision.patch_size"), &c->patch_size);
	gguf_kv_u64(gguf_find(g, "clip.vision.block_count"), &c->vision_blocks);
	gguf_kv_u64(gguf_find(g, "clip.vision.embedding_length"), &c->vision_embd);
	gguf_kv_u64(gguf_find(g, "clip.vision.projection_dim"), &c->projection_dim);
}

struct census *census_take(const struct gguf *g, char **err)
{
	struct census *c = xcalloc(1, sizeof(*c));
	char *arch = str_of(g, "general.architecture");
	c->n_tensors = g->n_tensors;
	histogram(g, c);
	sampling(g, c);
	adapter(g, c);
	projector(g, c, arch);
	families(g, c, arch);
	const struct gguf_kv *tpl = gguf_find(g, "tokenizer.chat_template");
	if (tpl && tpl->type == GGUF_STRING) {
		c->has_template = 1;
		template_scan(tpl->v.s.p, (size_t)tpl->v.s.n, &c->tpl);
	}
	if (!c->is_projector && !c->is_adapter) {
		c->model = model_from_gguf(g, err);
		if (!c->model) {
			free(arch);
			census_free(c);
			return NULL;
		}
	}
	free(arch);
	return c;
}

void census_free(struct census *c)
{
	if (!c)
		return;
	model_free(c->model);
	free(c->types);
	for (size_t i = 0; i < c->n_sampling; i++)
		free(c->sampling[i].key);
	free(c->sampling);
	template_facts_release(&c->tpl);
	free(c->adapter_type);
	free(c->adapter_base);
	free(c->projector_type);
	for (size_t i = 0; i < c->n_families; i++)
		free(c->families[i].prefix);
	free(c->families);
	free(c);
}
