#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/redact.h"
#include "base/util.h"
#include "tap.h"

/* The state directory's order: ZEALOT_STATE_DIR, then root's /var/lib/zealot,
 * else XDG_STATE_HOME, HOME, the passwd entry's home. */
static void state_dir_order(void)
{
	char *keep[3];
	const char *names[3] = {"ZEALOT_STATE_DIR", "XDG_STATE_HOME", "HOME"};
	for (int i = 0; i < 3; i++)
		keep[i] = getenv(names[i]) ? strdup(getenv(names[i])) : NULL;
	setenv("ZEALOT_STATE_DIR", "/z", 1);
	setenv("XDG_STATE_HOME", "/x", 1);
	setenv("HOME", "/h", 1);
	char *a = state_dir();
	unsetenv("ZEALOT_STATE_DIR");
	char *b = state_dir();
	setenv("XDG_STATE_HOME", "", 1);
	char *c = state_dir();
	unsetenv("HOME");
	char *d = state_dir();
	if (geteuid() == 0)
		ok(strcmp(a, "/z") == 0 && strcmp(b, "/var/lib/zealot") == 0 && strcmp(c, "/var/lib/zealot") == 0 &&
		       strcmp(d, "/var/lib/zealot") == 0,
		   "state_dir as root: ZEALOT_STATE_DIR, else /var/lib/zealot, HOME or not (%s, %s, %s, %s)", a, b, c,
		   d);
	else
		ok(strcmp(a, "/z") == 0 && strcmp(b, "/x/zealot") == 0 && strcmp(c, "/h/.local/state/zealot") == 0 &&
		       strncmp(d, "/tmp", 4) != 0 && d[0] == '/',
		   "state_dir: ZEALOT_STATE_DIR, else XDG_STATE_HOME/zealot, else HOME/.local/state/zealot, HOME "
		   "unset: the passwd home, never /tmp (%s, %s, %s, %s)",
		   a, b, c, d);
	free(a);
	free(b);
	free(c);
	free(d);
	for (int i = 0; i < 3; i++) {
		if (keep[i])
			setenv(names[i], keep[i], 1);
		else
			unsetenv(names[i]);
		free(keep[i]);
	}
}

/* path_which: the PATH entries in turn, a name with a slash as it is. */
static void which_order(void)
{
	char a[] = "/tmp/zealot-unit-which-XXXXXX", b[] = "/tmp/zealot-unit-which-XXXXXX";
	if (!mkdtemp(a) || !mkdtemp(b)) {
		ok(0, "path_which: temp dirs");
		return;
	}
	char fa[96], fb[96], fn[96], path[256];
	snprintf(fa, sizeof(fa), "%s/zt-tool", a);
	snprintf(fb, sizeof(fb), "%s/zt-tool", b);
	snprintf(fn, sizeof(fn), "%s/zt-plain", a);
	FILE *f;
	if ((f = fopen(fa, "w")))
		fclose(f);
	if ((f = fopen(fb, "w")))
		fclose(f);
	if ((f = fopen(fn, "w")))
		fclose(f);
	chmod(fa, 0755);
	chmod(fb, 0755);
	chmod(fn, 0644);
	char *keep = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	snprintf(path, sizeof(path), "/nonexistent:%s:%s", b, a);
	setenv("PATH", path, 1);
	char *x = path_which("zt-tool"), *y = path_which("zt-plain"), *z = path_which("./zt-tool");
	ok(x && strcmp(x, fb) == 0, "path_which: the first PATH entry that holds it (%s)", x ? x : "NULL");
	ok(!y, "path_which: a file that is not executable is not found");
	ok(z && strcmp(z, "./zt-tool") == 0, "path_which: a name with a slash is taken as it is");
	free(x);
	free(y);
	free(z);
	if (keep)
		setenv("PATH", keep, 1);
	else
		unsetenv("PATH");
	free(keep);
	unlink(fa);
	unlink(fb);
	unlink(fn);
	rmdir(a);
	rmdir(b);
}

/* open_regular: a regular file opens; a FIFO, a device and a directory are
 * refused at once (a plain open of a FIFO waits for a writer forever). */
