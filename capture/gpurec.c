/* gpurec.c - CUPTI activity records into capture payloads (see gpurec.h). */
#include "capture/gpurec.h"

#include <stdlib.h>
#include <string.h>

/* ---- kernel names: content -> id, emitted once per capture ---- */

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 1099511628211u;
	return h;
}

static bool names_grow(struct gpu_emit *e)
{
	size_t cap = e->names ? (e->names_mask + 1) * 2 : 256;
	struct gpu_name *t = calloc(cap, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; e->names && i <= e->names_mask; i++) {
		if (!e->names[i].id)
			continue;
		size_t j = hash_str(e->names[i].p) & (cap - 1);
		while (t[j].id)
			j = (j + 1) & (cap - 1);
		t[j] = e->names[i];
	}
	free(e->names);
	e->names = t;
	e->names_mask = cap - 1;
	return true;
}

/* The id of a kernel name; a new one is defined in the payload first. */
static uint32_t name_id(struct gpu_emit *e, const char *name)
{
	if (!name || !*name)
		return 0;
	if ((e->next_name + 2) * 2 > e->names_mask + 1 && !names_grow(e))
		return 0;
	size_t i = hash_str(name) & e->names_mask;
	while (e->names[i].id) {
		if (strcmp(e->names[i].p, name) == 0)
			return e->names[i].id;
		i = (i + 1) & e->names_mask;
	}
	char *copy = strdup(name);
	if (!copy)
		return 0;
	uint32_t id = ++e->next_name;
	e->names[i] = (struct gpu_name){ copy, id };
	fk_cap_put_u8(&e->kernels, FK_CAP_GPU_NAME);
	fk_cap_put_uvarint(&e->kernels, id);
	fk_cap_put_string(&e->kernels, copy, strlen(copy));
	return id;
}

/* ---- records ---- */

static void interval(struct fk_cap_buf *b, uint64_t start, uint64_t end)
{
	fk_cap_put_uvarint(b, start);
	fk_cap_put_uvarint(b, end >= start ? end - start : 0);
}

static bool timed(struct gpu_emit *e, uint64_t start, uint64_t end)
{
	if (start == 0 && end == 0) { /* CUPTI ran out of device buffers */
		e->no_timestamp++;
		return false;
	}
	return true;
}

void gpu_emit_record(struct gpu_emit *e, const CUpti_Activity *r)
{
	e->records++;
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)r;
		if (!timed(e, k->start, k->end))
			return;
		uint32_t name = name_id(e, k->name);
		fk_cap_put_u8(&e->kernels, FK_CAP_GPU_KERNEL);
		fk_cap_put_uvarint(&e->kernels, k->correlationId);
		fk_cap_put_uvarint(&e->kernels, k->deviceId);
		fk_cap_put_uvarint(&e->kernels, k->streamId);
		interval(&e->kernels, k->start, k->end);
		fk_cap_put_uvarint(&e->kernels, name);
		fk_cap_put_uvarint(&e->kernels, k->graphNodeId);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)r;
		if (!timed(e, m->start, m->end))
			return;
		fk_cap_put_u8(&e->kernels, FK_CAP_GPU_MEMCPY);
		fk_cap_put_uvarint(&e->kernels, m->correlationId);
		fk_cap_put_uvarint(&e->kernels, m->runtimeCorrelationId);
		fk_cap_put_uvarint(&e->kernels, m->deviceId);
		fk_cap_put_uvarint(&e->kernels, m->streamId);
		interval(&e->kernels, m->start, m->end);
		fk_cap_put_uvarint(&e->kernels, m->bytes);
		fk_cap_put_u8(&e->kernels, m->copyKind);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)r;
		if (!timed(e, m->start, m->end))
			return;
		fk_cap_put_u8(&e->kernels, FK_CAP_GPU_MEMSET);
		fk_cap_put_uvarint(&e->kernels, m->correlationId);
		fk_cap_put_uvarint(&e->kernels, m->deviceId);
		fk_cap_put_uvarint(&e->kernels, m->streamId);
		interval(&e->kernels, m->start, m->end);
		fk_cap_put_uvarint(&e->kernels, m->bytes);
		break;
	}
	case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: {
		const CUpti_ActivitySynchronization2 *s = (const CUpti_ActivitySynchronization2 *)r;
		fk_cap_put_u8(&e->kernels, FK_CAP_GPU_SYNC);
		fk_cap_put_uvarint(&e->kernels, s->correlationId);
		interval(&e->kernels, s->start, s->end);
		fk_cap_put_u8(&e->kernels, (uint8_t)s->type);
		break;
	}
	case CUPTI_ACTIVITY_KIND_OVERHEAD: {
		const CUpti_ActivityOverhead3 *o = (const CUpti_ActivityOverhead3 *)r;
		e->overhead++;
		fk_cap_put_u8(&e->kernels, FK_CAP_GPU_OVERHEAD);
		interval(&e->kernels, o->start, o->end);
		fk_cap_put_uvarint(&e->kernels, (uint64_t)o->overheadKind);
		free(o->overheadData); /* the client's to free (CUPTI 13) */
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMORY2: {
		const CUpti_ActivityMemory4 *m = (const CUpti_ActivityMemory4 *)r;
		bool alloc = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
		if (!alloc && m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE) {
			e->unknown++;
			return;
		}
		fk_cap_put_u8(&e->memory, alloc ? FK_CAP_ALLOC : FK_CAP_FREE);
		fk_cap_put_uvarint(&e->memory, m->correlationId);
		fk_cap_put_uvarint(&e->memory, m->deviceId);
		fk_cap_put_uvarint(&e->memory, m->address);
		fk_cap_put_uvarint(&e->memory, m->bytes);
		fk_cap_put_uvarint(&e->memory, m->timestamp);
		fk_cap_put_u8(&e->memory, (uint8_t)m->memoryKind);
		fk_cap_put_u8(&e->memory, m->isAsync);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMORY_POOL: {
		const CUpti_ActivityMemoryPool3 *p = (const CUpti_ActivityMemoryPool3 *)r;
		fk_cap_put_u8(&e->memory, FK_CAP_POOL);
		fk_cap_put_uvarint(&e->memory, p->deviceId);
		fk_cap_put_uvarint(&e->memory, p->address);
		fk_cap_put_u8(&e->memory, (uint8_t)p->memoryPoolOperationType);
		fk_cap_put_uvarint(&e->memory, p->size);
		fk_cap_put_uvarint(&e->memory, p->timestamp);
		break;
	}
	default:
		e->unknown++;
	}
}

