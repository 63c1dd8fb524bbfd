/* The three renderings of one help (src/cmd/options.c): roff and Markdown
 * escaping, hand-broken text as paragraphs and no-fill blocks, and --help's
 * option help wrapped to 100 columns. */
#include <stdlib.h>
#include <string.h>

#include "cmd/options.h"
#include "tap.h"

/* What fn printed, as a string the caller frees. */
#define CAPTURE(out, call)                                                                                             \
	do {                                                                                                           \
		size_t n_;                                                                                             \
		FILE *f = open_memstream(&(out), &n_);                                                                 \
		call;                                                                                                  \
		fclose(f);                                                                                             \
	} while (0)

static int longest_line(const char *s)
{
	int m = 0;
	while (*s) {
		int n = (int)strcspn(s, "\n");
		if (n > m)
			m = n;
		s += n + (s[n] == '\n');
	}
	return m;
}

void test_render(void)
{
	char *o = NULL;
	CAPTURE(o, opt_roff_span(f, ".a\\b-c\n'd", 10));
	ok(strcmp(o, "\\&.a\\eb\\-c\n\\&'d") == 0, "roff: a leading . and ' are escaped, \\ is \\e, - is \\-");
	free(o);

	CAPTURE(o, opt_md_span(f, "*.env a_b `x_y*` <p> #", 22));
	ok(strcmp(o, "\\*.env a\\_b `x_y*` \\<p\\> #") == 0, "md: * _ < > escaped outside `code` only (%s)", o);
	free(o);

	CAPTURE(o, opt_roff_text(f, "one\ntwo\n\n  kept  as is\n  too\nthree\n"));
	ok(strcmp(o, "one\ntwo\n.PP\n.nf\n  kept  as is\n  too\n.fi\nthree\n") == 0,
	   "roff text: lines filled, a blank is .PP, indented lines a no-fill block");
	free(o);

	CAPTURE(o, opt_md_text(f, "one\n  code\nthree\n"));
	ok(strcmp(o, "one\n```\n  code\n```\nthree\n") == 0, "md text: indented lines a code block");
	free(o);

	int flag = 0;
	const char *s = NULL;
	const struct opt opts[] = {
	    OPT_FLAG(0, "long", &flag,
		     "a help line long enough that it cannot fit in one hundred columns once the option column is "
		     "added in front of it, so it wraps"),
	    OPT_STRING(0, "name", &s, "N", "short"),
	    OPT_END(),
	};
	const struct cmd_help h = {
	    .usage = "zealot t [options]", .about = "About.\n", .examples = "  zealot t --long\n", .exits = "0"};
	CAPTURE(o, opt_usage(f, &h, opts));
	ok(longest_line(o) <= 100 && strstr(o, "\n                so it wraps\n") == NULL && strstr(o, "wraps\n"),
	   "--help: a long option help wraps within 100 columns (%d)", longest_line(o));
	ok(strstr(o, "\nexamples:\n  zealot t --long\n\nexit: 0\n") != NULL, "--help: examples before exit");
	free(o);

	CAPTURE(o, opt_render(f, "fleet t", &h, opts, OPT_FORMAT_MAN));
	ok(strncmp(o, ".TH \"ZEALOT-FLEET-T\" 1 ", 23) == 0, "man: the page is zealot-fleet-t(1)");
	ok(strstr(o, ".TP\n\\fB\\-\\-name\\fR \\fIN\\fR\nshort\n") != NULL,
	   "man: an option is a .TP with its argument");
	ok(strstr(o, ".SH EXAMPLES\n") && strstr(o, ".SH EXIT STATUS\n0\n"), "man: EXAMPLES and EXIT STATUS");
	free(o);

	CAPTURE(o, opt_render(f, "t", &h, opts, OPT_FORMAT_MARKDOWN));
	ok(strstr(o, "# zealot t\n") && strstr(o, "- `--name N`: short\n") && strstr(o, "## Exit status\n\n0\n"),
	   "markdown: title, an option per item, the exit status");
	free(o);
}
