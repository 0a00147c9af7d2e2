/* nvtx.c - the shim as NVTX's injection library: the constructor names this
 * library in NVTX_INJECTION64_PATH, and every NVTX instance in the process
 * (the program's, libtorch's, NCCL's: each shared object compiling NVTX3 in
 * has its own) calls InitializeInjectionNvtx2 on its first NVTX call. We
 * fill its function table with our push/pop/start/end/mark handlers, which
 * record each event with its thread and time into the thread's event ring.
 * No GPU, driver or CUPTI needed.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#define NVTX_NO_IMPL
#include <nvtx3/nvToolsExt.h>

#include "capture/shim.h"

static SHIM_TLS int depth; /* push/pop nesting, what push returns */
static _Atomic uint64_t next_range = 1;

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
	ring_commit(&ts->events, tail);
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

static int push_a(const char *name)
{
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
	return --depth;
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
	uint64_t id = atomic_fetch_add(&next_range, 1);
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
