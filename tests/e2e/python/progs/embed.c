/* embed.c - a C program that loads libpython itself (dlopen, as embedding
 * applications and plug-in hosts do) after the shim has started, then
 * runs Python code: the shim finds the interpreter once the library is
 * loaded. Usage: embed LIBPYTHON CODE */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		fprintf(stderr, "embed: %s\n", dlerror());
		return 1;
	}
	void (*init)(void) = (void (*)(void))dlsym(h, "Py_Initialize");
	int (*run)(const char *) = (int (*)(const char *))dlsym(h, "PyRun_SimpleString");
	int (*fin)(void) = (int (*)(void))dlsym(h, "Py_FinalizeEx");
	if (!init || !run || !fin)
		return 1;
	init();
	int rc = run(argv[2]);
	return fin() != 0 || rc != 0;
}
