/* memplot.c - the memory timeline plot (see memplot.h).
 *
 * Geometry follows matplotlib 3.x defaults, which torch's plot uses: axes
 * at [0.125, 0.11] to [0.9, 0.88] of the figure, 5% data margins, ticks from
 * MaxNLocator (at most 9 intervals; steps 1, 2, 2.5, 5, 10), labels from
 * ScalarFormatter (just enough decimals, a 1eN multiplier outside 1e-5 to
 * 1e6), DejaVu Sans at 10 pt (title 12 pt), legend in the upper right.
 */
#include "render/memplot.h"

#include <cairo/cairo.h>
#include <fontconfig/fontconfig.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mem/coalesce.h"
#include "render/memcolors.h"
#include "formats/grow.h"


#define PT (80.0 / 72.0) /* pixels per point at 80 dpi */
#define FONT "DejaVu Sans"
#define FONT_SIZE (10 * PT)
#define TITLE_SIZE (12 * PT)
#define AX_LEFT (0.125 * FK_MEMPLOT_WIDTH)
#define AX_RIGHT (0.9 * FK_MEMPLOT_WIDTH)
#define AX_TOP ((1 - 0.88) * FK_MEMPLOT_HEIGHT)
#define AX_BOTTOM ((1 - 0.11) * FK_MEMPLOT_HEIGHT)
#define AX_WIDTH (AX_RIGHT - AX_LEFT)
#define AX_HEIGHT (AX_BOTTOM - AX_TOP)
#define TICK_LEN (3.5 * PT)
#define TICK_PAD (3.5 * PT)
#define LABEL_PAD (4 * PT)
#define TITLE_PAD (6 * PT)
#define LINE_WIDTH (0.8 * PT)
#define EDGE_WIDTH (1.0 * PT) /* fill_between's polygon edge */
#define ALPHA 0.7
#define COLUMNS ((int)AX_WIDTH)
#define MAX_TICKS 16
#define NBOUND (FK_MEM_COLUMNS) /* stacked boundaries: 0 .. 8 */

/* ---- axis limits and ticks, matplotlib's way ---- */

struct axis {
	double lo, hi;          /* view limits */
	double ticks[MAX_TICKS];
	int nticks;
	int oom;                /* labels are value / 10^oom; 0: plain */
	int decimals;
};

/* Data limits -> view limits: widen an empty range, then 5% margins. */
static void view_limits(double dmin, double dmax, double *lo, double *hi)
{
	double big = fmax(fabs(dmin), fabs(dmax));
	if (dmax - dmin <= big * 1e-15) {
		if (dmax == 0 && dmin == 0)
			dmin = -0.05, dmax = 0.05;
		else
			dmin -= 0.05 * fabs(dmin), dmax += 0.05 * fabs(dmax);
	}
	double m = (dmax - dmin) * 0.05;
	*lo = dmin - m;
	*hi = dmax + m;
}

static bool close_to(double ms, double edge, double offset, double step)
{
	double tol = 1e-10;
	if (offset > 0) {
		double digits = log10(offset / step);
		tol = fmin(0.4999, fmax(1e-10, pow(10, digits - 12)));
	}
	return fabs(ms - edge) < tol;
}

/* MaxNLocator(nbins=9, steps=[1, 2, 2.5, 5, 10]) over [lo, hi]. */
static void locate_ticks(struct axis *a)
{
	static const double steps[] = { 0.1, 0.2, 0.25, 0.5, 1, 2, 2.5, 5, 10, 20 };
	const int nbins = 9;
	double vmin = a->lo, vmax = a->hi;
	double dv = fabs(vmax - vmin), meanv = (vmax + vmin) / 2, offset = 0;
	if (fabs(meanv) / dv >= 100)
		offset = copysign(pow(10, floor(log10(fabs(meanv)))), meanv);
	double scale = pow(10, floor(log10(dv / nbins)));
	double _vmin = vmin - offset, _vmax = vmax - offset;
	double raw_step = (_vmax - _vmin) / nbins;
	size_t i = 0;
	while (i + 1 < sizeof steps / sizeof *steps && steps[i] * scale < raw_step)
		i++;
	a->nticks = 0;
	for (; i < sizeof steps / sizeof *steps; i++) {
		double step = steps[i] * scale;
		double best_vmin = floor(_vmin / step) * step;
		double d = floor((_vmin - best_vmin) / step), m = fmod(_vmin - best_vmin, step);
		double low = close_to(m / step, 1, offset, step) ? d + 1 : d;
		d = floor((_vmax - best_vmin) / step), m = fmod(_vmax - best_vmin, step);
		double high = close_to(m / step, 0, offset, step) ? d : d + 1;
		int n = 0, inside = 0;
		for (double k = low; k <= high && n < MAX_TICKS; k++) {
			double t = k * step + best_vmin;
			a->ticks[n++] = t + offset;
			inside += t <= _vmax && t >= _vmin;
		}
		a->nticks = n;
		if (inside >= 2)
			break;
	}
}

