/* zealot inspect FILE [--json]: the census of a GGUF payload. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../payload/census.h"
#include "../payload/ggml_type.h"
#include "../payload/gguf.h"
#include "../payload/gguf_diff.h"
#include "../payload/loader.h"
#include "../payload/payload.h"
#include "../payload/report.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static const struct cmd_help help = {DOC_INSPECT};

/* Sampling defaults, the chat template and an adapter's provenance: the
 * lines that grow with the payload, wrapped to the terminal. */
static void print_chat(const struct census *c)
{
	char a[32];
	struct sb t = {0};
	if (c->n_sampling) {
		for (size_t i = 0; i < c->n_sampling; i++)
			sb_addf(&t, "%s%s %g", i ? ", " : "", c->sampling[i].key, c->sampling[i].value);
		cmd_wrap(stdout, "sampling      ", 14, t.s);
		sb_release(&t);
	}
	if (c->has_template) {
		sb_addf(&t, "%s bytes; tools %s, images %s, video %s, thinking %s",
			cmd_commas(c->tpl.bytes, a, sizeof(a)), c->tpl.tools ? "yes" : "no",
			c->tpl.images ? "yes" : "no", c->tpl.video ? "yes" : "no", c->tpl.thinking ? "yes" : "no");
		if (c->tpl.preserve)
			sb_addf(&t, "; preserve_thinking%s",
				c->tpl.preserve_default == 0   ? " (default false: earlier turns' reasoning is dropped "
								 "unless chat_template_kwargs sets it)"
				: c->tpl.preserve_default == 1 ? " (default true: earlier turns' reasoning is kept)"
							       : "");
		if (c->tpl.n_effort) {
			sb_adds(&t, "; reasoning_effort only ");
			for (size_t i = 0; i < c->tpl.n_effort; i++)
				sb_addf(&t, "%s%s", i ? "|" : "", c->tpl.effort[i]);
			if (c->tpl.raises)
				sb_adds(&t, " (others raise: HTTP 500, law A08)");
		}
		if (c->tpl.effort_default)
			sb_addf(&t, ", default %s", c->tpl.effort_default);
		cmd_wrap(stdout, "template      ", 14, t.s);
		sb_release(&t);
	}
	if (c->is_adapter) {
		sb_adds(&t, c->adapter_type ? c->adapter_type : "(untyped)");
		if (c->has_alpha)
			sb_addf(&t, ", alpha %g", c->adapter_alpha);
		if (c->adapter_base)
			sb_addf(&t, ", fitted against %s", c->adapter_base);
		sb_addf(&t, ", token_embd %s", c->touches_token_embd ? "TOUCHED (law S12)" : "untouched");
		cmd_wrap(stdout, "adapter       ", 14, t.s);
		sb_release(&t);
	}
}

