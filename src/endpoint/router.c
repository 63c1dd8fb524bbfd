#include "router.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

int router_is(const struct endpoint *ep)
{
	const char *v = endpoint_value(ep, K_MODELS);
	return v && *v;
}

/* The keys only the router sets: the process (runtime, address, key,
 * user), the set (MODELS, MODELS_MAX), the log level it passes to every
 * child (its own command line overrides every preset), and the host and
 * its memory every member is priced on. */
static const enum key_id router_only[] = {
    K_RUNTIME,	      K_RUNTIME_SHA256,	 K_RUNTIME_MIN_BUILD, K_BIND_ADDR, K_LISTEN_PORT, K_API_KEY_FILE,
    K_USER,	      K_MODELS,		 K_MODELS_MAX,	      K_ALIAS,	   K_VERBOSITY,	  K_DEVICE,
    K_CUDA_FA_QUANTS, K_CUDA_FA_SCRATCH, K_ADDRESSABLE_MIB,   K_SLACK_MIB, K_HOST,	  K_GPU,
    K_CPU_FEATURES,   K_HOST_BW_GBS,
};

/* Of those, what the router keeps for itself; a member's child inherits
 * every other, laid over its file, so its plan is priced where the router
 * runs. */
static const enum key_id router_own[] = {K_BIND_ADDR, K_LISTEN_PORT, K_API_KEY_FILE, K_MODELS, K_MODELS_MAX, K_ALIAS};

static int inherited(enum key_id id)
{
	for (size_t i = 0; i < ARRAY_SIZE(router_own); i++)
		if (router_own[i] == id)
			return 0;
	return 1;
}

