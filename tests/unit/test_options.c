/* opt_parse and opt_usage (src/cmd/options.c) against a table with every
 * kind, with what they print to stdout and stderr captured and checked. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/util.h"
#include "cmd/options.h"
#include "tap.h"

/* One parse: the argv it ran on (the positionals borrow from it), the
 * status, what it printed, and where every option landed. */
struct run {
	char *line, *argv[32];
	int argc, rc;
	char out[8192], err[1024];
	struct opt_args a;
	int json, force;
	const char *name, *mode;
	uint64_t runs, big;
	double ratio;
	struct opt_list sets;
};

static void more_section(FILE *f)
{
	fputs("extra: computed at run time\n", f);
}

static const struct cmd_help help = {
    .usage = "zealot t ARG [ARG] [options]\nzealot t --other",
    .about = "What t does.\n",
    .more = more_section,
    .exits = "0 ok, 2 usage",
    .min_args = 1,
    .max_args = 2,
};

static void table(struct run *r, struct opt *opts)
{
	const struct opt t[] = {
	    OPT_FLAG(0, "json", &r->json, "one JSON object"),
	    OPT_FLAG('f', "force", &r->force, "do it anyway"),
	    OPT_STRING('n', "name", &r->name, "NAME", "a name"),
	    OPT_U64(0, "runs", &r->runs, "N", 1, 100, "how many runs\nfrom 1 to 100"),
	    OPT_U64(0, "big", &r->big, "N", 10, 0, "at least ten"),
	    OPT_DOUBLE(0, "ratio", &r->ratio, "X", "a finite number"),
	    OPT_LIST(0, "set", &r->sets, "KEY=VALUE", "repeatable"),
	    OPT_CHOICE(0, "mode", &r->mode, "fast|slow", "one of two"),
	    OPT_STRING(0, "a-very-long-option-name", &r->name, "SOMETHING", "help on the next line"),
	    OPT_END(),
	};
	memcpy(opts, t, sizeof(t));
}

/* Redirect fd to a temporary file until restore(). */
static int divert(int fd, FILE **tmp)
{
	fflush(NULL);
	*tmp = tmpfile();
	int saved = dup(fd);
	dup2(fileno(*tmp), fd);
	return saved;
}

static void restore(int fd, int saved, FILE *tmp, char *buf, size_t n)
{
	fflush(NULL);
	dup2(saved, fd);
	close(saved);
	rewind(tmp);
	size_t got = fread(buf, 1, n - 1, tmp);
	buf[got] = '\0';
	fclose(tmp);
}

/* Parse "t" followed by the space-separated words of args. */
static struct run *parse(const char *args)
{
	struct run *r = xcalloc(1, sizeof(*r));
	r->runs = 5; /* a default the parse must leave alone unless told */
	struct sb b = {0};
	sb_addf(&b, "t%s%s", *args ? " " : "", args);
	r->line = sb_detach(&b);
	for (char *p = r->line; p && r->argc < 31;) {
		r->argv[r->argc++] = p;
		p = strchr(p, ' ');
		if (p)
			*p++ = '\0';
	}
	struct opt opts[16];
	table(r, opts);
	FILE *o, *e;
	int so = divert(1, &o), se = divert(2, &e);
	r->rc = opt_parse("t", &help, opts, r->argc, r->argv, &r->a);
	restore(2, se, e, r->err, sizeof(r->err));
	restore(1, so, o, r->out, sizeof(r->out));
	return r;
}

static void done(struct run *r)
{
	opt_args_release(&r->a);
	opt_list_release(&r->sets);
	free(r->line);
	free(r);
}

static int has(const char *hay, const char *needle)
{
	return strstr(hay, needle) != NULL;
}

static int args_are(const struct run *r, unsigned n, const char *a0, const char *a1)
{
	return r->rc == -1 && r->a.n == n && (n < 1 || strcmp(r->a.v[0], a0) == 0) &&
	       (n < 2 || strcmp(r->a.v[1], a1) == 0);
}

