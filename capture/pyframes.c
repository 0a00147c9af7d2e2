/* pyframes.c - the writer's PYFRAMES ids: a record's Python frames,
 * merged into its native stack (pystack.c), become FK_CAP_IP_PYTHON | id,
 * one id per distinct (code object entry, line being executed), each
 * defined by a PYFRAMES record before the STACKS chunk that uses it (the
 * writer emits PYFRAMES first in a cycle). Writer thread only.
 */
#include <stdlib.h>
#include <string.h>

#include "capture/python.h"

/* (entry, key) -> id, where key is a line (tag 0) or an instruction index
 * (tag 1: a cache in front of the line decoding). */
struct pf_slot {
	uint64_t key; /* entry << 33 | tag << 32 | value */
	uint64_t id;  /* 0: empty */
};

static struct pf_slot *table;
static size_t mask;
static size_t used;
static uint64_t next_id = 1;

void py_frames_reset(void)
{
	free(table);
	table = NULL;
	mask = used = 0;
	next_id = 1;
}

static size_t hash(uint64_t key)
{
	key *= 0x9E3779B97F4A7C15u;
	return (size_t)(key ^ (key >> 31));
}

static bool grow(void)
{
	size_t cap = table ? (mask + 1) * 2 : 1 << 12;
	struct pf_slot *t = calloc(cap, sizeof *t);
	if (!t)
		return false;
	for (size_t i = 0; table && i <= mask; i++) {
		if (!table[i].id)
			continue;
		size_t j = hash(table[i].key) & (cap - 1);
		while (t[j].id)
			j = (j + 1) & (cap - 1);
		t[j] = table[i];
	}
	free(table);
	table = t;
	mask = cap - 1;
	return true;
}

/* The slot for key: found (id set) or empty (to fill); NULL without memory. */
static struct pf_slot *find(uint64_t key)
{
	if ((used + 1) * 2 > mask + 1 && !grow())
		return NULL;
	size_t i = hash(key) & mask;
	while (table[i].id && table[i].key != key)
		i = (i + 1) & mask;
	return &table[i];
}

static void put_str(struct fk_cap_buf *b, const struct py_str *s)
{
	char buf[4 * 1024 + 8];
	fk_cap_put_string(b, buf, py_str_utf8(s, buf, sizeof buf));
}

/* The id of (entry, line), defined in pyframes when new; 0 without memory. */
static uint64_t line_id(struct fk_cap_buf *pyframes, uint32_t entry, const struct py_entry *e,
			uint32_t line)
{
	struct pf_slot *s = find((uint64_t)entry << 33 | line);
	if (!s)
		return 0;
	if (s->id)
		return s->id;
	s->key = (uint64_t)entry << 33 | line;
	s->id = next_id++;
	used++;
	fk_cap_put_uvarint(pyframes, s->id);
	if (e) {
		put_str(pyframes, &e->filename);
		put_str(pyframes, &e->qualname);
		put_str(pyframes, &e->name);
		fk_cap_put_uvarint(pyframes, e->firstlineno);
	} else { /* the cache was full, or the code object could not be read */
		fk_cap_put_string(pyframes, "", 0);
		fk_cap_put_string(pyframes, "<unknown>", 9);
		fk_cap_put_string(pyframes, "<unknown>", 9);
		fk_cap_put_uvarint(pyframes, 0);
	}
	fk_cap_put_uvarint(pyframes, line);
	return s->id;
}

static uint64_t frame_id(struct fk_cap_buf *pyframes, uint64_t rec)
{
	uint32_t entry = py_rec_entry(rec), lasti = py_rec_lasti(rec);
	uint64_t key = (uint64_t)entry << 33 | (uint64_t)1 << 32 | lasti;
	struct pf_slot *s = find(key);
	if (s && s->id)
		return s->id;
	struct py_entry e;
	int got = py_cache_get(entry, &e);
	bool known = got == PY_ENTRY_READY;
	uint32_t line = known ? py_line(e.linetable, e.linetable_len, e.firstlineno, lasti) : 0;
	uint64_t id = line_id(pyframes, known ? entry : 0, known ? &e : NULL, line);
	/* Remembered, unless the entry may still become known. */
	s = id && got != PY_ENTRY_BUSY ? find(key) : NULL; /* line_id may have grown the table */
	if (s && !s->id) {
		s->key = key;
		s->id = id;
		used++;
	}
	return id;
}

uint32_t py_frames_stack(struct fk_cap_buf *pyframes, const uint64_t *ips, uint32_t n,
			 uint64_t *out)
{
	/* Without Python frames too: an eval frame there is a call being
	 * entered or left, which py_merge drops (none while the walk is off). */
	uint32_t k = py_merge(ips, n, py_is_eval, out, n);
	uint32_t kept = 0;
	for (uint32_t i = 0; i < k; i++) {
		if (!(out[i] & PY_REC_PYTHON)) {
			out[kept++] = out[i];
			continue;
		}
		uint64_t id = frame_id(pyframes, out[i]);
		if (id)
			out[kept++] = FK_CAP_IP_PYTHON | id;
	}
	return kept;
}
