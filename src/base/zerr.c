#include "zerr.h"

#include <errno.h>

const char *zerr_name(enum zerr k)
{
	switch (k) {
	case ZE_OK: return "ok";
	case ZE_USAGE: return "usage";
	case ZE_REFUSED: return "refused";
	case ZE_NOTFOUND: return "not found";
	case ZE_IO: return "io";
	}
	return "?";
}

enum zerr zerr_of_errno(int e)
{
	return e == ENOENT ? ZE_NOTFOUND : ZE_IO;
}
