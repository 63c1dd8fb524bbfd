/* fleet: a directory of endpoint files, one endpoint each, on one or many
 * hosts. An endpoint's HOST key names the ssh destination it runs on
 * (unset: this host); its GPU key the card on that host.
 *
 * HOST is `[user@]host` or `ssh://[user@]host[:port]`, resolved through the
 * user's ssh config (a Host alias is a host). Every part is refused when it
 * could be read as anything but a name: shell metacharacters, blanks, a
 * leading '-' (an ssh option), empty parts, a port outside 1..65535.
 *
 * Everything here is pure: nothing is printed, nothing is run.
 */
#ifndef ZEALOT_FLEET_H
#define ZEALOT_FLEET_H

#include <stddef.h>

#include "../base/util.h"
#include "../endpoint/endpoint.h"
#include "../endpoint/host.h"
#include "../endpoint/quote.h"

struct fleet_member {
	struct endpoint *ep;   /* loaded endpoint file */
	char *name;	       /* ep->name */
	char *path;	       /* the file's path */
	int remote;	       /* HOST set */
	struct host_dest host; /* valid when remote */
	int gpu;	       /* GPU key, -1 when unset */
};

struct fleet {
	char *dir;
	struct fleet_member *m; /* sorted by name */
	size_t n;
};

/* Every *.env file in dir (sorted by name); an error names the file, and
 * *kind (when not NULL) says ZE_NOTFOUND or ZE_IO when a file or the
 * directory cannot be read, ZE_USAGE when a file is no endpoint. */
int fleet_load(const char *dir, struct fleet *f, enum zerr *kind, char **err);
void fleet_free(struct fleet *f);

/* The host an endpoint runs on, as fleet groups it: "localhost" for a local
 * endpoint, else the destination's host, with ":PORT" when a port is given
 * (two sshd on one address are two hosts). Caller frees. */
char *fleet_host_key(const struct fleet_member *m);

/* A card (or a host's CPU memory, gpu -1) and what bills it. */
struct fleet_card {
	char *host;  /* fleet_host_key() */
	int gpu;     /* the card index; -1: the host's CPU and RAM */
	size_t *idx; /* indexes into the grouped array (fleet.m for fleet_cards), in its order */
	size_t n;
};

/* Group the members by (host, GPU key; -1 when unset), sorted by host, then
 * card (the host's memory after its cards). Returns the number of groups. */
size_t fleet_cards(const struct fleet *f, struct fleet_card **out);

/* What an endpoint bills where: member m's bytes on card gpu (-1: the
 * host's memory). A member may bill several. */
struct fleet_bill {
	size_t member;
	int gpu;
};
/* Group bills by (the member's host, gpu) as fleet_cards does; idx holds
 * indexes into b. */
size_t fleet_group(const struct fleet *f, const struct fleet_bill *b, size_t nb, struct fleet_card **out);
void fleet_cards_free(struct fleet_card *c, size_t n);

#endif
