/* box.cpp - C++ names for the demangling cases: the CPU time is spent in a
 * templated member function, Box<std::vector<int>>::make(double) (symbol
 * _ZN3BoxISt6vectorIiSaIiEEE4makeEd), most of it in Box::step, a static
 * member inlined into it. run.sh folds the capture and looks for the names
 * demangled, as perf shows them.
 *
 * Usage: box [SECONDS]   (CPU seconds, default 0.3)
 */
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "burn.h"

template <typename T> struct Box {
	T items;
	unsigned long make(double ms);
	static inline __attribute__((always_inline)) unsigned long step(unsigned long x)
	{
		return x * 6364136223846793005u + 1442695040888963407u;
	}
};

template <typename T> __attribute__((noinline)) unsigned long Box<T>::make(double ms)
{
	double end = thread_cpu_ms() + ms;
	unsigned long x = 1;
	while (thread_cpu_ms() < end)
		for (int i = 0; i < 20000; i++)
			x = step(x);
	items.push_back((int)(x & 1));
	return x + items.size();
}

int main(int argc, char **argv)
{
	double seconds = argc > 1 ? atof(argv[1]) : 0.3;
	Box<std::vector<int> > box;
	unsigned long x = box.make(seconds * 1e3);
	printf("%lu\n", x & 1);
	return 0;
}
