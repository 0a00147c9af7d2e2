/* events.c - the memory event model (see events.h). */
#include "analysis/mem/events.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

const char *const fk_mem_category_names[FK_MEM_NCAT] = {
	"PARAMETER", "OPTIMIZER_STATE", "INPUT",           "TEMPORARY",
	"ACTIVATION", "GRADIENT",       "AUTOGRAD_DETAIL", "Unknown",
};

const char *const fk_mem_action_names[5] = {
	"?", "PREEXISTING", "CREATE", "INCREMENT_VERSION", "DESTROY",
};

void fk_mem_init(struct fk_mem_timeline *tl)
{
	memset(tl, 0, sizeof *tl);
	tl->max_reserved = -1;
	tl->lost_before_ns = INT64_MIN;
}

void fk_mem_free(struct fk_mem_timeline *tl)
{
	free(tl->t_ns);
	free(tl->bytes);
	free(tl->kind);
	free(tl->device);
	free(tl->address);
	free(tl->stack);
	fk_strtab_free(&tl->stacks);
	memset(tl, 0, sizeof *tl);
}

/* An optional array appears when first needed, holding the default for the
 * events before. */
static bool ensure_optional(struct fk_mem_timeline *tl, void **p, size_t size, int fill)
{
	if (*p)
		return true;
	*p = malloc(tl->cap * size);
	if (!*p)
		return false;
	if (fill == FK_MEM_DEVICE_ANY) {
		for (size_t i = 0; i < tl->count; i++)
			((int16_t *)*p)[i] = FK_MEM_DEVICE_ANY;
	} else {
		memset(*p, 0, tl->count * size);
	}
	return true;
}

static uint16_t pack_kind(const struct fk_mem_event *ev)
{
	return (uint16_t)(ev->action | ev->category << 4 | ev->category_to << 8);
}

/* torch's timeline key: (t, action value). */
static bool before(int64_t t1, unsigned a1, int64_t t2, unsigned a2)
{
	return t1 < t2 || (t1 == t2 && a1 < a2);
}

/* Room for want events in every array in use (the optional ones only when
 * they are): one capacity for all, sized by the widest element. */
static bool reserve(struct fk_mem_timeline *tl, size_t want)
{
	if (want <= tl->cap)
		return true;
	size_t cap;
	if (!fk_grow_cap(tl->cap, want, 4096, sizeof *tl->t_ns, &cap))
		return false;
	/* realloc of large blocks moves pages (mremap), not bytes. */
	if (!FK_RESIZE(tl->t_ns, cap) || !FK_RESIZE(tl->bytes, cap) || !FK_RESIZE(tl->kind, cap) ||
	    (tl->device && !FK_RESIZE(tl->device, cap)) ||
	    (tl->address && !FK_RESIZE(tl->address, cap)) ||
	    (tl->stack && !FK_RESIZE(tl->stack, cap)))
		return false;
	tl->cap = cap;
	return true;
}

bool fk_mem_add(struct fk_mem_timeline *tl, const struct fk_mem_event *ev)
{
	if (!reserve(tl, tl->count + 1))
		return false;
	size_t i = tl->count;
	if ((ev->device != FK_MEM_DEVICE_ANY &&
	     !ensure_optional(tl, (void **)&tl->device, sizeof *tl->device, FK_MEM_DEVICE_ANY)) ||
	    (ev->address && !ensure_optional(tl, (void **)&tl->address, sizeof *tl->address, 0)) ||
	    (ev->stack && !ensure_optional(tl, (void **)&tl->stack, sizeof *tl->stack, 0)))
		return false;
	if (i > 0 && before(ev->t_ns, ev->action, tl->t_ns[i - 1], tl->kind[i - 1] & 0xfu))
		tl->out_of_order++;
	tl->t_ns[i] = ev->t_ns;
	tl->bytes[i] = ev->bytes;
	tl->kind[i] = pack_kind(ev);
	if (tl->device)
		tl->device[i] = ev->device;
	if (tl->address)
		tl->address[i] = ev->address;
	if (tl->stack)
		tl->stack[i] = ev->stack;
	tl->count++;
	return true;
}

/* The arrays of an empty timeline given to another (no copy: a part of a
 * 400 MB file is a hundred MB of events). */
