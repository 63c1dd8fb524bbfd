/* zealot synth ARCH [--preset NAME] [--set key=value ...] -o FILE */
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../payload/ggml_type.h"
#include "../payload/synth.h"
#include "cmd.h"
#include "doc.h"
#include "options.h"

static void more_help(FILE *f)
{
	struct sb keys = {0};
	synth_help_keys(&keys);
	fprintf(f, "presets (--preset NAME):\n%s\nkeys (--set key=value):\n%s", synth_help_presets(), keys.s);
	sb_release(&keys);
}

static const struct cmd_help help = {DOC_SYNTH, .more = more_help};

/* The projector and adapter: small key sets of their own. */
static int synth_extra(const char *arch, const char *preset, const char *base, const struct opt_list *sets,
		       const char *out, char **err)
{
	uint64_t projection_dim = 256, rank = 1, touch = 0, red = 0, image = 0, embd = 0;
	double alpha = 1;
	const char *base_name = NULL, *answer = NULL, *type = NULL;
	for (unsigned i = 0; i < sets->n; i++) {
		const char *kv = sets->v[i], *v = strchr(kv, '=');
		if (!v)
			return errorf(err, "--set '%s': expected key=value", kv), EXIT_USAGE;
		v++;
		size_t kn = (size_t)(v - 1 - kv);
		int bad = 0;
		if (kn == 14 && strncmp(kv, "projection_dim", kn) == 0)
			bad = parse_u64(v, &projection_dim);
		else if (kn == 4 && strncmp(kv, "rank", kn) == 0)
			bad = parse_u64(v, &rank);
		else if (kn == 5 && strncmp(kv, "alpha", kn) == 0)
			bad = parse_double(v, &alpha);
		else if (kn == 10 && strncmp(kv, "touch_embd", kn) == 0)
			bad = parse_u64(v, &touch) || touch > 1;
		else if (kn == 3 && strncmp(kv, "red", kn) == 0 && strcmp(arch, "clip") == 0)
			bad = parse_u64(v, &red) || red > 1;
		else if (kn == 4 && strncmp(kv, "type", kn) == 0 && strcmp(arch, "clip") == 0)
			type = v;
		else if (kn == 5 && strncmp(kv, "image", kn) == 0 && strcmp(arch, "clip") == 0)
			bad = parse_u64(v, &image) || image > UINT32_MAX;
		else if (kn == 4 && strncmp(kv, "embd", kn) == 0 && strcmp(arch, "clip") == 0)
			bad = parse_u64(v, &embd) || embd > UINT32_MAX;
		else if (kn == 9 && strncmp(kv, "base_name", kn) == 0)
			base_name = v;
		else if (kn == 6 && strncmp(kv, "answer", kn) == 0 && strcmp(arch, "lora") == 0)
			answer = v;
		else
			return errorf(err, "--set: unknown key '%.*s' for %s", (int)kn, kv, arch), EXIT_USAGE;
		if (bad)
			return errorf(err, "--set %s: bad value", kv), EXIT_USAGE;
	}
	uint64_t bytes = 0;
	enum zerr kind = ZE_USAGE;
	int rc;
	if (strcmp(arch, "clip") == 0) {
		if (projection_dim > UINT32_MAX)
			return errorf(err, "projection_dim out of range"), EXIT_USAGE;
		struct synth_proj ps = {preset,		 type,		 (uint32_t)projection_dim,
					(uint32_t)image, (uint32_t)embd, (int)red};
		rc = synth_projector(&ps, out, &bytes, &kind, err);
	} else {
		if (!base)
			return errorf(err, "lora needs --base FILE (the payload it adapts)"), EXIT_USAGE;
		if (rank == 0 || rank > 65536)
			return errorf(err, "rank out of range"), EXIT_USAGE;
		rc = answer ? synth_lora_answer(base, answer, (float)alpha, out, &bytes, &kind, err)
			    : synth_lora(base, (uint32_t)rank, (float)alpha, (int)touch, base_name, out, &bytes, &kind,
					 err);
	}
	if (rc)
		return cmd_exit(kind);
	char a[32];
	fprintf(stderr, "zealot: synth: wrote %s (%s, %s bytes, sparse)\n", out, arch, cmd_commas(bytes, a, sizeof(a)));
	return EXIT_OK;
}

static const char *out, *preset, *base;
static struct opt_list sets;
static int force;
static const struct opt opts[] = {
    OPT_STRING('o', "output", &out, "FILE", "where to write (required)"),
    OPT_STRING(0, "preset", &preset, "NAME", "a seed payload geometry (listed below)"),
    OPT_LIST(0, "set", &sets, "key=value", "override one field (repeatable; keys listed below)"),
    OPT_STRING(0, "base", &base, "FILE", "lora: the payload the adapter is fitted to"),
    OPT_FLAG('f', "force", &force, "replace FILE (or its shards) if it exists"),
    OPT_END(),
};

static int run(struct opt_args *args)
{
	const char *arch = args->n ? args->v[0] : NULL;
	if (!out || (!arch && !preset))
		return opt_usage_error("synth", &help, out ? "missing ARCH or --preset NAME" : "missing -o FILE");
	struct synth_spec s;
	char *err = NULL;
	int rc = EXIT_OK;
	if (arch && (strcmp(arch, "clip") == 0 || strcmp(arch, "lora") == 0)) {
		rc = !force && synth_out_free(out, 1, &err) ? EXIT_USAGE
							    : synth_extra(arch, preset, base, &sets, out, &err);
		goto done;
	}
	if (preset ? synth_preset(&s, preset, &err) : synth_defaults(&s, arch, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	if (preset && arch && strcmp(arch, s.arch) != 0) {
		errorf(&err, "preset '%s' is a %s payload, not %s", preset, s.arch, arch);
		rc = EXIT_USAGE;
		goto done;
	}
	for (unsigned i = 0; i < sets.n; i++) {
		if (synth_set(&s, sets.v[i], &err)) {
			rc = EXIT_USAGE;
			goto done;
		}
	}
	if (!force && synth_out_free(out, s.n_split, &err)) {
		rc = EXIT_USAGE;
		goto done;
	}
	uint64_t bytes = 0;
	enum zerr kind;
	if (synth_write(&s, out, &bytes, &kind, &err)) {
		rc = cmd_exit(kind);
		goto done;
	}
	char a[32];
	fprintf(stderr, "zealot: synth: wrote %s (%s, %s bytes, sparse)\n", out, s.arch,
		cmd_commas(bytes, a, sizeof(a)));
	if (s.ftype_name[0])
		fprintf(stderr, "zealot: synth: type=%s is a file type, a mix of tensor types: every matrix is %s\n",
			s.ftype_name, ggml_type_get(s.wtype)->name);
done:
	return cmd_end("synth", rc, err);
}

const struct command cmd_synth = {"synth", &help, opts, run, NULL};
