#include <stdarg.h>

#include "tap.h"

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
	test_util();
	test_fault();
	test_ggml_type();
	test_cpu();
	test_place();
	test_gguf();
	test_model();
	test_model_ssm();
	test_template();
	test_synth();
	test_ledger();
	test_router_log();
	test_endpoint();
	test_keys();
	test_live();
	test_options();
	test_solve();
	test_rate();
	test_deploy();
	test_store();
	test_calibrate();
	test_cuda();
	test_fetch();
	test_fleet();
	test_fleet_ssh();
	test_monitor();
	test_render();
	test_zerr();
	printf("1..%d\n", tap_count);
	return tap_failed != 0;
}