/* ScalarFormatter: the multiplier, then the fewest decimals that keep the
 * labels exact to 1e-3 of their range. */
static void format_ticks(struct axis *a)
{
	double big = 0;
	for (int i = 0; i < a->nticks; i++)
		if (a->ticks[i] >= a->lo && a->ticks[i] <= a->hi)
			big = fmax(big, fabs(a->ticks[i]));
	int oom = big == 0 ? 0 : (int)floor(log10(big));
	a->oom = oom <= -5 || oom >= 6 ? oom : 0;
	double scale = pow(10, a->oom), lmin = INFINITY, lmax = -INFINITY;
	for (int i = 0; i < a->nticks; i++) {
		lmin = fmin(lmin, a->ticks[i] / scale);
		lmax = fmax(lmax, a->ticks[i] / scale);
	}
	double range = lmax - lmin;
	if (range == 0)
		range = fmax(fabs(lmin), fabs(lmax));
	if (range == 0)
		range = 1;
	int range_oom = (int)floor(log10(range));
	int sig = range_oom < 3 ? 3 - range_oom : 0;
	double thresh = 1e-3 * pow(10, range_oom);
	for (; sig >= 0; sig--) {
		double p = pow(10, sig), worst = 0;
		for (int i = 0; i < a->nticks; i++) {
			double v = a->ticks[i] / scale;
			worst = fmax(worst, fabs(v - nearbyint(v * p) / p));
		}
		if (worst >= thresh)
			break;
	}
	a->decimals = sig + 1;
}

/* A tick label with matplotlib's minus sign (U+2212); never "-0.0". */
static void tick_label(const struct axis *a, double v, char *out, size_t n)
{
	char digits[64];
	v /= pow(10, a->oom);
	if (fabs(v) < 1e-8)
		v = 0;
	snprintf(digits, sizeof digits, "%.*f", a->decimals, fabs(v));
	bool zero = strspn(digits, "0.") == strlen(digits);
	snprintf(out, n, "%s%s", v < 0 && !zero ? "\u2212" : "", digits);
}

static void axis_setup(struct axis *a, double dmin, double dmax)
{
	view_limits(dmin, dmax, &a->lo, &a->hi);
	locate_ticks(a);
	format_ticks(a);
}

static bool tick_visible(const struct axis *a, double t)
{
	double tol = (a->hi - a->lo) * 1e-10;
	return t >= a->lo - tol && t <= a->hi + tol;
}

/* ---- the data ---- */

struct series {
	size_t rows;
	int64_t t_first, t_last; /* us */
	double ymin, ymax;       /* GiB, over every boundary */
	bool dense;              /* more rows than columns: draw envelopes */
	double *x, *y;           /* sparse: rows x, rows * NBOUND y */
	double *lo, *hi;         /* dense: COLUMNS * NBOUND min and max */
	bool *used;              /* dense: columns with data */
};

static void boundaries(const struct fk_mem_rows *r, double *y)
{
	int64_t sum = 0;
	for (int c = 0; c < NBOUND; c++) {
		sum += r->sizes[c];
		y[c] = (double)sum / (1024.0 * 1024.0 * 1024.0);
	}
}

