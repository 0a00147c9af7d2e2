/* python.c - finding CPython in the process and walking the current
 * thread's Python frames, from the sampling handler, an allocation hook or
 * a CUPTI callback (one function for all three).
 *
 * Detection (never in a handler) uses dlsym(RTLD_DEFAULT): the symbols are
 * in the python executable (Debian) or in libpython (pyenv, embedding).
 * The interpreter's layout comes from a table per version: 3.11 and 3.12
 * from their headers, 3.13+ from the _Py_DebugOffsets CPython publishes at
 * the start of _PyRuntime for exactly this. The walk reads the thread
 * state PyGILState_GetThisThreadState() gives (set even while the thread
 * has released the GIL: zlib, torch ops), then the frame chain, each read
 * guarded (pyguard.c), at most PY_MAX_FRAMES frames, stopping at a cycle.
 */
#include <dlfcn.h>
#include <link.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/pyguard.h"
#include "capture/python.h"

/* Where things are, in bytes. */
struct offsets {
	bool via_cframe;          /* 3.11, 3.12: tstate->cframe->current_frame */
	uint32_t ts_cframe, cframe_current, ts_current_frame;
	uint32_t f_code, f_previous, f_instr, f_owner;
	int32_t f_is_entry;       /* 3.11: the entry flag; -1: none */
	bool owner_entry;         /* 3.12+: entry frames have owner >= 3 */
	uintptr_t code_mask;      /* 3.14 tags the code pointer (_PyStackRef) */
	uint32_t co_code_adaptive;
	struct py_layout layout;
};

/* 3.11: offsetof() against /usr/include/python3.11 (Debian 3.11.2) and
 * pyenv 3.11.7's headers, the same values (cpython/pystate.h,
 * internal/pycore_frame.h, cpython/code.h, cpython/unicodeobject.h). */
static const struct offsets v3_11 = {
	.via_cframe = true, .ts_cframe = 56, .cframe_current = 8,
	.f_code = 32, .f_previous = 48, .f_instr = 56, .f_owner = 69, .f_is_entry = 68,
	.owner_entry = false, .code_mask = ~(uintptr_t)0, .co_code_adaptive = 184,
	.layout = { .co_filename = 112, .co_name = 120, .co_qualname = 128, .co_linetable = 136,
		    .co_firstlineno = 72, .str_state = 32, .str_length = 16,
		    .str_ascii_size = 48, .str_compact_size = 72, .bytes_size = 16, .bytes_data = 32 },
};

/* 3.12: offsetof() against pyenv 3.12.1's headers. The frame's owner is
 * FRAME_OWNED_BY_CSTACK (3) for the entry frame each interpreter call
 * pushes. */
static const struct offsets v3_12 = {
	.via_cframe = true, .ts_cframe = 56, .cframe_current = 0,
	.f_code = 0, .f_previous = 8, .f_instr = 56, .f_owner = 70, .f_is_entry = -1,
	.owner_entry = true, .code_mask = ~(uintptr_t)0, .co_code_adaptive = 192,
	.layout = { .co_filename = 112, .co_name = 120, .co_qualname = 128, .co_linetable = 136,
		    .co_firstlineno = 68, .str_state = 32, .str_length = 16,
		    .str_ascii_size = 40, .str_compact_size = 56, .bytes_size = 16, .bytes_data = 32 },
};

static struct offsets O;
static _Atomic int walking;    /* the walk may run */
static _Atomic int done;       /* detection is over (found, refused or off) */
static _Atomic uint64_t faults;
static _Atomic unsigned walks;
unsigned py_test_fault_every;
static void *(*get_tstate)(void);
static volatile uintptr_t unmapped = 8; /* for STACKCAP_PY_TEST_FAULT */
static uintptr_t eval_lo, eval_hi;

static char status[160];
static _Atomic unsigned status_version;

static void set_status(const char *fmt, const char *version, const char *why)
{
	snprintf(status, sizeof status, fmt, version, why);
	atomic_fetch_add(&status_version, 1);
}

unsigned py_status(unsigned seen, char *buf, size_t n)
{
	unsigned v = atomic_load(&status_version);
	if (v != seen)
		snprintf(buf, n, "%s", status);
	return v;
}

uint64_t py_faults(void)
{
	return atomic_load_explicit(&faults, memory_order_relaxed);
}

bool py_is_eval(uint64_t ip)
{
	return ip >= eval_lo && ip < eval_hi;
}

uintptr_t py_eval_base(void)
{
	return eval_lo;
}

