#include <stdlib.h>
#include <string.h>

#include "endpoint/argv.h"
#include "endpoint/endpoint.h"
#include "plan/graph/galloc.h"
#include "tap.h"

static struct endpoint *parse(const char *text, char **err)
{
	return endpoint_parse(text, strlen(text), "/srv/x/frank.env", err);
}

static int has_arg(const struct argv_list *a, const char *flag, const char *value)
{
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], flag) == 0)
			return !value || (i + 1 < a->n && strcmp(a->v[i + 1], value) == 0);
	return 0;
}

void test_endpoint(void)
{
	char *err = NULL;
	struct endpoint *ep = parse("# comment\n; also\n\nMODEL_FILE = m.gguf\nCTX_SIZE=8192\n"
				    "ALIAS=\"frank \\\"z\\\"\"\nMMPROJ_FILE=\nEXTRA_ARGS='--a  --b'\n"
				    "LORA_FILE=l.gguf\\\n.bak\n",
				    &err);
	ok(ep != NULL, "a valid endpoint parses (%s)", tap_s(err));
	if (ep) {
		ok(strcmp(ep->name, "frank") == 0, "name from the file name without .env");
		ok(strcmp(endpoint_value(ep, "MODEL_FILE"), "m.gguf") == 0, "blanks around = stripped");
		ok(strcmp(endpoint_value(ep, "ALIAS"), "frank \"z\"") == 0, "double quotes with escapes");
		ok(strcmp(endpoint_value(ep, "EXTRA_ARGS"), "--a  --b") == 0, "single quotes verbatim");
		ok(strcmp(endpoint_value(ep, "LORA_FILE"), "l.gguf.bak") == 0,
		   "a trailing backslash continues the line");
		ok(endpoint_is_empty(ep, "MMPROJ_FILE") && endpoint_path(ep, "MMPROJ_FILE") == NULL,
		   "set-but-empty is an opt-out (law C02)");
		ok(strcmp(endpoint_value(ep, "CACHE_TYPE_K"), "f16") == 0 &&
		       endpoint_entry(ep, "CACHE_TYPE_K")->line == 0,
		   "unset takes the default");
		char *p = endpoint_path(ep, "MODEL_FILE");
		ok(p && strcmp(p, "/srv/x/m.gguf") == 0, "relative paths resolve against the file's directory");
		free(p);
		ok(endpoint_entry(ep, "CTX_SIZE")->line == 5, "line numbers kept");
		uint64_t v;
		ok(endpoint_uint(ep, "CTX_SIZE", &v, &err) == 0 && v == 8192, "typed value");
		ok(endpoint_set(ep, "PARALLEL=3", &err) == 0 && strcmp(endpoint_value(ep, "PARALLEL"), "3") == 0,
		   "--set overrides");
		ok(endpoint_set(ep, "KV_CACHE_TYPE=q8_0", &err) == -1 && strstr(err, "did you mean"),
		   "--set unknown key suggests: %s", tap_s(err));
		struct argv_list a;
		ok(argv_render(ep, &a, &err) == 0, "argv renders");
		ok(has_arg(&a, "--ctx-size", "8192") && has_arg(&a, "--parallel", "3") && has_arg(&a, "--fit", "off"),
		   "argv: explicit pool and --fit off (S01)");
		ok(has_arg(&a, "--metrics", NULL) && has_arg(&a, "--log-verbosity", "4"),
		   "argv: --metrics and verbosity 4 by default (C04, C05)");
		ok(!has_arg(&a, "--mmproj", NULL), "argv: an empty MMPROJ_FILE renders no --mmproj");
		ok(!has_arg(&a, "--spec-type", NULL) && !has_arg(&a, "--spec-draft-n-max", NULL),
		   "argv: SPEC_TYPE=none renders no --spec-* flag (S05)");
		ok(has_arg(&a, "--lora-scaled", "/srv/x/l.gguf.bak:1"), "argv: adapter with its scale");
		ok(!has_arg(&a, "--presence-penalty", NULL), "argv: no presence penalty unless set (C07)");
		ok(strcmp(a.v[a.n - 2], "--a") == 0 && strcmp(a.v[a.n - 1], "--b") == 0,
		   "argv: EXTRA_ARGS last, split");
		argv_release(&a);
		endpoint_set(ep, "SPEC_TYPE=draft-mtp", &err);
		endpoint_set(ep, "PRESENCE_PENALTY=1.0", &err);
		argv_render(ep, &a, &err);
		ok(has_arg(&a, "--spec-type", "draft-mtp") && has_arg(&a, "--spec-draft-n-max", "3") &&
		       has_arg(&a, "--spec-draft-type-v", "f16"),
		   "argv: an armed drafter renders the whole set");
		ok(has_arg(&a, "--presence-penalty", "1.0"), "argv: presence penalty when set");
		argv_release(&a);
		endpoint_free(ep);
	}

	struct {
		const char *text, *want;
	} bad[] = {
	    {"KV_CACHE_TYPE=q8_0\n", "frank.env:1: unknown key 'KV_CACHE_TYPE' (did you mean CACHE_TYPE_"},
	    {"CTX_SIZE=1\nCTX_SIZE=2\n", "frank.env:2: CTX_SIZE is already set on line 1"},
	    {"ALIAS=\"open\n", "frank.env:1: ALIAS: unterminated quote"},
	    {"ALIAS=\"a\" b\n", "text after the closing quote"},
	    {"==x\n", "frank.env:1: '=' is not a variable name"},
	    {"MODEL_FILE\n", "frank.env:1: a line without '='"},
	    {"export MODEL_FILE=x\n",
	     "'export MODEL_FILE' is not a variable name: systemd's EnvironmentFile= drops it"},
	    /* law C10: what systemd's EnvironmentFile= reads otherwise */
	    {"ALIAS=frank\rLD_PRELOAD=/tmp/evil.so\n", "frank.env:1: ALIAS: a CR not followed by LF"},
	    {"USER=\"nobody\nExecStartPre=/bin/touch /tmp/pwned\"\n",
	     "frank.env:1: USER: the value holds control byte 0x0a"},
	    {"# c \\\nMODEL_FILE=x\n", "frank.env:1: a comment ends in a backslash"},
	    {"ALIAS=a\\.b\n", "frank.env:1: ALIAS: a backslash outside quotes"},
	    {"NGL=1\nALIAS=\xff\n", "frank.env:2: the value is not valid UTF-8"},
	    {"ALIAS='a\tb'\n", "control byte 0x09 (a tab)"},
	    {"NGL=99\nBOGUS_THING_ENTIRELY=1\n", "frank.env:2: unknown key 'BOGUS_THING_ENTIRELY' (law C01"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		free(err);
		err = NULL;
		struct endpoint *b = parse(bad[i].text, &err);
		int c_ = b == NULL && err && strstr(err, bad[i].want);
		ok(c_, "refused: %s", tap_s(err));
		endpoint_free(b);
	}
	{
		/* the bytes as systemd reads them: CRLF, a continuation, quotes */
		free(err);
		err = NULL;
		struct endpoint *c =
		    parse("ALIAS=a b  \r\nEXTRA_ARGS=\"x\\ny\"\nUSER='u\\v'\nMODEL_FILE=m\\\r\nCTX_SIZE=1\n", &err);
		ok(c && strcmp(endpoint_value(c, "ALIAS"), "a b") == 0 &&
		       strcmp(endpoint_value(c, "EXTRA_ARGS"), "x\\ny") == 0 &&
		       strcmp(endpoint_value(c, "USER"), "u\\v") == 0 &&
		       strcmp(endpoint_value(c, "MODEL_FILE"), "m") == 0 && endpoint_entry(c, "CTX_SIZE")->line == 5,
		   "systemd's reading: CRLF ends a line, \\n stays two bytes in double quotes, a backslash before "
		   "CRLF continues nothing (%s)",
		   tap_s(err));
		endpoint_free(c);
		c = parse("ALIAS=x\n", &err);
		int refused = c && endpoint_set(c, "USER=nobody\nExecStartPre=/bin/true", &err) == -1 &&
			      strstr(err, "--set USER") && strstr(err, "control byte 0x0a");
		ok(refused, "--set: a value with a line break is refused naming the key (%s)", tap_s(err));
		endpoint_free(c);
	}
	ep = parse("CTX_SIZE=12k\nPARALLEL=\nKV_UNIFIED=maybe\n", &err);
	uint64_t v;
	int flag;
	{
		int c_ = endpoint_uint(ep, "CTX_SIZE", &v, &err) == -1 && strstr(err, "frank.env:1: CTX_SIZE") &&
			 strstr(err, "not a whole number");
		ok(c_, "typed error names file, line and key: %s", tap_s(err));
	}
	{
		int c_ = endpoint_uint(ep, "PARALLEL", &v, &err) == -1 && strstr(err, "no opt-out");
		ok(c_, "empty value on a key without an opt-out: %s", tap_s(err));
	}
	ok(endpoint_bool(ep, "KV_UNIFIED", &flag, &err) == -1, "bad boolean refused");
	endpoint_free(ep);
	ok(endpoint_suggest("CACHE_TYPE") != NULL && strncmp(endpoint_suggest("CACHE_TYPE"), "CACHE_TYPE_", 11) == 0,
	   "did-you-mean for a near miss");
	ok(strcmp(endpoint_suggest("LISTENPORT"), "LISTEN_PORT") == 0, "did-you-mean for a missing underscore");
	ok(endpoint_suggest("ZZZZZZZZZZZZZZZZZZ") == NULL, "no suggestion for nonsense");
	free(err);

	/* galloc: the allocator's reuse rules on a three-node chain */
	struct ga_graph g;
	ga_init(&g);
	int in = ga_input(&g, 64);
	int a = ga_op(&g, 0, 0, 16, 1, 1, 1, (const int[]){in, -2});
	int b = ga_op(&g, 1, 0, 16, 1, 1, 1, (const int[]){a, -2}); /* in place on a */
	int c = ga_op(&g, 0, 0, 16, 1, 1, 1, (const int[]){b, -2});
	g.t[c].output = 1;
	uint64_t size = ga_run(&g, 32);
	ok(g.t[b].offset == g.t[a].offset, "galloc: an in-place op reuses its only parent");
	ok(size == 128, "galloc: input 64 + a/b 64, c reuses the freed input: high-water 128 (got %llu)",
	   (unsigned long long)size);
	ga_release(&g);
}
