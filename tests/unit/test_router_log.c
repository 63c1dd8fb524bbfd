#include <string.h>

#include "base/util.h"
#include "live/router_log.h"
#include "tap.h"

/* A router's log (tools/server/server-models.cpp): spawn lines, each
 * child's lines behind "[PORT] " (five columns), the router's own lines,
 * a port given again to a later child, and a journal excerpt's prefix. */
void test_router_log(void)
{
	const char *log = "0.00.1 I srv load: spawning server instance with name=a on port 41000\n"
			  "[41000] child a line 1\n"
			  "0.00.2 I srv load: spawning server instance with name=b on port  8081\n"
			  "[ 8081] child b line 1\n"
			  "[41000] child a line 2\n"
			  "[99999] a port no child has\n"
			  "[4100] x\n"
			  "0.00.3 I srv load: spawning server instance with name=c on port 41000\n"
			  "Dec 03 10:00:00 host llama-server[7]: [41000] child c line 1\n"
			  "[41000]no space\n";
	struct router_log l;
	router_log_split(log, strlen(log), &l);
	ok(l.n == 3, "three spawns, three boots (%zu)", l.n);
	ok(l.n == 3 && !strcmp(l.v[0].name, "a") && l.v[0].port == 41000 && l.v[0].lines == 2,
	   "a on 41000 holds its two lines");
	ok(l.n == 3 && l.v[0].log.s && !strcmp(l.v[0].log.s, "child a line 1\nchild a line 2\n"),
	   "a's lines without their prefix");
	ok(l.n == 3 && !strcmp(l.v[1].name, "b") && l.v[1].port == 8081 && l.v[1].lines == 1,
	   "b's port right-aligned in five columns");
	ok(l.n == 3 && !strcmp(l.v[2].name, "c") && l.v[2].lines == 1 && !strcmp(l.v[2].log.s, "child c line 1\n"),
	   "a port given again belongs to the later child, read past a journal prefix");
	router_log_release(&l);
	router_log_split("", 0, &l);
	ok(l.n == 0, "an empty log: no boots");
	router_log_release(&l);
}
