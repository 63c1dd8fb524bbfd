#include "argv.h"

#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

static void add(struct argv_list *a, const char *s)
{
	a->v = xreallocarray(a->v, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void add2(struct argv_list *a, const char *flag, const char *value)
{
	add(a, flag);
	add(a, value);
}

/* A key's row flag and its value in force (keys.h: argv and the gate on
 * EXTRA_ARGS read the same row). */
static void value(struct argv_list *a, const struct endpoint *ep, enum key_id id)
{
	add2(a, keys_at(id)->flag, endpoint_value(ep, id));
}

/* Each key's flag and its value in force, in order. */
static void values(struct argv_list *a, const struct endpoint *ep, const enum key_id *ids, size_t n)
{
	for (size_t i = 0; i < n; i++)
		value(a, ep, ids[i]);
}

/* A boolean key's flag for its value: the row's flag when on, its
 * flag_off when off (either may be none). */
static void toggle(struct argv_list *a, enum key_id id, int on)
{
	const char *f = on ? keys_at(id)->flag : keys_at(id)->flag_off;
	if (f)
		add(a, f);
}

static int nonempty(const char *v)
{
	return v && *v;
}

/* A key's flag and its value, when the value is not empty. */
static void value_if_set(struct argv_list *a, const struct endpoint *ep, enum key_id id)
{
	if (nonempty(endpoint_value_of(ep, id)))
		value(a, ep, id);
}

/* A path key's flag and its path resolved (endpoint_path), when set;
 * whether it was. */
static int path_value(struct argv_list *a, const struct endpoint *ep, enum key_id id)
{
	char *path = endpoint_path_of(ep, id);
	if (!path)
		return 0;
	add2(a, keys_at(id)->flag, path);
	free(path);
	return 1;
}

/* A boolean key's toggle for its value in force; -1 when it is no boolean. */
static int bool_toggle(struct argv_list *a, const struct endpoint *ep, enum key_id id, char **err)
{
	int on;
	if (endpoint_bool_of(ep, id, &on, err))
		return -1;
	toggle(a, id, on);
	return 0;
}

static int bool_toggles(struct argv_list *a, const struct endpoint *ep, const enum key_id *ids, size_t n, char **err)
{
	for (size_t i = 0; i < n; i++)
		if (bool_toggle(a, ep, ids[i], err))
			return -1;
	return 0;
}

/* EXTRA_ARGS: its words, split on blanks, each one argument. */
static void add_words(struct argv_list *a, const char *extra)
{
	if (nonempty(extra)) {
		const char *p = extra;
		while (*p) {
			while (*p == ' ' || *p == '\t')
				p++;
			size_t n = strcspn(p, " \t");
			if (n) {
				char *w = xstrndup(p, n);
				add(a, w);
				free(w);
			}
			p += n;
		}
	}
}

int argv_render(const struct endpoint *ep, struct argv_list *a, char **err)
{
	memset(a, 0, sizeof(*a));
	char *path;

	const char *runtime = endpoint_value(ep, K_RUNTIME);
	if (!nonempty(runtime))
		return errorf(err, "%s: RUNTIME is empty", ep->path);
	path = endpoint_path(ep, K_RUNTIME);
	add(a, path);
	free(path);

	if (!path_value(a, ep, K_MODEL_FILE)) {
		argv_release(a);
		return errorf(err, "%s: MODEL_FILE is not set", ep->path);
	}
	value(a, ep, K_ALIAS);
	value(a, ep, K_BIND_ADDR);
	value(a, ep, K_LISTEN_PORT);

	if (!nonempty(endpoint_value(ep, K_CTX_SIZE))) {
		argv_release(a);
		return errorf(err, "%s: CTX_SIZE is not set: the pool must be explicit (law S01)", ep->path);
	}
	value(a, ep, K_CTX_SIZE);
	value(a, ep, K_PARALLEL);
	add2(a, "--fit", "off");
	if (bool_toggle(a, ep, K_KV_UNIFIED, err))
		goto fail;
	static const enum key_id cache_batch[] = {K_CACHE_TYPE_K, K_CACHE_TYPE_V, K_FLASH_ATTN,
						  K_BATCH_SIZE,	  K_UBATCH_SIZE,  K_NGL};
	values(a, ep, cache_batch, ARRAY_SIZE(cache_batch));
	/* placement: --rpc registers its devices as it is parsed, so it comes
	 * before an --override-tensor that names their buffers; the -ot
	 * patterns come before --n-cpu-moe's (the first match wins) */
	value_if_set(a, ep, K_RPC);
	if (strcmp(endpoint_value(ep, K_SPLIT_MODE), "layer") != 0)
		value(a, ep, K_SPLIT_MODE);
	value_if_set(a, ep, K_TENSOR_SPLIT);
	value_if_set(a, ep, K_OVERRIDE_TENSOR);
	if (strcmp(endpoint_value(ep, K_N_CPU_MOE), "0") != 0)
		value(a, ep, K_N_CPU_MOE);
	static const enum key_id offload_jinja[] = {K_KV_OFFLOAD, K_REPACK, K_JINJA};
	if (bool_toggles(a, ep, offload_jinja, ARRAY_SIZE(offload_jinja), err))
		goto fail;
	value_if_set(a, ep, K_REASONING);
	value_if_set(a, ep, K_REASONING_FORMAT);
	static const enum key_id served[] = {K_METRICS, K_EMBEDDINGS};
	if (bool_toggles(a, ep, served, ARRAY_SIZE(served), err))
		goto fail;
	value_if_set(a, ep, K_POOLING);
	value_if_set(a, ep, K_CACHE_RAM);
	value_if_set(a, ep, K_CTX_CHECKPOINTS);
	value(a, ep, K_VERBOSITY);

	path_value(a, ep, K_MMPROJ_FILE);
	path = endpoint_path(ep, K_LORA_FILE);
	if (path) {
		struct sb b = {0};
		sb_addf(&b, "%s:%s", path, endpoint_value(ep, K_LORA_SCALE));
		add2(a, keys_at(K_LORA_FILE)->flag, b.s);
		sb_release(&b);
		free(path);
	}
	value_if_set(a, ep, K_PRESENCE_PENALTY);

	/* The speculative set moves as one unit (law S05). */
	const char *spec = endpoint_value(ep, K_SPEC_TYPE);
	if (nonempty(spec) && strcmp(spec, "none") != 0) {
		add2(a, keys_at(K_SPEC_TYPE)->flag, spec);
		path_value(a, ep, K_SPEC_DRAFT_MODEL_FILE);
		static const enum key_id spec_set[] = {K_SPEC_DRAFT_N_MAX, K_SPEC_DRAFT_N_MIN, K_SPEC_DRAFT_P_MIN,
						       K_SPEC_DRAFT_TYPE_K, K_SPEC_DRAFT_TYPE_V};
		values(a, ep, spec_set, ARRAY_SIZE(spec_set));
	}
	path_value(a, ep, K_API_KEY_FILE);
	/* a flag a key owns stays that key's (law C09): never from EXTRA_ARGS */
	struct endpoint_gate g;
	if (endpoint_gated_extra(ep, &g, 1)) {
		argv_release(a);
		return errorf(err, "%s: EXTRA_ARGS names %s, a flag %s owns (law C09)", ep->path, g.word,
			      g.owner->name);
	}
	add_words(a, endpoint_value(ep, K_EXTRA_ARGS));
	return 0;
fail:
	argv_release(a);
	return -1;
}

void argv_release(struct argv_list *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->v[i]);
	free(a->v);
	memset(a, 0, sizeof(*a));
}
