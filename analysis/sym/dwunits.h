/* dwunits.h - the DWARF compile unit holding an address, and the few facts
 * about a DIE that every frame namer needs (its name, its call site, the
 * source line at an address).
 *
 * libdw 0.188 finds units only through .debug_aranges, which clang does not
 * write: where it finds none, every unit's own ranges (DW_AT_low_pc/high_pc
 * or DW_AT_ranges) are indexed once and searched.
 *
 * Owns: one module's unit index, built on the first address aranges miss.
 */
#ifndef FK_DWUNITS_H
#define FK_DWUNITS_H

#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdint.h>

struct fk_dwunit_range;

struct fk_dwunits {
	Dwfl_Module *dm;
	bool indexed;		  /* cus and ranges built (maybe empty) */
	Dwarf_Die *cus;
	struct fk_dwunit_range *ranges;
	size_t nranges;
	Dwarf_Addr bias;	  /* of the module's DWARF addresses */
};

/* Starts an index of dm (nothing is read yet). */
void fk_dwunits_init(struct fk_dwunits *u, Dwfl_Module *dm);
/* The compile unit holding addr (a module address), and the bias of its
 * DWARF addresses. false: no unit covers addr, or there is no DWARF. */
bool fk_dwunits_find(struct fk_dwunits *u, uint64_t addr, Dwarf_Die *cu, Dwarf_Addr *bias);
void fk_dwunits_free(struct fk_dwunits *u);

/* The functions holding addr (a DWARF address), innermost first: the
 * inlined subroutines, each inlined into the next, then the subprogram
 * they sit in. Returns how many (0: none known there) and sets *chain to a
 * malloc'd array. (dwarf_getscopes alone is not enough: past an inlined
 * subroutine it follows the abstract definition, not where it was inlined.) */
int fk_dw_functions(Dwarf_Die *cu, Dwarf_Addr addr, Dwarf_Die **chain);
/* A DIE's linkage name when it has one, else its DW_AT_name, both followed
 * through DW_AT_abstract_origin and DW_AT_specification; NULL if neither.
 * *is_linkage (may be NULL) says which. */
const char *fk_dw_name(Dwarf_Die *die, bool *is_linkage);
/* Where an inlined subroutine was called from: NULL / 0 when unknown. */
void fk_dw_call_site(Dwarf_Die *die, const char **file, int *line);
/* The line table's file and line at addr (a DWARF address): NULL / 0 when
 * the table has no row there. */
void fk_dw_src_line(Dwarf_Die *cu, Dwarf_Addr addr, const char **file, int *line);

#endif
