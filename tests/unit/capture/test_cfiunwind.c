/* test_cfiunwind.c - the hooks' fast unwinder (capture/cfi.c,
 * capture/cfiunwind.c):
 * - rules read from CFI built here, opcode by opcode: the CFA's register
 *   and offset as a function's prologue moves them, rbp saved and
 *   restored, remember/restore_state (the CFA too), the edges of each
 *   advance, and what must stay CFI_UNKNOWN (an expression, a signal
 *   frame, rbp in another register, an opcode outside DWARF's) or end the
 *   stack (the return address undefined);
 * - real stacks of this program, walked from inside functions of several
 *   shapes (frameless, alloca'd and so rbp-based, deep recursion), give
 *   the frames libunwind's unw_backtrace gives;
 * - a kept stack is used only while its words hold: the same place
 *   reached from another caller at the same depth is walked again;
 * - a rule cache forgets on cfi_forget_all(); a stack outside [sp, hi)
 *   is not walked; max cuts;
 * - stacks stopped by a profiling signal at any instruction (the CPU
 *   sampler's), and at every instruction of a call single-stepped,
 *   walked from the signal's registers, give libunwind's frames wherever
 *   the fast walk answers, and it answers for most.
 */
#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <alloca.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <cmocka.h>

#include "capture/cfiunwind.h"

/* ---- CFI built by hand ---- */

/* One .eh_frame_hdr, one CIE and one FDE covering [func, func + 0x100). */
struct built {
	_Alignas(8) uint8_t bytes[512];
	uintptr_t func;
};

static void put32(uint8_t *p, uint32_t v)
{
	memcpy(p, &v, 4);
}

static const uint8_t *build(struct built *b, const char *aug, const uint8_t *cie_ops, size_t cie_n,
			    const uint8_t *fde_ops, size_t fde_n)
{
	uint8_t *hdr = b->bytes, *frame = b->bytes + 32, *p = frame;
	memset(b->bytes, 0, sizeof b->bytes);
	b->func = (uintptr_t)b->bytes + 4096; /* never run: only its addresses matter */
	/* The CIE: version 1, aug, code alignment 1, data alignment -8, return
	 * address column 16, 'R': FDE pointers pc-relative 4-byte. */
	uint8_t *cie = p;
	p += 4;
	put32(p, 0), p += 4;
	*p++ = 1;
	size_t aug_n = strlen(aug) + 1;
	memcpy(p, aug, aug_n), p += aug_n;
	*p++ = 1, *p++ = 0x78, *p++ = 16;
	*p++ = 1, *p++ = 0x1b; /* augmentation data: 1 byte, the R encoding */
	memcpy(p, cie_ops, cie_n), p += cie_n;
	while ((p - cie) % 8 != 4)
		*p++ = 0; /* DW_CFA_nop */
	put32(cie, (uint32_t)(p - cie - 4));
	/* The FDE. */
	uint8_t *fde = p;
	p += 4;
	put32(p, (uint32_t)(p - cie)), p += 4;
	put32(p, (uint32_t)(b->func - (uintptr_t)p)), p += 4;
	put32(p, 0x100), p += 4;
	*p++ = 0; /* no augmentation data */
	memcpy(p, fde_ops, fde_n), p += fde_n;
	while ((p - fde) % 8 != 4)
		*p++ = 0;
	put32(fde, (uint32_t)(p - fde - 4));
	put32(p, 0); /* the terminator */
	assert_true(p + 4 <= b->bytes + sizeof b->bytes);
	/* The header: version 1, .eh_frame pc-relative, count udata4, table
	 * datarel sdata4 (offsets from hdr). */
	hdr[0] = 1, hdr[1] = 0x1b, hdr[2] = 0x03, hdr[3] = 0x3b;
	put32(hdr + 4, (uint32_t)(frame - (hdr + 4)));
	put32(hdr + 8, 1);
	put32(hdr + 12, (uint32_t)(b->func - (uintptr_t)hdr));
	put32(hdr + 16, (uint32_t)(fde - hdr));
	return hdr;
}

/* The x86-64 CIE as GCC writes it: CFA = rsp + 8, return address at
 * CFA - 8. */
