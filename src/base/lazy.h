/* lazy: a shared library loaded on first use (curl_lazy.c, crypto_lazy.c).
 *
 * A module that forwards a library's functions names the library and the
 * symbols it calls in one struct lazy_lib; the first lazy_ready() dlopen()s
 * it and fills the module's table of function pointers, once, under a lock.
 * When it cannot be loaded, lazy_ready() is 0 ever after and lazy_error()
 * says why, for the caller's message.
 */
#ifndef ZEALOT_LAZY_H
#define ZEALOT_LAZY_H

#include <stdatomic.h>
#include <stddef.h>

/* one symbol: its name and where its pointer goes in the table */
struct lazy_sym {
	const char *name;
	size_t off;
};

struct lazy_lib {
	const char *soname; /* the ABI the module's prototypes name: "libcurl.so.4" */
	const char *what;   /* "libcurl", for "libcurl cannot be loaded: ..." */
	const char *lacks;  /* what a missing symbol means, after its name ("" for nothing) */
	const struct lazy_sym *syms;
	size_t n_syms;
	void *table;	  /* the struct of function pointers the offsets index */
	atomic_int state; /* 0 not tried, 1 loaded, 2 refused */
	char why[256];
};

/* 1 when the library and every symbol are there, loading it the first time */
int lazy_ready(struct lazy_lib *lib);
/* NULL when it loads, else why it does not */
const char *lazy_error(struct lazy_lib *lib);

#endif
