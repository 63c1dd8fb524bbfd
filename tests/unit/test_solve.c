/* The solver's foundations held against the plain machinery they stand in
 * for: the affine allocator replay against galloc's, a plan made with the
 * memo against the plan made without, solve_window against a scan of every
 * window, cand_law against the laws `check` runs, and the decode model
 * against the seeds' KV arithmetic. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "endpoint/endpoint.h"
#include "fixture.h"
#include "judge/laws.h"
#include "payload/synth.h"
#include "plan/cand.h"
#include "plan/graph/gaparam.h"
#include "plan/memo.h"
#include "plan/plan.h"
#include "plan/rate.h"
#include "plan/shape.h"
#include "plan/solve.h"
#include "plan/terms.h"
#include "tap.h"

static uint32_t rng = 2026;
static uint32_t draw(uint32_t n)
{
	rng = rng * 1103515245u + 12345u;
	return (rng >> 8) % n;
}

/* A random graph whose sizes are affine in n: inputs, ops over earlier
 * tensors (some in place), views, outputs. The same draws build it at any
 * n, so two builds are one graph. */
static void random_graph(struct ga_graph *g, uint32_t seed, int64_t n)
{
	uint32_t save = rng;
	rng = seed;
	ga_init(g);
	int ids[64], k = 0;
	int n_in = 1 + (int)draw(4);
	for (int i = 0; i < n_in; i++) {
		uint64_t a = 32 * (1 + draw(64)), b = draw(3) * 32;
		ids[k++] = ga_input(g, a + b * (uint64_t)n);
	}
	int n_ops = 8 + (int)draw(40);
	for (int i = 0; i < n_ops && k < 64; i++) {
		int s1 = ids[draw((uint32_t)k)], s2 = ids[draw((uint32_t)k)];
		int64_t ne0 = 8 * (1 + draw(16)), scale = draw(3);
		int64_t ne1 = 1 + draw(4) + scale * n;
		int x;
		if (draw(6) == 0)
			x = ga_view(g, s1);
		else
			x = ga_op(g, (int)draw(2), 0, ne0, ne1, 1, 1, (const int[]){s1, s2, -2});
		ids[k++] = x;
	}
	g->t[ids[k - 1]].output = 1;
	rng = save;
}

static void test_gaparam(void)
{
	int bad = 0, pieces = 0, points = 0;
	for (uint32_t seed = 1; seed <= 300; seed++) {
		int64_t n0 = 256 * (1 + draw(64));
		struct ga_graph g0, g1;
		random_graph(&g0, seed, n0);
		random_graph(&g1, seed, n0 + 256);
		struct ga_piece pc;
		if (ga_affine(&g0, &g1, (uint64_t)n0, 256, 32, &pc) != 0) {
			ga_release(&g0);
			ga_release(&g1);
			continue;
		}
		pieces++;
		/* the piece against galloc at n0, its ends and points between */
		int64_t probes[5] = {n0, (int64_t)pc.lo, (int64_t)pc.hi, 0, 0};
		int64_t span = ((int64_t)pc.hi - (int64_t)pc.lo) / 256;
		probes[3] =
		    (int64_t)pc.lo + 256 * (span > 0 ? (int64_t)draw((uint32_t)(span < 100000 ? span : 100000)) : 0);
		probes[4] = (int64_t)pc.lo + 256 * (span / 2);
		for (int i = 0; i < 5; i++) {
			if (probes[i] > 1 << 22)
				continue;
			struct ga_graph g;
			random_graph(&g, seed, probes[i]);
			uint64_t want = ga_run(&g, 32), got = (uint64_t)(pc.a + pc.b * probes[i]);
			ga_release(&g);
			points++;
			if (want != got && bad++ < 3)
				printf("# gaparam seed %u n %lld: piece says %llu, galloc %llu\n", seed,
				       (long long)probes[i], (unsigned long long)got, (unsigned long long)want);
		}
		ga_release(&g0);
		ga_release(&g1);
	}
	ok(pieces > 100 && bad == 0, "gaparam: %d pieces of random graphs equal galloc at %d windows (%d differ)",
	   pieces, points, bad);
}

