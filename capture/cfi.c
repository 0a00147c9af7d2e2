/* cfi.c - a frame's rule at one code address, from .eh_frame (see cfi.h).
 *
 * The layouts are the LSB's "Exception Frames" and DWARF 4's section 6.4:
 * .eh_frame_hdr's sorted table finds the FDE that covers pc, the FDE names
 * its CIE, and the CIE's initial instructions then the FDE's, run up to pc,
 * give the row. */
#include "capture/cfi.h"

#include <dlfcn.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

/* Pointer encodings (DW_EH_PE_*): the low four bits the format, the next
 * three what it is relative to. */
#define PE_OMIT 0xff
#define PE_FORMAT 0x0f
#define PE_APPLY 0x70
#define PE_INDIRECT 0x80
#define PE_ABSPTR 0x00
#define PE_ULEB128 0x01
#define PE_UDATA2 0x02
#define PE_UDATA4 0x03
#define PE_UDATA8 0x04
#define PE_SLEB128 0x09
#define PE_SDATA2 0x0a
#define PE_SDATA4 0x0b
#define PE_SDATA8 0x0c
#define PE_PCREL 0x10
#define PE_DATAREL 0x30

#define RA_MAX_COLUMN 16 /* x86-64's return address column */

/* A cursor over CFI bytes that cannot run past end. */
struct bytes {
	const uint8_t *p, *end;
	bool bad;
};

static uint64_t take(struct bytes *b, size_t n)
{
	if (b->bad || (size_t)(b->end - b->p) < n) {
		b->bad = true;
		return 0;
	}
	uint64_t v = 0;
	memcpy(&v, b->p, n); /* little-endian, as x86-64 is */
	b->p += n;
	return v;
}

static uint64_t uleb(struct bytes *b)
{
	uint64_t v = 0;
	for (unsigned shift = 0; !b->bad; shift += 7) {
		uint8_t byte = (uint8_t)take(b, 1);
		if (shift < 64)
			v |= (uint64_t)(byte & 0x7f) << shift;
		if (!(byte & 0x80))
			break;
	}
	return v;
}

static int64_t sleb(struct bytes *b)
{
	uint64_t v = 0;
	unsigned shift = 0;
	uint8_t byte = 0;
	do {
		byte = (uint8_t)take(b, 1);
		if (shift < 64)
			v |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	} while ((byte & 0x80) && !b->bad);
	if (shift < 64 && (byte & 0x40))
		v |= ~(uint64_t)0 << shift;
	return (int64_t)v;
}

/* A pointer in encoding enc; datarel is the base DW_EH_PE_datarel means
 * (the .eh_frame_hdr's start, the only place it is used here). Indirect
 * pointers (personality routines) are skipped, not followed: nothing here
 * needs their value. */
static uintptr_t encoded(struct bytes *b, uint8_t enc, uintptr_t datarel)
{
	if (enc == PE_OMIT)
		return 0;
	uintptr_t at = (uintptr_t)b->p;
	uint64_t v;
	switch (enc & PE_FORMAT) {
	case PE_ABSPTR: v = take(b, 8); break;
	case PE_ULEB128: v = uleb(b); break;
	case PE_UDATA2: v = take(b, 2); break;
	case PE_UDATA4: v = take(b, 4); break;
	case PE_UDATA8: v = take(b, 8); break;
	case PE_SLEB128: v = (uint64_t)sleb(b); break;
	case PE_SDATA2: v = (uint64_t)(int64_t)(int16_t)take(b, 2); break;
	case PE_SDATA4: v = (uint64_t)(int64_t)(int32_t)take(b, 4); break;
	case PE_SDATA8: v = take(b, 8); break;
	default: b->bad = true; return 0;
	}
	switch (enc & PE_APPLY) {
	case 0: break;
	case PE_PCREL: v += at; break;
	case PE_DATAREL: v += datarel; break;
	default: b->bad = true; return 0; /* textrel, funcrel, aligned: not on x86-64 */
	}
	return (uintptr_t)v;
}

/* One CFI record (a CIE or an FDE): its body between the length and end.
 * A 64-bit length (0xffffffff, then 8 bytes) is refused: no x86-64 tool
 * writes one, and readers disagree on the width of the CIE pointer that
 * follows it. */
