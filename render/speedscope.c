/* speedscope.c - speedscope's JSON file format (see speedscope.h). */
#include "render/speedscope.h"

#include <math.h>
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

/* Sorting stacks by their root frame's name, then by id (qsort_r). */
static int by_root(const void *x, const void *y, void *profile)
{
	const struct fk_profile *pr = profile;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	const struct fk_str *ra = fk_strtab_get(&pr->frames, pr->frame_ids[pr->first[a]]);
	const struct fk_str *rb = fk_strtab_get(&pr->frames, pr->frame_ids[pr->first[b]]);
	int c = strcmp(ra->p, rb->p);
	return c ? c : (a > b) - (a < b);
}

/* ---- evented profiles: a capture's threads in time order ---- */

static int by_thread_time(const void *x, const void *y, void *timeline)
{
	const struct fk_stackfold_timeline *tl = timeline;
	const struct fk_tl_sample *a = &tl->samples[*(const size_t *)x];
	const struct fk_tl_sample *b = &tl->samples[*(const size_t *)y];
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns ? -1 : 1;
	return (*(const size_t *)x > *(const size_t *)y) - (*(const size_t *)x < *(const size_t *)y);
}

/* A time in us with 3 decimals (whole ns), without printf's cost: a
 * timeline writes millions of them. */
static void put_us(FILE *out, double us)
{
	if (us < 0) /* the origin's whole ns cut a fraction off */
		us = 0;
	uint64_t ns = (uint64_t)llround(us * 1000);
	char buf[32], *p = buf + sizeof buf;
	for (int i = 0; i < 3; i++, ns /= 10)
		*--p = (char)('0' + ns % 10);
	*--p = '.';
	do {
		*--p = (char)('0' + ns % 10);
		ns /= 10;
	} while (ns);
	fwrite(p, 1, (size_t)(buf + sizeof buf - p), out);
}

static void event(FILE *out, bool *comma, char type, uint32_t frame, double at)
{
	static const char open_[] = "{\"type\":\"O\",\"frame\":", close_[] = "{\"type\":\"C\",\"frame\":";
	if (*comma)
		fputc(',', out);
	fwrite(type == 'O' ? open_ : close_, 1, sizeof open_ - 1, out);
	put_u32(out, frame);
	fwrite(",\"at\":", 1, 6, out);
	put_us(out, at);
	fputc('}', out);
	*comma = true;
}

/* One thread's samples (idx[0..n), in time order) as open and close
 * events, in microseconds from origin_ns. A sample stands for the CPU time
 * of its periods, ending at its time; one starting within half a period
 * of where the last ended follows on from it (a frame both share stays
 * open), later ones leave a gap (nothing open). Overlaps are pushed later,
 * so every sample keeps its full length: the frames' totals are the CPU
 * time. open holds room for the deepest stack. */
static void evented(FILE *out, const char *name, const struct fk_profile *p, const size_t *idx,
		    size_t n, uint64_t origin_ns, uint32_t *open)
{
	const struct fk_stackfold_timeline *tl = p->timeline;
	double tick = 1e6 / (double)tl->sample_hz, end = 0, first = 0;
	uint32_t depth = 0;
	bool comma = false;
	fputs("{\"type\":\"evented\",\"name\":", out);
	fk_json_string(out, name);
	fputs(",\"unit\":\"microseconds\",\"events\":[", out);
	for (size_t i = 0; i < n; i++) {
		const struct fk_tl_sample *s = &tl->samples[idx[i]];
		double dur = s->weight * tick, at = (double)(s->t_ns - origin_ns) / 1000 - dur;
		if (i == 0) {
			first = at;
		} else if (at < end + tick / 2) {
			at = end;
		} else {
			while (depth > 0) /* a gap: the thread ran no sampled code */
				event(out, &comma, 'C', open[--depth], end);
		}
		const uint32_t *f = p->tl_frame_ids + p->tl_first[s->stack];
		uint32_t nf = p->tl_first[s->stack + 1] - p->tl_first[s->stack], same = 0;
		while (same < depth && same < nf && open[same] == f[same])
			same++;
		while (depth > same)
			event(out, &comma, 'C', open[--depth], at);
		while (depth < nf) {
			open[depth] = f[depth];
			event(out, &comma, 'O', open[depth++], at);
		}
		end = at + dur;
	}
	while (depth > 0)
		event(out, &comma, 'C', open[--depth], end);
	fputs("],\"startValue\":", out);
	put_us(out, first);
	fputs(",\"endValue\":", out);
	put_us(out, end);
	fputc('}', out);
}

/* Every thread of p's timeline, one evented profile each, by thread name. */
static bool timelines(FILE *out, const struct fk_profile *p, bool *comma)
{
	const struct fk_stackfold_timeline *tl = p->timeline;
	size_t *idx = malloc((tl->n ? tl->n : 1) * sizeof *idx);
	uint32_t deepest = 0;
	for (uint32_t i = 0; i < tl->stacks.count; i++)
		if (p->tl_first[i + 1] - p->tl_first[i] > deepest)
			deepest = p->tl_first[i + 1] - p->tl_first[i];
	uint32_t *open = malloc(((size_t)deepest + 1) * sizeof *open);
	if (!idx || !open) {
		free(idx);
		free(open);
		return false;
	}
	uint64_t origin = UINT64_MAX;
	double tick_ns = 1e9 / (double)tl->sample_hz;
	for (size_t i = 0; i < tl->n; i++) {
		idx[i] = i;
		/* where the first sample's time began */
		double dur = tl->samples[i].weight * tick_ns;
		uint64_t start = tl->samples[i].t_ns > (uint64_t)dur ? tl->samples[i].t_ns - (uint64_t)dur : 0;
		if (start < origin)
			origin = start;
	}
	qsort_r(idx, tl->n, sizeof *idx, by_thread_time, (void *)tl);
	char name[512];
	for (size_t a = 0, b; a < tl->n; a = b) {
		uint32_t th = tl->samples[idx[a]].thread;
		for (b = a + 1; b < tl->n && tl->samples[idx[b]].thread == th; b++)
			;
		snprintf(name, sizeof name, "%s (cpu, thread %s, time order)", p->name,
			 fk_strtab_get(&tl->threads, th)->p);
		fputs(*comma ? "," : "", out);
		*comma = true;
		evented(out, name, p, idx + a, b - a, origin, open);
	}
	free(idx);
	free(open);
	return true;
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
	if (p->loss && *p->loss) { /* the title says it: the format has no field for notes */
		char title[1200];
		snprintf(title, sizeof title, "%s (incomplete: %s)", p->name, p->loss);
		fk_json_string(out, title);
	} else {
		fk_json_string(out, p->name);
	}
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
		qsort_r(ids, m, sizeof *ids, by_root, (void *)p);
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
	bool ok = !p->timeline || timelines(out, p, &comma);
	fputs("]}\n", out);
	free(ids);
	if (!ok)
		fputs("stackfold: out of memory\n", stderr);
	return ok && !ferror(out);
}
