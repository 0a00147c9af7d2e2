/* cfiunwind.c - a stack walked by cached .eh_frame rules (see
 * cfiunwind.h). */
#include "capture/cfiunwind.h"

#include <stdatomic.h>
#include <string.h>

static _Atomic uint32_t generation;

void cfi_forget_all(void)
{
	atomic_fetch_add_explicit(&generation, 1, memory_order_release);
}

_Static_assert(CFI_CACHE_SLOTS == 1 << (64 - 54), "the rules' hash gives 10 bits");
_Static_assert(CFI_STACKS == 1 << (64 - 60), "the stacks' hash gives 4 bits");

static struct cfi_rule rule_for(struct cfi_cache *c, uintptr_t pc)
{
	struct cfi_cache_slot *s = &c->slots[(pc * 0x9E3779B97F4A7C15u) >> 54];
	if (s->pc != pc) {
		s->rule = cfi_rule_at(pc);
		s->pc = pc;
	}
	return s->rule;
}

/* A word of the stack, maybe in a frame of code built without ASan's
 * knowledge of it. */
__attribute__((no_sanitize("address"))) static uintptr_t load(uintptr_t at)
{
	uintptr_t v;
	memcpy(&v, (const void *)at, sizeof v);
	return v;
}

/* The stack kept for these registers, if its words are unchanged: its
 * frames, or -1 for a walk that failed; -2 when there is none. */
static int kept(const struct cfi_cache *c, const struct cfi_stack *s, uintptr_t pc,
		uintptr_t sp, uintptr_t bp, uintptr_t hi, uintptr_t *out, int max)
{
	if (s->pc != pc || s->sp != sp || (s->bp_used && s->bp != bp) || s->max != max ||
	    s->hi != hi)
		return -2;
	const uintptr_t *words = &c->pool[s->at];
	uintptr_t differ = 0;
	for (uint32_t i = 0; i < 2 * s->nchecks; i += 2)
		differ |= load(words[i]) ^ words[i + 1];
	if (differ)
		return -2;
	if (s->n > 0)
		memcpy(out, words + 2 * s->nchecks, (size_t)s->n * sizeof *out);
	return s->n;
}

struct cfi_check {
	uintptr_t at, was;
};

/* A walk, noting in s (its words from checks on) what it read, until it
 * is deeper than s can keep (s is then NULL). */
struct walk {
	struct cfi_stack *s;
	uintptr_t *checks;
	struct cfi_check bp_from; /* where bp was loaded; at 0: bp is the innermost frame's */
	bool bp_checked;          /* bp's current value is among the checks */
};

static void note(struct walk *w, uintptr_t at, uintptr_t was)
{
	if (!w->s)
		return;
	if (w->s->nchecks == 2 * (CFI_STACK_MAX + 1)) {
		w->s = NULL; /* cannot happen (two a step): never keep what was not checked */
		return;
	}
	w->checks[2 * w->s->nchecks] = at;
	w->checks[2 * w->s->nchecks + 1] = was;
	w->s->nchecks++;
}

/* A rule reads bp: the walk depends on where bp came from. */
static void bp_read(struct walk *w)
{
	if (!w->s || w->bp_checked)
		return;
	if (w->bp_from.at)
		note(w, w->bp_from.at, w->bp_from.was);
	else
		w->s->bp_used = true;
	w->bp_checked = true;
}

/* The CFA a frame rule gives from these registers, when it lies above sp
 * (room for the return address) and inside the stack. */
static bool cfa_of(struct cfi_rule r, uintptr_t sp, uintptr_t bp, uintptr_t hi, uintptr_t *cfa)
{
	*cfa = (r.cfa_reg == CFI_RSP ? sp : bp) + (uintptr_t)(intptr_t)r.cfa_off;
	return *cfa >= sp + 8 && *cfa <= hi;
}

/* The x86-64 ABI's red zone: the 128 bytes below sp, which a signal's
 * frame leaves alone. */
#define RED_ZONE 128

