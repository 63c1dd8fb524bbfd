/* zealot fleet plan DIR [--json]: every endpoint priced as `zealot plan`
 * prices it, then each card (and each host's memory) held to the sum of
 * what the endpoints sharing it bill there, plus the slack band once. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../fleet/fleet.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "../store/calib.h"
#include "cmd.h"
#include "options.h"

static const struct cmd_help help = {
    .usage = "zealot fleet plan DIR [--json]",
    .about = "Plan every endpoint of the fleet DIR (each *.env file) as `zealot plan`\n"
	     "does, then group what each bills by host (HOST's host and port; an\n"
	     "endpoint without HOST runs on \"localhost\") and card: GPU=N puts a card\n"
	     "endpoint's device on card N of its host (unset: the plan's CUDA0, CUDA1 ...\n"
	     "are cards 0, 1 ...); what it bills the host (mapped weights, CPU buffers,\n"
	     "or everything on DEVICE=cpu) goes to the host's memory. RPC devices bill\n"
	     "other machines and are left out.\n"
	     "\n"
	     "A card shared by two or more endpoints must hold the sum of their totals\n"
	     "(each with its own runtime context) plus the slack band once (the largest\n"
	     "SLACK_MIB among them), within the smallest addressable figure any of them\n"
	     "gives it (law M09). A host's memory is held the same way; its addressable\n"
	     "figure is ADDRESSABLE_MIB on a DEVICE=cpu endpoint, else this host's\n"
	     "MemAvailable (give remote CPU endpoints ADDRESSABLE_MIB). Endpoints on\n"
	     "other hosts are planned from their files here, uncalibrated.\n"
	     "\n"
	     "Refuses (exit 1) when any card or host memory cannot hold what it is\n"
	     "given, naming the host, the card, the endpoints and the sums in MiB; and\n"
	     "when two endpoints of one host listen on one LISTEN_PORT (a wildcard\n"
	     "BIND_ADDR takes every address), naming the host, the port and both.\n"
	     "\n"
	     "--json: {dir, verdict (fits|refused), endpoints: [{name, path, host, dest\n"
	     "(HOST, or null), gpu (or null), device, verdict, calibrated, n_ctx_seq,\n"
	     "n_seq, total_mib, host_mib}], cards: [{host, card (the index, or null for\n"
	     "the host's memory), profile, endpoints: [{name, mib}], total_mib,\n"
	     "addressable_mib (null: unknown), addressable_source (profile,\n"
	     "ADDRESSABLE_MIB or MemAvailable), slack_mib, free_mib, shared, fits}],\n"
	     "port_clashes: [{host, port, endpoints: [a, b]}]}, endpoints by name, cards\n"
	     "by host then card (the host's memory last).\n",
    .exits = "0 every card fits, 1 refused, 2 usage or an invalid endpoint, 3 unreadable file",
    .min_args = 1,
    .max_args = 1,
};

/* What one endpoint bills on one card or host memory. */
struct bill {
	uint64_t bytes, addressable, slack;
	const char *profile;
	const char *source; /* where addressable comes from */
};

struct planned {
	struct plan p;
	int calibrated;
};

static double mib(uint64_t b)
{
	return round(cmd_mib(b) * 100) / 100;
}

static double smib(int64_t b)
{
	return round((double)b / (1024.0 * 1024.0) * 100) / 100;
}

