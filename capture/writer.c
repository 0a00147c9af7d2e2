/* writer.c - the shim's writer: every 50 ms (sooner when a ring fills) it
 * drains every thread's rings, interns stacks as prefix-tree nodes, and
 * appends chunks to the capture file with one write(2), so a killed
 * program loses at most the last 50-100 ms. Its own allocations are never
 * traced (its recursion guard stays set).
 *
 * Usually a thread of its own. A single-threaded program whose
 * allocations are sampled (--alloc-sample) gets none at first: glibc's
 * malloc takes its arena locks once a process has had a second thread,
 * which cost such a program more than the sampling itself. Its own thread
 * then runs the cycles, from the allocation hooks (writer_poll), and the
 * writer becomes a thread (writer_go_threaded) when the program starts
 * one, or when the hooks have not drained the rings for OVERDUE_NS.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <unistd.h>

#include "formats/capture.h"
#include "capture/cfiunwind.h"
#include "capture/shim.h"
#include "capture/stackmemo.h"
#include "capture/window.h"

#define CYCLE_MS 50
#define CYCLE_NS (CYCLE_MS * 1000000ull)
#define OVERDUE_NS (4 * CYCLE_NS)
/* A thread that runs its own cycles runs one whenever its event ring
 * holds this much: its rings (rewound then), payloads and compressor stay
 * in a few warm pages. 50 ms of a malloc loop's records touched 200 new
 * pages, each first touch 10 us on a VM: 5 % of that loop's time. */
#define INLINE_FILL_BYTES (16u << 10)
/* Such a cycle leaves its chunks in kept_out, after those of the cycles
 * before, until they reach this size or the last write is a cycle's time
 * old: a write(2) each (220 of a few hundred bytes in the malloc loop of
 * make bench, 2 us each on a VM) cost more than the bytes. A killed run
 * loses no more than before: the last 50 ms, and the ring's last 16 KiB. */
#define INLINE_WRITE_BYTES (4u << 10)

static int out_fd = -1;
static int kick_fd = -1;
static uint64_t seq;
static pthread_t thread;
static bool running;
static _Atomic int stopping;
/* No thread yet: the program's thread runs the cycles (writer_poll). */
static _Atomic bool inline_cycles;
static bool inline_allowed;             /* writer_start's word, for a forked child */
static _Atomic bool kicked;             /* a ring is filling: cycle at the next poll */
static _Atomic uint64_t last_cycle_ns;  /* when the last cycle began */
static uint64_t last_write_ns;          /* when a cycle last wrote its chunks out */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- stack interning: (parent, ip) -> node id, ids from 1 ---- */

struct node_key {
	uint64_t ip;
	uint32_t parent, id; /* id 0: empty slot */
};

static struct node_key *nodes;
static size_t nodes_mask;
static uint32_t next_node = 1;
static uint64_t nodes_refused; /* interns cut short: the table could not grow */

static size_t node_hash(uint32_t parent, uint64_t ip)
{
	uint64_t h = (ip ^ ((uint64_t)parent << 40) ^ parent) * 0x9E3779B97F4A7C15u;
	return (size_t)(h ^ (h >> 29));
}

static bool nodes_grow(void)
{
	size_t cap = nodes ? (nodes_mask + 1) * 2 : 1 << 8; /* 4 KiB: a page touched, 127 nodes */
	struct node_key *t = calloc(cap, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; nodes && i <= nodes_mask; i++) {
		if (!nodes[i].id)
			continue;
		size_t j = node_hash(nodes[i].parent, nodes[i].ip) & (cap - 1);
		while (t[j].id)
			j = (j + 1) & (cap - 1);
		t[j] = nodes[i];
	}
	free(nodes);
	nodes = t;
	nodes_mask = cap - 1;
	return true;
}

/* The node for ip under parent; new ones are added to the STACKS payload. */
static uint32_t intern(struct fk_cap_buf *stacks, uint32_t parent, uint64_t ip)
{
	if ((next_node + 1) * 2 > nodes_mask + 1 && !nodes_grow()) {
		nodes_refused++;
		return parent;
	}
	size_t i = node_hash(parent, ip) & nodes_mask;
	while (nodes[i].id) {
		if (nodes[i].parent == parent && nodes[i].ip == ip)
			return nodes[i].id;
		i = (i + 1) & nodes_mask;
	}
	nodes[i] = (struct node_key){ ip, parent, next_node++ };
	fk_cap_put_uvarint(stacks, parent);
	fk_cap_put_uvarint(stacks, ip);
	return nodes[i].id;
}

/* Leaf-first ips -> the leaf's node (the path from the root is outermost first). */
static uint32_t intern_stack(struct fk_cap_buf *stacks, const uint64_t *ips, uint32_t n)
{
	uint32_t node = 0;
	for (uint32_t i = n; i-- > 0;)
		node = intern(stacks, node, ips[i]);
	return node;
}

