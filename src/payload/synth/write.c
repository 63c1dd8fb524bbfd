/* synth's shared writers: tensors of every family's shapes, the blocks
 * many families share, the keys every payload carries (general.*, the
 * geometry), and the file itself (whole or split). Nothing here asks for
 * an architecture by name: what differs is the family row's (synth_int.h). */
#include <endian.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../base/util.h"
#include "../ggml_type.h"
#include "../split.h"
#include "../synth.h"
#include "synth_int.h"

/* Write the file, report its size, release the writer. */
int write_out(struct gguf_writer *w, const char *path, uint64_t *bytes, char **err)
{
	uint64_t hlen;
	free(gw_header(w, &hlen));
	int rc = gw_write(w, path, err);
	if (rc == 0 && bytes)
		*bytes = hlen + w->data_size;
	gw_release(w);
	return rc;
}

/* A write's result, and its kind: a failure to write is ZE_IO. */
int written(int rc, enum zerr *kind)
{
	zerr_set(kind, rc ? ZE_IO : ZE_OK);
	return rc;
}

/* Shard k of n of the payload path names (the first shard or the whole). */
static void shard_name(struct sb *b, const char *path, uint32_t k, uint32_t n)
{
	size_t plen, len = strlen(path);
	unsigned pk, pc;
	if (split_name_parse(path, &plen, &pk, &pc) == 0)
		sb_add(b, path, plen);
	else
		sb_add(b, path, len > 5 && strcmp(path + len - 5, ".gguf") == 0 ? len - 5 : len);
	sb_addf(b, "-%05u-of-%05u.gguf", k, n);
}

int synth_out_free(const char *path, uint32_t n_split, char **err)
{
	for (uint32_t k = 1; k <= (n_split > 1 ? n_split : 1); k++) {
		struct sb p = {0};
		if (n_split > 1)
			shard_name(&p, path, k, n_split);
		else
			sb_adds(&p, path);
		int exists = access(p.s, F_OK) == 0;
		if (exists)
			errorf(err, "'%s' exists: --force replaces it", p.s);
		sb_release(&p);
		if (exists)
			return -1;
	}
	return 0;
}

/* Write the payload whole beside path, then cut it into n shards the
 * engine's way (split.c); path names the first shard or the whole. */
int write_split(struct gguf_writer *w, const char *path, uint32_t n, uint64_t *bytes, char **err)
{
	struct sb whole = {0}, first = {0};
	sb_addf(&whole, "%s.whole.tmp", path);
	shard_name(&first, path, 1, n);
	int rc = write_out(w, whole.s, bytes, err);
	if (rc == 0)
		rc = split_write(whole.s, n, first.s, err);
	unlink(whole.s);
	sb_release(&whole);
	sb_release(&first);
	return rc;
}

/* --- tensors ------------------------------------------------------------- */

uint64_t synth_bytes_of(uint32_t type, uint64_t n)
{
	const struct ggml_type_info *t = ggml_type_get(type);
	if (!t)
		return n / CUSTOM_BLCK * CUSTOM_SIZE;
	return n / t->blck * t->size;
}

/* A 1-D f32 vector (norms, biases, gates). */
void vec(struct tw *t, const char *name, uint64_t n)
{
	uint64_t ne[1] = {n};
	gw_tensor(t->w, name, 1, ne, 0, n * 4);
}

/* Which keys make a matrix's row (its input width), by the tensor's
 * role in the shapes below; the key values are printed only when they
 * multiply out to the row, so a new tensor cannot be misattributed. */
static void row_keys(struct sb *b, const struct synth_spec *s, const char *name, uint64_t ne0)
{
	static const char *const roles[] = {"ffn_down.weight", "attn_output.weight", "ssm_out.weight",
					    "eh_proj.weight"};
	if (!s)
		return;
	size_t n = strlen(name), role = ARRAY_SIZE(roles);
	for (size_t i = 0; i < ARRAY_SIZE(roles); i++) {
		size_t m = strlen(roles[i]);
		if (n >= m && strcmp(name + n - m, roles[i]) == 0)
			role = i;
	}
	if (role == 0 && ne0 == s->n_ff)
		sb_addf(b, " (ff=%u)", s->n_ff);
	else if (role == 1 && ne0 == (uint64_t)s->head_dim * s->n_head)
		sb_addf(b, " (head_dim=%u x heads=%u)", s->head_dim, s->n_head);
	else if (role == 2 && ne0 == (uint64_t)s->ssm_state * s->ssm_dt_rank)
		sb_addf(b, " (ssm_state=%u x ssm_dt_rank=%u)", s->ssm_state, s->ssm_dt_rank);
	else if (role == 3 && ne0 == 2ull * s->n_embd)
		sb_addf(b, " (2 x embd=%u)", s->n_embd);
	else if (role == ARRAY_SIZE(roles) && ne0 == s->n_embd)
		sb_addf(b, " (embd=%u)", s->n_embd);
}