static void test_values(void)
{
	struct run *r = parse("x");
	ok(args_are(r, 1, "x", NULL) && !r->json && !r->force && !r->name && r->runs == 5 && !r->sets.n && !r->mode,
	   "no options: -1, the positional, every value left as it was");
	ok(!*r->out && !*r->err, "a parse that runs prints nothing");
	done(r);

	r = parse("x --json -f --name N1 --runs 7 --big 99999999999 --ratio 0.25 --set A=1 --set=B=2 --mode slow");
	ok(args_are(r, 1, "x", NULL) && r->json && r->force && strcmp(tap_s(r->name), "N1") == 0 && r->runs == 7 &&
	       r->big == 99999999999ull && r->ratio == 0.25 && strcmp(tap_s(r->mode), "slow") == 0,
	   "every kind stored: flag, short flag, string, bounded and unbounded u64, double, choice");
	ok(r->sets.n == 2 && strcmp(r->sets.v[0], "A=1") == 0 && strcmp(r->sets.v[1], "B=2") == 0,
	   "a list keeps every value in order, --set V and --set=V alike");
	done(r);

	r = parse("--name=a=b x");
	ok(args_are(r, 1, "x", NULL) && strcmp(tap_s(r->name), "a=b") == 0,
	   "--name=a=b: the value is all after the first =");
	done(r);
	r = parse("x -n N2");
	ok(r->rc == -1 && strcmp(tap_s(r->name), "N2") == 0, "-n VALUE");
	done(r);
	r = parse("x -nN3");
	ok(r->rc == -1 && strcmp(tap_s(r->name), "N3") == 0, "-nVALUE");
	done(r);
	r = parse("x --name=");
	ok(r->rc == -1 && r->name && !*r->name, "--name= stores an empty value");
	done(r);
	r = parse("x --name -dash");
	ok(r->rc == -1 && strcmp(tap_s(r->name), "-dash") == 0, "a separate value may start with a dash");
	done(r);
	r = parse("x --runs 2 --runs 3");
	ok(r->rc == -1 && r->runs == 3, "a repeated scalar option: the last one wins");
	done(r);
}

static void test_positionals(void)
{
	struct run *r = parse("--json a --runs 2 b");
	ok(args_are(r, 2, "a", "b") && r->json && r->runs == 2, "options and positionals interleave");
	done(r);
	r = parse("a -- --json");
	ok(args_are(r, 2, "a", "--json") && !r->json, "-- ends options: --json after it is a positional");
	done(r);
	r = parse("--json -- --help");
	ok(args_are(r, 1, "--help", NULL) && r->json && !*r->out, "-- then --help: a positional, not the help");
	done(r);
	r = parse("-");
	ok(args_are(r, 1, "-", NULL), "a lone - is a positional (stdin)");
	done(r);
	r = parse("a -- --");
	ok(args_are(r, 2, "a", "--"), "only the first -- is special");
	done(r);

	r = parse("");
	ok(r->rc == 2 && has(r->err, "zealot: t: missing argument (usage: zealot t ARG [ARG] [options])"),
	   "too few positionals: 2, the first usage line");
	ok(r->a.v == NULL && r->a.n == 0, "on a usage error the positionals are released");
	done(r);
	r = parse("a b c");
	ok(r->rc == 2 && has(r->err, "unexpected argument 'c'"), "too many positionals: 2, naming the first extra");
	done(r);
}

static void test_errors(void)
{
	struct run *r = parse("x --jsn");
	ok(r->rc == 2 && has(r->err, "zealot: t: unknown option '--jsn' (did you mean --json?)"),
	   "unknown option: 2 with a did-you-mean: %.*s", (int)strcspn(r->err, "\n"), r->err);
	done(r);
	r = parse("x --rnus=3");
	ok(r->rc == 2 && has(r->err, "unknown option '--rnus' (did you mean --runs?)"),
	   "did-you-mean ignores the =value: %.*s", (int)strcspn(r->err, "\n"), r->err);
	done(r);
	r = parse("x --frobnicate");
	ok(r->rc == 2 && has(r->err, "unknown option '--frobnicate' (see 'zealot t --help')"),
	   "nothing near: points at --help");
	done(r);
	r = parse("x -q");
	ok(r->rc == 2 && has(r->err, "unknown option '-q'"), "unknown short option: 2");
	done(r);
	r = parse("x --json=1");
	ok(r->rc == 2 && has(r->err, "--json takes no value"), "a flag with =value: 2");
	done(r);
	r = parse("x -fn");
	ok(r->rc == 2 && has(r->err, "-f takes no value"), "short flags are not bundled");
	done(r);
	r = parse("x --name");
	ok(r->rc == 2 && has(r->err, "--name needs a value (NAME)"), "a missing value: 2, naming the option");
	done(r);
	r = parse("x --set A=1 --nope");
	ok(r->rc == 2 && r->sets.v == NULL && r->sets.n == 0, "on a usage error the lists are released");
	done(r);

	static const char *const bad_runs[] = {"0", "101", "5x", "-1", "", "1.5", "99999999999999999999999"};
	for (size_t i = 0; i < ARRAY_SIZE(bad_runs); i++) {
		struct sb b = {0};
		sb_addf(&b, "x --runs=%s", bad_runs[i]);
		r = parse(b.s);
		ok(r->rc == 2 && has(r->err, "--runs takes a whole number from 1 to 100") && r->runs == 5,
		   "--runs=%s: 2 naming the option and its bounds, the value untouched", bad_runs[i]);
		done(r);
		sb_release(&b);
	}
	r = parse("x --runs 1 --big 10");
	ok(r->rc == -1 && r->runs == 1 && r->big == 10, "the bounds themselves are accepted");
	done(r);
	r = parse("x --runs 100");
	ok(r->rc == -1 && r->runs == 100, "the upper bound is accepted");
	done(r);
	r = parse("x --big 9");
	ok(r->rc == 2 && has(r->err, "--big takes a whole number of at least 10, not '9'"),
	   "max 0: only a lower bound");
	done(r);
	r = parse("x --ratio nan");
	ok(r->rc == 2 && has(r->err, "--ratio takes a number, not 'nan'"), "a double must be finite");
	done(r);
	r = parse("x --ratio 1e400");
	ok(r->rc == 2, "a double that overflows: 2");
	done(r);
	r = parse("x --mode medium");
	ok(r->rc == 2 && has(r->err, "--mode takes one of fast|slow, not 'medium'") && !r->mode,
	   "a choice outside its set: 2, listing the set");
	done(r);
	r = parse("x --mode fas");
	ok(r->rc == 2, "a choice is matched whole, not by prefix");
	done(r);
}