int fixture(struct fixture *f, const char *arch, const char *preset, const char *sets, const char *env)
{
	memset(f, 0, sizeof(*f));
	snprintf(f->path, sizeof(f->path), "/tmp/zealot-unit-solve-XXXXXX");
	int fd = mkstemp(f->path);
	if (fd < 0)
		return -1;
	close(fd);
	struct synth_spec s;
	char *err = NULL;
	if ((preset ? synth_preset(&s, preset, &err) : synth_defaults(&s, arch, &err)) != 0)
		return -1;
	char buf[512];
	snprintf(buf, sizeof(buf), "%s", sets ? sets : "");
	for (char *kv = buf; *kv;) {
		char *sp = strchr(kv, ' ');
		if (sp)
			*sp = '\0';
		if (synth_set(&s, kv, &err))
			return -1;
		kv = sp ? sp + 1 : kv + strlen(kv);
	}
	uint64_t bytes;
	if (synth_write(&s, f->path, &bytes, NULL, &err))
		return -1;
	char text[2048];
	snprintf(text, sizeof(text), "MODEL_FILE=%s\n%s", f->path, env);
	f->ep = endpoint_parse(text, strlen(text), "/tmp/unit.env", &err);
	int io;
	if (!f->ep || shape_load(f->ep, NULL, &f->c, &io, &err)) {
		printf("# fixture: %s\n", err ? err : "?");
		free(err);
		return -1;
	}
	free(err);
	return 0;
}

void fixture_release(struct fixture *f)
{
	shape_release(&f->c);
	endpoint_free(f->ep);
	unlink(f->path);
}

static uint64_t set_window(struct plan_shape *s, const struct cand_limits *l, uint64_t w)
{
	s->ctx_size = cand_pool(w, s->parallel, s->kv_unified);
	s->n_batch = (uint32_t)(l->batch_asked > s->ctx_size ? s->ctx_size : l->batch_asked);
	s->n_ubatch = (uint32_t)(l->ubatch_asked > s->n_batch ? s->n_batch : l->ubatch_asked);
	return s->ctx_size;
}

/* Plans with and without the memo, window by window. */
static void memo_equal(struct fixture *f, const char *what, uint64_t top, uint64_t stride)
{
	char *err = NULL;
	struct memo *mm = memo_new();
	struct plan_shape s;
	struct plan_extras x, xm;
	struct cand_limits l;
	cand_apply(f->ep, &f->c, NULL, &s, &x, &err);
	cand_limits(f->ep, f->c.census->model, NULL, &l, &err);
	xm = x;
	xm.memo = mm;
	if (!x.addressable_mib)
		x.addressable_mib = xm.addressable_mib = 65536;
	int n = 0, bad = 0;
	struct plan *p = malloc(sizeof(*p)), *q = malloc(sizeof(*q));
	for (uint64_t w = 256; w <= top; w += stride) {
		set_window(&s, &l, w);
		plan_make(f->c.census->model, f->c.model->g, &s, f->c.dev, &x, p, &err);
		plan_make(f->c.census->model, f->c.model->g, &s, f->c.dev, &xm, q, &err);
		n++;
		if (memcmp(p, q, sizeof(*p)) && bad++ < 3)
			printf("# %s window %llu: compute %llu vs memo %llu\n", what, (unsigned long long)w,
			       (unsigned long long)p->compute[0].bytes, (unsigned long long)q->compute[0].bytes);
	}
	const struct memo_stats *st = memo_stats(mm);
	ok(bad == 0, "memo: %s, %d windows: every plan equals the plan without it (%llu replays for %llu graphs)", what,
	   n, (unsigned long long)(st->affine_replays + st->plain_replays),
	   (unsigned long long)(st->piece_hits + st->affine_replays + st->plain_replays));
	free(p);
	free(q);
	memo_free(mm);
	free(err);
}

/* A random sample of the solve space (slots 1-4, windows of 256-cell steps
 * up to the trained context, every K and V among f16/q8_0/q4_0, the
 * drafter on and off when the payload has one, ubatch 256/512/1024),
 * priced with one memo as solve prices them (the affine pieces, with
 * devices the scheduler's too) and by the full replay
 * (ZEALOT_FULL_REPLAY=1, no memo): every plan equal, term for term. */
