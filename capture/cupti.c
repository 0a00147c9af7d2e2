/* cupti.c - the shim's CUDA side: CUPTI is set up when the program
 * initializes CUDA (the driver calls InitializeInjection, because the
 * constructor names this library in CUDA_INJECTION64_PATH; the shim never
 * calls cuInit itself). libcupti is loaded with dlopen, so the shim runs
 * where there is no CUDA at all. Any CUPTI failure (no driver, another
 * CUPTI user such as torch.profiler or Nsight) leaves the capture CPU-only,
 * with the reason in the file.
 *
 * At the ENTER of each launch, memcpy, memset and allocation API call
 * (runtime and driver; the set is chosen by callback name) the host stack
 * is unwound into the thread's event ring, keyed by CUPTI's correlation id;
 * a driver call inside a runtime call only links the two ids. Activity
 * buffers are turned into capture payloads as they complete (gpurec.c);
 * the writer thread takes them each cycle.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cupti.h>

#include "capture/gpurec.h"
#include "capture/python.h"
#include "capture/shim.h"
#include "capture/unwind.h"
#include "capture/window.h"

#define BUFFER_BYTES ((size_t)4 << 20)
#define FLUSH_PERIOD_MS 100

static struct {
	CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
				       CUpti_CallbackId);
	CUptiResult (*get_callback_name)(CUpti_CallbackDomain, uint32_t, const char **);
	CUptiResult (*activity_enable)(CUpti_ActivityKind);
	CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
					  CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*get_next_record)(uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*flush_all)(uint32_t);
	CUptiResult (*flush_period)(uint32_t);
	CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
	CUptiResult (*timestamp_callback)(CUpti_TimestampCallbackFunc);
	CUptiResult (*thread_id_type)(CUpti_ActivityThreadIdType);
	CUptiResult (*result_string)(CUptiResult, const char **);
	CUptiResult (*graph_node_id)(CUgraphNode, uint64_t *);
} cu;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct gpu_emit emitter;   /* under lock */
static char status[256] = "off: the program did not initialize CUDA";
static _Atomic unsigned status_version = 1;
static _Atomic int active;        /* activity collection running */
static pid_t owner;               /* never touch CUPTI in a forked child */
static bool clock_monotonic;
static uint8_t wanted[2][1024 / 8]; /* cbids with stacks: [0] runtime, [1] driver */
static SHIM_TLS uint32_t runtime_corr; /* inside this runtime call */

static void set_status(const char *fmt, const char *what, CUptiResult rc)
{
	const char *text = "unknown error";
	if (cu.result_string)
		cu.result_string(rc, &text);
	pthread_mutex_lock(&lock);
	snprintf(status, sizeof status, fmt, what, text);
	pthread_mutex_unlock(&lock);
	atomic_fetch_add(&status_version, 1);
}

/* The version first: a text set meanwhile is copied under the older one,
 * and copied again at the next call, never lost. */
unsigned cupti_status(unsigned seen, char *buf, size_t n, bool *monotonic)
{
	unsigned version = atomic_load(&status_version);
	if (version == seen)
		return seen;
	pthread_mutex_lock(&lock);
	snprintf(buf, n, "%s", status);
	*monotonic = clock_monotonic;
	pthread_mutex_unlock(&lock);
	return version;
}

/* ---- API callbacks: host stacks by correlation id ---- */

/* libcupti's and libcuda's code: a callback's stack passes through both
 * (CUPTI's dispatch) before it reaches the API call. */
static struct gpu_code dispatch[2];

static void find_dispatch_code(void *cupti_fn)
{
	shim_code_range(cupti_fn, &dispatch[0].lo, &dispatch[0].hi);
	void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
	if (cuda) { /* loaded: it is calling us */
		shim_code_range(dlsym(cuda, "cuInit"), &dispatch[1].lo, &dispatch[1].hi);
		dlclose(cuda);
	}
}

/* The caller's host stack, from the API call out (at most MAX_FRAMES
 * native frames once the dispatch's are dropped), then its Python frames:
 * room for MAX_IPS. */
_Static_assert(SHIM_MAX_UNWIND <= MAX_IPS, "ips has room for the dispatch's frames too");

static uint32_t api_stack_here(uint64_t *ips)
{
	uint32_t n = shim_unwind_here(ips, SHIM_MAX_UNWIND, 0);
	n = gpu_drop_dispatch_frames(ips, n, dispatch, sizeof dispatch / sizeof *dispatch);
	return py_walk(ips, n < MAX_FRAMES ? n : MAX_FRAMES, MAX_IPS);
}

