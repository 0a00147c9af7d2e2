/* inline_prog.c - a program for stackfold --inline on perf script input:
 * square() is inlined into sum_squares(), which is inlined into work(),
 * which main() calls. The line numbers below are in the tests' goldens. */
#include <stdio.h>

static inline __attribute__((always_inline)) long square(long x)
{
	return x * x;
}

static inline __attribute__((always_inline)) long sum_squares(long n)
{
	long s = 0;
	for (long i = 0; i < n; i++)
		s += square(i) ^ (s >> 3);
	return s;
}

__attribute__((noinline)) long work(long n)
{
	return sum_squares(n) + sum_squares(n / 2);
}

int main(int argc, char **argv)
{
	(void)argv;
	printf("%ld\n", work(1000000L * argc));
	return 0;
}
