/* libFuzzer target: the option parser on any argv (the input's NUL-separated
 * words) against a table of every kind; what it prints to stdout (--help)
 * goes to /dev/null, its usage errors to stderr. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/options.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void more(FILE *f)
{
	fputs("more\n", f);
}

static const struct cmd_help help = {
    .usage = "zealot fuzz ARG [ARG]\nzealot fuzz --other",
    .about = "about\n",
    .more = more,
    .exits = "0, 2",
    .min_args = 1,
    .max_args = 2,
};

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (!freopen("/dev/null", "w", stdout))
		perror("fuzz_options: /dev/null");
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = malloc(size + 1), *argv[65] = {"fuzz"};
	int argc = 1;
	memcpy(buf, data, size);
	buf[size] = '\0';
	for (char *p = buf; p < buf + size + 1 && argc < 64; p += strlen(p) + 1)
		argv[argc++] = p;
	int json = 0, force = 0;
	const char *name = NULL, *mode = NULL;
	uint64_t runs = 0, big = 0;
	double ratio = 0;
	struct opt_list sets = {0};
	const struct opt opts[] = {
	    OPT_FLAG(0, "json", &json, "a flag"),
	    OPT_FLAG('f', "force", &force, "a short flag\nover two lines"),
	    OPT_STRING('n', "name", &name, "NAME", "a string"),
	    OPT_U64(0, "runs", &runs, "N", 1, 100, "bounded"),
	    OPT_U64(0, "big", &big, "N", 10, 0, "unbounded above"),
	    OPT_DOUBLE(0, "ratio", &ratio, "X", "a double"),
	    OPT_LIST(0, "set", &sets, "K=V", "a list"),
	    OPT_CHOICE(0, "mode", &mode, "fast|slow", "a choice"),
	    OPT_STRING(0, "a-very-long-option-name-past-the-column", &name, "SOMETHING", "a long label"),
	    OPT_END(),
	};
	struct opt_args a;
	if (opt_parse("fuzz", &help, opts, argc, argv, &a) < 0) {
		for (unsigned i = 0; i < a.n; i++)
			if (!a.v[i] || strlen(a.v[i]) > size)
				abort(); /* a positional must be one of the input's words */
		if (a.n < 1 || a.n > 2)
			abort();
		opt_args_release(&a);
	}
	opt_list_release(&sets);
	free(buf);
	return 0;
}
