/* memory.c - a trace's [memory] events as a memory timeline (see memory.h). */
#include "analysis/trace/memory.h"

#include <stdlib.h>

static int16_t device_of(const struct fk_trace_mem *m)
{
	if (m->device_type == 0 || m->device_id < 0)
		return FK_MEM_DEVICE_CPU;
	return m->device_id > INT16_MAX ? INT16_MAX : (int16_t)m->device_id;
}

int16_t fk_trace_memory_device(const struct fk_trace *t)
{
	int16_t dev = FK_MEM_DEVICE_ANY;
	for (size_t i = 0; i < t->nmem; i++) {
		int16_t d = device_of(&t->mem[i]);
		if (d >= 0 && (dev < 0 || d < dev))
			dev = d;
		else if (dev == FK_MEM_DEVICE_ANY)
			dev = d;
	}
	return dev;
}

/* Live addresses per device: open addressing on (device, addr). */
struct live {
	uint64_t *addr;
	int16_t *dev;
	uint8_t *used;
	size_t mask, count;
};

static uint64_t live_hash(uint64_t addr, int16_t dev)
{
	uint64_t h = (addr ^ (uint64_t)(uint16_t)dev << 48) * 0x9E3779B97F4A7C15ull;
	return h ^ h >> 31;
}

static size_t live_find(const struct live *l, uint64_t addr, int16_t dev)
{
	size_t at = live_hash(addr, dev) & l->mask;
	while (l->used[at] == 1 ? !(l->addr[at] == addr && l->dev[at] == dev) : l->used[at] == 2)
		at = (at + 1) & l->mask;
	return at; /* the entry, or the empty slot that ends the probe */
}

static bool live_grow(struct live *l)
{
	struct live n = { 0 };
	size_t size = l->mask ? (l->mask + 1) * 2 : 1024;
	n.addr = malloc(size * sizeof *n.addr);
	n.dev = malloc(size * sizeof *n.dev);
	n.used = calloc(size, 1);
	n.mask = size - 1;
	if (!n.addr || !n.dev || !n.used) {
		free(n.addr), free(n.dev), free(n.used);
		return false;
	}
	for (size_t i = 0; l->mask && i <= l->mask; i++)
		if (l->used[i] == 1) {
			size_t at = live_find(&n, l->addr[i], l->dev[i]);
			n.addr[at] = l->addr[i], n.dev[at] = l->dev[i], n.used[at] = 1;
			n.count++;
		}
	free(l->addr), free(l->dev), free(l->used);
	*l = n;
	return true;
}

/* Traces are not in time order (threads are written one after another):
 * events are taken by (time, file order), so a free follows its malloc. */
static int by_time(const void *pa, const void *pb, void *events)
{
	const struct fk_trace_mem *mem = events;
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	int64_t ta = mem[a].ts, tb = mem[b].ts;
	if (ta != tb)
		return ta < tb ? -1 : 1;
	return (a > b) - (a < b);
}

/* One pass over the events in time order. The first (pre) adds only the
 * PREEXISTING events (frees of addresses not allocated before them), the
 * second the rest, so the timeline is built in its order. */
static bool add_pass(const struct fk_trace *t, const size_t *order, int16_t device, bool pre,
		     struct fk_mem_timeline *tl)
{
	int64_t base = t->info.has_base ? t->info.base_ns : 0;
	struct live l = { 0 };
	bool ok = live_grow(&l);
	size_t slots_used = 0; /* live and deleted slots: keeps probes short */
	for (size_t i = 0; ok && i < t->nmem; i++) {
		const struct fk_trace_mem *m = &t->mem[order[i]];
		int16_t dev = device_of(m);
		if (!pre && dev == device && m->total_reserved > tl->max_reserved)
			tl->max_reserved = m->total_reserved;
		uint64_t bytes = m->bytes < 0 ? 0 - (uint64_t)m->bytes : (uint64_t)m->bytes;
		if (bytes == 0)
			continue;
		struct fk_mem_event ev = { .t_ns = base + m->ts, .bytes = bytes,
					   .category = FK_MEM_UNKNOWN, .category_to = FK_MEM_UNKNOWN,
					   .device = dev, .address = m->addr,
					   .action = m->bytes > 0 ? FK_MEM_CREATE : FK_MEM_DESTROY };
		if (!m->has_addr) { /* legacy files: by size alone */
			ok = pre || fk_mem_add(tl, &ev);
			continue;
		}
		if ((slots_used + 1) * 2 > l.mask + 1) {
			ok = live_grow(&l);
			slots_used = l.count;
			if (!ok)
				break;
		}
		size_t at = live_find(&l, m->addr, dev);
		if (m->bytes > 0 && l.used[at] != 1) {
			l.addr[at] = m->addr, l.dev[at] = dev, l.used[at] = 1;
			l.count++, slots_used++;
		} else if (m->bytes < 0 && l.used[at] == 1) {
			l.used[at] = 2; /* deleted: probes go on past it */
			l.count--;
		} else if (m->bytes < 0 && pre) { /* allocated before the trace began */
			ev.action = FK_MEM_PREEXISTING;
			ev.t_ns = FK_MEM_NO_TIME;
			ok = fk_mem_add(tl, &ev);
		}
		if (!pre)
			ok = ok && fk_mem_add(tl, &ev);
	}
	free(l.addr), free(l.dev), free(l.used);
	return ok;
}

bool fk_trace_memory(const struct fk_trace *t, int16_t device, struct fk_mem_timeline *tl)
{
	size_t *order = malloc((t->nmem ? t->nmem : 1) * sizeof *order);
	if (!order)
		return false;
	for (size_t i = 0; i < t->nmem; i++)
		order[i] = i;
	qsort_r(order, t->nmem, sizeof *order, by_time, t->mem);
	bool ok = add_pass(t, order, device, true, tl) && add_pass(t, order, device, false, tl);
	free(order);
	return ok;
}
