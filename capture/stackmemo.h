/* stackmemo.h - the writer's memo of the native stacks it met lately: a
 * record's raw ips -> the prefix-tree node they were interned as.
 *
 * An allocation-heavy program allocates from a few call sites over and
 * over. Merging a stack's Python frames and interning it frame by frame
 * cost the writer about a third of its time on such a loop; a hit here
 * costs one hash of the ips and one compare. Direct-mapped: a slot holds
 * the last stack that hashed there, compared in full before it is used, so
 * a collision costs a miss, never a wrong node. Stacks of Python records
 * (whose names may still change) or deeper than STACK_MEMO_MAX_IPS are not
 * kept. A memo is only right while what it stands for holds: the caller
 * clears it when the node table is reset or the merge's rules change.
 *
 * A slot is 24 bytes and the frames sit in an arena, filled in order and
 * grown as stacks come: a loop's few dozen stacks touch a few pages, not a
 * page each (the first touch of a page cost 10 us on a VM). The frames of
 * a stack that lost its slot stay in the arena until it is full; then the
 * memo starts over.
 *
 * Owns: its slots and arena (calloc and realloc, on the first put). Not
 * thread-safe.
 */
#ifndef STACKCAP_STACKMEMO_H
#define STACKCAP_STACKMEMO_H

#include <stdint.h>

#define STACK_MEMO_SLOTS 1024
#define STACK_MEMO_MAX_IPS 64
#define STACK_MEMO_ARENA_MAX_IPS (64u << 10) /* 512 KiB of frames at most */

struct stack_memo_slot {
	uint64_t hash;
	uint32_t node; /* 0: empty */
	uint32_t n;
	uint32_t at; /* its frames: arena[at..at+n) */
};

struct stack_memo {
	struct stack_memo_slot *slots;
	uint64_t *arena;
	uint32_t used, cap; /* frames in the arena, and its room */
};

/* The node remembered for ips[0..n), or 0. *slot is where a put of them
 * goes (STACK_MEMO_SLOTS: nowhere, they cannot be kept). */
uint32_t stack_memo_get(struct stack_memo *m, const uint64_t *ips, uint32_t n, uint32_t *slot);
/* Remembers node (not 0) for ips[0..n) in the slot a get gave. */
void stack_memo_put(struct stack_memo *m, uint32_t slot, const uint64_t *ips, uint32_t n,
		    uint32_t node);
/* Forgets every stack (the slots and arena stay allocated). */
void stack_memo_clear(struct stack_memo *m);
void stack_memo_free(struct stack_memo *m);

#endif
