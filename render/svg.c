/* svg.c - flame graph SVG writer (see svg.h). */
#include "render/svg.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/mem/events.h"
#include "render/fixfmt.h"
#include "render/utf8.h"
#include "render/xml.h"

extern const char fk_asset_flamegraph_js[];
extern const char fk_asset_flamegraph_css[];

/* flamegraph.pl's fixed paddings. */
#define XPAD 10
#define FRAMEPAD 1

void fk_perl_number(double v, char *buf, size_t n)
{
	fk_g15(v, buf, n);
	if (strcmp(buf, "-0") == 0)
		snprintf(buf, n, "0");
}

void fk_commas(const char *digits, char *buf, size_t n)
{
	size_t len = strlen(digits), o = 0;
	size_t lead = (digits[0] == '-' || digits[0] == '+') ? 1 : 0;
	for (size_t i = 0; i < len && o + 2 < n; i++) {
		buf[o++] = digits[i];
		size_t left = len - 1 - i;
		if (i >= lead && left > 0 && left % 3 == 0)
			buf[o++] = ',';
	}
	buf[o] = '\0';
}

/* sprintf("%0.1f") and back: flamegraph.pl computes widths from the rounded
 * text of both ends, so widths must be derived the same way. */
static double round1(double v, char *buf, size_t n)
{
	uint64_t r;
	if (n >= FK_FIXED_TEXT_MAX && fk_fixed_scaled(v, 1, &r)) {
		/* r / 10.0 is the double nearest the text, as strtod's is. */
		fk_fixed_text(signbit(v) != 0, r, 1, buf);
		return copysign((double)r / 10, v);
	}
	snprintf(buf, n, "%0.1f", v);
	return strtod(buf, NULL);
}

/* Appends s at o (no NUL); returns the end: the pieces of one frame's
 * lines are put together in one buffer and written with one fwrite. */
static char *put(char *o, const char *s)
{
	size_t len = strlen(s);
	memcpy(o, s, len);
	return o + len;
}

static const char *annotation_free(const char *p, size_t *len)
{
	/* _[k] kernel, _[w] waker, _[i] inlined, _[j] JIT: colour hints only. */
	if (*len >= 4 && p[*len - 4] == '_' && p[*len - 3] == '[' && p[*len - 1] == ']' &&
	    p[*len - 2] != '\0' && strchr("kwij", p[*len - 2]))
		*len -= 4;
	return p;
}

struct geometry {
	double imageheight, ypad1, ypad2, widthpertime;
};

static void write_header(FILE *out, const struct fk_flame_opts *o, double height)
{
	char h[32];
	fk_perl_number(height, h, sizeof h);
	fputs("<?xml version=\"1.0\"", out);
	if (o->encoding) {
		fputs(" encoding=\"", out);
		fk_xml_write_str(out, o->encoding, true);
		fputc('"', out);
	}
	fputs(" standalone=\"no\"?>\n"
	      "<!DOCTYPE svg PUBLIC \"-//W3C//DTD SVG 1.1//EN\" \"http://www.w3.org/Graphics/SVG/1.1/DTD/svg11.dtd\">\n", out);
	fprintf(out, "<svg version=\"1.1\" width=\"%ld\" height=\"%s\" onload=\"init(evt)\" viewBox=\"0 0 %ld %s\" "
		"xmlns=\"http://www.w3.org/2000/svg\" xmlns:xlink=\"http://www.w3.org/1999/xlink\">\n",
		o->width, h, o->width, h);
	fputs("<!-- Flame graph drawn by flamekit's flamegraph, compatible with https://github.com/brendangregg/FlameGraph -->\n", out);
	fputs("<!-- NOTES: ", out);
	if (o->notes)
		fk_xml_write_str(out, o->notes, false);
	fputs(" -->\n", out);
}

