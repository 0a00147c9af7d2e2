/* ring.h - a lock-free single-producer, single-consumer byte ring of
 * 8-byte-aligned records, for the capture shim: the producer is a thread of
 * the program (its signal handler, or its allocation hooks), the consumer
 * the writer thread. The producer never blocks: a full ring drops the record
 * and the caller counts it.
 *
 * Owns: nothing; a ring lives in memory its thread's state maps.
 */
#ifndef STACKCAP_RING_H
#define STACKCAP_RING_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ring {
	_Atomic uint64_t head; /* consumer: bytes consumed */
	_Atomic uint64_t tail; /* producer: bytes committed */
	uint64_t size;         /* a power of two */
	uint8_t *data;
	/* The producer's last look at head: the ring is at most this full, so
	 * head, which the consumer moves, is read again (an acquire load) only
	 * when the ring looks full, not twice a record. */
	uint64_t head_seen;
};

struct ring_record {
	uint32_t size; /* bytes, this header included, a multiple of 8 */
	uint32_t type; /* 0: padding up to the end of the ring */
};

static inline void ring_init(struct ring *r, uint8_t *data, uint64_t size)
{
	atomic_store_explicit(&r->head, 0, memory_order_relaxed);
	atomic_store_explicit(&r->tail, 0, memory_order_relaxed);
	r->size = size;
	r->data = data;
	r->head_seen = 0;
}

/* Room for a record of size bytes (a multiple of 8): its address, or NULL
 * when the ring is full. Commit with ring_commit(). Async-signal-safe. */
static inline struct ring_record *ring_reserve(struct ring *r, uint32_t size, uint64_t *tail_out)
{
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	uint64_t off = tail & (r->size - 1), contiguous = r->size - off;
	uint64_t need = contiguous < size ? contiguous + size : size;
	if (size > r->size / 2)
		return NULL;
	if (need > r->size - (tail - r->head_seen)) {
		r->head_seen = atomic_load_explicit(&r->head, memory_order_acquire);
		if (need > r->size - (tail - r->head_seen))
			return NULL;
	}
	if (contiguous < size) { /* pad to the end, start again at 0 */
		struct ring_record *pad = (struct ring_record *)(r->data + off);
		pad->size = (uint32_t)contiguous;
		pad->type = 0;
		tail += contiguous;
		off = 0;
	}
	struct ring_record *rec = (struct ring_record *)(r->data + off);
	rec->size = size;
	*tail_out = tail + size;
	return rec;
}

/* Publishes the record. True when it took the ring past half full (as
 * far as the producer knows: it may be less full, never more): the one
 * moment to wake the consumer, so a filling ring costs one wake-up (a
 * system call) rather than one per record. */
static inline bool ring_commit(struct ring *r, uint64_t new_tail)
{
	uint64_t old_tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	atomic_store_explicit(&r->tail, new_tail, memory_order_release);
	uint64_t head = r->head_seen, half = r->size / 2;
	return new_tail - head > half && old_tail - head <= half;
}

/* An empty ring starts again at its first byte. Only for a caller that
 * is the ring's producer and consumer at once, with no producer able to
 * interrupt it: a thread that drains its own ring then keeps writing to
 * the same few pages, warm and faulted in once, rather than to a new page
 * every few dozen records. */
static inline void ring_rewind_if_empty(struct ring *r)
{
	if (atomic_load_explicit(&r->head, memory_order_relaxed) ==
	    atomic_load_explicit(&r->tail, memory_order_relaxed))
		ring_init(r, r->data, r->size);
}

/* Consumer: each committed record in order (padding skipped), then frees
 * their space. */
static inline void ring_drain(struct ring *r, void (*fn)(void *ctx, const struct ring_record *rec),
			      void *ctx)
{
	/* Read once: their line is the one the producer writes tail on. */
	const uint8_t *data = r->data;
	const uint64_t mask = r->size - 1;
	uint64_t head = atomic_load_explicit(&r->head, memory_order_relaxed);
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_acquire);
	while (head < tail) {
		const struct ring_record *rec = (const struct ring_record *)(data + (head & mask));
		if (rec->type != 0)
			fn(ctx, rec);
		head += rec->size;
	}
	atomic_store_explicit(&r->head, head, memory_order_release);
}

#endif
