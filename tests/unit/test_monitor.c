/* monitoring and the runtime pin: the --help flag matcher, the build
 * number of a --version text, the scrape probe's instance, the textfile
 * metrics' escaping and dedup. */
#include <stdlib.h>
#include <string.h>

#include "judge/runtime.h"
#include "live/promfile.h"
#include "live/scrape.h"
#include "tap.h"

void test_monitor(void)
{
	const char *help = "-c,    --ctx-size N                     size of the prompt context\n"
			   "-cd,   --ctx-size-draft N               the draft's\n"
			   "--mmap, --no-mmap                       whether to memory-map\n"
			   "-fa,   --flash-attn [on|off|auto]       flash attention\n"
			   "--spec-draft-n-max N                    draft depth\n";
	ok(runtime_flag_listed(help, "--ctx-size"), "help: --ctx-size listed");
	ok(runtime_flag_listed(help, "--ctx-size-draft"), "help: --ctx-size-draft listed");
	ok(runtime_flag_listed(help, "--no-mmap") && runtime_flag_listed(help, "--mmap"), "help: both of a pair");
	ok(runtime_flag_listed(help, "--flash-attn"), "help: a flag followed by its choices");
	ok(runtime_flag_listed(help, "-c") && runtime_flag_listed(help, "-fa"), "help: short flags");
	ok(!runtime_flag_listed(help, "--ctx"), "help: a prefix is not the flag");
	ok(!runtime_flag_listed(help, "--spec-draft-n"), "help: --spec-draft-n is not --spec-draft-n-max");
	ok(!runtime_flag_listed(help, "--draft-n-max"), "help: a suffix is not the flag");
	ok(!runtime_flag_listed(help, "--n-max"), "help: nor a tail of one");
	ok(!runtime_flag_listed(help, "--spec-draft-n-min"), "help: an absent flag");
	ok(!runtime_flag_listed(NULL, "--x") && !runtime_flag_listed(help, ""), "help: nothing, or an empty flag");

	ok(runtime_build("version: 0.2.0-dev (build 10777, commit e3de71522)\nbuilt with GNU") == 10777,
	   "build: from --version");
	ok(runtime_build("main: build 10776 (abcdef0) with cc for x86_64") == 10776, "build: from a boot log");
	ok(runtime_build("version: 1") == -1 && runtime_build(NULL) == -1 && runtime_build("(build x)") == -1,
	   "build: none");

	char *s = scrape_instance("http://127.0.0.1:7771/v1");
	ok(s && strcmp(s, "127.0.0.1:7771") == 0, "instance: host:port of the URL (%s)", tap_s(s));
	free(s);
	s = scrape_instance("https://example.org");
	ok(s && strcmp(s, "example.org:443") == 0, "instance: https's default port (%s)", tap_s(s));
	free(s);
	s = scrape_instance("http://[::1]:8080/");
	ok(s && strcmp(s, "[::1]:8080") == 0, "instance: an IPv6 literal with a port (%s)", tap_s(s));
	free(s);
	s = scrape_instance("http://[::1]/");
	ok(s && strcmp(s, "[::1]:80") == 0, "instance: an IPv6 literal without one (%s)", tap_s(s));
	free(s);
	ok(scrape_instance("ftp://x") == NULL && scrape_instance("http://") == NULL, "instance: not an http URL");

	struct probe_result pr[] = {{.name = "health", .law = "A01", .status = PROBE_PASS},
				    {.name = "metrics", .law = "C04", .status = PROBE_FAIL},
				    {.name = "vision", .law = "A04", .status = PROBE_SKIP}};
	struct probe_results probes = {pr, 3};
	struct promfile f = {"odd\"na\\me", NULL, NULL, 22664, 7, &probes};
	char *t = promfile_text(&f);
	ok(strstr(t,
		  "zealot_memory_mib{endpoint=\"odd\\\"na\\\\me\",term=\"total\",buffer=\"device\",source=\"settled\"} "
		  "22664.00\n") != NULL,
	   "promfile: a label value escaped, the settled figure");
	ok(strstr(t, "zealot_era{endpoint=\"odd\\\"na\\\\me\"} 7\n") != NULL, "promfile: the era");
	ok(strstr(t, "probe=\"health\"} 1\n") && strstr(t, "probe=\"metrics\"} 0\n") && !strstr(t, "vision"),
	   "promfile: pass 1, fail 0, skip absent");
	ok(!strstr(t, "zealot_slack_mib{"), "promfile: no slack series without a plan");
	free(t);
	f.era = 0;
	f.probes = NULL;
	f.settled_used_mib = -1;
	t = promfile_text(&f);
	ok(!strstr(t, "zealot_era{") && !strstr(t, "zealot_probe_pass{") && !strstr(t, "zealot_memory_mib{"),
	   "promfile: nothing known, no series");
	free(t);
}