/* "3.11.2", "3.13.0rc1" from PY_VERSION_HEX. */
static void version_text(uint32_t v, char *buf, size_t n)
{
	unsigned level = (v >> 4) & 15, serial = v & 15;
	int k = snprintf(buf, n, "%u.%u.%u", v >> 24, (v >> 16) & 255, (v >> 8) & 255);
	if (level != 15 && k > 0 && (size_t)k < n)
		snprintf(buf + k, n - (size_t)k, "%s%u",
			 level == 10 ? "a" : level == 11 ? "b" : "rc", serial);
}

/* 3.13+: the layout CPython publishes (Include/internal/pycore_runtime.h,
 * _Py_DebugOffsets: an array of u64 after the cookie). Word indices of the
 * sub-structs checked against pyenv 3.13.0's headers; 3.14's from its
 * pycore_debug_offsets.h as other tools read it (untested here). */
static const char *from_debug_offsets(const uint64_t *dbg, uint32_t version, unsigned minor)
{
	if (memcmp(dbg, "xdebugpy", 8) != 0)
		return "no _Py_DebugOffsets";
	if ((dbg[1] >> 16) != (version >> 16))
		return "_Py_DebugOffsets of another version";
	if (dbg[2] != 0)
		return "free-threaded build";
	unsigned ts = 19, frame = 28, code = 34, str = 67;
	if (minor == 14)
		ts = 22, frame = 31, code = 39, str = 77;
	memset(&O, 0, sizeof O);
	O.via_cframe = false;
	O.ts_current_frame = (uint32_t)dbg[ts + 4];
	O.f_previous = (uint32_t)dbg[frame + 1];
	O.f_code = (uint32_t)dbg[frame + 2];
	O.f_instr = (uint32_t)dbg[frame + 3];
	O.f_owner = (uint32_t)dbg[frame + 5];
	O.f_is_entry = -1;
	O.owner_entry = true;
	O.code_mask = minor >= 14 ? ~(uintptr_t)3 : ~(uintptr_t)0;
	O.co_code_adaptive = (uint32_t)dbg[code + 9];
	struct py_layout *l = &O.layout;
	l->co_filename = (uint32_t)dbg[code + 1];
	l->co_name = (uint32_t)dbg[code + 2];
	l->co_qualname = (uint32_t)dbg[code + 3];
	l->co_linetable = (uint32_t)dbg[code + 4];
	l->co_firstlineno = (uint32_t)dbg[code + 5];
	l->str_state = (uint32_t)dbg[str + 1];
	l->str_length = (uint32_t)dbg[str + 2];
	l->str_ascii_size = (uint32_t)dbg[str + 3];
	l->str_compact_size = l->str_ascii_size + 16; /* utf8_length, utf8 */
	l->bytes_size = 16, l->bytes_data = 32;
	/* Offsets far outside the objects mean the words are not what we think. */
	if (O.ts_current_frame > 4096 || O.f_owner > 256 || O.co_code_adaptive > 1024 ||
	    l->str_ascii_size > 256)
		return "unexpected _Py_DebugOffsets";
	return NULL;
}

static bool python_wanted(void)
{
	const char *s = getenv("STACKCAP_PYTHON");
	return !s || strcmp(s, "0") != 0;
}

