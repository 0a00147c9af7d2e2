/* stackfold_run.c - the stackfold command (see stackfold_run.h). */
#include "render/stackfold_run.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/core/folded_write.h"
#include "analysis/core/transform.h"
#include "formats/cli.h"
#include "render/pprof_out.h"
#include "render/speedscope.h"
#include "render/toptable.h"

void fk_stackfold_opts_defaults(struct fk_stackfold_opts *o)
{
	*o = (struct fk_stackfold_opts){ .order = FK_ORDER_STACK };
	o->read.capture.metric = FK_METRIC_SELF_CPU;
	o->tableview.limit = 100;
}

/* Repeated --include/--exclude patterns match as alternatives. Each is
 * checked alone first so an error names the pattern the user wrote. */
static struct fk_regex *compile_any(const char *const *list, size_t count, const char *opt,
				    struct fk_diag *d, int *status)
{
	char err[512];
	size_t len = 1;
	for (size_t i = 0; i < count; i++) {
		struct fk_regex *one = fk_regex_compile(list[i], err, sizeof err);
		if (!one) {
			fk_diag_error(d, "%s: %s", opt, err);
			*status = FK_EXIT_USAGE;
			return NULL;
		}
		fk_regex_free(one);
		len += strlen(list[i]) + 6;
	}
	char *joined = malloc(len);
	if (!joined) {
		fk_diag_error(d, "out of memory");
		*status = FK_EXIT_BAD_INPUT;
		return NULL;
	}
	joined[0] = '\0';
	for (size_t i = 0; i < count; i++) {
		strcat(joined, i ? "|(?:" : "(?:");
		strcat(joined, list[i]);
		strcat(joined, ")");
	}
	struct fk_regex *re = fk_regex_compile(joined, err, sizeof err);
	if (!re) {
		fk_diag_error(d, "%s: %s", opt, err);
		*status = FK_EXIT_USAGE;
	}
	free(joined);
	return re;
}

static const char *fold_failure(enum fk_stacks_status st)
{
	return st == FK_STACKS_OVERFLOW ? "scaled or merged value passes 128 bits or 18 decimals"
	       : st == FK_STACKS_MATCH_FAILED
		       ? "an --include/--exclude pattern could not be matched (PCRE2 match limit): simplify it"
		       : "out of memory";
}

/* Whether the stacks read like torch's export_stacks: a frame "FILE.py(N):"
 * (torch's Python frames, spaces made '_'). Looked for in the first stacks
 * only: a table is cheap, but a look at every stack is not needed. */
static bool torch_frame(const struct fk_str *k)
{
	for (const char *p = k->p, *end = k->p + k->len;
	     (p = memmem(p, (size_t)(end - p), ".py(", 4)) != NULL; p += 4) {
		const char *q = p + 4;
		while (q < end && *q >= '0' && *q <= '9')
			q++;
		if (q > p + 4 && q + 1 < end && q[0] == ')' && q[1] == ':')
			return true;
	}
	return false;
}

static bool torch_stacks(const struct fk_stacks *s)
{
	uint32_t n = fk_stacks_count(s) < 64 ? fk_stacks_count(s) : 64;
	for (uint32_t id = 0; id < n; id++) {
		const struct fk_stack_entry *e = fk_stackset_get(&s->set, id);
		for (uint32_t f = 0; f < e->nframes; f++)
			if (torch_frame(fk_stackset_frame(&s->set, e->frames[f])))
				return true;
	}
	return false;
}

static int write_table(const struct fk_stackfold_opts *o, const struct fk_tableview_opts *tv,
		       const struct fk_stacks *result, const struct fk_stacks *gpu,
		       struct fk_diag *d)
{
	int status = FK_EXIT_OK;
	/* torch export_stacks without --metric: torch's own default metric,
	 * self_cpu_time_total (us), as key_averages() shows it. */
	struct fk_tableview_opts view = *tv;
	if (!view.capture && !view.metric_given && torch_stacks(result)) {
		view.metric_given = true;
		view.metric = FK_METRIC_SELF_CPU;
	}
	FILE *out = fk_cli_open_output(d->prog, o->output);
	char why[160];
	int st = out ? fk_tableview_write(out, result, gpu, &view, why, sizeof why) : 1;
	if (st == 2) {
		fk_diag_error(d, "%s", why);
		status = FK_EXIT_USAGE;
	} else if (st != 0) {
		status = FK_EXIT_BAD_INPUT;
	}
	if (out && !fk_cli_close_output(d->prog, out, o->output))
		status = FK_EXIT_BAD_INPUT;
	return status;
}