static void regular_only(void)
{
	char dir[] = "/tmp/zealot-unit-reg.XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	char f[64], p[64];
	snprintf(f, sizeof(f), "%s/f", dir);
	snprintf(p, sizeof(p), "%s/p", dir);
	FILE *w = fopen(f, "w");
	if (w) {
		fputs("x\n", w);
		fclose(w);
	}
	char *err = NULL;
	int fd = open_regular(f, &err);
	char c = 0;
	ok(fd >= 0 && read(fd, &c, 1) == 1 && c == 'x', "open_regular: a regular file opens and reads");
	if (fd >= 0)
		close(fd);
	int refused = mkfifo(p, 0600) == 0 && open_regular(p, &err) < 0;
	ok(refused && err && strstr(err, "(a FIFO)") && strncmp(err, "cannot", 6) == 0,
	   "open_regular: a FIFO is refused without blocking, an I/O error naming it (%s)", tap_s(err));
	free(err);
	err = NULL;
	refused = open_regular("/dev/null", &err) < 0;
	ok(refused && err && strstr(err, "(a character device)"), "open_regular: a device is refused (%s)", tap_s(err));
	free(err);
	err = NULL;
	ok(open_regular(dir, &err) < 0 && err && strstr(err, "(a directory)"), "open_regular: a directory is refused");
	free(err);
	err = NULL;
	ok(open_regular("/nonexistent/zealot", &err) < 0 && err && strstr(err, "cannot open"),
	   "open_regular: a missing file says cannot open");
	free(err);
	unlink(f);
	unlink(p);
	rmdir(dir);
}

