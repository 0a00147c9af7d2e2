/* view.c - stackfold --table's columns, sort names and rows (see
 * view.h). */
#include "analysis/table/view.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fk_tableview_sort_known(const char *name)
{
	static const char *const known[] = {
		"self", "total", "calls", "avg", "name", "count",
		"self_cpu_time_total", "cpu_time_total", "self_cuda_time_total", "cuda_time_total",
		"cpu_time", "cuda_time", "self_cpu_memory_usage", "cpu_memory_usage",
		"self_cuda_memory_usage", "cuda_memory_usage",
	};
	for (size_t i = 0; i < sizeof known / sizeof *known; i++)
		if (strcmp(name, known[i]) == 0)
			return true;
	return false;
}

static bool time_metric(enum fk_cap_metric m)
{
	return m == FK_METRIC_SELF_CPU || m == FK_METRIC_SELF_CUDA;
}

enum fk_cap_metric fk_tableview_capture_metric(enum fk_cap_metric m)
{
	return time_metric(m) ? FK_METRIC_SELF_CPU : m;
}

bool fk_tableview_wants_gpu(enum fk_cap_metric m)
{
	return time_metric(m);
}

/* What the first metric's values are, and whether its lines are calls. */
static void describe(const struct fk_tableview_opts *o, struct fk_toptable_metric *mt, bool *calls)
{
	enum fk_cap_metric m = o->capture ? fk_tableview_capture_metric(o->metric) : o->metric;
	*calls = false;
	*mt = (struct fk_toptable_metric){ .key = "value", .unit = FK_UNIT_NUMBER };
	if (!o->capture && !o->metric_given)
		return; /* folded numbers: samples, periods, anything */
	switch (m) {
	case FK_METRIC_SELF_CPU:
	case FK_METRIC_SELF_CUDA: {
		bool cuda = m == FK_METRIC_SELF_CUDA;
		*mt = (struct fk_toptable_metric){ .label = cuda ? "CUDA" : "CPU",
						   .key = cuda ? "cuda_time_us" : "cpu_time_us",
						   .unit = FK_UNIT_US, .device = cuda };
		/* torch export_stacks: one line per op call; traces: per event */
		*calls = mt->avg = !o->capture || o->per_event;
		break;
	}
	case FK_METRIC_ALLOC_BYTES:
	case FK_METRIC_GPU_ALLOC_BYTES: {
		bool cuda = m == FK_METRIC_GPU_ALLOC_BYTES;
		*mt = (struct fk_toptable_metric){ .label = cuda ? "CUDA" : "CPU",
						   .key = cuda ? "cuda_mem_bytes" : "cpu_mem_bytes",
						   .unit = FK_UNIT_BYTES };
		*calls = o->capture; /* a capture adds each allocation once */
		break;
	}
	case FK_METRIC_SAMPLES: mt->key = "samples"; break;
	case FK_METRIC_ALLOC_COUNT: mt->key = "allocations"; break;
	}
}

/* The metric a torch sort name refers to: by label and unit. */
static int metric_named(const struct fk_toptable *tt, const char *label, enum fk_toptable_unit u)
{
	for (int m = 0; m < tt->nmetrics; m++)
		if (tt->metric[m].label && strcmp(tt->metric[m].label, label) == 0 &&
		    tt->metric[m].unit == u)
			return m;
	return -1;
}

static bool resolve_sort(const struct fk_toptable *tt, const char *name, struct fk_table_sort *s)
{
	*s = (struct fk_table_sort){ FK_TABLE_SELF, 0 };
	if (!name || strcmp(name, "self") == 0)
		return true;
	if (strcmp(name, "total") == 0) {
		s->key = FK_TABLE_TOTAL;
		return true;
	}
	if (strcmp(name, "name") == 0) {
		s->key = FK_TABLE_NAME;
		return true;
	}
	if (strcmp(name, "calls") == 0 || strcmp(name, "count") == 0) {
		s->key = FK_TABLE_CALLS;
		return tt->calls;
	}
	if (strcmp(name, "avg") == 0) {
		s->key = FK_TABLE_AVG;
		for (int m = tt->nmetrics; m-- > 0;)
			if (tt->metric[m].avg) {
				s->metric = m;
				return true;
			}
		return false;
	}
	/* torch's names: [self_]{cpu,cuda}_{time_total,memory_usage}, {cpu,cuda}_time */
	bool self = strncmp(name, "self_", 5) == 0;
	const char *rest = self ? name + 5 : name;
	const char *label = strncmp(rest, "cpu_", 4) == 0 ? "CPU" : "CUDA";
	rest += strncmp(rest, "cpu_", 4) == 0 ? 4 : 5;
	enum fk_toptable_unit unit = strcmp(rest, "memory_usage") == 0 ? FK_UNIT_BYTES : FK_UNIT_US;
	int m = metric_named(tt, label, unit);
	if (m < 0)
		return false;
	s->metric = m;
	if (strcmp(rest, "time") == 0) {
		s->key = FK_TABLE_AVG;
		return tt->metric[m].avg;
	}
	s->key = self ? FK_TABLE_SELF : FK_TABLE_TOTAL;
	return true;
}

int fk_tableview_build(struct fk_toptable *tt, struct fk_table *t, const struct fk_stacks *first,
		       const struct fk_stacks *gpu, const struct fk_tableview_opts *o,
		       char *usage, size_t usage_len)
{
	*tt = (struct fk_toptable){ .t = t, .limit = o->limit, .nmetrics = 1 };
	*t = (struct fk_table){ 0 };
	describe(o, &tt->metric[0], &tt->calls);
	enum fk_table_calls calls = o->per_event ? FK_CALLS_LEAF : FK_CALLS_HELD;
	bool ok = fk_table_add(t, 0, first, tt->calls ? calls : FK_CALLS_NONE);
	if (ok && gpu && fk_stacks_count(gpu) > 0) {
		/* torch shows device columns when there is device time; the
		 * calls are the kernel launches */
		tt->metric[1] = (struct fk_toptable_metric){ .label = "CUDA", .key = "cuda_time_us",
							     .unit = FK_UNIT_US, .device = true,
							     .avg = true };
		tt->nmetrics = 2;
		tt->calls = true;
		ok = fk_table_add(t, 1, gpu, calls);
	}
	if (!ok)
		return 1;
	struct fk_table_sort sort;
	if (o->by == FK_TABLE_BY_KERNEL && tt->nmetrics < 2) {
		snprintf(usage, usage_len, "--by kernel needs a capture with GPU time");
		return 2;
	}
	if (!resolve_sort(tt, o->sort, &sort)) {
		snprintf(usage, usage_len, "--sort %s: this table has no such column", o->sort);
		return 2;
	}
	size_t n = fk_table_select(t, o->by, sort, &tt->rows);
	if (n == SIZE_MAX)
		return 1;
	tt->nrows = n;
	return 0;
}

void fk_tableview_free(struct fk_toptable *tt, struct fk_table *t)
{
	free(tt->rows);
	tt->rows = NULL;
	tt->nrows = 0;
	fk_table_free(t);
}
