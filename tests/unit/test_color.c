/* test_color.c - render/color.h: flamegraph.pl's frame colours.
 *
 * Covers fk_rand (Perl's drand48, against `perl -e 'srand(S); rand()'`),
 * fk_color_of_name in every palette and in the default (name-seeded) and
 * --hash modes against colours flamegraph.pl drew, the java/js/perl/chain
 * multi-palette rules, non-ASCII names, --random's use of the generator,
 * fk_namehash against flamegraph.pl's namehash(), fk_color_of_delta against
 * its color_scale(), and the palette name/background helpers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <setjmp.h>
#include <cmocka.h>

#include "render/color.h"

static void assert_rgb(struct fk_rgb got, int r, int g, int b, const char *what)
{
	if (got.r != r || got.g != g || got.b != b)
		print_error("%s: got rgb(%d,%d,%d), want rgb(%d,%d,%d)\n", what, got.r, got.g,
			    got.b, r, g, b);
	assert_int_equal(got.r, r);
	assert_int_equal(got.g, g);
	assert_int_equal(got.b, b);
}

static struct fk_rgb name_color(enum fk_palette pal, enum fk_color_mode mode, const char *name)
{
	return fk_color_of_name(pal, mode, name, strlen(name), NULL);
}

/* ---- fk_rand ------------------------------------------------------------ */

/* From perl 5.36: perl -e 'srand(S); printf "%.17g %.17g %.17g\n", rand(), rand(), rand()' */
static const struct {
	uint32_t seed;
	double v[3];
} perl_rand[] = {
	{ 0, { 0.17082803610628972, 0.74990198048496381, 0.09637165562356742 } },
	{ 1, { 0.041630344771878214, 0.45449244472862915, 0.8348172181669149 } },
	{ 42, { 0.74452500006100664, 0.34270147871890799, 0.11108528244416149 } },
	{ 12345, { 0.22532851279629895, 0.91918306853355602, 0.20684125324818226 } },
	{ 4294967295u, { 0.30002572744070122, 0.045311516241298477, 0.35792609308021994 } },
};

static void test_rand_matches_perl(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof perl_rand / sizeof *perl_rand; i++) {
		struct fk_rand r;
		fk_rand_seed(&r, perl_rand[i].seed);
		for (int k = 0; k < 3; k++)
			assert_true(fk_rand_next(&r) == perl_rand[i].v[k]);
	}
	/* Reseeding starts the same sequence again. */
	struct fk_rand r;
	fk_rand_seed(&r, 42);
	fk_rand_next(&r);
	fk_rand_seed(&r, 42);
	assert_true(fk_rand_next(&r) == 0.74452500006100664);
	/* Values stay in [0, 1). */
	fk_rand_seed(&r, 7);
	for (int k = 0; k < 10000; k++) {
		double v = fk_rand_next(&r);
		assert_true(v >= 0.0 && v < 1.0);
	}
}

/* ---- fk_color_of_name ----------------------------------------------------- */

/* Colours flamegraph.pl drew: for each row, `printf 'NAME 1000\n' | perl
 * flamegraph.pl --colors PALETTE [--hash]`, then the fill of the frame whose
 * <title> starts with NAME (annotation stripped). Columns: name, palette,
 * default colour, --hash colour. */
