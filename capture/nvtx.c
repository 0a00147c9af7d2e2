/* nvtx.c - the shim as NVTX's injection library: the constructor names this
 * library in NVTX_INJECTION64_PATH, and every NVTX instance in the process
 * (the program's, libtorch's, NCCL's: each shared object compiling NVTX3 in
 * has its own) calls InitializeInjectionNvtx2 on its first NVTX call. We
 * fill its function table with our push/pop/start/end/mark handlers, which
 * record each event with its thread and time into the thread's event ring.
 * No GPU, driver or CUPTI needed.
 *
 * Capture windows (capture/window.h) are opened here too: a range whose
 * name matches --capture-range nvtx:NAME holds the window open until it
 * ends, and an active step of --schedule does the same, inside a
 * synthetic "[step N]" push/pop range recorded around it (so stackfold
 * --nvtx shows the step). Push/pop ranges nested deeper than 64 on a
 * thread, and the tag of a start/end step range, are not followed.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "capture/shim.h"
#include "capture/window.h"

static SHIM_TLS int depth; /* push/pop nesting, what push returns */
/* Bit d: the push at depth d holds the capture window / is tagged "[step N]". */
static SHIM_TLS uint64_t held_bits, tagged_bits;
static _Atomic uint64_t next_range = 1;
/* A start/end range id holding the window (ids never grow this far). */
#define HELD_ID (UINT64_C(1) << 62)

static void record(uint32_t op, uint64_t id, const char *name)
{
	struct thread_state *ts = shim_thread;
	if (!ts || shim_guard)
		return;
	size_t len = name ? strnlen(name, NVTX_NAME_MAX) : 0;
	uint32_t size = (uint32_t)((sizeof(struct rec_nvtx) + len + 7) & ~(size_t)7);
	uint64_t tail;
	struct rec_nvtx *r = (struct rec_nvtx *)shim_event_reserve(ts, size, REC_NVTX, &tail);
	if (!r)
		return;
	r->t_ns = shim_now_ns();
	r->op = op;
	r->len = (uint32_t)len;
	r->id = id;
	if (len)
		memcpy(r->name, name, len);
	shim_event_commit(ts, tail);
}

/* The message of event attributes: ASCII, or a string we registered. */
static const char *message(const nvtxEventAttributes_t *a)
{
	if (!a)
		return NULL;
	if (a->messageType == NVTX_MESSAGE_TYPE_ASCII)
		return a->message.ascii;
	if (a->messageType == NVTX_MESSAGE_TYPE_REGISTERED)
		return (const char *)a->message.registered;
	return "[unicode message]";
}

/* "[step N]" for --schedule's step N. */
static void record_step(uint64_t step)
{
	char tag[40];
	snprintf(tag, sizeof tag, "[step %llu]", (unsigned long long)step);
	record(FK_CAP_NVTX_PUSH, 0, tag);
}

static int push_a(const char *name)
{
	uint64_t step = 0;
	unsigned win = depth >= 0 && depth < 64 ? win_nvtx_match(name, &step) : 0;
	uint64_t bit = win ? UINT64_C(1) << depth : 0;
	held_bits = (held_bits & ~bit) | (win & WIN_HELD ? bit : 0);
	tagged_bits = (tagged_bits & ~bit) | (win & WIN_TAGGED ? bit : 0);
	if (win & WIN_TAGGED)
		record_step(step - 1);
	if (win & WIN_HELD)
		win_hold(step);
	record(FK_CAP_NVTX_PUSH, 0, name);
	return depth++;
}

static int push_ex(const nvtxEventAttributes_t *a)
{
	return push_a(message(a));
}

static int pop(void)
{
	if (depth == 0)
		return -1;
	record(FK_CAP_NVTX_POP, 0, NULL);
	int d = --depth;
	uint64_t bit = d < 64 ? UINT64_C(1) << d : 0;
	if (held_bits & bit)
		win_release();
	if (tagged_bits & bit)
		record(FK_CAP_NVTX_POP, 0, NULL);
	held_bits &= ~bit;
	tagged_bits &= ~bit;
	return d;
}

