/* window.c - capture windows in the shim (see window.h): the settings, the
 * state word and its edges. An edge made on a program thread (an NVTX
 * range, cudaProfilerStart) goes into that thread's event ring as a
 * REC_WINDOW record; one made by the writer (--delay, --duration) into
 * the writer's own list; one made by the toggle signal's handler into a
 * fixed array the writer drains (a handler cannot share the list, and
 * can interrupt a hook writing its thread's ring). Readers order them by
 * edge number.
 */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture/shim.h"
#include "capture/window.h"

#define COUNT_MASK ((UINT64_C(1) << 30) - 1)
#define GATE (UINT64_C(1) << 30)
#define EDGE_ONE (UINT64_C(1) << 32)

/* Open from the start, edge 1: a capture without windows, and every hook
 * called before the constructor. */
_Atomic uint64_t win_word = EDGE_ONE | GATE | 1;
struct fk_win_spec win_spec;
bool win_windowed;

static uint64_t origin_ns;       /* the process's start: --delay counts from it */
static int gate_stage;           /* 0 before the delay, 1 open, 2 after the duration */
static _Atomic uint64_t steps;   /* schedule: step markers seen */
static _Atomic uint64_t profiler_starts, nvtx_matches;
static uint64_t edge_at_start;   /* the edge number when this file began */

/* The writer's edges, until its next cycle (more than fit are lost: the
 * readers see the gap in edge numbers). */
struct edge {
	uint64_t edge, t_ns;
};
static struct edge pending[64];
static unsigned npending;

/* The toggle signal's edges, claimed in order and never reused: past
 * TOGGLE_EDGES the window still flips, but the edges are lost (readers see
 * the gap). */
#define TOGGLE_EDGES 4096
static struct {
	_Atomic int ready;
	uint64_t edge, t_ns;
} toggle_edges[TOGGLE_EDGES];
static _Atomic uint64_t toggle_head;
static uint64_t toggle_tail; /* the writer's */

/* ---- settings ---- */

static bool bad(const char *name, const char *value, const char *what)
{
	fprintf(stderr, "stackcap: %s='%s': %s; not capturing\n", name, value, what);
	return false;
}

bool win_init(void)
{
	fk_win_spec_init(&win_spec);
	origin_ns = shim_now_ns();
	const char *v;
	if ((v = getenv("STACKCAP_DELAY")) && *v && !fk_win_seconds(v, &win_spec.delay_s))
		return bad("STACKCAP_DELAY", v, "not a number of seconds");
	if ((v = getenv("STACKCAP_DURATION")) && *v &&
	    (!fk_win_seconds(v, &win_spec.duration_s) || win_spec.duration_s <= 0))
		return bad("STACKCAP_DURATION", v, "not a number of seconds above 0");
	const char *trigger = NULL;
	if ((v = getenv("STACKCAP_TOGGLE_SIGNAL")) && *v) {
		if (!(win_spec.signal = fk_win_signal(v)))
			return bad("STACKCAP_TOGGLE_SIGNAL", v, "not a signal that can toggle a capture");
		win_spec.trigger = FK_WIN_TOGGLE;
		trigger = "STACKCAP_TOGGLE_SIGNAL";
	}
	if ((v = getenv("STACKCAP_CAPTURE_RANGE")) && *v) {
		if (trigger)
			return bad("STACKCAP_CAPTURE_RANGE", v, "only one of STACKCAP_TOGGLE_SIGNAL, "
				   "STACKCAP_CAPTURE_RANGE and STACKCAP_SCHEDULE at a time");
		if (!fk_win_range(v, &win_spec))
			return bad("STACKCAP_CAPTURE_RANGE", v, "not nvtx:NAME or cuda-profiler-api");
		trigger = "STACKCAP_CAPTURE_RANGE";
	}
	if ((v = getenv("STACKCAP_SCHEDULE")) && *v) {
		if (trigger)
			return bad("STACKCAP_SCHEDULE", v, "only one of STACKCAP_TOGGLE_SIGNAL, "
				   "STACKCAP_CAPTURE_RANGE and STACKCAP_SCHEDULE at a time");
		if (!fk_win_schedule_parse(v, &win_spec.schedule))
			return bad("STACKCAP_SCHEDULE", v, "not wait=N,warmup=N,active=N,repeat=N "
				   "(active at least 1)");
		win_spec.trigger = FK_WIN_SCHEDULE;
		snprintf(win_spec.pattern, sizeof win_spec.pattern, "%s", FK_WIN_DEFAULT_STEP);
	}
	if ((v = getenv("STACKCAP_STEP_MARKER")) && *v) {
		if (win_spec.trigger != FK_WIN_SCHEDULE)
			return bad("STACKCAP_STEP_MARKER", v, "a step marker needs STACKCAP_SCHEDULE");
		if (!fk_win_pattern(v, win_spec.pattern))
			return bad("STACKCAP_STEP_MARKER", v, "too long");
	}
	win_windowed = fk_win_spec_any(&win_spec);
	if (win_windowed) {
		uint64_t gate = win_spec.delay_s > 0 ? 0 : GATE;
		uint64_t count = win_spec.trigger == FK_WIN_ALWAYS ? 1 : 0;
		gate_stage = gate ? 1 : 0;
		atomic_store(&win_word, (gate && count ? EDGE_ONE : 0) | gate | count);
	}
	return true;
}