static bool record_at(const uint8_t *at, struct bytes *body)
{
	struct bytes b = { at, at + 4, false };
	uint64_t len = take(&b, 4);
	if (b.bad || len == 0 || len > (1u << 30)) /* 0xffffffff too */
		return false;
	body->p = b.p;
	body->end = b.p + len;
	body->bad = false;
	return true;
}

/* What a CIE says about the FDEs that name it. */
struct cie {
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_column;
	uint8_t fde_enc;
	bool augmented; /* 'z': FDEs carry augmentation data, skipped */
	bool signal;    /* 'S': a signal frame (libunwind's to handle) */
	struct bytes initial;
};

static bool read_cie(const uint8_t *at, struct cie *c)
{
	struct bytes b;
	if (!record_at(at, &b) || take(&b, 4) != 0) /* CIE id: 0 in .eh_frame */
		return false;
	uint8_t version = (uint8_t)take(&b, 1);
	if (version != 1 && version != 3)
		return false;
	const char *aug = (const char *)b.p;
	size_t aug_len = strnlen(aug, (size_t)(b.end - b.p));
	if (b.bad || aug_len == (size_t)(b.end - b.p))
		return false;
	b.p += aug_len + 1;
	c->code_align = uleb(&b);
	c->data_align = sleb(&b);
	c->ra_column = version == 1 ? take(&b, 1) : uleb(&b);
	c->fde_enc = PE_ABSPTR;
	c->augmented = aug[0] == 'z';
	c->signal = false;
	if (c->augmented) {
		uint64_t data_len = uleb(&b);
		if (b.bad || data_len > (uint64_t)(b.end - b.p))
			return false;
		const uint8_t *data_end = b.p + data_len;
		for (size_t i = 1; i < aug_len && !b.bad; i++) {
			switch (aug[i]) {
			case 'R': c->fde_enc = (uint8_t)take(&b, 1); break;
			case 'L': take(&b, 1); break;
			case 'P': encoded(&b, (uint8_t)take(&b, 1) & (uint8_t)~PE_INDIRECT, 0); break;
			case 'S': c->signal = true; break;
			default: i = aug_len; break; /* the rest is in data_len */
			}
		}
		b.p = data_end;
	} else if (aug[0] != '\0') {
		return false; /* an augmentation without 'z' cannot be skipped */
	}
	c->initial = b;
	return !b.bad && c->ra_column <= RA_MAX_COLUMN;
}

/* One register's rule in a row, for the registers the fast unwinder uses. */
enum reg_how { REG_SAME, REG_UNDEFINED, REG_AT_CFA, REG_OTHER };
struct reg_rule {
	uint8_t how;
	int64_t off;
};

struct row {
	uint64_t cfa_reg;
	int64_t cfa_off;
	bool cfa_other; /* an expression */
	struct reg_rule rbp, rsp, ra;
};

#define MAX_REMEMBERED 8

/* The interpreter: runs b's instructions from loc until the row covers
 * pc. initial is the CIE's row, for DW_CFA_restore. False on an opcode
 * outside DWARF's CFI or bytes that run out. */
struct interp {
	const struct cie *cie;
	uintptr_t pc, loc;
	struct row row, initial;
	struct row remembered[MAX_REMEMBERED];
	unsigned depth;
	bool done; /* loc passed pc */
};

static struct reg_rule *tracked(struct row *r, const struct cie *c, uint64_t reg)
{
	if (reg == CFI_RBP)
		return &r->rbp;
	if (reg == CFI_RSP)
		return &r->rsp;
	if (reg == c->ra_column)
		return &r->ra;
	return NULL;
}

static void set_rule(struct interp *in, uint64_t reg, uint8_t how, int64_t off)
{
	struct reg_rule *r = tracked(&in->row, in->cie, reg);
	if (r)
		*r = (struct reg_rule){ how, off };
}

static void restore_rule(struct interp *in, uint64_t reg)
{
	struct reg_rule *r = tracked(&in->row, in->cie, reg);
	if (r)
		*r = *tracked(&in->initial, in->cie, reg);
}

