/* host: facts about this machine that hold for the whole process. */
#ifndef ZEALOT_BASE_HOST_H
#define ZEALOT_BASE_HOST_H

#include <stdint.h>

/* /proc/meminfo's MemAvailable in MiB (0 when it does not say), read on
 * the first call and the same figure ever after, whichever thread asks
 * (pthread_once): a solver's candidate plans, side by side or not, are
 * held to one host. */
uint64_t host_available_mib(void);

#endif
