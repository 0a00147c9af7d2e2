/* protobuf.h - the protocol buffers wire format, written: varints, keys,
 * length-delimited fields and packed repeated integers into a growing byte
 * buffer. Enough to write a message whose field numbers are known (pprof's
 * profile.proto, formats/PPROF.md) without generated code or a .proto step.
 *
 * Owns: the buffer's bytes (fk_pb_free). A failed allocation is remembered
 * (nomem) and every later call does nothing, so a writer checks once at the
 * end. Not thread-safe.
 */
#ifndef FK_PROTOBUF_H
#define FK_PROTOBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum fk_pb_wire {
	FK_PB_VARINT = 0,
	FK_PB_LEN = 2, /* length-delimited: bytes, strings, messages, packed */
};

struct fk_pb {
	unsigned char *p;
	size_t len, cap;
	bool nomem;
};

/* Base-128 varint of v (1 to 10 bytes). int64 values are written as their
 * two's complement uint64, as protobuf does. */
void fk_pb_varint(struct fk_pb *b, uint64_t v);
/* A field's key: (field << 3) | wire type. */
void fk_pb_key(struct fk_pb *b, uint32_t field, enum fk_pb_wire wire);
/* A varint field (uint64, int64, bool); written even when 0. */
void fk_pb_uint(struct fk_pb *b, uint32_t field, uint64_t v);
/* A length-delimited field: a string, bytes, or an encoded message. */
void fk_pb_bytes(struct fk_pb *b, uint32_t field, const void *p, size_t n);
/* A packed repeated varint field (nothing when n is 0). */
void fk_pb_packed(struct fk_pb *b, uint32_t field, const uint64_t *v, size_t n);
/* The bytes of a varint of v, without writing it. */
size_t fk_pb_varint_size(uint64_t v);

static inline void fk_pb_reset(struct fk_pb *b) { b->len = 0; }
void fk_pb_free(struct fk_pb *b);

#endif