static const struct {
	const char *name;
	enum fk_palette pal;
	uint8_t def[3], hash[3];
} perl_colors[] = {
	{ "foo", FK_PAL_HOT, { 220, 71, 17 }, { 247, 199, 47 } },
	{ "foo", FK_PAL_MEM, { 0, 205, 65 }, { 0, 232, 181 } },
	{ "foo", FK_PAL_IO, { 98, 98, 207 }, { 131, 131, 237 } },
	{ "foo", FK_PAL_WAKEUP, { 68, 182, 182 }, { 101, 212, 212 } },
	{ "foo", FK_PAL_CHAIN, { 98, 98, 220 }, { 131, 131, 248 } },
	{ "foo", FK_PAL_JAVA, { 217, 74, 74 }, { 247, 119, 119 } },
	{ "foo", FK_PAL_JS, { 217, 74, 74 }, { 247, 119, 119 } },
	{ "foo", FK_PAL_PERL, { 217, 74, 74 }, { 247, 119, 119 } },
	{ "foo", FK_PAL_RED, { 217, 74, 74 }, { 247, 119, 119 } },
	{ "foo", FK_PAL_GREEN, { 68, 217, 68 }, { 101, 247, 101 } },
	{ "foo", FK_PAL_BLUE, { 98, 98, 220 }, { 131, 131, 248 } },
	{ "foo", FK_PAL_AQUA, { 68, 182, 182 }, { 101, 212, 212 } },
	{ "foo", FK_PAL_YELLOW, { 192, 192, 56 }, { 222, 222, 67 } },
	{ "foo", FK_PAL_PURPLE, { 210, 98, 210 }, { 246, 131, 246 } },
	{ "foo", FK_PAL_ORANGE, { 210, 110, 0 }, { 246, 146, 0 } },
	{ "café", FK_PAL_HOT, { 233, 130, 31 }, { 245, 93, 44 } },
	{ "café", FK_PAL_MEM, { 0, 218, 119 }, { 0, 230, 85 } },
	{ "café", FK_PAL_IO, { 114, 114, 221 }, { 104, 104, 234 } },
	{ "café", FK_PAL_WAKEUP, { 84, 196, 196 }, { 74, 187, 187 } },
	{ "café", FK_PAL_CHAIN, { 114, 114, 233 }, { 104, 104, 225 } },
	{ "café", FK_PAL_JAVA, { 231, 95, 95 }, { 222, 82, 82 } },
	{ "café", FK_PAL_JS, { 231, 95, 95 }, { 222, 82, 82 } },
	{ "café", FK_PAL_PERL, { 231, 95, 95 }, { 222, 82, 82 } },
	{ "café", FK_PAL_RED, { 231, 95, 95 }, { 222, 82, 82 } },
	{ "café", FK_PAL_GREEN, { 84, 231, 84 }, { 74, 222, 74 } },
	{ "café", FK_PAL_BLUE, { 114, 114, 233 }, { 104, 104, 225 } },
	{ "café", FK_PAL_AQUA, { 84, 196, 196 }, { 74, 187, 187 } },
	{ "café", FK_PAL_YELLOW, { 206, 206, 61 }, { 197, 197, 58 } },
	{ "café", FK_PAL_PURPLE, { 226, 114, 226 }, { 216, 104, 216 } },
	{ "café", FK_PAL_ORANGE, { 226, 126, 0 }, { 216, 116, 0 } },
	{ "native_write_msr_safe_[k]", FK_PAL_HOT, { 249, 206, 49 }, { 236, 158, 34 } },
	{ "java/lang/Thread.run", FK_PAL_HOT, { 229, 114, 27 }, { 243, 104, 41 } },
	{ "Ljava/util/HashMap.get", FK_PAL_HOT, { 215, 49, 11 }, { 237, 143, 35 } },
	{ "org/foo:::bar", FK_PAL_HOT, { 227, 105, 25 }, { 236, 179, 34 } },
	{ "std::vector::push_back", FK_PAL_HOT, { 221, 75, 18 }, { 242, 146, 40 } },
	{ "do_syscall_64_[k]", FK_PAL_HOT, { 215, 50, 12 }, { 236, 189, 34 } },
	{ "Interpreter_[i]", FK_PAL_HOT, { 211, 32, 7 }, { 238, 180, 36 } },
	{ "compiled_[j]", FK_PAL_HOT, { 217, 59, 14 }, { 237, 149, 35 } },
	{ "main", FK_PAL_HOT, { 243, 179, 42 }, { 247, 83, 46 } },
	{ "Perl_pp_entersub", FK_PAL_HOT, { 252, 219, 52 }, { 228, 200, 25 } },
	{ "foo.pl", FK_PAL_HOT, { 252, 217, 51 }, { 231, 199, 29 } },
	{ "/home/app/index.js", FK_PAL_HOT, { 246, 190, 45 }, { 231, 139, 29 } },
	{ "node:internal/timers", FK_PAL_HOT, { 233, 132, 31 }, { 238, 212, 36 } },
	{ "LazyCompile:~foo /app/x.js_[j]", FK_PAL_HOT, { 214, 41, 10 }, { 237, 130, 35 } },
	{ "Builtin:Foo_[j]", FK_PAL_HOT, { 219, 65, 15 }, { 237, 117, 35 } },
	{ "mod`func", FK_PAL_HOT, { 211, 29, 7 }, { 253, 172, 53 } },
	{ "waker_[w]", FK_PAL_HOT, { 217, 55, 13 }, { 235, 77, 33 } },
	{ "日本語", FK_PAL_HOT, { 253, 223, 53 }, { 237, 178, 35 } },
	{ "a`b`c", FK_PAL_HOT, { 224, 87, 20 }, { 231, 115, 29 } },
	{ "`foo", FK_PAL_HOT, { 250, 208, 49 }, { 255, 157, 55 } },
	{ "``x", FK_PAL_HOT, { 248, 198, 47 }, { 238, 230, 36 } },
	{ "io/netty/Channel.read", FK_PAL_HOT, { 206, 6, 1 }, { 241, 149, 40 } },
	{ "Lorg/apache/Foo.bar", FK_PAL_HOT, { 226, 98, 23 }, { 236, 157, 34 } },
	{ "Lfoo/Bar", FK_PAL_HOT, { 236, 145, 34 }, { 233, 157, 31 } },
	{ "sun/misc/Unsafe.park", FK_PAL_HOT, { 216, 54, 12 }, { 237, 148, 35 } },
	{ "x_[j]_[i]", FK_PAL_HOT, { 220, 72, 17 }, { 238, 172, 36 } },
	{ "kernel_[k]_foo", FK_PAL_HOT, { 222, 80, 19 }, { 247, 144, 47 } },
	{ "Perl_runops_standard", FK_PAL_HOT, { 212, 32, 7 }, { 249, 200, 49 } },
	{ "script.pl", FK_PAL_HOT, { 225, 93, 22 }, { 231, 170, 29 } },
	{ "/lib/a::b.js", FK_PAL_HOT, { 213, 38, 9 }, { 231, 99, 29 } },
	{ "x.js/y", FK_PAL_HOT, { 228, 107, 25 }, { 245, 187, 44 } },
	{ "bar:baz", FK_PAL_HOT, { 244, 183, 43 }, { 240, 101, 38 } },
	{ "zz_[k]z", FK_PAL_HOT, { 205, 3, 0 }, { 238, 173, 36 } },
	{ "ab", FK_PAL_HOT, { 253, 224, 53 }, { 226, 104, 24 } },
	{ "é", FK_PAL_HOT, { 208, 15, 3 }, { 246, 191, 45 } },
	{ "🔥fire", FK_PAL_HOT, { 229, 112, 26 }, { 242, 161, 41 } },
	{ "java/lang/Thread.run", FK_PAL_JAVA, { 79, 227, 79 }, { 77, 224, 77 } },
	{ "Ljava/util/HashMap.get", FK_PAL_JAVA, { 62, 211, 62 }, { 87, 234, 87 } },
	{ "org/foo:::bar", FK_PAL_JAVA, { 77, 225, 77 }, { 96, 242, 96 } },
	{ "std::vector::push_back", FK_PAL_JAVA, { 193, 193, 56 }, { 210, 210, 62 } },
	{ "do_syscall_64_[k]", FK_PAL_JAVA, { 204, 104, 0 }, { 243, 143, 0 } },
	{ "Interpreter_[i]", FK_PAL_JAVA, { 58, 172, 172 }, { 97, 208, 208 } },
	{ "compiled_[j]", FK_PAL_JAVA, { 65, 214, 65 }, { 89, 235, 89 } },
	{ "main", FK_PAL_JAVA, { 242, 112, 112 }, { 219, 79, 79 } },
	{ "io/netty/Channel.read", FK_PAL_JAVA, { 51, 201, 51 }, { 89, 235, 89 } },
	{ "Lorg/apache/Foo.bar", FK_PAL_JAVA, { 75, 223, 75 }, { 91, 237, 91 } },
	{ "Lfoo/Bar", FK_PAL_JAVA, { 234, 100, 100 }, { 237, 104, 104 } },
	{ "sun/misc/Unsafe.park", FK_PAL_JAVA, { 64, 212, 64 }, { 88, 235, 88 } },
	{ "x_[j]_[i]", FK_PAL_JAVA, { 68, 182, 182 }, { 94, 206, 206 } },
	{ "kernel_[k]_foo", FK_PAL_JAVA, { 219, 78, 78 }, { 234, 100, 100 } },
	{ "compiled_[j]", FK_PAL_JS, { 65, 179, 179 }, { 89, 200, 200 } },
	{ "LazyCompile:~foo /app/x.js_[j]", FK_PAL_JS, { 60, 210, 60 }, { 83, 231, 83 } },
	{ "Builtin:Foo_[j]", FK_PAL_JS, { 67, 180, 180 }, { 80, 193, 193 } },
	{ "std::vector::push_back", FK_PAL_JS, { 193, 193, 56 }, { 210, 210, 62 } },
	{ "/home/app/index.js", FK_PAL_JS, { 99, 245, 99 }, { 86, 233, 86 } },
	{ "node:internal/timers", FK_PAL_JS, { 84, 196, 196 }, { 105, 215, 215 } },
	{ "/lib/a::b.js", FK_PAL_JS, { 184, 184, 53 }, { 198, 198, 58 } },
	{ "x.js/y", FK_PAL_JS, { 225, 87, 87 }, { 244, 115, 115 } },
	{ "bar:baz", FK_PAL_JS, { 97, 208, 208 }, { 76, 189, 189 } },
	{ "kernel_[k]_foo", FK_PAL_JS, { 212, 112, 0 }, { 230, 130, 0 } },
	{ "zz_[k]z", FK_PAL_JS, { 190, 90, 0 }, { 239, 139, 0 } },
	{ "do_syscall_64_[k]", FK_PAL_JS, { 204, 104, 0 }, { 243, 143, 0 } },
	{ "main", FK_PAL_JS, { 242, 112, 112 }, { 219, 79, 79 } },
	{ "std::vector::push_back", FK_PAL_PERL, { 193, 193, 56 }, { 210, 210, 62 } },
	{ "Perl_pp_entersub", FK_PAL_PERL, { 107, 252, 107 }, { 102, 247, 102 } },
	{ "foo.pl", FK_PAL_PERL, { 106, 251, 106 }, { 101, 247, 101 } },
	{ "script.pl", FK_PAL_PERL, { 74, 222, 74 }, { 94, 240, 94 } },
	{ "do_syscall_64_[k]", FK_PAL_PERL, { 204, 104, 0 }, { 243, 143, 0 } },
	{ "main", FK_PAL_PERL, { 242, 112, 112 }, { 219, 79, 79 } },
	{ "Perl_runops_standard", FK_PAL_PERL, { 58, 207, 58 }, { 102, 247, 102 } },
	{ "waker_[w]", FK_PAL_CHAIN, { 64, 178, 178 }, { 70, 183, 183 } },
	{ "native_write_msr_safe_[k]", FK_PAL_CHAIN, { 133, 133, 249 }, { 121, 121, 239 } },
	{ "main", FK_PAL_CHAIN, { 126, 126, 243 }, { 101, 101, 223 } },
};

