/* base64.c - base64 encoding (see base64.h). */
#include "render/base64.h"

static const char alphabet[] =
	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

void fk_base64_write(FILE *out, const unsigned char *p, size_t n)
{
	char quad[4];
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16;
		if (i + 1 < n)
			v |= (unsigned)p[i + 1] << 8;
		if (i + 2 < n)
			v |= p[i + 2];
		quad[0] = alphabet[v >> 18];
		quad[1] = alphabet[(v >> 12) & 63];
		quad[2] = i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
		quad[3] = i + 2 < n ? alphabet[v & 63] : '=';
		fwrite(quad, 1, 4, out);
	}
}