/* The bills of member i, appended to fb/bv. */
static int bill_member(const struct fleet *f, size_t i, const struct plan *p, const struct shape_ctx *c,
		       struct fleet_bill **fb, struct bill **bv, size_t *n, char **err)
{
	const struct fleet_member *m = &f->m[i];
	unsigned cuda = 0;
	for (unsigned d = 0; d < p->n_cards; d++)
		cuda += strncmp(p->devs[d].name, "RPC", 3) != 0;
	if (m->gpu >= 0 && cuda > 1)
		return errorf(err, "%s: GPU=%d shows the engine one card, but the plan places it on %u (DEVICES)",
			      m->path, m->gpu, cuda);
	unsigned ord = 0;
	for (unsigned d = 0; d < p->n_devs; d++) {
		const struct plan_dev *pd = &p->devs[d];
		int host = d == p->n_cards;
		if (!host && strncmp(pd->name, "RPC", 3) == 0)
			continue;
		int gpu = host ? -1 : (m->gpu >= 0 ? m->gpu : (int)ord);
		if (!host)
			ord++;
		*fb = xreallocarray(*fb, *n + 1, sizeof(**fb));
		*bv = xreallocarray(*bv, *n + 1, sizeof(**bv));
		(*fb)[*n] = (struct fleet_bill){i, gpu};
		const char *src =
		    host ? (p->n_cards == 0 && c->extras.addressable_mib ? "ADDRESSABLE_MIB" : "MemAvailable")
			 : (c->extras.addressable_mib && d == p->main_dev ? "ADDRESSABLE_MIB" : "profile");
		(*bv)[*n] = (struct bill){pd->total, pd->addressable, pd->slack, host ? "host" : pd->profile, src};
		(*n)++;
	}
	return 0;
}

/* The figures of one card: sums over its bills. */
struct card_sum {
	uint64_t total, addressable, slack;
	const char *source;
	struct sb profile;
	int64_t free_bytes;
	int fits;
};

static void sum_card(const struct fleet_card *k, const struct bill *bv, struct card_sum *s)
{
	memset(s, 0, sizeof(*s));
	for (size_t j = 0; j < k->n; j++) {
		const struct bill *b = &bv[k->idx[j]];
		s->total += b->bytes;
		if (b->addressable && (!s->addressable || b->addressable < s->addressable)) {
			s->addressable = b->addressable;
			s->source = b->source;
		}
		if (b->slack > s->slack)
			s->slack = b->slack;
		/* distinct profiles, in order: two profiles for one card is a disagreement worth seeing */
		size_t pl = strlen(b->profile);
		const char *hit = s->profile.s ? strstr(s->profile.s, b->profile) : NULL;
		if (!hit || (hit[pl] && hit[pl] != '/'))
			sb_addf(&s->profile, "%s%s", s->profile.len ? "/" : "", b->profile);
	}
	s->free_bytes = (int64_t)s->addressable - (int64_t)s->total;
	/* an unknown host memory gates nothing (as plan: only beside cards) */
	s->fits = !s->addressable || s->free_bytes >= (int64_t)s->slack;
}

static void card_name(const struct fleet_card *k, char *buf, size_t n)
{
	if (k->gpu < 0)
		snprintf(buf, n, "memory");
	else
		snprintf(buf, n, "GPU%d", k->gpu);
}

static void refusal(const struct fleet *f, const struct fleet_card *k, const struct fleet_bill *fb,
		    const struct bill *bv, const struct card_sum *s)
{
	struct sb who = {0};
	for (size_t j = 0; j < k->n; j++)
		sb_addf(&who, "%s%s %s", j ? " + " : "", f->m[fb[k->idx[j]].member].name,
			FMT_MIB(cmd_mib(bv[k->idx[j]].bytes)));
	if (k->gpu >= 0)
		cmd_fail(0,
			 "fleet plan: host %s, card %d (%s): %s = %s MiB, plus the %s MiB slack band, is more than "
			 "the %s MiB addressable (law M09)",
			 k->host, k->gpu, s->profile.s, who.s, FMT_MIB(cmd_mib(s->total)), FMT_MIB(cmd_mib(s->slack)),
			 FMT_MIB(cmd_mib(s->addressable)));
	else
		cmd_fail(0,
			 "fleet plan: host %s, memory: %s = %s MiB, plus the %s MiB slack band, is more than the "
			 "%s MiB available (%s, law M09)",
			 k->host, who.s, FMT_MIB(cmd_mib(s->total)), FMT_MIB(cmd_mib(s->slack)),
			 FMT_MIB(cmd_mib(s->addressable)), s->source);
	sb_release(&who);
}

/* Two endpoints of one host that listen on one port: only one can bind it
 * (a wildcard bind takes every address). */
struct clash {
	size_t a, b;
	char *host;
	const char *port;
};

