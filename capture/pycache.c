/* pycache.c - the names of the code objects the walk met, copied once
 * into memory the shim owns, so that a code object freed (or its address
 * reused) before the writer runs still has its name, and the writer never
 * reads Python memory.
 *
 * A fixed table, open addressing, keyed by the code object's address and
 * its fingerprint (the addresses of its file name, name and location
 * table, and its first line), both compared on every hit: an address
 * reused by another code object gets an entry of its own. Slots are claimed with a
 * CAS and filled by the thread that claimed them (in its handler or hook),
 * then published; they are never freed. Strings and location tables go to
 * a bump arena. Nothing here blocks: a full table or arena makes the frame
 * (or the string) unknown, counted.
 */
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "capture/pyguard.h"
#include "capture/python.h"

#define SLOTS (1u << 16)
#define PROBES 64
#define ARENA_BYTES ((size_t)64 << 20)
#define FILENAME_MAX_UNITS 1024 /* longer names are cut */
#define NAME_MAX_UNITS 256
#define LINETABLE_MAX ((uint32_t)32 << 10) /* lines past it are unknown */

enum { SLOT_EMPTY, SLOT_FILLING, SLOT_READY, SLOT_BAD };
enum { STR_FILENAME, STR_QUALNAME, STR_NAME };

struct slot {
	_Atomic uint32_t state;
	uint32_t firstlineno;
	uintptr_t code;
	uintptr_t filename, name, linetable; /* with firstlineno: the fingerprint */
	uint32_t str_off[3], str_len[3];
	uint8_t str_kind[3];
	uint32_t lt_off, lt_len;
};

static struct slot *slots;
static uint8_t *arena;
static _Atomic size_t arena_used;
static struct py_layout L;
static _Atomic uint64_t unknown;
static SHIM_TLS struct slot *filling; /* claimed by this thread, not yet published */

