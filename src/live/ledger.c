#include "ledger.h"

#include <jansson.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"

/* Copy the line into a bounded, NUL-terminated buffer: ledger lines are
 * short, and a longer line (a dumped template, say) is not one of them. */
#define LINE_MAX_BYTES 1024

static const char *after(const char *s, const char *needle)
{
	const char *p = strstr(s, needle);
	return p ? p + strlen(needle) : NULL;
}

static double num_after(const char *s, const char *needle, int *ok)
{
	const char *p = after(s, needle);
	if (!p) {
		*ok = 0;
		return 0;
	}
	char *end;
	double v = strtod(p, &end);
	if (end == p)
		*ok = 0;
	return v;
}

static uint32_t u32_after(const char *s, const char *needle, int *ok)
{
	double v = num_after(s, needle, ok);
	if (v < 0 || v > 4294967295.0)
		*ok = 0;
	return *ok ? (uint32_t)v : 0;
}

/* The buffer-type word just before `marker` ("   CUDA0 KV buffer size",
 * "RPC0[127.0.0.1:50061] model buffer size": a name may hold a colon, never
 * a blank; the engine prints "func: %12s"). */
static void buft_before(const char *line, const char *marker_pos, char *out, size_t n)
{
	const char *e = marker_pos;
	while (e > line && e[-1] == ' ')
		e--;
	const char *b = e;
	while (b > line && b[-1] != ' ')
		b--;
	size_t len = (size_t)(e - b);
	if (len >= n)
		len = n - 1;
	memcpy(out, b, len);
	out[len] = '\0';
}

/* Model buffers of one type add up (a model may map several ranges);
 * compute buffers are re-reserved, and the last reservation stands. */
static void add_buf(struct ledger_buf *bufs, unsigned *n, const char *buft, double mib, int replace)
{
	for (unsigned i = 0; i < *n; i++) {
		if (strcmp(bufs[i].buft, buft) == 0) {
			bufs[i].mib = replace ? mib : bufs[i].mib + mib;
			bufs[i].lines = replace ? 1 : bufs[i].lines + 1;
			return;
		}
	}
	if (*n >= LEDGER_MAX_BUFS)
		return;
	snprintf(bufs[*n].buft, sizeof(bufs[*n].buft), "%s", buft);
	bufs[*n].mib = mib;
	bufs[*n].lines = 1;
	(*n)++;
}

static int buffer_line(const char *line, const char *marker, struct ledger_buf *bufs, unsigned *n, int replace)
{
	const char *m = strstr(line, marker);
	if (!m)
		return 0;
	int ok = 1;
	double mib = num_after(m, "= ", &ok);
	if (!ok)
		return 0;
	char buft[24];
	buft_before(line, m, buft, sizeof(buft));
	add_buf(bufs, n, buft, mib, replace);
	return 1;
}

/* "K (f16):    4.00 MiB" */
static void typed_part(const char *s, const char *tag, char *type, size_t tn, double *mib)
{
	const char *p = strstr(s, tag);
	if (!p)
		return;
	p += strlen(tag);
	const char *e = strchr(p, ')');
	if (!e)
		return;
	size_t n = (size_t)(e - p);
	if (type) {
		if (n >= tn)
			n = tn - 1;
		memcpy(type, p, n);
		type[n] = '\0';
	}
	if (e[1] == ':')
		*mib = strtod(e + 2, NULL);
}

/* A cache's size line after "size =": "X MiB (C cells, L layers, S seqs ...": its
 * MiB, cells, layers and seqs; *end after the seqs' number (NULL without
 * a "layers," part). -1 without the parenthesis. */
static int size_head(const char *p, double *mib, uint32_t *cells, uint32_t *layers, uint32_t *seqs, const char **end)
{
	*mib = strtod(p, NULL);
	*end = NULL;
	const char *paren = strchr(p, '(');
	if (!paren)
		return -1;
	*cells = (uint32_t)strtoul(paren + 1, NULL, 10);
	const char *c = strstr(paren, "cells,");
	if (c)
		*layers = (uint32_t)strtoul(c + 6, NULL, 10);
	const char *l = strstr(paren, "layers,");
	if (l) {
		char *e;
		*seqs = (uint32_t)strtoul(l + 7, &e, 10);
		*end = e;
	}
	return 0;
}