static void record_api(uint32_t corr, uint32_t cbid, uint32_t domain)
{
	struct thread_state *ts = shim_thread;
	if (!ts || shim_guard)
		return;
	shim_guard++;
	ts->in_tracer = 1;
	uint64_t ips[MAX_IPS];
	uint32_t n = api_stack_here(ips);
	uint32_t size = (uint32_t)(sizeof(struct rec_gpu_api) + n * sizeof(uint64_t));
	uint64_t tail;
	struct rec_gpu_api *r = (struct rec_gpu_api *)shim_event_reserve(ts, size, REC_GPU_API, &tail);
	if (r) {
		r->t_ns = shim_now_ns();
		r->corr = corr;
		r->cbid = cbid;
		r->domain = domain;
		r->nframes = n;
		memcpy(r->ips, ips, n * sizeof *ips);
		shim_event_commit(ts, tail);
	}
	ts->in_tracer = 0;
	shim_guard--;
}

static void record_link(uint32_t driver, uint32_t runtime)
{
	struct thread_state *ts = shim_thread;
	if (!ts)
		return;
	uint64_t tail;
	struct rec_gpu_api *r = (struct rec_gpu_api *)shim_event_reserve(
		ts, sizeof(struct rec_gpu_api), REC_GPU_LINK, &tail);
	if (!r)
		return;
	r->t_ns = 0;
	r->corr = driver;
	r->cbid = runtime;
	r->domain = 0;
	r->nframes = 0;
	shim_event_commit(ts, tail);
}

/* A CUDA graph node: created (the code that captured or added it, with
 * its stack) or cloned at instantiation (linked to its original). */
static void record_graph_node(uint64_t node, uint64_t original)
{
	struct thread_state *ts = shim_thread;
	if (!ts || shim_guard)
		return;
	shim_guard++;
	ts->in_tracer = 1;
	uint64_t ips[MAX_IPS];
	uint32_t n = original ? 0 : api_stack_here(ips);
	uint32_t size = (uint32_t)(sizeof(struct rec_gpu_api) + (n + 1) * sizeof(uint64_t));
	uint64_t tail;
	struct rec_gpu_api *r = (struct rec_gpu_api *)shim_event_reserve(ts, size, REC_GPU_GRAPH, &tail);
	if (r) {
		r->t_ns = original; /* the original node, for a clone */
		r->corr = (uint32_t)node;
		r->cbid = (uint32_t)(node >> 32);
		r->domain = 0;
		r->nframes = n;
		memcpy(r->ips, ips, n * sizeof *ips);
		shim_event_commit(ts, tail);
	}
	ts->in_tracer = 0;
	shim_guard--;
}

static bool is_wanted(int d, uint32_t cbid)
{
	return cbid < 1024 && (wanted[d][cbid / 8] >> (cbid % 8) & 1);
}

/* --capture-range cuda-profiler-api: cudaProfilerStart/Stop seen by CUPTI
 * too, for a runtime linked statically (nvcc's default), where the shim's
 * interposed functions (cudaprof.c) are never called. Both seeing one call
 * is harmless: start and stop set the state, they do not toggle it. */
static bool profiler_call(CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	bool runtime = domain == CUPTI_CB_DOMAIN_RUNTIME_API;
	bool driver = domain == CUPTI_CB_DOMAIN_DRIVER_API;
	if ((runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000) ||
	    (driver && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart))
		win_cuda_profiler(true);
	else if ((runtime && cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000) ||
		 (driver && cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop))
		win_cuda_profiler(false);
	else
		return false;
	return true;
}

static void CUPTIAPI on_api(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
			    const void *data)
{
	(void)userdata;
	if (domain == CUPTI_CB_DOMAIN_RESOURCE) {
		const CUpti_ResourceData *rd = data;
		const CUpti_GraphData *g = rd ? rd->resourceDescriptor : NULL;
		uint64_t id = 0, original = 0;
		if (!g || !cu.graph_node_id || cu.graph_node_id(g->node, &id) != CUPTI_SUCCESS)
			return;
		if (cbid == CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED &&
		    cu.graph_node_id(g->originalNode, &original) != CUPTI_SUCCESS)
			return;
		record_graph_node(id, original);
		return;
	}
	const CUpti_CallbackData *cb = data;
	if (cb->callbackSite == CUPTI_API_ENTER && profiler_call(domain, cbid))
		return;
	if (domain == CUPTI_CB_DOMAIN_RUNTIME_API && is_wanted(0, cbid)) {
		if (cb->callbackSite == CUPTI_API_ENTER) {
			runtime_corr = cb->correlationId;
			record_api(cb->correlationId, cbid, 1);
		} else {
			runtime_corr = 0;
		}
	} else if (domain == CUPTI_CB_DOMAIN_DRIVER_API && is_wanted(1, cbid) &&
		   cb->callbackSite == CUPTI_API_ENTER) {
		if (runtime_corr)
			record_link(cb->correlationId, runtime_corr);
		else
			record_api(cb->correlationId, cbid, 2); /* cuBLAS, Triton: driver launches */
	}
}