size_t gpu_walk_buffer(struct gpu_emit *e, uint8_t *buffer, size_t valid,
		       gpu_next_record_fn next)
{
	CUpti_Activity *r = NULL;
	size_t n = 0;
	/* Ends with MAX_LIMIT_REACHED; INVALID_KIND (a partial record) too. */
	while (next(buffer, valid, &r) == CUPTI_SUCCESS) {
		gpu_emit_record(e, r);
		n++;
	}
	return n;
}

void gpu_emit_dropped(struct gpu_emit *e, uint64_t dropped)
{
	if (!dropped)
		return;
	fk_cap_put_u8(&e->kernels, FK_CAP_GPU_DROPPED);
	fk_cap_put_uvarint(&e->kernels, dropped);
}

void gpu_emit_take(struct gpu_emit *e, struct fk_cap_buf *kernels, struct fk_cap_buf *memory)
{
	/* Counters ride along so the reader sees them without an END. */
	if (e->no_timestamp) {
		fk_cap_put_u8(&e->kernels, FK_CAP_GPU_NO_TIMESTAMP);
		fk_cap_put_uvarint(&e->kernels, e->no_timestamp);
		e->no_timestamp = 0;
	}
	*kernels = e->kernels;
	*memory = e->memory;
	e->kernels = (struct fk_cap_buf){ 0 };
	e->memory = (struct fk_cap_buf){ 0 };
}

void gpu_emit_free(struct gpu_emit *e)
{
	for (size_t i = 0; e->names && i <= e->names_mask; i++)
		free((void *)e->names[i].p);
	free(e->names);
	fk_cap_buf_free(&e->kernels);
	fk_cap_buf_free(&e->memory);
	memset(e, 0, sizeof *e);
}

static bool in_code(uint64_t ip, const struct gpu_code *code, size_t ncode)
{
	for (size_t i = 0; i < ncode; i++)
		if (ip >= code[i].lo && ip < code[i].hi)
			return true;
	return false;
}

uint32_t gpu_drop_dispatch_frames(uint64_t *ips, uint32_t n, const struct gpu_code *code,
				  size_t ncode)
{
	uint32_t k = 0;
	while (k < n && in_code(ips[k], code, ncode))
		k++;
	memmove(ips, ips + k, (n - k) * sizeof *ips);
	return n - k;
}