static void memo_random(struct fixture *f, const char *what, int n)
{
	static const char *const types[] = {"f16", "q8_0", "q4_0"};
	static const char *const ubs[] = {"256", "512", "1024"};
	const struct model *m = f->c.census->model;
	int mtp = m->n_nextn && m->mtp_tensors;
	uint64_t train = m->n_ctx_train ? m->n_ctx_train : 8192;
	if (train > 262144)
		train = 262144;
	char *err = NULL;
	struct memo *mm = memo_new();
	struct plan *p = malloc(sizeof(*p)), *q = malloc(sizeof(*q));
	int priced = 0, bad = 0;
	for (int i = 0; i < n; i++) {
		struct cand c = {0};
		uint32_t slots = 1 + draw(4);
		uint64_t w = 256 * (1 + draw((uint32_t)(train / 256)));
		cand_setu(&c, K_PARALLEL, slots);
		cand_setu(&c, K_CTX_SIZE, w * slots);
		cand_set(&c, K_CACHE_TYPE_K, types[draw(3)]);
		cand_set(&c, K_CACHE_TYPE_V, types[draw(3)]);
		if (mtp)
			cand_set(&c, K_SPEC_TYPE, draw(2) ? "draft-mtp" : "none");
		cand_set(&c, K_UBATCH_SIZE, ubs[draw(3)]);
		struct plan_shape s;
		struct plan_extras x;
		if (cand_apply(f->ep, &f->c, &c, &s, &x, &err)) {
			free(err);
			err = NULL;
			continue;
		}
		if (!x.addressable_mib)
			x.addressable_mib = 65536;
		struct plan_extras xm = x;
		xm.memo = mm;
		int r1 = plan_make(m, f->c.model->g, &s, f->c.dev, &xm, q, &err);
		setenv("ZEALOT_FULL_REPLAY", "1", 1);
		int r0 = plan_make(m, f->c.model->g, &s, f->c.dev, &x, p, &err);
		unsetenv("ZEALOT_FULL_REPLAY");
		priced++;
		if ((r0 != r1 || memcmp(p, q, sizeof(*p))) && bad++ < 3) {
			char line[256];
			cand_line(&c, line, sizeof(line));
			printf("# %s: %s: compute %llu vs memo %llu\n", what, line,
			       (unsigned long long)p->compute[0].bytes, (unsigned long long)q->compute[0].bytes);
		}
	}
	const struct memo_stats *st = memo_stats(mm);
	ok(priced > n / 2 && bad == 0,
	   "memo: %s, %d random candidates: every plan equals the full replay's, term for term (%llu replays for "
	   "%llu graphs)",
	   what, priced, (unsigned long long)(st->affine_replays + st->plain_replays),
	   (unsigned long long)(st->piece_hits + st->affine_replays + st->plain_replays));
	free(p);
	free(q);
	memo_free(mm);
	free(err);
}

/* solve_window against a scan of every window from the cap down. */
static void window_exact(struct fixture *f, const char *what, const char *extra)
{
	char *err = NULL;
	struct cand c = {0};
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", extra ? extra : "");
	for (char *kv = buf; *kv;) {
		char *sp = strchr(kv, ' '), *eq;
		if (sp)
			*sp = '\0';
		if ((eq = strchr(kv, '='))) {
			*eq = '\0';
			cand_set(&c, key_by_name(kv)->id, eq + 1);
		}
		kv = sp ? sp + 1 : kv + strlen(kv);
	}
	struct plan_shape s;
	struct plan_extras x;
	struct cand_limits l;
	if (cand_apply(f->ep, &f->c, &c, &s, &x, &err) || cand_limits(f->ep, f->c.census->model, &c, &l, &err)) {
		ok(0, "window: %s: %s", what, tap_s(err));
		free(err);
		return;
	}
	struct solve_ctx sc;
	solve_init(&sc, f->ep, &f->c);
	struct solve_window *w = malloc(sizeof(*w));
	int rc = solve_window(&sc, &s, &x, &l, 256, w, &err);
	uint64_t used = sc.plans;
	uint64_t scan = 0, top = l.window_cap / 256 * 256;
	struct plan *p = malloc(sizeof(*p));
	if (!x.addressable_mib)
		x.addressable_mib = sc.addressable_mib;
	for (uint64_t win = top; win >= 256; win -= 256) {
		set_window(&s, &l, win);
		plan_make(f->c.census->model, f->c.model->g, &s, f->c.dev, &x, p, &err);
		if (p->fits) {
			scan = win;
			break;
		}
	}
	ok(rc == 0 && w->window == scan && (w->capped || (w->window && !w->next.fits)),
	   "window: %s: the largest that fits is %llu by a scan, solve says %llu (%llu plans)%s", what,
	   (unsigned long long)scan, (unsigned long long)w->window, (unsigned long long)used,
	   w->capped ? ", the trained context" : "");
	free(p);
	free(w);
	solve_release(&sc);
	free(err);
}

