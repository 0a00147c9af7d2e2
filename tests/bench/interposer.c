/* interposer.c - the floor under every allocation tracker that is
 * preloaded: a library whose malloc and free only forward to the next
 * ones (dlsym(RTLD_NEXT)), as stackcap's and heaptrack's hooks do before
 * they do anything else. make bench runs the malloc loop under it, to
 * tell what interposing costs from what the hooks add to it.
 */
#include <dlfcn.h>
#include <stdlib.h>

static void *(*next_malloc)(size_t);
static void (*next_free)(void *);

__attribute__((constructor)) static void find_next(void)
{
	next_malloc = (void *(*)(size_t))dlsym(RTLD_NEXT, "malloc");
	next_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
}

/* Called before the constructor when a library loaded earlier allocates
 * in its own: the lookup first. */
void *malloc(size_t n)
{
	if (!next_malloc)
		find_next();
	return next_malloc(n);
}

void free(void *p)
{
	if (!next_free)
		find_next();
	next_free(p);
}
