/* zealot emit unit|prometheus|alerts|harness ENDPOINT */
#include <getopt.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/util.h"
#include "../endpoint/emit.h"
#include "../endpoint/endpoint.h"
#include "../plan/plan.h"
#include "../plan/shape.h"
#include "cmd.h"

static const char usage[] = "usage: zealot emit unit|prometheus|alerts|harness ENDPOINT [options]\n"
			    "\n"
			    "  unit        a systemd unit: ExecStart=zealot serve ENDPOINT (the engine\n"
			    "              becomes the main process), EnvironmentFile= the endpoint,\n"
			    "              Restart=on-failure, RestartSec=10, TimeoutStopSec=180,\n"
			    "              LimitMEMLOCK=infinity, and the serve refusal status (78) in\n"
			    "              RestartPreventExitStatus= so a refusal is never a crash loop\n"
			    "  prometheus  a scrape job for /metrics\n"
			    "  alerts      rules: endpoint down (and the 501 of METRICS=0, C04), no free\n"
			    "              slot for N minutes (A07)\n"
			    "  harness     a client entry: the per-slot window (M03), the template's\n"
			    "              reasoning_effort map (A08), the payload's sampling defaults\n"
			    "\n"
			    "  --user NAME       unit: User=\n"
			    "  --zealot PATH     unit: the zealot binary (default: this one)\n"
			    "  --slot-minutes N  alerts: minutes of waiting before LlmNoFreeSlot (5)\n"
			    "  -h, --help        this text\n"
			    "\n"
			    "exit: 0, 2 usage or invalid endpoint, 3 unreadable file\n";

int cmd_emit(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"user", required_argument, NULL, 'u'},
	    {"zealot", required_argument, NULL, 'z'},
	    {"slot-minutes", required_argument, NULL, 'm'},
	    {"help", no_argument, NULL, 'h'},
	    {NULL, 0, NULL, 0},
	};
	const char *user = NULL, *zealot = NULL;
	uint64_t minutes = 5;
	int ch;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (ch) {
		case 'u': user = optarg; break;
		case 'z': zealot = optarg; break;
		case 'm':
			if (parse_u64(optarg, &minutes) || minutes == 0 || minutes > 1440)
				return cmd_fail(EXIT_USAGE, "emit: --slot-minutes takes 1..1440");
			break;
		case 'h': fputs(usage, stdout); return EXIT_OK;
		default: fputs(usage, stderr); return EXIT_USAGE;
		}
	}
	if (optind != argc - 2) {
		fputs(usage, stderr);
		return EXIT_USAGE;
	}
	const char *what = argv[optind], *file = argv[optind + 1];
	int kind = strcmp(what, "unit") == 0	     ? 0
		   : strcmp(what, "prometheus") == 0 ? 1
		   : strcmp(what, "alerts") == 0     ? 2
		   : strcmp(what, "harness") == 0    ? 3
						     : -1;
	if (kind < 0)
		return cmd_fail(EXIT_USAGE, "emit: '%s' is not unit, prometheus, alerts or harness", what);
	char *err = NULL, *out = NULL;
	int rc = EXIT_OK;
	struct shape_ctx c = {0};
	struct endpoint *ep = endpoint_load(file, &err);
	if (!ep) {
		rc = err && strncmp(err, "cannot", 6) == 0 ? EXIT_IO : EXIT_USAGE;
		goto done;
	}
	if (kind == 0) {
		char self[PATH_MAX], abs[PATH_MAX];
		if (!zealot) {
			ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
			if (n <= 0) {
				rc = EXIT_IO;
				errorf(&err, "cannot find this binary's path (give --zealot)");
				goto done;
			}
			self[n] = '\0';
			zealot = self;
		}
		if (!realpath(file, abs)) {
			rc = EXIT_IO;
			errorf(&err, "cannot resolve '%s'", file);
			goto done;
		}
		out = emit_unit(ep, zealot, abs, user);
	} else if (kind == 1) {
		out = emit_prometheus(ep);
	} else if (kind == 2) {
		out = emit_alerts(ep, (unsigned)minutes);
	} else {
		int io = 0;
		struct plan p;
		if (shape_load(ep, NULL, &c, &io, &err) ||
		    plan_make(c.census->model, c.model->g, &c.shape, c.dev, &c.extras, &p, &err)) {
			rc = io ? EXIT_IO : EXIT_USAGE;
			goto done;
		}
		out = emit_harness(ep, c.census, &p);
	}
	fputs(out, stdout);
done:
	if (err)
		cmd_fail(rc, "emit: %s", err);
	free(err);
	free(out);
	shape_release(&c);
	endpoint_free(ep);
	return rc;
}