static void test_colors_match_flamegraph_pl(void **state)
{
	(void)state;
	char what[256];
	for (size_t i = 0; i < sizeof perl_colors / sizeof *perl_colors; i++) {
		const char *n = perl_colors[i].name;
		enum fk_palette p = perl_colors[i].pal;
		snprintf(what, sizeof what, "'%s' --colors %s", n, fk_palette_name(p));
		const uint8_t *d = perl_colors[i].def, *h = perl_colors[i].hash;
		assert_rgb(name_color(p, FK_COLOR_NAME, n), d[0], d[1], d[2], what);
		snprintf(what, sizeof what, "'%s' --colors %s --hash", n, fk_palette_name(p));
		assert_rgb(name_color(p, FK_COLOR_HASH, n), h[0], h[1], h[2], what);
	}
}

static void test_color_special_names(void **state)
{
	(void)state;
	/* The brief's two reference points (flamegraph.pl, hot). */
	assert_rgb(name_color(FK_PAL_HOT, FK_COLOR_NAME, "café"), 233, 130, 31, "café");
	assert_rgb(name_color(FK_PAL_HOT, FK_COLOR_NAME, "native_write_msr_safe_[k]"),
		   249, 206, 49, "native_write_msr_safe_[k]");
	/* The root's name is "": its fill in `printf ' 1000\n' | perl
	 * flamegraph.pl [--hash] [--colors js]` (the "all" frame). */
	assert_rgb(name_color(FK_PAL_HOT, FK_COLOR_NAME, ""), 213, 39, 9, "'' hot");
	assert_rgb(name_color(FK_PAL_HOT, FK_COLOR_HASH, ""), 255, 230, 55, "'' hot --hash");
	assert_rgb(name_color(FK_PAL_JS, FK_COLOR_NAME, ""), 209, 63, 63, "'' js");
	assert_rgb(name_color(FK_PAL_JS, FK_COLOR_HASH, ""), 255, 130, 130, "'' js --hash");
	/* js: a frame that is a single space is a missing symbol (green):
	 * `printf '  1000\n' | perl flamegraph.pl --colors js [--hash]`. */
	assert_rgb(name_color(FK_PAL_JS, FK_COLOR_NAME, " "), 52, 202, 52, "' ' js");
	assert_rgb(name_color(FK_PAL_JS, FK_COLOR_HASH, " "), 103, 248, 103, "' ' js --hash");
	/* Only len bytes are the name. */
	struct fk_rgb a = fk_color_of_name(FK_PAL_HOT, FK_COLOR_NAME, "café;more", 5, NULL);
	assert_rgb(a, 233, 130, 31, "café (len 5)");
}