/* ---- one cycle ---- */

struct cycle {
	struct fk_cap_buf stacks, samples, allocs, threads, drops, modules, gpu_api, nvtx;
	struct fk_cap_buf pyframes; /* Python frames the stacks name */
	struct fk_cap_buf windows;  /* capture window edges */
	struct thread_state *ts;
	/* ts's tid, read once: its line is the one the thread's hooks write
	 * on every allocation, and a read per record made the writer wait for
	 * it (two thirds of on_record's time on the malloc loop). */
	uint64_t tid;
	uint64_t t_samples, t_api, t_nvtx, t_windows; /* previous times, for deltas */
	struct fk_cap_allocs_writer allocs_at;
	uint64_t nsamples, nallocs;
};

static uint64_t total_samples, total_allocs, total_drops;
static unsigned gpu_status_seen, python_status_seen;

/* Native stacks met before, by their raw ips; made with the merge rules
 * of the interpreter found then (py_eval_base). */
static struct stack_memo memo;
static uintptr_t memo_eval_base;

/* A record's stack, its Python frames merged in and named, as a node. */
static uint32_t stack_node(struct cycle *c, const uint64_t *ips, uint32_t n)
{
	uint64_t merged[MAX_IPS];
	if (n > MAX_IPS)
		n = MAX_IPS;
	if (py_eval_base() != memo_eval_base) { /* the merge now drops other frames */
		stack_memo_clear(&memo);
		memo_eval_base = py_eval_base();
	}
	uint32_t slot;
	uint32_t node = stack_memo_get(&memo, ips, n, &slot);
	if (node)
		return node;
	uint64_t refused = nodes_refused;
	node = intern_stack(&c->stacks, merged, py_frames_stack(&c->pyframes, ips, n, merged));
	if (nodes_refused == refused) /* a stack cut short is not remembered */
		stack_memo_put(&memo, slot, ips, n, node);
	return node;
}

/* One SAMPLES record (its time relative to the cycle's last). */
static void put_sample(struct cycle *c, pid_t tid, uint32_t node, uint32_t weight, uint64_t t_ns)
{
	fk_cap_put_uvarint(&c->samples, (uint64_t)tid);
	fk_cap_put_uvarint(&c->samples, node);
	fk_cap_put_uvarint(&c->samples, weight);
	fk_cap_put_svarint(&c->samples, (int64_t)(t_ns - c->t_samples));
	c->t_samples = t_ns;
	c->nsamples++;
}

static void on_record(void *ctx, const struct ring_record *rec)
{
	struct cycle *c = ctx;
	if (rec->type == REC_SAMPLE) {
		const struct rec_sample *s = (const struct rec_sample *)rec;
		put_sample(c, c->tid, stack_node(c, s->ips, s->nframes), s->weight, s->t_ns);
	} else if (rec->type == REC_NVTX) {
		const struct rec_nvtx *v = (const struct rec_nvtx *)rec;
		fk_cap_put_u8(&c->nvtx, (uint8_t)v->op);
		fk_cap_put_uvarint(&c->nvtx, (uint64_t)c->tid);
		fk_cap_put_svarint(&c->nvtx, (int64_t)(v->t_ns - c->t_nvtx));
		fk_cap_put_uvarint(&c->nvtx, v->id);
		fk_cap_put_string(&c->nvtx, v->name, v->len);
		c->t_nvtx = v->t_ns;
	} else if (rec->type == REC_WINDOW) {
		const struct rec_window *w = (const struct rec_window *)rec;
		win_put_edge(&c->windows, &c->t_windows, w->edge, w->t_ns, w->step);
	} else if (rec->type == REC_GPU_GRAPH) {
		const struct rec_gpu_api *g = (const struct rec_gpu_api *)rec;
		uint64_t node = (uint64_t)g->cbid << 32 | g->corr;
		if (g->t_ns) {
			fk_cap_put_u8(&c->gpu_api, FK_CAP_API_GRAPH_CLONE);
			fk_cap_put_uvarint(&c->gpu_api, node);
			fk_cap_put_uvarint(&c->gpu_api, g->t_ns);
		} else {
			fk_cap_put_u8(&c->gpu_api, FK_CAP_API_GRAPH_NODE);
			fk_cap_put_uvarint(&c->gpu_api, node);
			fk_cap_put_uvarint(&c->gpu_api, (uint64_t)c->tid);
			fk_cap_put_uvarint(&c->gpu_api, stack_node(c, g->ips, g->nframes));
		}
	} else if (rec->type == REC_GPU_API || rec->type == REC_GPU_LINK) {
		const struct rec_gpu_api *g = (const struct rec_gpu_api *)rec;
		if (rec->type == REC_GPU_LINK) {
			fk_cap_put_u8(&c->gpu_api, FK_CAP_API_LINK);
			fk_cap_put_uvarint(&c->gpu_api, g->corr);
			fk_cap_put_uvarint(&c->gpu_api, g->cbid);
			return;
		}
		fk_cap_put_u8(&c->gpu_api, FK_CAP_API_CALL);
		fk_cap_put_uvarint(&c->gpu_api, (uint64_t)c->tid);
		fk_cap_put_uvarint(&c->gpu_api, g->corr);
		fk_cap_put_u8(&c->gpu_api, (uint8_t)g->domain);
		fk_cap_put_uvarint(&c->gpu_api, g->cbid);
		fk_cap_put_uvarint(&c->gpu_api, stack_node(c, g->ips, g->nframes));
		fk_cap_put_svarint(&c->gpu_api, (int64_t)(g->t_ns - c->t_api));
		c->t_api = g->t_ns;
	} else {
		const struct rec_alloc *a = (const struct rec_alloc *)rec;
		bool alloc = rec->type == REC_ALLOC;
		uint32_t node = alloc ? stack_node(c, a->ips, a->nframes) : 0;
		fk_cap_put_alloc(&c->allocs, &c->allocs_at, alloc, a->t_ns, c->tid, a->addr, a->size,
				 node);
		c->nallocs++;
	}
}

