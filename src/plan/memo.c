#include "memo.h"

#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

#define MODEL_SLOTS 16

struct model_key {
	struct plan_shape s;
	const struct device *dev;
};

struct model_entry {
	int used;
	struct model_key k;
	struct plan_buf bufs[PLAN_MAX_BUFS];
	unsigned n;
};

struct piece_entry {
	uint64_t hash;
	void *key; /* NULL: empty slot */
	size_t len;
	struct ga_piece *pc;
	unsigned n, cap;
};

struct memo {
	struct model_entry model[MODEL_SLOTS];
	unsigned model_next;
	struct piece_entry *tab;
	size_t cap, used;
	struct memo_stats st;
	uint64_t iv_lo, iv_hi;
};

struct memo *memo_new(void)
{
	/* A memo's user builds and frees graphs of megabytes for each
	 * candidate: glibc would give the heap's top back to the kernel after
	 * each and fault it in again (a thousand brk calls and a third of a
	 * solve's time on a card). Keep up to 256 MiB of it. */
	mallopt(M_TRIM_THRESHOLD, 256 << 20);
	mallopt(M_TOP_PAD, 16 << 20);
	struct memo *mm = xcalloc(1, sizeof(*mm));
	mm->cap = 256;
	mm->tab = xcalloc(mm->cap, sizeof(*mm->tab));
	memo_interval_reset(mm);
	return mm;
}

void memo_free(struct memo *mm)
{
	if (!mm)
		return;
	for (size_t i = 0; i < mm->cap; i++) {
		free(mm->tab[i].key);
		free(mm->tab[i].pc);
	}
	free(mm->tab);
	free(mm);
}

const struct memo_stats *memo_stats(const struct memo *mm)
{
	return &mm->st;
}

/* The model term reads the payload, the device and the placement keys
 * (ngl, the drafter's blocks, repack): the fields it cannot read are zeroed
 * out of the key, so a field added to plan_shape is in the key by default. */
static void model_key(struct model_key *k, const struct plan_shape *s, const struct device *dev)
{
	memset(k, 0, sizeof(*k));
	memcpy(&k->s, s, sizeof(*s));
	k->s.ctx_size = 0;
	k->s.parallel = 0;
	k->s.kv_unified = 0;
	k->s.type_k = k->s.type_v = k->s.draft_k = k->s.draft_v = NULL;
	k->s.flash_attn = 0;
	k->s.n_batch = k->s.n_ubatch = 0;
	k->s.spec_n_max = 0;
	k->s.swa_full = 0;
	k->dev = dev;
}

int memo_model_get(struct memo *mm, const struct plan_shape *s, const struct device *dev, struct plan *p)
{
	if (!mm)
		return 0;
	struct model_key k;
	model_key(&k, s, dev);
	for (unsigned i = 0; i < MODEL_SLOTS; i++) {
		struct model_entry *e = &mm->model[i];
		if (e->used && memcmp(&e->k, &k, sizeof(k)) == 0) {
			memcpy(p->model, e->bufs, sizeof(e->bufs));
			p->n_model = e->n;
			mm->st.model_hits++;
			return 1;
		}
	}
	mm->st.model_misses++;
	return 0;
}

void memo_model_put(struct memo *mm, const struct plan_shape *s, const struct device *dev, const struct plan *p)
{
	if (!mm)
		return;
	struct model_entry *e = &mm->model[mm->model_next++ % MODEL_SLOTS];
	model_key(&e->k, s, dev);
	memcpy(e->bufs, p->model, sizeof(e->bufs));
	e->n = p->n_model;
	e->used = 1;
}

static void narrow(struct memo *mm, const struct ga_piece *pc)
{
	if (pc->lo > mm->iv_lo)
		mm->iv_lo = pc->lo;
	if (pc->hi < mm->iv_hi)
		mm->iv_hi = pc->hi;
}

void memo_interval_reset(struct memo *mm)
{
	mm->iv_lo = 0;
	mm->iv_hi = UINT64_MAX;
}

void memo_interval(const struct memo *mm, uint64_t *lo, uint64_t *hi)
{
	*lo = mm->iv_lo;
	*hi = mm->iv_hi;
}

static uint64_t fnv(const void *key, size_t len)
{
	const unsigned char *b = key;
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static struct piece_entry *slot(struct memo *mm, const void *key, size_t len, uint64_t h)
{
	size_t i = h & (mm->cap - 1);
	for (;;) {
		struct piece_entry *e = &mm->tab[i];
		if (!e->key || (e->hash == h && e->len == len && memcmp(e->key, key, len) == 0))
			return e;
		i = (i + 1) & (mm->cap - 1);
	}
}

int memo_piece_find(struct memo *mm, const void *key, size_t len, uint64_t n, uint64_t *bytes)
{
	struct piece_entry *e = slot(mm, key, len, fnv(key, len));
	if (!e->key)
		return 0;
	for (unsigned i = 0; i < e->n; i++) {
		const struct ga_piece *pc = &e->pc[i];
		if (n >= pc->lo && n <= pc->hi) {
			*bytes = (uint64_t)(pc->a + pc->b * (int64_t)n);
			narrow(mm, pc);
			mm->st.piece_hits++;
			return 1;
		}
	}
	return 0;
}

static void grow(struct memo *mm)
{
	struct piece_entry *old = mm->tab;
	size_t n = mm->cap;
	mm->cap *= 2;
	mm->tab = xcalloc(mm->cap, sizeof(*mm->tab));
	for (size_t i = 0; i < n; i++)
		if (old[i].key)
			*slot(mm, old[i].key, old[i].len, old[i].hash) = old[i];
	free(old);
}

void memo_piece_add(struct memo *mm, const void *key, size_t len, const struct ga_piece *pc)
{
	if ((mm->used + 1) * 4 > mm->cap * 3)
		grow(mm);
	uint64_t h = fnv(key, len);
	struct piece_entry *e = slot(mm, key, len, h);
	if (!e->key) {
		e->key = xmalloc(len);
		memcpy(e->key, key, len);
		e->len = len;
		e->hash = h;
		mm->used++;
	}
	if (e->n == e->cap) {
		e->cap = e->cap ? e->cap * 2 : 4;
		e->pc = xreallocarray(e->pc, e->cap, sizeof(*e->pc));
	}
	e->pc[e->n++] = *pc;
	narrow(mm, pc);
}

void memo_count_replay(struct memo *mm, int affine)
{
	if (affine)
		mm->st.affine_replays++;
	else
		mm->st.plain_replays++;
}
