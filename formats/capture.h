/* capture.h - the stackcap capture file: a fixed header, then append-only
 * chunks, each with its type, length, sequence number and CRC-32 (zlib),
 * compressed on its own. A killed or damaged capture stays readable up to
 * (or past) the bad part. Spec: formats/CAPTURE.md.
 *
 * Writing (the capture shim, one writer thread): encode the header once,
 * build each payload with the fk_cap_put_* functions, encode it as a chunk
 * and write(2) it. Reading: fk_cap_read() validates every chunk and hands
 * the good payloads to a callback; fk_cap_get_* decode them.
 *
 * Owns: a fk_cap_buf owns its bytes (fk_cap_buf_free). Nothing else.
 * The writing half uses only zlib and libc, so the shim links it as is.
 */
#ifndef FK_CAPTURE_H
#define FK_CAPTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "formats/diag.h"

#define FK_CAP_MAGIC "STKCAP01"
/* Version 3: ALLOCS records may give their address relative to the record
 * before (FK_CAP_ALLOC_NEAR, FK_CAP_FREE_NEAR); version 2: chunks
 * compressed with zstd; versions 1 (zlib) and 2 are still read. */
#define FK_CAP_VERSION 3
#define FK_CAP_VERSION_OLDEST 1
#define FK_CAP_HEADER_SIZE 64
#define FK_CAP_CHUNK_MAGIC 0x4B4E4843u /* "CHNK" */
#define FK_CAP_CHUNK_HEADER_SIZE 32
#define FK_CAP_CHUNK_MAX ((uint32_t)64 << 20) /* payload bytes, either form */
#define FK_CAP_FLAG_ZLIB 1u /* older captures' compression: still read */
#define FK_CAP_FLAG_ZSTD 2u /* what the writer compresses with */

enum fk_cap_chunk_type {
	FK_CAP_META = 1,    /* key/value strings: command line, exe, settings */
	FK_CAP_MODULES = 2, /* loaded objects: path, range, bias, build-id */
	FK_CAP_STACKS = 3,  /* prefix-tree nodes (parent, ip): a stack is its leaf */
	FK_CAP_THREADS = 4, /* tid, name */
	FK_CAP_SAMPLES = 5, /* CPU samples: tid, stack, weight, time */
	FK_CAP_ALLOCS = 6,  /* host allocations and frees */
	FK_CAP_DROPS = 7,   /* records lost per thread (rings full) */
	FK_CAP_CLOCK = 8,   /* a (monotonic, realtime) pair */
	FK_CAP_END = 9,     /* clean shutdown: totals */
	FK_CAP_PYFRAMES = 10, /* Python frames named by id (FK_CAP_IP_PYTHON) */
	FK_CAP_WINDOWS = 11,  /* capture window edges (formats/capwindow.h) */
	/* Kept for the CUDA side: */
	FK_CAP_GPU_API = 16,
	FK_CAP_GPU_KERNELS = 17,
	FK_CAP_GPU_MEMORY = 18,
	FK_CAP_NVTX = 19,
};

/* A stack whose only frame is this address stands for CPU time counted
 * while the thread blocked the sampling signal: where it went is unknown. */
#define FK_CAP_IP_SIGNAL_BLOCKED 1
/* A leaf frame of this address stands for CPU time the thread used and no
 * sample stood for (a short-lived thread, the last part of a period),
 * charged when the thread ended under the last stack it was sampled in. */
#define FK_CAP_IP_UNSAMPLED 2
/* A stack address with this bit set is a Python frame: the low 63 bits are
 * its FK_CAP_PYFRAMES id. No code address has it (user space on x86-64 and
 * arm64 ends far below 2^63). */
#define FK_CAP_IP_PYTHON (UINT64_C(1) << 63)

/* FK_CAP_ALLOCS and FK_CAP_GPU_MEMORY record kinds (FK_CAP_POOL: GPU
 * only; the NEAR kinds: ALLOCS only, an allocation or free on the thread
 * of the record before it, its address relative to that one's). */
enum {
	FK_CAP_ALLOC = 1,
	FK_CAP_FREE = 2,
	FK_CAP_POOL = 3,
	FK_CAP_ALLOC_NEAR = 4,
	FK_CAP_FREE_NEAR = 5,
};
/* FK_CAP_GPU_MEMORY's memory kinds that are host memory (CUPTI's
 * CUpti_ActivityMemoryKind values: cudaMallocHost, cudaHostAlloc): not
 * GPU memory. */
enum { FK_CAP_MEM_PAGEABLE = 1, FK_CAP_MEM_PINNED = 2 };