static bool collect(struct series *s, const struct fk_mem_timeline *tl, const struct axis *xa)
{
	struct fk_mem_rows r;
	double y[NBOUND];
	if (s->dense) {
		s->lo = malloc(COLUMNS * NBOUND * sizeof *s->lo);
		s->hi = malloc(COLUMNS * NBOUND * sizeof *s->hi);
		s->used = calloc(COLUMNS, sizeof *s->used);
		if (!s->lo || !s->hi || !s->used)
			return false;
	} else {
		s->x = malloc((s->rows ? s->rows : 1) * sizeof *s->x);
		s->y = malloc((s->rows ? s->rows : 1) * NBOUND * sizeof *s->y);
		if (!s->x || !s->y)
			return false;
	}
	size_t i = 0;
	fk_mem_rows_start(&r, tl);
	while (fk_mem_rows_next(&r)) {
		double x = (double)(r.t - s->t_first) / 1e3;
		boundaries(&r, y);
		if (!s->dense) {
			s->x[i] = x;
			memcpy(s->y + i * NBOUND, y, sizeof y);
		} else {
			int col = (int)((x - xa->lo) / (xa->hi - xa->lo) * COLUMNS);
			col = col < 0 ? 0 : col >= COLUMNS ? COLUMNS - 1 : col;
			double *lo = s->lo + col * NBOUND, *hi = s->hi + col * NBOUND;
			for (int c = 0; c < NBOUND; c++) {
				if (!s->used[col] || y[c] < lo[c])
					lo[c] = y[c];
				if (!s->used[col] || y[c] > hi[c])
					hi[c] = y[c];
			}
			s->used[col] = true;
		}
		i++;
	}
	return true;
}

/* First pass: how many rows, the time span and the value range. */
static void measure(struct series *s, const struct fk_mem_timeline *tl)
{
	struct fk_mem_rows r;
	double y[NBOUND];
	s->ymin = INFINITY, s->ymax = -INFINITY;
	fk_mem_rows_start(&r, tl);
	while (fk_mem_rows_next(&r)) {
		if (s->rows == 0 || r.t < s->t_first)
			s->t_first = r.t;
		if (s->rows == 0 || r.t > s->t_last)
			s->t_last = r.t;
		boundaries(&r, y);
		for (int c = 0; c < NBOUND; c++)
			s->ymin = fmin(s->ymin, y[c]), s->ymax = fmax(s->ymax, y[c]);
		s->rows++;
	}
	s->dense = s->rows > 2 * (size_t)COLUMNS;
}

/* ---- drawing ---- */

static void set_rgb(cairo_t *cr, unsigned rgb, double alpha)
{
	cairo_set_source_rgba(cr, (rgb >> 16) / 255.0, ((rgb >> 8) & 0xff) / 255.0,
			      (rgb & 0xff) / 255.0, alpha);
}

static double px_x(const struct axis *a, double v)
{
	return AX_LEFT + (v - a->lo) / (a->hi - a->lo) * AX_WIDTH;
}

static double px_y(const struct axis *a, double v)
{
	return AX_BOTTOM - (v - a->lo) / (a->hi - a->lo) * AX_HEIGHT;
}

/* The band of category c: along its top boundary, back along its bottom. */
static void band_path(cairo_t *cr, const struct series *s, const struct axis *xa,
		      const struct axis *ya, int c)
{
	cairo_new_path(cr);
	if (!s->dense) {
		for (size_t i = 0; i < s->rows; i++)
			cairo_line_to(cr, px_x(xa, s->x[i]), px_y(ya, s->y[i * NBOUND + c + 1]));
		for (size_t i = s->rows; i-- > 0;)
			cairo_line_to(cr, px_x(xa, s->x[i]), px_y(ya, s->y[i * NBOUND + c]));
	} else {
		for (int col = 0; col < COLUMNS; col++)
			if (s->used[col])
				cairo_line_to(cr, AX_LEFT + col + 0.5,
					      px_y(ya, s->hi[col * NBOUND + c + 1]));
		for (int col = COLUMNS; col-- > 0;)
			if (s->used[col])
				cairo_line_to(cr, AX_LEFT + col + 0.5, px_y(ya, s->lo[col * NBOUND + c]));
	}
	cairo_close_path(cr);
}

struct text_metrics {
	double ascent, descent; /* of "lp", like matplotlib's line boxes */
};

static struct text_metrics metrics(cairo_t *cr)
{
	cairo_text_extents_t e;
	cairo_text_extents(cr, "lp", &e);
	return (struct text_metrics){ -e.y_bearing, e.height + e.y_bearing };
}

/* Text with its anchor at (x, y): ha 0 left, 0.5 center, 1 right; va is
 * "top" (y is the top of the line box) or "baseline". */
static double text_at(cairo_t *cr, const char *s, double x, double y, double ha, bool top)
{
	cairo_text_extents_t e;
	cairo_text_extents(cr, s, &e);
	struct text_metrics m = metrics(cr);
	cairo_move_to(cr, x - ha * e.x_advance, top ? y + m.ascent : y);
	cairo_show_text(cr, s);
	return e.x_advance;
}