/* Calls whose stacks matter, by name: launches, copies, sets, allocations.
 * Virtual memory (cuMemCreate, then cuMemMap and cuMemSetAccess: torch's
 * expandable segments) is reported by MEMORY2 under the call that maps it
 * or makes it accessible, so those have stacks too. */
static bool interesting(const char *name)
{
	static const char *const words[] = {
		"Launch", "Memcpy", "Memset", "Malloc", "Free", "MemAlloc", "MemHostAlloc", "HostAlloc",
		"MemCreate", "MemRelease", "MemMap", "MemUnmap", "MemSetAccess", "Graph",
	};
	if (!name)
		return false;
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strstr(name, words[i]))
			return !strstr(name, "GetAttribute") && !strstr(name, "Query");
	return false;
}

static bool name_is_profiler(CUpti_CallbackDomain d, uint32_t cbid)
{
	return d == CUPTI_CB_DOMAIN_RUNTIME_API
		       ? cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStart_v4000 ||
				 cbid == CUPTI_RUNTIME_TRACE_CBID_cudaProfilerStop_v4000
		       : cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStart ||
				 cbid == CUPTI_DRIVER_TRACE_CBID_cuProfilerStop;
}

static void enable_callbacks(CUpti_SubscriberHandle sub)
{
	static const struct { CUpti_CallbackDomain d; uint32_t size; } domains[2] = {
		{ CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_SIZE },
		{ CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_SIZE },
	};
	for (int d = 0; d < 2; d++)
		for (uint32_t cbid = 1; cbid < domains[d].size && cbid < 1024; cbid++) {
			const char *name = NULL;
			if (win_spec.trigger == FK_WIN_CUDA_PROFILER &&
			    name_is_profiler(domains[d].d, cbid)) { /* the window's, no stack */
				cu.enable_callback(1, sub, domains[d].d, cbid);
				continue;
			}
			if (cu.get_callback_name(domains[d].d, cbid, &name) != CUPTI_SUCCESS ||
			    !interesting(name))
				continue;
			if (cu.enable_callback(1, sub, domains[d].d, cbid) == CUPTI_SUCCESS)
				wanted[d][cbid / 8] |= (uint8_t)(1u << (cbid % 8));
		}
}

/* ---- activity buffers ---- */

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	shim_guard++;
	*buffer = aligned_alloc(8, BUFFER_BYTES); /* NULL: CUPTI drops, and counts it */
	shim_guard--;
	*size = *buffer ? BUFFER_BYTES : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				      size_t valid)
{
	(void)ctx, (void)stream, (void)size;
	shim_guard++;
	size_t dropped = 0;
	if (cu.dropped)
		cu.dropped(NULL, 0, &dropped);
	pthread_mutex_lock(&lock);
	if (buffer && valid)
		gpu_walk_buffer(&emitter, buffer, valid, cu.get_next_record);
	gpu_emit_dropped(&emitter, dropped);
	pthread_mutex_unlock(&lock);
	free(buffer);
	shim_guard--;
	writer_kick();
}

void cupti_take(struct fk_cap_buf *kernels, struct fk_cap_buf *memory)
{
	pthread_mutex_lock(&lock);
	gpu_emit_take(&emitter, kernels, memory);
	pthread_mutex_unlock(&lock);
}

/* ---- start and stop ---- */

static uint64_t monotonic_ns(void)
{
	return shim_now_ns();
}

static void *open_cupti(void)
{
	static const char *const names[] = {
		"libcupti.so.13", "libcupti.so", "/usr/local/cuda/lib64/libcupti.so.13",
		"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so.13",
	};
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		void *h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
		if (h)
			return h;
	}
	return NULL;
}

#define RESOLVE(field, name) (*(void **)&cu.field = dlsym(h, name))