static int binds_overlap(const char *x, const char *y)
{
	int wx = !strcmp(x, "0.0.0.0") || !strcmp(x, "::"), wy = !strcmp(y, "0.0.0.0") || !strcmp(y, "::");
	return wx || wy || strcmp(x, y) == 0;
}

static size_t port_clashes(const struct fleet *f, struct clash **out)
{
	struct clash *v = NULL;
	size_t n = 0;
	for (size_t i = 0; i < f->n; i++)
		for (size_t j = i + 1; j < f->n; j++) {
			const struct endpoint *a = f->m[i].ep, *b = f->m[j].ep;
			char *ha = fleet_host_key(&f->m[i]), *hb = fleet_host_key(&f->m[j]);
			const char *pa = endpoint_value(a, "LISTEN_PORT");
			if (!strcmp(ha, hb) && !strcmp(pa, endpoint_value(b, "LISTEN_PORT")) &&
			    binds_overlap(endpoint_value(a, "BIND_ADDR"), endpoint_value(b, "BIND_ADDR"))) {
				v = xreallocarray(v, n + 1, sizeof(*v));
				v[n++] = (struct clash){i, j, ha, pa};
				ha = NULL;
			}
			free(ha);
			free(hb);
		}
	*out = v;
	return n;
}

static json_t *clashes_json(const struct fleet *f, const struct clash *c, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:s,s:[s,s]}", "host", c[i].host, "port", c[i].port,
						   "endpoints", f->m[c[i].a].name, f->m[c[i].b].name));
	return a;
}

static json_t *to_json(const struct fleet *f, const struct planned *pl, const struct fleet_card *cards, size_t nc,
		       const struct fleet_bill *fb, const struct bill *bv, const struct card_sum *sums, int fits)
{
	json_t *o = json_object();
	json_object_set_new(o, "dir", json_string(f->dir));
	json_object_set_new(o, "verdict", json_string(fits ? "fits" : "refused"));
	json_t *eps = json_array();
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_member *m = &f->m[i];
		const struct plan *p = &pl[i].p;
		char *host = fleet_host_key(m);
		json_array_append_new(
		    eps, json_pack("{s:s,s:s,s:s,s:o,s:o,s:s,s:s,s:b,s:i,s:i,s:f,s:f}", "name", m->name, "path",
				   m->path, "host", host, "dest", m->remote ? json_string(m->host.dest) : json_null(),
				   "gpu", m->gpu >= 0 ? json_integer(m->gpu) : json_null(), "device", p->device->name,
				   "verdict", p->fits ? "fits" : "refused", "calibrated", pl[i].calibrated, "n_ctx_seq",
				   (json_int_t)p->n_ctx_seq, "n_seq", (json_int_t)p->n_seq, "total_mib",
				   mib(p->device_total), "host_mib", mib(p->n_cards ? p->host_total : 0)));
		free(host);
	}
	json_object_set_new(o, "endpoints", eps);
	json_t *ca = json_array();
	for (size_t k = 0; k < nc; k++) {
		const struct card_sum *s = &sums[k];
		json_t *who = json_array();
		for (size_t j = 0; j < cards[k].n; j++)
			json_array_append_new(who, json_pack("{s:s,s:f}", "name", f->m[fb[cards[k].idx[j]].member].name,
							     "mib", mib(bv[cards[k].idx[j]].bytes)));
		json_array_append_new(
		    ca, json_pack("{s:s,s:o,s:s,s:o,s:f,s:o,s:o,s:f,s:o,s:b,s:b}", "host", cards[k].host, "card",
				  cards[k].gpu >= 0 ? json_integer(cards[k].gpu) : json_null(), "profile", s->profile.s,
				  "endpoints", who, "total_mib", mib(s->total), "addressable_mib",
				  s->addressable ? json_real(mib(s->addressable)) : json_null(), "addressable_source",
				  s->addressable ? json_string(s->source) : json_null(), "slack_mib", mib(s->slack),
				  "free_mib", s->addressable ? json_real(smib(s->free_bytes)) : json_null(), "shared",
				  cards[k].n > 1, "fits", s->fits));
	}
	json_object_set_new(o, "cards", ca);
	return o;
}

