/* expgap.h - the gaps between sampled bytes of --alloc-sample: each byte
 * is sampled with probability 1/mean, so the number of bytes up to the
 * next sampled one is exponential with that mean (tcmalloc's sampler
 * draws it the same way), and an allocation of n bytes is kept with
 * probability 1 - exp(-n/mean), by which the analysis divides.
 *
 * Drawn without libm: its log() was all the shim took from it, and a
 * library fewer to load is 0.25 ms off every traced run's start (best of
 * 60 empty runs, AMD VM).
 *
 * Owns: nothing; each thread keeps its own generator state.
 */
#ifndef STACKCAP_EXPGAP_H
#define STACKCAP_EXPGAP_H

#include <stdint.h>

/* The next gap (at least 1 byte) for a mean of mean bytes; steps *rng, a
 * xorshift64 state that must not be 0. */
uint64_t expgap_next(uint64_t *rng, uint64_t mean);

/* -ln(u) for a normal double u in (0, 1], within an ulp or two of libm's. */
double expgap_neg_log(double u);

#endif
