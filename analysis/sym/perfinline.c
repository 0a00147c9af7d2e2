/* perfinline.c - stackcollapse-perf.pl's inline() (see perfinline.h). */
#include "analysis/sym/perfinline.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/sym/addr2line.h"
#include "analysis/core/strtab.h"
#include "formats/grow.h"

struct fk_perf_inline {
	bool context;
	struct fk_diag *d;
	struct fk_a2l *a2l;
	struct fk_strtab keys;	/* "PC\0MOD" */
	char **results;		/* per key id: the script's result, "" for none */
	size_t cap;
	struct fk_strtab warned; /* modules already reported */
};

struct fk_perf_inline *fk_perf_inline_new(bool context, struct fk_diag *d)
{
	struct fk_perf_inline *pi = calloc(1, sizeof *pi);
	if (!pi)
		return NULL;
	pi->context = context;
	pi->d = d;
	if (!(pi->a2l = fk_a2l_new())) {
		free(pi);
		return NULL;
	}
	return pi;
}

void fk_perf_inline_free(struct fk_perf_inline *pi)
{
	if (!pi)
		return;
	for (uint32_t i = 0; i < pi->keys.count; i++)
		free(pi->results[i]);
	free(pi->results);
	fk_strtab_free(&pi->keys);
	fk_strtab_free(&pi->warned);
	fk_a2l_free(pi->a2l);
	free(pi);
}

/* $mod =~ m/(perf-\d+.map|kernel\.|\[[^\]]+\])/: modules the script never
 * hands to addr2line. */
static bool skipped_module(const char *mod, size_t n)
{
	if (memmem(mod, n, "kernel.", 7))
		return true;
	for (const char *open = memchr(mod, '[', n); open; ) {
		const char *close = memchr(open + 1, ']', n - (size_t)(open + 1 - mod));
		if (close && close > open + 1)
			return true;
		open = memchr(open + 1, '[', n - (size_t)(open + 1 - mod));
	}
	for (const char *p = mod; (p = memmem(p, n - (size_t)(p - mod), "perf-", 5)); p++) {
		const char *q = p + 5, *end = mod + n;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		/* \d+ may give its last digit back to the "." */
		if ((q > p + 5 && end - q >= 4 && memcmp(q + 1, "map", 3) == 0) ||
		    (q > p + 6 && end - q >= 3 && memcmp(q, "map", 3) == 0))
			return true;
	}
	return false;
}

/* bfd_scan_vma(text, NULL, 16): an optional 0x, then hex digits. */
static uint64_t scan_hex(const char *s, size_t n)
{
	size_t i = n >= 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 2 : 0;
	uint64_t v = 0;
	for (; i < n; i++) {
		char c = s[i];
		unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0')
			   : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
			   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
		if (d == 16)
			break;
		v = v * 16 + d;
	}
	return v;
}

/* The script's loop over addr2line's lines: each (function, file:line)
 * pair becomes "function" or "function:file:line", discriminators dropped,
 * outermost first, joined with ';'. */
static char *join_frames(const char *text, bool context)
{
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	if (!f)
		return NULL;
	/* addr2line lists innermost first: collect, then write in reverse */
	const char *lines[2 * 256];
	size_t lens[2 * 256], n = 0;
	for (const char *p = text; *p && n < 2 * 256;) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		lines[n] = p, lens[n++] = len;
		p += len + (nl != NULL);
	}
	bool first = true;
	for (size_t i = n / 2; i-- > 0;) {
		const char *name = lines[2 * i], *place = lines[2 * i + 1];
		size_t nl = lens[2 * i], pl = lens[2 * i + 1];
		const char *disc = memmem(place, pl, " (discriminator ", 16);
		if (disc)
			pl = (size_t)(disc - place);
		fprintf(f, "%s%.*s", first ? "" : ";", (int)nl, name);
		if (context)
			fprintf(f, ":%.*s", (int)pl, place);
		first = false;
	}
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static void warn_module(struct fk_perf_inline *pi, const char *mod, const char *why)
{
	bool added = false;
	if (fk_strtab_intern(&pi->warned, mod, strlen(mod), &added) == FK_STRTAB_NONE || !added ||
	    pi->d->quiet)
		return;
	fk_diag_note(pi->d, "%s: %s: its frames keep perf's names (--inline)", mod, why);
}

/* inline($pc, $rawfunc, $mod): "" when addr2line printed nothing. */
static const char *lookup(struct fk_perf_inline *pi, const char *pc, size_t pclen,
			  const char *rawfunc, size_t rflen, const char *mod, size_t modlen)
{
	char key[8192];
	if (pclen + 1 + modlen >= sizeof key)
		return "";
	memcpy(key, pc, pclen);
	key[pclen] = '\0';
	memcpy(key + pclen + 1, mod, modlen);
	key[pclen + 1 + modlen] = '\0';
	bool added = false;
	uint32_t id = fk_strtab_intern(&pi->keys, key, pclen + 1 + modlen, &added);
	if (id == FK_STRTAB_NONE)
		return NULL;
	if (!added)
		return pi->results[id];
	if (!FK_GROW(pi->results, pi->cap, (size_t)id + 1, 256))
		return NULL;
	pi->results[id] = NULL;
	const char *path = key + pclen + 1;

	const char *why = NULL;
	char *text = fk_a2l_text(pi->a2l, path, scan_hex(pc, pclen), &why);
	if (!text && strcmp(why, "out of memory") == 0)
		return NULL;
	if (!text)
		warn_module(pi, path, why);
	char *result = NULL;
	if (text && strstr(text, "??\n??:0")) {
		/* if rawfunc is func+offset, try func's address in nm, plus offset */
		const char *plus = NULL;
		for (const char *p = rawfunc; (p = memmem(p, rflen - (size_t)(p - rawfunc), "+0x", 3)); p++)
			plus = p;
		size_t hexlen = plus ? rflen - (size_t)(plus + 3 - rawfunc) : 0;
		bool hex_tail = plus && plus > rawfunc && hexlen > 0 &&
				strspn(plus + 3, "0123456789abcdef") >= hexlen;
		char func[4096];
		uint64_t base;
		if (hex_tail && (size_t)(plus - rawfunc) < sizeof func) {
			memcpy(func, rawfunc, (size_t)(plus - rawfunc));
			func[plus - rawfunc] = '\0';
			if (fk_a2l_nm(pi->a2l, path, func, &base)) {
				char newpc[32];
				int n = snprintf(newpc, sizeof newpc, "0x%llx",
						 (unsigned long long)(base + scan_hex(plus + 3, hexlen)));
				const char *r = lookup(pi, newpc, (size_t)n, "", 0, path, strlen(path));
				free(text);
				if (!r)
					return NULL;
				result = strdup(r);
				goto done;
			}
		}
	}
	result = text ? join_frames(text, pi->context) : strdup("");
	free(text);
done:
	if (!result)
		return NULL;
	pi->results[id] = result;
	return result;
}

const char *fk_perf_inline_frames(struct fk_perf_inline *pi, const char *pc, size_t pclen,
				  const char *rawfunc, size_t rflen, const char *mod, size_t modlen,
				  bool *failed)
{
	if (skipped_module(mod, modlen))
		return NULL;
	const char *r = lookup(pi, pc, pclen, rawfunc, rflen, mod, modlen);
	if (!r) {
		*failed = true;
		return NULL;
	}
	/* an empty answer, or "??", is worse than perf's own name */
	if (!*r || strcmp(r, "??") == 0 || strcmp(r, "??:??:0") == 0)
		return NULL;
	return r;
}
