/* alloc_pattern.c - a program with a known allocation pattern, for
 * stackcap --alloc and memtimeline: grow() allocates 100 blocks of 1 MiB
 * (a peak of exactly 100 MiB above the start), shrink() frees 90 of them,
 * leak() allocates 10 blocks of 64 KiB it never frees; the 10 MiB left by
 * grow() are freed at the end. So: 100 MiB + 640 KiB allocated in 110
 * blocks, peak 100 MiB live (+ what the C library holds), leaked 640 KiB.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MIB (1024 * 1024)

static void *blocks[100];
static void *leaked[10];

__attribute__((noinline)) static void grow(void)
{
	for (int i = 0; i < 100; i++) {
		blocks[i] = malloc(MIB);
		memset(blocks[i], i, MIB);
	}
}

__attribute__((noinline)) static void shrink(void)
{
	for (int i = 0; i < 90; i++) {
		free(blocks[i]);
		blocks[i] = NULL;
	}
}

__attribute__((noinline)) static void leak(void)
{
	for (int i = 0; i < 10; i++) {
		leaked[i] = malloc(64 * 1024);
		memset(leaked[i], 1, 64 * 1024);
	}
}

int main(void)
{
	grow();
	shrink();
	leak();
	for (int i = 90; i < 100; i++)
		free(blocks[i]);
	printf("%d\n", ((unsigned char *)leaked[9])[0]);
	return 0;
}
