/* outfile.c - all-or-nothing output files (see outfile.h). */
#include "formats/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

int fk_outfile_open(const char *path)
{
	struct stat st;
	bool replaceable = stat(path, &st) != 0 ? errno == ENOENT : S_ISREG(st.st_mode);
	if (replaceable) {
		char dir[PATH_MAX];
		snprintf(dir, sizeof dir, "%s", path);
		int fd = open(dirname(dir), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0666);
		if (fd >= 0)
			return fd;
	}
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
}

/* An unnamed (O_TMPFILE) file has no links yet. */
static bool unnamed(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 0;
}

bool fk_outfile_commit(int fd, const char *path)
{
	if (!unnamed(fd))
		return close(fd) == 0;
	/* link() cannot replace a file: link under a fresh name, then rename. */
	char proc[64], tmp[PATH_MAX];
	snprintf(proc, sizeof proc, "/proc/self/fd/%d", fd);
	bool ok = false;
	for (int attempt = 0; attempt < 100 && !ok; attempt++) {
		snprintf(tmp, sizeof tmp, "%s.%ld.%d.tmp", path, (long)getpid(), attempt);
		if (linkat(AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW) == 0)
			ok = true;
		else if (errno != EEXIST)
			break;
	}
	int err = errno;
	if (ok && rename(tmp, path) != 0) {
		err = errno;
		unlink(tmp);
		ok = false;
	}
	if (close(fd) != 0 && ok) {
		err = errno;
		ok = false;
	}
	errno = err;
	return ok;
}

void fk_outfile_abort(int fd)
{
	close(fd);
}