static const uint8_t usual_cie[] = { 0x0c, 0x07, 0x08, 0x90, 0x01 };

static void assert_rule(struct cfi_rule r, uint8_t kind, uint8_t reg, int32_t off, int16_t rbp_off)
{
	assert_int_equal(r.kind, kind);
	if (kind != CFI_FRAME)
		return;
	assert_int_equal(r.cfa_reg, reg);
	assert_int_equal(r.cfa_off, off);
	assert_int_equal(r.rbp_off, rbp_off);
}

static void test_prologue_and_epilogue(void **state)
{
	(void)state;
	/* push rbp; mov rbp, rsp; ... ; remember; leave (CFA rsp+8); ret;
	 * restore (the body's rule again). */
	static const uint8_t ops[] = {
		0x41,             /* advance 1 */
		0x0e, 0x10,       /* def_cfa_offset 16 */
		0x86, 0x02,       /* offset rbp, CFA - 16 */
		0x43,             /* advance 3 */
		0x0d, 0x06,       /* def_cfa_register rbp */
		0x02, 0x20,       /* advance_loc1 0x20 (to 0x24) */
		0x0a,             /* remember_state */
		0x0c, 0x07, 0x08, /* def_cfa rsp 8 */
		0xc6,             /* restore rbp: unchanged, as in the CIE */
		0x41,             /* advance 1 (to 0x25) */
		0x0b,             /* restore_state */
	};
	struct built b;
	const uint8_t *hdr = build(&b, "zR", usual_cie, sizeof usual_cie, ops, sizeof ops);
	assert_rule(cfi_rule_in(hdr, b.func), CFI_FRAME, CFI_RSP, 8, 0);
	assert_rule(cfi_rule_in(hdr, b.func + 1), CFI_FRAME, CFI_RSP, 16, -16);
	assert_rule(cfi_rule_in(hdr, b.func + 3), CFI_FRAME, CFI_RSP, 16, -16);
	assert_rule(cfi_rule_in(hdr, b.func + 4), CFI_FRAME, CFI_RBP, 16, -16);
	assert_rule(cfi_rule_in(hdr, b.func + 0x23), CFI_FRAME, CFI_RBP, 16, -16);
	assert_rule(cfi_rule_in(hdr, b.func + 0x24), CFI_FRAME, CFI_RSP, 8, 0);
	assert_rule(cfi_rule_in(hdr, b.func + 0x25), CFI_FRAME, CFI_RBP, 16, -16);
	assert_rule(cfi_rule_in(hdr, b.func + 0xff), CFI_FRAME, CFI_RBP, 16, -16);
	/* Outside the FDE, on either side. */
	assert_rule(cfi_rule_in(hdr, b.func + 0x100), CFI_UNKNOWN, 0, 0, 0);
	assert_rule(cfi_rule_in(hdr, b.func - 1), CFI_UNKNOWN, 0, 0, 0);
}

static void test_wider_encodings(void **state)
{
	(void)state;
	/* advance_loc2 and 4, offset_extended_sf, def_cfa_sf, def_cfa_offset_sf,
	 * GNU_args_size (ignored). */
	static const uint8_t ops[] = {
		0x03, 0x10, 0x00,             /* advance_loc2 0x10 */
		0x12, 0x07, 0x7c,             /* def_cfa_sf rsp, -4 * -8 = 32 */
		0x11, 0x06, 0x7d,             /* offset_extended_sf rbp, -3 * -8: CFA + 24 */
		0x2e, 0x08,                   /* GNU_args_size 8 */
		0x04, 0x10, 0x00, 0x00, 0x00, /* advance_loc4 0x10 (to 0x20) */
		0x13, 0x7a,                   /* def_cfa_offset_sf -6 * -8 = 48 */
	};
	struct built b;
	const uint8_t *hdr = build(&b, "zR", usual_cie, sizeof usual_cie, ops, sizeof ops);
	assert_rule(cfi_rule_in(hdr, b.func + 0xf), CFI_FRAME, CFI_RSP, 8, 0);
	assert_rule(cfi_rule_in(hdr, b.func + 0x10), CFI_FRAME, CFI_RSP, 32, 24);
	assert_rule(cfi_rule_in(hdr, b.func + 0x20), CFI_FRAME, CFI_RSP, 48, 24);
}

