/* symbolize.h - naming native frames after the fact, from the module list a
 * capture recorded (dl_iterate_phdr: path, PT_LOAD range, load bias, GNU
 * build-id read from memory), with elfutils libdwfl.
 *
 * Owns: copies of the module list (paths, build-ids), the Dwfl session (each
 * module's file is opened on the first address that falls in it, its
 * separate debug info found the standard way: .build-id and .gnu_debuglink
 * under /usr/lib/debug, debuginfod when DEBUGINFOD_URLS is set), and a cache
 * of every address already named: (ip, is_return) -> frame texts, interned
 * in a string table. Not thread-safe.
 *
 * Frame texts:
 *   func                    the function symbol (.symtab, else .dynsym)
 *                           containing the address, without its version
 *                           ("@@GLIBC_2.17"); of aliases, the global one
 *                           with the plainest name ("malloc", not
 *                           "__libc_malloc"). Without a symbol, the DWARF
 *                           subprogram's name (linkage name when there is
 *                           one). Mangled names (C++, Rust) are demangled
 *                           to the function's name without its argument
 *                           list, "Box<int>::make" (fk_demangle's
 *                           FK_DEMANGLE_NAME: perf's default, and what
 *                           stackcollapse-perf.pl keeps); names that are not
 *                           mangled or fail to demangle stay as they are
 *   func (file.c:12)        with FK_SYM_LINES: the source file's basename and
 *                           line; left out when DWARF has no line there
 *   inl_[i]                 with FK_SYM_INLINE, each inlined frame: the
 *   inl (file.c:12)_[i]     DWARF name (linkage name when there is one,
 *                           demangled as above, so it reads as the same
 *                           function does when it is not inlined) and
 *                           flamegraph.pl's inline annotation, which
 *                           flamegraph colours aqua and strips from labels
 *   libfoo.so+0x1a2b        the address is in a module but has no name, or
 *                           its file cannot be trusted: the module's basename
 *                           and the recorded address minus the load bias
 *                           (the address as recorded, not ip - 1), the
 *                           offset addr2line takes for that file
 *   [vdso]+0x9a0            the vdso, when it is not this machine's own vdso
 *                           (same build-id), whose in-memory image is used
 *   [unknown]               no module covers the address
 * ';' in a name becomes ':' and control bytes become '?', so a text can be
 * appended to a folded stack as it is.
 *
 * A module whose file is missing, is not a regular file, cannot be read as
 * ELF, or whose build-id differs from the recorded one is never used for
 * names: all its frames are "basename+0x...", and the warning callback is
 * called once for it, at the first address that falls in it. A module
 * recorded without a build-id is used unchecked.
 */
#ifndef FK_SYMBOLIZE_H
#define FK_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* One loaded object as recorded at capture time. */
struct fk_sym_module {
	const char *path;	  /* the file ("/proc/self/exe" already resolved);
				     "", "[vdso]" or "linux-vdso.so.1" (any
				     "linux-vdso*" / "linux-gate*" without a '/')
				     for the vdso */
	uint64_t start, end;	  /* [start, end): what its PT_LOAD segments covered */
	uint64_t bias;		  /* load bias (dlpi_addr) */
	const uint8_t *build_id;  /* GNU build-id bytes read from memory, or NULL */
	size_t build_id_len;	  /* 0: unchecked */
};

enum {
	FK_SYM_INLINE = 1, /* expand inlined frames */
	FK_SYM_LINES = 2,  /* append " (file:line)" */
	FK_SYM_NO_FILES = 4, /* open no file: every frame "basename+0x..." (fuzzing,
				and a capture's addresses as they are) */
};

/* The annotation appended to inlined frames (flamegraph.pl's). */
#define FK_SYM_INLINE_MARK "_[i]"

/* Called with one line of text, no newline, e.g.
 * "/usr/lib/libfoo.so: build-id differs from the capture's; frames shown as
 * libfoo.so+0x...". */
typedef void (*fk_sym_warn_fn)(void *ctx, const char *message);
/* One frame: text[0..len), NUL-terminated, valid until fk_sym_close (only
 * during the call when memory ran out: such results are not cached). */
typedef void (*fk_sym_emit_fn)(void *ctx, const char *text, size_t len);

struct fk_symbolizer;

/* Copies mods (n may be 0, mods then may be NULL). Modules with end <= start
 * are ignored; where modules overlap, the one starting last wins. warn may
 * be NULL. NULL only when out of memory. */
struct fk_symbolizer *fk_sym_open(const struct fk_sym_module *mods, size_t n, unsigned flags,
				  fk_sym_warn_fn warn, void *warn_ctx);

/* Names one address: calls emit (may be NULL) once per frame, OUTERMOST
 * FIRST (the function, then what was inlined into it, down to the code at
 * the address), so that frames append root-first to a folded stack. Returns
 * the number of frames, always >= 1.
 *
 * is_return: ip is a return address (every frame of a stack except a
 * sample's interrupted PC): ip - 1 is looked up, which lands in the call
 * instruction, so the line and inline chain are the call's.
 *
 * Results are cached per (ip, is_return): a repeated address costs one hash
 * lookup and returns the same texts (same pointers). */
size_t fk_sym_frames(struct fk_symbolizer *s, uint64_t ip, bool is_return, fk_sym_emit_fn emit,
		     void *emit_ctx);

/* Addresses named so far (cache entries), for reports. */
size_t fk_sym_cached(const struct fk_symbolizer *s);

void fk_sym_close(struct fk_symbolizer *s);

#endif