static int kv_line(const char *line, struct ledger_kv *kv)
{
	const char *p = after(line, "llama_kv_cache: size =");
	if (!p)
		return 0;
	int ok = 1;
	if (kv->second && kv->present) { /* the DSA indexer cache: one more cache of the same pool */
		struct ledger_kv more = {0};
		if (!kv_line(line, &more))
			return 0;
		kv->mib += more.mib;
		kv->k_mib += more.k_mib;
		kv->v_mib += more.v_mib;
		kv->layers += more.layers;
		kv->lines++;
		kv->second = 0;
		return 1;
	}
	const char *end;
	if (size_head(p, &kv->mib, &kv->cells, &kv->layers, &kv->seqs, &end))
		return 0;
	if (end && *end == '/')
		kv->streams = (uint32_t)strtoul(end + 1, NULL, 10);
	typed_part(p, "K (", kv->k_type, sizeof(kv->k_type), &kv->k_mib);
	typed_part(p, "V (", kv->v_type, sizeof(kv->v_type), &kv->v_mib);
	kv->lines = 1;
	kv->present = ok;
	return 1;
}

static int rs_line(const char *line, struct ledger_rs *rs)
{
	const char *p = after(line, "llama_memory_recurrent: size =");
	if (!p)
		return 0;
	const char *end;
	if (size_head(p, &rs->mib, &rs->cells, &rs->layers, &rs->seqs, &end))
		return 0;
	const char *q = end ? strstr(end, "seqs") : NULL;
	if (q)
		rs->rs_seq = (uint32_t)strtoul(q + 4, NULL, 10);
	typed_part(p, "R (", NULL, 0, &rs->r_mib);
	typed_part(p, "S (", NULL, 0, &rs->s_mib);
	typed_part(p, "P (", NULL, 0, &rs->p_mib); /* qwen4exp's PLE conv rows */
	rs->present = 1;
	return 1;
}

/* A deepseek4 compressor state (llama_dsv4_comp_state, counted as the
 * recurrent state): "NAME ratio = R, state = ROWS x WIDTH, streams = S,
 * rs_seq = Q, layers = L, size = M MiB", its f32 kv and score tensors
 * priced exactly from the counts; a cell per stream (sequence), as a
 * recurrent state's. */
static int dsv4_state_line(const char *line, struct ledger_rs *rs)
{
	const char *p = after(line, "llama_dsv4_comp_state: ");
	if (!p || !strstr(p, " ratio = "))
		return 0;
	int ok = 1;
	uint32_t rows = u32_after(p, "state = ", &ok);
	const char *x = strstr(p, "state = ");
	uint32_t width = x ? u32_after(x, " x ", &ok) : 0;
	uint32_t streams = u32_after(p, "streams = ", &ok), rs_seq = u32_after(p, "rs_seq = ", &ok);
	uint32_t layers = u32_after(p, "layers = ", &ok);
	if (!ok)
		return 0;
	double half = 4.0 * rows * width * streams * (1.0 + rs_seq) * layers / (1024.0 * 1024.0);
	rs->mib += 2 * half;
	rs->r_mib += half;
	rs->s_mib += half;
	rs->cells = streams;
	rs->layers += layers;
	rs->seqs = streams;
	rs->rs_seq = rs_seq;
	rs->present = 1;
	return 1;
}

static int ctx_field(const char *line, struct ledger_ctx *c)
{
	const char *p = after(line, "llama_context: ");
	if (!p)
		return 0;
	static const struct {
		const char *name;
		size_t off;
	} fields[] = {
	    {"n_ctx ", offsetof(struct ledger_ctx, n_ctx)},
	    {"n_ctx_seq ", offsetof(struct ledger_ctx, n_ctx_seq)},
	    {"n_seq_max ", offsetof(struct ledger_ctx, n_seq_max)},
	    {"n_batch ", offsetof(struct ledger_ctx, n_batch)},
	    {"n_ubatch ", offsetof(struct ledger_ctx, n_ubatch)},
	    {"n_rs_seq ", offsetof(struct ledger_ctx, n_rs_seq)},
	};
	for (size_t i = 0; i < ARRAY_SIZE(fields); i++) {
		size_t n = strlen(fields[i].name);
		if (strncmp(p, fields[i].name, n) != 0)
			continue;
		int ok = 1;
		uint32_t v = u32_after(p, "= ", &ok);
		if (ok) {
			*(uint32_t *)(void *)((char *)c + fields[i].off) = v;
			c->present = 1;
		}
		return ok;
	}
	if (strncmp(p, "kv_unified ", 11) == 0) {
		c->kv_unified = strstr(p, "true") != NULL;
		return 1;
	}
	return 0;
}