static void test_color_invalid_utf8(void **state)
{
	(void)state;
	/* flamegraph.pl dies on invalid UTF-8; flamekit reads each bad byte as
	 * the code point of the same value (utf8.h), so Latin-1 "caf\xe9"
	 * colours like "café" (U+00E9). */
	assert_rgb(name_color(FK_PAL_HOT, FK_COLOR_NAME, "caf\xe9"), 233, 130, 31, "caf\\xe9");
	assert_rgb(name_color(FK_PAL_HOT, FK_COLOR_HASH, "caf\xe9"), 245, 93, 44, "caf\\xe9 --hash");
}

static void test_multi_palette_rules(void **state)
{
	(void)state;
	/* The palette a rule picks shows in the colour's shape: green has
	 * r == b < g, aqua g == b > r, yellow r == g > b, orange b == 0,
	 * red g == b < r, blue r == g < b. */
	struct fk_rgb c;
	c = name_color(FK_PAL_JAVA, FK_COLOR_NAME, "Lcom/x/Y.z");
	assert_true(c.r == c.b && c.g > c.r);                 /* green: Java package */
	c = name_color(FK_PAL_JAVA, FK_COLOR_NAME, "a::b_[k]");
	assert_true(c.r == c.g && c.b < c.r);                 /* yellow: "::" before _[k] */
	c = name_color(FK_PAL_JAVA, FK_COLOR_NAME, "x_[i]");
	assert_true(c.g == c.b && c.r < c.g);                 /* aqua: inlined */
	c = name_color(FK_PAL_JAVA, FK_COLOR_NAME, "x_[k]");
	assert_int_equal(c.b, 0);                             /* orange: kernel */
	c = name_color(FK_PAL_JAVA, FK_COLOR_NAME, "javaish/x");
	assert_true(c.g == c.b && c.r > c.g);                 /* red: not a package */
	c = name_color(FK_PAL_JS, FK_COLOR_NAME, "x_[j]");
	assert_true(c.g == c.b && c.r < c.g);                 /* aqua: JIT builtin */
	c = name_color(FK_PAL_JS, FK_COLOR_NAME, "/x_[j]");
	assert_true(c.r == c.b && c.g > c.r);                 /* green: JIT with a path */
	c = name_color(FK_PAL_JS, FK_COLOR_NAME, "k_[k]x");
	assert_int_equal(c.b, 0);                             /* orange: _[k] anywhere */
	c = name_color(FK_PAL_PERL, FK_COLOR_NAME, "a.pl_[k]");
	assert_true(c.r == c.b && c.g > c.r);                 /* green: ".pl" first */
	c = name_color(FK_PAL_PERL, FK_COLOR_NAME, "x_[k]");
	assert_int_equal(c.b, 0);                             /* orange */
	c = name_color(FK_PAL_CHAIN, FK_COLOR_NAME, "a_[w]b");
	assert_true(c.g == c.b && c.r < c.g);                 /* aqua: waker */
	c = name_color(FK_PAL_CHAIN, FK_COLOR_NAME, "a");
	assert_true(c.r == c.g && c.b > c.r);                 /* blue: off-CPU */
	c = name_color(FK_PAL_WAKEUP, FK_COLOR_NAME, "a");
	assert_true(c.g == c.b && c.r < c.g);                 /* aqua */
	/* Name-seeded colours depend only on the sum of code points. */
	struct fk_rgb x = name_color(FK_PAL_HOT, FK_COLOR_NAME, "ab");
	struct fk_rgb y = name_color(FK_PAL_HOT, FK_COLOR_NAME, "ba");
	assert_true(x.r == y.r && x.g == y.g && x.b == y.b);
}