static void test_help(void)
{
	struct run *r = parse("--help");
	ok(r->rc == 0 && !*r->err, "--help: 0, nothing on stderr, even without the positional");
	const char *usage = "usage: zealot t ARG [ARG] [options]\n       zealot t --other\n";
	ok(strncmp(r->out, usage, strlen(usage)) == 0, "every usage line in the usage column");
	ok(has(r->out, "\nWhat t does.\n\n"), "the about text");
	ok(has(r->out, "\n  --json      ") && has(r->out, "\n  -f, --force ") && has(r->out, "\n  -n, --name NAME ") &&
	       has(r->out, "\n  --mode fast|slow ") && has(r->out, "\n  -h, --help "),
	   "every option's label, with its argument");
	/* the help column: where "one JSON object" starts on its line */
	const char *j = strstr(r->out, "one JSON object");
	int col = 0;
	while (j && j - col > r->out && j[-col - 1] != '\n')
		col++;
	ok(col > (int)strlen("  -h, --help"), "the help column is right of every short label (%d)", col);
	struct sb want = {0};
	sb_addf(&want, "how many runs\n%*sfrom 1 to 100\n", col, "");
	ok(has(r->out, want.s), "a help of two lines: the second starts at the help column");
	sb_release(&want);
	sb_addf(&want, "\n  --a-very-long-option-name SOMETHING\n%*shelp on the next line\n", col, "");
	ok(has(r->out, want.s), "a label wider than the column puts its help on the next line, in the column");
	sb_release(&want);
	ok(has(r->out, "\nextra: computed at run time\n") && has(r->out, "\nexit: 0 ok, 2 usage\n"),
	   "the run-time section, then the exit line");
	ok(r->a.v == NULL, "--help releases the positionals");
	char first[8192];
	memcpy(first, r->out, sizeof(first));
	done(r);

	r = parse("a -h");
	ok(r->rc == 0 && strcmp(r->out, first) == 0, "-h after a positional: the same text");
	done(r);
	r = parse("a --runs 0 --help");
	ok(r->rc == 2 && !*r->out, "an error before --help wins (options are read in order)");
	done(r);
	r = parse("a --name --help");
	ok(r->rc == -1 && strcmp(tap_s(r->name), "--help") == 0, "--help as an option's value is a value");
	done(r);

	FILE *o, *e;
	char out[64], err[256];
	int so = divert(1, &o), se = divert(2, &e);
	int rc = opt_usage_error("t", &help, "--x and --y exclude each other");
	restore(2, se, e, err, sizeof(err));
	restore(1, so, o, out, sizeof(out));
	ok(rc == 2 &&
	       strcmp(err, "zealot: t: --x and --y exclude each other (usage: zealot t ARG [ARG] [options])\n") == 0 &&
	       !*out,
	   "opt_usage_error: 2, the first usage line, on stderr: %.*s", (int)strcspn(err, "\n"), err);
}

void test_options(void)
{
	test_values();
	test_positionals();
	test_errors();
	test_help();
}
