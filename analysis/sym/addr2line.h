/* addr2line.h - what binutils' `addr2line -i -f -s -C -e FILE ADDR` and
 * `nm FILE` would say about an address or a symbol, without running them:
 * stackcollapse-perf.pl's --inline runs both once per address, and its
 * output is only reproduced if every name is the one binutils picks.
 *
 * ADDR is an address in the file's own terms (its section addresses, as
 * perf script prints them for shared objects and PIE executables), not a
 * process address. The rules reproduced are binutils 2.40's (read from its
 * source, then checked against addr2line on every instruction of several
 * programs and on libc):
 *   - the address must fall in an allocated section, else "??" / "??:0";
 *   - DWARF (the file's, or its separate debug file found through
 *     .build-id or .gnu_debuglink under /usr/lib/debug) gives the innermost
 *     function holding the address (the shortest range; the later of two
 *     equal ones, as with glibc's memmove and memcpy), the line-table row
 *     there, and the functions it was inlined into, each with the file and
 *     line of its call;
 *   - a function is named by its linkage name (through its abstract origin
 *     or specification), else its DW_AT_name; in C and other unmangled
 *     languages that name is final; otherwise the innermost function is
 *     named by the symbol table, as is an address no DWARF function holds:
 *     the closest symbol at or below it in its section (the first of those
 *     at one address, unless a later one is larger), from the separate
 *     debug file's .symtab when DWARF came from there, else the file's
 *     .symtab, else its .dynsym; a local symbol's file is the STT_FILE
 *     symbol before it;
 *   - a DWARF 5 row before its sequence's first DW_LNS_set_file is in file
 *     entry 0 (binutils 2.40 starts the file register there, the standard
 *     at 1);
 *   - names are demangled as bfd_demangle does (libiberty), files shown by
 *     basename, unknown names "??", unknown lines "?", discriminators
 *     printed with every line, as addr2line repeats the first one.
 * Known differences, kept on purpose: range lists given as DW_FORM_rnglistx
 * (clang's DWARF 5) are read, where binutils 2.40 reads them as offsets
 * (a FIXME in its source) and misses inlined frames; and a zero-length row
 * at the very end of a sequence (padding no sample can land in) still
 * names its line.
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