/* <text id=.. x="%0.2f" y=..>: stringTTF in flamegraph.pl. */
static void write_text(FILE *out, const char *id, double x, double y, const char *extra,
		       const char *text)
{
	char ys[32], xs[48];
	fk_perl_number(y, ys, sizeof ys);
	fk_fixed(x, 2, xs, sizeof xs);
	fprintf(out, "<text %s%s%s x=\"%s\" y=\"%s\" %s>", id ? "id=\"" : "", id ? id : "",
		id ? "\"" : "", xs, ys, extra ? extra : "");
	fk_xml_write_str(out, text, false);
	fputs("</text>\n", out);
}

static void bg_colors(const struct fk_flame_opts *o, const char **c1, const char **c2)
{
	const char *bg = o->bgcolors ? o->bgcolors : fk_palette_default_bg(o->palette);
	if (strcmp(bg, "blue") == 0)
		*c1 = "#eeeeee", *c2 = "#e0e0ff";
	else if (strcmp(bg, "green") == 0)
		*c1 = "#eef2ee", *c2 = "#e0ffe0";
	else if (strcmp(bg, "grey") == 0)
		*c1 = "#f8f8f8", *c2 = "#e8e8e8";
	else if (bg[0] == '#')
		*c1 = *c2 = bg; /* validated by the caller: #rrggbb */
	else
		*c1 = "#eeeeee", *c2 = "#eeeeb0";
}

static void write_defs_style_script(FILE *out, const struct fk_flame_opts *o)
{
	const char *c1, *c2;
	bg_colors(o, &c1, &c2);
	char fs[32], ts[32];
	fk_perl_number(o->fontsize, fs, sizeof fs);
	fk_perl_number(o->fontsize + 5, ts, sizeof ts);
	fprintf(out, "<defs>\n\t<linearGradient id=\"background\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\" >\n"
		"\t\t<stop stop-color=\"%s\" offset=\"5%%\" />\n\t\t<stop stop-color=\"%s\" offset=\"95%%\" />\n"
		"\t</linearGradient>\n</defs>\n", c1, c2);
	fputs("<style type=\"text/css\">\n\ttext { font-family:", out);
	fk_xml_write_str(out, o->fonttype, false);
	fprintf(out, "; font-size:%spx; fill:rgb(0,0,0); }\n\t#title { text-anchor:middle; font-size:%spx; }\n",
		fs, ts);
	fputs(fk_asset_flamegraph_css, out);
	fputs("</style>\n<script type=\"text/ecmascript\">\n<![CDATA[\nvar fk_config = {\"nametype\":", out);
	fk_json_string(out, o->nametype);
	fprintf(out, ",\"fontsize\":%s,\"fontwidth\":%.17g,\"xpad\":%d,\"inverted\":%s,\"searchcolor\":",
		fs, o->fontwidth, XPAD, o->inverted ? "true" : "false");
	fk_json_string(out, o->searchcolor);
	fputs("};\n]]>\n</script>\n<script type=\"text/ecmascript\">\n<![CDATA[\n", out);
	fputs(fk_asset_flamegraph_js, out);
	fputs("]]>\n</script>\n", out);
}

static const char *title_text(const struct fk_flame_opts *o)
{
	if (o->title && *o->title)
		return o->title;
	if (o->flamechart)
		return "Flame Chart";
	return o->inverted ? "Icicle Graph" : "Flame Graph";
}

/* "1,234 samples", or with --bytes "1.18 KiB = 1,234 bytes" (exact bytes
 * always there: the human figure is rounded). */
static void write_count(FILE *out, const char *count, const char *count_txt,
			const struct fk_flame_opts *o)
{
	double v = strtod(count, NULL);
	if (o->bytes && v >= 1024 && v < 9.2e18) {
		char human[32];
		fprintf(out, "%s = %s bytes", fk_mem_format_bytes(human, (int64_t)v), count_txt);
		return;
	}
	fputs(count_txt, out);
	fputc(' ', out);
	fk_xml_write_str(out, o->bytes ? "bytes" : o->countname, true);
}