/* A weight matrix: ne0 is the input width, as the engine's shapes read.
 * The engine's reader refuses a tensor whose row is not a whole number of
 * its type's blocks (ggml/src/gguf.cpp: "has N elements per row, not a
 * multiple of block size"), so the first such tensor is remembered and
 * synth_write refuses the whole file. */
void mat(struct tw *t, const char *name, uint64_t ne0, uint64_t ne1)
{
	uint64_t ne[2] = {ne0, ne1};
	const struct ggml_type_info *ti = ggml_type_get(t->wtype);
	uint32_t blck = ti ? ti->blck : CUSTOM_BLCK;
	if (ne0 % blck && !t->bad) {
		struct sb b = {0};
		if (ti)
			sb_addf(&b, "type=%s", ti->name);
		else
			sb_addf(&b, "type=%u (custom, written in blocks of %u)", t->wtype, blck);
		sb_addf(&b, ": tensor '%s' would have %llu elements per row", name, (unsigned long long)ne0);
		row_keys(&b, t->s, name, ne0);
		sb_addf(&b, ", not a multiple of the type's block size (%u): the engine refuses such a file", blck);
		t->bad = sb_detach(&b);
	}
	uint64_t bytes = synth_bytes_of(t->wtype, ne0 * ne1);
	if (!ti && !t->fixed) {
		t->seen += ne0 * ne1;
		if (t->elems) {
			int64_t due = (int64_t)((double)t->extra * ((double)t->seen / (double)t->elems));
			bytes = (uint64_t)((int64_t)bytes + due - t->given);
			t->given = due;
		}
	}
	gw_tensor(t->w, name, 2, ne, t->wtype, bytes);
}

/* Refuse the file if a matrix broke the block rule; releases the writer. */
int refused(struct tw *t, char **err)
{
	if (!t->bad)
		return 0;
	errorf(err, "%s", t->bad);
	free(t->bad);
	t->bad = NULL;
	gw_release(t->w);
	return -1;
}

void blkname(char *buf, size_t n, uint32_t il, const char *suffix)
{
	snprintf(buf, n, "blk.%u.%s", il, suffix);
}

void f32_tensor(struct tw *t, const char *name, uint32_t n_dims, uint64_t ne0, uint64_t ne1, uint64_t ne2)
{
	uint64_t ne[3] = {ne0, ne1, ne2};
	gw_tensor(t->w, name, n_dims, ne, 0, ne0 * ne1 * ne2 * 4);
}

/* Qwen3-MoE (src/models/qwen3moe.cpp): q/k-normed attention and, in place
 * of the FFN, a router and three expert stacks [in, out, experts]. */
void expert_stack(struct tw *t, uint32_t il, const char *suffix, uint64_t ne0, uint64_t ne1, uint64_t n)
{
	char nm[64];
	blkname(nm, sizeof(nm), il, suffix);
	const struct ggml_type_info *ti = ggml_type_get(t->wtype);
	uint32_t blck = ti ? ti->blck : CUSTOM_BLCK;
	if (ne0 % blck && !t->bad) {
		struct sb b = {0};
		sb_addf(&b,
			"type=%s: tensor '%s' would have %llu elements per row, not a multiple of its block of %u: "
			"the engine refuses such a file",
			ti ? ti->name : "custom", nm, (unsigned long long)ne0, blck);
		t->bad = sb_detach(&b);
	}
	uint64_t ne[3] = {ne0, ne1, n};
	gw_tensor(t->w, nm, 3, ne, t->wtype, synth_bytes_of(t->wtype, ne0 * ne1) * n);
}