static void print_human(const char *path, const struct gguf *g, const struct census *c)
{
	char a[32], b[32];
	const struct model *m = c->model;
	const struct gguf_kv *arch = gguf_find(g, "general.architecture");
	struct sb h = {0};
	sb_addf(&h, "%s (%s bytes = %.2f GiB, GGUF v%u, header %s bytes)", path, cmd_commas(g->file_size, a, sizeof(a)),
		(double)g->file_size / (1024.0 * 1024.0 * 1024.0), g->version,
		cmd_commas(g->header_bytes, b, sizeof(b)));
	cmd_wrap(stdout, "payload       ", 14, h.s);
	sb_release(&h);
	if (arch && arch->type == GGUF_STRING)
		printf("%-13s %.*s", "architecture", (int)arch->v.s.n, arch->v.s.p);
	else
		printf("%-13s (none)", "architecture");
	if (m && m->name)
		printf("  \"%s\"", m->name);
	printf("\n");
	if (m) {
		if (m->file_type >= 0) {
			int custom;
			const char *ft = ggml_ftype_name(m->file_type, &custom);
			struct sb t = {0};
			sb_addf(&t, "%lld = %s%s", (long long)m->file_type, ft ? ft : "unknown",
				custom ? " (custom: not in the engine's llama_ftype list, law S10)" : "");
			cmd_wrap(stdout, "file type     ", 14, t.s);
			sb_release(&t);
		}
		char *map = payload_layer_map(m);
		printf("%-13s %u: %u attention, %u swa, %u recurrent, %u nextn\n", "blocks", m->n_layer_all,
		       m->n_kind[LAYER_ATTENTION], m->n_kind[LAYER_SWA], m->n_kind[LAYER_RECURRENT],
		       m->n_kind[LAYER_NEXTN]);
		struct sb lm = {0};
		sb_addf(&lm, "%s  (A attention, S sliding window, R recurrent, N nextn)", map);
		cmd_wrap(stdout, "layer map     ", 14, lm.s);
		sb_release(&lm);
		free(map);
		if (m->recurrent_source)
			printf("%-13s recurrent from %s\n", "", m->recurrent_source);
		if (m->swa_source)
			printf("%-13s sliding window %u tokens, from %s\n", "", m->n_swa, m->swa_source);
		struct payload_kvgeo geo[16];
		size_t ng = payload_kv_groups(m, geo, 16);
		for (size_t i = 0; i < ng; i++)
			printf("%-13s %s x%u: %u KV heads, K %u + V %u elements per token\n", i ? "" : "KV geometry",
			       layer_kind_name(geo[i].kind), geo[i].layers, geo[i].heads, geo[i].k, geo[i].v);
		if (m->n_kind[LAYER_RECURRENT]) {
			struct sb r = {0};
			sb_addf(
			    &r,
			    "d_conv %u, d_inner %u, d_state %u, groups %u, dt_rank %u: r %llu + s %llu f32 per layer "
			    "per cell",
			    m->ssm_d_conv, m->ssm_d_inner, m->ssm_d_state, m->ssm_n_group, m->ssm_dt_rank,
			    (unsigned long long)m->n_embd_r, (unsigned long long)m->n_embd_s);
			cmd_wrap(stdout, "recurrent     ", 14, r.s);
			sb_release(&r);
		}
		const char *mtp = m->n_router	    ? "none (the last block is the adapters' router)"
				  : m->n_nextn == 0 ? (m->mtp_tensors ? "tensors without a declaration" : "none")
				  : m->mtp_tensors  ? "present"
						    : "DECLARED ONLY: no nextn tensors (a ghost drafter, law S06)";
		printf("%-13s declared %u, %u nextn tensors in %u block(s): %s\n", "MTP", m->n_nextn, m->mtp_tensors,
		       m->mtp_blocks, mtp);
		printf("%-13s %s tokens trained\n", "context", cmd_commas(m->n_ctx_train, a, sizeof(a)));
		printf("%-13s %s\n", "vocab", cmd_commas(m->n_vocab, a, sizeof(a)));
		printf("%-13s freq_base %g, %u dims", "rope", m->rope_freq_base, m->rope_dims);
		if (m->has_rope_sections)
			printf(", sections [%u,%u,%u,%u]", m->rope_sections[0], m->rope_sections[1],
			       m->rope_sections[2], m->rope_sections[3]);
		printf(", scaling %s", m->rope_scaling ? m->rope_scaling : "none");
		if (m->rope_scale > 0)
			printf(" x%g", m->rope_scale);
		printf("\n");
	}
	printf("%-13s %s\n", "tensors", cmd_commas(c->n_tensors, a, sizeof(a)));
	for (size_t i = 0; i < c->n_types; i++) {
		const struct census_type *t = &c->types[i];
		char lb[32];
		printf("%-13s %-9s %6llu  %18s bytes", "", payload_type_label(t, lb, sizeof(lb)),
		       (unsigned long long)t->count, cmd_commas(t->bytes, a, sizeof(a)));
		printf("\n");
		if (!t->name) { /* its own lines: the table's columns stay put */
			char why[96];
			snprintf(why, sizeof(why),
				 "custom type %u: only a runtime that defines it loads this (law S10)", t->type);
			cmd_wrap(stdout, "                ", 16, why);
		}
	}
	printf("%-13s %s bytes (%s MiB = %.2f GiB)\n", "weights", cmd_commas(c->weights_bytes, a, sizeof(a)),
	       FMT_MIB(cmd_mib(c->weights_bytes)), (double)c->weights_bytes / (1024.0 * 1024.0 * 1024.0));
	print_chat(c);
	if (c->is_projector)
		printf("%-13s %s: vision %s, audio %s, image %llu px, patch %llu, %llu blocks, width %llu\n",
		       "projector", c->projector_type ? c->projector_type : "?", c->has_vision ? "yes" : "no",
		       c->has_audio ? "yes" : "no", (unsigned long long)c->image_size,
		       (unsigned long long)c->patch_size, (unsigned long long)c->vision_blocks,
		       (unsigned long long)c->vision_embd);
	for (size_t i = 0; i < c->n_families; i++)
		printf("%-13s %s.* (%llu keys)\n", i ? "" : "vendor keys", c->families[i].prefix,
		       (unsigned long long)c->families[i].keys);
}