static int walk(struct cfi_cache *c, struct walk *w, uintptr_t pc, uintptr_t sp, uintptr_t bp,
		uintptr_t stack_lo, uintptr_t hi, uintptr_t *out, int max)
{
	const uintptr_t lo = sp;
	/* Below sp only the innermost frame's saved rbp may lie: in an
	 * epilogue past its pop (after leave, at ret) the rows still say where
	 * rbp was saved, now a word of the red zone, the value rbp holds. A
	 * signal lands there often, and libunwind's first walk costs 0.8 ms. */
	const uintptr_t red = sp - stack_lo < RED_ZONE ? stack_lo : sp - RED_ZONE;
	int n = 0;
	out[n++] = pc;
	/* The innermost frame runs at pc; the others' pc is inside the call. */
	uintptr_t at = pc;
	while (n < max) {
		if (n > CFI_STACK_MAX)
			w->s = NULL;
		struct cfi_rule r = rule_for(c, at);
		if (r.kind == CFI_OUTERMOST)
			return n;
		if (r.kind != CFI_FRAME)
			return -1;
		if (r.cfa_reg == CFI_RBP)
			bp_read(w);
		uintptr_t cfa;
		if (!cfa_of(r, sp, bp, hi, &cfa)) /* the caller's frame is above this one */
			return -1;
		uintptr_t ra = load(cfa - 8);
		note(w, cfa - 8, ra);
		if (r.rbp_off) {
			uintptr_t saved = cfa + (uintptr_t)(intptr_t)r.rbp_off;
			if (saved < (n == 1 ? red : lo) || saved > hi - 8)
				return -1;
			bp = load(saved);
			w->bp_from = (struct cfi_check){ saved, bp };
			w->bp_checked = false;
		}
		sp = cfa;
		if (!ra) /* the end, as threads' entry points mark it */
			return n;
		out[n++] = ra;
		at = ra - 1;
	}
	return n;
}

/* Which kept stack (pc, sp) might be: the hooks' pc is always the same,
 * and two callers at one depth have the same sp, so the first return
 * address is hashed too (read by the first frame's rule, as a walk would;
 * 0 when that rule does not hold). */
static struct cfi_stack *stack_slot(struct cfi_cache *c, uintptr_t pc, uintptr_t sp, uintptr_t bp,
				    uintptr_t hi)
{
	uintptr_t key = pc ^ sp, cfa;
	struct cfi_rule r = rule_for(c, pc);
	if (r.kind == CFI_FRAME && cfa_of(r, sp, bp, hi, &cfa))
		key ^= load(cfa - 8) * 31;
	return &c->stacks[(key * 0x9E3779B97F4A7C15u) >> 60];
}

/* The stacks kept forgotten, and their pool emptied. */
static void forget_stacks(struct cfi_cache *c)
{
	for (size_t i = 0; i < CFI_STACKS; i++)
		if (c->stacks[i].pc)
			c->stacks[i].pc = 0;
	c->pool_used = 0;
}

/* Every rule and stack kept forgotten, writing only to pages in use. */
static void forget(struct cfi_cache *c)
{
	for (size_t i = 0; i < CFI_CACHE_SLOTS; i++)
		if (c->slots[i].pc)
			c->slots[i].pc = 0;
	forget_stacks(c);
}

/* Whether a walk from sp may start: its rules forgotten first when code
 * was unloaded since the cache was filled. */
static bool walkable(struct cfi_cache *c, uintptr_t sp, uintptr_t lo, uintptr_t hi)
{
	if (sp < lo || sp >= hi)
		return false;
	uint32_t now = atomic_load_explicit(&generation, memory_order_acquire);
	if (c->generation != now) {
		forget(c);
		c->generation = now;
	}
	return true;
}

int cfi_backtrace(struct cfi_cache *c, uintptr_t pc, uintptr_t sp, uintptr_t bp, uintptr_t lo,
		  uintptr_t hi, uintptr_t *out, int max)
{
	if (!walkable(c, sp, lo, hi))
		return -1;
	if (max <= 0)
		return 0;
	struct cfi_stack *s = stack_slot(c, pc, sp, bp, hi);
	int n = kept(c, s, pc, sp, bp, hi, out, max);
	if (n != -2)
		return n;
	/* Walk, keeping what it read while the stack fits, at the pool's end. */
	if (c->pool_used > CFI_POOL_WORDS - CFI_STACK_WORDS)
		forget_stacks(c);
	s->pc = 0;
	s->bp_used = false;
	s->nchecks = 0;
	s->at = c->pool_used;
	struct walk w = { s, &c->pool[s->at], { 0, 0 }, false };
	n = walk(c, &w, pc, sp, bp, lo, hi, out, max);
	if (w.s && n <= CFI_STACK_MAX) {
		s->sp = sp;
		s->bp = bp;
		s->hi = hi;
		s->max = max;
		s->n = n;
		uint32_t frames = n > 0 ? (uint32_t)n : 0;
		memcpy(&c->pool[s->at + 2 * s->nchecks], out, frames * sizeof *out);
		c->pool_used = s->at + 2 * s->nchecks + frames;
		s->pc = pc;
	}
	return n;
}

int cfi_backtrace_once(struct cfi_cache *c, uintptr_t pc, uintptr_t sp, uintptr_t bp,
		       uintptr_t lo, uintptr_t hi, uintptr_t *out, int max)
{
	if (!walkable(c, sp, lo, hi))
		return -1;
	if (max <= 0)
		return 0;
	struct walk w = { NULL, NULL, { 0, 0 }, false };
	return walk(c, &w, pc, sp, bp, lo, hi, out, max);
}

