/* stackmemo.c - the writer's memo of native stacks (see stackmemo.h). */
#include "capture/stackmemo.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "formats/capture.h"

#define ARENA_FIRST_IPS 1024u

static uint64_t stack_hash(const uint64_t *ips, uint32_t n, uint64_t *any)
{
	uint64_t h = n;
	*any = 0;
	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ ips[i]) * 0x9E3779B97F4A7C15u;
		*any |= ips[i];
	}
	return h;
}

uint32_t stack_memo_get(struct stack_memo *m, const uint64_t *ips, uint32_t n, uint32_t *slot)
{
	*slot = STACK_MEMO_SLOTS;
	if (n == 0 || n > STACK_MEMO_MAX_IPS)
		return 0;
	uint64_t any, h = stack_hash(ips, n, &any);
	if (any & FK_CAP_IP_PYTHON) /* a Python frame's name may still come */
		return 0;
	*slot = (uint32_t)((h ^ (h >> 32)) & (STACK_MEMO_SLOTS - 1));
	const struct stack_memo_slot *s = m->slots ? &m->slots[*slot] : NULL;
	if (s && s->node && s->hash == h && s->n == n &&
	    memcmp(m->arena + s->at, ips, n * sizeof *ips) == 0)
		return s->node;
	return 0;
}

/* Room for n more frames: the arena grown, or emptied (and every slot
 * with it) when it may grow no more. */
static bool arena_room(struct stack_memo *m, uint32_t n)
{
	if (m->used + n <= m->cap)
		return true;
	if (m->cap >= STACK_MEMO_ARENA_MAX_IPS) {
		stack_memo_clear(m);
		return true;
	}
	uint32_t cap = m->cap ? m->cap * 2 : ARENA_FIRST_IPS;
	uint64_t *arena = realloc(m->arena, cap * sizeof *arena);
	if (!arena)
		return false;
	m->arena = arena;
	m->cap = cap;
	return true;
}

void stack_memo_put(struct stack_memo *m, uint32_t slot, const uint64_t *ips, uint32_t n,
		    uint32_t node)
{
	if (slot >= STACK_MEMO_SLOTS || n > STACK_MEMO_MAX_IPS || !node)
		return;
	if (!m->slots && !(m->slots = calloc(STACK_MEMO_SLOTS, sizeof *m->slots)))
		return; /* no memo: every stack is interned in full */
	if (!arena_room(m, n))
		return;
	uint64_t any;
	memcpy(m->arena + m->used, ips, n * sizeof *ips);
	m->slots[slot] = (struct stack_memo_slot){
		.hash = stack_hash(ips, n, &any), .node = node, .n = n, .at = m->used
	};
	m->used += n;
}

void stack_memo_clear(struct stack_memo *m)
{
	if (m->slots)
		memset(m->slots, 0, STACK_MEMO_SLOTS * sizeof *m->slots);
	m->used = 0;
}

void stack_memo_free(struct stack_memo *m)
{
	free(m->slots);
	free(m->arena);
	*m = (struct stack_memo){ 0 };
}
