/* onethread.c - a single-threaded program for --alloc-sample's writer,
 * which runs on the program's own thread while the program allocates and
 * gets a thread of its own once it stops: allocates and frees 64 KiB blocks
 * in alloc_here() for ALLOC_MS of CPU time, then spins in spin_here() for
 * SPIN_MS without allocating, and after each phase prints how many threads
 * the process has (/proc/self/task). Writes its pid to PIDFILE (when
 * given) once main runs, for the SIGKILL case.
 *
 * Usage: onethread ALLOC_MS SPIN_MS [PIDFILE]
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "burn.h"

static int threads(void)
{
	DIR *d = opendir("/proc/self/task");
	int n = 0;
	if (!d)
		return -1;
	for (struct dirent *e; (e = readdir(d));)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static volatile unsigned char sink;

__attribute__((noinline)) static void alloc_here(double ms)
{
	double end = thread_cpu_ms() + ms;
	while (thread_cpu_ms() < end)
		for (int i = 0; i < 100; i++) {
			unsigned char *p = malloc(65536);
			if (!p)
				exit(1);
			p[i] = (unsigned char)i;
			sink += p[i];
			free(p);
		}
}

__attribute__((noinline)) static unsigned long spin_here(double ms)
{
	return burn(ms) + 1;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	if (argc > 3) {
		FILE *f = fopen(argv[3], "w");
		if (!f)
			return 2;
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
	}
	alloc_here(atof(argv[1]));
	printf("threads after allocating: %d\n", threads());
	unsigned long x = spin_here(atof(argv[2]));
	printf("threads after spinning: %d\n", threads());
	return (int)(x & 0);
}