static void take_arrays(struct fk_mem_timeline *dst, struct fk_mem_timeline *src)
{
	struct fk_mem_timeline empty = *dst;
	dst->count = src->count, dst->cap = src->cap;
	dst->t_ns = src->t_ns, dst->bytes = src->bytes, dst->kind = src->kind;
	dst->device = src->device, dst->address = src->address, dst->stack = src->stack;
	dst->out_of_order = src->out_of_order;
	src->count = empty.count, src->cap = empty.cap;
	src->t_ns = empty.t_ns, src->bytes = empty.bytes, src->kind = empty.kind;
	src->device = empty.device, src->address = empty.address, src->stack = empty.stack;
	src->out_of_order = 0;
}

bool fk_mem_append(struct fk_mem_timeline *dst, struct fk_mem_timeline *src)
{
	if (src->count == 0)
		return true;
	if (dst->count == 0 && dst->out_of_order == 0 && !dst->device && !dst->address &&
	    !dst->stack) {
		take_arrays(dst, src);
		return true;
	}
	size_t at = dst->count;
	bool boundary = at > 0 && before(src->t_ns[0], src->kind[0] & 0xfu, dst->t_ns[at - 1],
					 dst->kind[at - 1] & 0xfu);
	if (dst->device || dst->address || dst->stack || src->device || src->address ||
	    src->stack) {
		struct fk_mem_event ev;
		for (size_t i = 0; i < src->count; i++) {
			fk_mem_get(src, i, &ev);
			if (!fk_mem_add(dst, &ev))
				return false;
		}
		return true;
	}
	/* The common case, plain arrays: copied in bulk. */
	if (!reserve(dst, at + src->count))
		return false;
	memcpy(dst->t_ns + at, src->t_ns, src->count * sizeof *src->t_ns);
	memcpy(dst->bytes + at, src->bytes, src->count * sizeof *src->bytes);
	memcpy(dst->kind + at, src->kind, src->count * sizeof *src->kind);
	dst->count += src->count;
	dst->out_of_order += src->out_of_order + boundary;
	return true;
}

uint32_t fk_mem_stack(struct fk_mem_timeline *tl, const char *text, size_t len)
{
	uint32_t id = fk_strtab_intern(&tl->stacks, text, len, NULL);
	return id == FK_STRTAB_NONE ? 0 : id + 1;
}

const struct fk_str *fk_mem_stack_text(const struct fk_mem_timeline *tl, uint32_t id)
{
	return id ? fk_strtab_get(&tl->stacks, id - 1) : NULL;
}

/* Stable merge sort of event indexes by (t, action). */
static void merge_sort(size_t *idx, size_t *tmp, size_t n, const struct fk_mem_timeline *tl)
{
	if (n < 2)
		return;
	size_t h = n / 2;
	merge_sort(idx, tmp, h, tl);
	merge_sort(idx + h, tmp, n - h, tl);
	size_t i = 0, j = h, k = 0;
	while (i < h && j < n) {
		size_t a = idx[i], b = idx[j];
		if (before(tl->t_ns[b], tl->kind[b] & 0xfu, tl->t_ns[a], tl->kind[a] & 0xfu))
			tmp[k++] = idx[j++];
		else
			tmp[k++] = idx[i++];
	}
	while (i < h)
		tmp[k++] = idx[i++];
	while (j < n)
		tmp[k++] = idx[j++];
	memcpy(idx, tmp, n * sizeof *idx);
}

/* Reorders one array by the permutation: out[i] = in[idx[i]]. */
static bool permute(void *arr, size_t size, const size_t *idx, size_t n)
{
	if (!arr)
		return true;
	char *copy = malloc(n * size);
	if (!copy)
		return false;
	for (size_t i = 0; i < n; i++)
		memcpy(copy + i * size, (char *)arr + idx[i] * size, size);
	memcpy(arr, copy, n * size);
	free(copy);
	return true;
}

