#include "plan_base.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define MIB (1024.0 * 1024.0)

double plan_mib(uint64_t bytes)
{
	return (double)bytes / MIB;
}

void plan_note_unmirrored(struct plan *p, const char *fmt, ...)
{
	char note[sizeof(p->unmirrored[0])];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(note, sizeof(note), fmt, ap);
	va_end(ap);
	for (unsigned i = 0; i < p->n_unmirrored; i++)
		if (strcmp(p->unmirrored[i], note) == 0)
			return;
	if (p->n_unmirrored < PLAN_MAX_NOTES)
		memcpy(p->unmirrored[p->n_unmirrored++], note, sizeof(note));
}