static void test_random_mode(void **state)
{
	(void)state;
	/* --random: v1, v2, v3 are the next three values of the generator.
	 * With srand(42) Perl's rand() gives 0.7445.., 0.3427.., 0.1110..; hot
	 * is rgb(205 + int(50 v3), int(230 v1), int(55 v2)) = rgb(210,171,18). */
	struct fk_rand r;
	fk_rand_seed(&r, 42);
	struct fk_rgb c = fk_color_of_name(FK_PAL_HOT, FK_COLOR_RANDOM, "x", 1, &r);
	assert_rgb(c, 210, 171, 18, "random hot");
	/* Three values were used: the next one is the fourth of the sequence. */
	struct fk_rand ref;
	fk_rand_seed(&ref, 42);
	for (int k = 0; k < 3; k++)
		fk_rand_next(&ref);
	assert_true(fk_rand_next(&r) == fk_rand_next(&ref));
}

/* ---- fk_namehash --------------------------------------------------------- */

/* flamegraph.pl's namehash() run in Perl (with `use utf8` and its
 * `use open qw(:std :utf8)`) on NAME and on `scalar reverse NAME`. */
static const struct {
	const char *name;
	double fwd, rev;
} perl_namehash[] = {
	{ "foo", 0.86650201070263766, 0.85944080301447068 },
	{ "", 1, 1 },
	{ "a", 0.61111111111111116, 0.61111111111111116 },
	{ "café", 0.40524365916215455, 0.81571197872138312 },
	{ "mod`func", 0.74880466103036647, 0.96409233399829009 },
	{ "a`b`c", 0.50391057914568882, 0.53183876381368544 },
	{ "`foo", 0.68329058611190274, 1 },
	{ "日本語", 0.7759728950951521, 0.64339317944333629 },
	{ "abcdef", 0.49485450112409357, 0.83059434470092774 },
};

