/* test_xml.c - render/xml.h (and the number formats of render/svg.h).
 *
 * Covers fk_xml_write / fk_xml_write_str: entities for & < > (and " in quote
 * mode), U+FFFD for invalid UTF-8 (one per bad byte), control characters,
 * U+FFFE and U+FFFF; valid multi-byte UTF-8, tab, newline and CR kept.
 * fk_json_string: JSON escapes, and never '<', '>', '&' (so never "]]>" or
 * "</script"). fk_perl_number (Perl's number stringification, "%.15g") and
 * fk_commas (flamegraph.pl's perlfaq5 comma regex), against Perl's output.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "render/svg.h"
#include "render/xml.h"

#define FFFD "\xEF\xBF\xBD"

/* Output of one writer call, through open_memstream. */
struct mem {
	char *buf;
	size_t len;
	FILE *f;
};

static FILE *mem_open(struct mem *m)
{
	m->buf = NULL;
	m->len = 0;
	m->f = open_memstream(&m->buf, &m->len);
	assert_non_null(m->f);
	return m->f;
}

static char *mem_close(struct mem *m)
{
	assert_int_equal(fclose(m->f), 0);
	return m->buf;
}

static void check_xml(const char *in, size_t len, bool quote, const char *want)
{
	struct mem m;
	fk_xml_write(mem_open(&m), in, len, quote);
	char *got = mem_close(&m);
	assert_int_equal(m.len, strlen(want));
	assert_string_equal(got, want);
	free(got);
}

static void xml(const char *in, bool quote, const char *want)
{
	check_xml(in, strlen(in), quote, want);
}

static char *json(const char *in)
{
	struct mem m;
	fk_json_string(mem_open(&m), in);
	return mem_close(&m);
}

static void check_json(const char *in, const char *want)
{
	char *got = json(in);
	assert_string_equal(got, want);
	free(got);
}

/* ---- fk_xml_write --------------------------------------------------------- */

static void test_xml_plain_text(void **state)
{
	(void)state;
	xml("", false, "");
	xml("main;foo bar_[k]", false, "main;foo bar_[k]");
	xml("it's", true, "it's"); /* ' needs no escape in "-quoted attributes */
}

static void test_xml_entities(void **state)
{
	(void)state;
	xml("a&b", false, "a&amp;b");
	xml("<built-in_method>", false, "&lt;built-in_method&gt;");
	xml("std::map<int, std::vector<T>>&", false, "std::map&lt;int, std::vector&lt;T&gt;&gt;&amp;");
	xml("]]>", false, "]]&gt;");
	/* '"' only in quote mode. */
	xml("say \"hi\"", false, "say \"hi\"");
	xml("say \"hi\"", true, "say &quot;hi&quot;");
	xml("&<>\"", true, "&amp;&lt;&gt;&quot;");
	/* Already-escaped text is escaped again (it is text, not markup). */
	xml("&amp;", false, "&amp;amp;");
}

static void test_xml_valid_utf8_kept(void **state)
{
	(void)state;
	xml("café", false, "café");                 /* 2-byte */
	xml("日本語", false, "日本語");             /* 3-byte */
	xml("🔥 fire", true, "🔥 fire");           /* 4-byte */
	xml("\xEF\xBF\xBD", false, FFFD);           /* U+FFFD itself */
	xml("\xC2\x85", false, "\xC2\x85");         /* U+0085 is allowed by XML 1.0 */
	xml("\x7F", false, "\x7F");                 /* DEL is allowed too */
	xml("a\xF4\x8F\xBF\xBFz", false, "a\xF4\x8F\xBF\xBFz"); /* U+10FFFF */
}

static void test_xml_whitespace_kept(void **state)
{
	(void)state;
	xml("a\tb\nc\rd", false, "a\tb\nc\rd");
	xml("a\tb\nc\rd", true, "a\tb\nc\rd");
}

static void test_xml_control_chars_replaced(void **state)
{
	(void)state;
	xml("a\x01" "b", false, "a" FFFD "b");
	xml("\x1b[31mred", false, FFFD "[31mred");
	xml("\x0b\x0c", false, FFFD FFFD);
	check_xml("a\0b", 3, false, "a" FFFD "b"); /* NUL */
	/* U+FFFE and U+FFFF are not XML characters. */
	xml("x\xEF\xBF\xBEy", false, "x" FFFD "y");
	xml("x\xEF\xBF\xBFy", false, "x" FFFD "y");
}

static void test_xml_invalid_utf8_replaced(void **state)
{
	(void)state;
	xml("caf\xE9", false, "caf" FFFD);                 /* Latin-1 */
	xml("\xFF\xFE", false, FFFD FFFD);
	xml("\x80x", false, FFFD "x");                     /* lone continuation */
	xml("\xC0\x80", false, FFFD FFFD);                 /* overlong NUL */
	xml("\xE0\x80\xAF", false, FFFD FFFD FFFD);        /* overlong '/' */
	xml("\xED\xA0\x80", false, FFFD FFFD FFFD);        /* UTF-16 surrogate */
	xml("\xF4\x90\x80\x80", false, FFFD FFFD FFFD FFFD); /* past U+10FFFF */
	xml("\xF8\x88\x80\x80\x80", false, FFFD FFFD FFFD FFFD FFFD);
	/* Truncated sequences, at the end and before other text. */
	xml("ab\xE2\x82", false, "ab" FFFD FFFD);
	xml("\xE2\x82<", false, FFFD FFFD "&lt;");
	xml("\xF0\x9F\x94", true, FFFD FFFD FFFD);
	/* len is respected: a valid sequence cut by len is invalid. */
	check_xml("\xC3\xA9", 1, false, FFFD);
}

