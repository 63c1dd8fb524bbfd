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
	int flag;
	char *path;

	const char *runtime = endpoint_value(ep, K_RUNTIME);
	if (!nonempty(runtime))
		return errorf(err, "%s: RUNTIME is empty", ep->path);
	path = endpoint_path(ep, K_RUNTIME);
	add(a, path);
	free(path);

	path = endpoint_path(ep, K_MODEL_FILE);
	if (!path) {
		argv_release(a);
		return errorf(err, "%s: MODEL_FILE is not set", ep->path);
	}
	add2(a, keys_at(K_MODEL_FILE)->flag, path);
	free(path);
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
	if (endpoint_bool(ep, K_KV_UNIFIED, &flag, err))
		goto fail;
	toggle(a, K_KV_UNIFIED, flag);
	value(a, ep, K_CACHE_TYPE_K);
	value(a, ep, K_CACHE_TYPE_V);
	value(a, ep, K_FLASH_ATTN);
	value(a, ep, K_BATCH_SIZE);
	value(a, ep, K_UBATCH_SIZE);
	value(a, ep, K_NGL);
	/* placement: --rpc registers its devices as it is parsed, so it comes
	 * before an --override-tensor that names their buffers; the -ot
	 * patterns come before --n-cpu-moe's (the first match wins) */
	if (nonempty(endpoint_value(ep, K_RPC)))
		value(a, ep, K_RPC);
	if (strcmp(endpoint_value(ep, K_SPLIT_MODE), "layer") != 0)
		value(a, ep, K_SPLIT_MODE);
	if (nonempty(endpoint_value(ep, K_TENSOR_SPLIT)))
		value(a, ep, K_TENSOR_SPLIT);
	if (nonempty(endpoint_value(ep, K_OVERRIDE_TENSOR)))
		value(a, ep, K_OVERRIDE_TENSOR);
	if (strcmp(endpoint_value(ep, K_N_CPU_MOE), "0") != 0)
		value(a, ep, K_N_CPU_MOE);
	if (endpoint_bool(ep, K_KV_OFFLOAD, &flag, err))
		goto fail;
	toggle(a, K_KV_OFFLOAD, flag);
	if (endpoint_bool(ep, K_REPACK, &flag, err))
		goto fail;
	toggle(a, K_REPACK, flag);

	if (endpoint_bool(ep, K_JINJA, &flag, err))
		goto fail;
	toggle(a, K_JINJA, flag);
	if (nonempty(endpoint_value(ep, K_REASONING)))
		value(a, ep, K_REASONING);
	if (nonempty(endpoint_value(ep, K_REASONING_FORMAT)))
		value(a, ep, K_REASONING_FORMAT);
	if (endpoint_bool(ep, K_METRICS, &flag, err))
		goto fail;
	toggle(a, K_METRICS, flag);
	value(a, ep, K_VERBOSITY);

	path = endpoint_path(ep, K_MMPROJ_FILE);
	if (path) {
		add2(a, keys_at(K_MMPROJ_FILE)->flag, path);
		free(path);
	}
	path = endpoint_path(ep, K_LORA_FILE);
	if (path) {
		struct sb b = {0};
		sb_addf(&b, "%s:%s", path, endpoint_value(ep, K_LORA_SCALE));
		add2(a, keys_at(K_LORA_FILE)->flag, b.s);
		sb_release(&b);
		free(path);
	}
	if (nonempty(endpoint_value(ep, K_PRESENCE_PENALTY)))
		value(a, ep, K_PRESENCE_PENALTY);

	/* The speculative set moves as one unit (law S05). */
	const char *spec = endpoint_value(ep, K_SPEC_TYPE);
	if (nonempty(spec) && strcmp(spec, "none") != 0) {
		add2(a, keys_at(K_SPEC_TYPE)->flag, spec);
		value(a, ep, K_SPEC_DRAFT_N_MAX);
		value(a, ep, K_SPEC_DRAFT_N_MIN);
		value(a, ep, K_SPEC_DRAFT_P_MIN);
		value(a, ep, K_SPEC_DRAFT_TYPE_K);
		value(a, ep, K_SPEC_DRAFT_TYPE_V);
	}
	path = endpoint_path(ep, K_API_KEY_FILE);
	if (path) {
		add2(a, keys_at(K_API_KEY_FILE)->flag, path);
		free(path);
	}
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