static void test_namehash_matches_perl(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof perl_namehash / sizeof *perl_namehash; i++) {
		const char *n = perl_namehash[i].name;
		double f = fk_namehash(n, strlen(n), false);
		double r = fk_namehash(n, strlen(n), true);
		if (f != perl_namehash[i].fwd || r != perl_namehash[i].rev)
			print_error("namehash('%s'): %.17g %.17g\n", n, f, r);
		assert_true(f == perl_namehash[i].fwd);
		assert_true(r == perl_namehash[i].rev);
	}
}

/* ---- fk_color_of_delta --------------------------------------------------- */

/* flamegraph.pl's color_scale($delta, $maxdelta) (with $negate), run in Perl. */
static const struct {
	double delta, max;
	bool negate;
	uint8_t rgb[3];
} perl_scale[] = {
	{ 5, 10, false, { 255, 105, 105 } },
	{ -5, 10, false, { 105, 105, 255 } },
	{ 0, 10, false, { 255, 255, 255 } },
	{ 5, 10, true, { 105, 105, 255 } },
	{ 10, 10, false, { 255, 0, 0 } },
	{ -10, 10, false, { 0, 0, 255 } },
	{ 1, 7, false, { 255, 180, 180 } },
	{ 0.3, 1.7, false, { 255, 172, 172 } },
	{ -1.1, 2.2, false, { 105, 105, 255 } },
	{ 1, 3, false, { 255, 140, 140 } },
	{ 2, 3, false, { 255, 70, 70 } },
	{ 0.1, 1, false, { 255, 189, 189 } },
	{ -0.1, 1, true, { 255, 189, 189 } },
	{ -3, 7, true, { 255, 120, 120 } },
};

