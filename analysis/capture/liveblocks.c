/* liveblocks.c - live heap blocks by address (see liveblocks.h). */
#include "analysis/capture/liveblocks.h"

#include <stdlib.h>

#include "analysis/capture/model.h"

bool fk_live_init(struct fk_live_map *m, size_t n)
{
	size_t size = 1;
	while (size < n * 2 + 16)
		size <<= 1;
	m->slot = calloc(size, sizeof *m->slot);
	m->mask = size - 1;
	return m->slot != NULL;
}

void fk_live_free(struct fk_live_map *m)
{
	free(m->slot);
	m->slot = NULL;
}

static size_t home(const struct fk_live_map *m, uint64_t addr)
{
	return (size_t)((addr * 0x9E3779B97F4A7C15u) >> 20) & m->mask;
}

size_t fk_live_find(const struct fk_live_map *m, uint64_t addr)
{
	size_t i = home(m, addr);
	while (m->slot[i].addr && m->slot[i].addr != addr)
		i = (i + 1) & m->mask;
	return i;
}

void fk_live_remove(struct fk_live_map *m, size_t i)
{
	m->slot[i].addr = 0;
	for (size_t j = (i + 1) & m->mask; m->slot[j].addr; j = (j + 1) & m->mask) {
		size_t h = home(m, m->slot[j].addr);
		if ((j > i && (h <= i || h > j)) || (j < i && h <= i && h > j)) {
			m->slot[i] = m->slot[j];
			m->slot[j].addr = 0;
			i = j;
		}
	}
}

int fk_cap_alloc_by_time(const void *x, const void *y)
{
	const struct fk_cap_alloc *a = *(const struct fk_cap_alloc *const *)x;
	const struct fk_cap_alloc *b = *(const struct fk_cap_alloc *const *)y;
	if (a->t_ns != b->t_ns)
		return a->t_ns < b->t_ns ? -1 : 1;
	return (a > b) - (a < b);
}

int fk_cap_gmem_by_time(const void *x, const void *y)
{
	const struct fk_cap_gpu_mem *a = *(const struct fk_cap_gpu_mem *const *)x;
	const struct fk_cap_gpu_mem *b = *(const struct fk_cap_gpu_mem *const *)y;
	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (a > b) - (a < b);
}