/* --- blocks ---------------------------------------------------------------- */

void ffn(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	BM("ffn_gate.weight", s->n_embd, s->n_ff);
	BM("ffn_down.weight", s->n_ff, s->n_embd);
	BM("ffn_up.weight", s->n_embd, s->n_ff);
}

void qkv(struct tw *t, const struct synth_spec *s, uint32_t il, uint32_t q_mult)
{
	char nm[64];
	uint64_t q = (uint64_t)s->head_dim * s->n_head;
	uint64_t kv = (uint64_t)s->head_dim * s->n_head_kv;
	BM("attn_q.weight", s->n_embd, q * q_mult);
	BM("attn_k.weight", s->n_embd, kv);
	if (il == 0)
		t->v0_at = gw_data_at(t->w);
	BM("attn_v.weight", s->n_embd, kv);
	if (il == 0)
		t->o0_at = gw_data_at(t->w);
	BM("attn_output.weight", s->out_rows ? s->out_rows : q, s->n_embd);
}

void qkv_bias(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	BV("attn_q.bias", (uint64_t)s->head_dim * s->n_head);
	BV("attn_k.bias", (uint64_t)s->head_dim * s->n_head_kv);
	BV("attn_v.bias", (uint64_t)s->head_dim * s->n_head_kv);
}

void attn_block(struct tw *t, const struct synth_spec *s, uint32_t il, unsigned how)
{
	char nm[64];
	BV("attn_norm.weight", s->n_embd);
	qkv(t, s, il, 1);
	if (how & ATTN_BIAS)
		qkv_bias(t, s, il);
	if (how & ATTN_QK_NORM) {
		BV("attn_k_norm.weight", s->head_dim);
		BV("attn_q_norm.weight", s->head_dim);
	}
	BV("ffn_norm.weight", s->n_embd);
}

/* The router stays f32, as converted MoE payloads ship it. */
void router(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	uint64_t ne[2] = {s->n_embd, s->n_expert};
	blkname(nm, sizeof(nm), il, "ffn_gate_inp.weight");
	gw_tensor(t->w, nm, 2, ne, 0, ne[0] * ne[1] * 4);
}

void expert_ffn(struct tw *t, const struct synth_spec *s, uint32_t il, uint64_t fe)
{
	expert_stack(t, il, "ffn_gate_exps.weight", s->n_embd, fe, s->n_expert);
	expert_stack(t, il, "ffn_down_exps.weight", fe, s->n_embd, s->n_expert);
	expert_stack(t, il, "ffn_up_exps.weight", s->n_embd, fe, s->n_expert);
}

void moe_defaults(struct synth_spec *s, uint32_t n, uint32_t used, uint32_t ff_exp)
{
	s->n_expert = n;
	s->n_expert_used = used;
	if (ff_exp)
		s->n_ff_exp = ff_exp;
}

void moe_layer(struct tw *t, const struct synth_spec *s, uint32_t il, unsigned how, uint64_t fe)
{
	attn_block(t, s, il, how);
	router(t, s, il);
	expert_ffn(t, s, il, fe);
}

void shexp(struct tw *t, const struct synth_spec *s, uint32_t il, uint64_t fe)
{
	char nm[64];
	BM("ffn_gate_shexp.weight", s->n_embd, fe);
	BM("ffn_down_shexp.weight", fe, s->n_embd);
	BM("ffn_up_shexp.weight", s->n_embd, fe);
}

/* gate, down, up expert stacks, or gate_up and down fused (gate_up=1:
 * create_tensor_gate_up_exps takes one {embd, 2 x ff_exp, experts}) */
void expert_stacks(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	if (s->gate_up) {
		expert_stack(t, il, "ffn_gate_up_exps.weight", s->n_embd, 2ull * s->n_ff_exp, s->n_expert);
		expert_stack(t, il, "ffn_down_exps.weight", s->n_ff_exp, s->n_embd, s->n_expert);
		return;
	}
	expert_ffn(t, s, il, s->n_ff_exp);
}

/* The routed experts of layer il: router (f32), optional selection
 * bias, the three stacks; then the shared expert. */