static void draw_axes(cairo_t *cr, const struct axis *xa, const struct axis *ya)
{
	char label[64];
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_line_width(cr, LINE_WIDTH);
	cairo_rectangle(cr, AX_LEFT, AX_TOP, AX_WIDTH, AX_HEIGHT);
	cairo_stroke(cr);
	cairo_select_font_face(cr, FONT, CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
	cairo_set_font_size(cr, FONT_SIZE);
	struct text_metrics m = metrics(cr);
	/* x ticks, labels below */
	double label_top = AX_BOTTOM + TICK_LEN + TICK_PAD;
	for (int i = 0; i < xa->nticks; i++) {
		double t = xa->ticks[i];
		if (!tick_visible(xa, t))
			continue;
		double x = px_x(xa, t);
		cairo_move_to(cr, x, AX_BOTTOM);
		cairo_line_to(cr, x, AX_BOTTOM + TICK_LEN);
		cairo_stroke(cr);
		tick_label(xa, t, label, sizeof label);
		text_at(cr, label, x, label_top, 0.5, true);
	}
	double xlabel_top = label_top + m.ascent + m.descent + LABEL_PAD;
	if (xa->oom) {
		snprintf(label, sizeof label, "1e%s%d", xa->oom < 0 ? "\u2212" : "", abs(xa->oom));
		text_at(cr, label, AX_RIGHT, xlabel_top, 1, true);
	}
	text_at(cr, "Time (ms)", AX_LEFT + AX_WIDTH / 2, xlabel_top, 0.5, true);
	/* y ticks, labels to the left */
	double widest = 0;
	for (int i = 0; i < ya->nticks; i++) {
		double t = ya->ticks[i];
		if (!tick_visible(ya, t))
			continue;
		double y = px_y(ya, t);
		cairo_move_to(cr, AX_LEFT, y);
		cairo_line_to(cr, AX_LEFT - TICK_LEN, y);
		cairo_stroke(cr);
		tick_label(ya, t, label, sizeof label);
		/* va "center_baseline": the baseline sits half an ascent below y */
		widest = fmax(widest, text_at(cr, label, AX_LEFT - TICK_LEN - TICK_PAD,
					      y + m.ascent / 2 - 0.5, 1, false));
	}
	if (ya->oom) {
		snprintf(label, sizeof label, "1e%s%d", ya->oom < 0 ? "\u2212" : "", abs(ya->oom));
		text_at(cr, label, AX_LEFT, AX_TOP - TICK_PAD - m.descent, 0, false);
	}
	cairo_save(cr);
	cairo_translate(cr, AX_LEFT - TICK_LEN - TICK_PAD - widest - LABEL_PAD,
			AX_TOP + AX_HEIGHT / 2);
	cairo_rotate(cr, -M_PI / 2);
	text_at(cr, "Memory (GB)", 0, -m.descent, 0.5, false);
	cairo_restore(cr);
}

/* Lines of the title, the last one's baseline TITLE_PAD above the axes. */
static void draw_title(cairo_t *cr, const char *title)
{
	cairo_set_source_rgb(cr, 0, 0, 0);
	cairo_set_font_size(cr, TITLE_SIZE);
	int lines = 1;
	for (const char *p = title; *p; p++)
		lines += *p == '\n';
	double y = AX_TOP - TITLE_PAD - (lines - 1) * 1.2 * TITLE_SIZE;
	const char *p = title;
	for (int i = 0; i < lines; i++) {
		size_t n = strcspn(p, "\n");
		char line[256];
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line ? n : sizeof line - 1), p);
		text_at(cr, line, AX_LEFT + AX_WIDTH / 2, y, 0.5, false);
		y += 1.2 * TITLE_SIZE;
		p += n + (p[n] == '\n');
	}
}

