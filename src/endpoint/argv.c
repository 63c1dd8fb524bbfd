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

	const char *runtime = endpoint_value(ep, "RUNTIME");
	if (!nonempty(runtime))
		return errorf(err, "%s: RUNTIME is empty", ep->path);
	path = endpoint_path(ep, "RUNTIME");
	add(a, path);
	free(path);

	path = endpoint_path(ep, "MODEL_FILE");
	if (!path) {
		argv_release(a);
		return errorf(err, "%s: MODEL_FILE is not set", ep->path);
	}
	add2(a, "--model", path);
	free(path);
	add2(a, "--alias", endpoint_value(ep, "ALIAS"));
	add2(a, "--host", endpoint_value(ep, "BIND_ADDR"));
	add2(a, "--port", endpoint_value(ep, "LISTEN_PORT"));

	if (!nonempty(endpoint_value(ep, "CTX_SIZE"))) {
		argv_release(a);
		return errorf(err, "%s: CTX_SIZE is not set: the pool must be explicit (law S01)", ep->path);
	}
	add2(a, "--ctx-size", endpoint_value(ep, "CTX_SIZE"));
	add2(a, "--parallel", endpoint_value(ep, "PARALLEL"));
	add2(a, "--fit", "off");
	if (endpoint_bool(ep, "KV_UNIFIED", &flag, err))
		goto fail;
	add(a, flag ? "--kv-unified" : "--no-kv-unified");
	add2(a, "--cache-type-k", endpoint_value(ep, "CACHE_TYPE_K"));
	add2(a, "--cache-type-v", endpoint_value(ep, "CACHE_TYPE_V"));
	add2(a, "--flash-attn", endpoint_value(ep, "FLASH_ATTN"));
	add2(a, "--batch-size", endpoint_value(ep, "BATCH_SIZE"));
	add2(a, "--ubatch-size", endpoint_value(ep, "UBATCH_SIZE"));
	add2(a, "--n-gpu-layers", endpoint_value(ep, "NGL"));
	/* placement: --rpc registers its devices as it is parsed, so it comes
	 * before an --override-tensor that names their buffers; the -ot
	 * patterns come before --n-cpu-moe's (the first match wins) */
	if (nonempty(endpoint_value(ep, "RPC")))
		add2(a, "--rpc", endpoint_value(ep, "RPC"));
	if (strcmp(endpoint_value(ep, "SPLIT_MODE"), "layer") != 0)
		add2(a, "--split-mode", endpoint_value(ep, "SPLIT_MODE"));
	if (nonempty(endpoint_value(ep, "TENSOR_SPLIT")))
		add2(a, "--tensor-split", endpoint_value(ep, "TENSOR_SPLIT"));
	if (nonempty(endpoint_value(ep, "OVERRIDE_TENSOR")))
		add2(a, "--override-tensor", endpoint_value(ep, "OVERRIDE_TENSOR"));
	if (strcmp(endpoint_value(ep, "N_CPU_MOE"), "0") != 0)
		add2(a, "--n-cpu-moe", endpoint_value(ep, "N_CPU_MOE"));
	if (endpoint_bool(ep, "KV_OFFLOAD", &flag, err))
		goto fail;
	if (!flag)
		add(a, "--no-kv-offload");
	if (endpoint_bool(ep, "REPACK", &flag, err))
		goto fail;
	if (!flag)
		add(a, "--no-repack");

	if (endpoint_bool(ep, "JINJA", &flag, err))
		goto fail;
	add(a, flag ? "--jinja" : "--no-jinja");
	if (nonempty(endpoint_value(ep, "REASONING")))
		add2(a, "--reasoning", endpoint_value(ep, "REASONING"));
	if (nonempty(endpoint_value(ep, "REASONING_FORMAT")))
		add2(a, "--reasoning-format", endpoint_value(ep, "REASONING_FORMAT"));
	if (endpoint_bool(ep, "METRICS", &flag, err))
		goto fail;
	if (flag)
		add(a, "--metrics");
	add2(a, "--log-verbosity", endpoint_value(ep, "VERBOSITY"));

	path = endpoint_path(ep, "MMPROJ_FILE");
	if (path) {
		add2(a, "--mmproj", path);
		free(path);
	}
	path = endpoint_path(ep, "LORA_FILE");
	if (path) {
		struct sb b = {0};
		sb_addf(&b, "%s:%s", path, endpoint_value(ep, "LORA_SCALE"));
		add2(a, "--lora-scaled", b.s);
		sb_release(&b);
		free(path);
	}
	if (nonempty(endpoint_value(ep, "PRESENCE_PENALTY")))
		add2(a, "--presence-penalty", endpoint_value(ep, "PRESENCE_PENALTY"));

	/* The speculative set moves as one unit (law S05). */
	const char *spec = endpoint_value(ep, "SPEC_TYPE");
	if (nonempty(spec) && strcmp(spec, "none") != 0) {
		add2(a, "--spec-type", spec);
		add2(a, "--spec-draft-n-max", endpoint_value(ep, "SPEC_DRAFT_N_MAX"));
		add2(a, "--spec-draft-n-min", endpoint_value(ep, "SPEC_DRAFT_N_MIN"));
		add2(a, "--spec-draft-p-min", endpoint_value(ep, "SPEC_DRAFT_P_MIN"));
		add2(a, "--spec-draft-type-k", endpoint_value(ep, "SPEC_DRAFT_TYPE_K"));
		add2(a, "--spec-draft-type-v", endpoint_value(ep, "SPEC_DRAFT_TYPE_V"));
	}
	path = endpoint_path(ep, "API_KEY_FILE");
	if (path) {
		add2(a, "--api-key-file", path);
		free(path);
	}
	add_words(a, endpoint_value(ep, "EXTRA_ARGS"));
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
