/* flamegraph_run.c - folded stacks in, one flame graph SVG out (see
 * flamegraph_run.h). */
#include "render/flamegraph_run.h"

#include <stdlib.h>
#include <string.h>

#include "analysis/core/stackload.h"
#include "analysis/core/transform.h"
#include "analysis/stackfold/load.h"
#include "formats/grow.h"
#include "formats/input.h"
#include "formats/outfile.h"

void fk_flamegraph_opts_defaults(struct fk_flamegraph_opts *o)
{
	*o = (struct fk_flamegraph_opts){ 0 };
	fk_flame_opts_defaults(&o->flame);
}

/* A capture or a torch trace folded as `stackfold FILE` folds it, then
 * added as the lines stackfold would print, in its order (flame charts keep
 * it), so that `flamegraph app.stackcap` draws what `stackfold app.stackcap
 * | flamegraph` does. What a capture lost is appended to loss ("name: what;
 * ..."). */
static bool load_folded(struct fk_input *in, const struct fk_flamegraph_opts *o,
			 struct fk_stacks *raw, struct fk_seq *seq, char *loss, size_t n,
			 struct fk_diag *d)
{
	struct fk_stackfold_read read = { .metric_given = o->metric_given, .metric = o->metric };
	read.capture.metric = o->metric;
	read.capture.python = o->python;
	struct fk_stackfold_found found;
	struct fk_stacks folded = { 0 };
	bool ok = fk_stackfold_load_input(in, &read, &folded, NULL, &found, d) == FK_INPUT_OK;
	uint32_t *ids = ok ? fk_stacks_sorted(&folded, FK_ORDER_STACK) : NULL;
	bool nomem = ok && !ids;
	char *text = NULL;
	size_t text_cap = 0;
	for (uint32_t i = 0; ids && !nomem && i < fk_stacks_count(&folded); i++) {
		size_t len = fk_stacks_text(&folded, ids[i], &text, &text_cap);
		struct fk_seq_item it = { .nvalues = 1, .value = folded.sums[ids[i]].value };
		it.before = it.value;
		nomem = len == SIZE_MAX ||
			fk_stacks_add(raw, text, len, it.before, it.value, 1, &it.stack) != FK_STACKS_OK ||
			(seq && !FK_GROW(seq->items, seq->cap, seq->count + 1, 1024));
		if (!nomem && seq)
			seq->items[seq->count++] = it;
	}
	if (nomem) {
		fk_diag_error(d, "out of memory");
		ok = false;
	}
	size_t k = strlen(loss);
	if (ok && found.loss[0] && k < n)
		snprintf(loss + k, n - k, "%s%s: %s", k ? "; " : "", in->name, found.loss);
	free(text);
	free(ids);
	fk_stacks_free(&folded);
	return ok;
}

/* One input: folded stack text, or a capture or torch trace (folded first,
 * as stackfold does); other kinds are stackfold's or memtimeline's. */
static bool load_input(const char *path, const struct fk_flamegraph_opts *o,
		       struct fk_stacks *raw, struct fk_seq *seq, char *loss, size_t n,
		       struct fk_diag *d)
{
	struct fk_input in;
	if (!fk_input_open(&in, path, d))
		return false;
	bool ok = false;
	if (in.kind == FK_KIND_CAPTURE || in.kind == FK_KIND_CHROME_TRACE)
		ok = load_folded(&in, o, raw, seq, loss, n, d);
	else if (in.kind != FK_KIND_STACKS)
		fk_diag_error(d, "%s: this is %s: fold it first (stackfold %s | flamegraph)",
			      in.name, fk_input_kind_description(in.kind),
			      strcmp(path, "-") == 0 ? "-" : path);
	else if (o->metric_given)
		fk_diag_error(d, "%s: --metric reads stackcap captures; the values of %s are "
			      "what its producer wrote", in.name, fk_input_kind_description(in.kind));
	else
		ok = fk_load_stacktext_input(&in, raw, seq, d) == FK_INPUT_OK;
	fk_input_close(&in);
	return ok;
}

/* Loads every input; for flame charts the lines are kept in order too. */
static int load_inputs(const struct fk_flamegraph_opts *o, struct fk_stacks *raw,
		       struct fk_seq *seq, char *loss, size_t n, struct fk_diag *d)
{
	if (o->ninputs == 0)
		return load_input("-", o, raw, seq, loss, n, d) ? FK_EXIT_OK : FK_EXIT_BAD_INPUT;
	for (size_t i = 0; i < o->ninputs; i++)
		if (!load_input(o->inputs[i], o, raw, seq, loss, n, d))
			return FK_EXIT_BAD_INPUT;
	return FK_EXIT_OK;
}

/* A capture that lost something says so in what is drawn: a short mark in
 * the subtitle (after the user's), the whole loss line in the notes (after
 * the user's; an XML comment, so "--" is broken up). The strings are
 * malloc'd into *subtitle and *notes; false when out of memory. */
