/* xml.h - writing untrusted text into SVG/XML so the document always stays
 * well-formed: & < > (and " in attributes) become entities; bytes that are
 * not valid UTF-8 and characters XML 1.0 forbids (control characters other
 * than tab, newline and CR; U+FFFE, U+FFFF) become U+FFFD.
 *
 * Owns: nothing.
 */
#ifndef FK_XML_H
#define FK_XML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* quote: also escape '"' (attribute values, and titles like flamegraph.pl). */
void fk_xml_write(FILE *out, const char *p, size_t len, bool quote);
void fk_xml_write_str(FILE *out, const char *s, bool quote);

/* A JSON string literal safe inside a <script> CDATA section ("<" ">" "&"
 * as \u escapes, so "]]>" and "</script" can never appear). */
void fk_json_string(FILE *out, const char *s);

/* The same literal, quotes included, for len bytes of s into dst, which
 * holds FK_JSON_QUOTED_MAX(len) bytes; returns its length. Bytes that are
 * not valid UTF-8 (and U+FFFE, U+FFFF) become \ufffd: always valid JSON. */
#define FK_JSON_QUOTED_MAX(len) (6 * (size_t)(len) + 2)
size_t fk_json_quote(char *dst, const char *s, size_t len);

#endif
