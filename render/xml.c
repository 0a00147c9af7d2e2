/* xml.c - well-formed text for SVG output (see xml.h). */
#include "render/xml.h"

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

void fk_json_string(FILE *out, const char *s)
{
	size_t len = strlen(s);
	fputc('"', out);
	for (size_t i = 0; i < len;) {
		unsigned char c = (unsigned char)s[i];
		if (c == '"' || c == '\\') {
			fprintf(out, "\\%c", c);
			i++;
		} else if (c < 0x20 || c == '<' || c == '>' || c == '&') {
			fprintf(out, "\\u%04x", c);
			i++;
		} else if (c < 0x80) {
			fputc(c, out);
			i++;
		} else {
			size_t start = i;
			bool valid;
			uint32_t cp = fk_utf8_next(s, len, &i, &valid);
			if (!valid || cp == 0xFFFE || cp == 0xFFFF)
				fputs("\\ufffd", out);
			else
				fwrite(s + start, 1, i - start, out);
		}
	}
	fputc('"', out);
}
