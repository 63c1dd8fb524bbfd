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
		"\n"
		"  -o, --output FILE   where to write (required)\n"
		"  --preset NAME       a seed payload geometry:\n%s"
		"  --set key=value     override one field (repeatable):\n%s"
		"  -h, --help          this text\n"
		"\n"
		"exit: 0 written, 2 usage or invalid geometry, 3 I/O error\n",
		synth_help_presets(), synth_help_keys());
}

int cmd_synth(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"preset", required_argument, NULL, 'p'},
	    {"set", required_argument, NULL, 's'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *out = NULL, *preset = NULL;
	char **sets = xcalloc((size_t)argc, sizeof(*sets));
	size_t n_sets = 0;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (ch) {
		case 'o': out = optarg; break;
		case 'p': preset = optarg; break;
		case 's': sets[n_sets++] = optarg; break;
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