/* What a rule beyond the fast walk's gives: CFI_UNKNOWN from where it
 * applies, the usual rule before. */
static void expect_unknown_after(const uint8_t *tail, size_t tail_n)
{
	uint8_t ops[32] = { 0x48 }; /* advance 8 */
	memcpy(ops + 1, tail, tail_n);
	struct built b;
	const uint8_t *hdr = build(&b, "zR", usual_cie, sizeof usual_cie, ops, 1 + tail_n);
	assert_rule(cfi_rule_in(hdr, b.func + 7), CFI_FRAME, CFI_RSP, 8, 0);
	assert_rule(cfi_rule_in(hdr, b.func + 8), CFI_UNKNOWN, 0, 0, 0);
}

static void test_what_is_left_to_libunwind(void **state)
{
	(void)state;
	/* DW_CFA_def_cfa_expression: a realigned stack's *(rbp - 8). */
	static const uint8_t cfa_expr[] = { 0x0f, 0x03, 0x76, 0x78, 0x06 };
	expect_unknown_after(cfa_expr, sizeof cfa_expr);
	/* rbp kept in rbx (DW_CFA_register). */
	static const uint8_t in_reg[] = { 0x09, 0x06, 0x03 };
	expect_unknown_after(in_reg, sizeof in_reg);
	/* rbp by an expression. */
	static const uint8_t rbp_expr[] = { 0x10, 0x06, 0x01, 0x9c };
	expect_unknown_after(rbp_expr, sizeof rbp_expr);
	/* The CFA in a register other than rsp or rbp (r10, a DRAP). */
	static const uint8_t drap[] = { 0x0c, 0x0a, 0x00 };
	expect_unknown_after(drap, sizeof drap);
	/* The return address elsewhere than CFA - 8. */
	static const uint8_t ra_moved[] = { 0x90, 0x02 };
	expect_unknown_after(ra_moved, sizeof ra_moved);
	/* An opcode outside DWARF's CFI (MIPS's advance_loc8). */
	static const uint8_t strange[] = { 0x1d, 0x01, 0, 0, 0, 0, 0, 0, 0 };
	expect_unknown_after(strange, sizeof strange);
	/* A restore_state with nothing remembered. */
	static const uint8_t unbalanced[] = { 0x0b };
	expect_unknown_after(unbalanced, sizeof unbalanced);
	/* Other registers' rules do not matter. */
	static const uint8_t others[] = { 0x83, 0x03, 0x09, 0x0c, 0x03, 0x10, 0x0d, 0x01, 0x9c };
	uint8_t ops[16] = { 0x48 };
	memcpy(ops + 1, others, sizeof others);
	struct built b;
	const uint8_t *hdr = build(&b, "zR", usual_cie, sizeof usual_cie, ops, 1 + sizeof others);
	assert_rule(cfi_rule_in(hdr, b.func + 8), CFI_FRAME, CFI_RSP, 8, 0);
}

static void test_signal_frames_and_the_end(void **state)
{
	(void)state;
	struct built b;
	static const uint8_t none[] = { 0 };
	/* 'S': a signal trampoline, whose caller's registers are all in
	 * memory. */
	const uint8_t *hdr = build(&b, "zRS", usual_cie, sizeof usual_cie, none, 0);
	assert_rule(cfi_rule_in(hdr, b.func), CFI_UNKNOWN, 0, 0, 0);
	/* DW_CFA_undefined on the return address: _start's and clone's mark. */
	static const uint8_t undefined_ra[] = { 0x07, 0x10 };
	hdr = build(&b, "zR", usual_cie, sizeof usual_cie, undefined_ra, sizeof undefined_ra);
	assert_rule(cfi_rule_in(hdr, b.func + 5), CFI_OUTERMOST, 0, 0, 0);
	/* A header whose table is not the searchable kind. */
	hdr = build(&b, "zR", usual_cie, sizeof usual_cie, none, 0);
	b.bytes[3] = 0x03;
	assert_rule(cfi_rule_in(hdr, b.func), CFI_UNKNOWN, 0, 0, 0);
}

