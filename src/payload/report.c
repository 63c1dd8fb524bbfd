/* report: a payload as `zealot inspect` shows it: the JSON of its header,
 * model and census, and the pieces its table prints. */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "ggml_type.h"

const char *payload_type_label(const struct census_type *t, char *buf, size_t n)
{
	if (t->name)
		return t->name;
	const char *fork = ggml_custom_type_name(t->type);
	if (fork)
		return fork;
	snprintf(buf, n, "type%u", t->type);
	return buf;
}

/* The layer map: one letter per block, A attention, S sliding window,
 * R recurrent, N nextn. */
char *payload_layer_map(const struct model *m)
{
	static const char letters[LAYER_NKINDS] = {'A', 'S', 'R', 'N'};
	struct sb b = {0};
	for (uint32_t il = 0; il < m->n_layer_all; il++)
		sb_addc(&b, letters[m->kind[il]]);
	return sb_detach(&b);
}

/* Distinct (kind, K width, V width) groups among KV-holding layers. */
size_t payload_kv_groups(const struct model *m, struct payload_kvgeo *out, size_t max)
{
	size_t n = 0;
	for (uint32_t il = 0; il < m->n_layer_all; il++) {
		if (m->kind[il] == LAYER_RECURRENT)
			continue;
		uint32_t k = model_n_embd_k_gqa(m, il), v = model_n_embd_v_gqa(m, il);
		size_t j;
		for (j = 0; j < n; j++)
			if (out[j].kind == m->kind[il] && out[j].k == k && out[j].v == v)
				break;
		if (j == n) {
			if (n == max)
				continue;
			out[n++] = (struct payload_kvgeo){m->kind[il], k, v, m->n_head_kv[il], 0};
		}
		out[j].layers++;
	}
	return n;
}

static json_t *json_u64(uint64_t v)
{
	return json_integer((json_int_t)v);
}

/* The model's shape: layers, the KV geometry, recurrent state, MTP, MLA,
 * experts and rope. */
