/* layout.c - flamegraph.pl's "flow" merge with pruning on close (see layout.h). */
#include "render/layout.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

void fk_layout_init(struct fk_layout *L, double min_time)
{
	*L = (struct fk_layout){ .min_time = min_time, .maxdelta = 1 };
}

/* Length of the common prefix of a and b (n bytes each), a word at a time:
 * sorted stacks share long prefixes. */
static size_t fk_common_prefix(const char *a, const char *b, size_t n)
{
	size_t i = 0;
	for (; i + 8 <= n; i += 8) {
		uint64_t x, y;
		memcpy(&x, a + i, 8);
		memcpy(&y, b + i, 8);
		if (x != y)
			return i + (size_t)__builtin_ctzll(x ^ y) / 8;
	}
	while (i < n && a[i] == b[i])
		i++;
	return i;
}

/* Room for need open frames in each of the parallel open_* arrays: one
 * capacity for all, sized by the widest element. */
static bool ensure_open(struct fk_layout *L, size_t need)
{
	if (need <= L->open_cap)
		return true;
	size_t cap;
	if (!fk_grow_cap(L->open_cap, need, 64, sizeof *L->open_start_exact, &cap) ||
	    !FK_RESIZE(L->open_names, cap) || !FK_RESIZE(L->open_start, cap) ||
	    !FK_RESIZE(L->open_delta, cap) || !FK_RESIZE(L->open_has_delta, cap) ||
	    !FK_RESIZE(L->open_start_exact, cap))
		return false;
	L->open_cap = cap;
	return true;
}

/* flamegraph.pl keys frames by the text "name;depth;END", so a frame's end
 * goes through Perl's number stringification before it is used. While every
 * sum so far was integer arithmetic (Perl's IV/UV: integral operands, result
 * below 2^64) the text is the exact integer and changes nothing; a sum done
 * in doubles (decimal values, or past 2^64) is printed with 15 significant
 * digits, which moves ends by a hair, enough to change a rounded count. */
static double perl_text_roundtrip(const struct fk_layout *L, double t)
{
	if (!L->time_nv || (t == floor(t) && fabs(t) < 1e15))
		return t;
	char buf[32];
	snprintf(buf, sizeof buf, "%.15g", t);
	return strtod(buf, NULL);
}

/* Whether Perl would hold v as an integer (IV or UV) in an addition. */
static bool perl_ivable(double v)
{
	return v == floor(v) && v >= -9223372036854775808.0 && v <= 18446744073709551616.0; /* 2^64-1 is 2^64 as a double */
}

/* Closes open frames above depth keep (keep frames remain open). */
static void close_to(struct fk_layout *L, size_t keep, double time)
{
	double t = perl_text_roundtrip(L, time);
	while (L->open_len > keep) {
		size_t d = --L->open_len;
		double start = L->open_start[d];
		if (t - start < L->min_time) { /* judged alone, as flamegraph.pl does */
			L->omitted++;
			continue;
		}
		if (!FK_GROW(L->frames, L->cap, L->count + 1, 64)) {
			L->failed = true;
			continue;
		}
		L->frames[L->count++] = (struct fk_frame){
			.name = L->open_names[d], .depth = (uint32_t)d, .start = start, .end = t,
			.delta = L->open_delta[d], .has_delta = L->open_has_delta[d],
			.exact = !L->inexact, .count = L->time_exact - L->open_start_exact[d],
		};
		if (d > L->depthmax)
			L->depthmax = (uint32_t)d;
	}
}

/* Frame ids of a stack split on ';' like Perl's split (trailing empty frames
 * dropped), the root (name "") first. Frames shared with the previous stack
 * (sorted input shares most) are taken from the open path, not re-interned.
 * Returns the number of ids, 0 on failure. */
static size_t frame_ids(struct fk_layout *L, const char *s, size_t len)
{
	while (len > 0 && s[len - 1] == ';')
		len--;
	/* Count the leading frames equal in both stacks; i: where the next starts. */
	size_t shared = 0, i = 0;
	if (L->prev && len > 0 && L->prev_len > 0 && L->open_len > 1) {
		size_t max = len < L->prev_len ? len : L->prev_len;
		size_t common = fk_common_prefix(s, L->prev, max);
		bool prev_ends_at_common = common == L->prev_len || L->prev[common] == ';';
		while (shared + 1 < L->open_len) {
			const char *semi = memchr(s + i, ';', len - i);
			size_t end = semi ? (size_t)(semi - s) : len;
			if (end > common || (end == common && !prev_ends_at_common))
				break;
			shared++;
			i = end + 1;
			if (!semi)
				break;
		}
	}
	if (!FK_GROW(L->ids, L->ids_cap, shared + 2, 64))
		return 0;
	L->ids[0] = L->open_len > 0 ? L->open_names[0] : fk_strtab_intern(&L->names, "", 0, NULL);
	if (shared > 0)
		memcpy(L->ids + 1, L->open_names + 1, shared * sizeof *L->ids);
	size_t n = shared + 1;
	while (len > 0 && i <= len) {
		const char *semi = memchr(s + i, ';', len - i);
		size_t end = semi ? (size_t)(semi - s) : len;
		if (!FK_GROW(L->ids, L->ids_cap, n + 2, 64))
			return 0;
		L->ids[n] = fk_strtab_intern(&L->names, s + i, end - i, NULL);
		if (L->ids[n++] == FK_STRTAB_NONE)
			return 0;
		if (!semi)
			break;
		i = end + 1;
	}
	L->prev = s;
	L->prev_len = len;
	return L->ids[0] == FK_STRTAB_NONE ? 0 : n;
}

