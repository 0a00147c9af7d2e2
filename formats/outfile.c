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

#define OUT_BUFFER ((size_t)1 << 20)

FILE *fk_outfile_fopen(const char *path, struct fk_diag *d)
{
	FILE *f = stdout;
	if (path && strcmp(path, "-") != 0) {
		int fd = fk_outfile_open(path);
		f = fd >= 0 ? fdopen(fd, "w") : NULL;
		if (!f && fd >= 0) {
			int err = errno;
			fk_outfile_abort(fd);
			errno = err;
		}
	}
	if (!f) {
		fk_diag_error(d, "%s: %s", path, strerror(errno));
		return NULL;
	}
	setvbuf(f, NULL, _IOFBF, OUT_BUFFER);
	return f;
}

bool fk_outfile_fclose(FILE *f, const char *path, struct fk_diag *d)
{
	bool ok = fflush(f) == 0 && !ferror(f);
	int err = errno;
	if (f != stdout) {
		/* The file appears only now, complete; on an error it never does. */
		int fd = dup(fileno(f));
		ok = fclose(f) == 0 && ok;
		err = ok ? err : errno;
		if (fd < 0) {
			ok = false;
			err = errno;
		} else if (!ok) {
			fk_outfile_abort(fd);
		} else if (!fk_outfile_commit(fd, path)) {
			ok = false;
			err = errno;
		}
	}
	if (!ok)
		fk_diag_error(d, "%s: write error: %s",
			      (!path || strcmp(path, "-") == 0) ? "<stdout>" : path, strerror(err));
	return ok;
}