void moe_block(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	router(t, s, il);
	if (s->probs_b)
		BV("exp_probs_b.bias", s->n_expert);
	expert_stacks(t, s, il);
	shexp(t, s, il, (uint64_t)s->n_ff_exp * s->n_shared);
}

void nextn_head(struct tw *t, const struct synth_spec *s, uint32_t il)
{
	char nm[64];
	BM("nextn.eh_proj.weight", 2ull * s->n_embd, s->n_embd);
	BV("nextn.enorm.weight", s->n_embd);
	BV("nextn.hnorm.weight", s->n_embd);
	BV("nextn.shared_head_norm.weight", s->n_embd);
}

/* --- keys ------------------------------------------------------------------ */

void akey(char *buf, size_t n, const struct synth_spec *s, const char *suffix)
{
	snprintf(buf, n, "%s.%s", s->arch, suffix);
}

void akey_u32(struct gguf_writer *w, const struct synth_spec *s, const char *suffix, uint32_t v)
{
	char k[96];
	akey(k, sizeof(k), s, suffix);
	gw_u32(w, k, v);
}

void akey_f32(struct gguf_writer *w, const struct synth_spec *s, const char *suffix, float v)
{
	char k[96];
	akey(k, sizeof(k), s, suffix);
	gw_f32(w, k, v);
}

void akey_bool(struct gguf_writer *w, const struct synth_spec *s, const char *suffix, int v)
{
	char k[96];
	akey(k, sizeof(k), s, suffix);
	gw_bool(w, k, v);
}

static int64_t file_type(uint32_t wtype)
{
	switch (wtype) {
	case 0: return 0;				 /* ALL_F32 */
	case 1: return 1;				 /* MOSTLY_F16 */
	case 2: return 2;				 /* MOSTLY_Q4_0 */
	case 8: return 7;				 /* MOSTLY_Q8_0 */
	case 30: return 32;				 /* MOSTLY_BF16 */
	default: return ggml_type_get(wtype) ? -1 : 141; /* a fork's custom file type */
	}
}

/* general.*: architecture, type, name, file type, sampling defaults. */
void keys_general(struct gguf_writer *w, const struct synth_spec *s)
{
	gw_str(w, "general.architecture", s->arch);
	gw_str(w, "general.type", "model");
	gw_str(w, "general.name", s->name);
	int64_t ft = s->ftype_name[0] ? s->ftype : file_type(s->wtype);
	if (ft >= 0)
		gw_u32(w, "general.file_type", (uint32_t)ft);
	gw_f32(w, "general.sampling.temp", 1.0f);
	gw_f32(w, "general.sampling.top_p", 0.95f);
	gw_i32(w, "general.sampling.top_k", 20);
	if (answer_mode(s))
		gw_str(w, "zealot.synth.answer", s->answer);
	if (s->alt[0])
		gw_str(w, "zealot.synth.alt", s->alt);
	if (s->image_answer[0])
		gw_str(w, "zealot.synth.image_answer", s->image_answer);
}

void keys_heads_swa(struct gguf_writer *w, const struct synth_spec *s)
{
	char k[96];
	akey(k, sizeof(k), s, "attention.head_count");
	gw_arr_begin(w, k, GGUF_I32, s->n_layer + s->n_nextn); /* an MTP block has the window's */
	for (uint32_t il = 0; il < s->n_layer + s->n_nextn; il++)
		gw_arr_i32(w, (int32_t)(il >= s->n_layer || il % s->swa_pattern < s->swa_pattern - 1 ? s->n_head_swa
												     : s->n_head));
}

/* The geometry every architecture states: blocks, context, widths,
 * heads, head sizes, norm epsilon, RoPE; per-layer arrays where the
 * family's layers differ (f->layer). */