/* ---- real stacks ---- */

static struct cfi_cache cache;
static uintptr_t stack_low, stack_top;

#define MAX 64
#define DEEP (CFI_STACK_MAX + 64) /* past what a kept stack holds */

struct walked {
	int n, expected_n;
	uintptr_t got[DEEP], expected[DEEP];
};

/* The fast walk under test: the hooks' (which keeps stacks), or the CPU
 * sampler's. */
static int (*fast_walk)(struct cfi_cache *, uintptr_t, uintptr_t, uintptr_t, uintptr_t, uintptr_t,
			uintptr_t *, int) = cfi_backtrace;

/* Both unwinders from the same frame; libunwind's first frame is its
 * caller's pc, so both are compared from the caller's return address. */
__attribute__((noinline)) static void walk_here(struct walked *w, int max)
{
	uintptr_t pc, sp, bp;
	__asm__ volatile("mov %%rbp, %2\n\tlea 0(%%rip), %0\n\tmov %%rsp, %1"
			 : "=&r"(pc), "=&r"(sp), "=&r"(bp));
	w->n = fast_walk(&cache, pc, sp, bp, stack_low, stack_top, w->got, max);
	w->expected_n = unw_backtrace((void **)w->expected, max);
}

static void assert_same_frames(const struct walked *w)
{
	assert_int_equal(w->n, w->expected_n);
	for (int i = 1; i < w->n; i++)
		assert_int_equal(w->got[i], w->expected[i]);
}

static volatile int sink;

/* Shapes of frames: no frame pointer, an alloca (CFA by rbp), recursion. */
__attribute__((noinline)) static void frameless(struct walked *w, int max)
{
	walk_here(w, max);
	sink++;
}

__attribute__((noinline)) static void with_alloca(struct walked *w, int max, size_t n)
{
	volatile char *p = alloca(n);
	p[0] = 1;
	frameless(w, max);
	sink += p[0];
}

__attribute__((noinline)) static void recurse(struct walked *w, int max, int depth)
{
	if (depth == 0)
		with_alloca(w, max, 64);
	else
		recurse(w, max, depth - 1);
	sink++;
}

/* The main thread's stack as the shim takes it (capture/shim.c's
 * stack_bounds): its top, and its limit below, not the part of it /proc
 * shows mapped so far, which a deeper frame grows past. */
static void setup_stack_top(void)
{
	fast_walk = cfi_backtrace; /* a test that set the sampler's and failed */
	if (!stack_top) {
		unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_PER_THREAD);
		pthread_attr_t attr;
		void *addr;
		size_t size;
		assert_int_equal(pthread_getattr_np(pthread_self(), &attr), 0);
		assert_int_equal(pthread_attr_getstack(&attr, &addr, &size), 0);
		pthread_attr_destroy(&attr);
		stack_low = (uintptr_t)addr;
		stack_top = (uintptr_t)addr + size;
		assert_true(stack_top > (uintptr_t)__builtin_frame_address(0));
		assert_true(stack_low < (uintptr_t)__builtin_frame_address(0));
	}
}

static void test_real_stacks_match_libunwind(void **state)
{
	(void)state;
	setup_stack_top();
	struct walked w;
	frameless(&w, MAX);
	assert_true(w.n > 3);
	assert_same_frames(&w);
	for (int depth = 0; depth < 50; depth += 7) {
		recurse(&w, MAX, depth);
		assert_same_frames(&w);
		recurse(&w, MAX, depth); /* again: from the kept stack */
		assert_same_frames(&w);
	}
	/* alloca'd frames of other sizes move everything above them. */
	for (size_t n = 16; n < 4096; n *= 3) {
		with_alloca(&w, MAX, n);
		assert_same_frames(&w);
	}
}

/* recurse()'s stack at depth, walked to at most max: libunwind's frames,
 * and (when n is not 0) n of them. */
static void expect_walk(int max, int depth, int n)
{
	struct walked w;
	recurse(&w, max, depth);
	if (n)
		assert_int_equal(w.n, n);
	assert_same_frames(&w);
}

