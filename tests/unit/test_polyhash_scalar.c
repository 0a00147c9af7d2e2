/* test_polyhash_scalar.c - test_polyhash.c on the portable NH, which
 * builds without SSE2 (arm64 and others) use: the same values. */
#define FK_POLYHASH_SCALAR 1
#include "analysis/core/polyhash.c"
#include "test_polyhash.c"
