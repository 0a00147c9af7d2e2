/* test_load_takes.c - test_load.c with pieces taken from the first one's
 * end from 4 KiB on (the library waits for 8 MiB, which the test files
 * rarely leave): every parallel load there then takes some, and the tables
 * must still be one reader's. Also the take itself, step by step. */
#define FK_STACKLOAD_TAKE_MIN ((size_t)4096)
#include "analysis/core/stackload.c"
#include "test_load.c"
