/* flame.c - options defaults and stacks -> layout -> SVG (see flame.h). */
#include "render/flame.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "formats/grow.h"
#include "render/layout.h"
#include "render/memcolors.h"
#include "render/palette_map.h"
#include "render/svg.h"

void fk_flame_opts_defaults(struct fk_flame_opts *o)
{
	*o = (struct fk_flame_opts){
		.width = 1200, .frameheight = 16, .minwidth = 0.1, .fonttype = "Verdana",
		.fontsize = 12, .fontwidth = 0.59, .countname = "samples",
		.nametype = "Function:", .palette = FK_PAL_HOT, .color_mode = FK_COLOR_NAME,
		.palette_file = "palette.map", .factor = 1, .searchcolor = "rgb(230,0,230)",
	};
}

/* Colours are computed once per name (they depend on the name only), except
 * in --random mode, where flamegraph.pl draws new ones for every frame. */
/* A top frame named after a torch memory category (--colors torchmem). */
struct category_span {
	double start, end;
	int category;
};

struct colorer {
	const struct fk_flame_opts *o;
	struct category_span *spans; /* by start; torchmem only */
	size_t nspans;
	struct fk_rgb *by_name;
	uint8_t *known;
	double maxdelta;
	struct fk_rand rng;
	struct fk_palette_map *map;
};

static int cmp_span(const void *a, const void *b)
{
	const struct category_span *x = a, *y = b;
	return (x->start > y->start) - (x->start < y->start);
}

/* The top frames named after torch memory categories, by start. */
static bool find_category_spans(struct colorer *c, const struct fk_layout *L)
{
	c->spans = malloc((L->count ? L->count : 1) * sizeof *c->spans);
	if (!c->spans)
		return false;
	for (size_t i = 0; i < L->count; i++) {
		const struct fk_frame *f = &L->frames[i];
		const struct fk_str *name = fk_strtab_get(&L->names, f->name);
		int cat = f->depth == 1 ? fk_mem_category_of_name(name->p, name->len) : -1;
		if (cat >= 0)
			c->spans[c->nspans++] = (struct category_span){ f->start, f->end, cat };
	}
	qsort(c->spans, c->nspans, sizeof *c->spans, cmp_span);
	return true;
}

/* A frame under a category: the category's colour over white, fainter
 * with depth (so labels stay readable), a little varied by name so that
 * neighbours differ. false when the frame is under no category. */