static int write_folded(const struct fk_stackfold_opts *o, const struct fk_stacks *result,
			const struct fk_fold_stats *stats, struct fk_diag *d)
{
	int status = FK_EXIT_OK;
	FILE *out = fk_cli_open_output(d->prog, o->output);
	uint32_t *ids = fk_stacks_sorted(result, o->order);
	if (!out || !ids) {
		if (out && !ids)
			fk_diag_error(d, "out of memory");
		status = FK_EXIT_BAD_INPUT;
	} else {
		struct fk_folded_opts wo = { .order = ids, .count = fk_stacks_count(result),
					     .min = o->min };
		uint64_t written;
		fk_folded_write(out, result, &wo, &written);
		if (written == 0 && stats->filtered > 0)
			fk_diag_note(d, "all %llu stacks were removed by --include/--exclude",
				     (unsigned long long)stats->filtered);
	}
	if (out && !fk_cli_close_output(d->prog, out, o->output))
		status = FK_EXIT_BAD_INPUT;
	free(ids);
	return status;
}

/* A capture metric's sample type: pprof's names where it has them. */
static struct fk_profile_type metric_type(int m, const struct fk_stacks *s)
{
	static const struct { const char *name; enum fk_profile_unit unit; } types[] = {
		[FK_METRIC_SELF_CPU] = { "cpu", FK_PUNIT_MICROSECONDS },
		[FK_METRIC_SAMPLES] = { "samples", FK_PUNIT_COUNT },
		[FK_METRIC_ALLOC_BYTES] = { "alloc_space", FK_PUNIT_BYTES },
		[FK_METRIC_ALLOC_COUNT] = { "alloc_objects", FK_PUNIT_COUNT },
		[FK_METRIC_SELF_CUDA] = { "cuda", FK_PUNIT_MICROSECONDS },
		[FK_METRIC_GPU_ALLOC_BYTES] = { "gpu_alloc_space", FK_PUNIT_BYTES },
	};
	return (struct fk_profile_type){ .name = types[m].name, .unit = types[m].unit, .stacks = s };
}

/* The one sample type of inputs other than captures: what their values
 * count, as far as the kind (and --metric) tell. */
static struct fk_profile_type input_type(const struct fk_stackfold_opts *o, enum fk_input_kind kind,
					 const struct fk_stacks *s)
{
	enum fk_cap_metric m = o->read.capture.metric;
	bool times = o->tableview.metric_given || kind == FK_KIND_CHROME_TRACE ||
		     (kind == FK_KIND_STACKS && torch_stacks(s));
	if (kind == FK_KIND_PERF || kind == FK_KIND_DTRACE)
		return (struct fk_profile_type){ .name = "samples", .unit = FK_PUNIT_COUNT, .stacks = s };
	if (times && (m == FK_METRIC_SELF_CPU || m == FK_METRIC_SELF_CUDA))
		return metric_type(m, s);
	return (struct fk_profile_type){ .name = "value", .unit = FK_PUNIT_NONE, .stacks = s };
}

/* --format speedscope|pprof: the folded tables (one per capture metric
 * when multi, else one) as a profile, named by the first input. */