bool fk_mem_sort(struct fk_mem_timeline *tl, size_t **order)
{
	if (order)
		*order = NULL;
	if (tl->out_of_order == 0)
		return true;
	size_t n = tl->count;
	size_t *idx = malloc(n * sizeof *idx), *tmp = malloc(n * sizeof *tmp);
	bool ok = idx && tmp;
	if (ok) {
		for (size_t i = 0; i < n; i++)
			idx[i] = i;
		merge_sort(idx, tmp, n, tl);
		ok = permute(tl->t_ns, sizeof *tl->t_ns, idx, n) &&
		     permute(tl->bytes, sizeof *tl->bytes, idx, n) &&
		     permute(tl->kind, sizeof *tl->kind, idx, n) &&
		     permute(tl->device, sizeof *tl->device, idx, n) &&
		     permute(tl->address, sizeof *tl->address, idx, n) &&
		     permute(tl->stack, sizeof *tl->stack, idx, n);
	}
	if (ok)
		tl->out_of_order = 0;
	if (ok && order) {
		*order = idx;
		idx = NULL;
	}
	free(idx);
	free(tmp);
	return ok;
}

void fk_mem_select_device(struct fk_mem_timeline *tl, int16_t device)
{
	if (!tl->device)
		return;
	size_t k = 0;
	for (size_t i = 0; i < tl->count; i++) {
		if (tl->device[i] != device && tl->device[i] != FK_MEM_DEVICE_ANY)
			continue;
		tl->t_ns[k] = tl->t_ns[i];
		tl->bytes[k] = tl->bytes[i];
		tl->kind[k] = tl->kind[i];
		tl->device[k] = tl->device[i];
		if (tl->address)
			tl->address[k] = tl->address[i];
		if (tl->stack)
			tl->stack[k] = tl->stack[i];
		k++;
	}
	tl->count = k;
}

bool fk_mem_parse_device(const char *s, int16_t *device)
{
	if (strcmp(s, "cpu") == 0) {
		*device = FK_MEM_DEVICE_CPU;
		return true;
	}
	if (strcmp(s, "cuda") == 0) {
		*device = 0;
		return true;
	}
	if (strncmp(s, "cuda:", 5) != 0 || s[5] < '0' || s[5] > '9')
		return false;
	char *end;
	long n = strtol(s + 5, &end, 10);
	if (*end || n > 4095)
		return false;
	*device = (int16_t)n;
	return true;
}

/* The exact n / 1000 rounded to a double (to nearest, ties to even), for
 * n >= 2^53: the general case, in 128-bit integers. */
static uint64_t rounded_quotient(uint64_t n, int k)
{
	unsigned __int128 num = n, den = 1000;
	if (k <= 52)
		num <<= 52 - k;
	else
		den <<= k - 52;
	unsigned __int128 m = num / den, rem = num % den;
	if (2 * rem > den || (2 * rem == den && (m & 1)))
		m++;
	return (uint64_t)(k >= 52 ? m << (k - 52) : m >> (52 - k)); /* truncated */
}

int64_t fk_mem_ns_to_us(int64_t t)
{
	/* Python's int / int: exact operands below 2^53 give one correctly
	 * rounded IEEE division, which C does the same way. */
	if (t > -(INT64_C(1) << 53) && t < (INT64_C(1) << 53))
		return (int64_t)((double)t / 1000.0);
	bool neg = t < 0;
	uint64_t n = neg ? (uint64_t)(-(t + 1)) + 1 : (uint64_t)t;
	uint64_t q = n / 1000, r = n % 1000;
	int k = 63 - __builtin_clzll(q); /* n / 1000 lies in [2^k, 2^(k+1)) */
	uint64_t v;
	if (k < 52) {
		/* Doubles there are spaced 2^-s apart: q is on the grid and the
		 * quotient truncates to q + 1 only when r / 1000 rounds up to
		 * 1, i.e. when 1 - r / 1000 <= 2^-(s+1) (a tie goes to the even 1). */
		int s = 52 - k;
		v = q + (((1000 - r) << (s + 1)) <= 1000);
	} else {
		v = rounded_quotient(n, k); /* epoch times past the year 2113 */
	}
	return neg ? -(int64_t)v : (int64_t)v;
}

char *fk_mem_format_bytes(char buf[32], int64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes, mag = v < 0 ? -v : v;
	int u = 0;
	while (mag >= 1024 && u < 6)
		mag /= 1024, v /= 1024, u++;
	if (u == 0)
		snprintf(buf, 32, "%lld B", (long long)bytes);
	else
		snprintf(buf, 32, "%.2f %s", v, units[u]);
	return buf;
}