static void write_frame(FILE *out, const struct fk_layout *L, const struct fk_frame *f,
			const struct geometry *g, double timemax, const struct fk_flame_opts *o,
			struct fk_rgb c)
{
	const struct fk_str *name = fk_strtab_get(&L->names, f->name);
	bool root = f->depth == 0 && name->len == 0;
	double x1 = XPAD + f->start * g->widthpertime;
	double x2 = XPAD + f->end * g->widthpertime;
	double y1, y2;
	if (!o->inverted) {
		y1 = g->imageheight - g->ypad2 - (f->depth + 1.0) * o->frameheight + FRAMEPAD;
		y2 = g->imageheight - g->ypad2 - (double)f->depth * o->frameheight;
	} else {
		y1 = g->ypad1 + (double)f->depth * o->frameheight;
		y2 = g->ypad1 + (f->depth + 1.0) * o->frameheight - FRAMEPAD;
	}

	/* <title>: "name (1,234 samples, 5.67%[; +1.00%])". flamegraph.pl
	 * prints sprintf("%.0f") of end - start: exact below 2^53, a rounded
	 * double above (2^64 - 1 shows as ...616). Integer counts are printed
	 * exactly instead: the same text wherever flamegraph.pl's is exact, the
	 * true count (never rounded or wrapped) where it is not, up to 2^128 - 1.
	 * Decimal counts and fractional --factor keep flamegraph.pl's %.0f. */
	char samples[400], samples_txt[540]; /* %.0f of up to 1e308, with commas */
	fk_u128 count;
	double samples_v; /* the double Perl reads back from the text */
	bool exact = f->exact && o->factor >= 1 && o->factor < 18446744073709551616.0 &&
		     o->factor == floor(o->factor) &&
		     !__builtin_mul_overflow(f->count, (fk_u128)o->factor, &count);
	if (exact)
		fk_u128_format(count, samples);
	else
		snprintf(samples, sizeof samples, "%.0f", (f->end - f->start) * o->factor);
	if (exact && count <= ((fk_u128)1 << 53))
		samples_v = (double)count; /* exact: the text's value itself */
	else
		samples_v = strtod(samples, NULL);
	fk_commas(samples, samples_txt, sizeof samples_txt);
	fputs("<g >\n<title>", out);
	if (root) {
		fputs("all (", out);
		write_count(out, samples, samples_txt, o);
		fputs(", 100%)", out);
	} else {
		size_t len = name->len;
		annotation_free(name->p, &len);
		fk_xml_write(out, name->p, len, true);
		fputs(" (", out);
		write_count(out, samples, samples_txt, o);
		char pct[400]; /* %.2f of up to 1.8e308 */
		fk_fixed(100 * samples_v / (timemax * o->factor), 2, pct, sizeof pct);
		fputs(", ", out);
		fputs(pct, out);
		fputc('%', out);
		if (f->has_delta) {
			double d = o->negate ? -f->delta : f->delta;
			if (d == 0)
				d = 0; /* no "-0.00%": Perl's deltas are integers */
			char dp[64];
			fk_fixed(100 * d / (timemax * o->factor), 2, dp, sizeof dp);
			fputs(d > 0 ? "; +" : "; ", out);
			fputs(dp, out);
			fputc('%', out);
		}
		fputc(')', out);
	}
	fputs("</title>", out);

	char x1s[48], x2s[48], ws[48], ys[32], hs[48];
	double rx1 = round1(x1, x1s, sizeof x1s);
	double rx2 = round1(x2, x2s, sizeof x2s);
	fk_fixed(rx2 - rx1, 1, ws, sizeof ws);
	fk_fixed(y2 - y1, 1, hs, sizeof hs);
	fk_perl_number(y1, ys, sizeof ys);
	char ty[32], tx[48], rgb[3][FK_U128_TEXT_MAX];
	fk_perl_number(3 + (y1 + y2) / 2, ty, sizeof ty);
	fk_fixed(x1 + 3, 2, tx, sizeof tx);
	fk_u128_format(c.r, rgb[0]);
	fk_u128_format(c.g, rgb[1]);
	fk_u128_format(c.b, rgb[2]);
	/* The <rect> line and the label's <text> tag: pieces of known size
	 * (at most 48 bytes a number), in one write instead of printf's. */
	char line[512], *p = line;
	p = put(p, "<rect x=\"");
	p = put(p, x1s);
	p = put(p, "\" y=\"");
	p = put(p, ys);
	p = put(p, "\" width=\"");
	p = put(p, ws);
	p = put(p, "\" height=\"");
	p = put(p, hs);
	p = put(p, "\" fill=\"rgb(");
	p = put(p, rgb[0]);
	p = put(p, ",");
	p = put(p, rgb[1]);
	p = put(p, ",");
	p = put(p, rgb[2]);
	p = put(p, ")\" rx=\"2\" ry=\"2\" />\n<text  x=\"");
	p = put(p, tx);
	p = put(p, "\" y=\"");
	p = put(p, ty);
	p = put(p, "\" >");
	fwrite(line, 1, (size_t)(p - line), out);