/* FK_CAP_GPU_KERNELS record tags. */
enum {
	FK_CAP_GPU_NAME = 0,     /* uv id, str: a kernel name, before its first use */
	FK_CAP_GPU_KERNEL = 1,
	FK_CAP_GPU_MEMCPY = 2,
	FK_CAP_GPU_MEMSET = 3,
	FK_CAP_GPU_SYNC = 4,
	FK_CAP_GPU_OVERHEAD = 5,
	FK_CAP_GPU_DROPPED = 6,      /* uv: records CUPTI dropped (no buffer) */
	FK_CAP_GPU_NO_TIMESTAMP = 7, /* uv: records without timestamps */
};

/* FK_CAP_NVTX record ops. */
enum {
	FK_CAP_NVTX_PUSH = 1,
	FK_CAP_NVTX_POP = 2,
	FK_CAP_NVTX_MARK = 3,
	FK_CAP_NVTX_START = 4,
	FK_CAP_NVTX_END = 5,
};

/* FK_CAP_GPU_API record tags. */
enum {
	FK_CAP_API_CALL = 1, /* a CUDA API call and the host stack that made it */
	FK_CAP_API_LINK = 2, /* a driver call inside a runtime call: same stack */
	FK_CAP_API_GRAPH_NODE = 3,  /* a CUDA graph node and the stack that made it */
	FK_CAP_API_GRAPH_CLONE = 4, /* a node cloned from another (instantiation) */
};

/* Header flags. */
enum {
	FK_CAP_HDR_ALLOCS = 1u,       /* allocations were traced */
	FK_CAP_HDR_FRAME_POINTERS = 2u,
	FK_CAP_HDR_ALLOC_SAMPLED = 4u, /* allocations sampled by bytes (alloc_sample mean) */
};

struct fk_cap_header {
	uint32_t version;
	uint32_t pid, ppid;
	uint64_t start_mono_ns, start_real_ns;
	uint32_t sample_hz;
	uint32_t flags;
	uint64_t alloc_sample; /* mean bytes between sampled allocations; 0: all */
};

/* ---- writing ---- */

struct fk_cap_buf {
	uint8_t *p;
	size_t len, cap;
	bool failed; /* out of memory: the buffer stopped growing */
};

void fk_cap_buf_free(struct fk_cap_buf *b);
void fk_cap_put_bytes(struct fk_cap_buf *b, const void *p, size_t n);
/* The same as the inline ones below, growing the buffer first. */
void fk_cap_put_u8_grow(struct fk_cap_buf *b, uint8_t v);
void fk_cap_put_uvarint_grow(struct fk_cap_buf *b, uint64_t v);
void fk_cap_put_string(struct fk_cap_buf *b, const char *s, size_t n);

/* The writer puts a few varints per event: inline while there is room. */
static inline void fk_cap_put_u8(struct fk_cap_buf *b, uint8_t v)
{
	if (b->len < b->cap && !b->failed)
		b->p[b->len++] = v;
	else
		fk_cap_put_u8_grow(b, v);
}

/* LEB128: 7 bits a byte, low first, high bit set on all but the last.
 * Written through a local pointer: a byte stored through b->p may alias
 * b itself, so b->len++ per byte reloads both each time. */
