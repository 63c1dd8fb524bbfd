#include "archs.h"

#include <string.h>

int archs_known(const char *arch)
{
	for (size_t i = 0; arch && i < archs_engine_count; i++)
		if (strcmp(archs_engine[i], arch) == 0)
			return 1;
	return 0;
}
