/* deploy/router: a router endpoint's gates, serve's and deploy's (see
 * router.h). */
#include "router.h"

#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../fetch/fetch.h"
#include "../judge/router_laws.h"
#include "../payload/pin.h"

int deploy_pins_hold(const struct endpoint *ep, char **err)
{
	struct fetch_list l;
	if (fetch_list(ep, &l, err))
		return -1;
	char *dir = pin_stamp_dir();
	int rc = 0;
	for (size_t i = 0; i < l.n && !rc; i++) {
		const struct fetch_file *f = &l.v[i];
		struct stat st;
		char hex[65];
		int cached = 0;
		long long size = stat(f->path, &st) == 0 ? (long long)st.st_size : -1LL;
		if (f->has_bytes && size != (long long)f->bytes)
			rc = errorf(err, "%s_FILE '%s' (shard %u) is %lld bytes, %s_BYTES pins %llu", f->kind, f->path,
				    f->shard, size, f->kind, (unsigned long long)f->bytes);
		else if (f->has_sha && pin_sha256(f->path, dir, hex, &cached, NULL, NULL, err))
			rc = -1;
		else if (f->has_sha && strcasecmp(hex, f->sha) != 0)
			rc = errorf(err, "%s_FILE '%s' (shard %u) has SHA-256 %s, %s_SHA256 pins %s", f->kind, f->path,
				    f->shard, hex, f->kind, f->sha);
	}
	free(dir);
	fetch_list_release(&l);
	return rc;
}

static const char *first_error(const struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].sev == SEV_ERROR)
			return fs->v[i].law;
	return NULL;
}

static int refuse(struct deploy_router_refusal *rf, const char *gate, const char *who)
{
	rf->gate = gate;
	rf->who = xstrdup(who);
	rf->law = first_error(&rf->fs);
	return -1;
}

/* A member's own gates: its laws and files, its pins, its payload and its
 * own fit. */
static int member_gates(const struct router_member *m, const struct router_priced *pm, struct deploy_router_refusal *rf)
{
	if (laws_check(m->ep, NULL, NULL, LAWS_STATIC | LAWS_FILES, &rf->fs))
		return refuse(rf, "laws", m->path);
	findings_release(&rf->fs);
	if (deploy_pins_hold(m->ep, &rf->err)) {
		refuse(rf, "pins", m->path);
		rf->law = "C03";
		return -1;
	}
	if (laws_check(m->ep, &pm->c, &pm->p, LAWS_PAYLOAD | LAWS_FIT, &rf->fs))
		return refuse(rf, "fit", m->path);
	findings_release(&rf->fs);
	return 0;
}

int deploy_router_gates(const struct endpoint *ep, struct router_price *rp, struct deploy_router_refusal *rf)
{
	enum zerr kind;
	memset(rf, 0, sizeof(*rf));
	if (router_price(ep, NULL, rp, &kind, &rf->err)) {
		refuse(rf, "fit", ep->path);
		rf->law = kind == ZE_IO || kind == ZE_NOTFOUND ? "C03" : "C12";
		return -1;
	}
	if (router_laws_keys(&rp->r, &rf->fs))
		return refuse(rf, "laws", ep->path);
	findings_release(&rf->fs);
	for (size_t i = 0; i < rp->r.n; i++)
		if (member_gates(&rp->r.m[i], &rp->m[i], rf))
			return -1;
	if (router_laws_fit(rp, &rf->fs))
		return refuse(rf, "fit", ep->path);
	findings_release(&rf->fs);
	return 0;
}

char *deploy_router_refusal_text(const struct deploy_router_refusal *rf)
{
	struct sb b = {0};
	sb_adds(&b, rf->err ? rf->err : "");
	for (size_t i = 0; i < rf->fs.n; i++) {
		const struct finding *f = &rf->fs.v[i];
		if (f->sev == SEV_ERROR)
			sb_addf(&b, "%s%s %s%s%s: %s", b.len ? "; " : "", f->law, rf->who, f->key ? " " : "",
				f->key ? f->key : "", f->reason);
	}
	return sb_detach(&b);
}

void deploy_router_refusal_release(struct deploy_router_refusal *rf)
{
	findings_release(&rf->fs);
	free(rf->who);
	free(rf->err);
	memset(rf, 0, sizeof(*rf));
}
