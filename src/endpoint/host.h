/* host: an ssh destination, as an endpoint's HOST key names it.
 *
 * HOST is `[user@]host` or `ssh://[user@]host[:port]`, resolved through the
 * user's ssh config (a Host alias is a host). Every part is refused when it
 * could be read as anything but a name: shell metacharacters, blanks, a
 * leading '-' (an ssh option), empty parts, a port outside 1..65535.
 * Pure: nothing is printed, nothing is run.
 */
#ifndef ZEALOT_HOST_H
#define ZEALOT_HOST_H

#include "../base/util.h"

struct host_dest {     /* an ssh destination, parsed from HOST */
	char *user;    /* NULL: ssh's default / ssh config */
	char *host;    /* never NULL for a remote endpoint */
	unsigned port; /* 0: ssh's default / ssh config */
	char *dest;    /* the HOST value as written, e.g. ssh://u@h:2222 */
};

/* [user@]host | ssh://[user@]host[:port]; refuses shell metacharacters,
 * leading '-', empty parts. Returns 0, or -1 with *err saying why (without
 * naming the key or file: the caller does). */
int host_parse(const char *s, struct host_dest *h, char **err);
void host_free(struct host_dest *h);

#endif
