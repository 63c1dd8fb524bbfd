/* libFuzzer target: what deploy reads back from systemd: a start's journal
 * (the cause classifier) and `systemctl show` output. */
#include <stddef.h>
#include <stdint.h>

#include "deploy/cause.h"
#include "deploy/systemd.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cause c;
	cause_classify((const char *)data, size, size & 1, &c);
	cause_release(&c);
	struct systemd_unit u;
	systemd_parse_show((const char *)data, size, &u);
	systemd_unit_release(&u);
	return 0;
}