/* A split payload's shards, in order: the engine is given the first. */
static json_t *cmd_shards_json(const struct gguf_file *f)
{
	if (!f->n_shards)
		return json_null();
	json_t *a = json_array();
	for (unsigned i = 0; i < f->n_shards; i++)
		json_array_append_new(a, json_pack("{s:s,s:I,s:I}", "file", f->shards[i]->path, "bytes",
						   (json_int_t)f->shards[i]->g->file_size, "tensors",
						   (json_int_t)f->shards[i]->g->n_tensors));
	return a;
}

static void cmd_shards_print(const struct gguf_file *f)
{
	char a[32];
	for (unsigned i = 0; i < f->n_shards; i++)
		printf("%-13s %u of %u: %s (%s bytes, %llu tensors)\n", i ? "" : "shards", i + 1, f->n_shards,
		       f->shards[i]->path, cmd_commas(f->shards[i]->g->file_size, a, sizeof(a)),
		       (unsigned long long)f->shards[i]->g->n_tensors);
}

/* A payload's header, opened as inspect opens one (a URL by range
 * requests). NULL with *err. */
static struct gguf_file *open_payload(const char *path, struct remote_stats *rs, char **err)
{
	char *token = NULL;
	struct gguf_file *f = NULL;
	if (!remote_is_url(path) || remote_token(NULL, &token, err) == 0)
		f = payload_open(path, &(struct remote_opts){.token = token}, rs, err);
	free(token);
	return f;
}

static void print_diff(const char *pa, const char *pb, const struct gguf_diff *d)
{
	printf("inspect --diff %s %s\n\n", pa, pb);
	printf("   %-44s %-30s %s\n", "", "A", "B");
	for (size_t i = 0; i < d->n; i++) {
		const struct gguf_diff_row *r = &d->v[i];
		struct sb w = {0};
		sb_addf(&w, "%s %s", r->kind == GGUF_DIFF_KEY ? "key" : "tensor", r->name);
		printf("%s %-44s %-30s %s%s\n", r->provenance ? "  " : "!!", w.s, r->a, r->b,
		       r->provenance ? "  (provenance)" : "");
		sb_release(&w);
	}
	printf("\n%zu keys and %zu tensors the same; %zu keys and %zu tensors differ", d->keys_same, d->tensors_same,
	       d->keys_differ, d->tensors_differ);
	printf("%s\n", d->drop_in ? ": a drop-in (the same geometry and census; provenance aside)" : ": not a drop-in");
}

