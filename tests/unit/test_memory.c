/* The settled memory against the plan (live/memory.c, issue 33 item 2):
 * the band (256 MiB or 5 % of the plan, 1,024 MiB at least on the host
 * beside a card), a card short of the plan (M10, an error), over it (M09),
 * a host over it (M10 beside a card, M09 on a cpu plan), a host under it
 * (no finding), a card not measured (no finding), the ledger's split. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "live/memory.h"
#include "tap.h"

#define MIB(x) ((uint64_t)(x)*1048576ull)

static void card_plan(struct plan *p, uint64_t card_mib, uint64_t host_mib)
{
	memset(p, 0, sizeof(*p));
	p->n_cards = 1;
	p->n_devs = 2;
	p->main_dev = 0;
	snprintf(p->devs[0].name, sizeof(p->devs[0].name), "CUDA0");
	p->devs[0].total = MIB(card_mib);
	snprintf(p->devs[1].name, sizeof(p->devs[1].name), "host");
	p->devs[1].total = MIB(host_mib);
}

static const struct memory_row *judge(const struct plan *p, const struct ledger *l, int64_t card, int64_t rss,
				      struct memory_report *r)
{
	struct memory_settled m = {.pid = 1, .rss_mib = rss, .card = p->n_cards ? 0 : -1, .card_used_mib = card};
	memory_judge(p, l, &m, r);
	return &r->rows[0];
}

void test_memory(void)
{
	struct plan p;
	struct memory_report r;
	card_plan(&p, 4000, 500);
	const struct memory_row *c = judge(&p, NULL, 3700, 600, &r);
	ok(r.n == 2 && strcmp(c->what, "card 0") == 0 && strcmp(r.rows[1].what, "host") == 0,
	   "a card plan: card, host");
	ok(c->law && strcmp(c->law, "M10") == 0 && c->error && r.errors == 1 && c->band_mib == 256,
	   "card 300 MiB short of 4,000 (band 256): M10, an error");
	c = judge(&p, NULL, 3800, 600, &r);
	ok(!c->law && r.errors == 0 && r.warnings == 0, "card 200 MiB short: within the band");
	c = judge(&p, NULL, 4300, 600, &r);
	ok(c->law && strcmp(c->law, "M09") == 0 && !c->error && r.warnings == 1, "card 300 MiB over: M09, a warning");
	c = judge(&p, NULL, -1, 600, &r);
	ok(!c->law && c->settled_mib < 0 && strstr(c->why, "not measured"), "card not measured: no finding");
	card_plan(&p, 20000, 500);
	c = judge(&p, NULL, 19100, 600, &r);
	ok(!c->law && c->band_mib == 1000, "a 20,000 MiB plan: the band is 5 %% (1,000), 900 short holds");
	c = judge(&p, NULL, 18800, 600, &r);
	ok(c->law && strcmp(c->law, "M10") == 0, "... 1,200 short is M10");
	card_plan(&p, 4000, 500);
	judge(&p, NULL, 4000, 1400, &r);
	ok(!r.rows[1].law && r.rows[1].band_mib == 1024, "host beside a card: the band is 1,024 MiB at least");
	judge(&p, NULL, 4000, 1600, &r);
	ok(r.rows[1].law && strcmp(r.rows[1].law, "M10") == 0 && !r.rows[1].error,
	   "host 1,100 MiB over beside a card: M10, a warning");

	memset(&p, 0, sizeof(p));
	p.n_devs = 1;
	snprintf(p.devs[0].name, sizeof(p.devs[0].name), "host");
	p.devs[0].total = MIB(1000);
	c = judge(&p, NULL, -1, 1300, &r);
	ok(r.n == 1 && c->law && strcmp(c->law, "M09") == 0, "a cpu plan: host 300 MiB over: M09");
	c = judge(&p, NULL, -1, 100, &r);
	ok(!c->law && strstr(c->why, "need not be resident"), "a cpu plan: host under the plan is no finding");

	struct ledger l;
	memset(&l, 0, sizeof(l));
	l.recognised = 1;
	l.n_model = 2;
	snprintf(l.model[0].buft, sizeof(l.model[0].buft), "CUDA0");
	l.model[0].mib = 100;
	snprintf(l.model[1].buft, sizeof(l.model[1].buft), "CPU_Mapped");
	l.model[1].mib = 50;
	card_plan(&p, 4000, 500);
	judge(&p, &l, 4000, 600, &r);
	ok(r.rows[0].ledger_mib == 100 && r.rows[1].ledger_mib == 50,
	   "the ledger split: CUDA0 on the card, the rest host");
	char *s = memory_summary(&r);
	ok(strstr(s, "card 0: plan 4,000.00, ledger 100.00, held 4,000.00") != NULL, "the summary line");
	free(s);
}
