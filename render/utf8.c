/* utf8.c - code point decoding (see utf8.h). */
#include "render/utf8.h"

uint32_t fk_utf8_next(const char *s, size_t len, size_t *i, bool *valid)
{
	const unsigned char *p = (const unsigned char *)s + *i;
	size_t left = len - *i;
	unsigned char c = p[0];
	*valid = true;
	if (c < 0x80) {
		*i += 1;
		return c;
	}
	size_t n;
	uint32_t cp, min;
	if (c >= 0xC2 && c <= 0xDF)
		n = 2, cp = c & 0x1F, min = 0x80;
	else if (c >= 0xE0 && c <= 0xEF)
		n = 3, cp = c & 0x0F, min = 0x800;
	else if (c >= 0xF0 && c <= 0xF4)
		n = 4, cp = c & 0x07, min = 0x10000;
	else
		goto invalid;
	if (left < n)
		goto invalid;
	for (size_t k = 1; k < n; k++) {
		if ((p[k] & 0xC0) != 0x80)
			goto invalid;
		cp = (cp << 6) | (p[k] & 0x3F);
	}
	if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
		goto invalid;
	*i += n;
	return cp;
invalid:
	*valid = false;
	*i += 1;
	return c;
}

size_t fk_utf8_offset(const char *p, size_t len, size_t n)
{
	size_t i = 0;
	bool valid;
	while (n-- > 0 && i < len)
		fk_utf8_next(p, len, &i, &valid);
	return i;
}
