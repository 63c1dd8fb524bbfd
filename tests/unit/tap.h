/* A tiny TAP producer for unit tests: `ok(cond, "name %d", x)` prints
 * "ok N - name" or "not ok N - name" (with file:line), and main() returns
 * non-zero when any check failed. tests/run counts the lines. */
#ifndef ZEALOT_TAP_H
#define ZEALOT_TAP_H

#include <stdio.h>

extern int tap_count, tap_failed;

#define ok(cond, ...) tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)
static inline const char *tap_s(const char *s)
{
	return s ? s : "(none)";
}

int tap_ok(int pass, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

#endif