enum router_side router_side_of(enum key_id id)
{
	for (size_t i = 0; i < ARRAY_SIZE(router_only); i++)
		if (router_only[i] == id)
			return ROUTER_ONLY;
	const struct key_def *k = keys_at(id);
	/* a model's payload (and its pins), its shape and every flag its
	 * child renders: the router's command line would override them all */
	if (k->flag || k->target != KEY_T_NONE || id == K_EXTRA_ARGS || id == K_CTX_SIZE ||
	    (id >= K_MODEL_FILE && id <= K_LORA_URL))
		return MEMBER_ONLY;
	return ROUTER_BOTH;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.env files of dir, sorted, into *out; -1 with *err. */
static int list_env(const char *dir, char ***out, size_t *n, enum zerr *kind, char **err)
{
	char **v = NULL;
	*n = 0;
	*out = NULL;
	DIR *d = opendir(dir);
	if (!d) {
		zerr_set(kind, zerr_of_errno(errno));
		return errorf(err, "MODELS=%s: %s", dir, strerror(errno));
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (e->d_name[0] == '.' || len <= 4 || strcmp(e->d_name + len - 4, ".env") != 0)
			continue;
		v = xreallocarray(v, *n + 1, sizeof(*v));
		v[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), by_name);
	*out = v;
	return 0;
}

/* Lay the router's inherited keys over a member, and the two the router
 * gives every child (its address, its alias: the member's name). */
static int overlay(const struct endpoint *ep, struct router_member *m, char **err)
{
	struct sb kv = {0};
	int bad = 0;
	for (size_t i = 0; !bad && i < ARRAY_SIZE(router_only); i++) {
		const struct endpoint_entry *e = endpoint_entry(ep, router_only[i]);
		if (!inherited(router_only[i]) || !e->value)
			continue;
		kv.len = 0;
		sb_addf(&kv, "%s=%s", key_name(router_only[i]), e->value);
		bad = endpoint_set(m->ep, kv.s, err);
	}
	kv.len = 0;
	sb_addf(&kv, "ALIAS=%s", m->name);
	if (!bad)
		bad = endpoint_set(m->ep, kv.s, err) || endpoint_set(m->ep, "BIND_ADDR=127.0.0.1", err);
	sb_release(&kv);
	return bad;
}

/* A name the preset's section, the model id and a llama-swap key all take
 * as written: letters, digits, '-', '_' and '.'. */
static int plain_name(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++)
		if (!(*s == '-' || *s == '_' || *s == '.' || (*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') ||
		      (*s >= 'A' && *s <= 'Z')))
			return 0;
	return 1;
}

static int load_member(const struct endpoint *ep, struct router *r, const char *file, enum zerr *kind, char **err)
{
	struct router_member *m = &r->m[r->n];
	memset(m, 0, sizeof(*m));
	struct sb p = {0};
	sb_addf(&p, "%s/%s", r->dir, file);
	m->path = p.s;
	m->name = xstrndup(file, strlen(file) - 4);
	r->n++;
	if (!plain_name(m->name)) {
		zerr_set(kind, ZE_USAGE);
		return errorf(err,
			      "%s: a member's name is its model id and its preset section: letters, digits, "
			      "'-', '_' and '.' only (law C12)",
			      m->path);
	}
	m->own = endpoint_load(m->path, kind, err);
	if (!m->own)
		return -1;
	m->ep = endpoint_load(m->path, kind, err);
	if (!m->ep)
		return -1;
	if (overlay(ep, m, err)) {
		zerr_set(kind, ZE_USAGE);
		return -1;
	}
	return 0;
}

int router_load(const struct endpoint *ep, struct router *r, enum zerr *kind, char **err)
{
	memset(r, 0, sizeof(*r));
	r->ep = ep;
	zerr_set(kind, ZE_USAGE);
	if (!router_is(ep))
		return errorf(err, "%s: MODELS is not set: not a router endpoint", ep->path);
	uint64_t max;
	if (endpoint_uint(ep, K_MODELS_MAX, &max, err))
		return -1;
	r->models_max = (unsigned)max;
	char *dir = endpoint_path(ep, K_MODELS);
	char abs[PATH_MAX];
	if (!realpath(dir, abs)) {
		zerr_set(kind, zerr_of_errno(errno));
		errorf(err, "%s: MODELS=%s: %s", ep->path, dir, strerror(errno));
		free(dir);
		return -1;
	}
	free(dir);
	r->dir = xstrdup(abs);
	size_t n;
	char **files;
	if (list_env(r->dir, &files, &n, kind, err))
		return -1;
	int rc = 0;
	if (n == 0)
		rc = errorf(err, "%s: MODELS=%s holds no member endpoint file (*.env) (law C12)", ep->path, r->dir);
	else if (n > ROUTER_MAX_MEMBERS)
		rc = errorf(err, "%s: MODELS=%s holds %zu members, more than the %d zealot prices as sets (law C12)",
			    ep->path, r->dir, n, ROUTER_MAX_MEMBERS);
	if (!rc)
		r->m = xcalloc(n, sizeof(*r->m));
	for (size_t i = 0; !rc && i < n; i++)
		rc = load_member(ep, r, files[i], kind, err);
	for (size_t i = 0; i < n; i++)
		free(files[i]);
	free(files);
	if (!rc)
		zerr_set(kind, ZE_OK);
	return rc;
}

void router_release(struct router *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->m[i].name);
		free(r->m[i].path);
		endpoint_free(r->m[i].ep);
		endpoint_free(r->m[i].own);
	}
	free(r->m);
	free(r->dir);
	memset(r, 0, sizeof(*r));
}

const struct router_member *router_member(const struct router *r, const char *name)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->m[i].name, name) == 0)
			return &r->m[i];
	return NULL;
}

/* A member's own count for a key (CACHE_RAM, CTX_CHECKPOINTS), or the
 * engine's default when the member leaves it unset. */
static int member_count(const struct endpoint *member, enum key_id id, uint64_t def, uint64_t *out, char **err)
{
	*out = def;
	const char *v = endpoint_value(member, id);
	if (!v || !*v)
		return 0;
	return endpoint_uint_of(member, id, out, err);
}

int router_cache_ram_mib(const struct endpoint *member, uint64_t *out, char **err)
{
	return member_count(member, K_CACHE_RAM, ROUTER_CACHE_RAM_DEFAULT_MIB, out, err);
}

int router_checkpoints(const struct endpoint *member, uint64_t *out, char **err)
{
	return member_count(member, K_CTX_CHECKPOINTS, ROUTER_CHECKPOINTS_DEFAULT, out, err);
}
