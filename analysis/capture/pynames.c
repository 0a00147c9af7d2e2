/* pynames.c - a Python frame's text, and the --python-* options (see
 * pynames.h). */
#include "analysis/capture/pynames.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* path without prefix and the '/' after it, when path starts with that
 * directory (and names something in it); else NULL. */
static const char *strip_dir(const char *path, const char *prefix)
{
	size_t n = strlen(prefix);
	while (n > 0 && prefix[n - 1] == '/')
		n--;
	if (n == 0 || strncmp(path, prefix, n) != 0 || path[n] != '/' || !path[n + 1])
		return NULL;
	return path + n + 1;
}

/* Just past the last "DIR/" in path that starts a directory name; NULL when
 * there is none. */
static const char *after_last(const char *path, const char *dir)
{
	const char *found = NULL;
	size_t n = strlen(dir);
	for (const char *p = strstr(path, dir); p; p = strstr(p + 1, dir))
		if ((p == path || p[-1] == '/') && p[n])
			found = p + n;
	return found;
}

/* Just past the last "lib/pythonX.Y/" (a free-threaded build's "X.Yt/" too). */
static const char *after_lib_python(const char *path)
{
	const char *found = NULL;
	for (const char *p = strstr(path, "lib/python"); p; p = strstr(p + 1, "lib/python")) {
		if (p != path && p[-1] != '/')
			continue;
		const char *v = p + 10;
		size_t major = strspn(v, "0123456789");
		if (!major || v[major] != '.')
			continue;
		size_t minor = strspn(v + major + 1, "0123456789");
		const char *end = v + major + 1 + minor;
		if (*end == 't')
			end++;
		if (minor && *end == '/' && end[1])
			found = end + 1;
	}
	return found;
}

const char *fk_py_short_path(const char *path, const char *cwd, const struct fk_py_opts *o)
{
	/* The longest prefix that matches, whatever their order (torch tries
	 * its prefixes reverse-sorted: a directory's before its parent's). */
	const char *shortest = NULL;
	for (size_t i = 0; i < o->nprefix; i++) {
		const char *rest = strip_dir(path, o->prefix[i]);
		if (rest && (!shortest || rest > shortest))
			shortest = rest;
	}
	if (shortest)
		return shortest;
	if (o->full_paths)
		return path;
	const char *site = after_last(path, "site-packages/");
	const char *dist = after_last(path, "dist-packages/");
	if (site && dist)
		return site > dist ? site : dist;
	if (site || dist)
		return site ? site : dist;
	const char *lib = after_lib_python(path);
	if (lib)
		return lib;
	/* The working directory "/" would make every path relative: not a prefix. */
	const char *rest = cwd && strcmp(cwd, "/") != 0 ? strip_dir(path, cwd) : NULL;
	return rest ? rest : path;
}

size_t fk_py_frame_text(char *out, size_t n, const char *file, const char *qualname,
			const char *name, uint64_t first_line, uint64_t line, const char *cwd,
			const struct fk_py_opts *o)
{
	const char *path = *file ? fk_py_short_path(file, cwd, o) : "<unknown>";
	const char *func = o->names == FK_PY_NAMES_TORCH || !*qualname ? name : qualname;
	if (!*func)
		func = "<unknown>";
	uint64_t shown = o->names == FK_PY_NAMES_TORCH ? first_line : line;
	int len = snprintf(out, n, "%s(%" PRIu64 "): %s", path, shown, func);
	if (len < 0)
		len = 0;
	/* As torch's export_stacks writes each frame: these would split it. */
	for (size_t i = 0; n > 0 && i < (size_t)len && i + 1 < n; i++)
		if (out[i] == ' ' || out[i] == ';' || out[i] == '\t' || out[i] == '\n')
			out[i] = '_';
	return (size_t)len;
}

/* ---- options ---- */

void fk_py_options(struct option out[FK_PY_NOPTS], int base)
{
	out[FK_PY_OPT_NAMES] = (struct option){ "python-names", required_argument, NULL,
						base + FK_PY_OPT_NAMES };
	out[FK_PY_OPT_PATHS] = (struct option){ "python-paths", required_argument, NULL,
						base + FK_PY_OPT_PATHS };
	out[FK_PY_OPT_PREFIX] = (struct option){ "python-prefix", required_argument, NULL,
						 base + FK_PY_OPT_PREFIX };
	out[FK_PY_OPT_ONLY] = (struct option){ "python-only", no_argument, NULL,
					       base + FK_PY_OPT_ONLY };
}

const char *fk_py_option(struct fk_py_opts *o, int which, const char *arg)
{
	switch (which) {
	case FK_PY_OPT_NAMES:
		if (strcmp(arg, "line") == 0)
			o->names = FK_PY_NAMES_LINE;
		else if (strcmp(arg, "torch") == 0)
			o->names = FK_PY_NAMES_TORCH;
		else
			return "--python-names is line or torch";
		return NULL;
	case FK_PY_OPT_PATHS:
		if (strcmp(arg, "short") != 0 && strcmp(arg, "full") != 0)
			return "--python-paths is short or full";
		o->full_paths = strcmp(arg, "full") == 0;
		return NULL;
	case FK_PY_OPT_PREFIX:
		if (o->nprefix == FK_PY_PREFIX_MAX)
			return "at most 16 --python-prefix";
		if (strspn(arg, "/") == strlen(arg))
			return "--python-prefix needs a directory (not empty, not /)";
		o->prefix[o->nprefix++] = arg;
		return NULL;
	case FK_PY_OPT_ONLY:
		o->only = true;
		return NULL;
	}
	return "unknown option";
}
