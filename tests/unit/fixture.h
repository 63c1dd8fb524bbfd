/* A payload synthesised into a temp file and an endpoint on it, loaded as
 * the commands load one (test_solve.c makes it; test_rate.c uses it too). */
#ifndef ZEALOT_UNIT_FIXTURE_H
#define ZEALOT_UNIT_FIXTURE_H

#include "endpoint/endpoint.h"
#include "plan/shape.h"

struct fixture {
	char path[64];
	struct endpoint *ep;
	struct shape_ctx c;
};

/* synth ARCH (or the preset) with `sets` ("key=value key=value"), then the
 * endpoint text env after MODEL_FILE=. 0, or -1 (printed as a TAP comment). */
int fixture(struct fixture *f, const char *arch, const char *preset, const char *sets, const char *env);
void fixture_release(struct fixture *f);

#endif