/* A live thread's name from /proc; an exited one's as it left (the
 * detaching thread wrote it before it set dead, so a thread that exits
 * while /proc is read is still named). */
static void thread_name(struct cycle *c, const struct thread_state *ts)
{
	char path[64], name[64] = "";
	bool read_it = false;
	if (!atomic_load(&ts->dead)) {
		snprintf(path, sizeof path, "/proc/self/task/%d/comm", (int)ts->tid);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			ssize_t n = read(fd, name, sizeof name - 1);
			close(fd);
			if (n > 0) {
				name[n] = 0;
				name[strcspn(name, "\n")] = 0;
				read_it = true;
			}
		}
	}
	if (!read_it && atomic_load(&ts->dead)) {
		memcpy(name, ts->exit_name, sizeof ts->exit_name);
		name[sizeof ts->exit_name - 1] = 0;
	}
	fk_cap_put_uvarint(&c->threads, (uint64_t)ts->tid);
	fk_cap_put_string(&c->threads, name, strlen(name));
}

/* ---- modules ---- */

static unsigned long long seen_adds = ~0ull, seen_subs = ~0ull;

static void build_id_of(const struct dl_phdr_info *info, const ElfW(Phdr) *ph,
			const uint8_t **id, size_t *len)
{
	const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
		const uint8_t *name = p + sizeof *nh;
		const uint8_t *desc = name + ((nh->n_namesz + 3) & ~3u);
		if (desc + nh->n_descsz > end)
			return;
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && memcmp(name, "GNU", 4) == 0) {
			*id = desc;
			*len = nh->n_descsz;
			return;
		}
		p = desc + ((nh->n_descsz + 3) & ~3u);
	}
}

static int module_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct cycle *c = ctx;
	char exe[PATH_MAX];
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = 0;
		name = exe;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	const uint8_t *id = NULL;
	size_t idlen = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + ph->p_vaddr;
			lo = a < lo ? a : lo;
			hi = a + ph->p_memsz > hi ? a + ph->p_memsz : hi;
		} else if (ph->p_type == PT_NOTE && !id) {
			build_id_of(info, ph, &id, &idlen);
		}
	}
	if (hi == 0)
		return 0;
	fk_cap_put_string(&c->modules, name, strlen(name));
	fk_cap_put_uvarint(&c->modules, lo);
	fk_cap_put_uvarint(&c->modules, hi);
	fk_cap_put_uvarint(&c->modules, info->dlpi_addr);
	fk_cap_put_string(&c->modules, (const char *)id, idlen);
	seen_adds = info->dlpi_adds;
	seen_subs = info->dlpi_subs;
	return 0;
}

static int changed_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	*(bool *)ctx = info->dlpi_adds != seen_adds || info->dlpi_subs != seen_subs;
	/* An object unloaded out of dlclose's sight (glibc's own NSS and gconv
	 * modules): the hooks' unwinder forgets the rules it read there. */
	if (seen_subs != ~0ull && info->dlpi_subs != seen_subs)
		cfi_forget_all();
	return 1; /* the counters are global: the first object is enough */
}

/* ---- chunks ---- */

