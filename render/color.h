/* color.h - frame colours, the same as flamegraph.pl's for the same names and
 * options: its palettes, its name-seeded default (sum of code points as the
 * seed of Perl's drand48), --hash (weighted name hash) and --random, and the
 * red/blue scale of differential graphs.
 *
 * Owns: struct fk_rand (a drand48 state). Functions are pure otherwise.
 */
#ifndef FK_COLOR_H
#define FK_COLOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fk_palette {
	FK_PAL_HOT, FK_PAL_MEM, FK_PAL_IO, FK_PAL_WAKEUP, FK_PAL_CHAIN, FK_PAL_JAVA,
	FK_PAL_JS, FK_PAL_PERL, FK_PAL_RED, FK_PAL_GREEN, FK_PAL_BLUE, FK_PAL_AQUA,
	FK_PAL_YELLOW, FK_PAL_PURPLE, FK_PAL_ORANGE,
	FK_PAL_TORCHMEM, /* flamekit's: frames under a torch memory category root take
			    its colour (render/flame.c); by name, mem's colours */
};

enum fk_color_mode {
	FK_COLOR_NAME,   /* default: seeded by the name, stable across graphs */
	FK_COLOR_HASH,   /* --hash */
	FK_COLOR_RANDOM, /* --random */
};

struct fk_rgb {
	uint8_t r, g, b;
};

/* Perl's drand48: 48-bit state. */
struct fk_rand {
	uint64_t x;
};
void fk_rand_seed(struct fk_rand *r, uint32_t seed);
double fk_rand_next(struct fk_rand *r);

/* false for an unknown palette name. */
bool fk_palette_parse(const char *name, enum fk_palette *out);
const char *fk_palette_name(enum fk_palette p);
/* The background gradient flamegraph.pl picks for a palette. */
const char *fk_palette_default_bg(enum fk_palette p);

/* Colour of a frame name (annotations such as _[k] included). rng is used
 * only by FK_COLOR_RANDOM. */
struct fk_rgb fk_color_of_name(enum fk_palette pal, enum fk_color_mode mode,
			       const char *name, size_t len, struct fk_rand *rng);

/* Differential colour: red for growth, blue for shrinkage, white for none. */
struct fk_rgb fk_color_of_delta(double delta, double maxdelta, bool negate);

/* flamegraph.pl's namehash() (exposed for tests). */
double fk_namehash(const char *name, size_t len, bool reversed);

#endif
