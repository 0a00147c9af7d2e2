/* pystack.c - what the writer computes from a record's Python frames,
 * with no Python memory in sight: line numbers from a copied location
 * table, the merge of Python runs into the native stack, and UTF-8 names.
 * Pure functions, unit-tested (tests/unit/capture/test_pystack.c).
 */
#include <string.h>

#include "capture/python.h"

/* ---- the location table (3.11+: Objects/locations.md) ---- */

/* 6-bit chunks, lowest first; bit 6 says another follows. */
static bool read_varint(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	uint32_t val = 0;
	unsigned shift = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;
		if (shift < 32)
			val |= (uint32_t)(b & 63) << shift;
		shift += 6;
		if (!(b & 64)) {
			*v = val;
			return true;
		}
	}
	return false;
}

static bool read_svarint(const uint8_t **p, const uint8_t *end, int32_t *v)
{
	uint32_t u;
	if (!read_varint(p, end, &u))
		return false;
	*v = (u & 1) ? -(int32_t)(u >> 1) : (int32_t)(u >> 1);
	return true;
}

uint32_t py_line(const uint8_t *table, size_t len, uint32_t firstlineno, uint32_t lasti)
{
	if (lasti == PY_LASTI_START)
		return firstlineno;
	if (!table) /* no copy of the table was had */
		return 0;
	const uint8_t *p = table, *end = table + len;
	int64_t line = firstlineno;
	uint64_t addr = 0;
	while (p < end) {
		uint8_t first = *p++;
		if (!(first & 0x80))
			continue; /* not an entry's first byte: resync */
		unsigned code = (first >> 3) & 15;
		uint64_t units = (first & 7) + 1u;
		bool has_line = true;
		int32_t delta = 0;
		uint32_t skip;
		if (code == 15) {
			has_line = false;
		} else if (code == 14) { /* long form: line delta, end line, two columns */
			if (!read_svarint(&p, end, &delta) || !read_varint(&p, end, &skip) ||
			    !read_varint(&p, end, &skip) || !read_varint(&p, end, &skip))
				return 0;
		} else if (code == 13) { /* no columns */
			if (!read_svarint(&p, end, &delta))
				return 0;
		} else if (code >= 10) { /* one line: delta code-10, two column bytes */
			delta = (int32_t)code - 10;
			p += end - p < 2 ? end - p : 2;
		} else if (p < end) { /* short form: same line, one column byte */
			p++;
		}
		line += delta;
		if (lasti >= addr && lasti < addr + units)
			return has_line && line > 0 && line <= UINT32_MAX ? (uint32_t)line : 0;
		addr += units;
	}
	return 0; /* past the table (or a truncated copy of it) */
}

/* ---- the merge (py-spy --native's rule) ---- */

uint32_t py_merge(const uint64_t *ips, uint32_t n, bool (*is_eval)(uint64_t ip), uint64_t *out,
		  uint32_t max)
{
	uint32_t native = 0;
	while (native < n && !(ips[native] & PY_REC_PYTHON))
		native++;
	const uint64_t *py = ips + native;
	uint32_t npy = n - native, next = 0, k = 0;
	/* More interpreter calls than runs: a sample landed while a call was
	 * being entered (its frames not linked yet) or left (unlinked), the
	 * first call of a thread too (no Python frames at all). That call is
	 * the leaf-most: it has no run of its own, so it is dropped and the
	 * runs go to the calls they belong to. */
	uint32_t evals = 0, runs = 0;
	for (uint32_t i = 0; i < native; i++)
		evals += is_eval(ips[i]);
	for (uint32_t j = 0; j < npy; j++)
		runs += (py[j] & PY_REC_RUN_END) != 0 || j + 1 == npy;
	uint32_t surplus = evals > runs ? evals - runs : 0;
	for (uint32_t i = 0; i < native && k < max; i++) {
		if (surplus && is_eval(ips[i])) {
			surplus--;
			continue;
		}
		if (next < npy && is_eval(ips[i])) {
			/* The run this interpreter call was running, leaf first. */
			while (next < npy && k < max) {
				uint64_t r = py[next++];
				out[k++] = r;
				if (r & PY_REC_RUN_END)
					break;
			}
			continue;
		}
		out[k++] = ips[i];
	}
	while (next < npy && k < max) /* native unwinding stopped short */
		out[k++] = py[next++];
	return k;
}

/* ---- names ---- */

static size_t put_utf8(uint32_t c, char *out, size_t at, size_t cap)
{
	char b[4];
	size_t n;
	if ((c >= 0xD800 && c <= 0xDFFF) || c > 0x10FFFF)
		c = 0xFFFD;
	if (c < 0x80) {
		b[0] = (char)c, n = 1;
	} else if (c < 0x800) {
		b[0] = (char)(0xC0 | c >> 6), b[1] = (char)(0x80 | (c & 63)), n = 2;
	} else if (c < 0x10000) {
		b[0] = (char)(0xE0 | c >> 12), b[1] = (char)(0x80 | ((c >> 6) & 63));
		b[2] = (char)(0x80 | (c & 63)), n = 3;
	} else {
		b[0] = (char)(0xF0 | c >> 18), b[1] = (char)(0x80 | ((c >> 12) & 63));
		b[2] = (char)(0x80 | ((c >> 6) & 63)), b[3] = (char)(0x80 | (c & 63)), n = 4;
	}
	if (at + n > cap)
		return 0;
	memcpy(out + at, b, n);
	return n;
}

size_t py_str_utf8(const struct py_str *s, char *out, size_t cap)
{
	size_t at = 0;
	for (uint32_t i = 0; i < s->len; i++) {
		uint32_t c;
		if (s->kind == 4)
			memcpy(&c, s->data + 4 * (size_t)i, 4);
		else if (s->kind == 2) {
			uint16_t u;
			memcpy(&u, s->data + 2 * (size_t)i, 2);
			c = u;
		} else {
			c = s->data[i];
		}
		size_t w = put_utf8(c, out, at, cap);
		if (!w)
			break; /* out of room: cut at a whole character */
		at += w;
	}
	return at;
}