static void test_color_of_delta(void **state)
{
	(void)state;
	char what[64];
	for (size_t i = 0; i < sizeof perl_scale / sizeof *perl_scale; i++) {
		snprintf(what, sizeof what, "delta %g max %g negate %d", perl_scale[i].delta,
			 perl_scale[i].max, perl_scale[i].negate);
		assert_rgb(fk_color_of_delta(perl_scale[i].delta, perl_scale[i].max, perl_scale[i].negate),
			   perl_scale[i].rgb[0], perl_scale[i].rgb[1], perl_scale[i].rgb[2], what);
	}
	/* No change is white, negated or not. */
	assert_rgb(fk_color_of_delta(0, 1, true), 255, 255, 255, "zero negated");
}

/* ---- palettes ------------------------------------------------------------ */

static void test_palette_names(void **state)
{
	(void)state;
	static const char *const names[] = { "hot", "mem", "io", "wakeup", "chain", "java", "js",
					     "perl", "red", "green", "blue", "aqua", "yellow",
					     "purple", "orange" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		enum fk_palette p;
		assert_true(fk_palette_parse(names[i], &p));
		assert_string_equal(fk_palette_name(p), names[i]);
	}
	enum fk_palette p = FK_PAL_MEM;
	assert_false(fk_palette_parse("Hot", &p));
	assert_false(fk_palette_parse("", &p));
	assert_false(fk_palette_parse("hotter", &p));
	assert_false(fk_palette_parse("grey", &p));
	assert_int_equal(p, FK_PAL_MEM); /* untouched on failure */
}

static void test_palette_default_bg(void **state)
{
	(void)state;
	/* flamegraph.pl: mem green; io, wakeup, chain blue; flat colours grey;
	 * everything else (hot, java, js, perl) yellow. */
	assert_string_equal(fk_palette_default_bg(FK_PAL_HOT), "yellow");
	assert_string_equal(fk_palette_default_bg(FK_PAL_JAVA), "yellow");
	assert_string_equal(fk_palette_default_bg(FK_PAL_JS), "yellow");
	assert_string_equal(fk_palette_default_bg(FK_PAL_PERL), "yellow");
	assert_string_equal(fk_palette_default_bg(FK_PAL_MEM), "green");
	assert_string_equal(fk_palette_default_bg(FK_PAL_IO), "blue");
	assert_string_equal(fk_palette_default_bg(FK_PAL_WAKEUP), "blue");
	assert_string_equal(fk_palette_default_bg(FK_PAL_CHAIN), "blue");
	enum fk_palette flat[] = { FK_PAL_RED, FK_PAL_GREEN, FK_PAL_BLUE, FK_PAL_AQUA,
				   FK_PAL_YELLOW, FK_PAL_PURPLE, FK_PAL_ORANGE };
	for (size_t i = 0; i < sizeof flat / sizeof *flat; i++)
		assert_string_equal(fk_palette_default_bg(flat[i]), "grey");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rand_matches_perl),
		cmocka_unit_test(test_colors_match_flamegraph_pl),
		cmocka_unit_test(test_color_special_names),
		cmocka_unit_test(test_color_invalid_utf8),
		cmocka_unit_test(test_multi_palette_rules),
		cmocka_unit_test(test_random_mode),
		cmocka_unit_test(test_namehash_matches_perl),
		cmocka_unit_test(test_color_of_delta),
		cmocka_unit_test(test_palette_names),
		cmocka_unit_test(test_palette_default_bg),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
