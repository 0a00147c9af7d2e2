/* stackfold_run.c - the stackfold command (see stackfold_run.h). */
#include "render/stackfold_run.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/core/folded_write.h"
#include "analysis/core/transform.h"
#include "formats/cli.h"
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
	return st == FK_STACKS_OVERFLOW ? "scaled or merged value passes 64 bits or 18 decimals"
	       : st == FK_STACKS_MATCH_FAILED
		       ? "an --include/--exclude pattern could not be matched (PCRE2 match limit): simplify it"
		       : "out of memory";
}

static int write_table(const struct fk_stackfold_opts *o, const struct fk_tableview_opts *tv,
		       const struct fk_stacks *result, const struct fk_stacks *gpu,
		       struct fk_diag *d)
{
	int status = FK_EXIT_OK;
	FILE *out = fk_cli_open_output(d->prog, o->output);
	char why[160];
	int st = out ? fk_tableview_write(out, result, gpu, tv, why, sizeof why) : 1;
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

int fk_stackfold_run(const struct fk_stackfold_opts *o, struct fk_diag *d)
{
	int status = FK_EXIT_OK;
	struct fk_stackfold_read read = o->read;
	struct fk_tableview_opts tv = o->tableview;
	struct fk_fold_opts fo = { .strip_addresses = o->strip_addresses, .scaled = o->scaled,
				   .scale = o->scale };
	read.metric_given = o->tableview.metric_given;
	read.metric = read.capture.metric;
	read.per_event = &tv.per_event;
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
	bool transform = fo.strip_addresses || fo.include || fo.exclude || fo.scaled || o->tag_files;

	static char *const stdin_only[] = { "-" };
	char *const *inputs = o->ninputs ? o->inputs : stdin_only;
	size_t ninputs = o->ninputs ? o->ninputs : 1;

	struct fk_stacks result = { 0 }, gpu = { 0 };
	struct fk_fold_stats stats = { 0 };
	for (size_t i = 0; i < ninputs && status == FK_EXIT_OK; i++) {
		/* Tagged inputs are read one table each so the tag can differ;
		 * otherwise everything aggregates in one table, folded once. */
		struct fk_stacks one = { 0 }, one_gpu = { 0 };
		struct fk_stacks *into = transform ? &one : &result;
		struct fk_stacks *gpu_into = !o->table || !fk_tableview_wants_gpu(tv.metric) ? NULL
					     : transform ? &one_gpu : &gpu;
		uint64_t lines_before = into->lines;
		char tag[48] = "";
		read.tag = tag;
		read.tag_size = sizeof tag;
		if (fk_stackfold_load(inputs[i], &read, into, gpu_into, &tv.capture, d) != FK_INPUT_OK)
			status = FK_EXIT_BAD_INPUT;
		else if (into->lines == lines_before)
			fk_diag_note(d, "%s: no stacks found", fk_input_display_name(inputs[i]));
		if (status == FK_EXIT_OK && transform) {
			fo.root = !o->tag_files ? NULL : *tag ? tag : fk_input_display_name(inputs[i]);
			enum fk_stacks_status st = fk_fold(&result, &one, &fo, &stats, NULL);
			if (st == FK_STACKS_OK && o->table)
				st = fk_fold(&gpu, &one_gpu, &fo, &stats, NULL);
			if (st != FK_STACKS_OK) {
				fk_diag_error(d, "%s", fold_failure(st));
				status = FK_EXIT_BAD_INPUT;
			}
		}
		fk_stacks_free(&one);
		fk_stacks_free(&one_gpu);
	}
	fk_diag_summary(d);

	if (status == FK_EXIT_OK && o->table)
		status = write_table(o, &tv, &result, &gpu, d);
	else if (status == FK_EXIT_OK && !read.info)
		status = write_folded(o, &result, &stats, d);
	fk_stacks_free(&result);
	fk_stacks_free(&gpu);
	fk_regex_free(fo.include);
	fk_regex_free(fo.exclude);
	return status;
}
