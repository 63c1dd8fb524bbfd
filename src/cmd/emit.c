/* zealot emit unit|prometheus|alerts|harness ENDPOINT */
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
#include "options.h"

static const struct cmd_help help = {
    .usage = "zealot emit unit|prometheus|alerts|harness ENDPOINT [options]",
    .about = "  unit        a systemd unit: ExecStart=zealot serve ENDPOINT (the engine\n"
	     "              becomes the main process), EnvironmentFile= the endpoint,\n"
	     "              Restart=on-failure, RestartSec=10, TimeoutStopSec=180,\n"
	     "              LimitMEMLOCK=infinity, and the serve refusal status (78) in\n"
	     "              RestartPreventExitStatus= so a refusal is never a crash loop\n"
	     "  prometheus  a scrape job for /metrics\n"
	     "  alerts      rules: endpoint down (and the 501 of METRICS=0, C04), no free\n"
	     "              slot for N minutes (A07)\n"
	     "  harness     a client entry: the per-slot window (M03), the template's\n"
	     "              reasoning_effort map (A08), the payload's sampling defaults\n",
    .exits = "0, 2 usage or invalid endpoint, 3 unreadable file",
    .min_args = 2,
    .max_args = 2,
};

static const char *const kinds[] = {"unit", "prometheus", "alerts", "harness"};

int cmd_emit(int argc, char **argv)
{
	const char *user = NULL, *zealot = NULL;
	uint64_t minutes = 5;
	const struct opt opts[] = {
	    OPT_STRING(0, "user", &user, "NAME", "unit: User="),
	    OPT_STRING(0, "zealot", &zealot, "PATH", "unit: the zealot binary (default: this one)"),
	    OPT_U64(0, "slot-minutes", &minutes, "N", 1, 1440, "alerts: minutes of waiting before LlmNoFreeSlot (5)"),
	    OPT_END(),
	};
	struct opt_args args;
	int prc = opt_parse("emit", &help, opts, argc, argv, &args);
	if (prc >= 0)
		return prc;
	const char *what = args.v[0], *file = args.v[1];
	opt_args_release(&args); /* the array; its strings are argv's */
	int kind = -1;
	for (int k = 0; k < (int)ARRAY_SIZE(kinds); k++)
		if (strcmp(what, kinds[k]) == 0)
			kind = k;
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