static bool start(void)
{
	void *h = open_cupti();
	if (!h) {
		pthread_mutex_lock(&lock);
		snprintf(status, sizeof status, "off: libcupti not found (%s)", dlerror());
		pthread_mutex_unlock(&lock);
		atomic_fetch_add(&status_version, 1);
		return false;
	}
	RESOLVE(subscribe, "cuptiSubscribe");
	RESOLVE(enable_callback, "cuptiEnableCallback");
	RESOLVE(get_callback_name, "cuptiGetCallbackName");
	RESOLVE(activity_enable, "cuptiActivityEnable");
	RESOLVE(register_callbacks, "cuptiActivityRegisterCallbacks");
	RESOLVE(get_next_record, "cuptiActivityGetNextRecord");
	RESOLVE(flush_all, "cuptiActivityFlushAll");
	RESOLVE(flush_period, "cuptiActivityFlushPeriod");
	RESOLVE(dropped, "cuptiActivityGetNumDroppedRecords");
	RESOLVE(timestamp_callback, "cuptiActivityRegisterTimestampCallback");
	RESOLVE(thread_id_type, "cuptiSetThreadIdType");
	RESOLVE(result_string, "cuptiGetResultString");
	RESOLVE(graph_node_id, "cuptiGetGraphNodeId");
	if (!cu.subscribe || !cu.enable_callback || !cu.get_callback_name || !cu.activity_enable ||
	    !cu.register_callbacks || !cu.get_next_record || !cu.flush_all) {
		set_status("off: %s lacks a CUPTI function (%s)", "libcupti", CUPTI_ERROR_UNKNOWN);
		return false;
	}
	find_dispatch_code(*(void **)&cu.subscribe);
	/* Activity state is process-wide: a second CUPTI user (torch.profiler,
	 * Nsight) makes this fail, and we stay out of its way. */
	CUpti_SubscriberHandle sub;
	CUptiResult rc = cu.subscribe(&sub, on_api, NULL);
	if (rc != CUPTI_SUCCESS) {
		set_status("off: %s failed: %s (no driver, or another CUPTI user)", "cuptiSubscribe", rc);
		return false;
	}
	/* Our clock, before any kind is enabled (CUPTI converts GPU times). */
	clock_monotonic = cu.timestamp_callback &&
			  cu.timestamp_callback(monotonic_ns) == CUPTI_SUCCESS;
	if (cu.thread_id_type)
		cu.thread_id_type(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM);
	rc = cu.register_callbacks(buffer_requested, buffer_completed);
	if (rc != CUPTI_SUCCESS) {
		set_status("off: %s failed: %s", "cuptiActivityRegisterCallbacks", rc);
		return false;
	}
	static const CUpti_ActivityKind kinds[] = {
		CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, /* never KIND_KERNEL: it serializes */
		CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMORY2,
		CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, CUPTI_ACTIVITY_KIND_OVERHEAD,
		CUPTI_ACTIVITY_KIND_MEMORY_POOL, /* reserved memory of cudaMallocAsync pools */
	};
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
		rc = cu.activity_enable(kinds[i]);
		if (rc != CUPTI_SUCCESS && i == 0) {
			set_status("off: %s failed: %s", "cuptiActivityEnable", rc);
			return false;
		}
	}
	enable_callbacks(sub);
	/* CUDA graphs: kernels replayed from a graph are charged to the code
	 * that captured their node, not only to the graph launch. */
	cu.enable_callback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CREATED);
	cu.enable_callback(1, sub, CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_GRAPHNODE_CLONED);
	if (cu.flush_period)
		cu.flush_period(FLUSH_PERIOD_MS); /* a killed run loses little */
	pthread_mutex_lock(&lock);
	snprintf(status, sizeof status, "on (CUPTI, %s clock)",
		 clock_monotonic ? "monotonic" : "CUPTI's realtime");
	pthread_mutex_unlock(&lock);
	atomic_fetch_add(&status_version, 1);
	atomic_store(&active, 1);
	return true;
}

/* Called by the CUDA driver inside cuInit, once per process. */
__attribute__((visibility("default"))) int InitializeInjection(void);
int InitializeInjection(void)
{
	static _Atomic int once;
	if (atomic_exchange(&once, 1) || !atomic_load(&shim_ready))
		return 1;
	shim_guard++;
	owner = getpid();
	start();
	shim_guard--;
	return 1;
}

/* The constructor: ask the driver to call InitializeInjection, unless
 * another tool already named its own library. */
void cupti_prepare(void)
{
	Dl_info info;
	if (dladdr((void *)&InitializeInjection, &info) && info.dli_fname)
		setenv("CUDA_INJECTION64_PATH", info.dli_fname, 0);
}

/* Before the last writer cycle: everything CUPTI still holds. */
void cupti_stop(void)
{
	if (!atomic_exchange(&active, 0) || getpid() != owner)
		return; /* never CUPTI in a forked child: FlushAll hangs there */
	cu.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

void cupti_after_fork_child(void)
{
	atomic_store(&active, 0);
	pthread_mutex_init(&lock, NULL);
	gpu_emit_free(&emitter);
}
