#include <stdlib.h>
#include <string.h>

#include "base/util.h"
#include "tap.h"

void test_util(void)
{
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
}