static bool category_color(const struct colorer *c, const struct fk_frame *f,
			   const struct fk_str *name, struct fk_rgb *out)
{
	size_t lo = 0, hi = c->nspans;
	while (lo < hi) { /* the last span starting at or before the frame */
		size_t mid = (lo + hi) / 2;
		if (c->spans[mid].start <= f->start + 1e-9)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (f->depth == 0 || lo == 0 || f->end > c->spans[lo - 1].end + 1e-9)
		return false;
	unsigned rgb = fk_mem_category_colors[c->spans[lo - 1].category];
	double jitter = 0.08 * (fk_namehash(name->p, name->len, false) - 0.5);
	double a = 0.55 - 0.04 * (f->depth - 1) + jitter;
	a = a < 0.2 ? 0.2 : a;
	*out = (struct fk_rgb){ (uint8_t)(255 - a * (255 - (rgb >> 16 & 0xff)) + 0.5),
				(uint8_t)(255 - a * (255 - (rgb >> 8 & 0xff)) + 0.5),
				(uint8_t)(255 - a * (255 - (rgb & 0xff)) + 0.5) };
	return true;
}

static struct fk_rgb frame_color(void *arg, const struct fk_layout *L, const struct fk_frame *f)
{
	struct colorer *c = arg;
	const struct fk_str *name = fk_strtab_get(&L->names, f->name);
	struct fk_rgb by_category;
	if (c->spans && !f->has_delta && category_color(c, f, name, &by_category))
		return by_category;
	if (name->len == 2 && memcmp(name->p, "--", 2) == 0)
		return (struct fk_rgb){ 160, 160, 160 };
	if (name->len == 1 && name->p[0] == '-')
		return (struct fk_rgb){ 200, 200, 200 };
	if (f->has_delta)
		return fk_color_of_delta(f->delta, c->maxdelta, c->o->negate);
	if (c->map) {
		const struct fk_rgb *known = fk_palette_map_get(c->map, name->p, name->len);
		if (known)
			return *known;
		struct fk_rgb rgb = fk_color_of_name(c->o->palette, c->o->color_mode, name->p,
						     name->len, &c->rng);
		fk_palette_map_put(c->map, name->p, name->len, rgb);
		return rgb;
	}
	if (c->o->color_mode == FK_COLOR_RANDOM || !c->by_name)
		return fk_color_of_name(c->o->palette, c->o->color_mode, name->p, name->len, &c->rng);
	if (!c->known[f->name]) {
		c->by_name[f->name] = fk_color_of_name(c->o->palette, c->o->color_mode, name->p,
						       name->len, &c->rng);
		c->known[f->name] = 1;
	}
	return c->by_name[f->name];
}

static double item_width(const struct fk_stack_sums *s)
{
	return fk_num_to_double(s->value);
}

/* Stacks handed to the layout as frame ids: each name of the set is
 * interned into the layout once, when first drawn. */
struct frame_feed {
	const struct fk_stackset *set;
	uint32_t *layout_id; /* per frame of the set; FK_STRTAB_NONE until drawn */
	uint32_t *ids;       /* one stack's, in the layout's ids */
	size_t cap;
};

static bool push_stack(struct fk_layout *L, struct frame_feed *f, uint32_t id,
		       struct fk_num count, bool has_delta, double delta)
{
	const struct fk_stack_entry *e = fk_stackset_get(f->set, id);
	size_t n = e->nframes;
	/* flamegraph.pl splits with Perl's split, which drops trailing empty
	 * frames. */
	while (n > 0 && fk_stackset_frame(f->set, e->frames[n - 1])->len == 0)
		n--;
	if (!FK_GROW(f->ids, f->cap, n + 1, 64))
		return false;
	for (size_t k = 0; k < n; k++) {
		uint32_t *as = &f->layout_id[e->frames[k]];
		if (*as == FK_STRTAB_NONE) {
			const struct fk_str *name = fk_stackset_frame(f->set, e->frames[k]);
			if ((*as = fk_layout_name(L, name->p, name->len)) == FK_STRTAB_NONE)
				return false;
		}
		f->ids[k] = *as;
	}
	return fk_layout_push_frames(L, f->ids, n, count, has_delta, delta);
}

enum fk_flame_status fk_flame_render(FILE *out, const struct fk_stacks *stacks,
				     const uint32_t *order, const struct fk_seq *seq,
				     const struct fk_flame_opts *o, struct fk_flame_report *rep)
{
	*rep = (struct fk_flame_report){ 0 };
	/* The total is summed in drawing order, in doubles, as flamegraph.pl
	 * sums it: with decimal values that decides how the root's count rounds. */
	double total = 0;
	if (seq)
		for (size_t i = 0; i < seq->count; i++)
			total += fk_num_to_double(seq->items[i].value);
	else
		for (uint32_t i = 0; i < fk_stacks_count(stacks); i++)
			total += item_width(&stacks->sums[order[i]]);
	rep->total = total;
	if (total <= 0) {
		fk_svg_write_empty(out, o);
		return FK_FLAME_EMPTY;
	}
	/* --total widens the root (time outside the profile); never narrows it. */
	double timemax = o->total > total ? o->total : total;
	double widthpertime = (double)(o->width - 20) / timemax;
	double min_time = o->minwidth_pct ? timemax * o->minwidth / 100 : o->minwidth / widthpertime;

	struct fk_layout L;
	fk_layout_init(&L, min_time);
	bool ok = true;
	struct frame_feed feed = {
		.set = &stacks->set,
		.layout_id = malloc(((size_t)stacks->set.frames.count + 1) * sizeof *feed.layout_id),
	};
	ok = feed.layout_id != NULL;
	if (ok)
		memset(feed.layout_id, 0xff, ((size_t)stacks->set.frames.count + 1) * sizeof *feed.layout_id);
	if (seq) {
		for (size_t i = 0; i < seq->count && ok; i++) {
			const struct fk_seq_item *it = &seq->items[i];
			if (it->stack == FK_STRTAB_NONE)
				continue;
			double after = fk_num_to_double(it->value);
			ok = push_stack(&L, &feed, it->stack, it->value, it->nvalues == 2,
					after - fk_num_to_double(it->before));
		}
	} else {
		for (uint32_t i = 0; i < fk_stacks_count(stacks) && ok; i++) {
			const struct fk_stack_sums *v = &stacks->sums[order[i]];
			ok = push_stack(&L, &feed, order[i], v->value, v->diff,
					item_width(v) - fk_num_to_double(v->before));
		}
	}
	free(feed.layout_id);
	free(feed.ids);
	ok = ok && fk_layout_finish(&L, timemax);

	struct fk_palette_map map = { 0 };
	struct colorer c = {
		.o = o, .maxdelta = L.maxdelta,
		.by_name = calloc(L.names.count + 1, sizeof *c.by_name),
		.known = calloc(L.names.count + 1, 1),
		.map = o->consistent_palette ? &map : NULL,
	};
	fk_rand_seed(&c.rng, (uint32_t)time(NULL) ^ (uint32_t)getpid());
	if (ok && o->palette == FK_PAL_TORCHMEM)
		ok = find_category_spans(&c, &L);
	if (ok && c.map) {
		char err[200];
		if (!fk_palette_map_load(&map, o->palette_file, err, sizeof err)) {
			/* An unreadable map is left alone: draw with computed colours. */
			snprintf(rep->warning, sizeof rep->warning, "%s (palette map not used)", err);
			c.map = NULL;
		}
	}
	if (ok && c.by_name && c.known)
		fk_svg_write_flame(out, &L, timemax, o, frame_color, &c);
	else
		ok = false;
	if (ok && c.map && !fk_palette_map_save(&map, o->palette_file))
		snprintf(rep->warning, sizeof rep->warning, "%s: cannot write the palette map",
			 o->palette_file);
	rep->frames = L.count;
	rep->omitted = L.omitted;
	free(c.by_name);
	free(c.known);
	free(c.spans);
	fk_palette_map_free(&map);
	fk_layout_free(&L);
	return ok ? FK_FLAME_OK : FK_FLAME_NOMEM;
}
