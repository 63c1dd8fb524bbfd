/* The decode-rate model under placement (rate.h): the time per token is the
 * sum of every device's part, each its bytes over its bandwidth; a block
 * moved to the host costs its bytes at the host's bandwidth instead of the
 * card's; of an expert stack only the experts used are read. Every figure
 * is held against sums taken from the payload's own tensor table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "endpoint/endpoint.h"
#include "fixture.h"
#include "payload/synth.h"
#include "plan/plan.h"
#include "plan/rate.h"
#include "plan/shape.h"
#include "tap.h"

/* Plan and price the fixture with `key=value` lines set on its endpoint. */
static int price(struct fixture *f, const char *sets, double host_bw, struct plan *p, struct rate *r)
{
	char *err = NULL;
	char buf[256];
	snprintf(buf, sizeof(buf), "%s", sets);
	for (char *kv = buf; *kv;) {
		char *sp = strchr(kv, ' ');
		if (sp)
			*sp = '\0';
		if (endpoint_set(f->ep, kv, &err))
			goto fail;
		kv = sp ? sp + 1 : kv + strlen(kv);
	}
	shape_release(&f->c);
	int io;
	if (shape_load(f->ep, NULL, &f->c, &io, &err) ||
	    plan_make(f->c.census->model, f->c.model->g, &f->c.shape, f->c.dev, &f->c.extras, p, &err))
		goto fail;
	struct rate_opts o = {1000, RATE_ACCEPT_DEFAULT, host_bw};
	if (rate_of(f->c.census->model, f->c.model->g, &f->c.shape, &f->c.extras, p, &o, r, &err))
		goto fail;
	return 0;
fail:
	printf("# price %s: %s\n", sets, err ? err : "?");
	free(err);
	return -1;
}

static int close_to(double a, double b)
{
	return fabs(a - b) <= 1e-9 * (fabs(a) + fabs(b)) + 1e-12;
}

/* Bytes of the tensors whose names start with prefix (and, when expert is
 * 0 or 1, that are or are not expert stacks). */
static double tensor_bytes(const struct fixture *f, const char *prefix, int expert)
{
	const struct gguf *g = f->c.model->g;
	double b = 0;
	for (uint64_t i = 0; i < g->n_tensors; i++) {
		const struct gguf_tensor *t = &g->tensors[i];
		if (strncmp(t->name, prefix, strlen(prefix)))
			continue;
		int is = strstr(t->name, "_exps.") != NULL;
		if (expert < 0 || is == expert)
			b += (double)t->bytes;
	}
	return b;
}

static const struct rate_dev *dev_named(const struct rate *r, const char *name)
{
	for (unsigned i = 0; i < r->n_dev; i++)
		if (strcmp(r->dev[i].name, name) == 0)
			return &r->dev[i];
	return NULL;
}

static void sum_of_parts(void)
{
	struct fixture f;
	if (fixture(&f, "llama", NULL, "layers=12 embd=256 ff=512 heads=4 kv_heads=2 head_dim=64 vocab=1024 ctx=8192",
		    "CTX_SIZE=8192\nPARALLEL=2\nDEVICE=cpu\nDEVICES=rtx3090,rtx3060\n")) {
		ok(0, "rate: the two-card fixture");
		return;
	}
	struct plan *p = xmalloc(sizeof(*p));
	struct rate r;
	if (price(&f, "NGL=9 TENSOR_SPLIT=1,2", 0, p, &r) == 0) {
		double ms = 0, bytes = 0;
		int each = 1, busy = 0;
		for (unsigned i = 0; i < r.n_dev; i++) {
			ms += r.dev[i].ms_per_token;
			bytes += r.dev[i].bytes_per_token;
			each &=
			    close_to(r.dev[i].ms_per_token, r.dev[i].bytes_per_token / (r.dev[i].bandwidth_gbs * 1e6));
			busy += r.dev[i].bytes_per_token > 0;
		}
		const struct rate_dev *c0 = dev_named(&r, "CUDA0"), *c1 = dev_named(&r, "CUDA1"),
				      *h = dev_named(&r, "host");
		ok(r.n_dev == 3 && busy == 3 && c0 && c1 && h,
		   "rate: 2 cards and the host each read a part (%u devices)", r.n_dev);
		ok(c0 && c1 && h && c0->bandwidth_gbs == 936 && c1->bandwidth_gbs == 360 && h->bandwidth_gbs == 51,
		   "rate: each device at its own bandwidth (936, 360, host 51 by default)");
		ok(close_to(r.ms_per_token, ms) && each,
		   "rate: the time per token (%.4f ms) is the sum of each device's bytes over its bandwidth (%.4f)",
		   r.ms_per_token, ms);
		ok(close_to(r.bytes_per_token, bytes), "rate: the bytes per token are the sum of the devices' (%.0f)",
		   bytes);
		ok(close_to(r.tps_ceiling, 1000 / ms), "rate: the ceiling is 1 / the summed time (%.1f tokens/s)",
		   r.tps_ceiling);
		/* the blocks of each device, from the payload's table (no KV at
		 * this point: the caches follow their layers, checked below) */
		double host_w = tensor_bytes(&f, "blk.0.", -1) + tensor_bytes(&f, "blk.1.", -1) +
				tensor_bytes(&f, "blk.2.", -1) + tensor_bytes(&f, "blk.3.", -1);
		ok(h && close_to(h->weights, host_w),
		   "rate: NGL=9 of 13 leaves blocks 0-3 on the host: %.0f B of weights read there (table: %.0f)",
		   h ? h->weights : 0, host_w);
		double kv = r.kv / 12; /* per layer: every block has the same cache */
		ok(h && close_to(h->kv, 4 * kv) && c0 && c1 && close_to(c0->kv + c1->kv, 8 * kv),
		   "rate: each layer's KV is read where it lives (host 4 of 12 layers)");
	}
	struct rate r2;
	if (price(&f, "KV_OFFLOAD=0", 0, p, &r2) == 0) {
		const struct rate_dev *h = dev_named(&r2, "host");
		ok(h && close_to(h->kv, r2.kv) && r2.kv > 0,
		   "rate: KV_OFFLOAD=0 reads every layer's KV on the host (%.0f of %.0f B)", h ? h->kv : 0, r2.kv);
	}
	free(p);
	fixture_release(&f);
}