static json_t *diff_json(const char *pa, const char *pb, const struct gguf_diff *d)
{
	json_t *rows = json_array();
	for (size_t i = 0; i < d->n; i++) {
		const struct gguf_diff_row *r = &d->v[i];
		json_array_append_new(rows, json_pack("{s:s,s:s,s:s,s:s,s:b}", "kind",
						      r->kind == GGUF_DIFF_KEY ? "key" : "tensor", "name", r->name, "a",
						      r->a, "b", r->b, "provenance", r->provenance));
	}
	return json_pack("{s:s,s:s,s:b,s:I,s:I,s:I,s:I,s:o}", "a", pa, "b", pb, "drop_in", d->drop_in, "keys_same",
			 (json_int_t)d->keys_same, "tensors_same", (json_int_t)d->tensors_same, "keys_differ",
			 (json_int_t)d->keys_differ, "tensors_differ", (json_int_t)d->tensors_differ, "rows", rows);
}

/* --diff A B: exit 0 a drop-in, 1 not. */
static int run_diff(const char *pa, const char *pb, int as_json)
{
	char *err = NULL;
	struct remote_stats rs = {0};
	struct gguf_file *a = open_payload(pa, &rs, &err), *b = a ? open_payload(pb, &rs, &err) : NULL;
	int rc;
	if (!a || !b) {
		rc = cmd_fail(cmd_exit(ZE_IO), "inspect: %s", err);
	} else {
		struct gguf_diff d;
		gguf_diff(a->g, b->g, &d);
		if (as_json) {
			json_t *o = diff_json(pa, pb, &d);
			cmd_print_json(o, 0);
			json_decref(o);
		} else {
			print_diff(pa, pb, &d);
		}
		rc = d.drop_in ? EXIT_OK : EXIT_NO;
		gguf_diff_release(&d);
	}
	free(err);
	gguf_close(a);
	gguf_close(b);
	return rc;
}

static int json, diff;
static const struct opt opts[] = {
    OPT_FLAG(0, "diff", &diff, "compare two payloads' headers: FILE and FILE2 (keys, tensors)"),
    OPT_FLAG(0, "json", &json,
	     "one JSON object (keys: architecture, block_count, layers,\n"
	     "context_length, vocab_size, mtp, tensor_types, weights_bytes,\n"
	     "unknown_types, ..., shards, remote: {requests, bytes})"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	if (diff != (args->n == 2))
		return opt_usage_error("inspect", &help,
				       diff ? "--diff compares two payloads: FILE FILE2"
					    : "one payload, or --diff FILE FILE2");
	if (diff)
		return run_diff(args->v[0], args->v[1], json);
	const char *path = args->v[0];
	char *err = NULL;
	int rc = EXIT_OK;
	struct census *c = NULL;
	struct remote_stats rs = {0};
	struct gguf_file *f = open_payload(path, &rs, &err);
	if (!f) {
		rc = cmd_fail(cmd_exit(ZE_IO), "inspect: %s", err);
		goto done;
	}
	c = census_take(f->g, &err);
	if (!c || (c->model && loader_check(f->g, c->model, &err))) {
		rc = cmd_fail(cmd_exit(ZE_IO), "inspect: '%s': %s", path, err);
		goto done;
	}
	if (json) {
		json_t *o = payload_to_json(path, f->g, c);
		json_object_set_new(o, "shards", cmd_shards_json(f));
		json_object_set_new(o, "remote", cmd_remote_json(remote_is_url(path), &rs));
		char ubuf[512];
		const char *unm = c->model ? loader_unmirrored(f->g, c->model, ubuf, sizeof(ubuf)) : NULL;
		json_object_set_new(o, "loader_unmirrored", unm ? json_string(unm) : json_null());
		cmd_print_json(o, 9);
		json_decref(o);
	} else {
		print_human(path, f->g, c);
		char ubuf[512];
		const char *unm = c->model ? loader_unmirrored(f->g, c->model, ubuf, sizeof(ubuf)) : NULL;
		if (unm)
			cmd_wrap(stdout, "loader        ", 14, unm);
		cmd_shards_print(f);
		if (remote_is_url(path))
			printf("%-13s %llu requests, %llu bytes read (the header only)\n", "remote",
			       (unsigned long long)rs.requests, (unsigned long long)rs.bytes);
	}
done:
	free(err);
	census_free(c);
	gguf_close(f);
	return rc;
}

const struct command cmd_inspect = {"inspect", &help, opts, run, NULL};
