/* zealot fleet plan DIR [--json]: every endpoint priced as `zealot plan`
 * prices it, then each card (and each host's memory) held to the sum of
 * what the endpoints sharing it bill there, plus the slack band once. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../fleet/budget.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_FLEET_PLAN};

static void card_name(const struct fleet_card *k, char *buf, size_t n)
{
	if (k->gpu < 0)
		snprintf(buf, n, "memory");
	else
		snprintf(buf, n, "GPU%d", k->gpu);
}

static void refusal(const struct fleet *f, const struct fleet_budget *b, size_t k)
{
	const struct fleet_card *c = &b->cards[k];
	const struct budget_card *s = &b->sums[k];
	struct sb who = {0};
	for (size_t j = 0; j < c->n; j++)
		sb_addf(&who, "%s%s %s", j ? " + " : "", f->m[b->fb[c->idx[j]].member].name,
			FMT_MIB(cmd_mib(b->bv[c->idx[j]].bytes)));
	if (c->gpu >= 0)
		cmd_fail(0,
			 "fleet plan: host %s, card %d (%s): %s = %s MiB, plus the %s MiB slack band, is more than "
			 "the %s MiB addressable (law M09)",
			 c->host, c->gpu, s->profile.s, who.s, FMT_MIB(cmd_mib(s->total)), FMT_MIB(cmd_mib(s->slack)),
			 FMT_MIB(cmd_mib(s->addressable)));
	else
		cmd_fail(0,
			 "fleet plan: host %s, memory: %s = %s MiB, plus the %s MiB slack band, is more than the "
			 "%s MiB available (%s, law M09)",
			 c->host, who.s, FMT_MIB(cmd_mib(s->total)), FMT_MIB(cmd_mib(s->slack)),
			 FMT_MIB(cmd_mib(s->addressable)), s->source);
	sb_release(&who);
}

static int width(const char *s, int w)
{
	int n = (int)strlen(s);
	return n > w ? n : w;
}

static void print_cards(const struct fleet *f, const struct fleet_budget *b, int hw, int nw)
{
	printf("%-*s %-6s %-10s %11s %11s %9s %11s  %s\n", hw, "host", "card", "profile", "total MiB", "addressable",
	       "slack", "free", "verdict");
	for (size_t k = 0; k < b->nc; k++) {
		const struct budget_card *s = &b->sums[k];
		const struct fleet_card *c = &b->cards[k];
		char card[16], addr[32], fr[32];
		card_name(c, card, sizeof(card));
		snprintf(addr, sizeof(addr), "%s", s->addressable ? FMT_MIB(cmd_mib(s->addressable)) : "unknown");
		snprintf(fr, sizeof(fr), "%s",
			 s->addressable ? FMT_MIB((double)s->free_bytes / (1024.0 * 1024.0)) : "-");
		printf("%-*s %-6s %-10s %11s %11s %9s %11s  %s%s\n", hw, c->host, card, s->profile.s,
		       FMT_MIB(cmd_mib(s->total)), addr, FMT_MIB(cmd_mib(s->slack)), fr,
		       !s->addressable ? "unchecked"
		       : s->fits       ? "fits"
				       : "REFUSED (law M09)",
		       s->addressable && c->gpu < 0 && strcmp(s->source, "MemAvailable") == 0 &&
			       strcmp(c->host, "localhost") != 0
			   ? " (this host's MemAvailable)"
			   : "");
		for (size_t j = 0; j < c->n; j++)
			printf("%-*s   %-*s %11s\n", hw, "", nw > 15 ? nw : 15, f->m[b->fb[c->idx[j]].member].name,
			       FMT_MIB(cmd_mib(b->bv[c->idx[j]].bytes)));
	}
}

static void print_human(const struct fleet *f, const struct fleet_budget *b)
{
	size_t hosts = 0;
	int hw = 4, nw = 8;
	for (size_t k = 0; k < b->nc; k++) {
		hosts += k == 0 || strcmp(b->cards[k].host, b->cards[k - 1].host) != 0;
		hw = width(b->cards[k].host, hw);
	}
	for (size_t i = 0; i < f->n; i++)
		nw = width(f->m[i].name, nw);
	printf("fleet %s: %zu endpoint%s on %zu host%s\n\n", f->dir, f->n, f->n == 1 ? "" : "s", hosts,
	       hosts == 1 ? "" : "s");
	print_cards(f, b, hw, nw);
	printf("\n%-*s %-*s %-6s %-10s %9s %11s  %s\n", nw, "endpoint", hw, "host", "card", "device", "slots",
	       "alone MiB", "alone");
	for (size_t i = 0; i < f->n; i++) {
		const struct fleet_member *m = &f->m[i];
		const struct plan *p = &b->m[i].p;
		char *host = fleet_host_key(m);
		char card[16], slots[32];
		if (m->gpu >= 0)
			snprintf(card, sizeof(card), "GPU%d", m->gpu);
		else
			snprintf(card, sizeof(card), "%s", p->n_cards ? "all" : "-");
		snprintf(slots, sizeof(slots), "%ux%u", p->n_seq, p->n_ctx_seq);
		printf("%-*s %-*s %-6s %-10s %9s %11s  %s%s\n", nw, m->name, hw, host, card, p->device->name, slots,
		       FMT_MIB(cmd_mib(p->device_total)), p->fits ? "fits" : "REFUSED",
		       b->m[i].calibrated ? " (calibrated)" : "");
		free(host);
	}
	printf("\nverdict: %s\n",
	       b->fits ? "every card and host holds its endpoints, each on a port of its own" : "refused");
}

/* What stderr says beside the report: warnings, refusals, port clashes. */
static void say_findings(const struct fleet *f, const struct fleet_budget *b)
{
	for (size_t i = 0; i < b->nm; i++)
		if (b->m[i].warn)
			cmd_fail(0, "fleet plan: %s: warning: not calibrated: %s", f->m[i].name, b->m[i].warn);
	for (size_t k = 0; k < b->nc; k++)
		if (!b->sums[k].fits)
			refusal(f, b, k);
	for (size_t k = 0; k < b->ncl; k++) {
		const struct budget_clash *c = &b->clash[k];
		cmd_fail(0, "fleet plan: host %s, port %s: %s and %s both listen there (BIND_ADDR %s and %s)", c->host,
			 c->port, f->m[c->a].name, f->m[c->b].name, endpoint_value(f->m[c->a].ep, K_BIND_ADDR),
			 endpoint_value(f->m[c->b].ep, K_BIND_ADDR));
	}
}

static int run(struct opt_args *args)
{
	char *err = NULL;
	struct fleet f;
	struct fleet_budget b = {0};
	enum zerr kind = ZE_OK;
	int loaded = fleet_load(args->v[0], &f, &kind, &err) == 0;
	int rc = cmd_exit(loaded ? fleet_budget_make(&f, &b, &err) : kind);
	if (rc == EXIT_OK) {
		if (opt_json) {
			json_t *o = fleet_budget_json(&f, &b);
			cmd_print_json(o, 12);
			json_decref(o);
		} else {
			print_human(&f, &b);
		}
		say_findings(&f, &b);
		rc = b.fits ? EXIT_OK : EXIT_NO;
	} else {
		cmd_fail(rc, "fleet plan: %s", err);
	}
	free(err);
	fleet_budget_release(&b);
	if (loaded)
		fleet_free(&f);
	return rc;
}

const struct command cmd_fleet_plan = {"plan", &help, opt_json_only, run, NULL};
