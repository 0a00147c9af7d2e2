/* pyline.c - the shim's location-table decoder (capture/pystack.c) on
 * real tables: reads lines.py's output and prints "CODES UNITS MISMATCHES"
 * (the first few mismatches on stderr). Built by run.sh. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/python.h"

int main(void)
{
	static char line[1 << 22];
	static uint8_t table[1 << 20];
	unsigned long codes = 0, units = 0, bad = 0;
	while (fgets(line, sizeof line, stdin)) {
		char *save, *tok = strtok_r(line, " \n", &save);
		if (!tok)
			continue;
		uint32_t first = (uint32_t)strtoul(tok, NULL, 10);
		char *hex = strtok_r(NULL, " \n", &save);
		size_t n = 0;
		for (const char *h = hex; h && strcmp(hex, "-") && h[0] && h[1] && n < sizeof table; h += 2) {
			unsigned v;
			sscanf(h, "%2x", &v);
			table[n++] = (uint8_t)v;
		}
		codes++;
		uint32_t unit = 0;
		while ((tok = strtok_r(NULL, " \n", &save))) {
			uint32_t want = (uint32_t)strtoul(tok, NULL, 10), got = py_line(table, n, first, unit);
			if (got != want && bad++ < 5)
				fprintf(stderr, "code %lu (first line %u), unit %u: %u, co_lines() says %u\n",
					codes, first, unit, got, want);
			unit++, units++;
		}
	}
	printf("%lu %lu %lu\n", codes, units, bad);
	return bad != 0;
}
