#include <stdarg.h>

#include "tap.h"
#include "unit_tests.h"

int tap_count, tap_failed;

int tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list ap;
	tap_count++;
	printf("%sok %d - ", pass ? "" : "not ", tap_count);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (!pass) {
		printf(" (%s:%d)", file, line);
		tap_failed++;
	}
	printf("\n");
	return pass;
}

int main(void)
{
	/* every `void test_NAME(void)` of tests/unit/test_*.c (gen-main.sh) */
#define X(t) t();
	UNIT_TESTS
#undef X
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