static void advance(struct interp *in, uint64_t delta)
{
	uintptr_t next = in->loc + delta * in->cie->code_align;
	if (next > in->pc)
		in->done = true;
	else
		in->loc = next;
}

static void skip_block(struct bytes *b)
{
	uint64_t len = uleb(b);
	if (len > (uint64_t)(b->end - b->p))
		b->bad = true;
	else
		b->p += len;
}

static bool run(struct interp *in, struct bytes b)
{
	const int64_t da = in->cie->data_align;
	while (!in->done && b.p < b.end && !b.bad) {
		uint8_t op = (uint8_t)take(&b, 1);
		uint8_t low = op & 0x3f;
		uint64_t reg;
		switch (op >> 6) {
		case 1: advance(in, low); continue;
		case 2: set_rule(in, low, REG_AT_CFA, (int64_t)uleb(&b) * da); continue;
		case 3: restore_rule(in, low); continue;
		default: break;
		}
		switch (op) {
		case 0x00: break; /* nop */
		case 0x01: { /* set_loc */
			uintptr_t to = encoded(&b, in->cie->fde_enc, 0);
			if (to > in->pc)
				in->done = true;
			else
				in->loc = to;
			break;
		}
		case 0x02: advance(in, take(&b, 1)); break;
		case 0x03: advance(in, take(&b, 2)); break;
		case 0x04: advance(in, take(&b, 4)); break;
		case 0x05: reg = uleb(&b); set_rule(in, reg, REG_AT_CFA, (int64_t)uleb(&b) * da); break;
		case 0x06: restore_rule(in, uleb(&b)); break;
		case 0x07: set_rule(in, uleb(&b), REG_UNDEFINED, 0); break;
		case 0x08: set_rule(in, uleb(&b), REG_SAME, 0); break;
		case 0x09: reg = uleb(&b); uleb(&b); set_rule(in, reg, REG_OTHER, 0); break;
		case 0x0a: /* remember_state */
			if (in->depth == MAX_REMEMBERED)
				return false;
			in->remembered[in->depth++] = in->row;
			break;
		case 0x0b: /* restore_state: the CFA too, as GCC's epilogues expect */
			if (in->depth == 0)
				return false;
			in->row = in->remembered[--in->depth];
			break;
		case 0x0c: /* def_cfa */
			in->row.cfa_reg = uleb(&b);
			in->row.cfa_off = (int64_t)uleb(&b);
			in->row.cfa_other = false;
			break;
		case 0x0d: in->row.cfa_reg = uleb(&b); break;
		case 0x0e: in->row.cfa_off = (int64_t)uleb(&b); break;
		case 0x0f: skip_block(&b); in->row.cfa_other = true; break;
		case 0x10: case 0x16: /* expression, val_expression */
			reg = uleb(&b);
			skip_block(&b);
			set_rule(in, reg, REG_OTHER, 0);
			break;
		case 0x11: reg = uleb(&b); set_rule(in, reg, REG_AT_CFA, sleb(&b) * da); break;
		case 0x12: /* def_cfa_sf */
			in->row.cfa_reg = uleb(&b);
			in->row.cfa_off = sleb(&b) * da;
			in->row.cfa_other = false;
			break;
		case 0x13: in->row.cfa_off = sleb(&b) * da; break;
		case 0x14: reg = uleb(&b); uleb(&b); set_rule(in, reg, REG_OTHER, 0); break;
		case 0x15: reg = uleb(&b); sleb(&b); set_rule(in, reg, REG_OTHER, 0); break;
		case 0x2e: uleb(&b); break; /* GNU_args_size: for landing pads */
		case 0x2f: /* GNU_negative_offset_extended */
			reg = uleb(&b);
			set_rule(in, reg, REG_AT_CFA, -(int64_t)uleb(&b) * da);
			break;
		default: return false;
		}
	}
	return !b.bad;
}