/* cand_law against check's laws, for every cache type as K and as V. */
static void laws_agree(struct fixture *f, const char *what)
{
	static const char *const judged[] = {"S02", "S03", "S04", "S06", "S08", "M03"};
	int n = 0, bad = 0;
	char *err = NULL, was[3][80];
	static const enum key_id keys[] = {K_CACHE_TYPE_K, K_CACHE_TYPE_V, K_FLASH_ATTN};
	for (int k = 0; k < 3; k++)
		snprintf(was[k], sizeof(was[k]), "%s=%s", key_name(keys[k]), endpoint_value(f->ep, keys[k]));
	for (unsigned i = 0; i < cand_n_types; i++) {
		for (int v = 0; v < 2; v++) {
			for (int fa = 0; fa < 2; fa++) {
				struct cand c = {0};
				cand_set(&c, v ? K_CACHE_TYPE_V : K_CACHE_TYPE_K, cand_types[i]);
				cand_set(&c, K_FLASH_ATTN, fa ? "on" : "off");
				struct plan_shape s;
				struct plan_extras x;
				struct cand_limits l;
				if (cand_apply(f->ep, &f->c, &c, &s, &x, &err) ||
				    cand_limits(f->ep, f->c.census->model, &c, &l, &err))
					continue;
				char why[256];
				const char *law = cand_law(f->c.census->model, &s, &l, why, sizeof(why));
				/* check, on the same lines */
				for (unsigned k = 0; k < c.n; k++) {
					char kv[80];
					snprintf(kv, sizeof(kv), "%s=%s", key_name(c.key[k]), c.val[k]);
					endpoint_set(f->ep, kv, &err);
				}
				struct shape_ctx sc;
				int io;
				struct findings fs = {0};
				int loaded = shape_load(f->ep, NULL, &sc, &io, &err) == 0;
				laws_check(f->ep, loaded ? &sc : NULL, NULL, LAWS_STATIC | LAWS_PAYLOAD, &fs);
				int any = 0, has_law = 0;
				for (size_t j = 0; j < fs.n; j++) {
					if (fs.v[j].sev != SEV_ERROR)
						continue;
					for (size_t k = 0; k < ARRAY_SIZE(judged); k++)
						any |= strcmp(fs.v[j].law, judged[k]) == 0;
					has_law |= law && strcmp(fs.v[j].law, law) == 0;
				}
				n++;
				if ((law != NULL) != any || (law && !has_law)) {
					if (bad++ < 3)
						printf("# %s %s=%s FLASH_ATTN=%s: cand_law %s, check %s\n", what,
						       key_name(c.key[0]), c.val[0], c.val[1], law ? law : "none",
						       any ? "refuses" : "passes");
				}
				findings_release(&fs);
				if (loaded)
					shape_release(&sc);
				for (int k = 0; k < 3; k++)
					endpoint_set(f->ep, was[k], &err);
			}
		}
	}
	ok(n > 0 && bad == 0, "laws: %s: cand_law and check agree on %d cache-type shapes (%d differ)", what, n, bad);
	free(err);
}

/* An architecture without a mirrored graph is priced, and noted as not
 * mirrored, naming it; a mirrored one carries no note. */
