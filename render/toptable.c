/* toptable.c - a top table as torch's text, CSV or JSON (see toptable.h). */
#include "render/toptable.h"

#include <inttypes.h>
#include <string.h>

#include "render/utf8.h"
#include "render/xml.h"

enum cell { SELF, SELF_PCT, TOTAL, TOTAL_PCT, AVG, CALLS };

struct col {
	enum cell cell;
	int m;
	char header[48];
};

#define MAX_COLS 16
#define COL_WIDTH 12     /* torch's DEFAULT_COLUMN_WIDTH */
#define NAME_MAX_WIDTH 55 /* its max_name_column_width */

static void add_col(struct col *cols, int *n, enum cell cell, int m, const char *fmt,
		    const char *label)
{
	cols[*n] = (struct col){ .cell = cell, .m = m };
	snprintf(cols[*n].header, sizeof cols[*n].header, fmt, label ? label : "");
	(*n)++;
}

/* torch's columns, in its order. */
static int columns(const struct fk_toptable *tt, struct col *cols)
{
	int n = 0;
	for (int m = 0; m < tt->nmetrics; m++) {
		const struct fk_toptable_metric *mt = &tt->metric[m];
		const char *l = mt->label;
		if (mt->unit == FK_UNIT_BYTES) {
			add_col(cols, &n, TOTAL, m, "%s Mem", l);
			add_col(cols, &n, SELF, m, "Self %s Mem", l);
			continue;
		}
		if (!l) {
			add_col(cols, &n, SELF_PCT, m, "Self %%%s", "");
			add_col(cols, &n, SELF, m, "Self%s", "");
			add_col(cols, &n, TOTAL_PCT, m, "Total %%%s", "");
			add_col(cols, &n, TOTAL, m, "Total%s", "");
			if (mt->avg)
				add_col(cols, &n, AVG, m, "Avg%s", "");
		} else if (mt->device) {
			add_col(cols, &n, SELF, m, "Self %s", l);
			add_col(cols, &n, SELF_PCT, m, "Self %s %%", l);
			add_col(cols, &n, TOTAL, m, "%s total", l);
			if (mt->avg)
				add_col(cols, &n, AVG, m, "%s time avg", l);
		} else {
			add_col(cols, &n, SELF_PCT, m, "Self %s %%", l);
			add_col(cols, &n, SELF, m, "Self %s", l);
			add_col(cols, &n, TOTAL_PCT, m, "%s total %%", l);
			add_col(cols, &n, TOTAL, m, "%s total", l);
			if (mt->avg)
				add_col(cols, &n, AVG, m, "%s time avg", l);
		}
	}
	if (tt->calls)
		add_col(cols, &n, CALLS, 0, "# of Calls%s", "");
	return n;
}

/* torch's _format_time: microseconds in. */
static void format_time(double us, char *buf, size_t n)
{
	if (us >= 1e6)
		snprintf(buf, n, "%.3fs", us / 1e6);
	else if (us >= 1e3)
		snprintf(buf, n, "%.3fms", us / 1e3);
	else
		snprintf(buf, n, "%.3fus", us);
}

/* torch's _format_memory. */
static void format_memory(struct fk_num v, char *buf, size_t n)
{
	double b = fk_num_to_double(v);
	const double kb = 1024, mb = kb * 1024, gb = mb * 1024;
	if (b >= gb)
		snprintf(buf, n, "%.2f Gb", b / gb);
	else if (b >= mb)
		snprintf(buf, n, "%.2f Mb", b / mb);
	else if (b >= kb)
		snprintf(buf, n, "%.2f Kb", b / kb);
	else {
		char num[FK_NUM_TEXT_MAX];
		fk_num_format(v, num);
		snprintf(buf, n, "%s b", num);
	}
}

static void format_value(const struct fk_toptable_metric *mt, struct fk_num v, char *buf, size_t n)
{
	if (mt->unit == FK_UNIT_US)
		format_time(fk_num_to_double(v), buf, n);
	else if (mt->unit == FK_UNIT_BYTES)
		format_memory(v, buf, n);
	else
		fk_num_format(v, buf);
}

/* A share in percent of the metric's grand total; false: the total is 0. */
static bool share(const struct fk_toptable *tt, int m, struct fk_num v, double *pct)
{
	double total = fk_num_to_double(tt->t->grand[m]);
	if (total == 0)
		return false;
	*pct = fk_num_to_double(v) * 100.0 / total;
	return true;
}

static bool average(const struct fk_table_row *r, int m, double *avg)
{
	if (!r->calls)
		return false;
	*avg = fk_num_to_double(r->total[m]) / (double)r->calls;
	return true;
}

