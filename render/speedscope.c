/* speedscope.c - speedscope's JSON file format (see speedscope.h). */
#include "render/speedscope.h"

#include <stdlib.h>
#include <string.h>

#include "formats/cli.h"
#include "render/xml.h"

static void put_u32(FILE *out, uint32_t v)
{
	char buf[12], *p = buf + sizeof buf;
	do {
		*--p = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	fwrite(p, 1, (size_t)(buf + sizeof buf - p), out);
}

static void put_num(FILE *out, struct fk_num v)
{
	char text[FK_NUM_TEXT_MAX];
	fwrite(text, 1, fk_num_format(v, text), out);
}

static const struct fk_num *value(const struct fk_profile *p, uint32_t stack, size_t type)
{
	return &p->values[(size_t)stack * p->ntypes + type];
}

/* One sampled profile of type t: the stacks ids[0..n) without their first
 * `skip` frames. */
static void sampled(FILE *out, const char *name, const struct fk_profile *p, size_t t,
		    const uint32_t *ids, size_t n, uint32_t skip)
{
	struct fk_num total = { 0, 0 };
	for (size_t i = 0; i < n; i++)
		fk_num_add(&total, *value(p, ids[i], t));
	fputs("{\"type\":\"sampled\",\"name\":", out);
	fk_json_string(out, name);
	fprintf(out, ",\"unit\":\"%s\",\"startValue\":0,\"endValue\":",
		fk_profile_unit_speedscope(p->types[t].unit));
	put_num(out, total);
	fputs(",\"samples\":[", out);
	for (size_t i = 0; i < n; i++) {
		fputs(i ? ",[" : "[", out);
		uint32_t a = p->first[ids[i]] + skip, b = p->first[ids[i] + 1];
		for (uint32_t k = a; k < b; k++) {
			if (k > a)
				fputc(',', out);
			put_u32(out, p->frame_ids[k]);
		}
		fputc(']', out);
	}
	fputs("],\"weights\":[", out);
	for (size_t i = 0; i < n; i++) {
		if (i)
			fputc(',', out);
		put_num(out, *value(p, ids[i], t));
	}
	fputs("]}", out);
}

/* Sorting stacks by their root frame's name, then by id. */
static const struct fk_profile *sort_p;

static int by_root(const void *x, const void *y)
{
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct fk_str *ra = fk_strtab_get(&sort_p->frames, sort_p->frame_ids[sort_p->first[a]]);
	const struct fk_str *rb = fk_strtab_get(&sort_p->frames, sort_p->frame_ids[sort_p->first[b]]);
	int c = strcmp(ra->p, rb->p);
	return c ? c : (a > b) - (a < b);
}

bool fk_speedscope_write(FILE *out, const struct fk_profile *p)
{
	uint32_t n = fk_profile_nstacks(p);
	uint32_t *ids = malloc(((size_t)n + 1) * sizeof *ids);
	if (!ids) {
		fputs("stackfold: out of memory\n", stderr);
		return false;
	}
	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\"name\":", out);
	fk_json_string(out, p->name);
	fputs(",\"exporter\":\"flamekit stackfold " FK_VERSION "\",\"activeProfileIndex\":0,"
	      "\"shared\":{\"frames\":[", out);
	for (uint32_t f = 0; f < p->frames.count; f++) {
		fputs(f ? ",{\"name\":" : "{\"name\":", out);
		fk_json_string(out, fk_strtab_get(&p->frames, f)->p);
		fputc('}', out);
	}
	fputs("]},\"profiles\":[", out);
	char name[512];
	bool comma = false;
	for (size_t t = 0; t < p->ntypes; t++) {
		/* The stacks of this type: a zero adds nothing (and stacks of
		 * other types are zero here). */
		size_t m = 0;
		for (uint32_t i = 0; i < n; i++)
			if (value(p, i, t)->mant && (!p->types[t].by_thread || p->first[i + 1] > p->first[i]))
				ids[m++] = i;
		if (!p->types[t].by_thread) {
			snprintf(name, sizeof name, "%s (%s)", p->name, p->types[t].name);
			fputs(comma ? "," : "", out);
			comma = true;
			sampled(out, p->ntypes > 1 ? name : p->name, p, t, ids, m, 0);
			continue;
		}
		sort_p = p;
		qsort(ids, m, sizeof *ids, by_root);
		for (size_t a = 0, b; a < m; a = b) {
			uint32_t root = p->frame_ids[p->first[ids[a]]];
			for (b = a + 1; b < m && p->frame_ids[p->first[ids[b]]] == root; b++)
				;
			snprintf(name, sizeof name, "%s (%s, thread %s)", p->name, p->types[t].name,
				 fk_strtab_get(&p->frames, root)->p);
			fputs(comma ? "," : "", out);
			comma = true;
			sampled(out, name, p, t, ids + a, b - a, 1);
		}
	}
	fputs("]}\n", out);
	free(ids);
	return !ferror(out);
}
