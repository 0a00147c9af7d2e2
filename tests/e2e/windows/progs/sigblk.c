/* sigblk.c - prints the signal mask it started with, as /proc shows it
 * ("SigBlk: HEX"). Linked statically, so no preloaded shim runs before it
 * to change the mask: what it prints is the launcher's. */
#include <stdio.h>
#include <string.h>

int main(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	while (f && fgets(line, sizeof line, f))
		if (strncmp(line, "SigBlk:", 7) == 0)
			fputs(line, stdout);
	return f ? 0 : 1;
}