/* Merges the stack in L->ids[0..n) (root first) into the open path. */
static bool push_ids(struct fk_layout *L, size_t n, double width, bool has_delta, double delta)
{
	if (n == 0 || !ensure_open(L, n)) {
		L->failed = true;
		return false;
	}
	size_t same = 0;
	while (same < L->open_len && same < n && L->open_names[same] == L->ids[same])
		same++;
	close_to(L, same, L->time);
	for (size_t d = same; d < n; d++) {
		L->open_names[d] = L->ids[d];
		L->open_start[d] = L->time;
		L->open_start_exact[d] = L->time_exact;
		/* Only the frame the line ends at carries its delta; the others
		 * it opens are marked differential with no change. */
		L->open_delta[d] = has_delta && d == n - 1 ? delta : 0;
		L->open_has_delta[d] = has_delta;
	}
	L->open_len = n;
	if (has_delta && fabs(delta) > L->maxdelta)
		L->maxdelta = fabs(delta);
	double sum = L->time + width;
	/* Perl adds in integers when both sides are integral and the result
	 * fits; otherwise the sum (and its text) is a double. */
	L->time_nv = !perl_ivable(L->time) || !perl_ivable(width) || !perl_ivable(sum) ||
		     (L->time_nv && L->time != floor(L->time));
	L->time = sum;
	return !L->failed;
}

/* A pushed count added to the exact sum. Decimal counts stay in doubles,
 * where flamegraph.pl's rounding rules (above) decide the text. */
static void add_exact(struct fk_layout *L, struct fk_num count)
{
	if (count.scale != 0 || __builtin_add_overflow(L->time_exact, count.mant, &L->time_exact))
		L->inexact = true;
}

static bool push(struct fk_layout *L, const char *stack, size_t len, double width,
		 bool has_delta, double delta)
{
	return push_ids(L, frame_ids(L, stack, len), width, has_delta, delta);
}

uint32_t fk_layout_name(struct fk_layout *L, const char *name, size_t len)
{
	return fk_strtab_intern(&L->names, name, len, NULL);
}

bool fk_layout_push_frames(struct fk_layout *L, const uint32_t *names, size_t n,
			   struct fk_num count, bool has_delta, double delta)
{
	if (!FK_GROW(L->ids, L->ids_cap, n + 1, 64) ||
	    (L->ids[0] = L->open_len > 0 ? L->open_names[0] : fk_layout_name(L, "", 0)) ==
		    FK_STRTAB_NONE) {
		L->failed = true;
		return false;
	}
	memcpy(L->ids + 1, names, n * sizeof *names);
	L->prev = NULL; /* no text to share a prefix with */
	bool ok = push_ids(L, n + 1, fk_num_to_double(count), has_delta, delta);
	add_exact(L, count);
	return ok;
}

bool fk_layout_push(struct fk_layout *L, const char *stack, size_t len, double width,
		    bool has_delta, double delta)
{
	bool ok = push(L, stack, len, width, has_delta, delta);
	L->inexact = true; /* after push: frames it closed ended before this width */
	return ok;
}

bool fk_layout_push_count(struct fk_layout *L, const char *stack, size_t len,
			  struct fk_num count, bool has_delta, double delta)
{
	bool ok = push(L, stack, len, fk_num_to_double(count), has_delta, delta);
	add_exact(L, count);
	return ok;
}

static int by_depth_then_start(const void *x, const void *y)
{
	const struct fk_frame *a = x, *b = y;
	if (a->depth != b->depth)
		return a->depth < b->depth ? -1 : 1;
	return (a->start > b->start) - (a->start < b->start);
}

bool fk_layout_finish(struct fk_layout *L, double timemax)
{
	close_to(L, 0, L->time);
	for (size_t i = 0; i < L->count; i++)
		if (L->frames[i].depth == 0) {
			L->frames[i].end = timemax > L->time ? timemax : L->time;
			if (timemax > L->time)
				L->frames[i].exact = false; /* --total: the user's double */
		}
	if (L->count > 0)
		qsort(L->frames, L->count, sizeof *L->frames, by_depth_then_start);
	return !L->failed;
}

void fk_layout_free(struct fk_layout *L)
{
	fk_strtab_free(&L->names);
	free(L->frames);
	free(L->open_names);
	free(L->open_start);
	free(L->open_delta);
	free(L->open_has_delta);
	free(L->open_start_exact);
	free(L->ids);
	*L = (struct fk_layout){ 0 };
}
