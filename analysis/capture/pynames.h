/* pynames.h - the text of a Python frame of a capture (a PYFRAMES record,
 * formats/CAPTURE.md), and the --python-* options of every command that
 * folds captures (stackfold, memtimeline, flamegraph), so they read alike.
 *
 * Forms (--python-names):
 *   line   "path(LINE): qualname", LINE the line being run (the call site
 *          for callers), as py-spy shows a sampled stack; the default
 *   torch  "path(FIRSTLINE): name" (co_firstlineno, co_name), the frame as
 *          torch.profiler's export_stacks names it, to diff against it
 * Then, as export_stacks does to each frame it writes, every ' ', ';',
 * '\t' and '\n' becomes '_': "linear.py(113):_forward". A line of 0 (not
 * known) prints as 0; an empty qualname falls back to the name, an empty
 * name or file name reads "<unknown>".
 *
 * Paths (--python-paths): the longest --python-prefix the path starts
 * with is stripped and that is all; else, unless "full", they are shortened as
 * torch shortens them: through the last "site-packages/" or
 * "dist-packages/", else through "lib/pythonX.Y/", else the capture's
 * working directory (META cwd). Prefixes match whole directories only.
 *
 * Owns nothing: the options point at caller strings.
 */
#ifndef FK_PYNAMES_H
#define FK_PYNAMES_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fk_py_names {
	FK_PY_NAMES_LINE = 0, /* path(LINE): qualname */
	FK_PY_NAMES_TORCH,    /* path(FIRSTLINE): name */
};

#define FK_PY_PREFIX_MAX 16

/* All zero: the defaults. */
struct fk_py_opts {
	enum fk_py_names names;
	bool full_paths;  /* --python-paths=full: only the given prefixes stripped */
	bool only;        /* --python-only: see fk_cap_fold_opts */
	const char *prefix[FK_PY_PREFIX_MAX]; /* --python-prefix, in order given */
	size_t nprefix;
};

/* The part of path to show: a suffix of it (never NULL). cwd may be NULL. */
const char *fk_py_short_path(const char *path, const char *cwd, const struct fk_py_opts *o);

/* Writes a frame's text to out (NUL-terminated when n > 0, cut to fit);
 * returns its whole length, as snprintf does. */
size_t fk_py_frame_text(char *out, size_t n, const char *file, const char *qualname,
			const char *name, uint64_t first_line, uint64_t line, const char *cwd,
			const struct fk_py_opts *o);

/* ---- the options, for a command's getopt_long ---- */

enum { FK_PY_OPT_NAMES, FK_PY_OPT_PATHS, FK_PY_OPT_PREFIX, FK_PY_OPT_ONLY, FK_PY_NOPTS };

/* The getopt_long entries of the --python-* options, FK_PY_NOPTS of them,
 * each returning base + FK_PY_OPT_*. */
void fk_py_options(struct option out[FK_PY_NOPTS], int base);

/* Applies option FK_PY_OPT_* which, with its argument (or NULL), to o:
 * NULL, or what is wrong with it, for a usage error. */
const char *fk_py_option(struct fk_py_opts *o, int which, const char *arg);

/* The options' lines for --help. */
#define FK_PY_HELP \
"      --python-names=line|torch  Python frames as \"file.py(LINE):_qualname\"\n" \
"                           with the line being run (default), or as torch's\n" \
"                           export_stacks: \"file.py(DEF LINE):_name\" (' ',\n" \
"                           ';', tab and newline written '_', as torch does)\n" \
"      --python-paths=short|full  file names shortened as torch does: through\n" \
"                           site-packages/, dist-packages/, lib/pythonX.Y/, or\n" \
"                           the program's working directory (default); full:\n" \
"                           whole, but for --python-prefix\n" \
"      --python-prefix=PATH strip PATH/ from file names starting with it,\n" \
"                           before anything else (repeatable, up to 16: the\n" \
"                           longest that matches)\n" \
"      --python-only        only the Python frames and the native frames below\n" \
"                           the innermost one (aten, BLAS): no interpreter\n" \
"                           frames; stacks without Python frames unchanged\n"

#endif