static void layer_to_host(void)
{
	struct fixture f;
	if (fixture(&f, "llama", NULL, "layers=8 embd=256 ff=512 heads=4 kv_heads=2 head_dim=64 vocab=1024 ctx=8192",
		    "CTX_SIZE=4096\nPARALLEL=1\nDEVICE=rtx3090\n")) {
		ok(0, "rate: the one-card fixture");
		return;
	}
	struct plan *p = xmalloc(sizeof(*p));
	struct rate all, one, slow;
	if (price(&f, "NGL=99", 0, p, &all) == 0 && price(&f, "NGL=8", 0, p, &one) == 0 &&
	    price(&f, "NGL=8", 25.5, p, &slow) == 0) {
		double blk = tensor_bytes(&f, "blk.0.", -1) + all.kv / 8;
		double want = blk / 1e6 * (1.0 / 51 - 1.0 / 936);
		ok(all.dev[0].bytes_per_token > 0 && dev_named(&all, "host")->bytes_per_token == 0,
		   "rate: every block on the card: the host reads nothing per token");
		ok(close_to(one.bytes_per_token, all.bytes_per_token),
		   "rate: moving a block moves its bytes, it does not add any (%.0f B)", one.bytes_per_token);
		ok(close_to(one.ms_per_token - all.ms_per_token, want),
		   "rate: block 0 to the host costs its %.0f B at 51 instead of 936 GB/s: +%.6f ms (want %.6f)", blk,
		   one.ms_per_token - all.ms_per_token, want);
		const struct rate_dev *h1 = dev_named(&one, "host"), *h2 = dev_named(&slow, "host");
		ok(h1 && h2 && close_to(h2->ms_per_token, 2 * h1->ms_per_token) && slow.host_bw_gbs == 25.5,
		   "rate: the host's part scales with HOST_BW_GBS (half the bandwidth, twice the time)");
		ok(close_to(rate_ratio(&all, &one), all.ms_per_token / one.ms_per_token) && rate_ratio(&all, &one) < 1,
		   "rate: the ratio is the endpoint's time over the shape's (%.4f)", rate_ratio(&all, &one));
	}
	free(p);
	fixture_release(&f);
}

static void active_experts(void)
{
	struct fixture f;
	if (fixture(&f, "qwen3moe", NULL,
		    "layers=6 embd=256 heads=4 kv_heads=2 head_dim=64 rope_dims=64 vocab=1024 ctx=8192 experts=8 "
		    "experts_used=2 ff_exp=256",
		    "CTX_SIZE=4096\nPARALLEL=1\nDEVICE=rtx3090\n")) {
		ok(0, "rate: the qwen3moe fixture");
		return;
	}
	struct plan *p = xmalloc(sizeof(*p));
	struct rate all, three;
	if (price(&f, "N_CPU_MOE=0", 0, p, &all) == 0 && price(&f, "N_CPU_MOE=3", 0, p, &three) == 0) {
		double dense = tensor_bytes(&f, "blk.", 0) + tensor_bytes(&f, "output", -1);
		double experts = tensor_bytes(&f, "blk.", 1);
		const struct gguf_tensor *out = gguf_tensor_find(f.c.model->g, "output.weight");
		if (!out) /* a tied head multiplies by the embedding */
			dense += tensor_bytes(&f, "token_embd.", -1);
		ok(experts > dense && close_to(all.weights, dense + experts * 2 / 8),
		   "rate: of %.0f B of expert stacks one token reads 2 of 8 experts: weights %.0f B (want %.0f)",
		   experts, all.weights, dense + experts * 2 / 8);
		ok(all.expert_share == 0.25, "rate: the expert share is experts_used / experts (%.3f)",
		   all.expert_share);
		double moved =
		    (tensor_bytes(&f, "blk.0.", 1) + tensor_bytes(&f, "blk.1.", 1) + tensor_bytes(&f, "blk.2.", 1)) *
		    2 / 8;
		const struct rate_dev *h = dev_named(&three, "host");
		ok(h && close_to(h->weights, moved) && h->kv == 0,
		   "rate: N_CPU_MOE=3 reads the active experts of blocks 0-2 on the host: %.0f B (want %.0f), no KV",
		   h ? h->weights : 0, moved);
		ok(close_to(three.ms_per_token - all.ms_per_token, moved / 1e6 * (1.0 / 51 - 1.0 / 936)),
		   "rate: and costs exactly those bytes at the host's bandwidth instead of the card's");
	}
	free(p);
	fixture_release(&f);
}

void test_rate(void)
{
	sum_of_parts();
	layer_to_host();
	active_experts();
}
