/* pprof_out.c - a profile as gzipped pprof (see pprof_out.h, formats/PPROF.md). */
#include "render/pprof_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "formats/cli.h"
#include "formats/pprof.h"
#include "formats/sink.h"

static const char *pprof_unit(enum fk_profile_unit u)
{
	switch (u) {
	case FK_PUNIT_MICROSECONDS: return "nanoseconds";
	case FK_PUNIT_BYTES: return "bytes";
	case FK_PUNIT_NONE:
	case FK_PUNIT_COUNT: break;
	}
	return "count";
}

/* Why a value cannot be one of pprof's int64s. */
enum conversion { CONVERTED, NOT_WHOLE, TOO_LARGE };

/* v in pprof's unit (microseconds become nanoseconds) as an int64: a
 * fraction left, or a value past INT64_MAX, is refused (never wrapped). */
static enum conversion to_int64(struct fk_num v, enum fk_profile_unit u, int64_t *out)
{
	fk_u128 m = v.mant, factor = u == FK_PUNIT_MICROSECONDS ? 1000 : 1;
	if (m > FK_U128_MAX / factor)
		return TOO_LARGE;
	m *= factor;
	fk_u128 div = 1;
	for (uint8_t i = 0; i < v.scale; i++)
		div *= 10;
	if (m % div != 0)
		return NOT_WHOLE;
	if (m / div > (fk_u128)INT64_MAX)
		return TOO_LARGE;
	*out = (int64_t)(m / div);
	return CONVERTED;
}

/* A frame named as a bare address ("0x7f3a..."): that address. */
static uint64_t frame_address(const struct fk_str *f)
{
	if (f->len < 3 || f->len > 18 || f->p[0] != '0' || f->p[1] != 'x')
		return 0;
	uint64_t a = 0;
	for (uint32_t i = 2; i < f->len; i++) {
		char c = f->p[i];
		int d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
			: c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (d < 0)
			return 0;
		a = a << 4 | (uint64_t)d;
	}
	return a;
}

/* Every value converted first, so a bad one leaves no output behind. */
static int64_t *convert_values(const struct fk_profile *p, struct fk_diag *d, int *status)
{
	size_t n = fk_profile_nstacks(p), nt = p->ntypes;
	int64_t *v = malloc((n * nt + 1) * sizeof *v);
	if (!v) {
		fk_diag_error(d, "out of memory");
		*status = FK_EXIT_BAD_INPUT;
		return NULL;
	}
	for (size_t i = 0; i < n; i++)
		for (size_t t = 0; t < nt; t++) {
			struct fk_num x = p->values[i * nt + t];
			enum conversion c = to_int64(x, p->types[t].unit, &v[i * nt + t]);
			if (c == CONVERTED)
				continue;
			char text[FK_NUM_TEXT_MAX];
			fk_num_format(x, text);
			const struct fk_stack_entry *e = fk_stackset_get(p->set, (uint32_t)i);
			char *stack = malloc((size_t)e->text_len + 1);
			size_t len = stack ? fk_stackset_text(p->set, (uint32_t)i, stack) : 0;
			bool us = p->types[t].unit == FK_PUNIT_MICROSECONDS;
			fk_diag_error(d, "%s: stack \"%.*s%s\": %s%s (%s) %s", p->name,
				      (int)(len > 80 ? 80 : len), stack ? stack : "", len > 80 ? "..." : "",
				      text, us ? " us" : "", p->types[t].name,
				      c == TOO_LARGE ? "passes pprof's int64 values (at most 2^63-1"
						       " after us become ns): --scale it down"
				      : us ? "is not a whole number of ns: pprof values are integers"
					   : "is not a whole number: pprof values are integers (--scale)");
			free(stack);
			free(v);
			*status = FK_EXIT_BAD_INPUT;
			return NULL;
		}
	return v;
}

