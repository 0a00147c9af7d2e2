/* color.c - flamegraph.pl-compatible frame colours (see color.h). */
#include "render/color.h"

#include <stdlib.h>
#include <string.h>

#include "render/utf8.h"

void fk_rand_seed(struct fk_rand *r, uint32_t seed)
{
	r->x = ((uint64_t)seed << 16) + 0x330E;
}

double fk_rand_next(struct fk_rand *r)
{
	r->x = (r->x * 0x5DEECE66Dull + 0xB) & 0xFFFFFFFFFFFFull;
	return (double)r->x / 281474976710656.0; /* 2^48 */
}

static const char *const palette_names[] = {
	"hot", "mem", "io", "wakeup", "chain", "java", "js", "perl", "red", "green",
	"blue", "aqua", "yellow", "purple", "orange", "torchmem",
};

bool fk_palette_parse(const char *name, enum fk_palette *out)
{
	for (size_t i = 0; i < sizeof palette_names / sizeof *palette_names; i++)
		if (strcmp(name, palette_names[i]) == 0) {
			*out = (enum fk_palette)i;
			return true;
		}
	return false;
}

const char *fk_palette_name(enum fk_palette p)
{
	return palette_names[p];
}

const char *fk_palette_default_bg(enum fk_palette p)
{
	switch (p) {
	case FK_PAL_MEM: case FK_PAL_TORCHMEM: return "green";
	case FK_PAL_IO: case FK_PAL_WAKEUP: case FK_PAL_CHAIN: return "blue";
	case FK_PAL_RED: case FK_PAL_GREEN: case FK_PAL_BLUE: case FK_PAL_AQUA:
	case FK_PAL_YELLOW: case FK_PAL_PURPLE: case FK_PAL_ORANGE: return "grey";
	default: return "yellow";
	}
}

/* Code points of a name; invalid bytes count as their byte value. */
static uint32_t *decode(const char *name, size_t len, size_t *n)
{
	uint32_t *cps = malloc((len ? len : 1) * sizeof *cps);
	size_t k = 0;
	bool valid;
	if (cps)
		for (size_t i = 0; i < len;)
			cps[k++] = fk_utf8_next(name, len, &i, &valid);
	*n = k;
	return cps;
}

static double namehash_cps(const uint32_t *cps, size_t n)
{
	/* A module prefix "mod`func" is dropped: the backtick must not be first. */
	size_t start = 0;
	for (size_t i = 1; i < n; i++)
		if (cps[i] == '`') {
			start = i + 1;
			break;
		}
	double vector = 0, weight = 1, max = 1;
	unsigned mod = 10;
	for (size_t i = start; i < n && mod <= 12; i++, mod++) {
		vector += (double)(cps[i] % mod) / (double)(mod - 1) * weight;
		max += weight;
		weight *= 0.70;
	}
	return 1 - vector / max;
}

double fk_namehash(const char *name, size_t len, bool reversed)
{
	size_t n;
	uint32_t *cps = decode(name, len, &n);
	if (!cps)
		return 0;
	if (reversed)
		for (size_t i = 0; i < n / 2; i++) {
			uint32_t t = cps[i];
			cps[i] = cps[n - 1 - i];
			cps[n - 1 - i] = t;
		}
	double v = namehash_cps(cps, n);
	free(cps);
	return v;
}

/* The same seed for every frame with this name: sum of its code points. */
static double name_seeded(const char *name, size_t len)
{
	uint32_t sum = 0;
	bool valid;
	for (size_t i = 0; i < len;)
		sum += fk_utf8_next(name, len, &i, &valid);
	struct fk_rand r;
	fk_rand_seed(&r, sum);
	return fk_rand_next(&r);
}

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);
	return len >= n && memcmp(s + len - n, suffix, n) == 0;
}

static bool contains(const char *s, size_t len, const char *needle)
{
	return memmem(s, len, needle, strlen(needle)) != NULL;
}

static bool java_package(const char *s, size_t len)
{
	static const char *const pkgs[] = { "java/", "javax/", "jdk/", "net/", "org/", "com/", "io/", "sun/" };
	if (len > 0 && s[0] == 'L')
		s++, len--;
	for (size_t i = 0; i < sizeof pkgs / sizeof *pkgs; i++)
		if (len >= strlen(pkgs[i]) && memcmp(s, pkgs[i], strlen(pkgs[i])) == 0)
			return true;
	return false;
}

/* "/" followed somewhere later by ".js" */
static bool js_path(const char *s, size_t len)
{
	const char *slash = memchr(s, '/', len);
	return slash && memmem(slash + 1, len - (size_t)(slash + 1 - s), ".js", 3);
}