/* ---- the state word ---- */

enum op { KEEP, ADD, SUB, SET0, SET1, FLIP };

/* Applies op to the count (and gate: -1 keeps it); returns the new edge
 * number when the window opened or closed, else 0. */
static uint64_t update(int gate, enum op op)
{
	uint64_t old = atomic_load(&win_word), next;
	do {
		uint64_t count = old & COUNT_MASK, g = old & GATE, edge = old >> 32;
		switch (op) {
		case KEEP: break;
		case ADD: count += count < COUNT_MASK; break;
		case SUB: count -= count > 0; break;
		case SET0: count = 0; break;
		case SET1: count = 1; break;
		case FLIP: count = !count; break;
		}
		if (gate >= 0)
			g = gate ? GATE : 0;
		bool open = g && count;
		if (open != (bool)(edge & 1))
			edge++;
		next = edge << 32 | g | count;
	} while (!atomic_compare_exchange_weak(&win_word, &old, next));
	return (next >> 32) != (old >> 32) ? next >> 32 : 0;
}

/* An edge made on a program thread: into its event ring. */
static void edge_here(uint64_t edge, uint64_t step)
{
	struct thread_state *ts = shim_thread;
	uint64_t tail;
	struct rec_window *r;
	if (!edge || !ts)
		return; /* a thread the shim does not follow: readers see the gap */
	r = (struct rec_window *)shim_event_reserve(ts, sizeof *r, REC_WINDOW, &tail);
	if (!r)
		return;
	r->t_ns = shim_now_ns();
	r->edge = edge;
	r->step = step;
	shim_event_commit(ts, tail);
}

/* An edge the writer made. */
static void edge_by_writer(uint64_t edge, uint64_t t_ns)
{
	if (edge && npending < sizeof pending / sizeof *pending)
		pending[npending++] = (struct edge){ edge, t_ns };
}

/* ---- what opens and closes it ---- */

unsigned win_nvtx_match(const char *name, uint64_t *step)
{
	if (!name || (win_spec.trigger != FK_WIN_NVTX && win_spec.trigger != FK_WIN_SCHEDULE))
		return 0;
	shim_guard++;
	bool match = fnmatch(win_spec.pattern, name, 0) == 0;
	shim_guard--;
	if (!match)
		return 0;
	atomic_fetch_add(&nvtx_matches, 1);
	if (win_spec.trigger == FK_WIN_NVTX) {
		*step = 0;
		return WIN_HELD;
	}
	uint64_t k = atomic_fetch_add(&steps, 1);
	if (fk_win_schedule_action(&win_spec.schedule, k) != FK_WIN_STEP_RECORD)
		return 0;
	*step = k + 1;
	return WIN_HELD | WIN_TAGGED;
}

void win_hold(uint64_t step)
{
	edge_here(update(-1, ADD), step);
}

void win_release(void)
{
	edge_here(update(-1, SUB), 0);
}

void win_cuda_profiler(bool start)
{
	if (win_spec.trigger != FK_WIN_CUDA_PROFILER)
		return;
	if (start)
		atomic_fetch_add(&profiler_starts, 1);
	edge_here(update(-1, start ? SET1 : SET0), 0);
}

void win_toggle(void)
{
	uint64_t edge = update(-1, FLIP);
	if (!edge)
		return; /* the gate is closed: nothing opened or closed */
	uint64_t i = atomic_fetch_add(&toggle_head, 1);
	if (i >= TOGGLE_EDGES)
		return;
	toggle_edges[i].edge = edge;
	toggle_edges[i].t_ns = shim_now_ns();
	atomic_store_explicit(&toggle_edges[i].ready, 1, memory_order_release);
	writer_kick();
}

/* ---- the writer's side ---- */

static void put_str(struct fk_cap_buf *b, const char *s)
{
	fk_cap_put_string(b, s, strlen(s));
}

