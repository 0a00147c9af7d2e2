/* transform.c - per-unique-stack transformations (see transform.h). */
#include "analysis/core/transform.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Hex runs this long are addresses, not constants worth keeping. */
#define ADDRESS_DIGITS 6

size_t fk_strip_addresses(const char *in, size_t len, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		size_t digits = 0;
		if (in[i] == '0' && i + 1 < len && (in[i + 1] == 'x' || in[i + 1] == 'X'))
			while (i + 2 + digits < len && is_hex(in[i + 2 + digits]))
				digits++;
		if (digits < ADDRESS_DIGITS) {
			out[o++] = in[i++];
			continue;
		}
		/* torch prints "<built-in method add of ... at 0x7f41b0d2d1e0>" and
		 * export_stacks turns the spaces into '_': drop " at 0x..." whole. */
		if (o >= 4 && (memcmp(out + o - 4, "_at_", 4) == 0 || memcmp(out + o - 4, " at ", 4) == 0)) {
			o -= 4;
		} else {
			memcpy(out + o, "0x...", 5);
			o += 5;
		}
		i += 2 + digits;
	}
	return o;
}

size_t fk_strip_hex(const char *in, size_t len, char *out)
{
	size_t o = 0;
	for (size_t i = 0; i < len;) {
		if (in[i] == '0' && i + 2 < len && in[i + 1] == 'x' && is_hex(in[i + 2])) {
			i += 2;
			while (i < len && is_hex(in[i]))
				i++;
			memcpy(out + o, "0x...", 5);
			o += 5;
		} else {
			out[o++] = in[i++];
		}
	}
	return o;
}

struct scratch {
	char *p;
	size_t len, cap;
};

static bool reserve(struct scratch *s, size_t more)
{
	return more <= SIZE_MAX - s->len && FK_GROW(s->p, s->cap, s->len + more, 256);
}

/* Offsets of the frames of p[0..len) split on ';': frame k is
 * [starts[k], starts[k+1] - 1). Returns the frame count, SIZE_MAX on ENOMEM.
 * An empty stack has no frames. */
static size_t split_frames(const char *p, size_t len, size_t **starts, size_t *cap)
{
	size_t n = 0;
	for (size_t i = 0; len > 0;) {
		if (!FK_GROW(*starts, *cap, n + 2, 64))
			return SIZE_MAX;
		(*starts)[n++] = i;
		const char *semi = memchr(p + i, ';', len - i);
		if (!semi)
			break;
		i = (size_t)(semi - p) + 1;
	}
	if (n)
		(*starts)[n] = len + 1;
	return n;
}

/* 1 when a frame matches, 0 when none does, -1 when matching failed. */
static int any_frame_matches(struct fk_regex *re, const char *p, const size_t *starts, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		int m = fk_regex_match(re, p + starts[k], starts[k + 1] - 1 - starts[k]);
		if (m != 0)
			return m;
	}
	return 0;
}

/* flamegraph.pl's chain-graph rewrite, on Perl's terms: split on ";--;"
 * (left to right, without overlaps; trailing empty parts dropped), keep the
 * first part, then ";--;", then the other parts joined by ";--;" with every
 * frame in them suffixed "_[w]". */
static bool chain_annotate(struct scratch *s, struct scratch *tmp)
{
	static const char sep[] = ";--;";
	/* Worst case: every ';' becomes "_[w];" and every part gains "_[w]". */
	tmp->len = 0;
	if (!reserve(tmp, s->len * 5 + 16))
		return false;
	/* Part boundaries: parts[k] = [start, end). */
	size_t nparts = 0, cap = 0;
	size_t (*parts)[2] = NULL;
	for (size_t i = 0;;) {
		const char *q = i < s->len ? memmem(s->p + i, s->len - i, sep, 4) : NULL;
		size_t end = q ? (size_t)(q - s->p) : s->len;
		if (!FK_GROW(parts, cap, nparts + 1, 8)) {
			free(parts);
			return false;
		}
		parts[nparts][0] = i;
		parts[nparts][1] = end;
		nparts++;
		if (!q)
			break;
		i = end + 4;
	}
	while (nparts > 0 && parts[nparts - 1][0] == parts[nparts - 1][1])
		nparts--;
	if (nparts > 0) {
		memcpy(tmp->p, s->p + parts[0][0], parts[0][1] - parts[0][0]);
		tmp->len = parts[0][1] - parts[0][0];
	}
	memcpy(tmp->p + tmp->len, sep, 4);
	tmp->len += 4;
	for (size_t k = 1; k < nparts; k++) {
		if (k > 1) {
			memcpy(tmp->p + tmp->len, sep, 4);
			tmp->len += 4;
		}
		for (size_t c = parts[k][0]; c < parts[k][1]; c++) {
			if (s->p[c] == ';') {
				memcpy(tmp->p + tmp->len, "_[w]", 4);
				tmp->len += 4;
			}
			tmp->p[tmp->len++] = s->p[c];
		}
		memcpy(tmp->p + tmp->len, "_[w]", 4);
		tmp->len += 4;
	}
	free(parts);
	struct scratch swap = *s;
	*s = *tmp;
	*tmp = swap;
	return true;
}

