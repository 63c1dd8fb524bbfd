#include "lazy.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int load(struct lazy_lib *l)
{
	void *lib = dlopen(l->soname, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		snprintf(l->why, sizeof(l->why), "%s cannot be loaded: %s", l->what, dlerror());
		return 0;
	}
	for (size_t i = 0; i < l->n_syms; i++) {
		void *p = dlsym(lib, l->syms[i].name);
		if (!p) {
			snprintf(l->why, sizeof(l->why), "%s lacks %s%s", l->soname, l->syms[i].name, l->lacks);
			return 0;
		}
		/* POSIX guarantees a data pointer from dlsym converts to a function pointer */
		memcpy((char *)l->table + l->syms[i].off, &p, sizeof(p));
	}
	return 1;
}

int lazy_ready(struct lazy_lib *l)
{
	int s = atomic_load_explicit(&l->state, memory_order_acquire);
	if (!s) {
		pthread_mutex_lock(&lock);
		s = atomic_load_explicit(&l->state, memory_order_relaxed);
		if (!s) {
			s = load(l) ? 1 : 2;
			atomic_store_explicit(&l->state, s, memory_order_release);
		}
		pthread_mutex_unlock(&lock);
	}
	return s == 1;
}

const char *lazy_error(struct lazy_lib *l)
{
	return lazy_ready(l) ? NULL : l->why;
}