static void model_json(json_t *o, const struct model *m)
{
	json_object_set_new(o, "block_count", json_integer(m->n_layer_all));
	json_t *layers = json_object();
	for (int k = 0; k < LAYER_NKINDS; k++)
		json_object_set_new(layers, layer_kind_name((enum layer_kind)k), json_integer(m->n_kind[k]));
	json_object_set_new(o, "layers", layers);
	char *map = payload_layer_map(m);
	json_object_set_new(o, "layer_map", json_string(map));
	free(map);
	json_object_set_new(o, "layer_sources",
			    json_pack("{s:s?,s:s?}", "recurrent", m->recurrent_source, "swa", m->swa_source));
	json_object_set_new(o, "context_length", json_u64(m->n_ctx_train));
	json_object_set_new(o, "vocab_size", json_u64(m->n_vocab));
	json_object_set_new(o, "embedding_length", json_integer(m->n_embd));
	json_object_set_new(o, "feed_forward_length", json_integer(m->n_ff));
	json_object_set_new(o, "head_count", json_integer(m->n_head[0]));
	json_object_set_new(o, "head_count_kv", json_integer(m->n_head_kv[0]));
	json_object_set_new(o, "key_length", json_integer(m->head_k));
	json_object_set_new(o, "value_length", json_integer(m->head_v));
	json_object_set_new(o, "sliding_window", json_integer(m->n_swa));
	struct payload_kvgeo geo[16];
	size_t ng = payload_kv_groups(m, geo, 16);
	json_t *kv = json_array();
	for (size_t i = 0; i < ng; i++)
		json_array_append_new(kv, json_pack("{s:s,s:i,s:i,s:i,s:i}", "kind", layer_kind_name(geo[i].kind),
						    "layers", (json_int_t)geo[i].layers, "head_count_kv",
						    (json_int_t)geo[i].heads, "n_embd_k_gqa", (json_int_t)geo[i].k,
						    "n_embd_v_gqa", (json_int_t)geo[i].v));
	json_object_set_new(o, "kv_geometry", kv);
	if (m->n_kind[LAYER_RECURRENT]) {
		json_object_set_new(o, "recurrent",
				    json_pack("{s:i,s:i,s:i,s:i,s:i,s:I,s:I}", "d_conv", (json_int_t)m->ssm_d_conv,
					      "d_inner", (json_int_t)m->ssm_d_inner, "d_state",
					      (json_int_t)m->ssm_d_state, "n_group", (json_int_t)m->ssm_n_group,
					      "dt_rank", (json_int_t)m->ssm_dt_rank, "n_embd_r",
					      (json_int_t)m->n_embd_r, "n_embd_s", (json_int_t)m->n_embd_s));
	} else {
		json_object_set_new(o, "recurrent", json_null());
	}
	json_object_set_new(o, "mtp",
			    json_pack("{s:i,s:i,s:i,s:b}", "declared", (json_int_t)m->n_nextn, "tensors",
				      (json_int_t)m->mtp_tensors, "blocks", (json_int_t)m->mtp_blocks, "present",
				      m->n_nextn > 0 && m->mtp_tensors > 0));
	/* MLA: one K-only cache row of kv_lora + rope per layer, V a view of it */
	json_object_set_new(o, "mla",
			    m->head_k_mla && m->head_v_mla
				? json_pack("{s:i,s:i,s:i,s:i,s:b}", "kv_lora_rank", (json_int_t)m->kv_lora_rank,
					    "q_lora_rank", (json_int_t)m->q_lora_rank, "key_length_mla",
					    (json_int_t)m->head_k_mla, "value_length_mla", (json_int_t)m->head_v_mla,
					    "v_cached", 0)
				: json_null());
	static const char *const gating[] = {NULL, "softmax", "sigmoid", "softmax_weight", "sqrt_softplus"};
	json_t *ex = json_null();
	if (m->n_expert) {
		ex = json_pack("{s:i,s:i,s:i,s:i,s:i,s:b,s:f,s:i,s:i}", "count", (json_int_t)m->n_expert, "used",
			       (json_int_t)m->n_expert_used, "feed_forward_length", (json_int_t)m->n_ff_exp, "shared",
			       (json_int_t)m->n_expert_shared, "leading_dense", (json_int_t)m->n_lead_dense,
			       "weights_norm", m->expert_w_norm != 0, "weights_scale", m->expert_w_scale, "groups",
			       (json_int_t)m->n_expert_groups, "groups_used", (json_int_t)m->n_group_used);
		json_object_set_new(ex, "gating",
				    m->expert_gating < 5 && gating[m->expert_gating]
					? json_string(gating[m->expert_gating])
					: json_null());
	}
	json_object_set_new(o, "experts", ex);
	json_t *rope = json_pack("{s:f,s:i,s:I}", "freq_base", m->rope_freq_base, "dimension_count",
				 (json_int_t)m->rope_dims, "original_context", (json_int_t)m->rope_orig_ctx);
	json_object_set_new(rope, "scaling_type", m->rope_scaling ? json_string(m->rope_scaling) : json_null());
	json_object_set_new(rope, "scaling_factor", m->rope_scale > 0 ? json_real(m->rope_scale) : json_null());
	if (m->has_rope_sections)
		json_object_set_new(rope, "sections",
				    json_pack("[iiii]", (json_int_t)m->rope_sections[0],
					      (json_int_t)m->rope_sections[1], (json_int_t)m->rope_sections[2],
					      (json_int_t)m->rope_sections[3]));
	json_object_set_new(o, "rope", rope);
}

