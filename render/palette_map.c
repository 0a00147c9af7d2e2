/* palette_map.c - palette.map read and write (see palette_map.h). */
#include "render/palette_map.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

const struct fk_rgb *fk_palette_map_get(const struct fk_palette_map *m, const char *name, size_t len)
{
	uint32_t id = fk_strtab_find(&m->names, name, len);
	return id == FK_STRTAB_NONE ? NULL : &m->colors[id];
}

bool fk_palette_map_put(struct fk_palette_map *m, const char *name, size_t len, struct fk_rgb c)
{
	uint32_t id = fk_strtab_intern(&m->names, name, len, NULL);
	if (id == FK_STRTAB_NONE)
		return false;
	if (!FK_GROW(m->colors, m->cap, (size_t)id + 1, 256))
		return false;
	m->colors[id] = c;
	return true;
}

bool fk_palette_map_load(struct fk_palette_map *m, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		if (errno == ENOENT)
			return true;
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return false;
	}
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	unsigned long lineno = 0;
	bool ok = true;
	while (ok && (n = getline(&line, &cap, f)) >= 0) {
		lineno++;
		while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
			line[--n] = '\0';
		if (n == 0)
			continue;
		/* Names may contain "->" (perf's inline notation); colours never do. */
		char *arrow = NULL;
		for (char *p = strstr(line, "->"); p; p = strstr(p + 1, "->"))
			arrow = p;
		unsigned r, g, b;
		char tail;
		if (!arrow || sscanf(arrow + 2, "rgb(%u,%u,%u)%c", &r, &g, &b, &tail) != 3 ||
		    r > 255 || g > 255 || b > 255) {
			snprintf(err, errlen, "%s:%lu: expected NAME->rgb(R,G,B)", path, lineno);
			ok = false;
			break;
		}
		ok = fk_palette_map_put(m, line, (size_t)(arrow - line),
					(struct fk_rgb){ (uint8_t)r, (uint8_t)g, (uint8_t)b });
		if (!ok)
			snprintf(err, errlen, "%s: out of memory", path);
	}
	free(line);
	fclose(f);
	return ok;
}

static int by_name(const void *x, const void *y, void *names)
{
	const struct fk_str *a = fk_strtab_get(names, *(const uint32_t *)x);
	const struct fk_str *b = fk_strtab_get(names, *(const uint32_t *)y);
	size_t n = a->len < b->len ? a->len : b->len;
	int c = memcmp(a->p, b->p, n);
	return c ? c : (a->len > b->len) - (a->len < b->len);
}

bool fk_palette_map_save(const struct fk_palette_map *m, const char *path)
{
	uint32_t n = m->names.count;
	uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
	FILE *f = ids ? fopen(path, "w") : NULL;
	if (!f) {
		free(ids);
		return false;
	}
	for (uint32_t i = 0; i < n; i++)
		ids[i] = i;
	qsort_r(ids, n, sizeof *ids, by_name, (void *)&m->names);
	for (uint32_t i = 0; i < n; i++) {
		const struct fk_str *s = fk_strtab_get(&m->names, ids[i]);
		const struct fk_rgb *c = &m->colors[ids[i]];
		fwrite(s->p, 1, s->len, f);
		fprintf(f, "->rgb(%u,%u,%u)\n", c->r, c->g, c->b);
	}
	free(ids);
	return fclose(f) == 0;
}

void fk_palette_map_free(struct fk_palette_map *m)
{
	fk_strtab_free(&m->names);
	free(m->colors);
	*m = (struct fk_palette_map){ 0 };
}
