#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/util.h"
#include "fleet/fleet.h"
#include "tap.h"

static int parses(const char *s, const char *user, const char *host, unsigned port)
{
	struct host_dest h;
	char *err = NULL;
	if (host_parse(s, &h, &err)) {
		printf("# %s: %s\n", s, err);
		free(err);
		return 0;
	}
	int same = (user ? h.user && strcmp(h.user, user) == 0 : !h.user) && strcmp(h.host, host) == 0 &&
		   h.port == port && strcmp(h.dest, s) == 0;
	host_free(&h);
	return same;
}

static int refused(const char *s)
{
	struct host_dest h;
	char *err = NULL;
	int rc = host_parse(s, &h, &err);
	int good = rc == -1 && err && *err && !h.host && !h.user;
	free(err);
	if (rc == 0)
		host_free(&h);
	return good;
}

/* The quoted word, run through sh, comes back byte for byte. */
static int round_trips(const char *s)
{
	struct sb cmd = {0};
	sb_adds(&cmd, "printf %s ");
	quote_shell(&cmd, s);
	FILE *p = popen(cmd.s, "r");
	sb_release(&cmd);
	if (!p)
		return 0;
	char buf[512];
	size_t n = fread(buf, 1, sizeof(buf) - 1, p);
	buf[n] = '\0';
	int rc = pclose(p);
	return rc == 0 && strcmp(buf, s) == 0;
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

void test_fleet(void)
{
	ok(parses("dankclaw", NULL, "dankclaw", 0), "HOST: a bare host (an ssh config alias)");
	ok(parses("frank@dankclaw", "frank", "dankclaw", 0), "HOST: user@host");
	ok(parses("ssh://frank@192.168.0.143:2222", "frank", "192.168.0.143", 2222), "HOST: ssh://user@host:port");
	ok(parses("ssh://h.example.org", NULL, "h.example.org", 0), "HOST: ssh://host");
	ok(parses("ssh://root@[::1]:2201", "root", "::1", 2201), "HOST: ssh:// with a bracketed IPv6 address");
	ok(parses("ssh://127.0.0.1:65535", NULL, "127.0.0.1", 65535), "HOST: the highest port");

	static const char *const bad[] = {
	    "",
	    "-oProxyCommand=touch /tmp/x",
	    "frank@-oProxyCommand=x",
	    "-frank@host",
	    "host;touch x",
	    "host$(id)",
	    "host`id`",
	    "host|cat",
	    "ho st",
	    "host\n",
	    "'host'",
	    "@host",
	    "frank@",
	    "a@b@c",
	    "host:22",
	    "ssh://host:0",
	    "ssh://host:65536",
	    "ssh://host:",
	    "ssh://host:22x",
	    "ssh://host/path",
	    "ssh://",
	    "ssh://@host",
	    "ssh://[::1",
	    "ssh://[;id]:22",
	    "ssh://[::1]x",
	    "http://host",
	    "host\\",
	    "h\xc3\xa9",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ok(refused(bad[i]), "HOST refuses '%s'", bad[i]);

	struct sb q = {0};
	quote_shell(&q, "it's");
	ok(strcmp(q.s, "'it'\\''s'") == 0, "quote: a single quote closes, escapes, reopens: %s", q.s);
	sb_release(&q);
	quote_shell(&q, "");
	ok(strcmp(q.s, "''") == 0, "quote: the empty string is one empty word");
	sb_release(&q);
	static const char *const hostile[] = {
	    "plain", "a b", "$(touch /nonexistent/x)", "`id`", "';id;'", "\"$HOME\"", "x\ny", "\\", "-n", "*", "''",
	};
	for (size_t i = 0; i < ARRAY_SIZE(hostile); i++)
		ok(round_trips(hostile[i]), "quote: sh reads '%s' back unchanged", hostile[i]);

	/* a fleet directory */
	char dir[] = "/tmp/zealot-fleet-XXXXXX";
	if (!mkdtemp(dir)) {
		ok(0, "mkdtemp");
		return;
	}
	static const char *const files[][2] = {
	    {"b.env", "MODEL_FILE=m.gguf\nCTX_SIZE=4096\nHOST=ssh://root@127.0.0.1:2202\nGPU=0\n"},
	    {"a.env", "MODEL_FILE=m.gguf\nCTX_SIZE=4096\nHOST=ssh://root@127.0.0.1:2201\n"},
	    {"c.env", "MODEL_FILE=m.gguf\nCTX_SIZE=4096\nHOST=ssh://root@127.0.0.1:2202\nGPU=0\n"},
	    {"local.env", "MODEL_FILE=m.gguf\nCTX_SIZE=4096\n"},
	    {"notes.txt", "not an endpoint\n"},
	};
	struct sb p = {0};
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		sb_addf(&p, "%s/%s", dir, files[i][0]);
		write_file(p.s, files[i][1]);
		sb_release(&p);
	}

	struct fleet f;
	char *err = NULL;
	int rc = fleet_load(dir, &f, NULL, &err);
	ok(rc == 0 && f.n == 4, "fleet_load reads every *.env and nothing else (%zu) %s", f.n, tap_s(err));
	if (rc == 0) {
		ok(strcmp(f.m[0].name, "a") == 0 && strcmp(f.m[3].name, "local") == 0, "members sorted by name");
		ok(f.m[1].remote && f.m[1].gpu == 0 && f.m[1].host.port == 2202, "HOST and GPU parsed");
		ok(!f.m[3].remote && f.m[3].gpu == -1, "no HOST: local; no GPU: -1");
		struct fleet_card *c;
		size_t n = fleet_cards(&f, &c);
		ok(n == 3, "three groups: 2201 cpu, 2202 card 0, localhost cpu (%zu)", n);
		if (n == 3) {
			ok(strcmp(c[0].host, "127.0.0.1:2201") == 0 && c[0].gpu == -1 && c[0].n == 1, "first host %s",
			   c[0].host);
			ok(strcmp(c[1].host, "127.0.0.1:2202") == 0 && c[1].gpu == 0 && c[1].n == 2 &&
			       strcmp(f.m[c[1].idx[0]].name, "b") == 0 && strcmp(f.m[c[1].idx[1]].name, "c") == 0,
			   "the shared card holds b and c");
			ok(strcmp(c[2].host, "localhost") == 0, "localhost is a host like any other");
		}
		fleet_cards_free(c, n);
		fleet_free(&f);
	}
	free(err);
	err = NULL;

	sb_addf(&p, "%s/evil.env", dir);
	write_file(p.s, "MODEL_FILE=m.gguf\nCTX_SIZE=4096\nHOST=-oProxyCommand=sh\n");
	rc = fleet_load(dir, &f, NULL, &err);
	ok(rc == -1 && err && strstr(err, "evil.env:3: HOST"), "a hostile HOST is refused naming file and line: %s",
	   tap_s(err));
	free(err);
	err = NULL;
	unlink(p.s);
	sb_release(&p);
	sb_addf(&p, "%s/gpu.env", dir);
	write_file(p.s, "MODEL_FILE=m.gguf\nCTX_SIZE=4096\nGPU=first\n");
	rc = fleet_load(dir, &f, NULL, &err);
	ok(rc == -1 && err && strstr(err, "gpu.env") && strstr(err, "GPU"), "a GPU that is no number: %s", tap_s(err));
	free(err);
	err = NULL;
	unlink(p.s);
	sb_release(&p);

	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		sb_addf(&p, "%s/%s", dir, files[i][0]);
		unlink(p.s);
		sb_release(&p);
	}
	rc = fleet_load(dir, &f, NULL, &err);
	ok(rc == -1 && err && strstr(err, "no endpoint file"), "an empty directory is refused: %s", tap_s(err));
	free(err);
	err = NULL;
	rmdir(dir);
	rc = fleet_load(dir, &f, NULL, &err);
	ok(rc == -1 && err && strstr(err, dir), "a missing directory is refused naming it");
	free(err);
}
