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

void test_util(void);
void test_ggml_type(void);
void test_cpu(void);
void test_place(void);
void test_gguf(void);
void test_model(void);
void test_model_ssm(void);
void test_template(void);
void test_synth(void);
void test_ledger(void);
void test_router_log(void);
void test_endpoint(void);
void test_keys(void);
void test_live(void);
void test_options(void);
void test_solve(void);
void test_rate(void);
void test_deploy(void);
void test_store(void);
void test_calibrate(void);
void test_fetch(void);
void test_fleet(void);
void test_fleet_ssh(void);
void test_monitor(void);
void test_fault(void);
void test_cuda(void);
void test_render(void);
void test_zerr(void);

#endif
