/* window.h - capture windows in the shim (the spec: formats/capwindow.h):
 * whether the process is recorded now, what opens and closes it, and the
 * edges the capture's WINDOWS chunks keep.
 *
 * The state is one atomic word: a count of what holds the window open
 * (NVTX ranges, a toggle, cudaProfilerStart), a gate (--delay,
 * --duration) and the number of edges so far. The window is open when the
 * gate is open and the count is not 0; every change of that bumps the edge
 * number, so the edge number is odd exactly while the window is open and
 * edges from different threads are ordered by their numbers. Reading it is
 * one relaxed load: every hook calls win_recording().
 */
#ifndef STACKCAP_WINDOW_H
#define STACKCAP_WINDOW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "formats/capture.h"
#include "formats/capwindow.h"

extern _Atomic uint64_t win_word;
extern struct fk_win_spec win_spec;
extern bool win_windowed; /* a window was asked for: the capture records its edges */

static inline bool win_recording(void)
{
	return (atomic_load_explicit(&win_word, memory_order_relaxed) >> 32) & 1;
}

/* Constructor: the STACKCAP_* window settings. False, with the reason on
 * stderr, when one is bad: then the shim does not capture. */
bool win_init(void);
/* Constructor, after win_init: takes the toggle signal (togglesig.c). */
void win_take_signal(void);
/* For the interposed sigaction and signal (pyguard.c): whether sig is the
 * toggle signal the shim holds; then the program's view of it is swapped
 * with act and old instead of the real disposition. */
struct sigaction;
bool togglesig_owns(int sig);
void togglesig_swap(const struct sigaction *act, struct sigaction *old);

/* NVTX (nvtx.c): what a range named name does to the window. */
enum { WIN_HELD = 1, WIN_TAGGED = 2 };
unsigned win_nvtx_match(const char *name, uint64_t *step);
/* A WIN_HELD range begins (step: its schedule step, else 0) or ends. */
void win_hold(uint64_t step);
void win_release(void);
/* cudaProfilerStart (true) and cudaProfilerStop (cudaprof.c). */
void win_cuda_profiler(bool start);
/* The toggle signal arrived: the window opens or closes now (signal-safe;
 * the writer records the edge). */
void win_toggle(void);

/* The writer (writer.c): at each new file, ms until it must wake for a
 * --delay or --duration edge (at most max_ms), then the edges due and the
 * toggle signal's edges (under the writer's lock). */
void win_start_file(struct fk_cap_buf *meta, struct fk_cap_buf *windows);
int win_timeout_ms(int max_ms);
void win_tick(void);
/* The writer's edges since the last call, into a WINDOWS payload (*t_prev:
 * the time of its last record); final: the window closes at the end. */
void win_put_pending(struct fk_cap_buf *windows, uint64_t *t_prev, bool final);
/* One edge record (a REC_WINDOW, or the writer's own). */
void win_put_edge(struct fk_cap_buf *windows, uint64_t *t_prev, uint64_t edge, uint64_t t_ns,
		  uint64_t step);
/* After the final cycle: a note on stderr when no window ever opened. */
void win_report(void);

#endif
