/* spin.c - spins in spin_here() for SECONDS of CPU time (default 5), for
 * the SIGKILL cases: run.sh kills it mid-run. Writes its pid to PIDFILE
 * (when given) once main runs, so run.sh knows whom to kill.
 *
 * Usage: spin [SECONDS [PIDFILE]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "burn.h"

__attribute__((noinline)) unsigned long spin_here(double ms)
{
	return burn(ms) + 1;
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 5;
	if (argc > 2) {
		FILE *f = fopen(argv[2], "w");
		if (!f)
			return 2;
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	unsigned long x = spin_here(seconds * 1e3);
	printf("%lu\n", x & 1);
	return 0;
}