/* fig.legend(...): upper right of the figure, one patch per category. */
static void draw_legend(cairo_t *cr)
{
	const double fs = FONT_SIZE, pad = 0.4 * fs, gap = 0.5 * fs;
	const double handle_w = 2.0 * fs, handle_h = 0.7 * fs, text_gap = 0.8 * fs;
	cairo_set_font_size(cr, fs);
	struct text_metrics m = metrics(cr);
	double row_h = m.ascent + m.descent, text_w = 0;
	for (int c = 0; c < FK_MEM_NCAT; c++) {
		cairo_text_extents_t e;
		cairo_text_extents(cr, fk_mem_category_names[c], &e);
		text_w = fmax(text_w, e.x_advance);
	}
	double w = 2 * pad + handle_w + text_gap + text_w;
	double h = 2 * pad + FK_MEM_NCAT * row_h + (FK_MEM_NCAT - 1) * gap;
	double x0 = FK_MEMPLOT_WIDTH - 0.5 * fs - w, y0 = 0.5 * fs, r = 0.2 * fs;
	cairo_new_path(cr);
	cairo_arc(cr, x0 + w - r, y0 + r, r, -M_PI / 2, 0);
	cairo_arc(cr, x0 + w - r, y0 + h - r, r, 0, M_PI / 2);
	cairo_arc(cr, x0 + r, y0 + h - r, r, M_PI / 2, M_PI);
	cairo_arc(cr, x0 + r, y0 + r, r, M_PI, 3 * M_PI / 2);
	cairo_close_path(cr);
	cairo_set_source_rgba(cr, 1, 1, 1, 0.8);
	cairo_fill_preserve(cr);
	cairo_set_source_rgba(cr, 0.8, 0.8, 0.8, 0.8);
	cairo_set_line_width(cr, EDGE_WIDTH);
	cairo_stroke(cr);
	for (int c = 0; c < FK_MEM_NCAT; c++) {
		double top = y0 + pad + c * (row_h + gap);
		double hx = x0 + pad, hy = top + (row_h - handle_h) / 2;
		cairo_rectangle(cr, hx, hy, handle_w, handle_h);
		set_rgb(cr, fk_mem_category_colors[c], ALPHA);
		cairo_fill_preserve(cr);
		cairo_stroke(cr);
		cairo_set_source_rgb(cr, 0, 0, 0);
		text_at(cr, fk_mem_category_names[c], hx + handle_w + text_gap, top, 0, true);
	}
}

struct png_buffer {
	unsigned char *p;
	size_t len, cap;
	bool failed;
};

static cairo_status_t png_write(void *closure, const unsigned char *data, unsigned int n)
{
	struct png_buffer *b = closure;
	if (n > SIZE_MAX - b->len || !FK_GROW(b->p, b->cap, b->len + n, 65536)) {
		b->failed = true;
		return CAIRO_STATUS_NO_MEMORY;
	}
	memcpy(b->p + b->len, data, n);
	b->len += n;
	return CAIRO_STATUS_SUCCESS;
}

int fk_memplot_png(const struct fk_mem_timeline *tl, const char *title, unsigned char **png,
		   size_t *len, const char **error)
{
	struct series s = { 0 };
	struct axis xa = { 0 }, ya = { 0 };
	struct png_buffer out = { 0 };
	int rc = -1;
	*error = "out of memory";
	measure(&s, tl);
	if (s.rows == 0)
		s.ymin = s.ymax = 0;
	axis_setup(&xa, 0, (double)(s.t_last - s.t_first) / 1e3);
	axis_setup(&ya, s.ymin, s.ymax);
	if (!collect(&s, tl, &xa))
		goto out;
	cairo_surface_t *surface =
		cairo_image_surface_create(CAIRO_FORMAT_RGB24, FK_MEMPLOT_WIDTH, FK_MEMPLOT_HEIGHT);
	cairo_t *cr = cairo_create(surface);
	cairo_set_source_rgb(cr, 1, 1, 1);
	cairo_paint(cr);
	cairo_save(cr);
	cairo_rectangle(cr, AX_LEFT, AX_TOP, AX_WIDTH, AX_HEIGHT);
	cairo_clip(cr);
	cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
	cairo_set_line_width(cr, EDGE_WIDTH);
	for (int c = 0; c < FK_MEM_NCAT && s.rows > 0; c++) {
		band_path(cr, &s, &xa, &ya, c);
		set_rgb(cr, fk_mem_category_colors[c], ALPHA);
		cairo_fill_preserve(cr);
		cairo_stroke(cr);
	}
	cairo_restore(cr);
	draw_axes(cr, &xa, &ya);
	draw_title(cr, title);
	draw_legend(cr);
	cairo_status_t st = cairo_status(cr);
	if (st == CAIRO_STATUS_SUCCESS)
		st = cairo_surface_write_to_png_stream(surface, png_write, &out);
	cairo_destroy(cr);
	cairo_surface_destroy(surface);
	if (st != CAIRO_STATUS_SUCCESS || out.failed) {
		*error = cairo_status_to_string(st);
		free(out.p);
		goto out;
	}
	*png = out.p;
	*len = out.len;
	rc = 0;
out:
	free(s.x);
	free(s.y);
	free(s.lo);
	free(s.hi);
	free(s.used);
	return rc;
}

void fk_memplot_release(void)
{
	cairo_debug_reset_static_data();
	FcFini();
}
