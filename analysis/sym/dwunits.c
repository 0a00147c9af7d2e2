/* dwunits.c - compile units by address, and DIE facts (see dwunits.h). */
#include "analysis/sym/dwunits.h"

#include <dwarf.h>
#include <limits.h>
#include <stdlib.h>

#include "formats/bsearch.h"
#include "formats/grow.h"

/* One address range of a compile unit, in DWARF addresses. */
struct fk_dwunit_range {
	uint64_t lo, hi, maxhi; /* maxhi: the largest hi among ranges[0..this] */
	size_t cu;
};

void fk_dwunits_init(struct fk_dwunits *u, Dwfl_Module *dm)
{
	*u = (struct fk_dwunits){ .dm = dm };
}

void fk_dwunits_free(struct fk_dwunits *u)
{
	free(u->cus);
	free(u->ranges);
	*u = (struct fk_dwunits){ 0 };
}

static int range_cmp(const void *a, const void *b)
{
	const struct fk_dwunit_range *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	return x->hi < y->hi ? -1 : x->hi > y->hi;
}

/* An address (uint64_t *key) against a range's start. */
static int addr_vs_lo(const void *key, const void *element)
{
	uint64_t a = *(const uint64_t *)key, lo = ((const struct fk_dwunit_range *)element)->lo;
	return a < lo ? -1 : a > lo;
}

static void build(struct fk_dwunits *u)
{
	u->indexed = true;
	Dwarf *dw = dwfl_module_getdwarf(u->dm, &u->bias);
	if (!dw)
		return;
	size_t ncus = 0, cucap = 0, rcap = 0;
	Dwarf_CU *cu = NULL;
	Dwarf_Die cudie;
	uint8_t type;
	while (dwarf_get_units(dw, cu, &cu, NULL, &type, &cudie, NULL) == 0) {
		if (type != DW_UT_compile && type != DW_UT_skeleton)
			continue;
		if (!FK_GROW(u->cus, cucap, ncus + 1, 64))
			goto oom;
		u->cus[ncus] = cudie;
		ptrdiff_t off = 0;
		Dwarf_Addr base, lo, hi;
		while ((off = dwarf_ranges(&cudie, off, &base, &lo, &hi)) > 0) {
			if (lo >= hi)
				continue;
			if (!FK_GROW(u->ranges, rcap, u->nranges + 1, 256))
				goto oom;
			u->ranges[u->nranges++] = (struct fk_dwunit_range){ .lo = lo, .hi = hi, .cu = ncus };
		}
		ncus++;
	}
	if (u->nranges)
		qsort(u->ranges, u->nranges, sizeof *u->ranges, range_cmp);
	for (size_t i = 0; i < u->nranges; i++)
		u->ranges[i].maxhi = i && u->ranges[i - 1].maxhi > u->ranges[i].hi
					     ? u->ranges[i - 1].maxhi
					     : u->ranges[i].hi;
	return;
oom:
	free(u->cus);
	free(u->ranges);
	u->cus = NULL;
	u->ranges = NULL;
	u->nranges = 0;
}

bool fk_dwunits_find(struct fk_dwunits *u, uint64_t addr, Dwarf_Die *out, Dwarf_Addr *bias)
{
	Dwarf_Die *cu = dwfl_module_addrdie(u->dm, addr, bias);
	if (cu) {
		*out = *cu;
		return true;
	}
	if (!u->indexed)
		build(u);
	uint64_t a = addr - u->bias;
	/* The ranges that may hold a are those starting at or below it. */
	size_t n = fk_upper_bound(u->ranges, u->nranges, sizeof *u->ranges, &a, addr_vs_lo);
	for (size_t i = n; i-- > 0;) {
		if (u->ranges[i].maxhi <= a)
			break;
		if (a < u->ranges[i].hi) {
			*out = u->cus[u->ranges[i].cu];
			*bias = u->bias;
			return true;
		}
	}
	return false;
}

static bool is_function(Dwarf_Die *die)
{
	int tag = dwarf_tag(die);
	return tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
	       tag == DW_TAG_entry_point;
}

int fk_dw_functions(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **chain)
{
	*chain = NULL;
	Dwarf_Die *scopes = NULL;
	int n = dwarf_getscopes(cu, addr, &scopes);
	int inner = 0;
	while (inner < n && !is_function(&scopes[inner]))
		inner++;
	if (inner >= n) {
		free(scopes);
		return 0;
	}
	/* From the innermost function out, the way the DIEs nest. */
	Dwarf_Die *up = NULL;
	int nup = dwarf_getscopes_die(&scopes[inner], &up);
	if (nup <= 0) { /* out of memory: the innermost alone */
		scopes[0] = scopes[inner];
		*chain = scopes;
		return 1;
	}
	free(scopes);
	int k = 0;
	for (int i = 0; i < nup; i++) {
		if (!is_function(&up[i]))
			continue;
		up[k++] = up[i];
		if (dwarf_tag(&up[i]) != DW_TAG_inlined_subroutine)
			break;
	}
	*chain = up;
	return k;
}

const char *fk_dw_name(Dwarf_Die *die, bool *is_linkage)
{
	Dwarf_Attribute a;
	const char *n = NULL;
	if (dwarf_attr_integrate(die, DW_AT_linkage_name, &a) ||
	    dwarf_attr_integrate(die, DW_AT_MIPS_linkage_name, &a))
		n = dwarf_formstring(&a);
	if (is_linkage)
		*is_linkage = n != NULL;
	if (!n && dwarf_attr_integrate(die, DW_AT_name, &a))
		n = dwarf_formstring(&a);
	return n;
}

void fk_dw_call_site(Dwarf_Die *die, const char **file, int *line)
{
	Dwarf_Attribute a;
	Dwarf_Word w;
	*file = NULL;
	*line = 0;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_line, &a), &w) == 0)
		*line = w > INT_MAX ? 0 : (int)w;
	Dwarf_Die cu;
	Dwarf_Files *files;
	size_t nfiles;
	if (dwarf_formudata(dwarf_attr(die, DW_AT_call_file, &a), &w) == 0 &&
	    dwarf_diecu(die, &cu, NULL, NULL) && dwarf_getsrcfiles(&cu, &files, &nfiles) == 0 &&
	    w < nfiles)
		*file = dwarf_filesrc(files, (size_t)w, NULL, NULL);
}

void fk_dw_src_line(Dwarf_Die *cu, Dwarf_Addr addr, const char **file, int *line)
{
	*file = NULL;
	*line = 0;
	Dwarf_Line *l = dwarf_getsrc_die(cu, addr);
	if (l && dwarf_lineno(l, line) == 0)
		*file = dwarf_linesrc(l, NULL, NULL);
}
