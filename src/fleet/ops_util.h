/* The helpers fleet's operations share (ops.c, status.c): not exported
 * beyond the fleet folder. */
#ifndef ZEALOT_FLEET_OPS_UTIL_H
#define ZEALOT_FLEET_OPS_UTIL_H

#include <jansson.h>

#include "fleet.h"
#include "ssh.h"

static inline const struct host_dest *host_of(const struct fleet_member *m)
{
	return m->remote ? &m->host : NULL;
}

static inline const char *host_label(const struct fleet_member *m)
{
	return m->remote ? m->host.dest : "localhost";
}

static inline char *first_line(const char *s)
{
	while (s && (*s == '\n' || *s == ' '))
		s++;
	return xstrndup(s ? s : "", s ? strcspn(s, "\n") : 0);
}

/* The last line that says something, of stderr or stdout. */
static inline char *last_words(const struct fleet_ssh_result *r)
{
	return sb_last_line(r->err.len ? &r->err : &r->out, "\n ");
}

/* A name that could be read as an option by the remote programs. */
static inline int name_refused(const struct fleet_member *m)
{
	return m->name[0] == '-' || m->name[0] == '\0';
}

static inline json_t *jstr_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

#endif