/* The lines after the buffers: the projector's, the slots', the fit's. */
static void other_line(struct ledger *l, const char *line)
{
	int ok = 1;
	/* the projector (tools/mtmd/clip.cpp): its loader's "model size" and
	 * the encoder's compute reservation */
	if (strstr(line, "model size:") && (strstr(line, "load_hparams:") || strstr(line, "clip"))) {
		l->projector_model_mib = num_after(line, "model size:", &ok);
		l->has_projector = 1;
		l->recognised++;
		return;
	}
	if ((strstr(line, "reserve_compute_meta:") || strstr(line, "alloc_compute_meta:")) &&
	    buffer_line(line, " compute buffer size", l->projector_compute, &l->n_projector_compute, 1)) {
		l->has_projector = 1;
		l->recognised++;
		return;
	}
	if (strstr(line, "estimated worst-case memory usage of mmproj is")) {
		l->projector_worst_mib = num_after(line, "mmproj is ", &ok);
		l->has_projector = 1;
		l->recognised++;
		return;
	}
	const char *s = strstr(line, "new slot, n_ctx = ");
	if (s) {
		l->slot_n_ctx = (uint32_t)strtoul(s + 18, NULL, 10);
		l->slot_lines++;
		l->recognised++;
		return;
	}
	s = strstr(line, "n_slots = ");
	if (s) {
		l->n_slots = (uint32_t)strtoul(s + 10, NULL, 10);
		l->recognised++;
		return;
	}
	if (strstr(line, "projected to use ")) {
		l->fit_projected_mib = num_after(line, "projected to use ", &ok);
		l->fit_free_mib = num_after(line, " vs. ", &ok);
		l->has_fit = 1;
		l->recognised++;
		return;
	}
	if (strstr(line, "cannot meet free memory target of ")) {
		l->fit_short = 1;
		l->fit_target_mib = num_after(line, "target of ", &ok);
		l->fit_reduce_mib = num_after(line, "memory by ", &ok);
		l->recognised++;
		return;
	}
}

/* A line one of the readings below took: counted, and the line's reading
 * ends. */
static int recognised(struct ledger *l, int took)
{
	if (took)
		l->recognised++;
	return took;
}