/* The row, as a rule the fast unwinder can follow. */
static struct cfi_rule rule_of(const struct row *r)
{
	struct cfi_rule unknown = { 0, 0, 0, CFI_UNKNOWN };
	if (r->ra.how == REG_UNDEFINED)
		return (struct cfi_rule){ 0, 0, 0, CFI_OUTERMOST };
	if (r->cfa_other || (r->cfa_reg != CFI_RSP && r->cfa_reg != CFI_RBP) ||
	    r->cfa_off != (int32_t)r->cfa_off || r->ra.how != REG_AT_CFA || r->ra.off != -8 ||
	    r->rsp.how != REG_SAME)
		return unknown;
	int16_t rbp_off = 0;
	if (r->rbp.how == REG_AT_CFA) {
		if (r->rbp.off == 0 || r->rbp.off != (int16_t)r->rbp.off)
			return unknown;
		rbp_off = (int16_t)r->rbp.off;
	} else if (r->rbp.how != REG_SAME) {
		return unknown;
	}
	return (struct cfi_rule){ (int32_t)r->cfa_off, rbp_off, (uint8_t)r->cfa_reg, CFI_FRAME };
}

/* The rule at pc by the FDE at fde, or CFI_UNKNOWN when it does not
 * cover pc. */
static struct cfi_rule rule_by_fde(const uint8_t *fde, uintptr_t pc)
{
	struct cfi_rule unknown = { 0, 0, 0, CFI_UNKNOWN };
	struct bytes b;
	if (!record_at(fde, &b))
		return unknown;
	const uint8_t *id_at = b.p;
	uint32_t cie_off = (uint32_t)take(&b, 4);
	struct cie cie;
	if (b.bad || cie_off == 0 || !read_cie(id_at - cie_off, &cie) || cie.signal)
		return unknown;
	uintptr_t begin = encoded(&b, cie.fde_enc, 0);
	uintptr_t range = encoded(&b, cie.fde_enc & PE_FORMAT, 0);
	if (b.bad || pc < begin || pc - begin >= range)
		return unknown;
	if (cie.augmented)
		skip_block(&b);
	struct interp in = { .cie = &cie, .pc = pc, .loc = begin };
	in.row.rbp.how = in.row.rsp.how = in.row.ra.how = REG_SAME;
	in.row.cfa_reg = CFI_RSP;
	if (!run(&in, cie.initial) || in.depth)
		return unknown;
	in.initial = in.row;
	in.done = false;
	if (!run(&in, b))
		return unknown;
	return rule_of(&in.row);
}

struct cfi_rule cfi_rule_in(const uint8_t *hdr, uintptr_t pc)
{
	struct cfi_rule unknown = { 0, 0, 0, CFI_UNKNOWN };
	/* version, the encodings of the .eh_frame pointer, of the count and of
	 * the table; only the usual table (4-byte offsets from hdr, sorted)
	 * can be searched. */
	if (hdr[0] != 1 || hdr[3] != (PE_DATAREL | PE_SDATA4))
		return unknown;
	struct bytes b = { hdr + 4, hdr + 4 + 16, false };
	encoded(&b, hdr[1], (uintptr_t)hdr);
	uint64_t count = encoded(&b, hdr[2], (uintptr_t)hdr);
	if (b.bad || hdr[2] == PE_OMIT || count == 0)
		return unknown;
	const uint8_t *table = b.p;
	int64_t rel = (int64_t)(pc - (uintptr_t)hdr);
	/* The last entry whose start is at or below pc. */
	uint64_t lo = 0, hi = count;
	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;
		int32_t start;
		memcpy(&start, table + mid * 8, 4);
		if (start <= rel)
			lo = mid;
		else
			hi = mid;
	}
	int32_t start, fde;
	memcpy(&start, table + lo * 8, 4);
	memcpy(&fde, table + lo * 8 + 4, 4);
	if (start > rel)
		return unknown;
	return rule_by_fde(hdr + fde, pc);
}

struct cfi_rule cfi_rule_at(uintptr_t pc)
{
	struct dl_find_object found;
	if (_dl_find_object((void *)pc, &found) != 0 || !found.dlfo_eh_frame)
		return (struct cfi_rule){ 0, 0, 0, CFI_UNKNOWN };
	return cfi_rule_in((const uint8_t *)found.dlfo_eh_frame, pc);
}
