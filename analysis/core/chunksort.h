/* chunksort.h - sorting ids by byte strings that share long prefixes
 * (stacks: a million of them may all start with the same forty frames).
 *
 * A multikey quicksort: ids are split three ways by 7 bytes of their string
 * at a depth, and only those equal there go on to the next 7 bytes, so a
 * shared prefix is read once per group, not once per comparison as memcmp
 * in a comparison sort reads it. The 7 bytes of every id in a group are
 * fetched once into a side array (one cache miss per string and level),
 * and a run of bytes a whole group shares is skipped at once.
 *
 * Owns: nothing between calls (a scratch array during one). Thread-safe
 * for distinct id arrays.
 */
#ifndef FK_CHUNKSORT_H
#define FK_CHUNKSORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The bytes of id's string from depth on, as a number that orders as the
 * bytes do: up to 7 bytes big-endian in the top 56 bits (zeros after the
 * string's end), how many there are (0-7) in the low 8 bits. A string that
 * ends sorts before every longer one it is a prefix of. */
typedef uint64_t (*fk_chunk_fn)(const void *ctx, uint32_t id, size_t depth);

/* Optional: the bytes of id's string that its chunks are made of (a
 * prefix of it, or all). Groups that agree on a long run of them then skip
 * it in one pass, read in order, instead of 7 bytes a level. */
typedef size_t (*fk_bytes_fn)(const void *ctx, uint32_t id, const unsigned char **p);

/* The chunk of the n (< 8) bytes at p, for fk_chunk_fn implementations. */
uint64_t fk_chunk_of(const unsigned char *p, size_t n);
/* The chunk of 7 bytes at p, reading 8 (the caller knows they are there). */
static inline uint64_t fk_chunk_of_8(const unsigned char *p)
{
	uint64_t w;
	__builtin_memcpy(&w, p, sizeof w);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	w = __builtin_bswap64(w);
#endif
	return (w & ~(uint64_t)0xff) | 7;
}

/* Sorts ids[0..n) by their strings, equal strings by id. false when out of
 * memory (ids are then a permutation of what they were, not sorted). */
bool fk_chunk_sort(uint32_t *ids, size_t n, fk_chunk_fn chunk, fk_bytes_fn bytes,
		   const void *ctx);

#endif