static void one_line(const char *line, struct ledger *l, struct ledger_ctx **cur, int *swa_next)
{
	if (!l->engine_error[0] && (strstr(line, "failed to load") || strstr(line, "failed to apply") ||
				    strstr(line, "error loading model") || strstr(line, "out of memory"))) {
		const char *e = strstr(line, " E ");
		snprintf(l->engine_error, sizeof(l->engine_error), "%.255s", e ? e + 3 : line);
	}
	/* common_params_print_info: "build N (COMMIT) with CC for TARGET" */
	const char *b = strstr(line, "common_params_print_info: build ");
	if (b && !l->build[0]) {
		b += strlen("common_params_print_info: build ");
		char *end;
		unsigned long long nb = strtoull(b, &end, 10);
		if (end > b && end[0] == ' ' && end[1] == '(') {
			size_t n = strcspn(end + 2, ") \t");
			if (end[2 + n] == ')' && n < 40) {
				snprintf(l->build, sizeof(l->build), "b%llu-%.*s", nb, (int)n, end + 2);
				l->recognised++;
				return;
			}
		}
	}
	if (strstr(line, "creating MTP draft context") || strstr(line, "loading draft model")) {
		*cur = &l->draft;
		l->draft_announced = 1;
		l->recognised++;
		return;
	}
	/* the drafter is made; a reservation after it is the target's: a
	 * draft-eagle3 or draft-dflash target re-reserves its graph at its
	 * first decode, with the layer inputs it extracts as outputs
	 * (llama_set_embeddings_layer_inp sets sched_need_reserve) */
	if (strstr(line, "speculative decoding context initialized")) {
		*cur = &l->target;
		l->recognised++;
		return;
	}
	int drafter = *cur == &l->draft; /* a drafter model loads after its announcement */
	if (recognised(l, strstr(line, "load_tensors:") &&
			      buffer_line(line, " model buffer size", drafter ? l->draft_model : l->model,
					  drafter ? &l->n_draft_model : &l->n_model, 0)))
		return;
	if (recognised(l, buffer_line(line, " LoRA buffer size", l->lora, &l->n_lora, 0)))
		return;
	if (recognised(l, ctx_field(line, *cur)))
		return;
	if (recognised(l, strstr(line, "llama_context:") &&
			      buffer_line(line, " output buffer size", (*cur)->output, &(*cur)->n_output, 1)))
		return;
	if (strstr(line, "creating     SWA KV cache")) {
		*swa_next = 1;
		return;
	}
	if (strstr(line, "llama_kv_cache_dsa_iswa: creating SWA KV cache")) { /* dots3note's window */
		*swa_next = 1;
		return;
	}
	/* deepseek32's llama_kv_cache_dsa, qwen4exp's llama_memory_hybrid_idx */
	if (strstr(line, "llama_kv_cache_dsa: creating indexer KV cache") ||
	    strstr(line, "(): creating indexer KV cache, size =") ||
	    strstr(line, "llama_kv_cache_msa: creating indexer KV cache")) { /* minimax-m3's MSA cache */
		(*cur)->kv.second = 1;
		return;
	}
	/* deepseek4's compressed caches add to the raw cache's base half */
	if (strstr(line, "llama_kv_cache_dsv4: creating DSV4 ") && strstr(line, " KV cache, size =")) {
		(*cur)->kv.second = 1;
		return;
	}
	if (recognised(l, strstr(line, "llama_dsv4_comp_state:") &&
			      buffer_line(line, " DSV4 ", (*cur)->rs.bufs, &(*cur)->rs.n_bufs, 0)))
		return;
	if (recognised(l, dsv4_state_line(line, &(*cur)->rs)))
		return;
	if (strstr(line, "creating non-SWA KV cache")) {
		*swa_next = 0;
		return;
	}
	if (strstr(line, "llama_kv_cache:")) {
		struct ledger_kv *kv = *swa_next ? &(*cur)->kv_swa : &(*cur)->kv;
		if (recognised(l, buffer_line(line, " KV buffer size", kv->bufs, &kv->n_bufs, 0)))
			return;
	}
	if (recognised(l, strstr(line, "llama_memory_recurrent:") &&
			      buffer_line(line, " RS buffer size", (*cur)->rs.bufs, &(*cur)->rs.n_bufs, 0)))
		return;
	/* "layer N: sharing with layer M": a layer of another context's
	 * cache (gemma4-assistant's); a cache of such layers alone has no
	 * buffer, and its size line counts memory it does not hold */
	if (recognised(l, strstr(line, "llama_kv_cache: layer") && strstr(line, ": sharing with layer"))) {
		l->kv_sharing++;
		return;
	}
	if (strstr(line, "llama_kv_cache: size =") && l->kv_sharing &&
	    !(*swa_next ? &(*cur)->kv_swa : &(*cur)->kv)->n_bufs) {
		l->kv_sharing = 0;
		l->recognised++;
		*swa_next = 0;
		return;
	}
	if (strstr(line, "llama_kv_cache: size =")) {
		l->kv_sharing = 0;
		struct ledger_kv *kv = *swa_next ? &(*cur)->kv_swa : &(*cur)->kv;
		recognised(l, kv_line(line, kv));
		*swa_next = 0;
		return;
	}
	if (recognised(l, rs_line(line, &(*cur)->rs)))
		return;
	if (recognised(l, strstr(line, "sched_reserve:") &&
			      buffer_line(line, " compute buffer size", (*cur)->compute, &(*cur)->n_compute, 1)))
		return;
	other_line(l, line);
}

void ledger_parse(const char *buf, size_t len, struct ledger *l)
{
	memset(l, 0, sizeof(*l));
	l->target.kv_unified = -1;
	l->draft.kv_unified = -1;
	struct ledger_ctx *cur = &l->target;
	int swa_next = 0;
	char line[LINE_MAX_BYTES];
	const char *p = buf, *end = buf + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		size_t n = (size_t)(le - p);
		l->lines++;
		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			/* NULs inside the line end it early: harmless */
			one_line(line, l, &cur, &swa_next);
			if (!l->has_cpu && strstr(line, "system_info:") &&
			    cpu_features_from_system_info(line, strlen(line), &l->cpu) == 0)
				l->has_cpu = 1;
		}
		p = nl ? nl + 1 : end;
	}
}

double ledger_sum(const struct ledger_buf *b, unsigned n)
{
	double s = 0;
	for (unsigned i = 0; i < n; i++)
		s += b[i].mib;
	return s;
}

/* --- as JSON --------------------------------------------------------------- */