static int width(const char *s, int w)
{
	int n = (int)strlen(s);
	return n > w ? n : w;
}

static void print_human(const struct fleet *f, const struct planned *pl, const struct fleet_card *cards, size_t nc,
			const struct fleet_bill *fb, const struct bill *bv, const struct card_sum *sums, int fits)
{
	size_t hosts = 0;
	int hw = 4, nw = 8;
	for (size_t k = 0; k < nc; k++) {
		hosts += k == 0 || strcmp(cards[k].host, cards[k - 1].host) != 0;
		hw = width(cards[k].host, hw);
	}
	for (size_t i = 0; i < f->n; i++)
		nw = width(f->m[i].name, nw);
	printf("fleet %s: %zu endpoint%s on %zu host%s\n\n", f->dir, f->n, f->n == 1 ? "" : "s", hosts,
	       hosts == 1 ? "" : "s");
	printf("%-*s %-6s %-10s %11s %11s %9s %11s  %s\n", hw, "host", "card", "profile", "total MiB", "addressable",
	       "slack", "free", "verdict");
	for (size_t k = 0; k < nc; k++) {
		const struct card_sum *s = &sums[k];
		char card[16], addr[32], fr[32];
		card_name(&cards[k], card, sizeof(card));
		snprintf(addr, sizeof(addr), "%s", s->addressable ? FMT_MIB(cmd_mib(s->addressable)) : "unknown");
		snprintf(fr, sizeof(fr), "%s",
			 s->addressable ? FMT_MIB((double)s->free_bytes / (1024.0 * 1024.0)) : "-");
		printf("%-*s %-6s %-10s %11s %11s %9s %11s  %s%s\n", hw, cards[k].host, card, s->profile.s,
		       FMT_MIB(cmd_mib(s->total)), addr, FMT_MIB(cmd_mib(s->slack)), fr,
		       !s->addressable ? "unchecked"
		       : s->fits       ? "fits"
				       : "REFUSED (law M09)",
		       s->addressable && cards[k].gpu < 0 && strcmp(s->source, "MemAvailable") == 0 &&
			       strcmp(cards[k].host, "localhost") != 0
			   ? " (this host's MemAvailable)"
			   : "");
		for (size_t j = 0; j < cards[k].n; j++)
			printf("%-*s   %-*s %11s\n", hw, "", nw > 15 ? nw : 15, f->m[fb[cards[k].idx[j]].member].name,
			       FMT_MIB(cmd_mib(bv[cards[k].idx[j]].bytes)));
	}
	printf("\n%-*s %-*s %-6s %-10s %9s %11s  %s\n", nw, "endpoint", hw, "host", "card", "device", "slots",
	       "alone MiB", "alone");
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_member *m = &f->m[i];
		const struct plan *p = &pl[i].p;
		char *host = fleet_host_key(m);
		char card[16], slots[32];
		if (m->gpu >= 0)
			snprintf(card, sizeof(card), "GPU%d", m->gpu);
		else
			snprintf(card, sizeof(card), "%s", p->n_cards ? "all" : "-");
		snprintf(slots, sizeof(slots), "%ux%u", p->n_seq, p->n_ctx_seq);
		printf("%-*s %-*s %-6s %-10s %9s %11s  %s%s\n", nw, m->name, hw, host, card, p->device->name, slots,
		       FMT_MIB(cmd_mib(p->device_total)), p->fits ? "fits" : "REFUSED",
		       pl[i].calibrated ? " (calibrated)" : "");
		free(host);
	}
	printf("\nverdict: %s\n",
	       fits ? "every card and host holds its endpoints, each on a port of its own" : "refused");
}

/* One member priced as `zealot plan` prices it (calibrated from this
 * host's store when it is local) and billed to its card; the exit status,
 * *err naming the member. */