static void mark_a(const char *name)
{
	record(FK_CAP_NVTX_MARK, 0, name);
}

static void mark_ex(const nvtxEventAttributes_t *a)
{
	mark_a(message(a));
}

static nvtxRangeId_t start_a(const char *name)
{
	uint64_t id = atomic_fetch_add(&next_range, 1), step = 0;
	if (win_nvtx_match(name, &step) & WIN_HELD) {
		id |= HELD_ID;
		win_hold(step);
	}
	record(FK_CAP_NVTX_START, id, name);
	return id;
}

static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *a)
{
	return start_a(message(a));
}

static void end(nvtxRangeId_t id)
{
	record(FK_CAP_NVTX_END, id, NULL);
	if (id & HELD_ID)
		win_release();
}

static int domain_push_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	(void)d;
	return push_ex(a);
}

static int domain_pop(nvtxDomainHandle_t d)
{
	(void)d;
	return pop();
}

static void domain_mark_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	(void)d;
	mark_ex(a);
}

static nvtxRangeId_t domain_start_ex(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	(void)d;
	return start_ex(a);
}

static void domain_end(nvtxDomainHandle_t d, nvtxRangeId_t id)
{
	(void)d;
	end(id);
}

/* Registered strings and domains are our own copies, kept for the
 * process's life: the handle is the text. */
static const char *keep(const char *s)
{
	shim_guard++;
	char *copy = s ? strdup(s) : NULL;
	shim_guard--;
	return copy ? copy : "";
}

static nvtxStringHandle_t register_string(nvtxDomainHandle_t d, const char *s)
{
	(void)d;
	return (nvtxStringHandle_t)keep(s);
}

static nvtxDomainHandle_t domain_create(const char *name)
{
	return (nvtxDomainHandle_t)keep(name);
}

typedef void (*fn)(void);

static void set(NvtxFunctionTable table, unsigned size, unsigned slot, fn f)
{
	if (slot < size && table[slot])
		*table[slot] = f;
}

__attribute__((visibility("default"))) int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);
int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	const NvtxExportTableCallbacks *cb = get ? get(NVTX_ETID_CALLBACKS) : NULL;
	if (!cb || cb->struct_size < sizeof *cb)
		return 0;
	NvtxFunctionTable t;
	unsigned n;
	if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE, &t, &n)) {
		set(t, n, NVTX_CBID_CORE_RangePushA, (fn)push_a);
		set(t, n, NVTX_CBID_CORE_RangePushEx, (fn)push_ex);
		set(t, n, NVTX_CBID_CORE_RangePop, (fn)pop);
		set(t, n, NVTX_CBID_CORE_MarkA, (fn)mark_a);
		set(t, n, NVTX_CBID_CORE_MarkEx, (fn)mark_ex);
		set(t, n, NVTX_CBID_CORE_RangeStartA, (fn)start_a);
		set(t, n, NVTX_CBID_CORE_RangeStartEx, (fn)start_ex);
		set(t, n, NVTX_CBID_CORE_RangeEnd, (fn)end);
	}
	if (cb->GetModuleFunctionTable(NVTX_CB_MODULE_CORE2, &t, &n)) {
		set(t, n, NVTX_CBID_CORE2_DomainRangePushEx, (fn)domain_push_ex);
		set(t, n, NVTX_CBID_CORE2_DomainRangePop, (fn)domain_pop);
		set(t, n, NVTX_CBID_CORE2_DomainMarkEx, (fn)domain_mark_ex);
		set(t, n, NVTX_CBID_CORE2_DomainRangeStartEx, (fn)domain_start_ex);
		set(t, n, NVTX_CBID_CORE2_DomainRangeEnd, (fn)domain_end);
		set(t, n, NVTX_CBID_CORE2_DomainRegisterStringA, (fn)register_string);
		set(t, n, NVTX_CBID_CORE2_DomainCreateA, (fn)domain_create);
	}
	return 1;
}

void nvtx_prepare(void)
{
	Dl_info info;
	if (dladdr((void *)&InitializeInjectionNvtx2, &info) && info.dli_fname)
		setenv("NVTX_INJECTION64_PATH", info.dli_fname, 0);
}
