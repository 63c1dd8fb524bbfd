/* libFuzzer target: what a fleet host prints back (src/fleet/ssh.c): the
 * wrapper's marker and status line (fleet_ssh_unwrap), then the sections
 * of a status script (fleet_ssh_section). The first byte is ssh's own exit
 * status. Whatever a host prints, the parse stays inside the output, a
 * status is 0..255, and a section is a piece of the output. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/ssh.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	struct fleet_ssh_result r;
	memset(&r, 0, sizeof(r));
	sb_add(&r.out, (const char *)data + 1, size - 1);
	size_t before = r.out.len;
	fleet_ssh_unwrap(&r, data[0]);
	if (r.status < 0 || r.status > 255 || r.out.len > before || (r.lost && !r.reached))
		abort();
	static const char *const names[] = {"version", "show", "history", "probe", "audit", "nvidia"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int rc;
		char *s = fleet_ssh_section(r.out.s, names[i], &rc);
		if (s && (strlen(s) > r.out.len || !strstr(r.out.s, s)))
			abort();
		if (rc < -1 || rc > 255)
			abort();
		free(s);
	}
	fleet_ssh_result_release(&r);
	return 0;
}