/* A cycle run by the program's own thread (sampled allocations in a
 * single-threaded program) stores chunks under this size as they are: the
 * ALLOCS records of a sampled malloc loop shrink by a sixth under zstd,
 * and compressing them cost that program 2.5 ms of its 0.1 s (interleaved
 * runs, AMD VM). The writer's thread compresses everything. */
#define INLINE_STORED_BYTES 8192

static void emit(struct fk_cap_buf *out, uint16_t type, const struct fk_cap_buf *payload)
{
	if (!payload->len || payload->failed)
		return;
	if (atomic_load_explicit(&inline_cycles, memory_order_relaxed) &&
	    payload->len < INLINE_STORED_BYTES)
		fk_cap_chunk_encode_stored(out, type, seq++, payload->p, payload->len);
	else
		fk_cap_chunk_encode(out, type, seq++, payload->p, payload->len);
}

static void write_out(struct fk_cap_buf *out)
{
	const uint8_t *p = out->p;
	size_t n = out->len;
	while (n > 0) {
		ssize_t w = write(out_fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break; /* disk full: the capture ends here, the program goes on */
		p += w, n -= (size_t)w;
	}
	out->len = 0;
}

static void put_clock(struct fk_cap_buf *b)
{
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	fk_cap_put_uvarint(b, shim_now_ns());
	fk_cap_put_uvarint(b, (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec);
}

/* A thread's CPU clock by tid: Linux's MAKE_THREAD_CPUCLOCK(tid,
 * CPUCLOCK_SCHED), what pthread_getcpuclockid() returns (the kernel reads
 * it only for threads of this process). */
static clockid_t thread_cpu_clock(pid_t tid)
{
	return (clockid_t)((~(unsigned)tid << 3) | 6);
}

/* At the end, threads still running have CPU time no sample stands for
 * (their timers are gone, and their rings are theirs to write): charged
 * here straight into the SAMPLES payload, as "[unsampled]" under each
 * one's last sampled stack, as charge_unsampled does for a thread that
 * exits. Their last signal may still be running: only plain reads, and a
 * stack that may be torn is still a stack. */
static void charge_live_threads(struct cycle *c)
{
	for (struct thread_state *ts = shim_threads(); ts; ts = ts->next) {
		struct timespec cpu;
		uint64_t ips[MAX_IPS];
		uint32_t n, weight;
		if (ts == shim_thread || atomic_load(&ts->dead) ||
		    clock_gettime(thread_cpu_clock(ts->tid), &cpu) != 0)
			continue;
		n = shim_unsampled_stack(ts, (uint64_t)cpu.tv_sec * 1000000000u + (uint64_t)cpu.tv_nsec,
					 ips, &weight);
		if (n > 0) /* the stack as samples store it: Python frames merged in */
			put_sample(c, ts->tid, stack_node(c, ips, n), weight, shim_now_ns());
	}
}

/* META key = a count, in the last cycle, when it is not 0. */
static void put_count(struct fk_cap_buf *meta, bool final, const char *key, uint64_t v)
{
	if (!final || !v)
		return;
	char num[24];
	int len = snprintf(num, sizeof num, "%" PRIu64, v);
	fk_cap_put_string(meta, key, strlen(key));
	fk_cap_put_string(meta, num, (size_t)len);
}

/* The cycles' buffers, emptied, kept from one cycle to the next at their
 * largest: freed and grown again every 50 ms they would split up the heap
 * of a program whose own thread runs the cycles. kept_out also keeps the
 * chunks not written yet (INLINE_WRITE_BYTES). */
static struct cycle kept;
static struct fk_cap_buf kept_out;

static void empty(struct fk_cap_buf *b)
{
	b->len = 0;
	b->failed = false;
}

/* A cycle's state: the kept buffers, emptied, the output with the chunks
 * still to write; counts at 0 (the times are the caller's to set). */
static struct cycle cycle_start(struct fk_cap_buf *out)
{
	struct cycle c = kept;
	*out = kept_out;
	struct fk_cap_buf *bufs[] = { &c.stacks, &c.samples, &c.allocs, &c.threads, &c.drops,
				      &c.modules, &c.gpu_api, &c.nvtx, &c.pyframes, &c.windows };
	for (size_t i = 0; i < sizeof bufs / sizeof *bufs; i++)
		empty(bufs[i]);
	c.ts = NULL;
	c.nsamples = c.nallocs = 0;
	return c;
}

/* A cycle run on the program's only thread (writer_poll) is its rings'
 * producer and consumer at once: the rings, just drained, start again at
 * their first byte. writer_poll runs after a record's commit, with no
 * other reservation of the thread's open (shim_event_reserve keeps the
 * hooks out of one); no signal handler writes the event ring (the toggle
 * signal's edges have an array of their own). The sample ring is the CPU
 * samples' handler's, held off while it is rewound: only once it is past
 * its first 64 KiB (two system calls each time, 1 us each on a VM, were a
 * third of a cycle's cost when it ran every 16 KiB). The final cycle,
 * which a signal handler's exec may run at any point, leaves the rings as
 * they are. */
#define SAMPLE_RING_REWIND_BYTES (64u << 10)

static void rewind_own_rings(struct thread_state *ts)
{
	ring_rewind_if_empty(&ts->events);
	if (atomic_load_explicit(&ts->samples.tail, memory_order_relaxed) < SAMPLE_RING_REWIND_BYTES)
		return;
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	ring_rewind_if_empty(&ts->samples);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void cycle(bool final)
{
	struct fk_cap_buf out;
	struct cycle c = cycle_start(&out);
	uint64_t first_node = next_node;
	c.t_samples = c.t_api = c.t_nvtx = c.t_windows = shim_now_ns();
	atomic_store_explicit(&last_cycle_ns, c.t_samples, memory_order_relaxed);
	fk_cap_put_uvarint(&c.stacks, first_node);
	fk_cap_put_uvarint(&c.samples, c.t_samples);
	fk_cap_allocs_begin(&c.allocs, &c.allocs_at, c.t_samples);
	fk_cap_put_uvarint(&c.gpu_api, c.t_api);
	fk_cap_put_uvarint(&c.nvtx, c.t_nvtx);
	fk_cap_put_uvarint(&c.windows, c.t_windows);
	size_t empty_windows = c.windows.len;
	size_t empty_samples = c.samples.len, empty_allocs = c.allocs.len, empty_api = c.gpu_api.len;
	size_t empty_nvtx = c.nvtx.len;

	bool modules_changed = false;
	dl_iterate_phdr(changed_cb, &modules_changed);
	if (modules_changed) {
		dl_iterate_phdr(module_cb, &c);
		py_detect(); /* a libpython loaded late (embedding) */
	}

	struct thread_state *prev = NULL;
	for (struct thread_state *ts = shim_threads(), *next; ts; ts = next) {
		next = ts->next;
		bool dead = atomic_load(&ts->dead);
		c.ts = ts;
		c.tid = (uint64_t)ts->tid;
		if (!ts->named) {
			thread_name(&c, ts);
			ts->named = true;
		}
		ring_drain(&ts->samples, on_record, &c);
		ring_drain(&ts->events, on_record, &c);
		if (!final && ts == shim_thread && atomic_load_explicit(&inline_cycles, memory_order_relaxed))
			rewind_own_rings(ts);
		uint64_t ds = atomic_exchange(&ts->dropped_samples, 0);
		uint64_t de = atomic_exchange(&ts->dropped_events, 0);
		if (ds || de) {
			fk_cap_put_uvarint(&c.drops, (uint64_t)ts->tid);
			fk_cap_put_uvarint(&c.drops, ds);
			fk_cap_put_uvarint(&c.drops, de);
			total_drops += ds + de;
		}
		/* Only the head can race with a new thread's push: leave it. */
		if (dead && prev) {
			prev->next = next;
			shim_free_thread(ts);
			continue;
		}
		prev = ts;
	}
	if (final)
		charge_live_threads(&c); /* before the window closes with the capture */
	win_put_pending(&c.windows, &c.t_windows, final);
	total_samples += c.nsamples;
	total_allocs += c.nallocs;
	/* GPU records completed so far, and CUPTI's state when it changed. */
	struct fk_cap_buf kernels = { 0 }, memory = { 0 }, meta = { 0 };
	cupti_take(&kernels, &memory);
	char gpu[256];
	bool monotonic;
	unsigned version = cupti_status(gpu_status_seen, gpu, sizeof gpu, &monotonic);
	if (version != gpu_status_seen) {
		gpu_status_seen = version;
		fk_cap_put_string(&meta, "gpu", 3);
		fk_cap_put_string(&meta, gpu, strlen(gpu));
		fk_cap_put_string(&meta, "gpu_clock", 9);
		fk_cap_put_string(&meta, monotonic ? "monotonic" : "realtime", monotonic ? 9 : 8);
	}
	char python[160];
	unsigned python_version = py_status(python_status_seen, python, sizeof python);
	if (python_version != python_status_seen && python[0]) {
		python_status_seen = python_version;
		fk_cap_put_string(&meta, "python", 6);
		fk_cap_put_string(&meta, python, strlen(python));
	}
	put_count(&meta, final, "python_faults", py_faults());
	put_count(&meta, final, "python_unknown", py_unknown());
	/* How often lossless --alloc held a thread. */
	put_count(&meta, final, "alloc_waits", atomic_load(&shim_alloc_waits));
	put_count(&meta, final, "unwind_fallbacks", atomic_load(&shim_unwind_fallbacks));
	emit(&out, FK_CAP_META, &meta);
	emit(&out, FK_CAP_MODULES, &c.modules);
	emit(&out, FK_CAP_THREADS, &c.threads);
	emit(&out, FK_CAP_PYFRAMES, &c.pyframes); /* before the stacks that use them */
	if (next_node != first_node)
		emit(&out, FK_CAP_STACKS, &c.stacks);
	if (c.samples.len > empty_samples)
		emit(&out, FK_CAP_SAMPLES, &c.samples);
	if (c.allocs.len > empty_allocs)
		emit(&out, FK_CAP_ALLOCS, &c.allocs);
	if (c.gpu_api.len > empty_api)
		emit(&out, FK_CAP_GPU_API, &c.gpu_api);
	if (c.nvtx.len > empty_nvtx)
		emit(&out, FK_CAP_NVTX, &c.nvtx);
	if (c.windows.len > empty_windows)
		emit(&out, FK_CAP_WINDOWS, &c.windows);
	emit(&out, FK_CAP_GPU_KERNELS, &kernels);
	emit(&out, FK_CAP_GPU_MEMORY, &memory);
	emit(&out, FK_CAP_DROPS, &c.drops);
	if (final) {
		struct fk_cap_buf clock = { 0 }, end = { 0 };
		put_clock(&clock);
		emit(&out, FK_CAP_CLOCK, &clock);
		fk_cap_put_uvarint(&end, total_samples);
		fk_cap_put_uvarint(&end, total_allocs);
		fk_cap_put_uvarint(&end, total_drops);
		fk_cap_put_uvarint(&end, atomic_load(&shim_untracked));
		emit(&out, FK_CAP_END, &end);
		fk_cap_buf_free(&clock);
		fk_cap_buf_free(&end);
	}
	if (final || !atomic_load_explicit(&inline_cycles, memory_order_relaxed) ||
	    out.len >= INLINE_WRITE_BYTES || c.t_samples - last_write_ns >= CYCLE_NS) {
		write_out(&out);
		empty(&out);
		last_write_ns = c.t_samples;
	}
	kept = c;
	kept_out = out;
	fk_cap_buf_free(&kernels);
	fk_cap_buf_free(&memory);
	fk_cap_buf_free(&meta);
}

static void *writer_main(void *arg)
{
	(void)arg;
	shim_guard = 1; /* for good: nothing this thread does is traced */
	struct pollfd pfd = { .fd = kick_fd, .events = POLLIN };
	while (!atomic_load(&stopping)) {
		/* Woken early for a --delay or --duration edge. */
		if (poll(&pfd, 1, win_timeout_ms(CYCLE_MS)) > 0) {
			uint64_t v;
			if (read(kick_fd, &v, sizeof v) < 0 && errno != EAGAIN)
				break;
		}
		if (atomic_load(&stopping))
			break;
		pthread_mutex_lock(&lock);
		win_tick();
		cycle(false);
		pthread_mutex_unlock(&lock);
	}
	return NULL;
}

void writer_kick(void)
{
	uint64_t one = 1;
	atomic_store_explicit(&kicked, true, memory_order_relaxed);
	if (kick_fd >= 0 && write(kick_fd, &one, sizeof one) < 0) {
		/* full counter: a wake-up is already pending */
	}
}

/* ---- the file ---- */

/* The program stackcap started, or an image it exec'd: stackcap execs the
 * program, so they have stackcap's pid. Its children have pids of their
 * own. */
static bool started_by_stackcap(void)
{
	const char *launcher = getenv("STACKCAP_LAUNCHER_PID");
	return launcher && atol(launcher) == (long)getpid();
}

static void output_name(char *buf, size_t n)
{
	char pid[24];
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	const char *pat = shim_cfg.output;
	size_t k = 0;
	bool has_pid = false;
	for (const char *p = pat; *p && k + 1 < n; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			for (const char *q = pid; *q && k + 1 < n; q++)
				buf[k++] = *q;
			has_pid = true;
			p++;
		} else {
			buf[k++] = *p;
		}
	}
	buf[k] = 0;
	/* -o FILE names the first process; its children get FILE.<pid>. */
	if (!has_pid && getenv("STACKCAP_LAUNCHER_PID") && !started_by_stackcap())
		snprintf(buf + k, n - k, ".%s", pid);
}

/* The capture being written, for "stackcap: wrote NAME". */
static char out_name[4300];

/* Standard error as the capture began: the line goes there only while fd 2
 * is still that file. A program that closed it and opened a file of its
 * own in its place (a daemon, `exec 2> log`) gets no line in that file. */
static struct stat err_at_start;
static bool err_known;

static void remember_stderr(void)
{
	err_known = fstat(STDERR_FILENO, &err_at_start) == 0;
}

static bool stderr_unchanged(void)
{
	struct stat now;
	return err_known && fstat(STDERR_FILENO, &now) == 0 && now.st_dev == err_at_start.st_dev &&
	       now.st_ino == err_at_start.st_ino;
}

/* A new file, never an existing one: an exec'd image keeps the pid, so its
 * capture becomes NAME.1, NAME.2, ... */
static int open_output(void)
{
	char name[4200];
	output_name(name, sizeof name);
	snprintf(out_name, sizeof out_name, "%s", name);
	/* The program stackcap started replaces an old capture of the same
	 * name; images it execs, keeping its pid, do not. */
	if (getenv("STACKCAP_FRESH") && started_by_stackcap()) {
		unsetenv("STACKCAP_FRESH");
		return open(name, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0666);
	}
	for (int i = 1; i < 1000; i++) {
		int fd = open(out_name, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
		if (fd >= 0 || errno != EEXIST)
			return fd;
		snprintf(out_name, sizeof out_name, "%s.%d", name, i);
	}
	return -1;
}

static void put_meta(struct fk_cap_buf *b, const char *key, const char *value, size_t n)
{
	fk_cap_put_string(b, key, strlen(key));
	fk_cap_put_string(b, value, n);
}

static void write_start(void)
{
	struct timespec rt;
	clock_gettime(CLOCK_REALTIME, &rt);
	struct fk_cap_header h = {
		.version = FK_CAP_VERSION, .pid = (uint32_t)getpid(), .ppid = (uint32_t)getppid(),
		.start_mono_ns = shim_now_ns(),
		.start_real_ns = (uint64_t)rt.tv_sec * 1000000000u + (uint64_t)rt.tv_nsec,
		.sample_hz = shim_cfg.hz,
		.flags = (shim_cfg.alloc ? FK_CAP_HDR_ALLOCS : 0) |
			 (shim_cfg.frame_pointers ? FK_CAP_HDR_FRAME_POINTERS : 0) |
			 (shim_cfg.alloc_sample ? FK_CAP_HDR_ALLOC_SAMPLED : 0),
		.alloc_sample = shim_cfg.alloc_sample,
	};
	struct fk_cap_buf out = { 0 }, meta = { 0 }, clock = { 0 }, windows = { 0 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &h);
	fk_cap_put_bytes(&out, hdr, sizeof hdr);
	char cmd[4096];
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, cmd, sizeof cmd) : 0;
	if (fd >= 0)
		close(fd);
	for (ssize_t i = 0; i + 1 < n; i++)
		if (cmd[i] == 0)
			cmd[i] = ' ';
	put_meta(&meta, "command", cmd, n > 0 ? (size_t)n - 1 : 0);
	const char *unwind = shim_cfg.frame_pointers ? "fp"
			     : shim_cfg.libunwind_only ? "libunwind"
						       : "eh_frame";
	put_meta(&meta, "unwind", unwind, strlen(unwind));
	char sig[16];
	snprintf(sig, sizeof sig, "%d", shim_cfg.signal);
	put_meta(&meta, "signal", sig, strlen(sig));
	char cwd[PATH_MAX];
	if (getcwd(cwd, sizeof cwd)) /* readers shorten Python file names with it */
		put_meta(&meta, "cwd", cwd, strlen(cwd));
	win_start_file(&meta, &windows);
	/* Stored: a few hundred bytes, for which zstd would make its context
	 * on the program's thread (one per thread, kept), 0.25 ms and a dozen
	 * page faults at every start on a VM; that thread seldom compresses
	 * anything else (writer_poll's cycles store small chunks). */
	fk_cap_chunk_encode_stored(&out, FK_CAP_META, seq++, meta.p, meta.len);
	put_clock(&clock);
	fk_cap_chunk_encode_stored(&out, FK_CAP_CLOCK, seq++, clock.p, clock.len);
	if (windows.len && !windows.failed)
		fk_cap_chunk_encode_stored(&out, FK_CAP_WINDOWS, seq++, windows.p, windows.len);
	write_out(&out);
	fk_cap_buf_free(&out);
	fk_cap_buf_free(&meta);
	fk_cap_buf_free(&clock);
	fk_cap_buf_free(&windows);
}

static bool start_thread(void)
{
	if (atomic_load(&inline_cycles))
		return true; /* writer_go_threaded starts it when it is needed */
	sigset_t all, old;
	sigfillset(&all);
	/* The writer inherits a full mask: no sample signal ever lands there. */
	shim_guard++;
	pthread_sigmask(SIG_SETMASK, &all, &old);
	running = pthread_create(&thread, NULL, writer_main, NULL) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	shim_guard--;
	return running;
}

void writer_poll(uintptr_t caller, uint64_t now_ns)
{
	if (!atomic_load_explicit(&inline_cycles, memory_order_relaxed) || !caller ||
	    shim_in_runtime(caller))
		return;
	/* The record's time when it has one: one clock read (30 ns on a
	 * VM) fewer per sampled allocation. */
	uint64_t now = now_ns ? now_ns : shim_now_ns();
	uint64_t since = now - atomic_load_explicit(&last_cycle_ns, memory_order_relaxed);
	const struct thread_state *ts = shim_thread;
	uint64_t fill = ts ? atomic_load_explicit(&ts->events.tail, memory_order_relaxed) -
				     atomic_load_explicit(&ts->events.head, memory_order_relaxed)
			   : 0;
	if (since < CYCLE_NS && fill < INLINE_FILL_BYTES &&
	    !atomic_load_explicit(&kicked, memory_order_relaxed))
		return;
	if (pthread_mutex_trylock(&lock) != 0) /* a fork or the end is under way */
		return;
	atomic_store_explicit(&kicked, false, memory_order_relaxed);
	if (atomic_load(&inline_cycles) && out_fd >= 0) {
		alloc_use_own_heap(true); /* the program's heap stays as it was */
		win_tick();
		cycle(false);
		alloc_use_own_heap(false);
	}
	pthread_mutex_unlock(&lock);
}

bool writer_overdue(void)
{
	return atomic_load_explicit(&inline_cycles, memory_order_relaxed) &&
	       shim_now_ns() - atomic_load_explicit(&last_cycle_ns, memory_order_relaxed) >= OVERDUE_NS;
}

void writer_go_threaded(void)
{
	if (atomic_exchange(&inline_cycles, false) && out_fd >= 0 && !start_thread())
		atomic_store(&inline_cycles, true); /* no thread to be had: the hooks go on */
}

/* A new file defines everything again. */
static void reset_tables(void)
{
	free(nodes);
	nodes = NULL;
	nodes_mask = 0;
	next_node = 1;
	stack_memo_clear(&memo);
	empty(&kept_out); /* a forked child's: its parent's chunks */
	seq = 0;
	total_samples = total_allocs = total_drops = 0;
	seen_adds = seen_subs = ~0ull;
	gpu_status_seen = python_status_seen = 0;
	py_frames_reset();
	atomic_store(&stopping, 0);
}

bool writer_start(bool single_threaded)
{
	reset_tables();
	inline_allowed = single_threaded;
	atomic_store(&inline_cycles, single_threaded);
	last_write_ns = shim_now_ns();
	atomic_store(&last_cycle_ns, last_write_ns);
	out_fd = open_output();
	remember_stderr();
	if (out_fd < 0) {
		char name[4200];
		output_name(name, sizeof name);
		fprintf(stderr, "stackcap: cannot create %s: %s; not capturing\n", name, strerror(errno));
		return false;
	}
	kick_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	/* What the cycles keep (the compressor's context) is made here: on
	 * the program's thread, it belongs in the shim's heap too. */
	alloc_use_own_heap(single_threaded);
	write_start();
	alloc_use_own_heap(false);
	return start_thread();
}

void writer_stop(void)
{
	if (out_fd < 0)
		return;
	atomic_store(&stopping, 1);
	writer_kick();
	if (running)
		pthread_join(thread, NULL);
	running = false;
	pthread_mutex_lock(&lock);
	/* What the last cycle allocates comes from the shim's heap too: its
	 * fresh blocks are not cleared, where glibc's calloc wrote every page
	 * of the stack memo's slots (6 page faults at each exit). */
	alloc_use_own_heap(true);
	cycle(true);
	alloc_use_own_heap(false);
	win_report();
	close(out_fd);
	out_fd = -1;
	/* stackcap became the program: it is the shim that can say where the
	 * capture went (children's captures are FILE.<pid>, said by none). */
	if (started_by_stackcap() && stderr_unchanged())
		fprintf(stderr, "stackcap: wrote %s\n", out_name);
	if (kick_fd >= 0)
		close(kick_fd);
	kick_fd = -1;
	pthread_mutex_unlock(&lock);
}

void writer_pause(void)
{
	pthread_mutex_lock(&lock);
}

void writer_resume(void)
{
	pthread_mutex_unlock(&lock);
}

/* In a forked child: the parent's file, tables and thread are not ours. */
void writer_after_fork_child(void)
{
	pthread_mutex_init(&lock, NULL);
	if (out_fd >= 0)
		close(out_fd);
	if (kick_fd >= 0)
		close(kick_fd);
	out_fd = kick_fd = -1;
	running = false;
	if (!writer_start(inline_allowed))
		atomic_store(&shim_ready, 0);
}