bool py_cache_init(const struct py_layout *l)
{
	if (slots)
		return true;
	L = *l;
	/* Pages cost nothing until used. */
	void *t = mmap(NULL, SLOTS * sizeof *slots, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	void *a = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (t == MAP_FAILED || a == MAP_FAILED) {
		if (t != MAP_FAILED)
			munmap(t, SLOTS * sizeof *slots);
		if (a != MAP_FAILED)
			munmap(a, ARENA_BYTES);
		return false;
	}
	arena = a;
	slots = t;
	return true;
}

uint64_t py_unknown(void)
{
	return atomic_load_explicit(&unknown, memory_order_relaxed);
}

/* Reads of Python memory: volatile, so none moves out of the guard. */
static uintptr_t load_ptr(uintptr_t a)
{
	return *(const volatile uintptr_t *)a;
}

static uint32_t load_u32(uintptr_t a)
{
	return *(const volatile uint32_t *)a;
}

/* n bytes of the arena, or UINT32_MAX when it is full. */
static uint32_t arena_take(size_t n)
{
	size_t at = atomic_fetch_add_explicit(&arena_used, n, memory_order_relaxed);
	return at + n <= ARENA_BYTES ? (uint32_t)at : UINT32_MAX;
}

static void copy_in(uint8_t *to, uintptr_t from, size_t n)
{
	const volatile uint8_t *src = (const volatile uint8_t *)from;
	for (size_t i = 0; i < n; i++)
		to[i] = src[i];
}

/* A compact str object's characters (code objects hold nothing else);
 * anything else is left empty. */
static void copy_str(struct slot *s, int which, uintptr_t obj, uint32_t max_units)
{
	s->str_len[which] = 0;
	s->str_kind[which] = 1;
	if (!obj || (obj & 7))
		return;
	uint32_t state = load_u32(obj + L.str_state);
	int64_t length = (int64_t)load_ptr(obj + L.str_length);
	unsigned kind = (state >> 2) & 7;
	bool compact = state & 0x20, ascii = state & 0x40;
	if (!compact || (kind != 1 && kind != 2 && kind != 4) || length < 0)
		return;
	uint32_t units = length > max_units ? max_units : (uint32_t)length;
	uint32_t off = arena_take((size_t)units * kind);
	if (off == UINT32_MAX)
		return;
	copy_in(arena + off, obj + (ascii ? L.str_ascii_size : L.str_compact_size), (size_t)units * kind);
	s->str_off[which] = off;
	s->str_kind[which] = (uint8_t)kind;
	s->str_len[which] = units;
}

static void fill(struct slot *s, uintptr_t code, uintptr_t filename, uintptr_t name,
		 uintptr_t linetable, uint32_t firstlineno)
{
	filling = s;
	s->code = code;
	s->filename = filename, s->name = name, s->linetable = linetable;
	s->firstlineno = firstlineno;
	copy_str(s, STR_FILENAME, filename, FILENAME_MAX_UNITS);
	copy_str(s, STR_QUALNAME, load_ptr(code + L.co_qualname), NAME_MAX_UNITS);
	copy_str(s, STR_NAME, name, NAME_MAX_UNITS);
	s->lt_len = 0;
	if (linetable && !(linetable & 7)) {
		int64_t size = (int64_t)load_ptr(linetable + L.bytes_size);
		uint32_t len = size < 0 ? 0 : size > LINETABLE_MAX ? LINETABLE_MAX : (uint32_t)size;
		uint32_t off = len ? arena_take(len) : UINT32_MAX;
		if (off != UINT32_MAX) {
			copy_in(arena + off, linetable + L.bytes_data, len);
			s->lt_off = off;
			s->lt_len = len;
		}
	}
	atomic_store_explicit(&s->state, SLOT_READY, memory_order_release);
	filling = NULL;
}

void py_cache_fault(void)
{
	if (filling)
		atomic_store_explicit(&filling->state, SLOT_BAD, memory_order_release);
	filling = NULL;
}

uint32_t py_cache_lookup(uintptr_t code)
{
	if (!slots)
		return 0;
	uintptr_t filename = load_ptr(code + L.co_filename), name = load_ptr(code + L.co_name);
	uintptr_t linetable = load_ptr(code + L.co_linetable);
	uint32_t firstlineno = load_u32(code + L.co_firstlineno);
	/* The fingerprint is hashed too: code objects made and freed in a loop
	 * (exec, compile) reuse one address, and would otherwise all probe
	 * from the same slot until the probes ran out. */
	uint64_t h = (uint64_t)code;
	h = (h ^ filename) * 0x9E3779B97F4A7C15u;
	h = (h ^ name ^ (linetable << 7)) * 0x9E3779B97F4A7C15u;
	h = (h ^ firstlineno) * 0x9E3779B97F4A7C15u;
	size_t start = (size_t)(h >> 40);
	for (uint32_t probe = 0; probe < PROBES; probe++) {
		size_t i = (start + probe) & (SLOTS - 1);
		struct slot *s = &slots[i];
		uint32_t st = atomic_load_explicit(&s->state, memory_order_acquire);
		if (st == SLOT_EMPTY) {
			if (atomic_compare_exchange_strong(&s->state, &st, SLOT_FILLING)) {
				fill(s, code, filename, name, linetable, firstlineno);
				return (uint32_t)i + 1;
			}
			/* Another thread claimed it first: look at it as it is now. */
			st = atomic_load_explicit(&s->state, memory_order_acquire);
		}
		if (st == SLOT_READY && s->code == code && s->filename == filename && s->name == name &&
		    s->linetable == linetable && s->firstlineno == firstlineno)
			return (uint32_t)i + 1;
	}
	atomic_fetch_add_explicit(&unknown, 1, memory_order_relaxed);
	return 0;
}

int py_cache_get(uint32_t id, struct py_entry *e)
{
	if (!slots || id == 0 || id > SLOTS)
		return PY_ENTRY_BAD;
	struct slot *s = &slots[id - 1];
	uint32_t st;
	/* The thread filling it may be preempted in the middle (a loaded
	 * machine): wait a while, it never blocks. */
	for (int wait = 0; (st = atomic_load_explicit(&s->state, memory_order_acquire)) == SLOT_FILLING &&
			   wait < 2000; wait++) {
		struct timespec step = { 0, 100000 };
		nanosleep(&step, NULL);
	}
	if (st != SLOT_READY)
		return st == SLOT_FILLING ? PY_ENTRY_BUSY : PY_ENTRY_BAD;
	struct py_str *str[3] = { &e->filename, &e->qualname, &e->name };
	for (int k = 0; k < 3; k++) {
		str[k]->data = arena + s->str_off[k];
		str[k]->len = s->str_len[k];
		str[k]->kind = s->str_kind[k];
	}
	e->firstlineno = s->firstlineno;
	e->linetable = arena + s->lt_off;
	e->linetable_len = s->lt_len;
	return PY_ENTRY_READY;
}
