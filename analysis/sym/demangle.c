/* demangle.c - symbol names through libiberty's demangler, with
 * bfd_demangle's handling of prefixes and versions (see demangle.h).
 */
#include "analysis/sym/demangle.h"

#include <libiberty/demangle.h>
#include <stdlib.h>
#include <string.h>

char *fk_demangle(const char *name, size_t len, enum fk_demangle_form form)
{
	if (!name)
		return NULL;
	len = strnlen(name, len);
	size_t pre = 0;
	while (pre < len && (name[pre] == '.' || name[pre] == '$'))
		pre++;
	const char *at = memchr(name + pre, '@', len - pre);
	size_t core_len = at ? (size_t)(at - name - pre) : len - pre;
	/* Every form cplus_demangle recognizes in its default (auto) style
	 * starts with '_' ("_Z", "_R", "_GLOBAL_"): C names cost no copy. */
	if (core_len < 2 || name[pre] != '_')
		return NULL;
	char *core = strndup(name + pre, core_len);
	if (!core)
		return NULL;
	int flags = form == FK_DEMANGLE_FULL ? DMGL_PARAMS | DMGL_ANSI : DMGL_ANSI;
	char *plain = cplus_demangle(core, flags);
	free(core);
	if (!plain || (!pre && !at))
		return plain;
	size_t tail = at ? len - (size_t)(at - name) : 0;
	size_t plen = strlen(plain);
	char *out = malloc(pre + plen + tail + 1);
	if (out) {
		memcpy(out, name, pre);
		memcpy(out + pre, plain, plen);
		if (tail)
			memcpy(out + pre + plen, at, tail);
		out[pre + plen + tail] = '\0';
	}
	free(plain);
	return out;
}
