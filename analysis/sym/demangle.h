/* demangle.h - mangled symbol names (C++'s Itanium ABI, Rust's) made
 * readable with binutils' own demangler, libiberty's cplus_demangle: the one
 * place every frame namer in analysis/sym/ demangles.
 *
 * bfd_demangle's rules: leading '.' and '$' and an "@suffix" (a symbol
 * version such as "@@GLIBCXX_3.4") are set aside while the rest is
 * demangled, and put back around it. A name that is not mangled (C, or
 * extern "C"), or that libiberty cannot demangle, gives NULL: the caller
 * keeps the name as it is.
 *
 * Owns nothing: a result is malloc'd and the caller frees it. No state of
 * its own.
 */
#ifndef FK_DEMANGLE_H
#define FK_DEMANGLE_H

#include <stddef.h>

enum fk_demangle_form {
	/* What addr2line -C and c++filt print (DMGL_PARAMS | DMGL_ANSI), with
	 * the argument list, qualifiers and clone suffix:
	 * "Box<int>::get(unsigned long) const [clone .cold]" */
	FK_DEMANGLE_FULL,
	/* The function's name alone (DMGL_ANSI, as perf names symbols by
	 * default and c++filt -p prints): "Box<int>::get". What
	 * stackcollapse-perf.pl keeps of the full form when it drops argument
	 * lists, except that parentheses inside the name stay whole
	 * ("main::{lambda(int)#1}::operator()", "std::function<void (int)>"). */
	FK_DEMANGLE_NAME,
};

/* name[0..len) (need not be NUL-terminated) demangled, as a malloc'd
 * string; NULL when it is not mangled, libiberty cannot demangle it, or
 * memory ran out. */
char *fk_demangle(const char *name, size_t len, enum fk_demangle_form form);

#endif