json_t *payload_to_json(const char *path, const struct gguf *g, const struct census *c)
{
	json_t *o = json_object();
	char buf[32];
	json_object_set_new(o, "file", json_string(path));
	json_object_set_new(o, "file_bytes", json_u64(g->file_size));
	json_object_set_new(o, "gguf_version", json_integer(g->version));
	json_object_set_new(o, "header_bytes", json_u64(g->header_bytes));
	const struct model *m = c->model;
	const struct gguf_kv *arch = gguf_find(g, "general.architecture");
	if (arch && arch->type == GGUF_STRING)
		json_object_set_new(o, "architecture", json_stringn(arch->v.s.p, (size_t)arch->v.s.n));
	else
		json_object_set_new(o, "architecture", json_null());
	const struct gguf_kv *name = gguf_find(g, "general.name");
	json_object_set_new(o, "name",
			    name && name->type == GGUF_STRING ? json_stringn(name->v.s.p, (size_t)name->v.s.n)
							      : json_null());
	uint64_t ft;
	int has_ft = gguf_kv_u64(gguf_find(g, "general.file_type"), &ft) == 0, custom = 0;
	const char *ftn = has_ft && ft <= INT64_MAX ? ggml_ftype_name((int64_t)ft, &custom) : NULL;
	json_object_set_new(o, "file_type", has_ft ? json_u64(ft) : json_null());
	json_object_set_new(o, "file_type_name", ftn ? json_string(ftn) : json_null());
	json_object_set_new(o, "file_type_custom", json_boolean(has_ft && custom));
	if (m)
		model_json(o, m);
	json_object_set_new(o, "tensor_count", json_u64(c->n_tensors));
	json_t *types = json_array();
	json_t *unknown = json_array();
	for (size_t i = 0; i < c->n_types; i++) {
		const struct census_type *t = &c->types[i];
		json_array_append_new(types, json_pack("{s:s,s:i,s:b,s:I,s:I}", "type",
						       payload_type_label(t, buf, sizeof(buf)), "id",
						       (json_int_t)t->type, "custom", t->name == NULL, "count",
						       (json_int_t)t->count, "bytes", (json_int_t)t->bytes));
		if (!t->name)
			json_array_append_new(unknown, json_pack("{s:i,s:I,s:I}", "id", (json_int_t)t->type, "count",
								 (json_int_t)t->count, "bytes", (json_int_t)t->bytes));
	}
	json_object_set_new(o, "tensor_types", types);
	json_object_set_new(o, "unknown_types", unknown);
	json_object_set_new(o, "weights_bytes", json_u64(c->weights_bytes));
	json_t *smp = json_object();
	for (size_t i = 0; i < c->n_sampling; i++)
		json_object_set_new(smp, c->sampling[i].key, json_real(c->sampling[i].value));
	json_object_set_new(o, "sampling", smp);
	if (c->has_template) {
		json_t *eff = json_array();
		for (size_t i = 0; i < c->tpl.n_effort; i++)
			json_array_append_new(eff, json_string(c->tpl.effort[i]));
		json_t *t = json_pack("{s:I,s:b,s:b,s:b,s:b,s:b,s:o,s:s?}", "bytes", (json_int_t)c->tpl.bytes, "tools",
				      c->tpl.tools, "tool_calls", c->tpl.tool_calls, "images", c->tpl.images,
				      "thinking", c->tpl.thinking, "reasoning_effort_used", c->tpl.effort_used,
				      "reasoning_effort", eff, "reasoning_effort_default", c->tpl.effort_default);
		/* preserve_thinking: null when the template does not read it, else its default */
		json_object_set_new(t, "video", json_boolean(c->tpl.video));
		json_object_set_new(t, "preserve_thinking",
				    !c->tpl.preserve ? json_null()
				    : c->tpl.preserve_default < 0
					? json_string("read, no default stated")
					: json_pack("{s:b}", "default", c->tpl.preserve_default));
		json_object_set_new(o, "template", t);
	} else {
		json_object_set_new(o, "template", json_null());
	}
	if (c->is_adapter)
		json_object_set_new(o, "adapter",
				    json_pack("{s:s?,s:o,s:s?,s:b}", "type", c->adapter_type, "alpha",
					      c->has_alpha ? json_real(c->adapter_alpha) : json_null(), "base",
					      c->adapter_base, "touches_token_embd", c->touches_token_embd));
	else
		json_object_set_new(o, "adapter", json_null());
	if (c->is_projector)
		json_object_set_new(
		    o, "projector",
		    json_pack("{s:s?,s:b,s:b,s:I,s:I,s:I,s:I,s:I}", "type", c->projector_type, "vision", c->has_vision,
			      "audio", c->has_audio, "image_size", (json_int_t)c->image_size, "patch_size",
			      (json_int_t)c->patch_size, "vision_blocks", (json_int_t)c->vision_blocks, "vision_embd",
			      (json_int_t)c->vision_embd, "projection_dim", (json_int_t)c->projection_dim));
	else
		json_object_set_new(o, "projector", json_null());
	json_t *fam = json_array();
	for (size_t i = 0; i < c->n_families; i++)
		json_array_append_new(fam, json_pack("{s:s,s:I}", "prefix", c->families[i].prefix, "keys",
						     (json_int_t)c->families[i].keys));
	json_object_set_new(o, "vendor_keys", fam);
	return o;
}
