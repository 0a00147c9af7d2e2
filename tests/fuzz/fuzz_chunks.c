/* fuzz_chunks.c - libFuzzer harness for the capture's payload decoders:
 * the input is a list of chunks, each "type (1 byte), length (2 bytes,
 * little-endian), payload", made into a capture with a valid header and
 * valid CRCs (fk_cap_chunk_encode), so every mutation reaches the record
 * parsers instead of stopping at a checksum. Then everything the commands
 * do with a capture (capture_pipeline.h). Seeds: tests/fuzz/corpus/chunks,
 * made from real captures by tests/fuzz/chunks_from_capture.py.
 *
 * Build and run (clang): make fuzz
 */
#include <stdint.h>
#include <string.h>

#include "capture_pipeline.h"
#include "formats/capture.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fk_diag d;
	fk_diag_init(&d, "fuzz");
	d.quiet = true;
	d.out = fuzz_null(); /* errors too: printing would cost more than the run */
	struct fk_cap_header h = { .version = FK_CAP_VERSION, .pid = 1, .sample_hz = 999,
				   .flags = data && size ? data[0] : 0 };
	struct fk_cap_buf file = { 0 };
	uint8_t head[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(head, &h);
	fk_cap_put_bytes(&file, head, sizeof head);
	uint64_t seq = 0;
	for (size_t at = size ? 1 : 0; at + 3 <= size;) {
		uint8_t type = data[at];
		size_t len = (size_t)data[at + 1] | (size_t)data[at + 2] << 8;
		at += 3;
		if (len > size - at)
			len = size - at;
		/* Mostly stored: a zlib stream per chunk would cost more than the
		 * run; one input in 8 takes the inflate path too. */
		if (size % 8 == 0)
			fk_cap_chunk_encode(&file, type, seq++, data + at, len);
		else
			fk_cap_chunk_encode_stored(&file, type, seq++, data + at, len);
		at += len;
	}
	if (!file.failed)
		fuzz_capture_pipeline(file.p, file.len, &d);
	fk_cap_buf_free(&file);
	return 0;
}