enum fk_stacks_status fk_fold(struct fk_stacks *dst, const struct fk_stacks *src,
			      const struct fk_fold_opts *o, struct fk_fold_stats *stats,
			      uint32_t *map)
{
	enum fk_stacks_status st = FK_STACKS_OK;
	struct scratch out = { 0 }, tmp = { 0 };
	size_t *starts = NULL, cap = 0;
	size_t root_len = o->root ? strlen(o->root) : 0;
	char *text = NULL;
	size_t text_cap = 0;
	for (uint32_t id = 0; id < fk_stacks_count(src) && st == FK_STACKS_OK; id++) {
		size_t text_len = fk_stacks_text(src, id, &text, &text_cap);
		if (text_len == SIZE_MAX) {
			st = FK_STACKS_NOMEM;
			break;
		}
		const struct fk_str *in = &(struct fk_str){ .p = text, .len = (uint32_t)text_len };
		size_t n = split_frames(in->p, in->len, &starts, &cap);
		out.len = 0;
		size_t room = o->strip_hex ? in->len / 3 * 5 + 5 * n + 5 : in->len;
		if (n == SIZE_MAX || !reserve(&out, room + root_len + 2) ||
		    (o->strip_hex && o->strip_addresses && !reserve(&tmp, in->len + 1))) {
			st = FK_STACKS_NOMEM;
			break;
		}
		/* Perl's split drops trailing empty frames; flamegraph.pl's --reverse
		 * relies on it, so reversing does the same. */
		if (o->reverse)
			while (n > 0 && starts[n] - 1 == starts[n - 1])
				n--;
		if (o->root) {
			memcpy(out.p, o->root, root_len);
			out.len = root_len;
		}
		/* Frames are written (and stripped) first, filters then look at
		 * the written frames: what the user will see is what matches. */
		for (size_t k = 0; k < n; k++) {
			size_t f = o->reverse ? n - 1 - k : k;
			const char *fp = in->p + starts[f];
			size_t flen = starts[f + 1] - 1 - starts[f];
			if (o->root || k > 0)
				out.p[out.len++] = ';';
			if (o->strip_addresses && o->strip_hex) {
				size_t tlen = fk_strip_addresses(fp, flen, tmp.p);
				out.len += fk_strip_hex(tmp.p, tlen, out.p + out.len);
			} else if (o->strip_hex) {
				out.len += fk_strip_hex(fp, flen, out.p + out.len);
			} else if (o->strip_addresses) {
				out.len += fk_strip_addresses(fp, flen, out.p + out.len);
			} else {
				memcpy(out.p + out.len, fp, flen), out.len += flen;
			}
		}
		if (o->chain_wakers && !chain_annotate(&out, &tmp)) {
			st = FK_STACKS_NOMEM;
			break;
		}
		/* Rebuild the frame table over the output for the filters. */
		size_t skip = o->root ? 1 : 0;
		if (o->include || o->exclude) {
			size_t m = split_frames(out.p, out.len, &starts, &cap);
			if (m < skip)
				m = skip; /* an empty root tag and no frames */
			if (m == SIZE_MAX) {
				st = FK_STACKS_NOMEM;
				break;
			}
			int inc = o->include ? any_frame_matches(o->include, out.p, starts + skip, m - skip) : 1;
			int exc = o->exclude && inc == 1 ? any_frame_matches(o->exclude, out.p, starts + skip, m - skip) : 0;
			if (inc < 0 || exc < 0) {
				st = FK_STACKS_MATCH_FAILED;
				break;
			}
			bool keep = inc == 1 && exc == 0;
			if (!keep) {
				if (map)
					map[id] = FK_STRTAB_NONE;
				if (stats)
					stats->filtered++;
				continue;
			}
		}
		struct fk_stack_sums sums = src->sums[id];
		if (o->scaled && (!fk_num_mul(sums.value, o->scale, &sums.value) ||
				  !fk_num_mul(sums.before, o->scale, &sums.before))) {
			st = FK_STACKS_OVERFLOW;
			break;
		}
		st = fk_stacks_add_sums(dst, out.p, out.len, &sums, map ? &map[id] : NULL);
	}
	free(out.p);
	free(tmp.p);
	free(starts);
	free(text);
	return st;
}