static void test_max_cuts(void **state)
{
	(void)state;
	setup_stack_top();
	for (int again = 0; again < 2; again++) {
		expect_walk(5, 20, 5);
		expect_walk(MAX, MAX + 10, MAX);
	}
}

/* Deeper than a kept stack holds: walked in full each time, the same. */
static void test_deeper_than_kept(void **state)
{
	(void)state;
	setup_stack_top();
	struct walked w;
	for (int again = 0; again < 3; again++) {
		recurse(&w, DEEP, CFI_STACK_MAX + 20);
		assert_true(w.n > CFI_STACK_MAX + 20);
		assert_same_frames(&w);
		/* Cut one frame past what a kept stack holds. */
		expect_walk(CFI_STACK_MAX + 1, CFI_STACK_MAX + 20, CFI_STACK_MAX + 1);
		/* Nothing kept claims more frames than it has room for. */
		for (size_t i = 0; i < CFI_STACKS; i++)
			assert_true(!cache.stacks[i].pc || cache.stacks[i].n <= CFI_STACK_MAX);
	}
}

/* Inside a signal handler the stack holds the kernel's signal frame, whose
 * rules (glibc's __restore_rt) the fast walk leaves to libunwind: -1, the
 * first time and from the kept stack after, while libunwind walks on into
 * the interrupted code. */
static struct walked in_handler[2];
static int handled;

static void on_signal(int sig)
{
	(void)sig;
	frameless(&in_handler[handled++], MAX);
}

static void test_signal_frame_left_to_libunwind(void **state)
{
	(void)state;
	setup_stack_top();
	signal(SIGUSR1, on_signal);
	for (int i = 0; i < 2; i++)
		raise(SIGUSR1);
	signal(SIGUSR1, SIG_DFL);
	assert_int_equal(handled, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(in_handler[i].n, -1);
		assert_true(in_handler[i].expected_n > 5);
	}
}

/* Two callers of one place, the same depth: the place's registers are
 * the same and only the words above tell them apart. */
__attribute__((noinline)) static void caller_a(struct walked *w)
{
	frameless(w, MAX);
	sink += 1;
}

__attribute__((noinline)) static void caller_b(struct walked *w)
{
	frameless(w, MAX);
	sink += 2;
}

static void test_kept_stack_checks_its_words(void **state)
{
	(void)state;
	setup_stack_top();
	struct walked a, b, again;
	caller_a(&a);
	caller_b(&b);
	caller_a(&again);
	assert_same_frames(&a);
	assert_same_frames(&b);
	assert_same_frames(&again);
	assert_int_equal(a.n, b.n);
	/* The same frame below (walk_here's, then frameless's), another
	 * caller. */
	assert_int_equal(a.got[1], b.got[1]);
	assert_true(a.got[2] != b.got[2]);
}

/* More stacks, and deeper, than the pool holds: each walk that is kept
 * takes the pool's next words, the pool starts over when the deepest
 * stack might not fit, and every walk, kept or not, is libunwind's. */
static void test_kept_stacks_share_a_pool(void **state)
{
	(void)state;
	setup_stack_top();
	memset(&cache, 0, sizeof cache);
	struct walked w;
	int restarts = 0;
	uint32_t used = 0;
	for (int round = 0; round < 2; round++)
		for (int depth = CFI_STACK_MAX - 40; depth < CFI_STACK_MAX - 8; depth++) {
			recurse(&w, DEEP, depth);
			assert_true(w.n > depth);
			assert_same_frames(&w);
			assert_true(cache.pool_used <= CFI_POOL_WORDS);
			restarts += cache.pool_used < used;
			used = cache.pool_used;
			/* This walk is kept, its frames after its checks. */
			bool kept = false;
			for (size_t i = 0; i < CFI_STACKS; i++) {
				const struct cfi_stack *s = &cache.stacks[i];
				if (!s->pc)
					continue;
				assert_true(s->at + 2 * s->nchecks + (uint32_t)s->n <=
					    cache.pool_used);
				kept |= s->n == w.n &&
					memcmp(&cache.pool[s->at + 2 * s->nchecks], w.got,
					       (size_t)w.n * sizeof *w.got) == 0;
			}
			assert_true(kept || w.n > CFI_STACK_MAX);
		}
	/* 32 stacks of 90 to 130 frames, each kept one 300 to 600 words: 80
	 * KiB holds 20 or so. */
	assert_true(restarts >= 1);
	/* A short stack after: a few words, at the pool's end. */
	uint32_t before = cache.pool_used;
	caller_a(&w);
	assert_same_frames(&w);
	assert_true(cache.pool_used > before && cache.pool_used - before < 64);
}

