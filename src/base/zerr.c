#include "zerr.h"

#include <errno.h>

const char *zerr_name(enum zerr k)
{
	switch (k) {
	case Z_OK: return "ok";
	case Z_USAGE: return "usage";
	case Z_REFUSED: return "refused";
	case Z_NOTFOUND: return "not found";
	case Z_IO: return "io";
	}
	return "?";
}

enum zerr zerr_of_errno(int e)
{
	return e == ENOENT ? Z_NOTFOUND : Z_IO;
}