static int write_profile(const struct fk_stackfold_opts *o, const struct fk_stacks *tables,
			 bool multi, const struct fk_stacks *threads,
			 const struct fk_stackfold_timeline *timeline,
			 const struct fk_stackfold_found *first, const char *name, const char *loss,
			 struct fk_diag *d)
{
	static const int order[] = { FK_METRIC_SELF_CPU, FK_METRIC_SAMPLES, FK_METRIC_SELF_CUDA,
				     FK_METRIC_ALLOC_BYTES, FK_METRIC_ALLOC_COUNT,
				     FK_METRIC_GPU_ALLOC_BYTES };
	struct fk_profile p = { .name = name, .loss = loss, .timeline = timeline };
	if (first->kind == FK_KIND_CAPTURE) {
		p.sample_hz = first->sample_hz;
		p.start_ns = first->start_ns;
		p.duration_ns = first->duration_ns;
	}
	if (multi && first->kind == FK_KIND_CAPTURE) {
		for (size_t i = 0; i < sizeof order / sizeof *order; i++)
			if (fk_stacks_count(&tables[order[i]]))
				p.types[p.ntypes++] = metric_type(order[i], &tables[order[i]]);
		if (!p.ntypes)
			p.types[p.ntypes++] = metric_type(FK_METRIC_SELF_CPU, &tables[FK_METRIC_SELF_CPU]);
	} else if (first->kind == FK_KIND_CAPTURE) {
		p.types[p.ntypes++] = metric_type(o->read.capture.metric, tables);
	} else {
		p.types[p.ntypes++] = input_type(o, first->kind, tables);
	}
	if (!p.sample_hz || strcmp(p.types[0].name, "cpu") != 0)
		p.sample_hz = 0; /* a period of CPU time only where that is sampled */
	if (threads && p.ntypes < FK_PROFILE_MAX_TYPES) {
		p.types[p.ntypes] = metric_type(FK_METRIC_SELF_CPU, threads);
		p.types[p.ntypes++].by_thread = true;
	}
	int status = FK_EXIT_OK;
	enum fk_profile_status st = fk_profile_build(&p);
	if (st == FK_PROFILE_DIFFERENTIAL) {
		fk_diag_error(d, "%s: differential stacks (\"stack BEFORE AFTER\") have two values; "
			      "%s shows one: fold each side on its own", name,
			      o->format == FK_STACKFOLD_PPROF ? "pprof" : "speedscope");
		status = FK_EXIT_BAD_INPUT;
	} else if (st != FK_PROFILE_OK) {
		fk_diag_error(d, "out of memory");
		status = FK_EXIT_BAD_INPUT;
	} else if (o->format == FK_STACKFOLD_PPROF) {
		status = fk_pprof_write_profile(&p, o->output, d);
	} else {
		FILE *out = fk_cli_open_output(d->prog, o->output);
		if (!out || !fk_speedscope_write(out, &p))
			status = FK_EXIT_BAD_INPUT;
		if (out && !fk_cli_close_output(d->prog, out, o->output))
			status = FK_EXIT_BAD_INPUT;
	}
	fk_profile_free(&p);
	return status;
}

/* The last `parts` components of path ("a/b/c.txt", 2: "b/c.txt"); the
 * whole path when it has no more. */
static const char *path_tail(const char *path, int parts)
{
	const char *p = path + strlen(path);
	while (p > path) {
		if (p[-1] == '/' && --parts == 0)
			return p;
		p--;
	}
	return path;
}

/* A profile's name: the first input's file name. */
static const char *profile_name(const char *path)
{
	return path_tail(fk_input_display_name(path), 1);
}

/* --tag-files' root frame for input i: the fewest trailing path
 * components that tell it from every other input ("run1.txt", or
 * "rank0/trace.json" beside "rank1/trace.json"), as a file name reads best
 * at the root of a graph. */
static const char *tag_name(char *const *inputs, size_t n, size_t i)
{
	const char *path = fk_input_display_name(inputs[i]);
	for (int parts = 1;; parts++) {
		const char *tail = path_tail(path, parts);
		bool unique = true;
		for (size_t j = 0; j < n && unique; j++)
			unique = j == i || strcmp(path_tail(fk_input_display_name(inputs[j]), parts), tail) != 0;
		if (unique || tail == path)
			return tail;
	}
}

/* difffolded.pl -n: the BEFORE count scaled to the AFTER total, cut to an
 * integer, computed as Perl computes int($c1 * $total2 / $total1): an exact
 * integer product (while it fits 64 bits) divided as doubles unless the
 * division is exact; doubles throughout otherwise (decimals, huge sums). */
static struct fk_num normalized(struct fk_num c1, struct fk_num t1, struct fk_num t2)
{
	if (c1.scale == 0 && t1.scale == 0 && t2.scale == 0 && t1.mant > 0 &&
	    (t2.mant == 0 || c1.mant <= UINT64_MAX / t2.mant)) {
		fk_u128 p = c1.mant * t2.mant;
		if (p % t1.mant == 0)
			return (struct fk_num){ p / t1.mant, 0 };
		return (struct fk_num){ (fk_u128)((double)p / (double)t1.mant), 0 };
	}
	double v = fk_num_to_double(c1) * fk_num_to_double(t2) / fk_num_to_double(t1);
	return (struct fk_num){ v > 0 ? (fk_u128)v : 0, 0 };
}