/* The CPU sampler's walk keeps rules, not stacks. */
static void test_once_keeps_no_stack(void **state)
{
	(void)state;
	setup_stack_top();
	memset(&cache, 0, sizeof cache);
	struct walked w;
	fast_walk = cfi_backtrace_once;
	for (int again = 0; again < 2; again++) {
		frameless(&w, MAX);
		assert_true(w.n > 2);
		assert_same_frames(&w);
	}
	fast_walk = cfi_backtrace;
	for (size_t i = 0; i < CFI_STACKS; i++)
		assert_true(cache.stacks[i].pc == 0);
	assert_int_equal(cache.pool_used, 0);
	size_t rules = 0;
	for (size_t i = 0; i < CFI_CACHE_SLOTS; i++)
		rules += cache.slots[i].pc != 0;
	assert_true(rules >= (size_t)w.n - 1);
}

static void test_forget_all(void **state)
{
	(void)state;
	setup_stack_top();
	struct walked w;
	frameless(&w, MAX);
	assert_same_frames(&w);
	/* Poison every rule and stack kept: the walk believes them ... */
	for (size_t i = 0; i < CFI_CACHE_SLOTS; i++)
		if (cache.slots[i].pc)
			cache.slots[i].rule.kind = CFI_UNKNOWN;
	memset(cache.stacks, 0, sizeof cache.stacks);
	frameless(&w, MAX);
	assert_int_equal(w.n, -1);
	/* ... until the cache is told code went away. */
	cfi_forget_all();
	frameless(&w, MAX);
	assert_same_frames(&w);
}

static void test_outside_the_stack(void **state)
{
	(void)state;
	setup_stack_top();
	uintptr_t pc, sp, bp, out[MAX];
	__asm__ volatile("mov %%rbp, %2\n\tlea 0(%%rip), %0\n\tmov %%rsp, %1"
			 : "=&r"(pc), "=&r"(sp), "=&r"(bp));
	static struct cfi_cache fresh; /* ~100 KiB: not on the stack */
	memset(&fresh, 0, sizeof fresh);
	/* A top just above this frame: the caller's frame is out of bounds. */
	assert_int_equal(cfi_backtrace(&fresh, pc, sp, bp, stack_low, sp + 16, out, MAX), -1);
	/* A stack pointer outside the thread's stack (an alternate signal
	 * stack): not walked at all. */
	assert_int_equal(cfi_backtrace(&fresh, pc, sp, bp, sp + 8, stack_top, out, MAX), -1);
	assert_int_equal(cfi_backtrace(&fresh, pc, sp, bp, stack_low, sp, out, MAX), -1);
	assert_int_equal(cfi_backtrace(&fresh, pc, sp, bp, stack_low, stack_top, out, 0), 0);
	/* The walk that failed under the low top is kept: put it in every
	 * slot. It is not the answer under the real top. */
	const struct cfi_stack *failed = NULL;
	for (size_t i = 0; i < CFI_STACKS; i++)
		if (fresh.stacks[i].pc == pc && fresh.stacks[i].n == -1)
			failed = &fresh.stacks[i];
	assert_non_null(failed);
	for (size_t i = 0; i < CFI_STACKS; i++)
		if (&fresh.stacks[i] != failed)
			fresh.stacks[i] = *failed;
	assert_true(cfi_backtrace(&fresh, pc, sp, bp, stack_low, stack_top, out, MAX) > 2);
	/* Code with no CFI at all (an address in no object). */
	assert_int_equal(cfi_backtrace(&fresh, 16, sp, bp, stack_low, stack_top, out, MAX), -1);
}