/* Multi palettes pick a basic palette per name, from annotations and shape. */
static enum fk_palette resolve(enum fk_palette pal, const char *s, size_t len)
{
	switch (pal) {
	case FK_PAL_JAVA:
		if (ends_with(s, len, "_[j]")) return FK_PAL_GREEN;
		if (ends_with(s, len, "_[i]")) return FK_PAL_AQUA;
		if (java_package(s, len)) return FK_PAL_GREEN;
		if (contains(s, len, ":::")) return FK_PAL_GREEN;
		if (contains(s, len, "::")) return FK_PAL_YELLOW;
		if (ends_with(s, len, "_[k]")) return FK_PAL_ORANGE;
		return FK_PAL_RED;
	case FK_PAL_PERL:
		if (contains(s, len, "::")) return FK_PAL_YELLOW;
		if (contains(s, len, "Perl") || contains(s, len, ".pl")) return FK_PAL_GREEN;
		if (ends_with(s, len, "_[k]")) return FK_PAL_ORANGE;
		return FK_PAL_RED;
	case FK_PAL_JS:
		if (ends_with(s, len, "_[j]"))
			return memchr(s, '/', len) ? FK_PAL_GREEN : FK_PAL_AQUA;
		if (contains(s, len, "::")) return FK_PAL_YELLOW;
		if (js_path(s, len)) return FK_PAL_GREEN;
		if (memchr(s, ':', len)) return FK_PAL_AQUA;
		if (len == 1 && s[0] == ' ') return FK_PAL_GREEN;
		if (contains(s, len, "_[k]")) return FK_PAL_ORANGE;
		return FK_PAL_RED;
	case FK_PAL_WAKEUP:
		return FK_PAL_AQUA;
	case FK_PAL_CHAIN:
		return contains(s, len, "_[w]") ? FK_PAL_AQUA : FK_PAL_BLUE;
	default:
		return pal;
	}
}

static struct fk_rgb rgb(int r, int g, int b)
{
	return (struct fk_rgb){ (uint8_t)r, (uint8_t)g, (uint8_t)b };
}

struct fk_rgb fk_color_of_name(enum fk_palette pal, enum fk_color_mode mode,
			       const char *name, size_t len, struct fk_rand *rng)
{
	double v1, v2, v3;
	if (mode == FK_COLOR_HASH) {
		v1 = fk_namehash(name, len, false);
		v2 = v3 = fk_namehash(name, len, true);
	} else if (mode == FK_COLOR_RANDOM) {
		v1 = fk_rand_next(rng);
		v2 = fk_rand_next(rng);
		v3 = fk_rand_next(rng);
	} else {
		v1 = v2 = v3 = name_seeded(name, len);
	}
	switch (resolve(pal, name, len)) {
	case FK_PAL_HOT: return rgb(205 + (int)(50 * v3), (int)(230 * v1), (int)(55 * v2));
	case FK_PAL_MEM:
	case FK_PAL_TORCHMEM: return rgb(0, 190 + (int)(50 * v2), (int)(210 * v1));
	case FK_PAL_IO: { int x = 80 + (int)(60 * v1); return rgb(x, x, 190 + (int)(55 * v2)); }
	case FK_PAL_RED: { int x = 50 + (int)(80 * v1); return rgb(200 + (int)(55 * v1), x, x); }
	case FK_PAL_GREEN: { int x = 50 + (int)(60 * v1); return rgb(x, 200 + (int)(55 * v1), x); }
	case FK_PAL_BLUE: { int x = 80 + (int)(60 * v1); return rgb(x, x, 205 + (int)(50 * v1)); }
	case FK_PAL_YELLOW: { int x = 175 + (int)(55 * v1); return rgb(x, x, 50 + (int)(20 * v1)); }
	case FK_PAL_PURPLE: { int x = 190 + (int)(65 * v1); return rgb(x, 80 + (int)(60 * v1), x); }
	case FK_PAL_AQUA: { int x = 165 + (int)(55 * v1); return rgb(50 + (int)(60 * v1), x, x); }
	case FK_PAL_ORANGE: return rgb(190 + (int)(65 * v1), 90 + (int)(65 * v1), 0);
	default: return rgb(0, 0, 0);
	}
}

struct fk_rgb fk_color_of_delta(double delta, double maxdelta, bool negate)
{
	if (negate)
		delta = -delta;
	if (delta > 0) {
		int c = (int)(210 * (maxdelta - delta) / maxdelta);
		return rgb(255, c, c);
	}
	if (delta < 0) {
		int c = (int)(210 * (maxdelta + delta) / maxdelta);
		return rgb(c, c, 255);
	}
	return rgb(255, 255, 255);
}
