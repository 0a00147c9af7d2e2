/* test_polyhash_sse2.c - test_polyhash.c on the SSE2 NH, which x86-64
 * CPUs without AVX2 use (test_polyhash.c takes the AVX2 one where the CPU
 * has it): the same values. */
#define FK_POLYHASH_NO_AVX2 1
#include "analysis/core/polyhash.c"
#include "test_polyhash.c"