/* ---- stacks interrupted anywhere (the CPU sampler's) ---- */

/* A profiling signal stops this thread at any instruction: a prologue, an
 * epilogue, libc's code, a callback libc called. Both unwinders walk the
 * interrupted stack from the signal's registers, as the shim's handler
 * does: where the fast walk answers, libunwind must give the same frames.
 * Kept in static memory: the handler allocates nothing. */
#define INTERRUPTS 200

static struct interrupted {
	int n, expected_n;
	uintptr_t got[MAX], expected[MAX];
} taken[INTERRUPTS];
static volatile sig_atomic_t ntaken;

/* Both walks of the stack a signal stopped, from its context: the fast
 * one as the shim's handler walks (-1: left to libunwind) into got,
 * libunwind's into expected. */
static int walk_both(void *uctx, uintptr_t *got, uintptr_t *expected, int *expected_n)
{
	const greg_t *regs = ((ucontext_t *)uctx)->uc_mcontext.gregs;
	int n = cfi_backtrace_once(&cache, (uintptr_t)regs[REG_RIP], (uintptr_t)regs[REG_RSP],
				   (uintptr_t)regs[REG_RBP], stack_low, stack_top, got, MAX);
	*expected_n = 0;
	unw_cursor_t cur;
	if (unw_init_local2(&cur, (unw_context_t *)uctx, UNW_INIT_SIGNAL_FRAME) == 0) {
		do {
			unw_word_t ip;
			if (unw_get_reg(&cur, UNW_REG_IP, &ip) != 0 || ip == 0)
				break;
			expected[(*expected_n)++] = (uintptr_t)ip;
		} while (*expected_n < MAX && unw_step(&cur) > 0);
	}
	return n;
}

static void on_profiling_signal(int sig, siginfo_t *si, void *uctx)
{
	(void)sig;
	(void)si;
	if (ntaken >= INTERRUPTS)
		return;
	struct interrupted *t = &taken[ntaken];
	t->n = walk_both(uctx, t->got, t->expected, &t->expected_n);
	ntaken++;
}

static int by_value(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return (x > y) - (x < y);
}

/* Work of many shapes: qsort calling back into this file, copies and
 * string scans in libc, malloc and free, recursion with allocas. */
#define BUSY_MAX 512

__attribute__((noinline)) static void busy(unsigned seed, size_t count)
{
	unsigned v[BUSY_MAX];
	for (size_t i = 0; i < count; i++)
		v[i] = seed = seed * 1103515245u + 12345u;
	qsort(v, count, sizeof *v, by_value);
	char *a = malloc(8192), *b = malloc(8192);
	memset(a, 'x', 8191);
	a[8191] = 0;
	memcpy(b, a, 8192);
	sink ^= (int)((strlen(b) + v[seed % count]) & 0xffff);
	free(a);
	free(b);
}

__attribute__((noinline)) static void busy_under(unsigned seed, size_t count, int depth)
{
	volatile char *p = alloca(32 + depth * 16);
	p[0] = (char)depth;
	if (depth > 0)
		busy_under(seed, count, depth - 1);
	else
		busy(seed, count);
	sink += p[0];
}

static void test_interrupted_stacks_match_libunwind(void **state)
{
	(void)state;
	setup_stack_top();
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_profiling_signal;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	assert_int_equal(sigaction(SIGPROF, &sa, NULL), 0);
	struct itimerval every = { { 0, 500 }, { 0, 500 } }, off = { { 0, 0 }, { 0, 0 } };
	assert_int_equal(setitimer(ITIMER_PROF, &every, NULL), 0);
	time_t give_up = time(NULL) + 60;
	for (unsigned i = 0; ntaken < INTERRUPTS && time(NULL) < give_up; i++)
		busy_under(i, BUSY_MAX, (int)(i % 7));
	assert_int_equal(setitimer(ITIMER_PROF, &off, NULL), 0);
	signal(SIGPROF, SIG_DFL);
	assert_int_equal(ntaken, INTERRUPTS);
	int walked = 0;
	for (int i = 0; i < INTERRUPTS; i++) {
		const struct interrupted *t = &taken[i];
		if (t->n < 0) /* left to libunwind */
			continue;
		walked++;
		assert_int_equal(t->n, t->expected_n);
		for (int f = 0; f < t->n; f++)
			assert_int_equal(t->got[f], t->expected[f]);
	}
	/* The fast walk answers for ordinary code: most of the stops. */
	assert_true(walked > INTERRUPTS / 2);
}