void keys_geometry(struct gguf_writer *w, const struct synth_spec *s, const struct synth_family *f)
{
	char k[96];
	akey_u32(w, s, "block_count", s->n_layer + s->n_nextn);
	akey_u32(w, s, "context_length", (uint32_t)s->n_ctx); /* the engine insists on u32 */
	akey_u32(w, s, "embedding_length", s->n_embd);
	akey(k, sizeof(k), s, "feed_forward_length");
	if (f->layer && f->ff_per_layer) { /* the FFN width on FFN-only layers, 0 elsewhere */
		gw_arr_begin(w, k, GGUF_I32, s->n_layer);
		for (uint32_t il = 0; il < s->n_layer; il++)
			gw_arr_i32(w, f->layer(s, il) == 'F' ? (int32_t)s->n_ff : 0);
	} else {
		gw_u32(w, k, s->n_ff);
	}
	if ((f->flags & SF_HEADS_SWA) && s->n_head_swa) /* per layer: heads_swa on the window's layers */
		keys_heads_swa(w, s);
	else
		akey_u32(w, s, "attention.head_count",
			 f->flags & SF_NO_HEADS ? 0
			 : s->heads_meta	? s->heads_meta
						: s->n_head);
	int mla = (f->flags & SF_MLA) && !s->mha; /* K-only rows of kv_lora + rope */
	int mha_v = (f->flags & SF_MHA_V) != 0;
	akey(k, sizeof(k), s, "attention.head_count_kv");
	if (f->layer) { /* KV heads on attention layers only: 0 marks the others (and the MTP blocks' with SF_MTP) */
		uint32_t n = s->n_layer + (f->flags & SF_MTP ? s->n_nextn : 0);
		gw_arr_begin(w, k, GGUF_I32, n);
		for (uint32_t il = 0; il < n; il++)
			gw_arr_i32(w, f->layer(s, il) != 'A' ? 0 : mla ? 1 : (int32_t)s->n_head_kv);
	} else if (!(f->flags & SF_OWN_KV)) {
		gw_u32(w, k, s->kv_heads_meta ? s->kv_heads_meta : mla ? 1 : mha_v ? s->n_head : s->n_head_kv);
	}
	akey_u32(w, s, "attention.key_length",
		 s->head_dim_meta ? s->head_dim_meta
		 : mla		  ? s->kv_lora + s->rope_dims
				  : s->head_dim);
	akey_u32(w, s, "attention.value_length",
		 s->head_dim_v_meta ? s->head_dim_v_meta
		 : mla		    ? s->kv_lora
		 : mha_v	    ? s->head_dim_v
				    : s->head_dim);
	akey_f32(w, s, "attention.layer_norm_rms_epsilon", 1e-6f);
	akey_f32(w, s, "rope.freq_base", f->rope_base ? f->rope_base : 10000.0f);
	akey_u32(w, s, "rope.dimension_count", s->rope_dims);
}

/* The SSM mixer's keys (Gated DeltaNet and Mamba-2 alike), its inner
 * width as the family states it; mamba (v1) has no groups: the engine
 * reads none. */
void keys_ssm(struct gguf_writer *w, const struct synth_spec *s, uint32_t inner, int groups)
{
	akey_u32(w, s, "ssm.conv_kernel", s->ssm_conv);
	akey_u32(w, s, "ssm.state_size", s->ssm_state);
	if (groups)
		akey_u32(w, s, "ssm.group_count", s->ssm_groups);
	akey_u32(w, s, "ssm.time_step_rank", s->ssm_dt_rank);
	akey_u32(w, s, "ssm.inner_size", inner);
}

/* expert_count and expert_used_count, then expert_feed_forward_length when
 * ff is not 0. */
void keys_experts(struct gguf_writer *w, const struct synth_spec *s, uint32_t ff)
{
	char k[96];
	akey(k, sizeof(k), s, "expert_count");
	gw_u32(w, k, s->n_expert);
	akey(k, sizeof(k), s, "expert_used_count");
	gw_u32(w, k, s->n_expert_used);
	if (ff) {
		akey(k, sizeof(k), s, "expert_feed_forward_length");
		gw_u32(w, k, ff);
	}
}

void keys_window(struct gguf_writer *w, const struct synth_spec *s, int pattern)
{
	akey_u32(w, s, "attention.sliding_window", s->n_swa);
	if (pattern)
		akey_u32(w, s, "attention.sliding_window_pattern", s->swa_pattern);
}

void keys_rope_sections(struct gguf_writer *w, const struct synth_spec *s)
{
	static const int32_t sections[4] = {11, 11, 10, 0};
	char k[96];
	akey(k, sizeof(k), s, "rope.dimension_sections");
	gw_arr_begin(w, k, GGUF_I32, 4);
	for (int i = 0; i < 4; i++)
		gw_arr_i32(w, sections[i]);
}
