#include "shape_laws.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

struct breaches {
	struct shape_breach *v;
	size_t n, max;
};

static void breach(struct breaches *b, const char *law, enum key_id key, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void breach(struct breaches *b, const char *law, enum key_id key, const char *fix, const char *fmt, ...)
{
	if (b->n < b->max) {
		struct shape_breach *x = &b->v[b->n];
		x->law = law;
		x->key = key;
		snprintf(x->fix, sizeof(x->fix), "%s", fix);
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(x->reason, sizeof(x->reason), fmt, ap);
		va_end(ap);
	}
	b->n++;
}

/* One cache type against one head size (llama_init_from_model): a
 * quantized block must divide it. */
static void cache_head(struct breaches *b, enum key_id key, const struct ggml_type_info *t, uint32_t head,
		       const char *what)
{
	if (!t || t->blck <= 1 || head == 0 || head % t->blck == 0)
		return;
	breach(b, "S04", key, "use f16, bf16 or a type whose block divides the head size",
	       "%s %s has blocks of %u, which do not divide the payload's %s head size %u: the engine refuses the "
	       "context (or, off flash attention, aborts)",
	       key_name(key), t->name, t->blck, what, head);
}

static void cache_heads(struct breaches *b, const struct model *m, enum key_id key, const struct ggml_type_info *t,
			int v)
{
	uint32_t full = v ? m->head_v : m->head_k, swa = v ? m->head_v_swa : m->head_k_swa;
	cache_head(b, key, t, full, v ? "value" : "key");
	if (m->n_kind[LAYER_SWA] && swa != full)
		cache_head(b, key, t, swa, v ? "sliding-window value" : "sliding-window key");
}

static void laws_static(struct breaches *b, const struct plan_shape *s, const struct cand_limits *l)
{
	if (s->parallel == 0) {
		breach(b, "M03", K_PARALLEL, "PARALLEL is the slot count: 1 or more", "PARALLEL is 0");
		return;
	}
	if (s->ctx_size % s->parallel) {
		/* the fix names the nearest pools that divide */
		char fix[160];
		unsigned long long lo = s->ctx_size / s->parallel * s->parallel, hi = lo + s->parallel;
		if (lo)
			snprintf(fix, sizeof(fix),
				 "write CTX_SIZE=%llu or CTX_SIZE=%llu (the multiples of PARALLEL %u "
				 "nearest %llu)",
				 lo, hi, s->parallel, (unsigned long long)s->ctx_size);
		else
			snprintf(fix, sizeof(fix), "write CTX_SIZE=%llu (a multiple of PARALLEL %u)", hi, s->parallel);
		breach(b, "M03", K_CTX_SIZE, fix,
		       "CTX_SIZE %llu is not divisible by PARALLEL %u: the engine pads each slot to 256 and rounds "
		       "the pool",
		       (unsigned long long)s->ctx_size, s->parallel);
	}
	if (l->batch_asked < s->parallel)
		breach(b, "S08", K_BATCH_SIZE, "keep BATCH_SIZE >= PARALLEL",
		       "BATCH_SIZE %llu is below PARALLEL %u: the engine reserves an output per slot, more than the "
		       "batch allows, and aborts at load (GGML_ASSERT n_outputs_max)",
		       (unsigned long long)l->batch_asked, s->parallel);
	if (l->ubatch_asked > l->batch_asked)
		breach(b, "S08", K_UBATCH_SIZE, "keep UBATCH_SIZE <= BATCH_SIZE",
		       "UBATCH_SIZE %llu exceeds BATCH_SIZE %llu: the engine clamps it silently",
		       (unsigned long long)l->ubatch_asked, (unsigned long long)l->batch_asked);
	if (s->type_v && s->type_v->blck > 1 && !l->fa_on)
		breach(b, "S03", K_FLASH_ATTN, "set FLASH_ATTN=on (or an unquantized CACHE_TYPE_V)",
		       "a quantized V cache (%s) exists only on the flash-attention path; FLASH_ATTN %s falls back or "
		       "refuses",
		       s->type_v->name, s->flash_attn ? "auto" : "off");
}

static void laws_payload(struct breaches *b, const struct model *m, const struct plan_shape *s,
			 const struct cand_limits *l)
{
	/* S04: a quantized cache's block must divide every layer's head size:
	 * on the flash-attention path the engine refuses the context, and a K
	 * cache off it aborts the engine at graph build (a V off it is S03's) */
	cache_heads(b, m, K_CACHE_TYPE_K, s->type_k, 0);
	if (s->flash_attn)
		cache_heads(b, m, K_CACHE_TYPE_V, s->type_v, 1);
	/* MLA caches K only and reads V as a view of it: the engine refuses
	 * different K and V types (llama_init_from_model), deepseek4's too */
	int mla = (m->head_k_mla && m->head_v_mla) || strcmp(m->arch, "deepseek4") == 0;
	if (mla && s->type_k && s->type_v && s->type_k != s->type_v)
		breach(b, "S04", K_CACHE_TYPE_V, "set CACHE_TYPE_V to CACHE_TYPE_K",
		       "the payload's attention is MLA (one K-only cache, V a view of K): CACHE_TYPE_K %s and "
		       "CACHE_TYPE_V %s differ, which the engine refuses",
		       s->type_k->name, s->type_v->name);
	if (mla && s->spec_mtp && s->draft_k && s->draft_v && s->draft_k != s->draft_v)
		breach(b, "S04", K_SPEC_DRAFT_TYPE_V, "set SPEC_DRAFT_TYPE_V to SPEC_DRAFT_TYPE_K",
		       "the payload's attention is MLA: the MTP draft context's SPEC_DRAFT_TYPE_K %s and "
		       "SPEC_DRAFT_TYPE_V %s differ, which the engine refuses",
		       s->draft_k->name, s->draft_v->name);
	/* S06: MTP is a property of the file (or of its assistant's, S21) */
	if (s->spec_mtp && s->spec_assist)
		;
	else if (s->spec_mtp && m->n_nextn == 0)
		breach(b, "S06", K_SPEC_TYPE, "use the -MTP export of the payload, or SPEC_TYPE=none",
		       "SPEC_TYPE arms draft-mtp but the payload declares no MTP head (nextn_predict_layers = 0)");
	else if (s->spec_mtp && m->mtp_tensors == 0)
		breach(b, "S06", K_SPEC_TYPE, "use a payload that carries the head, or SPEC_TYPE=none",
		       "the payload declares %u MTP block(s) but carries no blk.N.nextn.* tensors: a ghost drafter "
		       "at acceptance 0.00",
		       m->n_nextn);
	if (s->spec_mtp) {
		cache_heads(b, m, K_SPEC_DRAFT_TYPE_K, s->draft_k, 0);
		if (s->flash_attn)
			cache_heads(b, m, K_SPEC_DRAFT_TYPE_V, s->draft_v, 1);
	}
	/* S19: t5encoder fills its relative position buckets per ubatch and
	 * asserts the ubatch is not split by sequence
	 * (llm_graph_input_pos_bucket::set_input), which a KV cache of several
	 * streams does (llama_kv_cache::init_batch: split_equal) */
	if (strcmp(m->arch, "t5encoder") == 0 && s->parallel > 1 && !s->kv_unified)
		breach(b, "S19", K_KV_UNIFIED, "set KV_UNIFIED=1 (one stream for every slot), or PARALLEL=1",
		       "t5encoder with PARALLEL %u and one KV stream a slot: the engine's first decode splits the "
		       "ubatch by sequence and aborts at load (GGML_ASSERT(!ubatch->equal_seqs()) in its position "
		       "buckets)",
		       s->parallel);
	/* S02: the per-slot window against the trained context */
	uint64_t slot = s->parallel && !s->kv_unified ? s->ctx_size / s->parallel : s->ctx_size;
	if (slot > l->window_cap)
		breach(b, "S02", K_CTX_SIZE, "lower CTX_SIZE, raise PARALLEL, or configure rope scaling",
		       "the per-slot window %llu exceeds the trained context %llu and no rope scaling is configured",
		       (unsigned long long)slot, (unsigned long long)l->window_cap);
}

size_t shape_laws(const struct model *m, const struct plan_shape *s, const struct cand_limits *l, unsigned which,
		  struct shape_breach *out, size_t max)
{
	struct breaches b = {out, 0, max};
	if (which & SHAPE_LAWS_STATIC)
		laws_static(&b, s, l);
	if ((which & SHAPE_LAWS_PAYLOAD) && m)
		laws_payload(&b, m, s, l);
	return b.n;
}
