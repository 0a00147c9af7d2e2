/* palette_map.h - flamegraph.pl's --cp "consistent palette": a file of
 * "name->rgb(r,g,b)" lines read before drawing and rewritten, sorted by name,
 * after, so a name keeps its colour across graphs.
 *
 * Owns: the names and colours loaded or added.
 */
#ifndef FK_PALETTE_MAP_H
#define FK_PALETTE_MAP_H

#include <stdbool.h>

#include "analysis/core/strtab.h"
#include "render/color.h"

struct fk_palette_map {
	struct fk_strtab names;
	struct fk_rgb *colors;
	size_t cap;
};

/* A missing file is an empty map; false on a read error or bad line. */
bool fk_palette_map_load(struct fk_palette_map *m, const char *path, char *err, size_t errlen);
/* The colour stored for name, or NULL. */
const struct fk_rgb *fk_palette_map_get(const struct fk_palette_map *m, const char *name, size_t len);
bool fk_palette_map_put(struct fk_palette_map *m, const char *name, size_t len, struct fk_rgb c);
bool fk_palette_map_save(const struct fk_palette_map *m, const char *path);
void fk_palette_map_free(struct fk_palette_map *m);

#endif
