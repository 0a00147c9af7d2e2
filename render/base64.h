/* base64.h - base64 (RFC 4648, with padding) for data: URLs. Owns nothing. */
#ifndef FK_BASE64_H
#define FK_BASE64_H

#include <stddef.h>
#include <stdio.h>

void fk_base64_write(FILE *out, const unsigned char *p, size_t n);

#endif