static void unmirrored_named(void)
{
	struct fixture f;
	if (fixture(&f, "llama", NULL, NULL, "CTX_SIZE=4096\n") != 0) {
		ok(0, "unmirrored: fixture");
		return;
	}
	char *err = NULL;
	struct plan_shape s;
	struct plan_extras x;
	struct plan *p = malloc(sizeof(*p));
	cand_apply(f.ep, &f.c, NULL, &s, &x, &err);
	struct model *m = (struct model *)f.c.census->model;
	plan_make(m, f.c.model->g, &s, f.c.dev, &x, p, &err);
	ok(p->n_unmirrored == 0, "unmirrored: llama's graph is mirrored (%u notes)", p->n_unmirrored);
	char *arch = m->arch;
	m->arch = "no-such-arch";
	plan_make(m, f.c.model->g, &s, f.c.dev, &x, p, &err);
	m->arch = arch;
	ok(p->n_unmirrored == 1 && strstr(p->unmirrored[0], "'no-such-arch'"),
	   "unmirrored: an unmirrored architecture is named: %s", p->n_unmirrored ? p->unmirrored[0] : "(no note)");
	free(p);
	free(err);
	fixture_release(&f);
}

void test_solve(void)
{
	test_gaparam();
	unmirrored_named();

	struct fixture f9;
	if (fixture(&f9, NULL, "bonsai-9b", "type=142",
		    "CTX_SIZE=602112\nPARALLEL=3\nCACHE_TYPE_K=f16\nCACHE_TYPE_V=q8_0\nBATCH_SIZE=6144\n"
		    "UBATCH_SIZE=1024\nSPEC_TYPE=draft-mtp\nSPEC_DRAFT_N_MAX=2\nDEVICE=rtx3090\n") == 0) {
		memo_equal(&f9, "the seeds' 9B, 3 slots, drafter armed", 262144, 256 * 37);
		memo_random(&f9, "the seeds' 9B on an rtx3090", 300);
		window_exact(&f9, "the seeds' 9B at 3 slots", NULL);
		window_exact(&f9, "the seeds' 9B at 1 slot on 5,200 MiB", "ADDRESSABLE_MIB=5200 PARALLEL=1");
		window_exact(&f9, "the seeds' 9B at 2 slots, exact KV, no drafter",
			     "PARALLEL=2 CACHE_TYPE_V=f16 SPEC_TYPE=none");
		laws_agree(&f9, "the 9B (head 256)");

		/* rate: exact KV reads 1.882x the bytes of q8_0 (32,768 vs 17,408 B/token) */
		char *err = NULL;
		struct rate ra, rb;
		struct rate_opts ro = {100000, RATE_ACCEPT_DEFAULT, 0};
		struct plan *p = malloc(sizeof(*p));
		struct plan_shape s;
		struct plan_extras x;
		struct cand c = {0};
		cand_set(&c, K_CACHE_TYPE_V, "f16");
		cand_set(&c, K_SPEC_TYPE, "none");
		cand_apply(f9.ep, &f9.c, &c, &s, &x, &err);
		plan_make(f9.c.census->model, f9.c.model->g, &s, f9.c.dev, &x, p, &err);
		rate_of(f9.c.census->model, f9.c.model->g, &s, &x, p, &ro, &ra, &err);
		struct term t[TERM_N];
		terms_of(p, t);
		uint64_t sum = 0;
		for (int i = 0; i < TERM_N; i++)
			sum += t[i].gated;
		ok(sum == p->device_total, "terms: the gated parts add up to the card's total");
		cand_set(&c, K_CACHE_TYPE_K, "q8_0");
		cand_set(&c, K_CACHE_TYPE_V, "q8_0");
		cand_apply(f9.ep, &f9.c, &c, &s, &x, &err);
		plan_make(f9.c.census->model, f9.c.model->g, &s, f9.c.dev, &x, p, &err);
		rate_of(f9.c.census->model, f9.c.model->g, &s, &x, p, &ro, &rb, &err);
		ok(ra.kv > 0 && ra.kv * 17408 == rb.kv * 32768,
		   "rate: exact KV reads %.4fx the bytes of q8_0 per token (the seeds: 1.882)", ra.kv / rb.kv);
		ok(ra.kv / 100000 == 32768, "rate: f16 K + f16 V on 8 full layers read 32,768 B per cell (%.0f)",
		   ra.kv / 100000);
		cand_apply(f9.ep, &f9.c, NULL, &s, &x, &err);
		plan_make(f9.c.census->model, f9.c.model->g, &s, f9.c.dev, &x, p, &err);
		rate_of(f9.c.census->model, f9.c.model->g, &s, &x, p, &ro, &ra, &err);
		ok(ra.tokens_per_step > 2.40 && ra.tokens_per_step < 2.42 && ra.draft > 0,
		   "rate: a depth-2 drafter at 0.79 makes %.3f tokens per step (the seeds' 2.41)", ra.tokens_per_step);
		ok(ra.tps_ceiling > 0, "rate: the rtx3090's 936 GB/s gives a ceiling (%.0f tokens/s)", ra.tps_ceiling);
		free(p);
		free(err);
		fixture_release(&f9);
	} else {
		ok(0, "the 9B fixture");
	}

	/* two rpc-servers, every layer offloaded: pipeline parallelism (four
	 * copies of the inputs), the hybrid's recurrent state on the servers */
	struct fixture fr;
	if (fixture(&fr, "qwen35", NULL, "ctx=65536",
		    "CTX_SIZE=8192\nPARALLEL=2\nRPC=127.0.0.1:50061,127.0.0.1:50062\nTENSOR_SPLIT=1,2\n"
		    "SPEC_TYPE=draft-mtp\nSPEC_DRAFT_N_MAX=2\nDEVICES=rpc:4096,rpc:8192\n") == 0) {
		memo_random(&fr, "qwen35 on two rpc-servers, pipelined", 200);
		fixture_release(&fr);
	} else {
		ok(0, "the two-rpc qwen35 fixture");
	}
	/* two rpc-servers, 5 of 9 layers offloaded, the rest on the CPU */
	struct fixture fs;
	if (fixture(&fs, "llama", NULL, "layers=8 embd=512 ff=1024 vocab=8192 ctx=32768",
		    "CTX_SIZE=8192\nPARALLEL=1\nRPC=127.0.0.1:50061,127.0.0.1:50062\nNGL=5\nTENSOR_SPLIT=1,2\n"
		    "DEVICES=rpc:2048,rpc:2048\n") == 0) {
		memo_random(&fs, "llama split over two rpc-servers and the CPU", 200);
		fixture_release(&fs);
	} else {
		ok(0, "the two-rpc llama fixture");
	}
	/* a card with sliding-window layers (their cells apart from the window's) */
	struct fixture fgc;
	if (fixture(&fgc, "gemma3", NULL, "swa=512 swa_pattern=3 layers=6 ctx=65536",
		    "CTX_SIZE=8192\nPARALLEL=2\nDEVICE=rtx3090\n") == 0) {
		memo_random(&fgc, "gemma3 sliding window on an rtx3090", 200);
		fixture_release(&fgc);
	} else {
		ok(0, "the gemma3 card fixture");
	}

	struct fixture fg;
	if (fixture(&fg, "gemma3", NULL, "swa=512 swa_pattern=3 layers=6 ctx=65536",
		    "CTX_SIZE=8192\nPARALLEL=2\nDEVICE=cpu\nADDRESSABLE_MIB=160\nSLACK_MIB=64\n") == 0) {
		memo_equal(&fg, "gemma3 sliding window, 2 slots", 65536, 256);
		window_exact(&fg, "gemma3, 2 slots on 160 MiB", NULL);
		window_exact(&fg, "gemma3, unified, flash attention off", "KV_UNIFIED=1 FLASH_ATTN=off");
		window_exact(&fg, "gemma3, 4 slots, ubatch 128",
			     "PARALLEL=4 UBATCH_SIZE=128 ADDRESSABLE_MIB=300 SLACK_MIB=32");
		fixture_release(&fg);
	} else {
		ok(0, "the gemma3 fixture");
	}
	struct fixture fl;
	if (fixture(&fl, "llama", NULL, "head_dim=80 rope_dims=80 heads=4 kv_heads=2 ctx=131072",
		    "CTX_SIZE=8192\nPARALLEL=1\nDEVICE=cpu\nADDRESSABLE_MIB=400\nSLACK_MIB=64\n") == 0) {
		memo_equal(&fl, "llama, head 80", 131072, 512);
		window_exact(&fl, "llama head 80 on 400 MiB", NULL);
		window_exact(&fl, "llama head 80, 3 slots, batch 4096", "PARALLEL=3 BATCH_SIZE=4096 UBATCH_SIZE=4096");
		laws_agree(&fl, "llama (head 80)");
		fixture_release(&fl);
	} else {
		ok(0, "the llama fixture");
	}
}