static void test_xml_write_str(void **state)
{
	(void)state;
	struct mem m;
	fk_xml_write_str(mem_open(&m), "<a href=\"x\">\x01</a>", true);
	char *got = mem_close(&m);
	assert_string_equal(got, "&lt;a href=&quot;x&quot;&gt;" FFFD "&lt;/a&gt;");
	free(got);
}

/* ---- fk_json_string ----------------------------------------------------- */

static void test_json_escapes(void **state)
{
	(void)state;
	check_json("", "\"\"");
	check_json("Function:", "\"Function:\"");
	check_json("a\"b\\c", "\"a\\\"b\\\\c\"");
	check_json("tab\there\nnl", "\"tab\\u0009here\\u000anl\"");
	check_json("\x01\x1f", "\"\\u0001\\u001f\"");
	check_json("café 日本語 🔥", "\"café 日本語 🔥\"");
	check_json("caf\xE9", "\"caf\\ufffd\"");
	check_json("\xEF\xBF\xBF", "\"\\ufffd\"");
	check_json("/", "\"/\"");
}

static void test_json_safe_in_script(void **state)
{
	(void)state;
	check_json("<>&", "\"\\u003c\\u003e\\u0026\"");
	const char *nasty[] = {
		"]]>", "</script><script>alert(1)</script>", "a]]>b&c<d>e", "<!--", "]]]]>>",
		"&amp;", "\xE2\x80\xA8<", "<\xFF>",
	};
	for (size_t i = 0; i < sizeof nasty / sizeof *nasty; i++) {
		char *got = json(nasty[i]);
		assert_null(strchr(got, '<'));
		assert_null(strchr(got, '>'));
		assert_null(strchr(got, '&'));
		assert_null(strstr(got, "]]>"));
		assert_true(got[0] == '"' && got[strlen(got) - 1] == '"');
		free(got);
	}
}

/* ---- number formats ----------------------------------------------------- */

/* Perl 5.36 stringification of the same doubles: perl -e 'print "$x"'
 * for NV values (1e15, 1/3, ...); Perl prints -0.0 as "0". */
static const struct {
	double v;
	const char *text;
} perl_numbers[] = {
	{ 0, "0" },
	{ 3, "3" },
	{ 17.5, "17.5" },
	{ -2.5, "-2.5" },
	{ 0.30000000000000004, "0.3" },
	{ 1.0 / 3, "0.333333333333333" },
	{ 2.0 / 3, "0.666666666666667" },
	{ 1e-5, "1e-05" },
	{ 0.0001, "0.0001" },
	{ 1234567.25, "1234567.25" },
	{ 1e15, "1e+15" },
	{ 1e16, "1e+16" },
	{ 123456789012345678.0, "1.23456789012346e+17" },
	{ 99999999999999.9, "99999999999999.9" },
	{ 1e100, "1e+100" },
	{ 9007199254740992.0, "9.00719925474099e+15" },
};

static void test_perl_number(void **state)
{
	(void)state;
	char buf[64];
	for (size_t i = 0; i < sizeof perl_numbers / sizeof *perl_numbers; i++) {
		fk_perl_number(perl_numbers[i].v, buf, sizeof buf);
		assert_string_equal(buf, perl_numbers[i].text);
	}
	fk_perl_number(-0.0, buf, sizeof buf);
	assert_string_equal(buf, "0");
	double negzero = -1e-300 * 1e-300; /* underflows to -0.0 */
	fk_perl_number(negzero, buf, sizeof buf);
	assert_string_equal(buf, "0");
}

static void commas(const char *in, const char *want)
{
	char buf[64];
	fk_commas(in, buf, sizeof buf);
	assert_string_equal(buf, want);
}

static void test_commas(void **state)
{
	(void)state;
	/* flamegraph.pl's s/(^[-+]?\d+?(?=(?>(?:\d{3})+)(?!\d))|\G\d{3}(?=\d))/$1,/g
	 * on sprintf("%.0f") text, run in Perl. */
	commas("1234567", "1,234,567");
	commas("-1234", "-1,234");
	commas("999", "999");
	commas("1000", "1,000");
	commas("0", "0");
	commas("12", "12");
	commas("-999", "-999");
	commas("-1000", "-1,000");
	commas("+1000", "+1,000");
	commas("100000", "100,000");
	commas("18446744073709551616", "18,446,744,073,709,551,616");
	/* A small buffer truncates, still NUL-terminated. */
	char small[6];
	memset(small, 'x', sizeof small);
	fk_commas("1234567", small, sizeof small);
	assert_true(strlen(small) < sizeof small);
	assert_memory_equal(small, "1,234", strlen(small));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_xml_plain_text),
		cmocka_unit_test(test_xml_entities),
		cmocka_unit_test(test_xml_valid_utf8_kept),
		cmocka_unit_test(test_xml_whitespace_kept),
		cmocka_unit_test(test_xml_control_chars_replaced),
		cmocka_unit_test(test_xml_invalid_utf8_replaced),
		cmocka_unit_test(test_xml_write_str),
		cmocka_unit_test(test_json_escapes),
		cmocka_unit_test(test_json_safe_in_script),
		cmocka_unit_test(test_perl_number),
		cmocka_unit_test(test_commas),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