/* One cell as text shows it. */
static void text_cell(const struct fk_toptable *tt, const struct fk_table_row *r,
		      const struct col *c, char *buf, size_t n)
{
	const struct fk_toptable_metric *mt = &tt->metric[c->m];
	double x;
	switch (c->cell) {
	case SELF: format_value(mt, r->self[c->m], buf, n); break;
	case TOTAL: format_value(mt, r->total[c->m], buf, n); break;
	case SELF_PCT:
	case TOTAL_PCT:
		if (share(tt, c->m, c->cell == SELF_PCT ? r->self[c->m] : r->total[c->m], &x))
			snprintf(buf, n, "%.2f%%", x);
		else
			snprintf(buf, n, "NaN");
		break;
	case AVG:
		if (!average(r, c->m, &x))
			snprintf(buf, n, "-");
		else if (mt->unit == FK_UNIT_US)
			format_time(x, buf, n);
		else
			snprintf(buf, n, "%.3f", x);
		break;
	case CALLS: snprintf(buf, n, "%" PRIu64, r->calls); break;
	}
}

/* Characters as Python counts them for its padding; a byte that is not
 * valid UTF-8 counts as one. */
static size_t code_points(const char *p, size_t len)
{
	size_t n = 0;
	bool valid;
	for (size_t i = 0; i < len; n++)
		fk_utf8_next(p, len, &i, &valid);
	return n;
}

/* Python's "{: >W}": right-aligned in W characters, never cut. */
static void put_right(FILE *out, const char *p, size_t len, size_t width)
{
	for (size_t w = code_points(p, len); w < width; w++)
		fputc(' ', out);
	fwrite(p, 1, len, out);
	fputs("  ", out);
}

static void rule(FILE *out, size_t name_width, int ncols)
{
	for (size_t i = 0; i < name_width; i++)
		fputc('-', out);
	fputs("  ", out);
	for (int c = 0; c < ncols; c++)
		fputs("------------  ", out);
	fputc('\n', out);
}

static void write_text(FILE *out, const struct fk_toptable *tt, const struct col *cols, int ncols,
		       size_t shown)
{
	size_t name_width = 0;
	for (size_t i = 0; i < tt->nrows; i++) {
		size_t w = code_points(tt->rows[i]->name, tt->rows[i]->len) + 4;
		name_width = w > name_width ? w : name_width;
	}
	if (name_width > NAME_MAX_WIDTH)
		name_width = NAME_MAX_WIDTH;
	rule(out, name_width, ncols);
	put_right(out, "Name", 4, name_width);
	for (int c = 0; c < ncols; c++)
		put_right(out, cols[c].header, strlen(cols[c].header), COL_WIDTH);
	fputc('\n', out);
	rule(out, name_width, ncols);
	for (size_t i = 0; i < shown; i++) {
		const struct fk_table_row *r = tt->rows[i];
		char name[4 * NAME_MAX_WIDTH + 8];
		size_t len = r->len;
		if (code_points(r->name, r->len) >= NAME_MAX_WIDTH - 3) {
			len = fk_utf8_offset(r->name, r->len, NAME_MAX_WIDTH - 3);
			memcpy(name, r->name, len);
			memcpy(name + len, "...", 3);
			len += 3;
		} else {
			memcpy(name, r->name, len);
		}
		put_right(out, name, len, name_width);
		for (int c = 0; c < ncols; c++) {
			char cell[64];
			text_cell(tt, r, &cols[c], cell, sizeof cell);
			put_right(out, cell, strlen(cell), COL_WIDTH);
		}
		fputc('\n', out);
	}
	rule(out, name_width, ncols);
	for (int m = 0; m < tt->nmetrics; m++) {
		const struct fk_toptable_metric *mt = &tt->metric[m];
		char total[64];
		format_value(mt, tt->t->grand[m], total, sizeof total);
		if (mt->unit == FK_UNIT_US)
			fprintf(out, "Self %s time total: %s\n", mt->label, total);
		else if (mt->unit == FK_UNIT_BYTES)
			fprintf(out, "Self %s Mem total: %s\n", mt->label, total);
		else
			fprintf(out, "Total: %s\n", total);
	}
}

/* ---- CSV and JSON: exact values under stable names ------------------------ */

static void field_name(const struct fk_toptable *tt, const struct col *c, char *buf, size_t n)
{
	const char *k = tt->metric[c->m].key;
	switch (c->cell) {
	case SELF: snprintf(buf, n, "self_%s", k); break;
	case SELF_PCT: snprintf(buf, n, "self_%s_pct", k); break;
	case TOTAL: snprintf(buf, n, "total_%s", k); break;
	case TOTAL_PCT: snprintf(buf, n, "total_%s_pct", k); break;
	case AVG: snprintf(buf, n, "avg_%s", k); break;
	case CALLS: snprintf(buf, n, "calls"); break;
	}
}

/* Every column of the machine formats: percentages for every unit but
 * bytes, whatever torch's text shows. */
static int machine_columns(const struct fk_toptable *tt, struct col *cols)
{
	int n = 0;
	for (int m = 0; m < tt->nmetrics; m++) {
		bool bytes = tt->metric[m].unit == FK_UNIT_BYTES;
		cols[n++] = (struct col){ .cell = SELF, .m = m };
		if (!bytes)
			cols[n++] = (struct col){ .cell = SELF_PCT, .m = m };
		cols[n++] = (struct col){ .cell = TOTAL, .m = m };
		if (!bytes)
			cols[n++] = (struct col){ .cell = TOTAL_PCT, .m = m };
		if (tt->metric[m].avg)
			cols[n++] = (struct col){ .cell = AVG, .m = m };
	}
	if (tt->calls)
		cols[n++] = (struct col){ .cell = CALLS };
	return n;
}

