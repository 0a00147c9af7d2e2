/* gencap.c - a large synthetic stackcap capture for `make bench`: a module
 * map of this program itself, N samples over a few thousand stacks built
 * from this program's own addresses (so they symbolize), in chunks as the
 * shim writes them, ending with an END chunk. Same bytes on every run.
 *
 * Usage: gencap SAMPLES > file.stackcap
 */
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/capture.h"

static uint64_t state = 0x9E3779B97F4A7C15ull;

static uint64_t next(void)
{
	state ^= state >> 12;
	state ^= state << 25;
	state ^= state >> 27;
	return state * 2685821657736338717ull;
}

static uint64_t seq;

static void emit(struct fk_cap_buf *b, uint16_t type)
{
	struct fk_cap_buf out = { 0 };
	fk_cap_chunk_encode(&out, type, seq++, b->p, b->len);
	fwrite(out.p, 1, out.len, stdout);
	fk_cap_buf_free(&out);
	b->len = 0;
}

static int module_cb(struct dl_phdr_info *info, size_t size, void *ctx)
{
	(void)size;
	struct fk_cap_buf *b = ctx;
	char exe[4096];
	const char *name = info->dlpi_name;
	if (!name || !*name) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = 0;
		name = exe;
	}
	uint64_t lo = UINT64_MAX, hi = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD) {
			uint64_t a = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			lo = a < lo ? a : lo;
			hi = a + info->dlpi_phdr[i].p_memsz > hi ? a + info->dlpi_phdr[i].p_memsz : hi;
		}
	fk_cap_put_string(b, name, strlen(name));
	fk_cap_put_uvarint(b, lo);
	fk_cap_put_uvarint(b, hi);
	fk_cap_put_uvarint(b, info->dlpi_addr);
	fk_cap_put_string(b, "", 0);
	return 0;
}

#define NODES 20000

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: gencap SAMPLES > file.stackcap\n");
		return 2;
	}
	unsigned long long samples = strtoull(argv[1], NULL, 10);
	struct fk_cap_header h = { .version = FK_CAP_VERSION, .pid = 1, .start_mono_ns = 1000000000,
				   .start_real_ns = 1763900000000000000ull, .sample_hz = 999 };
	uint8_t hdr[FK_CAP_HEADER_SIZE];
	fk_cap_header_encode(hdr, &h);
	fwrite(hdr, 1, sizeof hdr, stdout);
	struct fk_cap_buf b = { 0 };
	dl_iterate_phdr(module_cb, &b);
	emit(&b, FK_CAP_MODULES);
	fk_cap_put_uvarint(&b, 1);
	fk_cap_put_string(&b, "bench", 5);
	emit(&b, FK_CAP_THREADS);
	/* A tree of NODES nodes: each under a random earlier one, at addresses
	 * spread over libc and this program. */
	const uint8_t *text[] = { (const uint8_t *)main, (const uint8_t *)printf,
				  (const uint8_t *)qsort, (const uint8_t *)memcpy };
	fk_cap_put_uvarint(&b, 1);
	for (uint32_t id = 1; id <= NODES; id++) {
		uint32_t parent = id < 8 ? 0 : (uint32_t)(next() % (id - 1)) + 1;
		fk_cap_put_uvarint(&b, parent);
		fk_cap_put_uvarint(&b, (uint64_t)(uintptr_t)(text[next() % 4] + next() % 512));
	}
	emit(&b, FK_CAP_STACKS);
	uint64_t t = h.start_mono_ns;
	while (samples > 0) {
		unsigned long long n = samples < 50000 ? samples : 50000;
		fk_cap_put_uvarint(&b, t);
		for (unsigned long long i = 0; i < n; i++) {
			fk_cap_put_uvarint(&b, 1);
			fk_cap_put_uvarint(&b, 1 + next() % NODES);
			fk_cap_put_uvarint(&b, 1 + next() % 3);
			fk_cap_put_svarint(&b, 1001001);
		}
		t += n * 1001001;
		emit(&b, FK_CAP_SAMPLES);
		samples -= n;
	}
	for (int i = 0; i < 4; i++) /* END: samples, events, drops, untracked */
		fk_cap_put_uvarint(&b, i == 0 ? strtoull(argv[1], NULL, 10) : 0);
	emit(&b, FK_CAP_END);
	fk_cap_buf_free(&b);
	return 0;
}
