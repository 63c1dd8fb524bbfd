#include "quote.h"

void quote_shell(struct sb *out, const char *s)
{
	sb_addc(out, '\'');
	for (const char *p = s; *p; p++) {
		if (*p == '\'')
			sb_adds(out, "'\\''");
		else
			sb_addc(out, *p);
	}
	sb_addc(out, '\'');
}

void quote_one_line(struct sb *out, const char *s)
{
	for (const char *p = s; *p; p++)
		sb_addc(out, (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p);
}