/* --diff: "stack BEFORE AFTER" lines from the two folded sides (a stack
 * missing from one side counts 0 there), as difffolded.pl writes them. */
static enum fk_stacks_status diff_sides(struct fk_stacks *out, const struct fk_stacks side[2],
					bool normalize)
{
	bool scale = normalize && fk_num_cmp(side[0].total, side[1].total) != 0 &&
		     fk_num_cmp(side[0].total, (struct fk_num){ 0, 0 }) != 0;
	struct fk_num zero = { 0, 0 };
	char *text = NULL;
	size_t cap = 0;
	enum fk_stacks_status st = FK_STACKS_OK;
	for (int k = 0; k < 2; k++)
		for (uint32_t id = 0; id < fk_stacks_count(&side[k]) && st == FK_STACKS_OK; id++) {
			size_t len = fk_stacks_text(&side[k], id, &text, &cap);
			struct fk_num v = side[k].sums[id].value;
			if (k == 0 && scale)
				v = normalized(v, side[0].total, side[1].total);
			st = len == SIZE_MAX ? FK_STACKS_NOMEM
					     : fk_stacks_add(out, text, len, k == 0 ? v : zero,
							     k == 0 ? zero : v, 2, NULL);
		}
	free(text);
	return st;
}

int fk_stackfold_run(const struct fk_stackfold_opts *o, struct fk_diag *d)
{
	int status = FK_EXIT_OK;
	struct fk_stackfold_read read = o->read;
	struct fk_tableview_opts tv = o->tableview;
	struct fk_fold_opts fo = { .strip_addresses = o->strip_addresses, .scaled = o->scaled,
				   .scale = o->scale, .strip_hex = o->strip_hex };
	read.metric_given = o->tableview.metric_given;
	read.metric = read.capture.metric;
	if (o->table) {
		tv.metric = read.capture.metric;
		read.capture.metric = fk_tableview_capture_metric(read.capture.metric);
	}
	if (o->ninclude && !(fo.include = compile_any(o->include, o->ninclude, "--include", d, &status)))
		return status;
	if (o->nexclude && !(fo.exclude = compile_any(o->exclude, o->nexclude, "--exclude", d, &status))) {
		fk_regex_free(fo.include);
		return status;
	}
	bool transform = fo.strip_addresses || fo.strip_hex || fo.include || fo.exclude ||
			 fo.scaled || o->tag_files || o->diff;

	static char *const stdin_only[] = { "-" };
	char *const *inputs = o->ninputs ? o->inputs : stdin_only;
	size_t ninputs = o->ninputs ? o->ninputs : 1;

	/* A profile without --metric: every metric of a capture, each in
	 * its own table (the others' stacks in the CPU time one); speedscope
	 * also gets a capture's CPU time per thread, unless --threads put the
	 * threads at the root already (or --tag-files the inputs' names). */
	bool profile = o->format != FK_STACKFOLD_FOLDED;
	bool multi = profile && !o->tableview.metric_given;
	bool per_thread = o->format == FK_STACKFOLD_SPEEDSCOPE && !o->read.capture.threads &&
			  !o->tag_files;
	/* Each thread in time order where the stacks are as read; after
	 * filters and rewrites (which act on folded stacks), their sums. */
	struct fk_stackfold_timeline timeline = { 0 };
	if (per_thread && !transform)
		read.timeline = &timeline;
	struct fk_stacks tables[FK_STACKFOLD_NMETRICS], threads = { 0 };
	memset(tables, 0, sizeof tables);
	size_t ntables = multi ? FK_STACKFOLD_NMETRICS : 1;
	struct fk_stacks *main_table = multi ? &tables[FK_METRIC_SELF_CPU] : &tables[0];
	struct fk_stackfold_found first = { 0 };
	char loss[1024] = ""; /* what the inputs lost, for the profile formats' files */

	struct fk_stacks gpu = { 0 }, sides[2];
	memset(sides, 0, sizeof sides);
	struct fk_fold_stats stats = { 0 };
	for (size_t i = 0; i < ninputs && status == FK_EXIT_OK; i++) {
		/* Tagged inputs are read one table each so the tag can differ;
		 * otherwise everything aggregates in one table, folded once. */
		struct fk_stacks ones[FK_STACKFOLD_NMETRICS], one_threads = { 0 }, one_gpu = { 0 };
		memset(ones, 0, sizeof ones);
		struct fk_stacks *load_to = transform ? ones : tables;
		struct fk_stacks *into = load_to + (main_table - tables);
		read.per_metric = multi ? load_to : NULL;
		read.per_thread = !per_thread ? NULL : transform ? &one_threads : &threads;
		struct fk_stacks *gpu_into = !o->table || !fk_tableview_wants_gpu(tv.metric) ? NULL
					     : transform ? &one_gpu : &gpu;
		uint64_t lines_before = into->lines;
		struct fk_stackfold_found found;
		if (fk_stackfold_load(inputs[i], &read, into, gpu_into, &found, d) != FK_INPUT_OK)
			status = FK_EXIT_BAD_INPUT;
		else if (into->lines == lines_before)
			fk_diag_note(d, "%s: no stacks found", fk_input_display_name(inputs[i]));
		if (status == FK_EXIT_OK && transform) {
			/* a trace names itself by its rank */
			fo.root = !o->tag_files ? NULL : *found.tag ? found.tag : tag_name(inputs, ninputs, i);
			/* --diff: each input folds on its own side */
			struct fk_stacks *to = o->diff ? &sides[i] : tables;
			enum fk_stacks_status st = FK_STACKS_OK;
			for (size_t k = 0; k < ntables && st == FK_STACKS_OK; k++)
				st = fk_fold(&to[k], &ones[k], &fo, &stats, NULL);
			if (st == FK_STACKS_OK && per_thread)
				st = fk_fold(&threads, &one_threads, &fo, &stats, NULL);
			if (st == FK_STACKS_OK && o->table)
				st = fk_fold(&gpu, &one_gpu, &fo, &stats, NULL);
			if (st != FK_STACKS_OK) {
				fk_diag_error(d, "%s", fold_failure(st));
				status = FK_EXIT_BAD_INPUT;
			}
		}
		tv.capture |= found.capture;
		tv.per_event |= found.per_event;
		size_t said = strlen(loss);
		if (status == FK_EXIT_OK && found.loss[0] && said < sizeof loss)
			snprintf(loss + said, sizeof loss - said, "%s%s: %s", said ? "; " : "",
				 fk_input_display_name(inputs[i]), found.loss);
		if (i == 0)
			first = found;
		for (size_t k = 0; k < FK_STACKFOLD_NMETRICS; k++)
			fk_stacks_free(&ones[k]);
		fk_stacks_free(&one_threads);
		fk_stacks_free(&one_gpu);
	}
	fk_diag_summary(d);
	struct fk_stacks *result = &tables[0];
	if (status == FK_EXIT_OK && o->diff) {
		enum fk_stacks_status st = diff_sides(result, sides, o->normalize);
		if (st != FK_STACKS_OK) {
			fk_diag_error(d, "%s", fold_failure(st));
			status = FK_EXIT_BAD_INPUT;
		}
	}
	fk_stacks_free(&sides[0]);
	fk_stacks_free(&sides[1]);

	if (status == FK_EXIT_OK && o->table)
		status = write_table(o, &tv, result, &gpu, d);
	else if (status == FK_EXIT_OK && profile)
		status = write_profile(o, tables, multi, fk_stacks_count(&threads) ? &threads : NULL,
				       timeline.n ? &timeline : NULL, &first,
				       profile_name(inputs[0]), loss, d);
	else if (status == FK_EXIT_OK && !read.info)
		status = write_folded(o, result, &stats, d);
	fk_stackfold_timeline_free(&timeline);
	for (size_t k = 0; k < FK_STACKFOLD_NMETRICS; k++)
		fk_stacks_free(&tables[k]);
	fk_stacks_free(&threads);
	fk_stacks_free(&gpu);
	fk_regex_free(fo.include);
	fk_regex_free(fo.exclude);
	return status;
}