static json_t *jbufs(const struct ledger_buf *b, unsigned n)
{
	json_t *a = json_array();
	for (unsigned i = 0; i < n; i++)
		json_array_append_new(a, json_pack("{s:s,s:f}", "device", b[i].buft, "mib", b[i].mib));
	return a;
}

static json_t *jkv(const struct ledger_kv *kv)
{
	if (!kv->present)
		return json_null();
	return json_pack("{s:f,s:f,s:f,s:i,s:i,s:i,s:i,s:s,s:s,s:o}", "mib", kv->mib, "k_mib", kv->k_mib, "v_mib",
			 kv->v_mib, "cells", (json_int_t)kv->cells, "layers", (json_int_t)kv->layers, "seqs",
			 (json_int_t)kv->seqs, "streams", (json_int_t)kv->streams, "k_type", kv->k_type, "v_type",
			 kv->v_type, "devices", jbufs(kv->bufs, kv->n_bufs));
}

static json_t *jctx(const struct ledger_ctx *c)
{
	if (!c->present)
		return json_null();
	json_t *o =
	    json_pack("{s:i,s:i,s:i,s:i,s:i,s:i}", "n_ctx", (json_int_t)c->n_ctx, "n_ctx_seq", (json_int_t)c->n_ctx_seq,
		      "n_seq_max", (json_int_t)c->n_seq_max, "n_batch", (json_int_t)c->n_batch, "n_ubatch",
		      (json_int_t)c->n_ubatch, "n_rs_seq", (json_int_t)c->n_rs_seq);
	json_object_set_new(o, "kv_unified", c->kv_unified < 0 ? json_null() : json_boolean(c->kv_unified));
	json_object_set_new(o, "kv", jkv(&c->kv));
	json_object_set_new(o, "kv_swa", jkv(&c->kv_swa));
	if (c->rs.present)
		json_object_set_new(o, "recurrent",
				    json_pack("{s:f,s:f,s:f,s:i,s:i,s:i,s:i,s:o}", "mib", c->rs.mib, "r_mib",
					      c->rs.r_mib, "s_mib", c->rs.s_mib, "cells", (json_int_t)c->rs.cells,
					      "layers", (json_int_t)c->rs.layers, "seqs", (json_int_t)c->rs.seqs,
					      "rs_seq", (json_int_t)c->rs.rs_seq, "devices",
					      jbufs(c->rs.bufs, c->rs.n_bufs)));
	else
		json_object_set_new(o, "recurrent", json_null());
	json_object_set_new(o, "output", jbufs(c->output, c->n_output));
	json_object_set_new(o, "compute", jbufs(c->compute, c->n_compute));
	return o;
}

json_t *ledger_to_json(const struct ledger *l)
{
	json_t *o = json_object();
	json_object_set_new(o, "build", l->build[0] ? json_string(l->build) : json_null());
	json_object_set_new(o, "model", jbufs(l->model, l->n_model));
	json_object_set_new(o, "target", jctx(&l->target));
	json_object_set_new(o, "draft", jctx(&l->draft));
	if (l->n_draft_model)
		json_object_set_new(o, "draft_model", jbufs(l->draft_model, l->n_draft_model));
	json_object_set_new(o, "lora", jbufs(l->lora, l->n_lora));
	json_object_set_new(o, "engine_error", l->engine_error[0] ? json_string(l->engine_error) : json_null());
	json_object_set_new(o, "n_slots", json_integer(l->n_slots));
	json_object_set_new(o, "slot_n_ctx", json_integer(l->slot_n_ctx));
	if (l->has_projector)
		json_object_set_new(o, "projector",
				    json_pack("{s:f,s:f,s:o}", "model_mib", l->projector_model_mib, "worst_case_mib",
					      l->projector_worst_mib, "compute",
					      jbufs(l->projector_compute, l->n_projector_compute)));
	else
		json_object_set_new(o, "projector", json_null());
	if (l->has_fit)
		json_object_set_new(o, "fit",
				    json_pack("{s:f,s:f,s:b,s:f,s:f}", "projected_mib", l->fit_projected_mib,
					      "free_mib", l->fit_free_mib, "short", l->fit_short, "target_mib",
					      l->fit_target_mib, "reduce_mib", l->fit_reduce_mib));
	else
		json_object_set_new(o, "fit", json_null());
	char feat[128];
	json_object_set_new(o, "cpu_features",
			    l->has_cpu ? json_string(cpu_features_format(&l->cpu, feat, sizeof(feat))) : json_null());
	return o;
}
