#include "fleet.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int by_name(const void *a, const void *b)
{
	return strcmp(((const struct fleet_member *)a)->name, ((const struct fleet_member *)b)->name);
}

/* A fleet directory holds at most this many endpoints: enough for any
 * operator, and a wrong directory (a payload store) is refused early. */
#define FLEET_MAX 1024

static int load_member(struct fleet_member *m, const char *path, enum zerr *kind, char **err)
{
	char *why = NULL;
	m->gpu = -1;
	m->ep = endpoint_load(path, kind, &why);
	if (!m->ep) {
		errorf(err, "%s", why);
		free(why);
		return -1;
	}
	zerr_set(kind, ZE_USAGE); /* what follows is the file's content */
	m->name = xstrdup(m->ep->name);
	m->path = xstrdup(path);
	const struct endpoint_entry *he = endpoint_entry(m->ep, K_HOST);
	if (he && he->value) {
		if (host_parse(he->value, &m->host, &why)) {
			char *w = endpoint_where(m->ep, K_HOST);
			errorf(err, "%s: %s", w, why);
			free(w);
			free(why);
			return -1;
		}
		m->remote = 1;
	}
	const struct endpoint_entry *ge = endpoint_entry(m->ep, K_GPU);
	if (ge && ge->value) {
		uint64_t g;
		if (endpoint_uint(m->ep, K_GPU, &g, err))
			return -1;
		if (g > 255) {
			char *w = endpoint_where(m->ep, K_GPU);
			errorf(err, "%s: card %llu: a card index is 0..255", w, (unsigned long long)g);
			free(w);
			return -1;
		}
		m->gpu = (int)g;
	}
	return 0;
}

int fleet_load(const char *dir, struct fleet *f, enum zerr *kind, char **err)
{
	memset(f, 0, sizeof(*f));
	zerr_set(kind, ZE_USAGE);
	DIR *d = opendir(dir);
	if (!d)
		return zerr_set(kind, zerr_of_errno(errno)),
		       errorf(err, "cannot open the fleet directory '%s': %s", dir, strerror(errno));
	f->dir = xstrdup(dir);
	struct dirent *de;
	size_t cap = 0;
	int rc = 0;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 4 || strcmp(de->d_name + n - 4, ".env") != 0)
			continue;
		struct sb path = {0};
		sb_addf(&path, "%s%s%s", dir, dir[0] && dir[strlen(dir) - 1] == '/' ? "" : "/", de->d_name);
		struct stat st;
		if (stat(path.s, &st) || !S_ISREG(st.st_mode)) {
			sb_release(&path);
			continue;
		}
		if (f->n == FLEET_MAX) {
			sb_release(&path);
			rc = errorf(err, "'%s' holds more than %d endpoint files", dir, FLEET_MAX);
			break;
		}
		if (f->n == cap) {
			cap = cap ? cap * 2 : 8;
			f->m = xreallocarray(f->m, cap, sizeof(*f->m));
		}
		struct fleet_member *m = &f->m[f->n];
		memset(m, 0, sizeof(*m));
		f->n++;
		if (load_member(m, path.s, kind, err)) {
			sb_release(&path);
			rc = -1;
			break;
		}
		sb_release(&path);
	}
	closedir(d);
	if (!rc && f->n == 0)
		rc = errorf(err, "'%s' holds no endpoint file (*.env)", dir);
	if (rc) {
		fleet_free(f);
		return -1;
	}
	qsort(f->m, f->n, sizeof(*f->m), by_name);
	zerr_set(kind, ZE_OK);
	return 0;
}

void fleet_free(struct fleet *f)
{
	for (size_t i = 0; i < f->n; i++) {
		endpoint_free(f->m[i].ep);
		free(f->m[i].name);
		free(f->m[i].path);
		host_free(&f->m[i].host);
	}
	free(f->m);
	free(f->dir);
	memset(f, 0, sizeof(*f));
}

char *fleet_host_key(const struct fleet_member *m)
{
	if (!m->remote)
		return xstrdup("localhost");
	struct sb b = {0};
	int v6 = strchr(m->host.host, ':') != NULL;
	if (m->host.port)
		sb_addf(&b, v6 ? "[%s]:%u" : "%s:%u", m->host.host, m->host.port);
	else
		sb_adds(&b, m->host.host);
	return sb_detach(&b);
}

/* Hosts in name order with "localhost" as any other; the host's memory
 * (-1) after its cards. */
static int card_cmp(const struct fleet_card *a, const struct fleet_card *b)
{
	int c = strcmp(a->host, b->host);
	if (c)
		return c;
	unsigned ga = (unsigned)a->gpu, gb = (unsigned)b->gpu; /* -1 sorts last */
	return ga < gb ? -1 : ga > gb;
}

static int card_qsort(const void *a, const void *b)
{
	return card_cmp(a, b);
}

size_t fleet_group(const struct fleet *f, const struct fleet_bill *b, size_t nb, struct fleet_card **out)
{
	struct fleet_card *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < nb; i++) {
		struct fleet_card key = {fleet_host_key(&f->m[b[i].member]), b[i].gpu < 0 ? -1 : b[i].gpu, NULL, 0};
		size_t j;
		for (j = 0; j < n; j++)
			if (card_cmp(&v[j], &key) == 0)
				break;
		if (j == n) {
			v = xreallocarray(v, n + 1, sizeof(*v));
			v[n++] = key;
		} else {
			free(key.host);
		}
		v[j].idx = xreallocarray(v[j].idx, v[j].n + 1, sizeof(*v[j].idx));
		v[j].idx[v[j].n++] = i;
	}
	if (n > 1)
		qsort(v, n, sizeof(*v), card_qsort);
	*out = v;
	return n;
}

size_t fleet_cards(const struct fleet *f, struct fleet_card **out)
{
	struct fleet_bill *b = xcalloc(f->n ? f->n : 1, sizeof(*b));
	for (size_t i = 0; i < f->n; i++) {
		b[i].member = i;
		b[i].gpu = f->m[i].gpu;
	}
	size_t n = fleet_group(f, b, f->n, out);
	free(b);
	return n;
}

void fleet_cards_free(struct fleet_card *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(c[i].host);
		free(c[i].idx);
	}
	free(c);
}