void py_detect(void)
{
	if (atomic_load(&done))
		return;
	const uint32_t *version = dlsym(RTLD_DEFAULT, "Py_Version");
	if (!version) {
		/* Before 3.11 there is no Py_Version; Py_GetVersion() only formats
		 * a static string ("3.10.13 (main, ...) [GCC ...]"). */
		const char *(*get_version)(void) = (const char *(*)(void))dlsym(RTLD_DEFAULT, "Py_GetVersion");
		if (!get_version)
			return; /* not (yet) a Python process: looked for again when objects load */
		atomic_store(&done, 1);
		char old[32];
		snprintf(old, sizeof old, "%.*s", (int)strcspn(get_version(), " "), get_version());
		set_status("CPython %s: %s, native stacks only", old, "not supported");
		return;
	}
	atomic_store(&done, 1);
	char vt[32];
	version_text(*version, vt, sizeof vt);
	if (!python_wanted()) {
		set_status("off (--no-python)%s%s", "", "");
		return;
	}
	const char *fault = getenv("STACKCAP_PY_TEST_FAULT");
	py_test_fault_every = fault ? (unsigned)strtoul(fault, NULL, 10) : 0;
	void *runtime = dlsym(RTLD_DEFAULT, "_PyRuntime");
	void *code_type = dlsym(RTLD_DEFAULT, "PyCode_Type");
	void *eval = dlsym(RTLD_DEFAULT, "_PyEval_EvalFrameDefault");
	get_tstate = (void *(*)(void))dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
	if (!runtime || !code_type || !eval || !get_tstate) {
		set_status("CPython %s: %s, native stacks only", vt, "interpreter symbols missing");
		return;
	}
	unsigned major = *version >> 24, minor = (*version >> 16) & 255;
	const char *why = NULL;
	if (major == 3 && minor == 11)
		O = v3_11;
	else if (major == 3 && minor == 12)
		O = v3_12;
	else if (major == 3 && (minor == 13 || minor == 14))
		why = from_debug_offsets(runtime, *version, minor);
	else
		why = "not supported";
	if (why) {
		set_status("CPython %s: %s, native stacks only", vt, why);
		return;
	}
	O.layout.code_type = (uintptr_t)code_type;
	Dl_info info;
	const ElfW(Sym) *sym = NULL;
	if (!dladdr1(eval, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym || !sym->st_size) {
		set_status("CPython %s: %s, native stacks only", vt, "no size for _PyEval_EvalFrameDefault");
		return;
	}
	if (!py_cache_init(&O.layout) || !py_guard_install()) {
		set_status("CPython %s: %s, native stacks only", vt, "cannot set up the walk");
		return;
	}
	/* The symbol's extent. A compiler-split _PyEval_EvalFrameDefault.cold
	 * (a local symbol) is not in it: there it is a few bytes of error
	 * exits in the builds tested, which call nothing a sample lands in. */
	eval_lo = (uintptr_t)eval;
	eval_hi = eval_lo + sym->st_size;
	get_tstate(); /* binds whatever it calls before a handler does */
	set_status("CPython %s: %s", vt, "frames on");
	atomic_store(&walking, 1);
}

/* ---- the walk ---- */

static uintptr_t load_ptr(uintptr_t a)
{
	return *(const volatile uintptr_t *)a;
}

static uint8_t load_u8(uintptr_t a)
{
	return *(const volatile uint8_t *)a;
}

/* Runs with the guard armed: any read may jump out. */
__attribute__((noinline)) static uint32_t walk(uint64_t *out, uint32_t n, uint32_t max)
{
	if (py_test_fault_every && atomic_fetch_add(&walks, 1) % py_test_fault_every == 0)
		load_ptr(unmapped);
	uintptr_t ts = (uintptr_t)get_tstate();
	if (!ts)
		return n;
	uintptr_t frame;
	if (O.via_cframe) {
		uintptr_t cframe = load_ptr(ts + O.ts_cframe);
		frame = cframe ? load_ptr(cframe + O.cframe_current) : 0;
	} else {
		frame = load_ptr(ts + O.ts_current_frame);
	}
	uint32_t first = n, steps = 0, lap = 1, in_lap = 0;
	uintptr_t mark = 0; /* Brent's cycle check: a frame seen 2^k steps ago */
	while (frame && !(frame & 7) && n < max && steps++ < 4 * PY_MAX_FRAMES &&
	       n - first < PY_MAX_FRAMES) {
		if (frame == mark)
			break;
		if (++in_lap == lap)
			mark = frame, lap *= 2, in_lap = 0;
		uintptr_t previous = load_ptr(frame + O.f_previous);
		bool run_end = false;
		if (O.owner_entry && load_u8(frame + O.f_owner) >= 3) {
			/* An interpreter call's entry frame: the run below ends. */
			if (n > first)
				out[n - 1] |= PY_REC_RUN_END;
			frame = previous;
			continue;
		}
		if (O.f_is_entry >= 0)
			run_end = load_u8(frame + (uint32_t)O.f_is_entry) != 0;
		uintptr_t code = load_ptr(frame + O.f_code) & O.code_mask;
		if (code && !(code & 7) && load_ptr(code + 8) == O.layout.code_type) {
			uintptr_t instr = load_ptr(frame + O.f_instr);
			uintptr_t base = code + O.co_code_adaptive;
			uint32_t lasti = instr >= base && (instr - base) / 2 < PY_LASTI_START
						 ? (uint32_t)((instr - base) / 2)
						 : PY_LASTI_START;
			out[n++] = py_rec(py_cache_lookup(code), lasti, false);
		}
		if (run_end && n > first)
			out[n - 1] |= PY_REC_RUN_END;
		frame = previous;
	}
	return n;
}

uint32_t py_walk(uint64_t *out, uint32_t n, uint32_t max)
{
	if (!atomic_load_explicit(&walking, memory_order_relaxed) || py_guard_jmp)
		return n; /* off, or a signal landed inside another walk */
	sigjmp_buf jb;
	if (sigsetjmp(jb, 0)) {
		py_cache_fault();
		atomic_fetch_add_explicit(&faults, 1, memory_order_relaxed);
		return n; /* native frames only: a partial chain would misplace runs */
	}
	py_guard_jmp = &jb;
	atomic_signal_fence(memory_order_seq_cst);
	uint32_t got = walk(out, n, max);
	atomic_signal_fence(memory_order_seq_cst);
	py_guard_jmp = NULL;
	return got;
}