	/* Label: as many characters as fit, cut with "..". */
	double fit = (x2 - x1) / (o->fontsize * o->fontwidth);
	size_t chars = fit >= 3 ? (fit < 1e15 ? (size_t)fit : (size_t)1e15) : 0;
	if (chars >= 3 && !root) { /* flamegraph.pl leaves the root unlabelled */
		const char *label = name->p;
		size_t len = name->len;
		annotation_free(label, &len);
		size_t cut = fk_utf8_offset(label, len, chars);
		if (cut < len) {
			fk_xml_write(out, label, fk_utf8_offset(label, len, chars - 2), false);
			fputs("..", out);
		} else {
			fk_xml_write(out, label, len, false);
		}
	}
	fputs("</text>\n</g>\n", out);
}

void fk_svg_write_flame(FILE *out, const struct fk_layout *L, double timemax,
			const struct fk_flame_opts *o, fk_frame_color_fn color, void *ctx)
{
	bool has_subtitle = o->subtitle && *o->subtitle;
	struct geometry g = {
		.ypad1 = o->fontsize * 3,
		.ypad2 = o->fontsize * 2 + 10,
		.widthpertime = (double)(o->width - 2 * XPAD) / timemax,
	};
	g.imageheight = (L->depthmax + 1.0) * o->frameheight + g.ypad1 + g.ypad2 +
			(has_subtitle ? o->fontsize * 2 : 0);

	write_header(out, o, g.imageheight);
	if (L->omitted)
		fprintf(out, "<!-- flamekit: %llu frames narrower than the minimum width were left out; "
			"their time shows as their parents' own time -->\n",
			(unsigned long long)L->omitted);
	write_defs_style_script(out, o);

	char w[32], h[32];
	fk_fixed((double)o->width, 1, w, sizeof w);
	fk_fixed(g.imageheight, 1, h, sizeof h);
	fprintf(out, "<rect x=\"0.0\" y=\"0\" width=\"%s\" height=\"%s\" fill=\"url(#background)\"  />\n", w, h);
	double mid = (double)(o->width / 2);
	write_text(out, "title", mid, o->fontsize * 2, NULL, title_text(o));
	if (has_subtitle)
		write_text(out, "subtitle", mid, o->fontsize * 4, NULL, o->subtitle);
	write_text(out, "details", XPAD, g.imageheight - g.ypad2 / 2, NULL, " ");
	write_text(out, "unzoom", XPAD, o->fontsize * 2, "class=\"hide\"", "Reset Zoom");
	write_text(out, "search", (double)(o->width - XPAD - 100), o->fontsize * 2, NULL, "Search");
	write_text(out, "ignorecase", (double)(o->width - XPAD - 16), o->fontsize * 2, NULL, "ic");
	write_text(out, "matched", (double)(o->width - XPAD - 100), g.imageheight - g.ypad2 / 2, NULL, " ");

	fputs("<g id=\"frames\">\n", out);
	for (size_t i = 0; i < L->count; i++)
		write_frame(out, L, &L->frames[i], &g, timemax, o, color(ctx, L, &L->frames[i]));
	fputs("</g>\n</svg>\n", out);
}

void fk_svg_write_empty(FILE *out, const struct fk_flame_opts *o)
{
	write_header(out, o, o->fontsize * 5);
	write_text(out, NULL, (double)(o->width / 2), o->fontsize * 2, NULL,
		   "ERROR: No valid input provided to flamegraph.");
	fputs("</svg>\n", out);
}