static int price_member(const struct fleet *f, size_t i, struct planned *pl, struct fleet_bill **fb, struct bill **bv,
			size_t *nb, char **err)
{
	struct shape_ctx c = {0};
	json_t *cal = NULL;
	char *cal_text = NULL, *warn = NULL;
	/* the store here holds boots of this host's endpoints only */
	int rc = cmd_plan_price(f->m[i].ep, NULL, NULL, !f->m[i].remote, &c, &pl->p, &cal, &cal_text, &warn, err);
	pl->calibrated = cal != NULL;
	json_decref(cal);
	free(cal_text);
	if (warn)
		cmd_fail(0, "fleet plan: %s: warning: not calibrated: %s", f->m[i].name, warn);
	free(warn);
	if (rc == EXIT_OK && bill_member(f, i, &pl->p, &c, fb, bv, nb, err))
		rc = EXIT_USAGE;
	shape_release(&c);
	if (rc != EXIT_OK) {
		char *e = *err;
		*err = NULL;
		errorf(err, "%s: %s", f->m[i].name, e);
		free(e);
	}
	return rc;
}

/* Two endpoints of one host on one port: said on stderr (and freed). */
static void say_clashes(const struct fleet *f, struct clash *clash, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		cmd_fail(0, "fleet plan: host %s, port %s: %s and %s both listen there (BIND_ADDR %s and %s)",
			 clash[k].host, clash[k].port, f->m[clash[k].a].name, f->m[clash[k].b].name,
			 endpoint_value(f->m[clash[k].a].ep, "BIND_ADDR"),
			 endpoint_value(f->m[clash[k].b].ep, "BIND_ADDR"));
		free(clash[k].host);
	}
	free(clash);
}

int cmd_fleet_plan(int argc, char **argv)
{
	int json = 0;
	const struct opt opts[] = {
	    OPT_FLAG(0, "json", &json, "one JSON object (see above)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("fleet plan", &help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	char *err = NULL;
	int rc = EXIT_OK;
	struct fleet f;
	struct planned *pl = NULL;
	struct fleet_bill *fb = NULL;
	struct bill *bv = NULL;
	size_t nb = 0, nc = 0;
	struct fleet_card *cards = NULL;
	struct card_sum *sums = NULL;
	enum zerr kind;
	if (fleet_load(args.v[0], &f, &kind, &err)) {
		rc = cmd_exit(kind);
		opt_args_release(&args);
		cmd_fail(rc, "fleet plan: %s", err);
		free(err);
		return rc;
	}
	pl = xcalloc(f.n, sizeof(*pl));
	for (size_t i = 0; i < f.n; i++)
		if ((rc = price_member(&f, i, &pl[i], &fb, &bv, &nb, &err)) != EXIT_OK)
			goto done;
	nc = fleet_group(&f, fb, nb, &cards);
	sums = xcalloc(nc ? nc : 1, sizeof(*sums));
	int fits = 1;
	for (size_t k = 0; k < nc; k++) {
		sum_card(&cards[k], bv, &sums[k]);
		fits &= sums[k].fits;
	}
	struct clash *clash = NULL;
	size_t ncl = port_clashes(&f, &clash);
	if (json) {
		json_t *o = to_json(&f, pl, cards, nc, fb, bv, sums, fits && !ncl);
		json_object_set_new(o, "port_clashes", clashes_json(&f, clash, ncl));
		char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
		puts(s);
		free(s);
		json_decref(o);
	} else {
		print_human(&f, pl, cards, nc, fb, bv, sums, fits && !ncl);
	}
	for (size_t k = 0; k < nc; k++)
		if (!sums[k].fits)
			refusal(&f, &cards[k], fb, bv, &sums[k]);
	say_clashes(&f, clash, ncl);
	rc = fits && !ncl ? EXIT_OK : EXIT_NO;
done:
	if (err)
		cmd_fail(rc, "fleet plan: %s", err);
	free(err);
	for (size_t k = 0; k < nc; k++)
		sb_release(&sums[k].profile);
	free(sums);
	fleet_cards_free(cards, nc);
	free(fb);
	free(bv);
	free(pl);
	fleet_free(&f);
	opt_args_release(&args);
	return rc;
}