int fk_pprof_write_profile(const struct fk_profile *p, const char *path, struct fk_diag *d)
{
	int status = FK_EXIT_OK;
	int64_t *values = convert_values(p, d, &status);
	if (!values)
		return status;
	size_t nt = p->ntypes;
	uint32_t nframes = p->frames.count;
	/* A sample's locations: as many as its stack is deep, which recursion
	 * makes more than the names there are. */
	size_t deepest = 0;
	for (uint32_t i = 0; i < fk_profile_nstacks(p); i++)
		if (p->first[i + 1] - p->first[i] > deepest)
			deepest = p->first[i + 1] - p->first[i];
	uint64_t *locs = malloc((deepest + 1) * sizeof *locs);
	struct fk_sink out;
	if (!locs) {
		fk_diag_error(d, "out of memory");
		free(values);
		return FK_EXIT_BAD_INPUT;
	}
	if (!fk_sink_open(&out, path, 6)) {
		fk_diag_error(d, "%s: %s", path ? path : "<stdout>", strerror(errno));
		free(values);
		free(locs);
		return FK_EXIT_BAD_INPUT;
	}
	struct fk_pprof w;
	fk_pprof_begin(&w, &out);
	uint64_t type_name[FK_PROFILE_MAX_TYPES];
	for (size_t t = 0; t < nt; t++) {
		const char *unit = pprof_unit(p->types[t].unit);
		type_name[t] = fk_pprof_string(&w, p->types[t].name, strlen(p->types[t].name));
		fk_pprof_sample_type(&w, type_name[t], fk_pprof_string(&w, unit, strlen(unit)));
	}
	/* The first type is what a viewer shows first. */
	fk_pprof_default_sample_type(&w, type_name[0]);
	if (p->sample_hz) {
		uint64_t cpu = fk_pprof_string(&w, "cpu", 3), ns = fk_pprof_string(&w, "nanoseconds", 11);
		fk_pprof_period(&w, cpu, ns, (int64_t)(1000000000 / p->sample_hz));
	}
	fk_pprof_times(&w, p->start_ns, p->duration_ns);
	char comment[256];
	int len = snprintf(comment, sizeof comment, "flamekit stackfold %s: %s", FK_VERSION, p->name);
	fk_pprof_comment(&w, fk_pprof_string(&w, comment, len < 0 ? 0
							  : (size_t)len < sizeof comment ? (size_t)len
							  : sizeof comment - 1));
	if (p->loss && *p->loss) {
		char said[1200];
		len = snprintf(said, sizeof said, "incomplete input: %s", p->loss);
		fk_pprof_comment(&w, fk_pprof_string(&w, said, len < 0 ? 0
							    : (size_t)len < sizeof said ? (size_t)len
							    : sizeof said - 1));
	}
	/* Frame f is function f + 1 and location f + 1, its name one string. */
	for (uint32_t f = 0; f < nframes; f++) {
		const struct fk_str *s = fk_strtab_get(&p->frames, f);
		uint64_t name = fk_pprof_string(&w, s->p, s->len);
		fk_pprof_function(&w, (uint64_t)f + 1, name, 0, 0);
		fk_pprof_location(&w, (uint64_t)f + 1, frame_address(s), (uint64_t)f + 1, 0);
	}
	for (uint32_t i = 0; i < fk_profile_nstacks(p); i++) {
		uint32_t a = p->first[i], b = p->first[i + 1];
		for (uint32_t k = 0; k < b - a; k++) /* leaf first */
			locs[k] = (uint64_t)p->frame_ids[b - 1 - k] + 1;
		fk_pprof_sample(&w, locs, b - a, values + (size_t)i * nt, nt);
	}
	if (!fk_pprof_end(&w)) {
		fk_diag_error(d, "out of memory");
		out.failed = true;
		status = FK_EXIT_BAD_INPUT;
	}
	if (!fk_sink_close(&out) && status == FK_EXIT_OK) {
		fk_diag_error(d, "%s: write error: %s", out.name, out.err ? strerror(out.err) : "zlib failed");
		status = FK_EXIT_BAD_INPUT;
	}
	free(values);
	free(locs);
	return status;
}
