/* events.h - the memory event model: a timeline of allocation events that
 * every importer fills (torch raw timelines now, captures later) and every
 * memory output reads (JSON, raw, HTML, peak and leak stacks).
 *
 * Actions and categories are torch's memory profiler's
 * (torch/profiler/_memory_profiler.py): action values are torch's, category
 * values are torch's _CATEGORY_TO_INDEX (the index raw files carry; JSON
 * columns are index + 1).
 *
 * Owns: struct fk_mem_timeline, its event arrays (one per field, so 10M
 * events of a raw timeline cost 18 bytes each) and the stack strings.
 * Device, address and stack arrays exist only once an importer sets one.
 */
#ifndef FK_MEMEVENTS_H
#define FK_MEMEVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis/core/strtab.h"

enum fk_mem_action {
	FK_MEM_PREEXISTING = 1,       /* live before the timeline starts (t = -1) */
	FK_MEM_CREATE = 2,
	FK_MEM_INCREMENT_VERSION = 3, /* the bytes move from category to category_to */
	FK_MEM_DESTROY = 4,
};

enum fk_mem_category {
	FK_MEM_PARAMETER,
	FK_MEM_OPTIMIZER_STATE,
	FK_MEM_INPUT,
	FK_MEM_TEMPORARY,
	FK_MEM_ACTIVATION,
	FK_MEM_GRADIENT,
	FK_MEM_AUTOGRAD_DETAIL,
	FK_MEM_UNKNOWN,
	FK_MEM_NCAT
};

#define FK_MEM_NO_TIME ((int64_t)-1) /* the time of PREEXISTING events */
#define FK_MEM_DEVICE_CPU (-1)       /* devices: -1 cpu, N cuda:N */
#define FK_MEM_DEVICE_ANY INT16_MIN  /* not known (torch raw files: one device) */

struct fk_mem_event {
	int64_t t_ns;        /* Unix-epoch ns, or FK_MEM_NO_TIME */
	uint64_t bytes;      /* always the positive size */
	uint8_t action;      /* enum fk_mem_action */
	uint8_t category;    /* enum fk_mem_category (before, for INCREMENT_VERSION) */
	uint8_t category_to; /* after, for INCREMENT_VERSION; else == category */
	int16_t device;      /* FK_MEM_DEVICE_ANY when unknown */
	uint64_t address;    /* 0 when unknown */
	uint32_t stack;      /* 0 when none, else fk_mem_stack() id */
};

struct fk_mem_timeline {
	size_t count, cap;
	int64_t *t_ns;
	uint64_t *bytes;
	uint16_t *kind;    /* action | category << 4 | category_to << 8 */
	int16_t *device;   /* NULL until an event has a device */
	uint64_t *address; /* NULL until an event has an address */
	uint32_t *stack;   /* NULL until an event has a stack */
	struct fk_strtab stacks; /* "frame;frame;leaf" texts, root first */
	int64_t max_reserved;    /* bytes the allocator reserved at most; -1: unknown */
	uint64_t out_of_order;   /* events added before an earlier (t, action) */
	/* What a capture's loss may hide (fk_capture_memory). Allocations
	 * created before lost_before_ns may have been freed unseen: never
	 * leaks for sure (INT64_MIN: nothing lost). no_end: an input ended
	 * without its END (killed): there is no end of the program at all. */
	int64_t lost_before_ns;
	bool no_end;
	uint64_t unmatched_frees; /* exact tracking: frees of blocks never seen allocated */
};

/* Names as torch prints them ("PARAMETER", ..., "Unknown") and the
 * matplotlib colour names torch draws them with. */
extern const char *const fk_mem_category_names[FK_MEM_NCAT];
extern const char *const fk_mem_action_names[5];

/* An empty timeline (max_reserved unknown). */
void fk_mem_init(struct fk_mem_timeline *tl);
void fk_mem_free(struct fk_mem_timeline *tl);

/* Appends one event; false when out of memory. */
bool fk_mem_add(struct fk_mem_timeline *tl, const struct fk_mem_event *ev);

/* Adds all of src's events to the end of dst (src has no stacks: a
 * reader's private part of one file); src is then only fit to be freed:
 * an empty dst takes its arrays as they are. false when out of memory. */
bool fk_mem_append(struct fk_mem_timeline *dst, struct fk_mem_timeline *src);

/* Interns a stack text (frames root first, ';'-separated); its id for
 * fk_mem_event.stack (never 0). */
uint32_t fk_mem_stack(struct fk_mem_timeline *tl, const char *text, size_t len);
/* The text of a stack id; NULL for 0. */
const struct fk_str *fk_mem_stack_text(const struct fk_mem_timeline *tl, uint32_t id);

static inline void fk_mem_get(const struct fk_mem_timeline *tl, size_t i,
			      struct fk_mem_event *ev)
{
	uint16_t k = tl->kind[i];
	ev->t_ns = tl->t_ns[i];
	ev->bytes = tl->bytes[i];
	ev->action = (uint8_t)(k & 0xf);
	ev->category = (uint8_t)((k >> 4) & 0xf);
	ev->category_to = (uint8_t)(k >> 8);
	ev->device = tl->device ? tl->device[i] : FK_MEM_DEVICE_ANY;
	ev->address = tl->address ? tl->address[i] : 0;
	ev->stack = tl->stack ? tl->stack[i] : 0;
}

/* Puts the events in torch's timeline order, (time, action value), keeping
 * the input order of equal keys. Nothing to do when the importer saw no event
 * out of order. When order is given and events moved, *order gets (malloc)
 * the old index of each event, else NULL. false when out of memory. */
bool fk_mem_sort(struct fk_mem_timeline *tl, size_t **order);

/* Keeps only the events of one device (events whose device is unknown are
 * kept: their file holds one device). */
void fk_mem_select_device(struct fk_mem_timeline *tl, int16_t device);

/* Parses "cpu", "cuda", "cuda:N"; false on anything else. */
bool fk_mem_parse_device(const char *s, int16_t *device);

/* "512 B", "1.50 KiB", ..., "2.25 GiB" (1024-based, like torch's tables);
 * negative values keep their sign. Returns buf. */
char *fk_mem_format_bytes(char buf[32], int64_t bytes);

/* torch's ns -> us conversion, int(t / 1000) in Python: the exact quotient
 * rounded to the nearest double, then truncated. (double)t / 1000.0 in C
 * differs for ~6% of epoch times, which are above 2^53. */
int64_t fk_mem_ns_to_us(int64_t t_ns);

#endif
