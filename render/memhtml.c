/* memhtml.c - the memory timeline page (see memhtml.h). */
#include "render/memhtml.h"

#include <inttypes.h>

#include "render/base64.h"
#include "render/memcolors.h"
#include "render/memplot.h"
#include "render/xml.h"

#define GIB (1024.0 * 1024.0 * 1024.0)

void fk_memhtml_title(char *buf, size_t n, const struct fk_mem_timeline *tl,
		      const struct fk_mem_report *rep)
{
	int64_t peak = rep->peak_total > 0 ? rep->peak_total : 0;
	if (tl->max_reserved >= 0)
		snprintf(buf, n, "Max memory allocated: %.2f GiB \nMax memory reserved: %.2f GiB",
			 (double)peak / GIB, (double)tl->max_reserved / GIB);
	else
		snprintf(buf, n, "Max memory allocated: %.2f GiB", (double)peak / GIB);
}

static void bytes_cell(FILE *out, int64_t v)
{
	char b[32];
	fprintf(out, "<td class=\"n\">%s</td>", fk_mem_format_bytes(b, v));
}

static void category_cell(FILE *out, unsigned c)
{
	fprintf(out, "<td><span class=\"sw\" style=\"background:#%06x\"></span>%s</td>",
		fk_mem_category_colors[c], fk_mem_category_names[c]);
}

static void peak_table(FILE *out, const struct fk_mem_report *rep)
{
	fputs("<table>\n<tr><th>category</th><th>at the peak</th><th>its own maximum</th>"
	      "<th>at the end</th></tr>\n", out);
	int64_t at_end = 0;
	for (unsigned c = 0; c < FK_MEM_NCAT; c++) {
		fputs("<tr>", out);
		category_cell(out, c);
		bytes_cell(out, rep->peak[c]);
		bytes_cell(out, rep->max[c]);
		bytes_cell(out, rep->final[c]);
		fputs("</tr>\n", out);
		at_end += rep->final[c];
	}
	fputs("<tr class=\"total\"><td>total</td>", out);
	bytes_cell(out, rep->peak_total);
	fputs("<td></td>", out);
	bytes_cell(out, at_end);
	fputs("</tr>\n</table>\n", out);
}

static void allocations_table(FILE *out, const struct fk_mem_timeline *tl,
			      const struct fk_mem_report *rep)
{
	size_t shown = rep->n_at_peak < FK_MEMHTML_TOP ? rep->n_at_peak : FK_MEMHTML_TOP;
	fputs("<h3>Largest allocations live at the peak</h3>\n", out);
	if (shown == 0) {
		fputs("<p>None.</p>\n", out);
		return;
	}
	bool stacks = tl->stack != NULL;
	fprintf(out, "<table>\n<tr><th>size</th><th>count</th><th>category</th>"
		"<th>allocated at (ms)</th>%s</tr>\n", stacks ? "<th>stack</th>" : "");
	for (size_t i = 0; i < shown; i++) {
		const struct fk_mem_group *g = &rep->at_peak[i];
		fputs("<tr>", out);
		bytes_cell(out, (int64_t)g->bytes);
		fprintf(out, "<td class=\"n\">%" PRIu64 "</td>", g->count);
		category_cell(out, g->category);
		if (g->first_t_ns == FK_MEM_NO_TIME)
			fputs("<td>before the timeline</td>", out);
		else if (g->last_t_ns != g->first_t_ns) /* a group made over a while */
			fprintf(out, "<td class=\"n\">%.3f&#8211;%.3f</td>",
				fk_mem_report_ms(rep, g->first_t_ns), fk_mem_report_ms(rep, g->last_t_ns));
		else
			fprintf(out, "<td class=\"n\">%.3f</td>", fk_mem_report_ms(rep, g->first_t_ns));
		const struct fk_str *st = fk_mem_stack_text(tl, g->stack);
		if (stacks) {
			fputs("<td><code>", out);
			if (st)
				fk_xml_write(out, st->p, st->len, false);
			fputs("</code></td>", out);
		}
		fputs("</tr>\n", out);
	}
	fputs("</table>\n", out);
	if (!stacks)
		fputs("<p>The input has no stacks (torch raw timelines do not keep them): "
		      "allocations of the same category and size are counted together.</p>\n", out);
	if (shown < rep->n_at_peak)
		fprintf(out, "<p>%zu more kinds of allocation are not listed.</p>\n",
			rep->n_at_peak - shown);
}

void fk_memhtml_write(FILE *out, const unsigned char *png, size_t png_len,
		      const struct fk_mem_timeline *tl, const struct fk_mem_report *rep,
		      const char *loss)
{
	char b[32];
	/* torch's wrapper, byte for byte, with the report before </body>; a
	 * host heap's page says so in its title. */
	bool host = tl->device && tl->count > 0 && tl->device[0] == FK_MEM_DEVICE_CPU;
	fprintf(out, "<html>\n<head><meta charset=\"utf-8\" /><title>%s Memory Timeline HTML</title>"
		"</head>\n<body>\n  <img src='data:image/png;base64,", host ? "Host" : "GPU");
	fk_base64_write(out, png, png_len);
	fputs("'>\n", out);
	/* The 1600 px plot shrinks to a narrower window (torch's overflows). */
	fputs("<style>img{max-width:100%;height:auto}"
	      "#flamekit-report{font:14px sans-serif;margin:1em 2em}"
	      "#flamekit-report td,#flamekit-report th{padding:2px 10px;text-align:left}"
	      "#flamekit-report td.n{text-align:right;font-variant-numeric:tabular-nums}"
	      "#flamekit-report tr.total td{border-top:1px solid #888;font-weight:bold}"
	      "#flamekit-report .sw{display:inline-block;width:1.6em;height:.7em;opacity:.7;"
	      "margin-right:.5em}</style>\n<section id=\"flamekit-report\">\n", out);
	fprintf(out, "<h2>Peak: %s", fk_mem_format_bytes(b, rep->peak_total));
	if (rep->peak_t_ns == FK_MEM_NO_TIME)
		fputs(" before the first event</h2>\n", out);
	else
		fprintf(out, " at %.3f ms</h2>\n", fk_mem_report_ms(rep, rep->peak_t_ns));
	if (loss && *loss) { /* before any number: they stand for less than the run */
		fputs("<p class=\"lost\"><b>Incomplete input:</b> ", out);
		fk_xml_write_str(out, loss, false);
		fputs("</p>\n", out);
	}
	peak_table(out, rep);
	fprintf(out, "<p>%zu events: %" PRIu64 " PREEXISTING, %" PRIu64 " CREATE, %" PRIu64
		" INCREMENT_VERSION, %" PRIu64 " DESTROY, over %.3f ms.</p>\n", rep->events,
		rep->by_action[1], rep->by_action[2], rep->by_action[3], rep->by_action[4],
		fk_mem_report_ms(rep, rep->last_t_ns));
	allocations_table(out, tl, rep);
	fputs("</section>\n</body>\n</html>", out);
}
