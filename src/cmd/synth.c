/* zealot synth ARCH [--preset NAME] [--set key=value ...] -o FILE */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../payload/synth.h"
#include "cmd.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: zealot synth ARCH [--preset NAME] [--set key=value ...] -o FILE\n"
		"       zealot synth --preset NAME [--set key=value ...] -o FILE\n"
		"\n"
		"Write a synthetic payload: a GGUF with the geometry asked for, zero\n"
		"weights, a byte-level tokenizer and a ChatML template with tools and\n"
		"thinking, written as a sparse file (a 9B geometry costs a few MB of disk).\n"
		"Real llama.cpp loads and serves it, so tests and demos need no download.\n"
		"\n"
		"ARCH: llama (dense GQA), qwen35 (Gated DeltaNet + full attention every\n"
		"      4th layer, optional MTP block), gemma3 (sliding window)\n"
		"      clip: a projector (mmproj) header; --set projection_dim=N (the text\n"
		"            model's width, default 256), --preset bonsai-9b-mmproj\n"
		"      lora: an adapter for --base FILE; --set rank=N (1), alpha=X (1),\n"
		"            touch_embd=0|1 (0), base_name=NAME (recorded provenance)\n"
		"\n"
		"  -o, --output FILE   where to write (required)\n"
		"  --preset NAME       a seed payload geometry:\n%s"
		"  --set key=value     override one field (repeatable):\n%s"
		"  --base FILE         lora: the payload the adapter is fitted to\n"
		"  -h, --help          this text\n"
		"\n"
		"exit: 0 written, 2 usage or invalid geometry, 3 I/O error\n",
		synth_help_presets(), synth_help_keys());
}

/* The projector and adapter: small key sets of their own. */
static int synth_extra(const char *arch, const char *preset, const char *base, char **sets, size_t n_sets,
		       const char *out, char **err)
{
	uint64_t projection_dim = 256, rank = 1, touch = 0;
	double alpha = 1;
	const char *base_name = NULL;
	for (size_t i = 0; i < n_sets; i++) {
		const char *kv = sets[i], *v = strchr(kv, '=');
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
		else if (kn == 9 && strncmp(kv, "base_name", kn) == 0)
			base_name = v;
		else
			return errorf(err, "--set: unknown key '%.*s' for %s", (int)kn, kv, arch), EXIT_USAGE;
		if (bad)
			return errorf(err, "--set %s: bad value", kv), EXIT_USAGE;
	}
	uint64_t bytes = 0;
	int rc;
	if (strcmp(arch, "clip") == 0) {
		if (projection_dim > UINT32_MAX)
			return errorf(err, "projection_dim out of range"), EXIT_USAGE;
		rc = synth_projector(preset, (uint32_t)projection_dim, out, &bytes, err);
	} else {
		if (!base)
			return errorf(err, "lora needs --base FILE (the payload it adapts)"), EXIT_USAGE;
		if (rank == 0 || rank > 65536)
			return errorf(err, "rank out of range"), EXIT_USAGE;
		rc = synth_lora(base, (uint32_t)rank, (float)alpha, (int)touch, base_name, out, &bytes, err);
	}
	if (rc)
		return *err && (strncmp(*err, "cannot", 6) == 0 || strstr(*err, "cannot open")) ? EXIT_IO : EXIT_USAGE;
	char a[32];
	fprintf(stderr, "zealot: synth: wrote %s (%s, %s bytes, sparse)\n", out, arch, cmd_commas(bytes, a, sizeof(a)));
	return EXIT_OK;
}

int cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'}, {"preset", required_argument, NULL, 'p'},
	    {"set", required_argument, NULL, 's'},    {"base", required_argument, NULL, 'b'},
	    {"help", no_argument, NULL, 'h'},	      {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *preset = NULL, *base = NULL;
	char **sets = xcalloc((size_t)argc, sizeof(*sets));
	size_t n_sets = 0;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'o': out = optarg; break;
		case 'p': preset = optarg; break;
		case 's': sets[n_sets++] = optarg; break;
		case 'b': base = optarg; break;
		case 'h':
			usage(stdout);
			free(sets);
			return EXIT_OK;
		default:
			usage(stderr);
			free(sets);
			return EXIT_USAGE;
		}
	}
	const char *arch = optind < argc ? argv[optind++] : NULL;
	if (optind != argc || !out || (!arch && !preset)) {
		usage(stderr);
		free(sets);
		return EXIT_USAGE;
	}
	struct synth_spec s;
	char *err = NULL;
	int rc = EXIT_OK;
	if (arch && (strcmp(arch, "clip") == 0 || strcmp(arch, "lora") == 0)) {
		rc = synth_extra(arch, preset, base, sets, n_sets, out, &err);
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
	for (size_t i = 0; i < n_sets; i++) {
		if (synth_set(&s, sets[i], &err)) {
			rc = EXIT_USAGE;
			goto done;
		}
	}
	uint64_t bytes = 0;
	if (synth_write(&s, out, &bytes, &err)) {
		rc = err && strncmp(err, "cannot", 6) == 0 ? EXIT_IO : EXIT_USAGE;
		goto done;
	}
	char a[32];
	fprintf(stderr, "zealot: synth: wrote %s (%s, %s bytes, sparse)\n", out, s.arch,
		cmd_commas(bytes, a, sizeof(a)));
done:
	if (err)
		cmd_fail(rc, "synth: %s", err);
	free(err);
	free(sets);
	return rc;
}