static inline void fk_cap_put_uvarint(struct fk_cap_buf *b, uint64_t v)
{
	if (b->cap - b->len < 10 || b->failed) {
		fk_cap_put_uvarint_grow(b, v);
		return;
	}
	uint8_t *start = b->p, *at = start + b->len;
	while (v >= 0x80) {
		*at++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*at++ = (uint8_t)v;
	b->len = (size_t)(at - start);
}

/* Zigzag: small negative numbers stay short. */
static inline void fk_cap_put_svarint(struct fk_cap_buf *b, int64_t v)
{
	fk_cap_put_uvarint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

/* An ALLOCS payload being written: what its last record said. A record on
 * the thread of the one before it (FK_CAP_ALLOC_NEAR, FK_CAP_FREE_NEAR)
 * leaves its tid out and gives its address as a difference: a thread's
 * blocks lie near each other, 2-3 bytes rather than 6-7. */
struct fk_cap_allocs_writer {
	uint64_t t, tid, addr;
	bool any; /* a record was written: the next may refer to it */
};

/* Starts an ALLOCS payload at base time t. */
static inline void fk_cap_allocs_begin(struct fk_cap_buf *b, struct fk_cap_allocs_writer *w,
				       uint64_t t)
{
	fk_cap_put_uvarint(b, t);
	*w = (struct fk_cap_allocs_writer){ .t = t };
}

/* An allocation (of size bytes, by stack node) or, alloc false, a free. */
static inline void fk_cap_put_alloc(struct fk_cap_buf *b, struct fk_cap_allocs_writer *w,
				    bool alloc, uint64_t t, uint64_t tid, uint64_t addr,
				    uint64_t size, uint64_t node)
{
	bool near = w->any && tid == w->tid;
	uint8_t kind = alloc ? FK_CAP_ALLOC : FK_CAP_FREE;
	fk_cap_put_u8(b, near ? (uint8_t)(kind + FK_CAP_ALLOC_NEAR - FK_CAP_ALLOC) : kind);
	fk_cap_put_svarint(b, (int64_t)(t - w->t));
	if (near) {
		fk_cap_put_svarint(b, (int64_t)(addr - w->addr));
	} else {
		fk_cap_put_uvarint(b, tid);
		fk_cap_put_uvarint(b, addr);
	}
	if (alloc) {
		fk_cap_put_uvarint(b, size);
		fk_cap_put_uvarint(b, node);
	}
	*w = (struct fk_cap_allocs_writer){ .t = t, .tid = tid, .addr = addr, .any = true };
}

void fk_cap_header_encode(uint8_t out[FK_CAP_HEADER_SIZE], const struct fk_cap_header *h);

/* Appends one chunk (header + payload, zstd-compressed when that is
 * smaller) to out. false when out of memory or the payload is too big. */
bool fk_cap_chunk_encode(struct fk_cap_buf *out, uint16_t type, uint64_t seq,
			 const uint8_t *payload, size_t len);
/* The same, never compressed: chunks too small to pay for a compressor
 * context on the thread that writes them (the shim's start and its cycles
 * on a program's own thread), tests and fuzzing. */
bool fk_cap_chunk_encode_stored(struct fk_cap_buf *out, uint16_t type, uint64_t seq,
				const uint8_t *payload, size_t len);

/* ---- reading ---- */

struct fk_cap_status {
	uint64_t chunks;        /* good chunks */
	uint64_t damaged;       /* bad chunks skipped (CRC, header, inflate), counted
				   by the sequence numbers a resync passed over */
	uint64_t skipped_bytes; /* bytes passed over while resyncing */
	uint64_t lost_seq;      /* sequence numbers missing where nothing was damaged */
	uint64_t last_seq;      /* of the last good chunk */
	bool clean;             /* an END chunk was read */
	bool truncated;         /* the file ends inside a chunk */
};

/* Return false to stop reading. */
typedef bool (*fk_cap_chunk_fn)(void *ctx, uint16_t type, uint64_t seq, const uint8_t *payload,
				size_t len);

/* Reads a capture: header, then every good chunk in file order. Damaged
 * chunks are skipped (the reader finds the next valid chunk header) and
 * counted. false (reported through d) when the file cannot be read or has
 * no valid header. */
bool fk_cap_read(const char *path, const char *name, struct fk_cap_header *h,
		 fk_cap_chunk_fn fn, void *ctx, struct fk_cap_status *st, struct fk_diag *d);
/* The same from an open input (formats/input.h), whatever its kind. */
struct fk_input;
bool fk_cap_read_input(struct fk_input *in, struct fk_cap_header *h, fk_cap_chunk_fn fn,
		       void *ctx, struct fk_cap_status *st, struct fk_diag *d);

/* How the capture ended, one line: "clean (END chunk, 12 chunks)",
 * "truncated after chunk 11 (no END: the program was killed or crashed)",
 * plus ", 2 damaged chunks skipped" when some were. */
void fk_cap_describe_end(const struct fk_cap_status *st, char *buf, size_t n);

/* Decoding a payload. Reading past the end sets bad and returns 0. */
struct fk_cap_cursor {
	const uint8_t *p, *end;
	bool bad;
};

static inline bool fk_cap_more(const struct fk_cap_cursor *c)
{
	return !c->bad && c->p < c->end;
}
uint8_t fk_cap_get_u8(struct fk_cap_cursor *c);
uint64_t fk_cap_get_uvarint(struct fk_cap_cursor *c);
int64_t fk_cap_get_svarint(struct fk_cap_cursor *c);
/* A string or byte run: its bytes (not NUL-terminated) and length. */
const uint8_t *fk_cap_get_bytes(struct fk_cap_cursor *c, size_t *len);

/* One FK_CAP_PYFRAMES record, pointing into the payload (strings are not
 * NUL-terminated). */
struct fk_cap_pyframe {
	uint64_t id;                   /* 1 .. 2^63-1: the low bits of FK_CAP_IP_PYTHON */
	const uint8_t *file, *qualname, *name; /* co_filename, co_qualname, co_name */
	size_t file_len, qualname_len, name_len;
	uint64_t first_line, line;     /* co_firstlineno; the line being run (0: unknown) */
};
/* Decodes the next PYFRAMES record into f. false, with c->bad set, when it
 * is cut short or invalid: id 0, an id past 63 bits, a NUL in a string. */
bool fk_cap_get_pyframe(struct fk_cap_cursor *c, struct fk_cap_pyframe *f);

#endif
