/* python.h - Python frames in the shim's stacks (CPython 3.11-3.14, GIL
 * builds): finding the interpreter (python.c), walking the current
 * thread's Python frames from the sampling handler, an allocation hook or
 * a CUPTI callback (python.c, reads guarded by pyguard.c), the name cache
 * the walk fills so that the writer never reads Python memory
 * (pycache.c), and the writer's side: line numbers, merging Python frames
 * into native stacks (pystack.c) and PYFRAMES records (pyframes.c).
 * Spec: formats/CAPTURE.md (PYFRAMES); research: python-stacks.md.
 *
 * Owns: the name cache and its arena (mapped once, never freed: entries
 * must outlive the code objects they name) and the writer's PYFRAMES
 * table (py_frames_reset frees it).
 */
#ifndef STACKCAP_PYTHON_H
#define STACKCAP_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/capture.h"

#define PY_MAX_FRAMES 128

/* A Python frame in a ring record, after the native frames of the same
 * stack (leaf first, like them): bit 63 set (no native address has it),
 * bit 62 set on the last frame of a run (the frame its interpreter call
 * was entered with: the run ends there), bits 32-61 the name cache entry
 * (0: unknown, the cache was full or the code object unreadable), bits
 * 0-31 the instruction index (code units), PY_LASTI_START before the
 * first instruction. */
#define PY_REC_PYTHON FK_CAP_IP_PYTHON
#define PY_REC_RUN_END (UINT64_C(1) << 62)
#define PY_REC_ENTRY_SHIFT 32
#define PY_REC_ENTRY_MASK ((UINT64_C(1) << 30) - 1)
#define PY_LASTI_START UINT32_C(0xFFFFFFFF)

static inline uint64_t py_rec(uint32_t entry, uint32_t lasti, bool run_end)
{
	return PY_REC_PYTHON | (run_end ? PY_REC_RUN_END : 0) |
	       ((uint64_t)(entry & PY_REC_ENTRY_MASK) << PY_REC_ENTRY_SHIFT) | lasti;
}
static inline uint32_t py_rec_entry(uint64_t r)
{
	return (uint32_t)((r >> PY_REC_ENTRY_SHIFT) & PY_REC_ENTRY_MASK);
}
static inline uint32_t py_rec_lasti(uint64_t r)
{
	return (uint32_t)r;
}

/* ---- python.c: detection and the walk ---- */

/* Looks for a CPython interpreter in the process (dlsym): at start and
 * whenever the writer sees new objects loaded, until found. Never in a
 * signal handler. STACKCAP_PYTHON=0 turns the walk off. */
void py_detect(void);
/* The calling thread's Python frames (leaf first, as py_rec values) after
 * out[0..n), up to max in all; returns the new count. Async-signal-safe:
 * no allocation, no locks, no Python C API but the thread-state getter;
 * every read of Python memory is guarded. */
uint32_t py_walk(uint64_t *out, uint32_t n, uint32_t max);
/* META python: what the shim did ("CPython 3.11.2: frames on", ...), or
 * "" when no interpreter was found, copied into buf when its version (the
 * returned value, which changes with the text) is not seen. */
unsigned py_status(unsigned seen, char *buf, size_t n);
/* Is ip (a stored stack address) inside the interpreter's evaluation
 * function? */
bool py_is_eval(uint64_t ip);
/* Where that function starts (0 until an interpreter is found): what
 * py_is_eval says depends on it alone. */
uintptr_t py_eval_base(void);
/* Walks a fault stopped, and frames recorded unknown (cache full). */
uint64_t py_faults(void);
uint64_t py_unknown(void);

/* STACKCAP_PY_TEST_FAULT=N (tests only): every Nth walk reads an unmapped
 * address inside its guard, to show that the guard catches it. */
extern unsigned py_test_fault_every;

/* ---- pycache.c: code objects' names, copied once ---- */

/* The layout facts the cache needs to read a code object and its strings. */
struct py_layout {
	uintptr_t code_type; /* &PyCode_Type */
	uint32_t co_filename, co_name, co_qualname, co_linetable, co_firstlineno;
	uint32_t str_state, str_length, str_ascii_size, str_compact_size;
	uint32_t bytes_size, bytes_data;
};

/* Maps the cache (never in a handler); false when memory is short. */
bool py_cache_init(const struct py_layout *l);
/* The entry for the code object at code (found, or claimed and filled
 * now), 0 when the cache is full; must run inside the walk's guard: a
 * fault while filling leaves the claimed entry marked bad. */
uint32_t py_cache_lookup(uintptr_t code);
/* The walk's guard caught a fault: the entry being filled, if any, is bad. */
void py_cache_fault(void);

/* A cache entry as the writer sees it: strings as CPython stored them
 * (kind 1 latin-1 or ASCII, 2 UCS-2, 4 UCS-4; len in code units). */
struct py_str {
	const uint8_t *data;
	uint32_t len;
	uint8_t kind;
};
struct py_entry {
	struct py_str filename, qualname, name;
	uint32_t firstlineno;
	const uint8_t *linetable;
	uint32_t linetable_len;
};
/* Entry id's contents once it is complete: PY_ENTRY_READY (e filled),
 * PY_ENTRY_BAD (unknown for good: 0, or a fault while filling it), or
 * PY_ENTRY_BUSY (still being filled after 200 ms). Writer only. */
enum { PY_ENTRY_READY, PY_ENTRY_BAD, PY_ENTRY_BUSY };
int py_cache_get(uint32_t id, struct py_entry *e);

/* ---- pystack.c: pure functions (unit-tested) ---- */

/* The line being executed at instruction index lasti of a code object
 * whose location table (3.11+) and first line are given; 0 when unknown.
 * PY_LASTI_START: the first line. */
uint32_t py_line(const uint8_t *table, size_t len, uint32_t firstlineno, uint32_t lasti);

/* Merges a record's frames (leaf first: native ones, then Python ones as
 * py_rec values) into out (leaf first, at most max): each native frame for
 * which is_eval is true is replaced by the next run of Python frames
 * (runs end at PY_REC_RUN_END), native frames are kept, and Python frames
 * left over go at the root end. Eval frames beyond the runs (a call being
 * entered or left when the sample came; all of them when there are no
 * Python frames) are dropped, leaf-most first.
 * Returns the count. */
uint32_t py_merge(const uint64_t *ips, uint32_t n, bool (*is_eval)(uint64_t ip), uint64_t *out,
		  uint32_t max);

/* UTF-8 of a CPython string (lone surrogates become U+FFFD); returns the
 * bytes written, at most cap. */
size_t py_str_utf8(const struct py_str *s, char *out, size_t cap);

/* ---- pyframes.c: the writer's PYFRAMES ids ---- */

struct fk_cap_buf;
/* The record's stack with its Python frames merged in (py_merge) and
 * named: each becomes FK_CAP_IP_PYTHON | id, new ids defined in pyframes.
 * Returns the count written to out (room for n). */
uint32_t py_frames_stack(struct fk_cap_buf *pyframes, const uint64_t *ips, uint32_t n,
			 uint64_t *out);
/* A new capture file: ids start again from 1. */
void py_frames_reset(void);

#endif
