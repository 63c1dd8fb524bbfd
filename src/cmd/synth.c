/* zealot synth ARCH [--preset NAME] [--set key=value ...] -o FILE */
#include <stdlib.h>
#include <string.h>

#include "../base/util.h"
#include "../payload/synth.h"
#include "cmd.h"
#include "options.h"

static void more_help(FILE *f)
{
	fprintf(f, "presets (--preset NAME):\n%s\nkeys (--set key=value):\n%s", synth_help_presets(),
		synth_help_keys());
}

static const struct cmd_help help = {
    .usage = "zealot synth ARCH [--preset NAME] [--set key=value ...] -o FILE\n"
	     "zealot synth --preset NAME [--set key=value ...] -o FILE",
    .about = "Write a synthetic payload: a GGUF with the geometry asked for, zero\n"
	     "weights, a byte-level tokenizer and a ChatML template with tools and\n"
	     "thinking, written as a sparse file (a 9B geometry costs a few MB of disk).\n"
	     "Real llama.cpp loads and serves it, so tests and demos need no download.\n"
	     "\n"
	     "ARCH, one of the 55 architectures synth writes:\n"
	     "      llama (dense GQA), qwen2, qwen3, phi3, gemma3 (sliding window),\n"
	     "      gemma4 (window pattern, K=V, shared KV, MoE), mistral3, qwen35\n"
	     "      (Gated DeltaNet + full attention every 4th layer, optional MTP\n"
	     "      block), qwen35moe, lfm2, mamba2, granitehybrid, falcon-h1,\n"
	     "      nemotron_h, qwen3moe, gpt-oss (window 128 every other layer,\n"
	     "      sinks, biased MoE), deepseek2 (latent attention), glm4moe;\n"
	     "      llama's block and its kin (tests/live/arch-more.sh): seed_oss,\n"
	     "      smollm3, granite, granitemoe, minicpm, qwen2moe, olmoe,\n"
	     "      ernie4_5, ernie4_5-moe, exaone, hunyuan-moe, hunyuan-dense,\n"
	     "      maincoder, deepseek, glm4, xverse, baichuan, internlm2, arcee,\n"
	     "      apertus, orion, mellum, qwen2vl, qwen3vl, qwen3vlmoe (M-RoPE),\n"
	     "      phimoe (phi3's graph), olmo2, exaone4 (post norms), gemma2 (window\n"
	     "      every other layer); command-r, cohere2 (a parallel block, layer\n"
	     "      norms; tests/live/arch-cohere.sh), minimax-m2 (biased experts),\n"
	     "      llama4 (chunked attention, experts every 2nd layer); hybrid and MoE\n"
	     "      kin (tests/live/arch-moe.sh): lfm2moe, nemotron_h_moe, mistral4\n"
	     "      (deepseek2's model), deepseek32 (deepseek2's with a lightning\n"
	     "      indexer of 64 x heads, top 256)\n"
	     "      answer=TEXT (llama, qwen35, qwen3, mistral3 ...): every chat prompt is\n"
	     "            answered TEXT, then the end of turn (zero blocks; the embedding and\n"
	     "            output rows chain \"\\n\" -> </think> -> TEXT); alt=TEXT2 puts a second\n"
	     "            answer in the vocabulary that only `synth lora --set answer=TEXT2` reaches\n"
	     "      clip: a projector (mmproj) header; --set projection_dim=N (the text\n"
	     "            model's width, default 256), --preset bonsai-9b-mmproj\n"
	     "      lora: an adapter for --base FILE; --set rank=N (1), alpha=X (1),\n"
	     "            answer=TEXT (an adapter on output.weight that makes a base written\n"
	     "            with --set answer=A --set alt=TEXT answer TEXT instead of A),\n"
	     "            touch_embd=0|1 (0), base_name=NAME (recorded provenance)\n",
    .more = more_help,
    .exits = "0 written, 2 usage or invalid geometry, 3 I/O error",
    .min_args = 0,
    .max_args = 1,
};

/* The projector and adapter: small key sets of their own. */
static int synth_extra(const char *arch, const char *preset, const char *base, const struct opt_list *sets,
		       const char *out, char **err)
{
	uint64_t projection_dim = 256, rank = 1, touch = 0;
	double alpha = 1;
	const char *base_name = NULL, *answer = NULL;
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
		rc = synth_projector(preset, (uint32_t)projection_dim, out, &bytes, &kind, err);
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

int cmd_synth(int argc, char **argv)
{
	const char *out = NULL, *preset = NULL, *base = NULL;
	struct opt_list sets = {0};
	const struct opt opts[] = {
	    OPT_STRING('o', "output", &out, "FILE", "where to write (required)"),
	    OPT_STRING(0, "preset", &preset, "NAME", "a seed payload geometry (listed below)"),
	    OPT_LIST(0, "set", &sets, "key=value", "override one field (repeatable; keys listed below)"),
	    OPT_STRING(0, "base", &base, "FILE", "lora: the payload the adapter is fitted to"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("synth", &help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	const char *arch = args.n ? args.v[0] : NULL;
	if (!out || (!arch && !preset)) {
		opt_list_release(&sets);
		opt_args_release(&args);
		return opt_usage_error("synth", &help, out ? "missing ARCH or --preset NAME" : "missing -o FILE");
	}
	struct synth_spec s;
	char *err = NULL;
	int rc = EXIT_OK;
	if (arch && (strcmp(arch, "clip") == 0 || strcmp(arch, "lora") == 0)) {
		rc = synth_extra(arch, preset, base, &sets, out, &err);
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
	uint64_t bytes = 0;
	enum zerr kind;
	if (synth_write(&s, out, &bytes, &kind, &err)) {
		rc = cmd_exit(kind);
		goto done;
	}
	char a[32];
	fprintf(stderr, "zealot: synth: wrote %s (%s, %s bytes, sparse)\n", out, s.arch,
		cmd_commas(bytes, a, sizeof(a)));
done:
	if (err)
		cmd_fail(rc, "synth: %s", err);
	free(err);
	opt_list_release(&sets);
	opt_args_release(&args);
	return rc;
}
