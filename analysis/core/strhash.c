/* strhash.c - fk_strtab_hash_long, the hash of whole stack texts.
 *
 * A stack's text is long (a kilobyte is common), and there the x86 build
 * of Debian's libxxhash, which picks the widest vector unit at run time,
 * hashes 1.4x as fast on AVX2 as the inline XXH3 the tables use for their
 * short names (built for the baseline SSE2). XXH3's value does not depend
 * on how it is computed, so both give the same hashes. Debian builds the
 * library with its dispatcher wherever it ships xxh_x86dispatch.h.
 */
#include "analysis/core/strtab.h"

#include <pthread.h>

#if (defined(__x86_64__) || defined(__i386__)) && defined(__has_include)
#if __has_include(<xxh_x86dispatch.h>)
#include <xxh_x86dispatch.h> /* XXH3_64bits becomes XXH3_64bits_dispatch */
#define FK_XXH_DISPATCH 1
#endif
#endif
#ifndef FK_XXH_DISPATCH
#include <xxhash.h>
#endif

#ifdef FK_XXH_DISPATCH
/* The dispatcher picks its implementation on its first call, with no lock:
 * made once, so readers on several threads never race to do it. */
static pthread_once_t picked = PTHREAD_ONCE_INIT;

static void pick(void)
{
	(void)XXH3_64bits("", 0);
}
#endif

uint64_t fk_strtab_hash_long(const char *p, size_t len)
{
#ifdef FK_XXH_DISPATCH
	pthread_once(&picked, pick);
#endif
	return XXH3_64bits(p, len);
}
