/* phases.c - a program of known phases for the capture-window tests:
 * phase_a burns CPU for A ms of wall time, phase_b for B ms, then (with a
 * sync directory) phase_c for B ms. Phases are timed on the wall clock, so
 * a --delay or --duration lands in the same phase however loaded the
 * machine is.
 *
 *   phases A_MS B_MS [DIR]
 *
 * phase_a allocates 100 blocks of 1000 bytes that phase_b frees halfway
 * through; then phase_b allocates 50 blocks of 2000 bytes, which it frees
 * as it ends. With DIR, the program
 * writes its pid to DIR/a after phase_a and waits for DIR/go1, then writes
 * DIR/b after phase_b and waits for DIR/go2 (a test sends its toggle
 * signals meanwhile). It installs its own SIGUSR1 handlers (sigaction,
 * then signal) and prints how many SIGUSR1 it saw, and whether sigaction
 * still reports its handler: "usr1 seen 0, handler kept".
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "spin.h"

static volatile sig_atomic_t seen;

static void on_usr1(int sig)
{
	(void)sig;
	seen++;
}

static void *kept[100];

static __attribute__((noinline)) unsigned long phase_a(double ms)
{
	for (int i = 0; i < 100; i++)
		kept[i] = malloc(1000);
	return spin(ms);
}

static __attribute__((noinline)) unsigned long phase_b(double ms)
{
	void *mine[50];
	unsigned long x = spin(ms / 2);
	for (int i = 0; i < 100; i++)
		free(kept[i]);
	for (int i = 0; i < 50; i++)
		mine[i] = malloc(2000);
	x ^= spin(ms / 2);
	for (int i = 0; i < 50; i++)
		free(mine[i]);
	return x;
}

static __attribute__((noinline)) unsigned long phase_c(double ms)
{
	return spin(ms);
}

/* Writes the pid to dir/name, then waits (sleeping) up to 10 s for dir/go. */
static void handshake(const char *dir, const char *name, const char *go)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.tmp", dir, name);
	FILE *f = fopen(path, "w");
	if (f) {
		fprintf(f, "%d\n", (int)getpid());
		fclose(f);
		char final[4096];
		snprintf(final, sizeof final, "%s/%s", dir, name);
		rename(path, final);
	}
	snprintf(path, sizeof path, "%s/%s", dir, go);
	for (int i = 0; i < 2000 && access(path, F_OK) != 0; i++) {
		struct timespec step = { 0, 5000000 };
		nanosleep(&step, NULL);
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: phases A_MS B_MS [DIR]\n");
		return 2;
	}
	struct sigaction sa = { 0 };
	sa.sa_handler = on_usr1;
	sigaction(SIGUSR1, &sa, NULL);
	signal(SIGUSR1, on_usr1);
	unsigned long x = phase_a(atof(argv[1]));
	if (argc > 3)
		handshake(argv[3], "a", "go1");
	x ^= phase_b(atof(argv[2]));
	if (argc > 3) {
		handshake(argv[3], "b", "go2");
		x ^= phase_c(atof(argv[2]));
	}
	struct sigaction now;
	sigaction(SIGUSR1, NULL, &now);
	printf("usr1 seen %d, handler %s (%lu)\n", (int)seen,
	       now.sa_handler == on_usr1 ? "kept" : "lost", x & 1);
	return 0;
}
