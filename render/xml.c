/* xml.c - well-formed text for SVG output (see xml.h). */
#include "render/xml.h"

#include <stdlib.h>
#include <string.h>

#include "render/utf8.h"

static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */

static bool needs_care(unsigned char c, bool quote)
{
	return c < 0x20 || c >= 0x80 || c == '&' || c == '<' || c == '>' || (quote && c == '"');
}

void fk_xml_write(FILE *out, const char *p, size_t len, bool quote)
{
	size_t i = 0;
	while (i < len) {
		/* Copy the plain run in one call: most names are plain ASCII. */
		size_t run = i;
		while (run < len && !needs_care((unsigned char)p[run], quote))
			run++;
		if (run > i)
			fwrite(p + i, 1, run - i, out);
		i = run;
		if (i >= len)
			break;
		unsigned char c = (unsigned char)p[i];
		switch (c) {
		case '&': fputs("&amp;", out); i++; continue;
		case '<': fputs("&lt;", out); i++; continue;
		case '>': fputs("&gt;", out); i++; continue;
		case '"': fputs("&quot;", out); i++; continue;
		case '\t': case '\n': case '\r': fputc(c, out); i++; continue;
		default: break;
		}
		size_t start = i;
		bool valid;
		uint32_t cp = fk_utf8_next(p, len, &i, &valid);
		if (!valid || cp < 0x20 || cp == 0xFFFE || cp == 0xFFFF)
			fputs(replacement, out);
		else
			fwrite(p + start, 1, i - start, out);
	}
}

void fk_xml_write_str(FILE *out, const char *s, bool quote)
{
	fk_xml_write(out, s, strlen(s), quote);
}

size_t fk_json_quote(char *dst, const char *s, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	char *o = dst;
	*o++ = '"';
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			*o++ = '\\';
			*o++ = (char)c;
			i++;
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
			memcpy(o, "\\u00", 4);
			o[4] = hex[c >> 4];
			o[5] = hex[c & 15];
			o += 6;
			i++;
		} else if (c < 0x80) {
			*o++ = (char)c;
			i++;
		} else {
			size_t start = i;
			bool valid;
			uint32_t cp = fk_utf8_next(s, len, &i, &valid);
			if (!valid || cp == 0xFFFE || cp == 0xFFFF) {
				memcpy(o, "\\ufffd", 6);
				o += 6;
			} else {
				memcpy(o, s + start, i - start);
				o += i - start;
			}
		}
	}
	*o++ = '"';
	return (size_t)(o - dst);
}

void fk_json_string(FILE *out, const char *s)
{
	size_t len = strlen(s);
	char small[1024];
	char *buf = FK_JSON_QUOTED_MAX(len) <= sizeof small ? small : malloc(FK_JSON_QUOTED_MAX(len));
	if (!buf) { /* out of memory: a valid, empty string rather than none */
		fputs("\"\"", out);
		return;
	}
	fwrite(buf, 1, fk_json_quote(buf, s, len), out);
	if (buf != small)
		free(buf);
}