void test_util(void)
{
	state_dir_order();
	which_order();
	regular_only();
	char cb[32], small[4];
	{
		char mb[48];
		ok(strcmp(fmt_mib(22543.857, 0, mb, sizeof(mb)), "22,543.86") == 0 &&
		       strcmp(fmt_mib(-484.98, 1, mb, sizeof(mb)), "-484.98") == 0 &&
		       strcmp(fmt_mib(1234567.0, 1, mb, sizeof(mb)), "+1,234,567.00") == 0 &&
		       strcmp(fmt_mib(-1000.0, 0, mb, sizeof(mb)), "-1,000.00") == 0 &&
		       strcmp(fmt_mib(-0.001, 0, mb, sizeof(mb)), "0.00") == 0 &&
		       strcmp(fmt_mib(0.001, 1, mb, sizeof(mb)), "0.00") == 0 &&
		       strcmp(fmt_mib(999.999, 0, mb, sizeof(mb)), "1,000.00") == 0 &&
		       strcmp(fmt_mib(10.625, 0, mb, sizeof(mb)), "10.62") == 0 && strcmp(FMT_MIB(5.5), "5.50") == 0 &&
		       strlen(fmt_mib(22543.86, 0, mb, 6)) == 5,
		   "fmt_mib: two decimals as printf rounds them, commas, a sign only when asked or negative, cut to "
		   "fit");
	}
	ok(strcmp(fmt_commas(200704, cb, sizeof(cb)), "200,704") == 0 &&
	       strcmp(fmt_commas(0, cb, sizeof(cb)), "0") == 0 &&
	       strcmp(fmt_commas(1000, cb, sizeof(cb)), "1,000") == 0 &&
	       strcmp(fmt_commas(18446744073709551615ull, cb, sizeof(cb)), "18,446,744,073,709,551,615") == 0,
	   "fmt_commas: a comma every three digits");
	ok(strlen(fmt_commas(123456, small, sizeof(small))) < sizeof(small), "fmt_commas: cut to fit the buffer (%s)",
	   small);
	struct sb b = {0};
	for (int i = 0; i < 1000; i++)
		sb_addf(&b, "%d,", i);
	ok(b.len == strlen(b.s), "sb length tracks content");
	ok(strncmp(b.s, "0,1,2,", 6) == 0 && b.s[b.len - 1] == ',', "sb_addf appends in order");
	sb_release(&b);
	ok(b.s == NULL && b.len == 0, "sb_release empties");

	sb_add_json_str(&b, "a\"b\\\n\x01", 6);
	ok(strcmp(b.s, "\"a\\\"b\\\\\\n\\u0001\"") == 0, "json string escaping: %s", b.s);
	sb_release(&b);

	uint64_t u;
	ok(parse_u64("602112", &u) == 0 && u == 602112, "parse_u64 plain");
	ok(parse_u64("-1", &u) == -1, "parse_u64 refuses a sign");
	ok(parse_u64("12k", &u) == -1, "parse_u64 refuses a suffix");
	ok(parse_u64("", &u) == -1, "parse_u64 refuses empty");
	ok(parse_u64("99999999999999999999999", &u) == -1, "parse_u64 refuses overflow");
	double d;
	ok(parse_double("1.0", &d) == 0 && d == 1.0, "parse_double");
	ok(parse_double("1.0x", &d) == -1, "parse_double refuses trailing junk");

	char *err = NULL;
	ok(errorf(&err, "x %d", 3) == -1 && strcmp(err, "x 3") == 0, "errorf fills and returns -1");
	free(err);

	/* redact: one function decides what a secret is */
	static const struct {
		const char *in, *want;
	} r[] = {
	    {"HTTP 404 from https://u:pw@h.example/m.gguf", "HTTP 404 from https://<redacted>@h.example/m.gguf"},
	    {"http://hf_TOKEN@h/x and ftp://a@b@c/d", "http://<redacted>@h/x and ftp://<redacted>@c/d"},
	    {"Environment=LLAMA_ARG_API_KEY=sk-1 X=2", "Environment=LLAMA_ARG_API_KEY=<redacted> X=2"},
	    {"--api-key sk-1 --port 80", "--api-key <redacted> --port 80"},
	    {"--hf-token=abc --x", "--hf-token=<redacted> --x"},
	    {"API_KEY_FILE=/k --api-key-file /k", "API_KEY_FILE=/k --api-key-file /k"},
	    {"expected KEY=VALUE; CACHE_TYPE_K=q8_0", "expected KEY=VALUE; CACHE_TYPE_K=q8_0"},
	    {"password=hunter2, ok", "password=<redacted>, ok"},
	    {"host ssh://dank@h1:2222 and SSH://ops@h2", "host ssh://dank@h1:2222 and SSH://ops@h2"},
	    {"ssh://dank:pw@h1 gitssh://tok@h", "ssh://<redacted>@h1 gitssh://<redacted>@h"},
	    /* presigned URLs (issue 28 item 17): the signing parameters' values, to the next & or # */
	    {"GET https://b.s3.amazonaws.com/m.gguf?X-Amz-Algorithm=AWS4&X-Amz-Credential=AKIA/x&X-Amz-Date=1&"
	     "X-Amz-Signature=abc123 failed",
	     "GET https://b.s3.amazonaws.com/m.gguf?X-Amz-Algorithm=AWS4&X-Amz-Credential=<redacted>&X-Amz-Date=1&"
	     "X-Amz-Signature=<redacted> failed"},
	    {"https://a.blob.core.windows.net/c/m?sv=2021&sig=Zm9v%2Bbar%3D#frag",
	     "https://a.blob.core.windows.net/c/m?sv=2021&sig=<redacted>#frag"},
	    {"'https://d.cloudfront.net/m?Expires=9&Signature=s~x-y&Key-Pair-Id=K1'",
	     "'https://d.cloudfront.net/m?Expires=9&Signature=<redacted>&Key-Pair-Id=<redacted>'"},
	    {"https://storage.googleapis.com/b/m?X-Goog-Algorithm=G&X-Goog-Signature=f00d",
	     "https://storage.googleapis.com/b/m?X-Goog-Algorithm=<redacted>&X-Goog-Signature=<redacted>"},
	    {"a signature=kept outside a URL's query, sig=kept", "a signature=kept outside a URL's query, sig=kept"},
	};
	for (size_t i = 0; i < ARRAY_SIZE(r); i++) {
		char *got = redact_text(r[i].in);
		ok(strcmp(got, r[i].want) == 0, "redact: '%s' -> '%s'", r[i].in, got);
		free(got);
	}
	char *v = redact_value("LLAMA_ARG_API_KEY", "sk-1");
	char *a = redact_value("--api-key", "(absent)");
	char *url = redact_value("MODEL_URL", "https://a:b@h/m");
	ok(strcmp(v, REDACT_MARK) == 0 && strcmp(a, "(absent)") == 0 && strcmp(url, "https://<redacted>@h/m") == 0,
	   "redact: a secret's value, a placeholder kept, a URL's userinfo");
	free(v);
	free(a);
	free(url);
}
