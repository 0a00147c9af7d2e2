/* cfi.h - how to step from a frame to its caller at one code address,
 * read from the object's .eh_frame (DWARF call frame information), for the
 * shim's fast unwinder (cfiunwind.c).
 *
 * Only the rules the x86-64 compilers emit for ordinary code are kept: the
 * CFA (the stack pointer before the call) is rsp or rbp plus an offset,
 * the return address and rbp are unchanged or saved at an offset from it.
 * Anything else (an expression, a signal frame, a register moved to
 * another register, no CFI at all) is CFI_UNKNOWN, and the caller asks
 * libunwind instead. The rule set is small on purpose: each rule kept is
 * then two loads at most when the stack is walked.
 *
 * Owns: nothing. Reads the loaded objects' .eh_frame_hdr and .eh_frame in
 * place; no allocation, no locks (glibc's _dl_find_object is lock-free),
 * so it may run inside malloc and in a signal handler.
 */
#ifndef STACKCAP_CFI_H
#define STACKCAP_CFI_H

#include <stdint.h>

enum cfi_kind {
	CFI_UNKNOWN = 0, /* not one of the rules above: ask libunwind */
	CFI_FRAME,       /* step to the caller by the rule */
	CFI_OUTERMOST,   /* the return address is undefined: the stack ends here */
};

enum { CFI_RSP = 7, CFI_RBP = 6 }; /* DWARF's numbers of the registers */

struct cfi_rule {
	int32_t cfa_off; /* CFA = cfa_reg + cfa_off */
	int16_t rbp_off; /* rbp saved at CFA + rbp_off; 0: unchanged */
	uint8_t cfa_reg; /* CFI_RSP or CFI_RBP */
	uint8_t kind;    /* enum cfi_kind; the return address is at CFA - 8 */
};

/* The rule at pc in the loaded object that holds it: pc is a return
 * address minus 1 (inside the call) or, for the innermost frame, the
 * address of the next instruction to run. */
struct cfi_rule cfi_rule_at(uintptr_t pc);

/* The same inside one object, given the start of its .eh_frame_hdr (the
 * PT_GNU_EH_FRAME segment as loaded). */
struct cfi_rule cfi_rule_in(const uint8_t *eh_frame_hdr, uintptr_t pc);

#endif
