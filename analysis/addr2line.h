/* addr2line.h - what binutils' `addr2line -i -f -s -C -e FILE ADDR` and
 * `nm FILE` would say about an address or a symbol, without running them:
 * stackcollapse-perf.pl's --inline runs both once per address, and its
 * output is only reproduced if every name is the one binutils picks.
 *
 * ADDR is an address in the file's own terms (its section addresses, as
 * perf script prints them for shared objects and PIE executables), not a
 * process address. The rules reproduced, as binutils 2.40 applies them:
 *   - the address must fall in an allocated section, else "??" / "??:0";
 *   - DWARF (the file's, or its separate debug file found through
 *     .build-id or .gnu_debuglink under /usr/lib/debug) gives the innermost
 *     function containing the address (an inlined one when there is one),
 *     its source line, and the chain of functions it was inlined into, each
 *     with its call site's file and line;
 *   - a function is named by its linkage name (through its abstract origin
 *     or specification), else by its DW_AT_name; for C and other languages
 *     without mangling that name is final, for the others the innermost
 *     function takes the symbol-table name when a symbol starts exactly
 *     where the function does;
 *   - without DWARF, the symbol table (.symtab, else .dynsym) names the
 *     function: the closest symbol at or below the address in its section,
 *     the smallest of those at the same address that covers it; a local
 *     symbol's file is the STT_FILE symbol before it;
 *   - names are demangled as bfd_demangle does (libiberty), files shown by
 *     basename, unknown names "??", unknown lines "?".
 *
 * Owns: every file opened (libdwfl sessions, symbol lists), kept until
 * fk_a2l_free. Not thread-safe.
 */
#ifndef FK_ADDR2LINE_H
#define FK_ADDR2LINE_H

#include <stdbool.h>
#include <stdint.h>

struct fk_a2l;

struct fk_a2l *fk_a2l_new(void);
void fk_a2l_free(struct fk_a2l *a);

/* addr2line's output for one address, without the "0x..." line it prints
 * first for -a: two lines per frame, "func\nfile:line\n", innermost frame
 * first; "??\n??:0\n" when nothing is known. Returns a malloc'd string, or
 * NULL when addr2line would print nothing (the file is missing or is not
 * an object file: *why then says why, for a warning) or memory ran out
 * (*why "out of memory"). */
char *fk_a2l_text(struct fk_a2l *a, const char *path, uint64_t addr, const char **why);

/* The value `nm FILE` prints on its first line naming exactly name (nm sorts
 * by name, so: the first such defined symbol of .symtab). false when there
 * is none, or no .symtab ("no symbols"). */
bool fk_a2l_nm(struct fk_a2l *a, const char *path, const char *name, uint64_t *value);

#endif