/* An exact value, a share or an average as a bare number; "" (CSV) or
 * null (JSON) when it has none. */
static void machine_cell(const struct fk_toptable *tt, const struct fk_table_row *r,
			 const struct col *c, char *buf, size_t n, const char *none)
{
	double x;
	switch (c->cell) {
	case SELF: fk_num_format(r->self[c->m], buf); break;
	case TOTAL: fk_num_format(r->total[c->m], buf); break;
	case SELF_PCT:
	case TOTAL_PCT:
		if (share(tt, c->m, c->cell == SELF_PCT ? r->self[c->m] : r->total[c->m], &x))
			snprintf(buf, n, "%.2f", x);
		else
			snprintf(buf, n, "%s", none);
		break;
	case AVG:
		if (average(r, c->m, &x))
			snprintf(buf, n, "%.3f", x);
		else
			snprintf(buf, n, "%s", none);
		break;
	case CALLS: snprintf(buf, n, "%" PRIu64, r->calls); break;
	}
}

static void csv_string(FILE *out, const char *p, size_t len)
{
	if (!memchr(p, ',', len) && !memchr(p, '"', len) && !memchr(p, '\n', len) &&
	    !memchr(p, '\r', len)) {
		fwrite(p, 1, len, out);
		return;
	}
	fputc('"', out);
	for (size_t i = 0; i < len; i++) {
		if (p[i] == '"')
			fputc('"', out);
		fputc(p[i], out);
	}
	fputc('"', out);
}

static void write_csv(FILE *out, const struct fk_toptable *tt, const struct col *cols, int ncols,
		      size_t shown)
{
	fputs("name", out);
	for (int c = 0; c < ncols; c++) {
		char f[64];
		field_name(tt, &cols[c], f, sizeof f);
		fprintf(out, ",%s", f);
	}
	fputc('\n', out);
	for (size_t i = 0; i < shown; i++) {
		csv_string(out, tt->rows[i]->name, tt->rows[i]->len);
		for (int c = 0; c < ncols; c++) {
			char cell[FK_NUM_TEXT_MAX + 16];
			machine_cell(tt, tt->rows[i], &cols[c], cell, sizeof cell, "");
			fprintf(out, ",%s", cell);
		}
		fputc('\n', out);
	}
}

static const char *unit_name(enum fk_toptable_unit u)
{
	return u == FK_UNIT_US ? "us" : u == FK_UNIT_BYTES ? "bytes" : "number";
}

static void write_json(FILE *out, const struct fk_toptable *tt, const struct col *cols, int ncols,
		       size_t shown)
{
	fputs("{\"metrics\":[", out);
	for (int m = 0; m < tt->nmetrics; m++) {
		const struct fk_toptable_metric *mt = &tt->metric[m];
		char total[FK_NUM_TEXT_MAX];
		fk_num_format(tt->t->grand[m], total);
		fprintf(out, "%s{\"key\":\"%s\",\"unit\":\"%s\",\"total\":%s}", m ? "," : "", mt->key,
			unit_name(mt->unit), total);
	}
	fputs("]", out);
	if (tt->calls)
		fprintf(out, ",\"calls\":%" PRIu64, tt->t->grand_calls);
	fprintf(out, ",\"rows_total\":%zu,\"rows\":[", tt->nrows);
	for (size_t i = 0; i < shown; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", out);
		fk_json_string(out, tt->rows[i]->name);
		for (int c = 0; c < ncols; c++) {
			char f[64], cell[FK_NUM_TEXT_MAX + 16];
			field_name(tt, &cols[c], f, sizeof f);
			machine_cell(tt, tt->rows[i], &cols[c], cell, sizeof cell, "null");
			fprintf(out, ",\"%s\":%s", f, cell);
		}
		fputc('}', out);
	}
	fputs("]}\n", out);
}

bool fk_toptable_write(FILE *out, const struct fk_toptable *tt, enum fk_toptable_format f)
{
	struct col cols[MAX_COLS];
	size_t shown = tt->limit && tt->limit < tt->nrows ? tt->limit : tt->nrows;
	if (f == FK_TOPTABLE_TEXT)
		write_text(out, tt, cols, columns(tt, cols), shown);
	else if (f == FK_TOPTABLE_CSV)
		write_csv(out, tt, cols, machine_columns(tt, cols), shown);
	else
		write_json(out, tt, cols, machine_columns(tt, cols), shown);
	return !ferror(out);
}

int fk_tableview_write(FILE *out, const struct fk_stacks *first, const struct fk_stacks *gpu,
		       const struct fk_tableview_opts *o, char *usage, size_t usage_len)
{
	struct fk_toptable tt;
	struct fk_table t;
	int status = fk_tableview_build(&tt, &t, first, gpu, o, usage, usage_len);
	if (status == 0 && (tt.nrows > 0 || o->format != FK_TOPTABLE_TEXT) &&
	    !fk_toptable_write(out, &tt, o->format))
		status = 1;
	fk_tableview_free(&tt, &t);
	return status;
}