static bool mark_loss(struct fk_flame_opts *fo, const char *loss, char **subtitle, char **notes)
{
	static const char mark[] = "incomplete capture: see notes";
	const char *sub = fo->subtitle ? fo->subtitle : "", *user = fo->notes ? fo->notes : "";
	size_t sn = strlen(sub) + sizeof mark + 4, nn = strlen(user) + 2 * strlen(loss) + 32;
	*subtitle = malloc(sn);
	*notes = malloc(nn);
	if (!*subtitle || !*notes)
		return false;
	snprintf(*subtitle, sn, *sub ? "%s (%s)" : "%s%s", sub, mark);
	char *w = *notes + snprintf(*notes, nn, "%s%sincomplete capture: ", user, *user ? " " : "");
	for (const char *p = loss; *p; p++) {
		*w++ = *p;
		if (p[0] == '-' && (p[1] == '-' || !p[1]))
			*w++ = ' ';
	}
	*w = 0;
	fo->subtitle = *subtitle;
	fo->notes = *notes;
	return true;
}

/* Rewrites *stacks into out with fo; seq and order (when given) follow the
 * new ids; order keeps the first place of stacks that merged. */
static bool rewrite(struct fk_stacks **stacks, struct fk_stacks *out, const struct fk_fold_opts *fo,
		    struct fk_seq *seq, uint32_t *order)
{
	uint32_t n = fk_stacks_count(*stacks);
	uint32_t *map = malloc((n + 1) * sizeof *map);
	if (!map || fk_fold(out, *stacks, fo, NULL, map) != FK_STACKS_OK) {
		free(map);
		return false;
	}
	if (seq)
		for (size_t i = 0; i < seq->count; i++)
			seq->items[i].stack = map[seq->items[i].stack];
	bool ok = true;
	if (order) {
		uint8_t *placed = calloc(fk_stacks_count(out) + 1, 1);
		uint32_t kept = 0;
		ok = placed != NULL;
		for (uint32_t i = 0; ok && i < n; i++) {
			uint32_t id = map[order[i]];
			if (id != FK_STRTAB_NONE && !placed[id]) {
				placed[id] = 1;
				order[kept++] = id;
			}
		}
		free(placed);
	}
	free(map);
	*stacks = out;
	return ok;
}

/* flamegraph.pl's stack rewrites, in its order: --reverse as lines are read
 * (before sorting), the chain palette's waker marks after sorting. */
static bool prepare(struct fk_stacks **stacks, struct fk_stacks *reversed, struct fk_stacks *chained,
		    struct fk_seq *seq, uint32_t **order, bool reverse, bool chain)
{
	struct fk_fold_opts rev = { .reverse = true }, wake = { .chain_wakers = true };
	if (reverse && !rewrite(stacks, reversed, &rev, seq, NULL))
		return false;
	if (!seq && !(*order = fk_stacks_sorted(*stacks, FK_ORDER_FLAME)))
		return false;
	return !chain || rewrite(stacks, chained, &wake, seq, seq ? NULL : *order);
}

/* Draws into the output file, then says what drawing found. */
static int draw(const struct fk_flamegraph_opts *o, const struct fk_flame_opts *fo,
		const struct fk_stacks *stacks, const uint32_t *order, const struct fk_seq *seq,
		struct fk_diag *d)
{
	FILE *out = fk_outfile_fopen(o->output, d);
	if (!out)
		return FK_EXIT_BAD_INPUT;
	int status = FK_EXIT_OK;
	struct fk_flame_report rep;
	enum fk_flame_status fs = fk_flame_render(out, stacks, order, seq, fo, &rep);
	if (fs == FK_FLAME_EMPTY) {
		fk_diag_error(d, "ERROR: No stack counts found");
		status = FK_EXIT_BAD_INPUT;
	} else if (fs == FK_FLAME_NOMEM) {
		fk_diag_error(d, "out of memory");
		status = FK_EXIT_BAD_INPUT;
	} else if (rep.warning[0]) {
		fk_diag_error(d, "%s", rep.warning);
	}
	if (fs == FK_FLAME_OK && fo->total > 0 && fo->total < rep.total && fo->total / rep.total > 0.02)
		fk_diag_error(d, "Specified --total %g is less than actual total %g, so ignored",
			      fo->total, rep.total);
	if (!fk_outfile_fclose(out, o->output, d))
		status = FK_EXIT_BAD_INPUT;
	return status;
}

int fk_flamegraph_run(const struct fk_flamegraph_opts *o, struct fk_diag *d)
{
	struct fk_stacks raw = { 0 }, reversed = { 0 }, chained = { 0 };
	struct fk_seq lines = { 0 };
	struct fk_seq *seq = o->flame.flamechart ? &lines : NULL;
	uint32_t *order = NULL;
	char loss[2048] = "", *subtitle = NULL, *notes = NULL;
	int status = load_inputs(o, &raw, seq, loss, sizeof loss, d);
	fk_diag_summary(d);
	struct fk_flame_opts fo = o->flame;
	if (status == FK_EXIT_OK && loss[0] && !mark_loss(&fo, loss, &subtitle, &notes)) {
		fk_diag_error(d, "out of memory");
		status = FK_EXIT_BAD_INPUT;
	}

	struct fk_stacks *stacks = &raw;
	if (status == FK_EXIT_OK &&
	    !prepare(&stacks, &reversed, &chained, seq, &order, o->reverse,
		     o->flame.palette == FK_PAL_CHAIN)) {
		fk_diag_error(d, "out of memory");
		status = FK_EXIT_BAD_INPUT;
	}
	if (status == FK_EXIT_OK)
		status = draw(o, &fo, stacks, order, seq, d);
	free(order);
	free(subtitle);
	free(notes);
	fk_seq_free(&lines);
	fk_stacks_free(&raw);
	fk_stacks_free(&reversed);
	fk_stacks_free(&chained);
	return status;
}