void win_put_edge(struct fk_cap_buf *windows, uint64_t *t_prev, uint64_t edge, uint64_t t_ns,
		  uint64_t step)
{
	fk_cap_put_uvarint(windows, edge);
	fk_cap_put_svarint(windows, (int64_t)(t_ns - *t_prev));
	fk_cap_put_uvarint(windows, step);
	*t_prev = t_ns;
}

void win_start_file(struct fk_cap_buf *meta, struct fk_cap_buf *windows)
{
	npending = 0;
	if (!win_windowed)
		return;
	/* A file after a failed exec: the last one's end closed the gate. */
	update(gate_stage == 1, KEEP);
	char text[512];
	fk_win_describe(&win_spec, text, sizeof text);
	put_str(meta, "window");
	put_str(meta, text);
	/* The state as this file begins: a record of the current edge number
	 * (odd: open) at the start. */
	uint64_t now = shim_now_ns(), t = now;
	edge_at_start = atomic_load(&win_word) >> 32;
	fk_cap_put_uvarint(windows, now);
	win_put_edge(windows, &t, edge_at_start, now, 0);
}

static uint64_t gate_edge_ns(void)
{
	if (gate_stage == 0)
		return origin_ns + (uint64_t)(win_spec.delay_s * 1e9);
	if (gate_stage == 1 && win_spec.duration_s > 0)
		return origin_ns + (uint64_t)((win_spec.delay_s + win_spec.duration_s) * 1e9);
	return 0;
}

int win_timeout_ms(int max_ms)
{
	uint64_t at = win_windowed ? gate_edge_ns() : 0;
	if (!at)
		return max_ms;
	uint64_t now = shim_now_ns();
	if (at <= now)
		return 0;
	uint64_t ms = (at - now + 999999) / 1000000;
	return ms < (uint64_t)max_ms ? (int)ms : max_ms;
}

/* The toggle signal's edges, in order, as far as they are written (a
 * handler may be filling the next one: it is taken next time). */
static void take_toggles(void)
{
	uint64_t head = atomic_load(&toggle_head);
	while (toggle_tail < head && toggle_tail < TOGGLE_EDGES &&
	       npending < sizeof pending / sizeof *pending &&
	       atomic_load_explicit(&toggle_edges[toggle_tail].ready, memory_order_acquire)) {
		edge_by_writer(toggle_edges[toggle_tail].edge, toggle_edges[toggle_tail].t_ns);
		toggle_tail++;
	}
}

void win_tick(void)
{
	if (!win_windowed)
		return;
	uint64_t at;
	while ((at = gate_edge_ns()) && at <= shim_now_ns()) {
		gate_stage++;
		edge_by_writer(update(gate_stage == 1, KEEP), shim_now_ns());
	}
	take_toggles();
}

void win_put_pending(struct fk_cap_buf *windows, uint64_t *t_prev, bool final)
{
	if (!win_windowed)
		return;
	if (final) { /* the capture ends: an open window closes with it */
		take_toggles();
		edge_by_writer(update(0, KEEP), shim_now_ns());
	}
	for (unsigned i = 0; i < npending; i++)
		win_put_edge(windows, t_prev, pending[i].edge, pending[i].t_ns, 0);
	npending = 0;
}

void win_report(void)
{
	if (!win_windowed)
		return;
	uint64_t edge = atomic_load(&win_word) >> 32;
	if (edge > edge_at_start || (edge_at_start & 1))
		return;
	char text[512];
	fk_win_describe(&win_spec, text, sizeof text);
	const char *why = "";
	if (win_spec.trigger == FK_WIN_CUDA_PROFILER && !atomic_load(&profiler_starts))
		why = ": the program never called cudaProfilerStart (is it a CUDA program, with "
		      "the shared CUDA runtime?)";
	else if ((win_spec.trigger == FK_WIN_NVTX || win_spec.trigger == FK_WIN_SCHEDULE) &&
		 !atomic_load(&nvtx_matches))
		why = ": no NVTX range matched the pattern (a stackcap built without the CUDA "
		      "toolkit sees no NVTX ranges at all)";
	else if (win_spec.trigger == FK_WIN_SCHEDULE)
		why = ": the program ended before the first active step";
	else if (gate_stage == 0)
		why = ": the program ended before the delay";
	else if (win_spec.trigger == FK_WIN_TOGGLE)
		why = ": the toggle signal never came while the window could open";
	fprintf(stderr, "stackcap: pid %d: the capture window (%s) never opened%s; the capture "
		"has no samples or allocations\n", (int)getpid(), text, why);
}
