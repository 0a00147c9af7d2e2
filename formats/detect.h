/* detect.h - what kind of input a file holds, told from its first bytes:
 * the one sniffer every command uses (through fk_input_open), so a pipe, a
 * gzip stream and a file are recognized alike.
 *
 * Owns: nothing. Pure functions of the bytes given.
 */
#ifndef FK_DETECT_H
#define FK_DETECT_H

#include <stdbool.h>
#include <stddef.h>

enum fk_input_kind {
	FK_KIND_STACKS = 0,    /* folded / torch export_stacks / differential text */
	FK_KIND_PERF,          /* `perf script` output */
	FK_KIND_CAPTURE,       /* a stackcap capture (formats/CAPTURE.md) */
	FK_KIND_TORCH_MEMORY,  /* torch's raw memory timeline (formats/TORCHMEM.md) */
	FK_KIND_CHROME_TRACE,  /* a Chrome / Kineto trace (JSON) */
	FK_KIND_JSON,          /* some other JSON document */
	FK_KIND_DTRACE,        /* DTrace/SystemTap stacks (stackcollapse.pl's input) */
};

/* How many decoded bytes fk_input_open peeks at (at least; less when the
 * input is shorter). Enough for perf's first sample and a trace's header. */
#define FK_DETECT_PEEK ((size_t)64 << 10)

/* The kind of an input whose first n decoded bytes are p (all of it when
 * the input is shorter than FK_DETECT_PEEK). Text that is nothing else is
 * stack text: its reader then says which lines it could not read. */
enum fk_input_kind fk_detect(const char *p, size_t n);

/* "stacks", "perf", "capture", "torch-memory", "chrome-trace", "json",
 * "dtrace". */
const char *fk_input_kind_name(enum fk_input_kind k);
/* What a user reads in a message: "a torch memory timeline", ... */
const char *fk_input_kind_description(enum fk_input_kind k);
/* The inverse of fk_input_kind_name; false for an unknown name. */
bool fk_input_kind_parse(const char *name, enum fk_input_kind *k);

#endif
