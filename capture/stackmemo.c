/* stackmemo.c - the writer's memo of native stacks (see stackmemo.h). */
#include "capture/stackmemo.h"

#include <stdlib.h>
#include <string.h>

#include "formats/capture.h"

uint32_t stack_memo_get(struct stack_memo *m, const uint64_t *ips, uint32_t n, uint32_t *slot)
{
	*slot = STACK_MEMO_SLOTS;
	if (n == 0 || n > STACK_MEMO_MAX_IPS)
		return 0;
	uint64_t h = n, any = 0;
	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ ips[i]) * 0x9E3779B97F4A7C15u;
		any |= ips[i];
	}
	if (any & FK_CAP_IP_PYTHON) /* a Python frame's name may still come */
		return 0;
	*slot = (uint32_t)((h ^ (h >> 32)) & (STACK_MEMO_SLOTS - 1));
	const struct stack_memo_slot *s = m->slots ? &m->slots[*slot] : NULL;
	if (s && s->node && s->n == n && memcmp(s->ips, ips, n * sizeof *ips) == 0)
		return s->node;
	return 0;
}

void stack_memo_put(struct stack_memo *m, uint32_t slot, const uint64_t *ips, uint32_t n,
		    uint32_t node)
{
	if (slot >= STACK_MEMO_SLOTS || n > STACK_MEMO_MAX_IPS || !node)
		return;
	if (!m->slots && !(m->slots = calloc(STACK_MEMO_SLOTS, sizeof *m->slots)))
		return; /* no memo: every stack is interned in full */
	struct stack_memo_slot *s = &m->slots[slot];
	s->node = node;
	s->n = n;
	memcpy(s->ips, ips, n * sizeof *ips);
}

void stack_memo_clear(struct stack_memo *m)
{
	if (m->slots)
		memset(m->slots, 0, STACK_MEMO_SLOTS * sizeof *m->slots);
}

void stack_memo_free(struct stack_memo *m)
{
	free(m->slots);
	*m = (struct stack_memo){ 0 };
}