/* Every instruction of a call, single-stepped (the trap flag): each stop
 * is walked by both, as above, so no prologue, epilogue or libc entry is
 * missed by chance. The kernel clears the flag for the handler and puts
 * it back on return; the handler clears it in the context to stop. */
#define TRAP_FLAG 0x100
#define MAX_STEPS 1000000

static volatile sig_atomic_t stepping;
static long steps, stepped_walks, stepped_mismatches;
static uintptr_t first_mismatch_pc;

static void on_step(int sig, siginfo_t *si, void *uctx)
{
	(void)sig;
	(void)si;
	ucontext_t *uc = uctx;
	greg_t *regs = uc->uc_mcontext.gregs;
	if (!stepping || ++steps >= MAX_STEPS) {
		regs[REG_EFL] &= ~(greg_t)TRAP_FLAG;
		return;
	}
	uintptr_t got[MAX], expected[MAX];
	int expected_n;
	int n = walk_both(uctx, got, expected, &expected_n);
	if (n < 0)
		return;
	stepped_walks++;
	bool same = n == expected_n;
	for (int f = 0; same && f < n; f++)
		same = got[f] == expected[f];
	if (!same && !stepped_mismatches++)
		first_mismatch_pc = (uintptr_t)regs[REG_RIP];
}

static void test_every_instruction_matches_libunwind(void **state)
{
	(void)state;
	setup_stack_top();
	busy_under(1, 32, 3); /* once unstepped: lazy bindings resolved, pages in */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_step;
	sa.sa_flags = SA_SIGINFO;
	assert_int_equal(sigaction(SIGTRAP, &sa, NULL), 0);
	stepping = 1;
	__asm__ volatile("pushfq\n\torq %0, (%%rsp)\n\tpopfq" : : "i"(TRAP_FLAG) : "memory", "cc");
	busy_under(2, 32, 3);
	stepping = 0;
	__asm__ volatile("nop"); /* the step that clears the flag */
	signal(SIGTRAP, SIG_DFL);
	if (steps == 0) /* the flag is not honoured here (an emulator, a debugger's machine) */
		skip();
	assert_true(steps > 1000 && steps < MAX_STEPS); /* the whole call, stepped */
	if (stepped_mismatches)
		fail_msg("%ld of %ld walks differ from libunwind's, the first at pc %#lx",
			 stepped_mismatches, stepped_walks, (unsigned long)first_mismatch_pc);
	/* The fast walk answers nearly every stop, epilogues past their pop of
	 * rbp included (243 of 9,290 stops were left to libunwind before it
	 * read their saved rbp from the red zone; 54 after). */
	if (steps - stepped_walks >= steps / 50)
		fail_msg("%ld of %ld stops left to libunwind", steps - stepped_walks, steps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prologue_and_epilogue),
		cmocka_unit_test(test_wider_encodings),
		cmocka_unit_test(test_what_is_left_to_libunwind),
		cmocka_unit_test(test_signal_frames_and_the_end),
		cmocka_unit_test(test_real_stacks_match_libunwind),
		cmocka_unit_test(test_max_cuts),
		cmocka_unit_test(test_deeper_than_kept),
		cmocka_unit_test(test_kept_stacks_share_a_pool),
		cmocka_unit_test(test_once_keeps_no_stack),
		cmocka_unit_test(test_signal_frame_left_to_libunwind),
		cmocka_unit_test(test_kept_stack_checks_its_words),
		cmocka_unit_test(test_forget_all),
		cmocka_unit_test(test_outside_the_stack),
		cmocka_unit_test(test_interrupted_stacks_match_libunwind),
		cmocka_unit_test(test_every_instruction_matches_libunwind),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
