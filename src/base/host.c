/* host: facts about this machine that hold for the whole process (see host.h). */
#include "host.h"

#include <pthread.h>
#include <stdio.h>

static pthread_once_t available_once = PTHREAD_ONCE_INIT;
static uint64_t available_mib; /* written once, under available_once */

static void available_read(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	if (!f)
		return;
	char line[256];
	while (fgets(line, sizeof(line), f)) {
		unsigned long long kib;
		if (sscanf(line, "MemAvailable: %llu kB", &kib) == 1) {
			available_mib = kib / 1024;
			break;
		}
	}
	fclose(f);
}

uint64_t host_available_mib(void)
{
	pthread_once(&available_once, available_read);
	return available_mib;
}
