/* namesakes.c - a program whose own functions have the names of the
 * shim's internal ones. Built with -rdynamic (run.sh's case b), they are
 * in its dynamic symbol table, ahead of a preloaded library's: a shim
 * that exported its internals would call these instead of its own. Each
 * says so and aborts when anyone but main calls it.
 *
 * With -DLINKED_IN (a shim that has zstd and zlib linked in) the
 * libraries' functions the shim calls are among them: its copies are its
 * own too, and the program's crc32 stays the program's.
 *
 * main calls each once itself (they are its own, and answer 42), then
 * allocates 20,000 blocks of 4096 bytes and frees them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int mine; /* main is calling */

static int namesake(const char *name)
{
	if (!mine) {
		fprintf(stderr, "namesakes: the program's %s was called from outside it\n", name);
		abort();
	}
	return 42;
}

#define NAMESAKE(name) \
	int name(void); \
	int name(void) { return namesake(#name); }
NAMESAKE(shimheap_alloc)
NAMESAKE(shimheap_free)
NAMESAKE(sampleset_add)
NAMESAKE(sampleset_take)
NAMESAKE(alloc_next_gap)
NAMESAKE(expgap_next)
NAMESAKE(writer_start)
NAMESAKE(writer_poll)
NAMESAKE(shim_now_ns)
NAMESAKE(stack_memo_get)
NAMESAKE(fk_cap_chunk_encode)
NAMESAKE(win_init)
NAMESAKE(py_detect)
#ifdef LINKED_IN
NAMESAKE(crc32)
NAMESAKE(ZSTD_createCCtx)
NAMESAKE(ZSTD_compressCCtx)
NAMESAKE(ZSTD_compressBound)
#endif

int main(void)
{
	int (*const all[])(void) = { shimheap_alloc, shimheap_free, sampleset_add, sampleset_take,
				     alloc_next_gap, expgap_next, writer_start, writer_poll, shim_now_ns,
				     stack_memo_get, fk_cap_chunk_encode, win_init, py_detect,
#ifdef LINKED_IN
				     crc32, ZSTD_createCCtx, ZSTD_compressCCtx, ZSTD_compressBound,
#endif
	};
	int answers = 0;
	mine = 1;
	for (size_t i = 0; i < sizeof all / sizeof *all; i++)
		answers += all[i]() == 42;
	mine = 0;
	static void *p[20000];
	for (int i = 0; i < 20000; i++)
		if ((p[i] = malloc(4096)))
			memset(p[i], i, 64);
	for (int i = 0; i < 20000; i++)
		free(p[i]);
	printf("own answers: %d of %zu\n", answers, sizeof all / sizeof *all);
	return 0;
}
