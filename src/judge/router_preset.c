#include "router_preset.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* Flags the router sets on every child (or strips): never in a section. */
static int router_flag(const char *f)
{
	static const char *const v[] = {"--host", "--port", "--alias", "--api-key-file", "--log-verbosity"};
	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		if (strcmp(f, v[i]) == 0)
			return 1;
	return 0;
}

/* A word that is a flag rather than a value: a dash and a letter. */
static int is_flag(const char *w)
{
	return w[0] == '-' && ((w[1] >= 'a' && w[1] <= 'z') || (w[1] >= 'A' && w[1] <= 'Z') || w[1] == '-');
}

void router_preset_section(const struct argv_list *a, struct sb *out)
{
	for (size_t i = 1; i < a->n; i++) {
		const char *f = a->v[i];
		if (!is_flag(f))
			continue; /* a stray value: argv_render gives none */
		const char *val = i + 1 < a->n && !is_flag(a->v[i + 1]) ? a->v[i + 1] : NULL;
		if (val)
			i++;
		if (router_flag(f))
			continue;
		/* the preset's key is the flag without its dashes; a bare flag
		 * (--no-kv-unified, --jinja) is "true", the engine reading a
		 * negated name as the flag off */
		sb_addf(out, "%s = %s\n", f + strspn(f, "-"), val ? val : "true");
	}
}

int router_preset_render(const struct router *r, struct sb *out, char **err)
{
	sb_addf(out, "version = 1\n");
	for (size_t i = 0; i < r->n; i++) {
		struct argv_list a;
		if (argv_render(r->m[i].ep, &a, err))
			return -1;
		sb_addf(out, "\n[%s]\n", r->m[i].name);
		router_preset_section(&a, out);
		argv_release(&a);
	}
	return 0;
}

char *router_preset_path(const struct endpoint *ep)
{
	const char *state = getenv("STATE_DIRECTORY");
	struct sb p = {0};
	/* StateDirectory= may list several, colon-separated: the first */
	if (state && *state)
		sb_addf(&p, "%.*s/%s.models.ini", (int)strcspn(state, ":"), state, ep->name);
	else {
		char abs[PATH_MAX];
		const char *dir = ep->dir && *ep->dir ? ep->dir : ".";
		sb_addf(&p, "%s/%s.models.ini", realpath(dir, abs) ? abs : dir, ep->name);
	}
	return p.s;
}

char *router_preset_unit_path(const struct endpoint *ep)
{
	return xstrf("%s/%s.models.ini", ROUTER_UNIT_STATE_DIR, ep->name);
}

static void add(struct argv_list *a, const char *s)
{
	a->v = xreallocarray(a->v, a->n + 2, sizeof(*a->v));
	a->v[a->n++] = xstrdup(s);
	a->v[a->n] = NULL;
}

static void add_key(struct argv_list *a, const struct endpoint *ep, enum key_id id)
{
	add(a, keys_at(id)->flag);
	add(a, endpoint_value(ep, id));
}

int router_argv_render(const struct endpoint *ep, const char *preset, struct argv_list *a, char **err)
{
	memset(a, 0, sizeof(*a));
	const char *runtime = endpoint_value(ep, K_RUNTIME);
	if (!runtime || !*runtime)
		return errorf(err, "%s: RUNTIME is empty", ep->path);
	char *path = endpoint_path(ep, K_RUNTIME);
	add(a, path);
	free(path);
	add_key(a, ep, K_BIND_ADDR);
	add_key(a, ep, K_LISTEN_PORT);
	add(a, "--models-preset");
	add(a, preset);
	add_key(a, ep, K_MODELS_MAX);
	add_key(a, ep, K_VERBOSITY);
	path = endpoint_path(ep, K_API_KEY_FILE);
	if (path) {
		add(a, keys_at(K_API_KEY_FILE)->flag);
		add(a, path);
		free(path);
	}
	return 0;
}
