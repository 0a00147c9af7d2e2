/* forker.c - forks NCHILD children (default 3). Before forking the parent
 * spends 100 ms in pre_fork_work(); each child spends CHILD_MS (default
 * 150) in child_work() and leaves with exit(0), or with _exit(0) when the
 * third argument is "_exit", or by execl("/bin/true") when it is "execl"
 * (the list form of exec, which glibc runs past an execve hook); the
 * parent then spends 100 ms in
 * parent_work() and waits for them. Prints "child PID" for each child, then
 * "parent PID".
 *
 * Usage: forker [NCHILD [CHILD_MS [exit|_exit|execl]]]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "burn.h"

__attribute__((noinline)) unsigned long pre_fork_work(void) { return burn(100) + 1; }
__attribute__((noinline)) unsigned long parent_work(void) { return burn(100) + 1; }
__attribute__((noinline)) unsigned long child_work(double ms) { return burn(ms) + 1; }

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;
	double child_ms = argc > 2 ? atof(argv[2]) : 150;
	int quick = argc > 3 && strcmp(argv[3], "_exit") == 0;
	int execs = argc > 3 && strcmp(argv[3], "execl") == 0;
	unsigned long x = pre_fork_work();
	for (int i = 0; i < n; i++) {
		fflush(stdout); /* or each child's exit() prints it again */
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			x = child_work(child_ms);
			if (quick)
				_exit((int)(x & 0)); /* no stdio, no atexit, no destructors */
			if (execs) {
				execl("/bin/true", "true", (char *)NULL);
				_exit(127);
			}
			exit((int)(x & 0));
		}
		printf("child %d\n", (int)pid);
	}
	x ^= parent_work();
	int bad = 0;
	for (int i = 0; i < n; i++) {
		int st;
		if (wait(&st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			bad++;
	}
	printf("parent %d\n", (int)getpid());
	return bad ? 1 : (int)(x & 0);
}
