/* protobuf.c - the protocol buffers wire format, written (see protobuf.h). */
#include "formats/protobuf.h"

#include <stdlib.h>
#include <string.h>

#include "formats/grow.h"

static bool room(struct fk_pb *b, size_t n)
{
	if (b->nomem)
		return false;
	if (n > SIZE_MAX - b->len || !FK_GROW(b->p, b->cap, b->len + n, 256)) {
		b->nomem = true;
		return false;
	}
	return true;
}

size_t fk_pb_varint_size(uint64_t v)
{
	size_t n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

void fk_pb_varint(struct fk_pb *b, uint64_t v)
{
	if (!room(b, 10))
		return;
	while (v >= 0x80) {
		b->p[b->len++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	b->p[b->len++] = (unsigned char)v;
}

void fk_pb_key(struct fk_pb *b, uint32_t field, enum fk_pb_wire wire)
{
	fk_pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

void fk_pb_uint(struct fk_pb *b, uint32_t field, uint64_t v)
{
	fk_pb_key(b, field, FK_PB_VARINT);
	fk_pb_varint(b, v);
}

void fk_pb_bytes(struct fk_pb *b, uint32_t field, const void *p, size_t n)
{
	fk_pb_key(b, field, FK_PB_LEN);
	fk_pb_varint(b, n);
	if (n && room(b, n)) {
		memcpy(b->p + b->len, p, n);
		b->len += n;
	}
}

void fk_pb_packed(struct fk_pb *b, uint32_t field, const uint64_t *v, size_t n)
{
	if (n == 0)
		return;
	size_t bytes = 0;
	for (size_t i = 0; i < n; i++)
		bytes += fk_pb_varint_size(v[i]);
	fk_pb_key(b, field, FK_PB_LEN);
	fk_pb_varint(b, bytes);
	for (size_t i = 0; i < n; i++)
		fk_pb_varint(b, v[i]);
}

void fk_pb_free(struct fk_pb *b)
{
	free(b->p);
	*b = (struct fk_pb){ 0 };
}
